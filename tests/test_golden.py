"""The golden corpus (tests/golden/corpus.jsonl, built by tools/gen_golden.py): every record
replays to its expected result bit for bit (winners, ledger, deltas, next dealer, and a
SHA-256 of the event list), and the corpus covers what it must.

Regenerating the corpus is a deliberate act (``python tools/gen_golden.py --write``, then a
review of the diff); this test only reads it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from xuezhan import vocab
from xuezhan.records import parse_record, replay, result_json
from xuezhan.rules import BASE_PATTERNS, EXTRAS, Rules, option_names
from xuezhan.vocab import Kind

CORPUS = Path(__file__).parent / "golden" / "corpus.jsonl"
EXPECTED_KEYS = ("complete", "winners", "ledger", "deltas", "next_dealer")
# Ledger reasons of a match, not of a hand: 叫马 and the double card (docs/rules.md §12-13, tests/test_match.py).
MATCH_REASONS = {"jiao_ma", "double_card"}
# The fan options of docs/rules.md §14.
FAN_OPTIONS = ("jiang_dui", "qiang_gang_hu", "hai_di", "jin_gou_diao", "jue_zhang", "tian_hu", "di_hu")


def _entries() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines()]


ENTRIES = _entries()


def canonical(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _chunks(n: int) -> Iterator[list[dict[str, Any]]]:
    size = -(-len(ENTRIES) // n)
    for i in range(0, len(ENTRIES), size):
        yield ENTRIES[i:i + size]


@pytest.mark.parametrize("chunk", list(_chunks(8)), ids=lambda c: f"{c[0]['name']}..")
def test_records_replay_to_their_expected_results(chunk: list[dict[str, Any]]) -> None:
    for entry in chunk:
        game, complete = replay(parse_record(entry["record"]))
        res = result_json(game, complete)
        events = hashlib.sha256(canonical(res["events"]).encode()).hexdigest()
        got = canonical({**{k: res[k] for k in EXPECTED_KEYS}, "events_sha256": events})
        assert got == canonical(entry["expected"]), entry["name"]
        assert complete, entry["name"]


def test_the_corpus_is_large_and_named_once() -> None:
    names = [e["name"] for e in ENTRIES]
    assert len(names) >= 200
    assert len(set(names)) == len(names)
    assert all(set(e) == {"name", "record", "expected"} for e in ENTRIES)


def _rules() -> list[Rules]:
    return [parse_record(e["record"]).rules for e in ENTRIES]


def test_every_option_of_rules_14_is_covered() -> None:
    rules = _rules()
    assert {r.preset_name for r in rules} == {"qq", "chengdu"}
    hints = typing.get_type_hints(Rules)
    missing = []
    for name in option_names():
        if name == "fan":
            continue
        seen = {getattr(r, name) for r in rules}
        choices = typing.get_args(hints[name])
        if hints[name] is bool:
            wanted: set[Any] = {True, False}
        elif choices and all(isinstance(c, str) for c in choices):
            wanted = set(choices)
        else:  # a number (or "cap", or none): seen at two values at least
            wanted = set()
            if len(seen) < 2:
                missing.append(f"{name}: only {seen}")
        if not wanted <= seen:
            missing.append(f"{name}: {sorted(map(str, wanted - seen))}")
    for pid in FAN_OPTIONS:
        if len({dict(r.fan)[pid] for r in rules}) < 2:
            missing.append(f"fan of {pid}")
    assert not missing, missing
    assert {f.name for f in dataclasses.fields(Rules)} - {"preset_name"} == set(option_names())


def test_every_pattern_extra_and_ledger_reason_is_covered() -> None:
    bases, extras, reasons = set(), set(), set()
    for e in ENTRIES:
        for w in e["expected"]["winners"]:
            bases.add(w["base"])
            extras |= {k for k, v in w["extras"].items() if v}
        reasons |= {line["reason"] for line in e["expected"]["ledger"]}
    assert set(BASE_PATTERNS) - bases == set()
    assert set(EXTRAS) - extras == set()
    assert set(vocab.ids(Kind.REASON)) - MATCH_REASONS - reasons == set()


def test_both_outcomes_and_every_next_dealer() -> None:
    ends = {(bool(e["expected"]["winners"]), e["expected"]["next_dealer"] is None) for e in ENTRIES}
    assert ends == {(True, True), (True, False), (False, True), (False, False)}
    assert {e["expected"]["next_dealer"] for e in ENTRIES} == {None, 0, 1, 2, 3}
