"""Coins in rooms (docs/rules.md §11): ``xuezhan.coins.settle`` as promised in docs/interfaces.md §6.1."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan.coins import settle, settle_detailed, share_largest_remainder

RICH = 10**9

# --- the rule as written -----------------------------------------------------------------------------------


def test_002_example() -> None:
    # N = 200, A = 400, a winner of +54 against three losers of -18 each (002)
    assert settle([54, -18, -18, -18], [RICH] * 4, 200, 400) == [10400, -4000, -4000, -4000]
    detail = settle_detailed([54, -18, -18, -18], [RICH] * 4, 200, [400] * 4)
    assert detail.house == 4 * 400
    assert sum(detail.changes) == -4 * 400
    assert detail.paid == (0, 3600, 3600, 3600)
    assert detail.received == (10800, 0, 0, 0)


@pytest.mark.parametrize(
    ("points", "balances", "n", "a", "changes"),
    [
        # everyone solvent: points x N - A, seat by seat
        ([12, -12, 0, 0], [RICH] * 4, 10, 5, [115, -125, -5, -5]),
        ([0, 0, 0, 0], [RICH] * 4, 200, 400, [-400] * 4),
        ([0, 0, 0, 0], [100, 0, 400, 1000], 200, 400, [-100, 0, -400, -400]),  # the fee, as far as it goes
        ([30, -10, -10, -10], [RICH] * 4, 1, 0, [30, -10, -10, -10]),  # no fee
        ([30, -10, -10, -10], [RICH] * 4, 0, 7, [-7, -7, -7, -7]),  # N = 0: only the fee
        # a loser who cannot pay: the fee first, then all it has left (扣尽); the winner gets what was paid
        ([54, -18, -18, -18], [RICH, RICH, RICH, 1000], 200, 400, [3600 + 3600 + 600 - 400, -4000, -4000, -1000]),
        ([54, -18, -18, -18], [RICH, RICH, RICH, 300], 200, 400, [3600 + 3600 - 400, -4000, -4000, -300]),
        ([54, -18, -18, -18], [RICH, 0, 0, 0], 200, 400, [-400, 0, 0, 0]),
        # a winner with fewer coins than the fee pays it out of its winnings
        ([54, -18, -18, -18], [0, RICH, RICH, RICH], 200, 400, [10400, -4000, -4000, -4000]),
        ([1, -1, 0, 0], [0, 0, RICH, RICH], 200, 400, [0, 0, -400, -400]),
    ],
)
def test_settle_table(points: list[int], balances: list[int], n: int, a: int, changes: list[int]) -> None:
    assert settle(points, balances, n, a) == changes


def test_winners_share_in_proportion_to_their_gains() -> None:
    # 2 winners (+30, +10) and a loser who can pay only 1000 of 4000 after the fee
    changes = settle([30, 10, -40, 0], [RICH, RICH, 1100, RICH], 100, 100)
    assert changes == [750 - 100, 250 - 100, -1100, -100]


def test_largest_remainder_rounding() -> None:
    # pot 100 shared 1:1:1 -> 34, 33, 33 (the leftover coin to the lowest seat on a tie)
    assert share_largest_remainder(100, [1, 1, 1]) == [34, 33, 33]
    # 10 coins by 5:3:2 -> exact
    assert share_largest_remainder(10, [5, 3, 2]) == [5, 3, 2]
    # 7 coins by 3:3:1 -> 3, 3, 1 exact;  8 coins by 3:3:1 -> 3.43, 3.43, 1.14 -> 4, 3, 1
    assert share_largest_remainder(7, [3, 3, 1]) == [3, 3, 1]
    assert share_largest_remainder(8, [3, 3, 1]) == [4, 3, 1]
    # the largest remainder wins, not the lowest index: 5 coins by 1:2 -> 1.67, 3.33 -> 2, 3
    assert share_largest_remainder(5, [1, 2]) == [2, 3]
    # zero weights get nothing
    assert share_largest_remainder(9, [0, 2, 1]) == [0, 6, 3]
    assert share_largest_remainder(0, [0, 0]) == [0, 0]


def test_rounding_inside_settle() -> None:
    # winners +1, +1, +1 (N = 1) share the 2 coins a broke loser could pay: 1, 1, 0
    changes = settle([1, 1, 1, -3], [RICH, RICH, RICH, 2], 1, 0)
    assert changes == [1, 1, 0, -2]
    assert sum(changes) == 0


@pytest.mark.parametrize(
    ("points", "balances", "n", "a"),
    [
        ([1, -1, 0], [0, 0, 0, 0], 1, 0),  # lengths differ
        ([1, -1, 1, 0], [0, 0, 0, 0], 1, 0),  # points do not sum to zero
        ([1, -1, 0, 0], [0, -5, 0, 0], 1, 0),  # negative balance
        ([1, -1, 0, 0], [0, 0, 0, 0], -1, 0),  # negative coefficient
        ([1, -1, 0, 0], [0, 0, 0, 0], 1, -1),  # negative fee
        ([1.0, -1, 0, 0], [0, 0, 0, 0], 1, 0),  # not integers
        ([True, -1, 0, 0], [0, 0, 0, 0], 1, 0),
    ],
)
def test_inconsistent_input_raises_value_error(points: list[int], balances: list[int], n: int, a: int) -> None:
    with pytest.raises(ValueError):
        settle(points, balances, n, a)


# --- properties ------------------------------------------------------------------------------------------------


@st.composite
def hands(draw: st.DrawFn) -> tuple[list[int], list[int], int, int]:
    k = draw(st.integers(2, 8))
    points = draw(st.lists(st.integers(-500, 500), min_size=k - 1, max_size=k - 1))
    points.append(-sum(points))
    balances = draw(st.lists(st.one_of(st.integers(0, 2000), st.integers(0, 10**7)), min_size=k, max_size=k))
    return points, balances, draw(st.integers(0, 300)), draw(st.integers(0, 500))


@settings(max_examples=400)
@given(hands())
def test_coins_are_conserved_and_never_negative(case: tuple[list[int], list[int], int, int]) -> None:
    points, balances, n, a = case
    detail = settle_detailed(points, balances, n, [a] * len(points))
    changes = list(detail.changes)
    assert changes == settle(points, balances, n, a)
    assert sum(changes) == -sum(detail.fees)  # no coin created or lost: the house keeps the fees
    assert all(b + c >= 0 for b, c in zip(balances, changes, strict=True))
    assert all(0 <= f <= a for f in detail.fees)
    assert sum(detail.paid) == sum(detail.received)
    for p, b, c, f, r in zip(points, balances, changes, detail.fees, detail.received, strict=True):
        if p < 0:
            assert c == -min(b, -p * n + a)  # a loser pays all it owes, or all it has
            assert c <= 0
        elif p == 0:
            assert c == -f
        else:
            assert c >= -a  # a winner loses at most the fee
            assert r <= p * n  # and never gets more than it won


@settings(max_examples=300)
@given(hands())
def test_solvent_tables_pay_points_times_n_minus_a(case: tuple[list[int], list[int], int, int]) -> None:
    points, _, n, a = case
    balances = [abs(p) * n + a for p in points]  # just enough for everyone
    assert settle(points, balances, n, a) == [p * n - a for p in points]


@settings(max_examples=300)
@given(hands())
def test_shares_are_proportional(case: tuple[list[int], list[int], int, int]) -> None:
    points, balances, n, a = case
    detail = settle_detailed(points, balances, n, [a] * len(points))
    pot = sum(detail.paid)
    gains = [max(p, 0) for p in points]
    whole = sum(gains)
    for g, r in zip(gains, detail.received, strict=True):
        if whole:
            exact = pot * g / whole
            assert abs(r - exact) < 1  # within one coin of the exact share
        else:
            assert r == 0
