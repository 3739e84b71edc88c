"""What the compiled core is given and by which numbers: the layout :mod:`xuezhan.native.gen`
writes into the C header and :func:`xuezhan.native.marshal_rules` fills.

:data:`RULE_WORDS` names, in order, each rule option the core reads (``XzRules`` in C, one
member per entry); the fan table follows. Every other field of :class:`~xuezhan.rules.Rules`
is listed in :data:`IRRELEVANT` or :data:`REFUSED` with the reason (``tests/test_native_gen.py``
fails on a field in none of them, and :func:`xuezhan.native.refusal` refuses any value but the
default of a field the core is not passed). Standard library, the ids and the rules core only.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from ..ids import EventKind
from ..rules import BASE_PATTERNS, EXTRAS, MAX_BASE_SCORE, MAX_MULTIPLE, Rules

FAN_IDS: Final = (*BASE_PATTERNS, *EXTRAS)
"""Base patterns then extras: the core's fan ids (``XZ_PAT_*``, ``XZ_EXTRA_*``) are their places here."""

EVENT_CODES: Final = (
    EventKind.START, EventKind.DEAL, EventKind.EXCHANGE_CHOSEN, EventKind.DINGQUE_CHOSEN, EventKind.EXCHANGE,
    EventKind.EXCHANGE_RECEIVED, EventKind.EXCHANGE_DONE, EventKind.DINGQUE, EventKind.TURN, EventKind.DRAW,
    EventKind.DISCARD, EventKind.PAY, EventKind.PASS_HU, EventKind.PENG, EventKind.ANGANG, EventKind.BUGANG_DECLARED,
    EventKind.BUGANG, EventKind.ZHIGANG, EventKind.HU, EventKind.WALL_EMPTY, EventKind.END,
)
"""The events the core writes into its packed stream (``XZ_EVENT_*``: a kind's code is its place
here); :mod:`xuezhan.native` reads the stream back with the same codes. Every
:class:`~xuezhan.ids.EventKind` is here or in :data:`UNCOMPILED_EVENTS`."""

UNCOMPILED_EVENTS: Final[dict[EventKind, str]] = {
    EventKind.SWAP: "item cards are not compiled (the core refuses them)",
    EventKind.ESCAPE: "escapes are not compiled (the core refuses them)",
}
"""The event kinds the core never writes, and why."""

BOT_CODES: Final = ("random", "heuristic", "heuristic_quick", "learned")
"""The compiled bots (``XZ_BOT_*``): ``heuristic_quick`` is ``HeuristicBot(quick=True)``, ``learned``
:class:`~xuezhan.bots.learned.LearnedBot` on the weights given to the core
(:func:`xuezhan.native.use_learned_weights`)."""


# --- the rules layout ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RuleWord:
    """One integer of the rules as the core reads them: ``XzRules.<name>``, at ``XZ_RULE_<NAME>``.

    ``name`` is a ``Rules`` field (its value: a bool as 0/1, a choice as its place among the
    option's values, ``None`` as 0) or a ``Rules`` property reading the fields of ``reads``."""

    name: str
    lo: int = 0
    hi: int = 1
    wide: bool = False
    """An ``int64_t`` in ``XzRules`` (else an ``int``)."""
    reads: tuple[str, ...] = ()


RULE_WORDS: Final = (
    RuleWord("base_score", 1, MAX_BASE_SCORE, wide=True),
    RuleWord("cap_multiple", 0, MAX_MULTIPLE, wide=True),
    RuleWord("dingque"),
    RuleWord("self_draw_bonus"),
    RuleWord("zhigang_payment"),
    RuleWord("late_bugang_pays"),
    RuleWord("call_transfer"),
    RuleWord("dian_gang_hua"),
    RuleWord("pass_hu_scope"),
    RuleWord("must_hu_last_four"),
    RuleWord("hua_zhu_points", 0, MAX_BASE_SCORE * MAX_MULTIPLE, wide=True,
             reads=("base_score", "cap_multiple", "hua_zhu_multiple")),
    RuleWord("cha_jiao_pays"),
    RuleWord("dead_wait_counts"),
    RuleWord("long_qi_dui_mode"),
    RuleWord("dealer_rule"),
    RuleWord("end_on_first_win"),
    RuleWord("kong_draw_from_tail"),
    RuleWord("exchange_three"),
    RuleWord("blood_river"),
)
"""The rule options the core plays, in the order of its words; the fan table
(``XzRules.fan``, ``"cap"`` as -1) follows them, one word per :data:`FAN_IDS`."""

FAN_WORD: Final = "fan"
"""The ``Rules`` field passed as the fan table after :data:`RULE_WORDS`."""

IRRELEVANT: Final[dict[str, str]] = {
    "preset_name": "a label: the options themselves carry the rules",
    "escaped_winner_forfeits": "escapes are not compiled (the core refuses them: no seat of its hands escapes)",
}
"""``Rules`` fields the core does not read because they change nothing it plays, and why."""

REFUSED: Final[dict[str, str]] = {}
"""``Rules`` fields the core does not play yet, and why: rules with another value than the
default are refused (the Python engine plays them)."""


def _hints() -> dict[str, Any]:
    return typing.get_type_hints(Rules)


def choices(name: str) -> tuple[str, ...] | None:
    """The values of a ``Rules`` field with a fixed set of them (``None`` for another field)."""
    hint = _hints().get(name)
    if typing.get_origin(hint) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(hint))
    return None


def _encoder(name: str) -> Callable[[Rules], int]:
    values = choices(name)
    if values is not None:
        index = {v: i for i, v in enumerate(values)}

        def choice(rules: Rules) -> int:
            return index[getattr(rules, name)]

        return choice

    def number(rules: Rules) -> int:  # a bool as 0/1, None (no cap) as 0, a property's value
        return int(getattr(rules, name) or 0)

    return number


def encoders() -> tuple[Callable[[Rules], int], ...]:
    """One function per :data:`RULE_WORDS` entry: the rules to that word."""
    return tuple(_encoder(word.name) for word in RULE_WORDS)


def passed_fields() -> frozenset[str]:
    """The ``Rules`` fields that reach the core."""
    names = {w.name for w in RULE_WORDS} | {r for w in RULE_WORDS for r in w.reads} | {FAN_WORD}
    return frozenset(names & {f.name for f in dataclasses.fields(Rules)})


def unaccounted(fields: typing.Iterable[str]) -> list[str]:
    """The fields of ``fields`` neither passed to the core nor listed as refused or irrelevant."""
    known = passed_fields() | IRRELEVANT.keys() | REFUSED.keys()
    return [f for f in fields if f not in known]
