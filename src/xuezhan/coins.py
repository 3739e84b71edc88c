"""Coins (游戏币) in rooms: a hand's points become coins (docs/rules.md §11).

A room has a coefficient ``N`` (房间系数) and a fee ``A`` (每盘回收). Each seat's coin
change is ``points × N − A``: with N = 200 and A = 400, a winner of +54 points
against three losers of −18 each gets ``54 × 200 − 400 = +10400`` and each loser
``−18 × 200 − 400 = −4000``; the house keeps ``4 × 400`` (002).

When a seat cannot pay (游戏币不足扣尽):

1. the fee comes first: a seat pays ``min(A, balance)`` to the house;
2. a losing seat then pays ``min(points × N, what it has left)`` (扣尽);
3. the seats that won points share what the losers actually paid, in proportion to
   their point gains ("赢家按照比例赢得输家所输的总游戏币"), in whole coins by the
   largest-remainder method (ties go to the lower seat number). When every loser
   pays in full, each winner gets exactly ``points × N``;
4. a winning seat's fee is taken from its balance plus its winnings (the platform
   pays winners "失败玩家X之和×N − A"), so a winner who came in with fewer coins
   than the fee still pays the whole fee out of what it won.

Coins are never created: the changes sum to minus the fees collected, and no
balance goes below zero.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["CoinSettlement", "settle", "settle_detailed", "share_largest_remainder"]


@dataclass(frozen=True, slots=True)
class CoinSettlement:
    """One hand in coins, by participant: the net ``changes``, the ``fees`` the house took,
    what each loser ``paid`` and what each winner ``received`` (fees not included)."""

    changes: tuple[int, ...]
    fees: tuple[int, ...]
    paid: tuple[int, ...]
    received: tuple[int, ...]

    @property
    def house(self) -> int:
        """What the house collected: the sum of the fees (and minus the sum of the changes)."""
        return sum(self.fees)


def _check_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{what} must be an integer, not {value!r}")
    return value


def share_largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """Split ``total`` whole coins in proportion to non-negative ``weights`` (largest remainder).

    Each share is ``floor(total × w / W)``; the coins left over go one each to the largest
    fractional parts, ties to the lower index. With all weights zero, nobody gets anything
    (``total`` must then be zero).
    """
    if total < 0 or any(w < 0 for w in weights):
        raise ValueError("shares need a non-negative total and non-negative weights")
    whole = sum(weights)
    if whole == 0:
        if total:
            raise ValueError("cannot share coins among zero weights")
        return [0] * len(weights)
    shares = [total * w // whole for w in weights]
    # remainders as numerators over ``whole``: exact integers, no float rounding
    rems = [total * w % whole for w in weights]
    left = total - sum(shares)
    order = sorted(range(len(weights)), key=lambda i: (-rems[i], i))
    for i in order[:left]:
        shares[i] += 1
    return shares


def settle_detailed(
    points: Sequence[int], balances: Sequence[int], coefficient: int, fees: Sequence[int]
) -> CoinSettlement:
    """The coins of one finished hand, with a fee per participant (bystanders pay none).

    Raises ``ValueError`` on inconsistent input: lengths differ, points not summing to
    zero, a negative balance, fee or coefficient, or a non-integer.
    """
    n = len(points)
    if len(balances) != n or len(fees) != n:
        raise ValueError(f"points ({n}), balances ({len(balances)}) and fees ({len(fees)}) differ in length")
    pts = [_check_int(p, "points") for p in points]
    bal = [_check_int(b, "a balance") for b in balances]
    fee = [_check_int(f, "a fee") for f in fees]
    coefficient = _check_int(coefficient, "the coefficient")
    if sum(pts) != 0:
        raise ValueError(f"points must sum to zero, not {sum(pts)}: {pts}")
    if any(b < 0 for b in bal):
        raise ValueError(f"balances must not be negative: {bal}")
    if any(f < 0 for f in fee):
        raise ValueError(f"fees must not be negative: {fee}")
    if coefficient < 0:
        raise ValueError(f"the coefficient must not be negative, not {coefficient}")

    paid = [0] * n
    taken = [0] * n  # fees actually collected
    for i in range(n):
        if pts[i] <= 0:
            taken[i] = min(fee[i], bal[i])  # the fee first
            if pts[i] < 0:
                paid[i] = min(-pts[i] * coefficient, bal[i] - taken[i])  # then all it has left (扣尽)
    # shares of the pot by point gains: exactly points × N each when every loser paid in full
    received = share_largest_remainder(sum(paid), [max(p, 0) for p in pts])
    for i in range(n):
        if pts[i] > 0:
            taken[i] = min(fee[i], bal[i] + received[i])
    changes = tuple(received[i] - paid[i] - taken[i] for i in range(n))
    return CoinSettlement(changes, tuple(taken), tuple(paid), tuple(received))


def settle(points: Sequence[int], balances: Sequence[int], coefficient: int, fee: int) -> list[int]:
    """The coin change of each seat for one finished hand (docs/rules.md §11; docs/interfaces.md
    §6.1, python-promised).

    ``points`` are the seats' point results (summing to zero), ``balances`` their coins
    before the hand, ``coefficient`` N, ``fee`` A. Raises ``ValueError`` on inconsistent
    input (points not summing to zero, negative balance, lengths differ).

    >>> settle([54, -18, -18, -18], [10**6] * 4, 200, 400)
    [10400, -4000, -4000, -4000]
    """
    fee = _check_int(fee, "the fee")
    return list(settle_detailed(points, balances, coefficient, [fee] * len(points)).changes)
