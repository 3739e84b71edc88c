"""Property tests: the table-driven hand analysis against plain searches written here.

Nothing below uses ``xuezhan.hand`` to compute an expected answer. The references:

- complete hands: recursive decomposition into sets and one pair (or seven pairs,
  counts all even);
- splits: the same recursion, collecting every decomposition;
- waits: try all 27 tiles with the recursive check;
- shanten, by its definition: the fewest tiles that must be added so the hand
  contains a complete hand (``4 - melds`` sets plus a pair, or seven pairs without
  melds), using only allowed suits and at most four copies of a kind, minus one.
  Missing tiles add up over kinds, so the search runs per suit — a rank-by-rank
  search over every target (runs in progress, a pung, a pair at each rank) — and
  then over every way to share the sets and the pair among the allowed suits;
- distance table: brute force over every target vector of ``m`` sets and ``p`` pairs.

The ``mahjong`` package (v2) is a second, independent opinion on the regular form.
Examples are derandomized under the CI profile (tests/conftest.py), so every CI run tests the same hands.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import cache, lru_cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mahjong.shanten import Shanten

from xuezhan import hand

Counts = list[int]
INF = 99

_BASE = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


def examples(n: int) -> settings:
    """Seeded, deterministic settings running ``n`` examples."""
    return settings(_BASE, max_examples=n)

# ---------------------------------------------------------------------------------------------
# reference searches (no tables)
# ---------------------------------------------------------------------------------------------


def _decompose(c: Counts, i: int, pair_left: bool) -> bool:
    while i < 27 and c[i] == 0:
        i += 1
    if i == 27:
        return not pair_left
    if pair_left and c[i] >= 2:
        c[i] -= 2
        ok = _decompose(c, i, False)
        c[i] += 2
        if ok:
            return True
    if c[i] >= 3:
        c[i] -= 3
        ok = _decompose(c, i, pair_left)
        c[i] += 3
        if ok:
            return True
    if i % 9 <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _decompose(c, i, pair_left)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        if ok:
            return True
    return False


def ref_is_complete(counts: Sequence[int], n_melds: int = 0) -> bool:
    if sum(counts) + 3 * n_melds != 14:
        return False
    if _decompose(list(counts), 0, True):
        return True
    return n_melds == 0 and all(x % 2 == 0 for x in counts)


def ref_splits(counts: Sequence[int]) -> set[tuple[tuple[str, int], ...]]:
    """Every decomposition of the counts into sets and exactly one pair."""
    c = list(counts)
    out: set[tuple[tuple[str, int], ...]] = set()

    def rec(i: int, acc: list[tuple[str, int]], pair_left: bool) -> None:
        while i < 27 and c[i] == 0:
            i += 1
        if i == 27:
            if not pair_left:
                out.add(tuple(sorted(acc)))
            return
        if pair_left and c[i] >= 2:
            c[i] -= 2
            rec(i, [*acc, ("pair", i)], False)
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            rec(i, [*acc, ("pung", i)], pair_left)
            c[i] += 3
        if i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for j in (i, i + 1, i + 2):
                c[j] -= 1
            rec(i, [*acc, ("run", i)], pair_left)
            for j in (i, i + 1, i + 2):
                c[j] += 1

    rec(0, [], True)
    return out


def suits_of(counts: Sequence[int]) -> int:
    return sum(1 << s for s in range(3) if any(counts[s * 9 : s * 9 + 9]))


def ref_completing(counts: Sequence[int], n_melds: int) -> list[int]:
    out = []
    for t in range(27):
        if counts[t] < 4:
            c = list(counts)
            c[t] += 1
            if ref_is_complete(c, n_melds):
                out.append(t)
    return out


def ref_waits(
    counts: Sequence[int], n_melds: int, meld_suits: int, void: int | None, owned: Sequence[int]
) -> list[int]:
    out = []
    for t in ref_completing(counts, n_melds):
        c = list(counts)
        c[t] += 1
        suits = suits_of(c) | meld_suits
        if owned[t] < 4 and bin(suits).count("1") <= 2 and (void is None or not suits >> void & 1):
            out.append(t)
    return out


@cache
def ref_suit_row(suit: tuple[int, ...]) -> tuple[int, ...]:
    """``row[2m + p]``: fewest tiles to add so the nine counts contain m sets and p pairs (4 copies at most).

    A search rank by rank over every target: at rank r the target holds the runs still
    in progress (started at r-2 and r-1), the runs it starts at r, maybe a pung and maybe
    the pair; tiles the hand lacks at r are added.
    """
    states: dict[tuple[int, int], list[int]] = {(0, 0): [0] + [INF] * 9}
    for r in range(9):
        have = suit[r]
        nxt: dict[tuple[int, int], list[int]] = {}
        for (ending, middle), costs in states.items():
            for start in range((4 - ending - middle if r <= 6 else 0) + 1):
                for pung in (0, 1):
                    for pair in (0, 1):
                        need = ending + middle + start + 3 * pung + 2 * pair
                        if need > 4:
                            continue
                        add = max(0, need - have)
                        new_sets = start + pung
                        row = nxt.setdefault((middle, start), [INF] * 10)
                        for m in range(5 - new_sets):
                            for p in range(2 - pair):
                                v = costs[2 * m + p]
                                i = 2 * (m + new_sets) + p + pair
                                if v + add < row[i]:
                                    row[i] = v + add
        states = nxt
    return tuple(states[(0, 0)])


def ref_standard_distance(counts: Sequence[int], suits: Sequence[int], want: int) -> int:
    """Fewest tiles to add for ``want`` sets plus a pair in the given suits."""
    rows = [ref_suit_row(tuple(counts[s * 9 : s * 9 + 9])) for s in suits]
    best = INF
    for split in itertools.product(range(want + 1), repeat=len(suits)):
        if sum(split) != want:
            continue
        for pair_at in range(len(suits)):
            v = sum(rows[i][2 * split[i] + (i == pair_at)] for i in range(len(suits)))
            best = min(best, v)
    return best


def ref_seven_pairs_distance(counts: Sequence[int], suits: Sequence[int]) -> int:
    """Fewest tiles to add for seven pairs (a kind held 0, 2 or 4 times) in the given suits."""
    best = [0] + [INF] * 7  # best[k]: k pairs chosen so far
    for s in suits:
        for t in range(s * 9, s * 9 + 9):
            nxt = list(best)
            for k in range(8):
                if best[k] >= INF:
                    continue
                for pairs_here in (1, 2):
                    if k + pairs_here <= 7:
                        cost = best[k] + max(0, 2 * pairs_here - counts[t])
                        nxt[k + pairs_here] = min(nxt[k + pairs_here], cost)
            best = nxt
    return best[7]


def ref_shanten(
    counts: Sequence[int], n_melds: int, meld_suits: int, void: int | None, two_suits: bool, seven: bool = True
) -> int:
    want = max(0, 4 - n_melds)
    best = INF
    for size in (1, 2, 3):
        for suits in itertools.combinations(range(3), size):
            mask = sum(1 << s for s in suits)
            if meld_suits & ~mask or (void is not None and void in suits) or (two_suits and size > 2):
                continue
            v = ref_standard_distance(counts, suits, want)
            if seven and n_melds == 0:
                v = min(v, ref_seven_pairs_distance(counts, suits))
            best = min(best, v)
    return best - 1 if best < INF else 99


# ---------------------------------------------------------------------------------------------
# strategies
# ---------------------------------------------------------------------------------------------

SUIT_SETS = [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2), (0, 1, 2)]
SETS = [("run", s * 9 + r) for s in range(3) for r in range(7)] + [("pung", t) for t in range(27)]

# Hands are built from a few random bytes (one hypothesis draw each) rather than from lists of
# tiles: generation stays cheap enough for thousands of examples, and bytes shrink towards 1m.


def _free_kind(counts: Sequence[int], kinds: Sequence[int], byte: int, room: int) -> int:
    """The kind chosen by ``byte``, or the next one (cyclically) that can take ``room`` more copies."""
    i = byte % len(kinds)
    while counts[kinds[i]] + room > 4:
        i = (i + 1) % len(kinds)
    return kinds[i]


def _kinds(suits: Sequence[int]) -> list[int]:
    return [s * 9 + r for s in suits for r in range(9)]


@st.composite
def dealt(draw: st.DrawFn, size: int) -> Counts:
    """``size`` tiles (at most four of a kind) from the suits of a random subset."""
    kinds = _kinds(draw(st.sampled_from(SUIT_SETS)))
    c = [0] * 27
    for byte in draw(st.binary(min_size=size, max_size=size)):
        c[_free_kind(c, kinds, byte, 1)] += 1
    return c


@st.composite
def built_complete(draw: st.DrawFn, n_melds: int) -> Counts:
    """A complete concealed part for ``n_melds`` melds: sets plus a pair, or seven pairs."""
    suits = draw(st.sampled_from(SUIT_SETS))
    kinds = _kinds(suits)
    data = draw(st.binary(min_size=8, max_size=8))
    c = [0] * 27
    if n_melds == 0 and data[0] % 5 == 0:  # seven pairs, a kind possibly twice
        for byte in data[1:]:
            c[_free_kind(c, kinds, byte, 2)] += 2
        return c
    usable = [b for b in SETS if b[1] // 9 in suits]
    for byte in data[1 : 5 - n_melds]:
        i = byte % len(usable)
        while True:
            kind, t = usable[i]
            ts = (t, t + 1, t + 2) if kind == "run" else (t, t, t)
            if all(c[x] + ts.count(x) <= 4 for x in ts):
                break
            i = (i + 1) % len(usable)
        for x in ts:
            c[x] += 1
    c[_free_kind(c, kinds, data[7], 2)] += 2
    return c


@st.composite
def near_complete(draw: st.DrawFn, n_melds: int, size_change: int) -> Counts:
    """A complete hand with one tile taken out (``size_change`` -1) or one tile swapped (0)."""
    c = draw(built_complete(n_melds))
    out, into = draw(st.binary(min_size=2, max_size=2))
    held = [t for t in range(27) if c[t]]
    c[held[out % len(held)]] -= 1
    if size_change == 0:
        c[_free_kind(c, range(27), into, 1)] += 1
    return c


@st.composite
def with_melds(draw: st.DrawFn, size_for_13: int) -> tuple[Counts, int, int, Counts]:
    """(concealed counts, number of melds, meld suits, owned counts) of a 13- or 14-equivalent hand.

    The concealed part is a random deal, a complete hand minus a tile, or (for 14) a
    complete hand or one with a tile swapped; melds are pengs or kongs of random kinds.
    """
    n_melds = draw(st.integers(0, 4))
    size = size_for_13 - 3 * n_melds
    shape = draw(st.integers(0, 3))
    if shape == 0:
        counts = draw(dealt(size))
    elif shape == 3 and size_for_13 == 14:
        counts = draw(built_complete(n_melds))
    else:
        counts = draw(near_complete(n_melds, size - (14 - 3 * n_melds)))
    owned = list(counts)
    meld_suits = 0
    for byte in draw(st.binary(min_size=n_melds, max_size=n_melds)):
        size = 4 if byte >= 192 else 3  # a kong or a peng
        t = _free_kind(owned, range(27), byte, size)
        owned[t] += size
        meld_suits |= 1 << (t // 9)
    return counts, n_melds, meld_suits, owned


# ---------------------------------------------------------------------------------------------
# the properties
# ---------------------------------------------------------------------------------------------


@examples(3000)
@given(
    st.integers(0, 4).flatmap(
        lambda m: st.tuples(
            st.one_of(dealt(14 - 3 * m), built_complete(m), near_complete(m, 0)), st.just(m)
        )
    )
)
def test_is_complete_matches_search(case: tuple[Counts, int]) -> None:
    counts, n_melds = case
    expected = ref_is_complete(counts, n_melds)
    assert hand.is_complete(counts, n_melds) is expected
    assert hand.is_complete(counts, n_melds + 1) is False  # 17 tile-equivalents
    keys = hand.suit_keys(counts)
    sizes = [sum(counts[s * 9 : s * 9 + 9]) for s in range(3)]
    assert (hand.is_standard_complete(keys, sizes) or hand.is_seven_pairs(keys, sizes, n_melds)) is expected


@examples(1500)
@given(with_melds(14), st.sampled_from((None, 0, 1, 2)))
def test_win_block_matches_search(case: tuple[Counts, int, int, Counts], void: int | None) -> None:
    counts, n_melds, meld_suits, _ = case
    suits = suits_of(counts) | meld_suits
    if void is not None and suits >> void & 1:
        expected = "void_suit_tile"
    elif suits == 0b111:
        expected = "three_suits"
    elif not ref_is_complete(counts, n_melds):
        expected = "not_complete"
    else:
        expected = None
    assert hand.win_block(counts, n_melds, meld_suits, void) == expected


@examples(1000)
@given(st.integers(0, 4).flatmap(lambda m: st.one_of(built_complete(m), near_complete(m, 0))))
def test_splits_match_search(counts: Counts) -> None:
    got = [tuple(sorted((b.kind, b.tile) for b in split)) for split in hand.standard_splits(counts)]
    assert len(got) == len(set(got))  # distinct
    assert set(got) == ref_splits(counts)


@examples(2500)
@given(with_melds(13), st.sampled_from((None, None, 0, 1, 2)))
def test_waits_match_search(case: tuple[Counts, int, int, Counts], void: int | None) -> None:
    counts, n_melds, meld_suits, owned = case
    assert hand.completing_tiles(counts, n_melds) == ref_completing(counts, n_melds)
    expected = ref_waits(counts, n_melds, meld_suits, void, owned)
    assert hand.winning_tiles(counts, n_melds, meld_suits=meld_suits, void=void, owned=owned) == expected
    assert hand.winning_tiles(counts, n_melds, meld_suits=meld_suits, void=void) == ref_waits(
        counts, n_melds, meld_suits, void, counts
    )
    # a hand that is not 13 tile-equivalents has no completing tile
    assert hand.completing_tiles(counts, n_melds + 1) == []


@examples(1500)
@given(st.sampled_from((13, 14)).flatmap(with_melds))
def test_shanten_matches_search(case: tuple[Counts, int, int, Counts]) -> None:
    counts, n_melds, meld_suits, _ = case
    for void in (None, 0, 1, 2):
        for two_suits in (False, True):
            expected = ref_shanten(counts, n_melds, meld_suits, void, two_suits)
            got = hand.shanten(counts, n_melds, meld_suits=meld_suits, void=void, two_suits=two_suits)
            assert got == expected, (void, two_suits)
    assert hand.standard_shanten(counts, n_melds) == ref_shanten(counts, n_melds, 0, None, False, seven=False)
    assert hand.seven_pairs_shanten(counts) == ref_seven_pairs_distance(counts, (0, 1, 2)) - 1


@examples(500)
@given(st.integers(0, 14).flatmap(dealt), st.integers(0, 4))
def test_shanten_of_any_size_matches_search(counts: Counts, n_melds: int) -> None:
    # the shanten command accepts fewer than 14 tile-equivalents; the definition still holds
    assert hand.shanten(counts, n_melds, two_suits=False) == ref_shanten(counts, n_melds, 0, None, False)
    assert hand.shanten(counts, n_melds) == ref_shanten(counts, n_melds, 0, None, True)


# The mahjong package's regular-form shanten (``calculate_shanten_for_regular_hand``) agreed
# with ours on every hand tried while writing this: all 212,400 single-suit hands of 13 and
# 14 tiles, and 50,000 random multi-suit ones, four-of-a-kind hands included. So the
# comparison is unrestricted on suited 13- and 14-tile hands. (On other sizes the two differ
# by design: mahjong treats missing sets as open melds, so "1111m" is 1 there and 9 here.)
@examples(3000)
@given(st.sampled_from((13, 14)).flatmap(lambda n: st.one_of(dealt(n), near_complete(0, n - 14))))
def test_standard_shanten_matches_mahjong(counts: Counts) -> None:
    assert hand.standard_shanten(counts) == Shanten.calculate_shanten_for_regular_hand([*counts, 0, 0, 0, 0, 0, 0, 0])


# ---------------------------------------------------------------------------------------------
# the shipped distance table, entry by entry, against brute force over targets
# ---------------------------------------------------------------------------------------------

SHAPES = [tuple(1 if r in (s, s + 1, s + 2) else 0 for r in range(9)) for s in range(7)] + [
    tuple(3 if r == s else 0 for r in range(9)) for s in range(9)
]


@lru_cache(maxsize=1)
def all_targets() -> dict[tuple[int, int], list[tuple[int, ...]]]:
    """Every count vector of m sets plus p pairs in one suit, at most four copies of a rank."""
    out: dict[tuple[int, int], list[tuple[int, ...]]] = {}
    for m in range(5):
        for p in range(2):
            found: set[tuple[int, ...]] = set()
            for combo in itertools.combinations_with_replacement(SHAPES, m):
                base = [sum(col) for col in zip(*combo, strict=True)] if combo else [0] * 9
                for r in range(9) if p else [None]:
                    vec = list(base)
                    if r is not None:
                        vec[r] += 2
                    if max(vec) <= 4:
                        found.add(tuple(vec))
            out[m, p] = sorted(found)
    return out


def brute_distance(suit: Sequence[int], m: int, p: int) -> int:
    """Fewest tiles to add: the target size minus the most tiles of the suit any target keeps."""
    keep = max(sum(map(min, target, suit)) for target in all_targets()[m, p])
    return 3 * m + 2 * p - keep


def sample_suits() -> list[tuple[int, ...]]:
    rng = random.Random(20240607)
    suits: list[tuple[int, ...]] = [(0,) * 9, (4,) * 9, (1,) * 9, (4, 4, 4, 4, 0, 0, 0, 0, 0)]
    suits.append((0, 0, 0, 0, 0, 4, 4, 4, 2))
    while len(suits) < 40:  # uniform over all 5**9 keys
        suits.append(tuple(rng.randrange(5) for _ in range(9)))
    while len(suits) < 100:  # hands of up to 14 tiles in the suit
        c = [0] * 9
        for _ in range(rng.randint(1, 14)):
            r = rng.randrange(9)
            if c[r] < 4:
                c[r] += 1
        suits.append(tuple(c))
    return suits


@pytest.mark.parametrize("suit", sample_suits(), ids=lambda s: "".join(map(str, s)))
def test_distance_table_entries_match_brute_force(suit: tuple[int, ...]) -> None:
    key = sum(c * 5**r for r, c in enumerate(suit))
    expected = [brute_distance(suit, m, p) for m in range(5) for p in range(2)]
    assert [hand.suit_distance(key, m, p) for m in range(5) for p in range(2)] == expected
    assert list(ref_suit_row(suit)) == expected  # and the reference search used above agrees


# ---------------------------------------------------------------------------------------------
# shanten with the copies that lie in melds (``owned``)
# ---------------------------------------------------------------------------------------------


def brute_capped_distance(suit: Sequence[int], caps: Sequence[int], m: int, p: int) -> int:
    """As :func:`brute_distance`, over the targets that use at most ``caps[r]`` copies of rank r."""
    keeps = [sum(map(min, t, suit)) for t in all_targets()[m, p] if all(x <= c for x, c in zip(t, caps, strict=True))]
    return 3 * m + 2 * p - max(keeps) if keeps else INF


def brute_shanten_with_melds(counts: Sequence[int], n_melds: int, meld_suits: int, owned: Sequence[int]) -> int:
    caps = [4 - (owned[t] - counts[t]) for t in range(27)]
    want = 4 - n_melds
    best = INF
    for suits in itertools.combinations(range(3), 2):
        if meld_suits & ~sum(1 << s for s in suits):
            continue
        for split in itertools.product(range(want + 1), repeat=2):
            if sum(split) != want:
                continue
            for pair_at in (0, 1):
                v = sum(
                    brute_capped_distance(counts[s * 9 : s * 9 + 9], caps[s * 9 : s * 9 + 9], n, int(i == pair_at))
                    for i, (s, n) in enumerate(zip(suits, split, strict=True))
                )
                best = min(best, v)
    return best - 1 if best < INF else 99


def melded_hands() -> list[tuple[list[int], int, int, list[int]]]:
    """Seeded 13-equivalent hands with one or two pengs/kongs in two suits, each holding the
    fourth copy of a peng or tiles next to a meld: where the copies in melds can matter."""
    rng = random.Random(77)
    out: list[tuple[list[int], int, int, list[int]]] = []
    while len(out) < 150:
        suits = rng.sample(range(3), 2)
        kinds = [s * 9 + r for s in suits for r in range(9)]
        owned = [0] * 27
        n_melds = rng.choice((1, 1, 2))
        meld_suits = 0
        for t in rng.sample(kinds, n_melds):
            owned[t] = rng.choice((3, 3, 4))
            meld_suits |= 1 << (t // 9)
        counts = [0] * 27
        melded = [t for t in range(27) if owned[t]]
        anchor = melded[0]
        if owned[anchor] == 3 and rng.random() < 0.7:
            counts[anchor] = 1  # the fourth copy in hand
        for t in (anchor - 1, anchor + 1, anchor - 2, anchor + 2):
            if t // 9 == anchor // 9 and 0 <= t < 27 and owned[t] == 0 and rng.random() < 0.6:
                counts[t] += 1
        pool = [t for t in kinds for _ in range(4 - owned[t] - counts[t])]
        room = 13 - 3 * n_melds - sum(counts)
        if room < 0:
            continue
        for t in rng.sample(pool, room):
            counts[t] += 1
        out.append((counts, n_melds, meld_suits, [counts[t] + owned[t] for t in range(27)]))
    return out


@pytest.mark.parametrize("case", melded_hands())
def test_shanten_with_meld_copies_matches_search(case: tuple[list[int], int, int, list[int]]) -> None:
    counts, n_melds, meld_suits, owned = case
    expected = brute_shanten_with_melds(counts, n_melds, meld_suits, owned)
    assert hand.shanten(counts, n_melds, meld_suits=meld_suits, owned=owned) == expected
    # ready (0) exactly when a real wait exists
    waits = hand.winning_tiles(counts, n_melds, meld_suits=meld_suits, owned=owned)
    assert (expected == 0) == bool(waits)
