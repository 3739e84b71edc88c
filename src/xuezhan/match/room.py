"""A room: the rules of its table and what its hands cost (RULES.md sections 9-13).

:class:`RoomConfig` is one frozen value, validated when built, that round-trips
through a JSON mapping (it is stored with the room)::

    {"rules": {"preset": "qq", "options": {}}, "coefficient": 200, "fee": 400,
     "hands": 8, "items_allowed": false, "ticket_required": false}

``rules`` may also be a preset name. ``base_score`` in the mapping overrides the
rules' base score (the room's 底分), so ``{"rules": "chengdu", "base_score": 5}`` is
the home game "打5" (5, 10, 20, 40).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ..errors import RulesError
from ..rules import Rules
from .errors import MatchError

MIN_PEOPLE: Final = 4
MAX_PEOPLE: Final = 8
"""Four seats play; up to four more people bet as bystanders (叫马, RULES 12)."""

_KEYS: Final = {"rules", "base_score", "coefficient", "fee", "hands", "items_allowed", "ticket_required"}


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
    - ``items_allowed``: item cards may be used (RULES 13; off by default).
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
            raise MatchError("bad_room", "'rules' must be a Rules value")
        if not _is_int(self.coefficient) or self.coefficient < 0:
            raise MatchError("bad_room", f"'coefficient' must be a non-negative integer, not {self.coefficient!r}")
        if not _is_int(self.fee) or self.fee < 0:
            raise MatchError("bad_room", f"'fee' must be a non-negative integer, not {self.fee!r}")
        if not _is_int(self.hands) or self.hands < 1:
            raise MatchError("bad_room", f"'hands' must be a positive integer, not {self.hands!r}")
        for name in ("items_allowed", "ticket_required"):
            if not isinstance(getattr(self, name), bool):
                raise MatchError("bad_room", f"{name!r} must be true or false, not {getattr(self, name)!r}")

    @property
    def base_score(self) -> int:
        return self.rules.base_score

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> RoomConfig:
        """Read a room from its JSON mapping; raises :class:`MatchError` (``bad_room``)."""
        if not isinstance(data, Mapping):
            raise MatchError("bad_room", "a room must be a JSON object")
        unknown = set(data) - _KEYS
        if unknown:
            raise MatchError("bad_room", f"unknown room field(s): {', '.join(sorted(unknown))}")
        raw = data.get("rules", "qq")
        try:
            rules = Rules.preset(raw) if isinstance(raw, str) else Rules.from_mapping(raw)
            if "base_score" in data:
                rules = rules.with_options({"base_score": data["base_score"]})
        except RulesError as exc:
            raise MatchError("bad_room", f"rules: {exc.message}") from None
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
