"""Rooms in tiers (新手场, 初级场, 中级场, 高级场), as the coin rooms of the platforms have them.

A tier fixes a room's stake: the rules' base score (底分) and a cap on a hand's multiple
(封顶), the coefficient N (房间系数) and the fee A (每盘回收) of docs/rules.md §11, and the
balance a player needs to sit down (``min_balance``). :func:`max_hand_loss` bounds what
one hand can take from one seat in points, by the settlement's own bound
(:mod:`xuezhan.match.room`); ``max_loss`` is that in coins plus the fee. The seeds give one
room (N = 200, A = 400, base 6, seed 002): it is the senior tier; the lower tiers scale it
down (docs/decisions.md).

A tier's minimum balance always covers an escape (16 × base to each of three seats, or a
capped 大叫 each, docs/rules.md §10: :func:`~xuezhan.match.room.worst_case_escape`) and the fee: whoever
may sit down can pay for leaving.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from ..ids import ErrorCode
from ..rules import Rules
from .errors import MatchError
from .room import RoomConfig, worst_case_seat

STAKE_OPTIONS: Final = frozenset({"base_score", "cap_multiple", "hua_zhu_multiple"})
"""Rule options a tier sets; a room of a tier cannot change them."""


def max_hand_loss(rules: Rules) -> int | None:
    """What one seat can lose in one hand under ``rules``, in points, without bystanders or item
    cards: the settlement's own bound (:func:`~xuezhan.match.room.worst_case_seat`, what the seat
    pays but forfeits). ``None`` without a cap or with 血流成河 (``blood_river``), where only the fan
    table or the wall bounds a hand: a tier's rooms play neither."""
    if rules.cap_multiple is None or rules.blood_river:
        return None
    return worst_case_seat(rules).lost


@dataclass(frozen=True, slots=True)
class Tier:
    """One tier of rooms."""

    id: str
    base_score: int
    cap_multiple: int
    coefficient: int
    fee: int
    min_balance: int

    def rules(self, preset: str = "qq", options: dict[str, Any] | None = None) -> Rules:
        """The rules of a room of this tier: ``preset`` with ``options`` and the tier's stake."""
        extra = dict(options or {})
        clash = STAKE_OPTIONS & set(extra)
        if clash:
            raise MatchError(ErrorCode.BAD_ROOM, f"the tier sets {', '.join(sorted(clash))}")
        extra.update({"base_score": self.base_score, "cap_multiple": self.cap_multiple})
        return Rules.preset(preset).with_options(extra)

    def room(self, preset: str = "qq", options: dict[str, Any] | None = None, hands: int = 8) -> RoomConfig:
        return RoomConfig(rules=self.rules(preset, options), coefficient=self.coefficient, fee=self.fee, hands=hands)

    def max_loss(self, rules: Rules | None = None) -> int:
        """What one hand can cost a seat at this tier, in coins (with ``rules``: a room's own)."""
        bound = max_hand_loss(rules or self.rules())
        assert bound is not None  # a tier always has a cap and no blood river
        return bound * self.coefficient + self.fee


TIERS: Final[tuple[Tier, ...]] = (
    Tier("novice", base_score=1, cap_multiple=8, coefficient=10, fee=0, min_balance=1_000),
    Tier("junior", base_score=1, cap_multiple=16, coefficient=50, fee=20, min_balance=5_000),
    Tier("middle", base_score=2, cap_multiple=16, coefficient=100, fee=100, min_balance=20_000),
    Tier("senior", base_score=6, cap_multiple=16, coefficient=200, fee=400, min_balance=100_000),
)
"""The tiers, lowest first. Senior is seed 002's room (N = 200, A = 400, base 6)."""

TIER_IDS: Final = tuple(t.id for t in TIERS)


def tier(tier_id: str) -> Tier:
    """The tier named ``tier_id``; ``bad_tier`` for any other name."""
    for t in TIERS:
        if t.id == tier_id:
            return t
    raise MatchError(ErrorCode.BAD_TIER, f"no tier {str(tier_id)[:20]!r}: {', '.join(TIER_IDS)}")


def seat_minimum(room: RoomConfig, room_tier: Tier | None) -> int:
    """The balance a seat in ``room`` needs: its tier's minimum, else its fee (at least one coin)."""
    return max(1, room.fee) if room_tier is None else room_tier.min_balance


def best_tier(balance: int) -> Tier:
    """The highest tier whose worst hand the balance covers (no warning needed), at least novice."""
    fitting = [t for t in TIERS if balance >= t.min_balance and balance >= t.max_loss()]
    return fitting[-1] if fitting else TIERS[0]
