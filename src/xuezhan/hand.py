"""Hand analysis (docs/rules.md §5): complete hands, splits, waits, shanten.

Everything here is table-driven on **suit keys**: the nine counts of one suit
written as a base-5 number ``sum(count[r] * 5**r)``. A tile moving in or out of a
hand changes one key by ``± 5**r``, so the engine keeps keys up to date as tiles
move, and "does this tile complete the hand" is a few set look-ups.

The tables:

- ``SETS_ONLY`` / ``SETS_PAIR``: the keys that split into sets only, or into sets
  and one pair (built at import by enumerating sets; a few thousand keys). The
  same shapes, keyed by the raw bytes of the nine counts, make the win check on a
  27-count vector three dictionary look-ups.
- the *suit tables* (``data/suit_tables.bin.xz``, see ``tools/gen_tables.py``),
  loaded on first use: for every key its *distance profile* (for every target of
  ``m`` sets plus ``p`` pairs, the fewest tiles to add so the suit contains such a
  target), its pair and odd-kind counts for seven pairs, and which added tile
  makes it exactly a shape. Shanten is the smallest sum of distances over the
  suits, minus one; only 126 distinct profiles exist, so that minimum over suits
  is tabulated too. This is exact, including hands holding all four copies of a tile.

Suits are 0 (m), 1 (p), 2 (s). A hand is given as 27 counts of its concealed tiles
plus the number of melds (each meld counts as one set of three).

Long: one subject in one module, each part built on the tables of the part before (keys,
complete hands, splits, the suit tables, shanten, waits); the engine, the scorer and the
bots read it as one, and its mutation score is kept as one (docs/mutation.md).
"""

from __future__ import annotations

import itertools
import lzma
import struct
import sys
from array import array
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Final, Literal, NamedTuple

from .tiles import NUM_KINDS, Tile

POW5: Final = tuple(5**r for r in range(9))
NUM_KEYS: Final = 5**9

# counts 0-4 to the ASCII digits "0"-"4"; anything else to a character int() rejects
_DIGITS: Final = bytes(48 + i if i < 5 else 120 for i in range(256))
_ODD: Final = bytes(i & 1 for i in range(256))
_NO_TILES: Final = bytes(9)
_split_suits: Final = struct.Struct("9s9s9s").unpack  # 27 counts (any buffer) -> the three suits' bytes


def _suit_key_slow(counts: Sequence[int], suit: int) -> int:
    off = suit * 9
    k = 0
    for r in range(8, -1, -1):
        k = k * 5 + counts[off + r]
    return k


def suit_key(counts: Sequence[int], suit: int) -> int:
    """The base-5 key of one suit of a 27-count vector."""
    return suit_keys(counts)[suit]


def suit_keys(counts: Sequence[int]) -> tuple[int, int, int]:
    """The keys of the three suits (one C-level digit parse per suit)."""
    try:
        # digits "0"-"4", reversed: a key's most significant digit is rank 9 of its suit
        s2, s1, s0 = _split_suits(bytearray(counts).translate(_DIGITS)[::-1])
        return int(s0, 5), int(s1, 5), int(s2, 5)
    except (ValueError, struct.error):  # a count outside 0-4, or not 27 counts: plain arithmetic
        return _suit_key_slow(counts, 0), _suit_key_slow(counts, 1), _suit_key_slow(counts, 2)


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
#
# Shapes are built on byte vectors (one byte per rank, read as a little-endian int)
# so that adding a set never carries into the next rank: a count above four is
# caught by the overflow mask instead of silently turning into another key.

_BYTE_RUNS: Final = tuple(0x010101 << (8 * s) for s in range(7))
_BYTE_PUNGS: Final = tuple(3 << (8 * r) for r in range(9))
_BYTE_OVER_FOUR: Final = (0x7B * 0x010101010101010101, 0x80 * 0x010101010101010101)  # +123 sets bit 7 iff > 4


def _byte_fits(v: int) -> bool:
    return (v + _BYTE_OVER_FOUR[0]) & _BYTE_OVER_FOUR[1] == 0


def _byte_vector_key(v: int) -> int:
    return int(v.to_bytes(9, "little").translate(_DIGITS)[::-1], 5)


def _build_shapes() -> tuple[frozenset[int], frozenset[int]]:
    """Byte vectors of the suits that split into 0-4 sets, and into 0-4 sets plus one pair."""
    level = {0}
    sets_only = {0}
    for _ in range(4):
        level = {v + s for v in level for s in _BYTE_RUNS + _BYTE_PUNGS if _byte_fits(v + s)}
        sets_only |= level
    sets_pair = {v + (2 << (8 * r)) for v in sets_only for r in range(9) if _byte_fits(v + (2 << (8 * r)))}
    return frozenset(sets_only), frozenset(sets_pair)


_SHAPES_ONLY, _SHAPES_PAIR = _build_shapes()

SETS_ONLY: Final = frozenset(_byte_vector_key(v) for v in _SHAPES_ONLY)
SETS_PAIR: Final = frozenset(_byte_vector_key(v) for v in _SHAPES_PAIR)
"""Suit keys that split into sets only (0-4 sets), and into sets plus one pair."""

# The win check on suit keys kept up to date by the engine: 0 sets only, 1 sets and a pair.
_KEY_CLASS: Final[dict[int, int]] = {**dict.fromkeys(SETS_ONLY, 0), **dict.fromkeys(SETS_PAIR, 1)}


def _all_even_keys() -> frozenset[int]:
    keys = [0]
    for r in range(9):  # rank by rank: each count 0, 2 or 4 (the key's base-5 digit)
        unit = 5**r
        keys = [k + c for k in keys for c in (0, 2 * unit, 4 * unit)]
    return frozenset(keys)


ALL_EVEN_KEYS: Final = _all_even_keys()
"""Suit keys whose every count is even (seven pairs, suit by suit)."""


def is_complete_keys(k0: int, k1: int, k2: int, seven_pairs: bool = True) -> bool:
    """The win check on the three suit keys of a hand of 14 tile-equivalents: four sets and a
    pair (melds being sets), or with ``seven_pairs`` (no melds) every count even. O(1)."""
    get = _KEY_CLASS.get
    a = get(k0)
    if a is not None:
        b = get(k1)
        if b is not None:
            c = get(k2)
            if c is not None and a + b + c == 1:
                return True
    return seven_pairs and k0 in ALL_EVEN_KEYS and k1 in ALL_EVEN_KEYS and k2 in ALL_EVEN_KEYS

# The win check on raw counts. ``_SUIT_CLASS[bytes(nine counts)]`` packs, for every
# suit that can be part of a complete hand, two 12-bit fields:
# - low: the suit's size, plus 512 if it is sets plus a pair; 1300 if it is no shape;
# - high: the suit's size if every count is even (seven pairs), else 1300.
# Over three suits the low fields add up to 512 + 14 - 3 * melds exactly when every
# suit is a shape and one of them holds the pair (no-pair sums stay below 40, two
# pairs reach 1024, a non-shape 1300), and the high fields to 14 exactly for seven pairs.
_FIELD: Final = 12
_LOW_MASK: Final = (1 << _FIELD) - 1
_NOT_SHAPE: Final = 1300
_PAIR_FLAG: Final = 512
_NO_SUIT: Final = _NOT_SHAPE | (_NOT_SHAPE << _FIELD)


def _build_suit_class() -> dict[bytes, int]:
    low: dict[bytes, int] = {}
    for v in _SHAPES_ONLY:
        b = v.to_bytes(9, "little")
        low[b] = sum(b)
    for v in _SHAPES_PAIR:
        b = v.to_bytes(9, "little")
        low[b] = sum(b) + _PAIR_FLAG
    even: dict[bytes, int] = {}
    partial: list[tuple[int, ...]] = [()]
    for _ in range(9):  # rank by rank: counts of 0, 2 or 4, at most 14 tiles in all
        partial = [(*c, x) for c in partial for x in (0, 2, 4) if sum(c) + x <= 14]
    for combo in partial:
        even[bytes(combo)] = sum(combo)
    # only 20 distinct values: one shared int object each, so a look-up touches less memory
    shared: dict[int, int] = {}
    out: dict[bytes, int] = {}
    for b in (*low, *(b for b in even if b not in low)):
        v = low.get(b, _NOT_SHAPE) | (even.get(b, _NOT_SHAPE) << _FIELD)
        out[b] = shared.setdefault(v, v)
    return out


_SUIT_CLASS: Final = _build_suit_class()
_suit_class = _SUIT_CLASS.get


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
    for k, n in zip(keys, sizes, strict=False):
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


def _complete_suits(k0: bytes, k1: bytes, k2: bytes, n_melds: int) -> bool:
    """``is_complete`` on the three suits' count bytes."""
    v = _suit_class(k0)
    if v is None:
        return False
    v += _suit_class(k1, _NO_SUIT) + _suit_class(k2, _NO_SUIT)
    if n_melds:
        return (v & _LOW_MASK) == _PAIR_FLAG + 14 - 3 * n_melds
    return (v & _LOW_MASK) == _PAIR_FLAG + 14 or v >> _FIELD == 14


def is_complete(counts: Sequence[int], n_melds: int = 0) -> bool:
    """Whether the concealed tiles plus ``n_melds`` melds form a complete shape (no suit rules)."""
    # _complete_suits inlined: this is the hot path of every win check
    try:
        k0, k1, k2 = _split_suits(bytearray(counts))
    except (ValueError, struct.error):  # a negative or huge count, or not 27 counts
        return False
    v = _suit_class(k0)
    if v is None:
        return False
    v += _suit_class(k1, _NO_SUIT) + _suit_class(k2, _NO_SUIT)
    if n_melds:
        return (v & _LOW_MASK) == _PAIR_FLAG + 14 - 3 * n_melds
    return (v & _LOW_MASK) == _PAIR_FLAG + 14 or v >> _FIELD == 14


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
    """Why a 14-equivalent hand cannot hu, or ``None`` if it can (docs/rules.md §3 and §5)."""
    try:
        k0, k1, k2 = _split_suits(bytearray(counts))
    except (ValueError, struct.error):  # a negative or huge count, or not 27 counts: never complete
        k0 = k1 = k2 = b""
        mask = suits_mask(counts) | meld_suits
    else:
        mask = (k0 != _NO_TILES) | (k1 != _NO_TILES) << 1 | (k2 != _NO_TILES) << 2 | meld_suits
    if void is not None and mask >> void & 1:
        return "void_suit_tile"
    if mask == 0b111:
        return "three_suits"
    if not _complete_suits(k0, k1, k2, n_melds):
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


# --- the suit tables -------------------------------------------------------------------

_MAGIC: Final = b"XZSUIT01"


class _Tables(NamedTuple):
    profile: bytes  # key -> distance profile id
    seven: bytes  # key -> min(pairs, 7) * 32 + odd kinds
    wait: array[int]  # key -> completing ranks (bits 0-8) | is a shape (bit 9) | size << 10
    rows: bytes  # profile * 10 + sets * 2 + pairs -> distance
    n_profiles: int
    pair2: bytes  # profile_a * P + profile_b -> combined two-suit row id
    two: bytes  # (profile_a * P + profile_b) * 5 + sets -> distance to sets plus a pair
    triple: bytes  # (pair2 id * P + profile_c) * 5 + sets -> the same over three suits


_TABLES: _Tables | None = None


def _load_tables() -> _Tables:
    global _TABLES
    if _TABLES is None:
        raw = lzma.decompress(resources.files("xuezhan").joinpath("data/suit_tables.bin.xz").read_bytes())
        if raw[:8] != _MAGIC:
            raise RuntimeError("xuezhan/data/suit_tables.bin.xz has an unknown format: run tools/gen_tables.py")
        lengths = struct.unpack_from("<7I", raw, 8)
        parts: list[bytes] = []
        pos = 8 + 4 * 7
        for n in lengths:
            parts.append(raw[pos : pos + n])
            pos += n
        profile, seven, wait_raw, rows, pair2, two, triple = parts
        wait = array("H")
        wait.frombytes(wait_raw)
        if sys.byteorder == "big":
            wait.byteswap()
        n_profiles = len(rows) // 10
        _TABLES = _Tables(profile, seven, wait, rows, n_profiles, pair2, two, triple)
    return _TABLES


def _seven_pairs_row() -> tuple[int, ...]:
    """Distance to seven pairs, indexed by the sum of the suits' ``seven`` codes."""
    out = []
    for code in range(3 * (7 * 32 + 9) + 1):
        pairs = min(code >> 5, 7)
        odd = code & 31
        out.append(14 - 2 * pairs - min(odd, 7 - pairs))
    return tuple(out)


_SEVEN_DISTANCE: Final = _seven_pairs_row()


# --- distance and shanten -------------------------------------------------------------


def suit_distance(key: int, sets: int, pairs: int) -> int:
    """Fewest tiles to add to a suit so it contains ``sets`` sets plus ``pairs`` (0/1) pairs."""
    t = _load_tables()
    return t.rows[t.profile[key] * 10 + sets * 2 + pairs]


def _want(n_melds: int) -> int:
    if n_melds < 0:
        raise ValueError(f"n_melds must be 0 or more, not {n_melds}")
    return 4 - n_melds if n_melds < 4 else 0


def standard_shanten(counts: Sequence[int], n_melds: int = 0) -> int:
    """Shanten of the four-sets-and-a-pair form alone, no suit rules (−1 complete, 0 ready)."""
    k0, k1, k2 = suit_keys(counts)
    t = _load_tables()
    prof, n = t.profile, t.n_profiles
    return t.triple[(t.pair2[prof[k0] * n + prof[k1]] * n + prof[k2]) * 5 + _want(n_melds)] - 1


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten of the seven-pairs form alone (four of a kind is two pairs), no suit rules."""
    k0, k1, k2 = suit_keys(counts)
    seven = _load_tables().seven
    return _SEVEN_DISTANCE[seven[k0] + seven[k1] + seven[k2]] - 1


@lru_cache(maxsize=256)
def _suit_choices(meld_suits: int, void: int | None, two_suits: bool) -> tuple[tuple[int, ...], ...]:
    allowed = [s for s in range(3) if s != void]
    if not two_suits and void is None:
        return ((0, 1, 2),)
    return tuple(c for c in itertools.combinations(allowed, 2) if meld_suits & ~sum(1 << s for s in c) == 0)


def shanten(
    counts: Sequence[int],
    n_melds: int = 0,
    *,
    meld_suits: int = 0,
    void: int | None = None,
    two_suits: bool = True,
    owned: Sequence[int] | None = None,
) -> int:
    """Shanten toward a hand that can hu: −1 complete, 0 ready, N tiles from ready.

    The minimum over four sets and a pair and seven pairs. Tiles of the void suit are
    useless; with ``two_suits`` (the game's rule) the target uses at most two suits,
    those of the melds included. Returns 99 when no winning hand can be reached
    (a meld in the void suit, or melds in three suits).

    ``owned`` (concealed plus meld copies, as for :func:`winning_tiles`) makes the answer
    exact for hands with melds: the target then uses no copy that lies in a meld (a hand
    with a peng of 5m cannot plan a pair of 5m). Without it the tables assume every copy
    not in the hand is still to be had; that is faster and off by one in rare hands.
    """
    if owned is not None and n_melds:
        caps = [4 - (owned[t] - counts[t]) for t in range(27)]
        if min(caps) < 4:
            return _capped_shanten(counts, n_melds, meld_suits, void, two_suits, caps)
    keys = suit_keys(counts)
    want = _want(n_melds)
    t = _load_tables()
    prof, n, seven = t.profile, t.n_profiles, t.seven
    best = 99
    for suits in _suit_choices(meld_suits, void, two_suits):
        if len(suits) == 3:
            k0, k1, k2 = keys
            v = t.triple[(t.pair2[prof[k0] * n + prof[k1]] * n + prof[k2]) * 5 + want]
            if n_melds == 0:
                v = min(v, _SEVEN_DISTANCE[seven[k0] + seven[k1] + seven[k2]])
        else:
            ka, kb = keys[suits[0]], keys[suits[1]]
            v = t.two[(prof[ka] * n + prof[kb]) * 5 + want]
            if n_melds == 0:
                v = min(v, _SEVEN_DISTANCE[seven[ka] + seven[kb]])
        if v < best:
            best = v
    return best - 1 if best < 99 else 99


@lru_cache(maxsize=1 << 14)
def _capped_row(suit: tuple[int, ...], caps: tuple[int, ...]) -> tuple[int, ...]:
    """``row[2m + p]``: fewest tiles to add so the nine counts contain m sets and p pairs,
    using at most ``caps[r]`` copies of rank r. A search rank by rank: at rank r the target
    holds the runs still in progress, the runs it starts there, maybe a pung, maybe the pair."""
    inf = 99
    states: dict[tuple[int, int], list[int]] = {(0, 0): [0] + [inf] * 9}
    for r in range(9):
        have, cap = suit[r], caps[r]
        nxt: dict[tuple[int, int], list[int]] = {}
        for (ending, middle), costs in states.items():
            for start in range((cap - ending - middle if r <= 6 else 0) + 1):
                for pung in (0, 1):
                    for pair in (0, 1):
                        need = ending + middle + start + 3 * pung + 2 * pair
                        if need > cap:
                            continue
                        add = max(0, need - have)
                        new_sets = start + pung
                        row = nxt.setdefault((middle, start), [inf] * 10)
                        for m in range(5 - new_sets):
                            for p in range(2 - pair):
                                v = costs[2 * m + p] + add
                                i = 2 * (m + new_sets) + p + pair
                                if v < row[i]:
                                    row[i] = v
        states = nxt
    final = states.get((0, 0))
    return tuple(final) if final is not None else (inf,) * 10


def _capped_shanten(
    counts: Sequence[int], n_melds: int, meld_suits: int, void: int | None, two_suits: bool, caps: Sequence[int]
) -> int:
    want = _want(n_melds)
    rows = [_capped_row(tuple(counts[s * 9 : s * 9 + 9]), tuple(caps[s * 9 : s * 9 + 9])) for s in range(3)]
    best = 99
    for suits in _suit_choices(meld_suits, void, two_suits):
        for split in itertools.product(range(want + 1), repeat=len(suits)):
            if sum(split) != want:
                continue
            for pair_at in range(len(suits)):
                v = sum(rows[s][2 * split[i] + (i == pair_at)] for i, s in enumerate(suits))
                best = min(best, v)
    return best - 1 if best < 99 else 99


# --- waits --------------------------------------------------------------------------

_RANK_MASK_TILES: Final = tuple(
    tuple(tuple(s * 9 + r for r in range(9) if mask >> r & 1) for mask in range(512)) for s in range(3)
)
"""``_RANK_MASK_TILES[suit][mask]``: the tiles of ``suit`` whose ranks are the bits of ``mask``."""


def _completing(counts: Sequence[int], n_melds: int) -> tuple[list[Tile], int]:
    """The completing tiles of a 13-equivalent hand and the mask of the suits it holds."""
    k0, k1, k2 = suit_keys(counts)
    wait = _load_tables().wait
    w0, w1, w2 = wait[k0], wait[k1], wait[k2]
    n0, n1, n2 = w0 >> 10, w1 >> 10, w2 >> 10
    held = (n0 > 0) | (n1 > 0) << 1 | (n2 > 0) << 2
    if n0 + n1 + n2 + 3 * n_melds != 13:
        return [], held
    out: list[Tile] = []
    # standard form: the added tile goes to suit s, whose size becomes 0 or 2 mod 3;
    # the other suits must already be shapes (bit 9), and exactly one suit holds the pair.
    ws = (w0, w1, w2)
    rems = (n0 % 3, n1 % 3, n2 % 3)
    for s in range(3):
        rem_s = (rems[s] + 1) % 3
        if rem_s == 1:
            continue
        pairs = int(rem_s == 2)
        ok = True
        for o in range(3):
            if o != s:
                if not ws[o] >> 9 & 1:
                    ok = False
                    break
                pairs += rems[o] == 2
        if ok and pairs == 1:
            out.extend(_RANK_MASK_TILES[s][ws[s] & 511])
    # seven pairs: six pairs and one odd tile
    if n_melds == 0:
        seven = _load_tables().seven
        if (seven[k0] + seven[k1] + seven[k2]) & 31 == 1:
            odd = bytearray(counts).translate(_ODD).index(1)
            if odd not in out:
                out.append(odd)
                out.sort()
    return out, held


def completing_tiles(counts: Sequence[int], n_melds: int = 0) -> list[Tile]:
    """Tiles that complete the shape of a 13-equivalent hand (no suit rules), ignoring copies left.

    A fifth copy of a tile is never completing; a hand that is not 13 tile-equivalents
    (concealed tiles plus 3 per meld) has no completing tile.
    """
    return _completing(counts, n_melds)[0]


def winning_tiles(
    counts: Sequence[int],
    n_melds: int = 0,
    *,
    meld_suits: int = 0,
    void: int | None = None,
    owned: Sequence[int] | None = None,
) -> list[Tile]:
    """The waits of a 13-equivalent hand under the game's rules (docs/rules.md §3 and §5).

    A wait completes the hand, leaves at most two suits and no void tile. A tile whose
    four copies the seat already owns (``owned``: concealed plus meld copies; defaults
    to ``counts``) is not a wait.
    """
    tiles, held = _completing(counts, n_melds)
    owned = counts if owned is None else owned
    mask = held | meld_suits
    if void is not None and mask >> void & 1:
        return []
    out = []
    for t in tiles:
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
