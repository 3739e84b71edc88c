"""One vocabulary: every id the code can emit has its names, and every place reads them from it.

The ids are found in the sources by an AST scan, so a new pattern, ledger reason, event
type or error code without an entry in :mod:`xuezhan.vocab` makes these tests fail.
"""

from __future__ import annotations

import ast
import dataclasses
import re
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from types import ModuleType
from typing import Final, get_args, get_type_hints

import pytest

from xuezhan import rules as rules_module
from xuezhan import vocab
from xuezhan.engine.actions import ActionType
from xuezhan.errors import RulesError
from xuezhan.match import DOUBLE_CARD, ITEM_NAMES_ZH, JIAO_MA, ItemKind
from xuezhan.rules import BASE_PATTERNS, EXTRAS, Rules
from xuezhan.tui.words import REASON_WORDS, reason_words
from xuezhan.vocab import Kind, Term, UnknownTermError

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "xuezhan"
STATIC = SRC / "server" / "static"
CODE = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")


# --- the scan ------------------------------------------------------------------------------------------


def _trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(SRC.rglob("*.py"))}


TREES = _trees()


_ENUMS: Final = {"Reason": vocab.Reason, "ActionKind": vocab.ActionKind, "ActionType": vocab.ActionKind,
                  "EventKind": vocab.EventKind, "ErrorCode": vocab.ErrorCode}
"""The vocabulary's enums, by the names the sources use for them."""


def _strings(node: ast.AST | None) -> Iterator[str]:
    """The ids a value can take: a literal, a member of one of the vocabulary's enums
    (``Reason.ZIMO``), or either branch of ``a if c else b``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in _ENUMS
          and node.attr.isupper()):
        yield _ENUMS[node.value.id][node.attr].value
    elif isinstance(node, ast.IfExp):
        yield from _strings(node.body)
        yield from _strings(node.orelse)


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _error_classes() -> set[str]:
    """``XuezhanError`` and every class deriving from it anywhere in src/."""
    known = {"XuezhanError"}
    grew = True
    while grew:
        grew = False
        for tree in TREES.values():
            for node in ast.walk(tree):
                if (isinstance(node, ast.ClassDef) and node.name not in known
                        and any(_name(b) in known for b in node.bases)):
                    known.add(node.name)
                    grew = True
    return known


def scanned_error_codes() -> dict[str, set[str]]:
    """Every literal error code in src/, with the files it is found in.

    - ``SomeError("code", ...)`` for every ``XuezhanError`` subclass;
    - ``error_message("code", ...)`` and ``emit_error("code", ...)`` (server, CLI),
    - ``_refuse(conn, "type", "code", ...)`` (the web table's answers),
      ``_error(status, "code", ...)`` (HTTP);
    - ``code = "..."`` (a code chosen before raising);
    - ``return "..."`` in ``why_illegal`` and ``can_*`` (the engine's reasons an action is illegal).
    """
    classes = _error_classes()
    out: dict[str, set[str]] = {}

    def add(values: Iterator[str], path: Path) -> None:
        for v in values:
            out.setdefault(v, set()).add(str(path.relative_to(SRC)))

    for path, tree in TREES.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                n = _name(node.func)
                if n == "_error":
                    index = 1
                elif n == "_refuse":  # the table's answer to a client message: (conn, for, code, ...)
                    index = 2
                elif n in classes or n in ("error_message", "emit_error"):
                    index = 0
                else:
                    continue
                if len(node.args) > index:
                    add(_strings(node.args[index]), path)
            elif isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == "code" for t in node.targets):
                    add(_strings(node.value), path)
            elif isinstance(node, ast.FunctionDef) and (
                    node.name.endswith("why_illegal") or node.name.startswith("can_")):
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Return):
                        add(_strings(sub.value), path)
    return out


def scanned_ledger_reasons() -> set[str]:
    """Reasons given to ``pay``/``LedgerEntry``/``Transfer`` as literals or members (the fourth argument)."""
    out: set[str] = set()
    for tree in TREES.values():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and _name(node.func) in ("pay", "_pay", "LedgerEntry", "Transfer")
                    and len(node.args) > 3):
                out.update(_strings(node.args[3]))
    return out


def scanned_event_types() -> set[str]:
    """The ``"type"`` of every event dict the engine emits or appends to its log (a literal, or a
    name assigned literals)."""
    out: set[str] = set()
    for path in (SRC / "engine").glob("*.py"):
        tree = TREES[path]
        assigned: dict[str, set[str]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        assigned.setdefault(t.id, set()).update(_strings(node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                assigned.setdefault(node.target.id, set()).update(_strings(node.value))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node.func) in ("emit", "_emit", "append") and node.args:
                ev = node.args[0]
                if not isinstance(ev, ast.Dict):
                    continue
                for k, v in zip(ev.keys, ev.values, strict=True):
                    if isinstance(k, ast.Constant) and k.value == "type":
                        if isinstance(v, ast.Name):
                            out.update(assigned.get(v.id, set()))
                        else:
                            out.update(_strings(v))
    return out


def scanned_scoring_ids() -> set[str]:
    """Pattern and extra ids as scoring.py writes them: ``add("id", ...)``, ``pattern = "id" ...``,
    and ``("id", fan)`` pairs."""
    tree = TREES[SRC / "scoring.py"]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _name(node.func) == "add" and node.args:
            out.update(_strings(node.args[0]))
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pattern" for t in node.targets):
            out.update(_strings(node.value))
        elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
            first, second = node.elts
            if isinstance(first, ast.Constant) and isinstance(first.value, str) and not (
                isinstance(second, ast.Constant) and isinstance(second.value, str)
            ):
                out.add(first.value)
    return out


# --- the table itself ----------------------------------------------------------------------------------


def test_every_term_has_a_code_like_id_and_three_names() -> None:
    seen: set[tuple[Kind, str]] = set()
    for t in vocab.TERMS:
        assert CODE.match(t.id), t
        assert (t.kind, t.id) not in seen, t
        seen.add((t.kind, t.id))
        for lang in vocab.LANGS:
            assert t.name(lang).strip() == t.name(lang), (t, lang)
            assert t.name(lang), (t, lang)
        # the Chinese names are Chinese, the English one is not
        assert re.search(r"[\u4e00-\u9fff]", t.zh_cn) and re.search(r"[\u4e00-\u9fff]", t.zh_tw), t
        assert not re.search(r"[\u4e00-\u9fff]", t.en), t


def test_traditional_names_differ_only_where_the_characters_do() -> None:
    # zh-TW is not a copy of zh-CN: wherever a simplified character with a distinct traditional
    # form appears, the traditional name uses that form.
    simplified_to_traditional = {"对": "對", "龙": "龍", "杠": "槓", "补": "補", "张": "張", "带": "帶", "将": "將"}
    for t in vocab.TERMS:
        for s, tw in simplified_to_traditional.items():
            if s in t.zh_cn:
                assert s not in t.zh_tw and tw in t.zh_tw, t


def test_term_is_a_frozen_value_with_a_python_repr() -> None:
    t = vocab.term(Kind.PATTERN, "qing_yi_se")
    assert t == Term("qing_yi_se", Kind.PATTERN, "清一色", "清一色", "pure one suit")
    assert eval(repr(t), {"Term": Term, "Kind": Kind}) == t
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.en = "x"  # type: ignore[misc]
    assert hash(t) == hash(vocab.term("pattern", "qing_yi_se"))


def test_lookups() -> None:
    assert vocab.name("pattern", "qi_dui") == "七对"
    assert vocab.name(Kind.PATTERN, "qi_dui", "zh-TW") == "七對"
    assert vocab.name(Kind.PATTERN, "qi_dui", "en") == "seven pairs"
    assert vocab.term("reason", "zimo").names() == {"zh-CN": "自摸", "zh-TW": "自摸", "en": "self-drawn win"}
    assert vocab.find(Kind.EXTRA, "qing_yi_se") is None  # a pattern, not an extra
    assert vocab.name_or_id(Kind.REASON, "not_a_reason") == "not_a_reason"
    assert vocab.ids(Kind.EXTRA)[0] == "gen"
    assert all(t.kind is Kind.ERROR for t in vocab.terms("error"))


@pytest.mark.parametrize(("kind", "id"), [("pattern", "qing_yi_se_plus"), ("reason", "qing_yi_se"), ("nope", "hu")])
def test_an_unknown_id_or_kind_is_a_clear_error(kind: str, id: str) -> None:
    with pytest.raises(UnknownTermError) as info:
        vocab.term(kind, id)
    assert info.value.code == "unknown_term"
    assert repr(id) in info.value.message or repr(kind) in info.value.message
    with pytest.raises(UnknownTermError):
        vocab.name(kind, id)


def test_an_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(UnknownTermError, match="no language"):
        vocab.term("pattern", "ping_hu").name("fr")  # type: ignore[arg-type]


def test_json_export() -> None:
    data = vocab.to_json()
    assert data["langs"] == ["zh-CN", "zh-TW", "en"] and data["default"] == "zh-CN"
    assert set(data["kinds"]) == {str(k) for k in Kind}
    assert data["kinds"]["pattern"]["qing_yi_se"] == {"zh-CN": "清一色", "zh-TW": "清一色", "en": "pure one suit"}
    assert sum(len(v) for v in data["kinds"].values()) == len(vocab.TERMS)
    assert list(data["kinds"]["pattern"]) == list(BASE_PATTERNS)  # table order kept


@pytest.mark.parametrize(("kind", "enum"), [(Kind.REASON, vocab.Reason), (Kind.ACTION, vocab.ActionKind),
                                            (Kind.EVENT, vocab.EventKind), (Kind.ERROR, vocab.ErrorCode)])
def test_each_enum_is_its_table_in_order(kind: Kind, enum: type[StrEnum]) -> None:
    assert vocab.ids(kind) == tuple(m.value for m in enum)
    assert all(m.name == m.value.upper() for m in enum)
    assert vocab.term(kind, enum(vocab.ids(kind)[0])).id == vocab.ids(kind)[0]


def test_an_enum_member_is_its_id_in_json() -> None:
    import json

    import orjson

    event = {"type": vocab.EventKind.PAY, "reason": vocab.Reason.ZIMO}
    assert json.dumps(event) == '{"type": "pay", "reason": "zimo"}'
    assert orjson.dumps(event) == b'{"type":"pay","reason":"zimo"}'
    assert event == {"type": "pay", "reason": "zimo"} and str(vocab.ErrorCode.BAD_TILE) == "bad_tile"
    assert ActionType is vocab.ActionKind


def test_an_error_takes_its_code_as_a_member_or_as_text() -> None:
    by_member = RulesError(vocab.ErrorCode.BAD_OPTION, "no such value")
    by_text = RulesError("bad_option", "no such value")
    assert by_member.code == by_text.code == vocab.ErrorCode.BAD_OPTION
    assert type(by_member.code) is str and by_member.to_json() == {"code": "bad_option", "message": "no such value"}


# --- every id the code can emit has an entry --------------------------------------------------------------


def test_patterns_and_extras_are_those_of_the_rules_in_order() -> None:
    assert vocab.ids(Kind.PATTERN) == BASE_PATTERNS
    assert vocab.ids(Kind.EXTRA) == EXTRAS
    for preset in ("qq", "chengdu"):
        assert {k for k, _ in Rules.preset(preset).fan} == set(BASE_PATTERNS) | set(EXTRAS)


def test_every_pattern_and_extra_id_of_scoring_has_an_entry() -> None:
    found = scanned_scoring_ids()
    assert {"ping_hu", "qing_long_qi_dui", "tian_hu", "di_hu", "gen", "zi_mo_jia_fan"} <= found  # the scan works
    known = set(vocab.ids(Kind.PATTERN)) | set(vocab.ids(Kind.EXTRA))
    assert found - known == set()
    assert known - found == set(), "a pattern or extra that scoring never gives"


def test_every_ledger_reason_of_the_engine_and_the_match_layer_has_an_entry() -> None:
    found = scanned_ledger_reasons()
    assert {"hu", "zimo", "angang", "tui_shui", "escape"} <= found  # the scan works
    found |= {JIAO_MA, DOUBLE_CARD}  # the match layer names its reasons as constants
    # docs/interfaces.md §2.5: the hand's own reasons
    found |= {"hu", "zimo", "angang", "bugang", "zhigang", "call_transfer", "hua_zhu", "cha_jiao", "tui_shui",
              "escape"}
    assert found - set(vocab.ids(Kind.REASON)) == set()
    assert set(vocab.ids(Kind.REASON)) - found == set(), "a ledger reason nothing emits"


def test_every_action_type_and_item_card_has_an_entry() -> None:
    assert set(vocab.ids(Kind.ACTION)) == {str(a) for a in ActionType}
    assert set(vocab.ids(Kind.ITEM)) == {str(k) for k in ItemKind}
    assert {k: vocab.name(Kind.ITEM, k) for k in ItemKind} == ITEM_NAMES_ZH


def test_every_event_type_of_the_engine_has_an_entry() -> None:
    found = scanned_event_types()
    assert {"start", "hu", "pay", "wall_empty", "exchange_chosen", "dingque_chosen"} <= found  # the scan works
    assert found - set(vocab.ids(Kind.EVENT)) == set()
    assert set(vocab.ids(Kind.EVENT)) - found == set(), "an event type the engine never emits"


def test_every_error_code_raised_in_src_has_an_entry() -> None:
    found = scanned_error_codes()
    # the scan sees each way a code is given
    for code in ("bad_tile", "bad_option", "pass_hu_blocked", "not_your_turn", "unknown_room", "rate_limited",
                 "bad_message", "no_ticket", "insufficient_balance", "bad_db", "unknown_term"):
        assert code in found, code
    missing = {c: sorted(files) for c, files in found.items() if vocab.find(Kind.ERROR, c) is None}
    assert missing == {}, f"error codes without a vocabulary entry: {missing}"
    assert all(CODE.match(c) for c in found), sorted(c for c in found if not CODE.match(c))


# --- every place reads names from it ---------------------------------------------------------------------


def test_terminal_reason_words_use_the_vocabulary() -> None:
    assert set(REASON_WORDS) == set(vocab.ids(Kind.REASON))
    assert reason_words("hua_zhu") == "flower pig"
    assert reason_words("zhigang") == "direct kong (zhigang)"
    for reason in vocab.ids(Kind.REASON):
        assert REASON_WORDS[reason].startswith(vocab.name(Kind.REASON, reason, "en"))


def test_the_page_keeps_no_name_table() -> None:
    js = "\n".join(path.read_text(encoding="utf-8") for path in sorted(STATIC.glob("*.js")))
    assert "/api/vocab" in js
    assert "清一色" not in js
    for kind in (Kind.PATTERN, Kind.EXTRA, Kind.REASON, Kind.ITEM):
        for t in vocab.terms(kind):
            for name in (t.zh_cn, t.zh_tw):
                if len(name) > 1:
                    assert name not in js, f"the page names {t.kind} {t.id} itself ({name})"
    assert not re.search(r"\bconst (PATTERNS|REASONS)\b", js)


def test_the_server_serves_the_vocabulary(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from xuezhan.server import ServerConfig, create_app

    app = create_app(f"sqlite:///{tmp_path / 'v.sqlite3'}", config=ServerConfig())
    with TestClient(app) as client:
        res = client.get("/api/vocab")
    assert res.status_code == 200
    assert res.headers["content-type"].startswith("application/json")
    assert res.json() == vocab.to_json()


def test_docs_vocabulary_md_is_in_sync(load_script: Callable[[str], ModuleType]) -> None:
    gen = load_script("tools/gen_vocab_doc.py")
    text = (ROOT / "docs" / "vocabulary.md").read_text(encoding="utf-8")
    assert text == gen.render(), "docs/vocabulary.md is out of date: run python tools/gen_vocab_doc.py"
    assert "| `qing_yi_se` | 清一色 | 清一色 | pure one suit |" in text


# --- rule options with a fixed set of values ---------------------------------------------------------------


FIXED = {
    "self_draw_bonus": rules_module.SelfDrawBonus,
    "zhigang_payment": rules_module.ZhigangPayment,
    "dian_gang_hua": rules_module.DianGangHua,
    "pass_hu_scope": rules_module.PassHuScope,
    "cha_jiao_pays": rules_module.ChaJiaoPays,
    "long_qi_dui_mode": rules_module.LongQiDuiMode,
    "dealer_rule": rules_module.DealerRule,
    "exchange_three": rules_module.ExchangeThree,
}


@pytest.mark.parametrize("option", sorted(FIXED))
def test_fixed_value_options_are_typed_and_validated(option: str) -> None:
    values = get_args(FIXED[option])
    assert get_type_hints(Rules)[option] == FIXED[option]
    for v in values:
        assert getattr(Rules.preset().with_options({option: v}), option) == v
    with pytest.raises(RulesError) as info:
        Rules.preset().with_options({option: "nonsense"})
    assert info.value.code == "bad_option" and all(v in info.value.message for v in values)
