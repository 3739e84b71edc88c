"""Point transfers between people of a match (seated players and bystanders)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Transfer:
    """``payer`` pays ``payee`` ``points`` for ``reason``.

    The hand's own reasons are the engine's (``hu``, ``zimo``, ``escape``, ...);
    bystander bets add ``jiao_ma`` and item cards ``double_card``. For such a repeated
    entry ``basis`` is the reason of the entry it repeats (e.g. ``hu``), else empty.
    """

    payer: str
    payee: str
    points: int
    reason: str
    basis: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.payer, "to": self.payee, "points": self.points, "reason": self.reason}
        if self.basis:
            out["basis"] = self.basis
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Transfer:
        return cls(str(data["from"]), str(data["to"]), int(data["points"]), str(data["reason"]),
                   str(data.get("basis", "")))


def net_points(transfers: Iterable[Transfer], people: Iterable[str]) -> dict[str, int]:
    """Each person's net points (zero for people without transfers); the values sum to zero."""
    out = dict.fromkeys(people, 0)
    for t in transfers:
        out[t.payer] = out.get(t.payer, 0) - t.points
        out[t.payee] = out.get(t.payee, 0) + t.points
    return out
