"""A room: the rules of its table and what its hands cost (docs/rules.md §9-13).

:class:`RoomConfig` is one frozen value, validated when built, that round-trips
through a JSON mapping (it is stored with the room)::

    {"rules": {"preset": "qq", "options": {}}, "coefficient": 200, "fee": 400,
     "hands": 8, "items_allowed": false, "ticket_required": false}

``rules`` may also be a preset name. ``base_score`` in the mapping overrides the
rules' base score (the room's 底分), so ``{"rules": "chengdu", "base_score": 5}`` is
the home game "打5" (5, 10, 20, 40).

Every number is bounded (``bad_room`` otherwise): ``coefficient`` 0 to
:data:`MAX_COEFFICIENT`, ``fee`` 0 to :data:`MAX_FEE`, ``hands`` 1 to :data:`MAX_HANDS`,
and the rules' own bounds (:mod:`xuezhan.rules`). Together they keep every settlement of
a match inside a signed 64-bit column: :func:`worst_case_points` and
:func:`worst_case_coins` (docs/options.md) are the arithmetic. They rest on one model of what a
seat pays in a hand, item by item as the engine settles it (:func:`worst_case_payments`); under a
room's own rules it is :func:`worst_case_seat`, the loss a tier warns of (:mod:`xuezhan.match.tiers`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import RulesError
from ..ids import ErrorCode
from ..rules import MAX_BASE_SCORE, MAX_MULTIPLE, Rules, max_fan
from ..scoring import ESCAPE_MULTIPLE, hand_points, multiple_of
from .errors import MatchError

MIN_PEOPLE: Final = 4
MAX_PEOPLE: Final = 8
"""Four seats play; up to four more people bet as bystanders (叫马, docs/rules.md §12)."""

_KEYS: Final = {"rules", "base_score", "coefficient", "fee", "hands", "items_allowed", "ticket_required"}

MAX_COEFFICIENT: Final = 10_000
"""The largest coefficient N (coins per point)."""
MAX_FEE: Final = 1_000_000
"""The largest fee A (coins per seat per hand)."""
MAX_HANDS: Final = 128
"""The most hands a match may last."""

WIN_CHANCES: Final = 55 + 1 + 16 + 16
"""The most moments of one hand at which a tile can be won: each of the 55 tiles of the live
wall when drawn, the dealer's 14th tile, a discard after each of at most 16 pengs (four melds
a seat), and a bugang on each of those pengs (robbed)."""



def worst_case_multiple(rules: Rules) -> int:
    """The largest multiple one hand scores under ``rules``: the cap (封顶), else that of the most
    fan the fan table allows (:func:`~xuezhan.rules.max_fan` and :func:`~xuezhan.scoring.multiple_of`).
    A 大叫 is scored the same way, so it is bounded by the same multiple."""
    cap = rules.cap_multiple
    return cap if cap is not None else multiple_of(max_fan(dict(rules.fan)))


@dataclass(frozen=True, slots=True)
class SeatLoss:
    """The most one seat pays in one hand by the engine's ledger, in points, kind by kind
    (docs/options.md): see :func:`worst_case_payments`."""

    wins: int
    """胡 and 自摸 paid (and what an escaping winner gives back of them)."""
    settlement: int
    """The end of the hand: 花猪, 查大叫 or an escape, to each of three seats."""
    kongs: int
    """Kongs: the others' paid, the seat's own passed on (呼叫转移) or given back (退税)."""
    forfeits: int
    """呼叫转移 received and given back by a winner who escapes (``escaped_winner_forfeits``)."""

    @property
    def paid(self) -> int:
        """Every payment of the seat together: what double cards and bystanders can repeat."""
        return self.wins + self.settlement + self.kongs + self.forfeits

    @property
    def lost(self) -> int:
        """The most the seat's points can fall: a forfeit only gives back what the seat received."""
        return self.wins + self.settlement + self.kongs


def worst_case_payments(
    base_score: int, multiple: int, settle_points: int = 0, *, blood_river: bool = True
) -> SeatLoss:
    """The most one seat pays in one hand when no hand scores more than ``multiple``, a flower pig
    pays at most ``settle_points`` a seat, and (``blood_river``) winners play on; item by item, as
    the engine pays (engine.wins, engine.kongs, engine.settlement):

    - wins: a self-drawn win is paid by each other active seat ``base × multiple`` plus a one-base
      self-draw bonus (``"fan"`` mode adds a fan instead, inside ``multiple``); a discard or robbed
      bugang is paid by its discarder to each of up to three winners. At each moment a tile is won
      the seat pays or is paid, never both, at most three such payments (an escaping winner gives
      receipts back). With blood river a seat may win again at each of the :data:`WIN_CHANCES`;
      without it each other seat wins once (and a seat that has won pays no more): three payments.
    - settlement: the hand ends once, by an escape (:data:`~xuezhan.scoring.ESCAPE_MULTIPLE` × base or a 大叫 to
      each of three seats) or at the wall's end, where a flower pig pays 花猪 and a seat not ready
      pays 查大叫 (a 大叫, at most ``base × multiple``), never both: three times the largest.
    - kongs: the others hold at most 12 kongs, 2 × base each from the seat (an angang, or a zhigang's
      discarder); the seat's own four kongs earned at most 6 × base each, passed on to up to three
      winners (呼叫转移) or given back (退税, 24 × base): the bound counts both.
    - forfeits: a winner who escapes gives back what it received, 呼叫转移 included: at most the
      others' 12 kongs' 6 × base each.
    """
    b, m = base_score, multiple
    win_payments = 3 * (WIN_CHANCES if blood_river else 1)
    wins = win_payments * (b * m + b)
    settlement = 3 * max(b * m, ESCAPE_MULTIPLE * b, settle_points)
    kongs = 12 * 2 * b + 3 * 4 * 6 * b + 4 * 6 * b
    forfeits = 12 * 6 * b
    return SeatLoss(wins, settlement, kongs, forfeits)


def worst_case_seat(rules: Rules) -> SeatLoss:
    """:func:`worst_case_payments` under ``rules``: their base score, the largest multiple of one
    of their hands (:func:`worst_case_multiple`), what their flower pig pays and blood river."""
    return worst_case_payments(
        rules.base_score, worst_case_multiple(rules), rules.hua_zhu_points, blood_river=rules.blood_river
    )


def worst_case_escape(rules: Rules) -> int:
    """The most an escape costs the escaper under ``rules`` (docs/rules.md §10): each of three seats paid
    :data:`~xuezhan.scoring.ESCAPE_MULTIPLE` × base or a 大叫 (scored as any hand, at most
    :func:`worst_case_multiple`), whichever is more."""
    return 3 * max(hand_points(rules, ESCAPE_MULTIPLE), hand_points(rules, worst_case_multiple(rules)))


def worst_case_seat_loss(base_score: int = MAX_BASE_SCORE, multiple: int = MAX_MULTIPLE) -> int:
    """An upper bound on what one seat pays in one hand by the engine's ledger alone, in points,
    under any rules where no hand scores more than ``multiple`` and ``hua_zhu_multiple`` is at most
    ``multiple`` (blood river included; docs/options.md): :attr:`SeatLoss.paid` of
    :func:`worst_case_payments`."""
    return worst_case_payments(base_score, multiple).paid


def worst_case_points(base_score: int = MAX_BASE_SCORE, multiple: int = MAX_MULTIPLE) -> int:
    """An upper bound on one participant's net points in one hand: 14 × :func:`worst_case_seat_loss`.

    A double card repeats each transfer touching its player once (× 2). Up to four bystanders
    repeat every transfer of the seat they bet on, against the same counterparty: a seat
    receives at most 3 × 2L from the other seats plus 4 × 2L from the bystanders on them,
    14L in all, and pays at most 2L + 4 × 2L = 10L.
    """
    return 14 * worst_case_seat_loss(base_score, multiple)


def worst_case_coins(
    base_score: int = MAX_BASE_SCORE,
    multiple: int = MAX_MULTIPLE,
    coefficient: int = MAX_COEFFICIENT,
    fee: int = MAX_FEE,
    hands: int = MAX_HANDS,
) -> int:
    """An upper bound on the coins one participant's balance can move in one match:
    ``hands × (points × N + A)``, as if every loser could always pay in full. At the bounds it
    is below 2**62, half of a signed 64-bit column; the other half is for the balance a
    player brings (at most the coins ever issued)."""
    return hands * (worst_case_points(base_score, multiple) * coefficient + fee)


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class RoomConfig:
    """What a room plays and charges.

    - ``rules``: preset and options (base score included: ``rules.base_score``).
    - ``coefficient``: N, coins per point (房间系数).
    - ``fee``: A, coins the house takes from each seated player every hand (每盘回收);
      bystanders pay no fee (they hold no seat).
    - ``hands``: how many hands a match in this room lasts.
    - ``items_allowed``: item cards may be used (docs/rules.md §13; off by default).
    - ``ticket_required``: a tournament room: each player enters with a match ticket (比赛卡).
    """

    rules: Rules = field(default_factory=Rules)
    coefficient: int = 1
    fee: int = 0
    hands: int = 8
    items_allowed: bool = False
    ticket_required: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise MatchError(ErrorCode.BAD_ROOM, "'rules' must be a Rules value")
        for name, lo, hi in (("coefficient", 0, MAX_COEFFICIENT), ("fee", 0, MAX_FEE), ("hands", 1, MAX_HANDS)):
            value = getattr(self, name)
            if not _is_int(value) or not lo <= value <= hi:
                raise MatchError(ErrorCode.BAD_ROOM, f"{name!r} must be an integer from {lo} to {hi}, not {value!r}")
        for name in ("items_allowed", "ticket_required"):
            if not isinstance(getattr(self, name), bool):
                raise MatchError(ErrorCode.BAD_ROOM, f"{name!r} must be true or false, not {getattr(self, name)!r}")

    @property
    def base_score(self) -> int:
        return self.rules.base_score

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RoomConfig:
        """Read a room from its JSON mapping; raises :class:`MatchError` (``bad_room``)."""
        if not isinstance(data, Mapping):
            raise MatchError(ErrorCode.BAD_ROOM, "a room must be a JSON object")
        unknown = set(data) - _KEYS
        if unknown:
            raise MatchError(ErrorCode.BAD_ROOM, f"unknown room field(s): {', '.join(sorted(unknown))}")
        raw = data.get("rules", "qq")
        try:
            rules = Rules.preset(raw) if isinstance(raw, str) else Rules.from_mapping(raw)
            if "base_score" in data:
                rules = rules.with_options({"base_score": data["base_score"]})
        except RulesError as exc:
            raise MatchError(ErrorCode.BAD_ROOM, f"rules: {exc.message}") from None
        return cls(
            rules=rules,
            coefficient=data.get("coefficient", 1),
            fee=data.get("fee", 0),
            hands=data.get("hands", 8),
            items_allowed=data.get("items_allowed", False),
            ticket_required=data.get("ticket_required", False),
        )

    def to_mapping(self) -> dict[str, Any]:
        return {
            "rules": self.rules.to_mapping(),
            "coefficient": self.coefficient,
            "fee": self.fee,
            "hands": self.hands,
            "items_allowed": self.items_allowed,
            "ticket_required": self.ticket_required,
        }
