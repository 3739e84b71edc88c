"""The compiled core follows the Python tables: the generated header, the rules marshaller and
what :func:`xuezhan.native.refusal` refuses (docs/native.md)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest

import xuezhan.rules
from xuezhan import native, vocab
from xuezhan.bots.heuristic import HeuristicBot
from xuezhan.encoding import OBS_FIELDS, OBS_SIZE
from xuezhan.engine.actions import REASONS, ActionType
from xuezhan.errors import XuezhanError
from xuezhan.ids import EventKind
from xuezhan.native import gen, layout
from xuezhan.rules import BASE_PATTERNS, EXTRAS, Rules

CSRC = Path(__file__).resolve().parent.parent / "csrc"


def _defines(text: str) -> dict[str, str]:
    return dict(re.findall(r"^#define (\w+) (.+)$", text, flags=re.M))


def _other_value(name: str, value: Any) -> Any:
    """A valid value of the option ``name`` other than ``value``."""
    values = layout.choices(name)
    if values is not None:
        return next(v for v in values if v != value)
    if isinstance(value, bool):
        return not value
    if name == "cap_multiple":
        return 8 if value is None else None
    if name == "hua_zhu_multiple":
        return 4 if value == "cap" else value + 1
    assert isinstance(value, int), name
    return value + 1


# --- every Rules field reaches the core or is accounted for -------------------------------------

def test_every_rules_field_is_passed_refused_or_irrelevant() -> None:
    assert layout.unaccounted(f.name for f in dataclasses.fields(Rules)) == []


def test_a_new_field_is_unaccounted_until_listed() -> None:
    names = [f.name for f in dataclasses.fields(Rules)]
    assert layout.unaccounted([*names, "moon_rule"]) == ["moon_rule"]


def test_the_lists_do_not_overlap_and_give_reasons() -> None:
    passed = layout.passed_fields()
    assert not passed & layout.IRRELEVANT.keys()
    assert not passed & layout.REFUSED.keys()
    assert not layout.IRRELEVANT.keys() & layout.REFUSED.keys()
    assert all(reason.strip() for reason in (*layout.IRRELEVANT.values(), *layout.REFUSED.values()))
    fields = {f.name for f in dataclasses.fields(Rules)}
    assert {r for w in layout.RULE_WORDS for r in w.reads} <= fields
    assert all(w.name in fields or isinstance(getattr(Rules, w.name, None), property) for w in layout.RULE_WORDS)


@pytest.mark.parametrize("name", sorted(layout.passed_fields() - {"fan"}))
def test_each_passed_field_changes_what_the_core_is_given(name: str) -> None:
    base = Rules.preset("chengdu") if name == "hua_zhu_multiple" else Rules()
    changed = base.with_options({name: _other_value(name, getattr(base, name))})
    assert native.marshal_rules(changed) != native.marshal_rules(base)
    assert native.refusal(changed) is None


def test_each_fan_is_passed_in_its_place() -> None:
    words = native.marshal_rules(Rules())
    for k, pid in enumerate(native.FAN_IDS):
        changed = Rules().with_options({"fan": {pid: 2 if Rules().fan_of(pid) == 1 else 1}})
        diff = [i for i, (a, b) in enumerate(zip(words, native.marshal_rules(changed), strict=True)) if a != b]
        assert diff == [len(layout.RULE_WORDS) + k]


def test_the_marshalled_rules_fit_the_core() -> None:
    core: Any = native._core
    for rules in (Rules(), Rules.preset("chengdu"), Rules().with_options({"exchange_three": "random"})):
        words = native.marshal_rules(rules)
        assert len(words) == core.RULE_WORDS == len(layout.RULE_WORDS) + len(native.FAN_IDS)
        core.Hand(1, 0, words)  # accepted
    with pytest.raises(ValueError, match="out of bounds"):
        core.Hand(1, 0, (*words[:3], 7, *words[4:]))  # self_draw_bonus has three values


def test_a_field_not_passed_is_refused_at_any_but_its_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(native, "_PLAYED", native._PLAYED - {"blood_river"})
    assert native.refusal(Rules()) is None
    why = native.refusal(Rules().with_options({"blood_river": True}))
    assert why is not None and "blood_river" in why


def test_a_refused_field_gives_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(layout.REFUSED, "must_hu_last_four", "not compiled yet")
    monkeypatch.setattr(native, "_PLAYED", native._PLAYED - {"must_hu_last_four"})
    why = native.refusal(Rules.preset("chengdu"))
    assert why is not None and "not compiled yet" in why


# --- fan patterns: the C build picks ids up; what the scorer lacks is refused --------------------

def test_the_core_scores_every_pattern_and_extra_of_the_tables() -> None:
    core: Any = native._core
    implemented = core.FAN_IMPLEMENTED
    assert implemented == (*BASE_PATTERNS, *EXTRAS)


def test_fan_on_a_pattern_the_scorer_lacks_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    core: Any = native._core
    monkeypatch.setattr(core, "FAN_IMPLEMENTED", tuple(p for p in core.FAN_IMPLEMENTED if p != "hai_di"))
    assert Rules().fan_of("hai_di") == 0
    assert native.refusal(Rules()) is None  # no fan: nothing to mis-score
    why = native.refusal(Rules.preset("chengdu"))  # hai_di 1
    assert why is not None and "hai_di" in why
    with pytest.raises(XuezhanError) as info:
        native.play_hands([1], Rules.preset("chengdu"))
    assert info.value.code == "native_refused"


def test_a_new_extra_gets_an_id_and_is_refused_until_scored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(xuezhan.rules, "EXTRAS", (*EXTRAS, "moon_on_the_sea"))
    monkeypatch.setitem(xuezhan.rules._QQ_FAN, "moon_on_the_sea", 0)
    defines = _defines(gen.header())
    assert defines["XZ_EXTRA_MOON_ON_THE_SEA"] == str(len(BASE_PATTERNS) + len(EXTRAS))
    assert defines["XZ_FAN_COUNT"] == str(len(BASE_PATTERNS) + len(EXTRAS) + 1)
    assert defines["XZ_RULE_WORDS"] == str(len(layout.RULE_WORDS) + len(BASE_PATTERNS) + len(EXTRAS) + 1)
    rules = Rules()
    assert native.refusal(rules) is None  # fan 0 under the default rules
    why = native.refusal(rules.with_options({"fan": {"moon_on_the_sea": 2}}))
    assert why is not None and "moon_on_the_sea" in why


def test_the_c_sources_compile_with_a_pattern_added(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A base pattern added in Python is one change: the C sources still compile against the new ids."""
    monkeypatch.setattr(xuezhan.rules, "BASE_PATTERNS", (*BASE_PATTERNS[:3], "san_long", *BASE_PATTERNS[3:]))
    gen.write_header(tmp_path)
    assert _defines((tmp_path / gen.HEADER).read_text())["XZ_PAT_QING_YI_SE"] == "2"
    assert _defines((tmp_path / gen.HEADER).read_text())["XZ_PAT_DAI_YAO_JIU"] == "4"
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    assert shutil.which(cc), "the compiled core's tests need its compiler"
    for source in sorted(CSRC.glob("*.c")):
        subprocess.run([cc, "-fsyntax-only", "-Werror", f"-I{tmp_path}", f"-I{sysconfig.get_paths()['include']}",
                        str(source)], check=True)


# --- the generated header ------------------------------------------------------------------------

def test_the_header_names_the_python_ids() -> None:
    d = _defines(gen.header())
    for i, t in enumerate(ActionType):
        assert d[f"XZ_ACTION_{t.name}"] == str(i)
    for i, r in enumerate(REASONS):
        assert d[f"XZ_REASON_{r.upper()}"] == str(i)
    for i, p in enumerate(BASE_PATTERNS):
        assert d[f"XZ_PAT_{p.upper()}"] == str(i)
    for word in layout.RULE_WORDS:
        values = layout.choices(word.name)
        for k, v in enumerate(values or ()):
            assert d[f"XZ_{word.name.upper()}_{v.upper()}"] == str(k)


def test_the_header_carries_the_observation_layout_and_the_heuristics_tunables() -> None:
    d = _defines(gen.header())
    assert d["XZ_OBS_SIZE"] == str(OBS_SIZE)
    seat0 = OBS_FIELDS["s0_peng"][0]
    assert d["XZ_OBS_SEAT0"] == str(seat0)
    for name, (at, n) in OBS_FIELDS.items():
        if name.startswith("s0_"):
            key = f"XZ_SEAT_{name[3:].upper()}"
            assert (d[key], d[f"{key}_SIZE"]) == (str(at - seat0), str(n))
        elif at < seat0:
            key = f"XZ_OBS_{name.upper()}"
            assert (d[key], d[f"{key}_SIZE"]) == (str(at), str(n))
    assert float(d["XZ_H_FOLD_AT"]) == HeuristicBot.fold_at
    assert float(d["XZ_H_DANGER_WEIGHT"]) == HeuristicBot.danger_weight


def test_the_event_codes_are_event_types() -> None:
    assert len(set(layout.EVENT_CODES)) == len(layout.EVENT_CODES)
    for kind in layout.EVENT_CODES:
        assert isinstance(kind, EventKind)
        vocab.term(vocab.Kind.EVENT, kind)  # raises for an unknown one


def test_every_event_kind_is_compiled_or_said_not_to_be() -> None:
    assert not set(layout.EVENT_CODES) & layout.UNCOMPILED_EVENTS.keys()
    assert set(layout.EVENT_CODES) | layout.UNCOMPILED_EVENTS.keys() == set(EventKind)


def test_the_header_is_written_once(tmp_path: Path) -> None:
    path = gen.write_header(tmp_path)
    os.utime(path, (1, 1))
    gen.write_header(tmp_path)
    assert path.stat().st_mtime == 1  # unchanged: nothing to rebuild
    path.write_text("stale")
    gen.write_header(tmp_path)
    assert path.read_text() == gen.header()
    assert gen.main([str(tmp_path)]) == 0
    assert gen.main([]) == 2


def test_a_core_built_from_other_tables_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert native.stale() is None  # this build matches the tables
    monkeypatch.setattr(native, "_STALE", [])
    monkeypatch.setattr(native._core, "GEN_DIGEST", "0000000000000000")
    why = native.refusal(Rules())
    assert why is not None and "rebuild" in why
