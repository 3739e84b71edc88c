"""Hand analysis (RULES.md section 5): complete hands, splits, waits, shanten.

Everything here is table-driven on **suit keys**: the nine counts of one suit
written as a base-5 number ``sum(count[r] * 5**r)``. A tile moving in or out of a
hand changes one key by ``± 5**r``, so the engine keeps keys up to date as tiles
move, and "does this tile complete the hand" is a few set look-ups.

Two tables:

- ``SETS_ONLY`` / ``SETS_PAIR``: the keys that split into sets only, or into sets
  and one pair (built at import by enumerating sets; a few thousand keys).
- the *suit distance* table (``data/suit_distance.bin.xz``, see
  ``tools/gen_tables.py``): for every key and every target of ``m`` sets plus
  ``p`` pairs, the fewest tiles to add so the suit contains such a target. Shanten
  is the smallest sum of distances over the suits, minus one; this is exact,
  including hands holding all four copies of a tile.

Suits are 0 (m), 1 (p), 2 (s). A hand is given as 27 counts of its concealed tiles
plus the number of melds (each meld counts as one set of three).
"""

from __future__ import annotations

import itertools
import lzma
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Final, Literal, NamedTuple

from .tiles import NUM_KINDS, Tile

POW5: Final = tuple(5**r for r in range(9))
NUM_KEYS: Final = 5**9


def suit_key(counts: Sequence[int], suit: int) -> int:
    """The base-5 key of one suit of a 27-count vector."""
    off = suit * 9
    k = 0
    for r in range(8, -1, -1):
        k = k * 5 + counts[off + r]
    return k


def suit_keys(counts: Sequence[int]) -> tuple[int, int, int]:
    return suit_key(counts, 0), suit_key(counts, 1), suit_key(counts, 2)


def key_counts(key: int) -> list[int]:
    """The nine counts of a suit key."""
    out = []
    for _ in range(9):
        key, c = divmod(key, 5)
        out.append(c)
    return out


def key_size(key: int) -> int:
    return sum(key_counts(key))


# --- the set tables -------------------------------------------------------------



def _build_set_tables() -> tuple[frozenset[int], frozenset[int]]:
    # Work on count vectors: adding keys directly would carry a fifth copy into the next rank.
    shapes = [[1 if r in (s, s + 1, s + 2) else 0 for r in range(9)] for s in range(7)]
    shapes += [[3 if r == s else 0 for r in range(9)] for s in range(9)]

    def key_of(vec: list[int]) -> int:
        return sum(c * POW5[r] for r, c in enumerate(vec))

    sets_only: set[int] = set()
    sets_pair: set[int] = set()
    for m in range(5):
        for combo in itertools.combinations_with_replacement(range(len(shapes)), m):
            vec = [sum(shapes[i][r] for i in combo) for r in range(9)]
            if max(vec) > 4:
                continue
            sets_only.add(key_of(vec))
            for r in range(9):
                if vec[r] <= 2:
                    vec[r] += 2
                    sets_pair.add(key_of(vec))
                    vec[r] -= 2
    return frozenset(sets_only), frozenset(sets_pair)


SETS_ONLY, SETS_PAIR = _build_set_tables()
"""Suit keys that split into sets only (0-4 sets), and into sets plus one pair."""



def _all_even(key: int) -> bool:
    while key:
        key, c = divmod(key, 5)
        if c & 1:
            return False
    return True


# --- complete hands ----------------------------------------------------------------


def is_standard_complete(keys: Sequence[int], sizes: Sequence[int]) -> bool:
    """Four sets and a pair (melds being sets): exactly one suit holds the pair."""
    pair_suits = 0
    for k, n in zip(keys, sizes):
        rem = n % 3
        if rem == 0:
            if k not in SETS_ONLY:
                return False
        elif rem == 2:
            pair_suits += 1
            if k not in SETS_PAIR:
                return False
        else:
            return False
    return pair_suits == 1


def is_seven_pairs(keys: Sequence[int], sizes: Sequence[int], n_melds: int) -> bool:
    """Seven pairs: no melds, 14 concealed tiles, every count even (four of a kind is two pairs)."""
    return n_melds == 0 and sum(sizes) == 14 and all(_all_even(k) for k in keys)


def is_complete(counts: Sequence[int], n_melds: int = 0) -> bool:
    """Whether the concealed tiles plus ``n_melds`` melds form a complete shape (no suit rules)."""
    keys = suit_keys(counts)
    sizes = (sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]))
    if sum(sizes) + 3 * n_melds != 14:
        return False
    return is_standard_complete(keys, sizes) or is_seven_pairs(keys, sizes, n_melds)


def suits_mask(counts: Sequence[int]) -> int:
    """Bit s set when the counts hold a tile of suit s."""
    mask = 0
    for s in range(3):
        if any(counts[s * 9 : s * 9 + 9]):
            mask |= 1 << s
    return mask


WinBlock = Literal["not_complete", "three_suits", "void_suit_tile"]


def win_block(
    counts: Sequence[int], n_melds: int, meld_suits: int = 0, void: int | None = None
) -> WinBlock | None:
    """Why a 14-equivalent hand cannot hu, or ``None`` if it can (RULES 3 and 5)."""
    mask = suits_mask(counts) | meld_suits
    if void is not None and mask >> void & 1:
        return "void_suit_tile"
    if mask == 0b111:
        return "three_suits"
    if not is_complete(counts, n_melds):
        return "not_complete"
    return None


# --- splits --------------------------------------------------------------------------


class Block(NamedTuple):
    """One part of a split: ``kind`` is ``"pair"``, ``"pung"`` or ``"run"``; ``tile`` its lowest tile."""

    kind: Literal["pair", "pung", "run"]
    tile: Tile


@lru_cache(maxsize=1 << 16)
def _suit_splits(key: int, with_pair: bool) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every split of one suit into sets (and one pair if ``with_pair``), as (kind, rank0) tuples."""
    counts = key_counts(key)
    out: list[tuple[tuple[str, int], ...]] = []

    def rec(start: int, acc: list[tuple[str, int]], pair_left: bool) -> None:
        r = start
        while r < 9 and counts[r] == 0:
            r += 1
        if r == 9:
            if not pair_left:
                out.append(tuple(sorted(acc)))
            return
        if pair_left and counts[r] >= 2:
            counts[r] -= 2
            acc.append(("pair", r))
            rec(r, acc, False)
            acc.pop()
            counts[r] += 2
        if counts[r] >= 3:
            counts[r] -= 3
            acc.append(("pung", r))
            rec(r, acc, pair_left)
            acc.pop()
            counts[r] += 3
        if r <= 6 and counts[r + 1] and counts[r + 2]:
            for i in (r, r + 1, r + 2):
                counts[i] -= 1
            acc.append(("run", r))
            rec(r, acc, pair_left)
            acc.pop()
            for i in (r, r + 1, r + 2):
                counts[i] += 1

    rec(0, [], with_pair)
    return tuple(sorted(set(out)))


def standard_splits(counts: Sequence[int]) -> list[tuple[Block, ...]]:
    """Every distinct split of the concealed tiles into sets and one pair (no melds included)."""
    keys = suit_keys(counts)
    per_suit: list[list[tuple[Block, ...]]] = []
    sizes = (sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]))
    if sum(1 for n in sizes if n % 3 == 2) != 1 or any(n % 3 == 1 for n in sizes):
        return []
    for s in range(3):
        parts = _suit_splits(keys[s], sizes[s] % 3 == 2)
        if not parts:
            return []
        per_suit.append([tuple(Block(kind, s * 9 + r) for kind, r in p) for p in parts])  # type: ignore[arg-type]
    return [a + b + c for a, b, c in itertools.product(*per_suit)]


# --- distance table and shanten -------------------------------------------------------

_DIST: bytes | None = None


def _dist_table() -> bytes:
    global _DIST
    if _DIST is None:
        data = resources.files("xuezhan").joinpath("data/suit_distance.bin.xz").read_bytes()
        _DIST = lzma.decompress(data)
    return _DIST


def suit_distance(key: int, sets: int, pairs: int) -> int:
    """Fewest tiles to add to a suit so it contains ``sets`` sets plus ``pairs`` (0/1) pairs."""
    return _dist_table()[key * 10 + sets * 2 + pairs]


def _pairs_odd(key: int) -> tuple[int, int]:
    pairs = odd = 0
    while key:
        key, c = divmod(key, 5)
        pairs += c >> 1
        odd += c & 1
    return pairs, odd


def _standard_distance(keys: Sequence[int], suits: Sequence[int], want: int) -> int:
    """Fewest tiles to add so that the suits in ``suits`` hold ``want`` sets plus a pair."""
    d = _dist_table()
    best = 99
    if len(suits) == 1:
        return d[keys[suits[0]] * 10 + want * 2 + 1]
    if len(suits) == 2:
        ka, kb = keys[suits[0]] * 10, keys[suits[1]] * 10
        for ma in range(want + 1):
            mb2 = (want - ma) * 2
            v = d[ka + ma * 2 + 1] + d[kb + mb2]
            if v < best:
                best = v
            v = d[ka + ma * 2] + d[kb + mb2 + 1]
            if v < best:
                best = v
        return best
    k0, k1, k2 = keys[0] * 10, keys[1] * 10, keys[2] * 10
    for m0 in range(want + 1):
        for m1 in range(want - m0 + 1):
            a, b, c = m0 * 2, m1 * 2, (want - m0 - m1) * 2
            v = min(
                d[k0 + a + 1] + d[k1 + b] + d[k2 + c],
                d[k0 + a] + d[k1 + b + 1] + d[k2 + c],
                d[k0 + a] + d[k1 + b] + d[k2 + c + 1],
            )
            if v < best:
                best = v
    return best


def _seven_pairs_distance(keys: Sequence[int], suits: Sequence[int]) -> int:
    """Fewest tiles to add so the suits hold seven pairs (a four of a kind being two)."""
    pairs = odd = 0
    for s in suits:
        p, o = _pairs_odd(keys[s])
        pairs += p
        odd += o
    pairs = min(pairs, 7)
    return 14 - 2 * pairs - min(odd, 7 - pairs)


def standard_shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of the four-sets-and-a-pair form alone, no suit rules (−1 complete, 0 ready)."""
    return _standard_distance(suit_keys(counts), (0, 1, 2), max(0, 4 - n_melds)) - 1


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten of the seven-pairs form alone (four of a kind is two pairs), no suit rules."""
    return _seven_pairs_distance(suit_keys(counts), (0, 1, 2)) - 1


def _suit_choices(meld_suits: int, void: int | None, two_suits: bool) -> list[tuple[int, ...]]:
    allowed = [s for s in range(3) if s != void]
    if not two_suits and void is None:
        return [(0, 1, 2)]
    choices = [c for c in itertools.combinations(allowed, 2) if meld_suits & ~sum(1 << s for s in c) == 0]
    return choices


def shanten(
    counts: Sequence[int],
    n_melds: int = 0,
    *,
    meld_suits: int = 0,
    void: int | None = None,
    two_suits: bool = True,
) -> int:
    """Shanten toward a hand that can hu: −1 complete, 0 ready, N tiles from ready.

    The minimum over four sets and a pair and seven pairs. Tiles of the void suit are
    useless; with ``two_suits`` (the game's rule) the target uses at most two suits,
    those of the melds included. Returns 99 when no winning hand can be reached
    (a meld in the void suit, or melds in three suits).
    """
    keys = suit_keys(counts)
    want = max(0, 4 - n_melds)
    best = 99
    for suits in _suit_choices(meld_suits, void, two_suits):
        v = _standard_distance(keys, suits, want)
        if n_melds == 0:
            v = min(v, _seven_pairs_distance(keys, suits))
        if v < best:
            best = v
    return best - 1 if best < 99 else 99


# --- waits --------------------------------------------------------------------------


@lru_cache(maxsize=1 << 16)
def _completing_ranks(key: int, with_pair: bool) -> tuple[int, ...]:
    """Ranks r such that adding one tile r to the suit gives sets only / sets plus a pair."""
    table = SETS_PAIR if with_pair else SETS_ONLY
    return tuple(r for r in range(9) if (key // POW5[r]) % 5 < 4 and key + POW5[r] in table)


def completing_tiles(counts: Sequence[int], n_melds: int = 0) -> list[Tile]:
    """Tiles that complete the shape of a 13-equivalent hand (no suit rules), ignoring copies left."""
    keys = suit_keys(counts)
    sizes = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
    out: set[Tile] = set()
    total = sum(sizes) + 3 * n_melds
    if total != 13 and (sum(sizes) + 1) % 3 != 2:
        return []
    # standard form: the added tile goes to suit s; suit s then needs rem 0 or 2.
    for s in range(3):
        ok = True
        pair_elsewhere = 0
        for o in range(3):
            if o == s:
                continue
            rem = sizes[o] % 3
            if rem == 1 or (rem == 0 and keys[o] not in SETS_ONLY) or (rem == 2 and keys[o] not in SETS_PAIR):
                ok = False
                break
            pair_elsewhere += rem == 2
        if not ok:
            continue
        rem_s = (sizes[s] + 1) % 3
        if rem_s == 1:
            continue
        with_pair = rem_s == 2
        if pair_elsewhere + with_pair != 1:
            continue
        for r in _completing_ranks(keys[s], with_pair):
            out.add(s * 9 + r)
    if n_melds == 0 and sum(sizes) == 13:
        odd = [t for t in range(NUM_KINDS) if counts[t] & 1]
        if len(odd) == 1:
            out.add(odd[0])
    return sorted(out)


def winning_tiles(
    counts: Sequence[int],
    n_melds: int = 0,
    *,
    meld_suits: int = 0,
    void: int | None = None,
    owned: Sequence[int] | None = None,
) -> list[Tile]:
    """The waits of a 13-equivalent hand under the game's rules (RULES 3 and 5).

    A wait completes the hand, leaves at most two suits and no void tile. A tile whose
    four copies the seat already owns (``owned``: concealed plus meld copies; defaults
    to ``counts``) is not a wait.
    """
    owned = counts if owned is None else owned
    mask = suits_mask(counts) | meld_suits
    if void is not None and mask >> void & 1:
        return []
    out = []
    for t in completing_tiles(counts, n_melds):
        if owned[t] >= 4:
            continue
        m = mask | (1 << (t // 9))
        if m == 0b111 or (void is not None and m >> void & 1):
            continue
        out.append(t)
    return out


def tiles_to_counts(tiles: Iterable[Tile]) -> list[int]:
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    return counts
