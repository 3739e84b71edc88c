"""Regenerate ``src/xuezhan/data/suit_tables.bin.xz``: the per-suit tables of ``xuezhan.hand``.

A *suit key* is the nine counts of one suit (0-4 each) as a base-5 number
``sum(count[r] * 5**r)``. The *distance* ``d(key, m, p)`` is the fewest tiles that
must be added to the suit so that it contains ``m`` sets (0-4) plus ``p`` pairs
(0-1), no tile kind above four copies. It is a separable min-plus transform of the
target indicator, computed with one pass per rank axis.

Only 126 distinct distance rows ``d(key, ·, ·)`` occur over all 5**9 keys (their
*profiles*), and 180 distinct rows once two suits are combined, so the cross-suit
minimisation of shanten is tabulated too and costs two look-ups at run time.

File layout (``lzma`` compressed, little-endian), after an 8-byte magic and seven
``uint32`` section lengths:

- ``profile``: 5**9 bytes, the profile id of every key;
- ``seven``: 5**9 bytes, ``min(pairs, 7) * 32 + odd`` of every key (pairs counting
  a four of a kind twice, odd the kinds held an odd number of times);
- ``wait``: 5**9 ``uint16``: bits 0-8 the ranks whose addition makes the key exactly
  sets (plus one pair if its size is 2 mod 3), bit 9 set if the key itself is such
  a shape, bits 10-15 the number of tiles;
- ``rows``: profiles x 10 bytes, ``d`` at column ``m * 2 + p``;
- ``pair2``: profiles x profiles bytes, the id of the combined two-suit row;
- ``two``: profiles x profiles x 5 bytes, two suits' distance to ``w`` sets plus a pair;
- ``triple``: combined rows x profiles x 5 bytes, the same over three suits.

Needs numpy (``pip install numpy``); the shipped file is checked against plain
searches by the test suite.

    python tools/gen_tables.py
"""

from __future__ import annotations

import itertools
import lzma
import struct
from pathlib import Path
from typing import Any

import numpy as np

N = 5**9
INF = 99
MAGIC = b"XZSUIT01"
SHAPES = [tuple(1 if r in (s, s + 1, s + 2) else 0 for r in range(9)) for s in range(7)] + [
    tuple(3 if r == s else 0 for r in range(9)) for s in range(9)
]
OUT = Path(__file__).resolve().parent.parent / "src" / "xuezhan" / "data" / "suit_tables.bin.xz"

Array = Any  # numpy arrays (numpy is untyped for mypy here)


def targets(m: int, p: int) -> set[tuple[int, ...]]:
    out: set[tuple[int, ...]] = set()
    for combo in itertools.combinations_with_replacement(range(len(SHAPES)), m):
        base = [0] * 9
        for i in combo:
            for r in range(9):
                base[r] += SHAPES[i][r]
        pairs = [None] if p == 0 else list(range(9))
        for pr in pairs:
            vec = list(base)
            if pr is not None:
                vec[pr] += 2
            if max(vec) <= 4:
                out.add(tuple(vec))
    return out


def key(vec: tuple[int, ...]) -> int:
    return sum(c * 5**r for r, c in enumerate(vec))


def transform(f: Array) -> Array:
    g = f.reshape((5,) * 9).astype(np.int16)
    for axis in range(9):
        g = np.moveaxis(g, axis, 0).copy()
        prefix = np.minimum.accumulate(g, axis=0)
        suffix = np.full_like(g, INF)
        for h in range(3, -1, -1):
            suffix[h] = np.minimum(g[h + 1] + 1, suffix[h + 1] + 1)
        g = np.moveaxis(np.minimum(prefix, suffix), 0, axis)
    return np.minimum(g, INF).reshape(N).astype(np.uint8)


def distance_table() -> Array:
    table = np.zeros((N, 10), dtype=np.uint8)
    for m in range(5):
        for p in range(2):
            f = np.full(N, INF, dtype=np.int16)
            for vec in targets(m, p):
                f[key(vec)] = 0
            table[:, m * 2 + p] = transform(f)
    return table


def digits() -> Array:
    """``digits()[k, r]``: the count of rank ``r`` in key ``k``."""
    ks = np.arange(N, dtype=np.int64)
    return np.stack([(ks // 5**r) % 5 for r in range(9)], axis=1)


def combine(a: Array, b: Array) -> Array:
    """Min-plus product of distance rows: ``a`` is (..., 10), ``b`` is (..., 10); returns (..., 10)."""
    shape = np.broadcast_shapes(a.shape, b.shape)
    out = np.full(shape, INF, dtype=np.int16)
    a = a.astype(np.int16)
    b = b.astype(np.int16)
    for m in range(5):
        for i in range(m + 1):
            j = m - i
            out[..., 2 * m] = np.minimum(out[..., 2 * m], a[..., 2 * i] + b[..., 2 * j])
            with_pair = np.minimum(a[..., 2 * i + 1] + b[..., 2 * j], a[..., 2 * i] + b[..., 2 * j + 1])
            out[..., 2 * m + 1] = np.minimum(out[..., 2 * m + 1], with_pair)
    return np.minimum(out, INF)


def build() -> bytes:
    table = distance_table()
    rows, profile = np.unique(table, axis=0, return_inverse=True)
    profile = profile.reshape(N)
    n_prof = len(rows)
    assert n_prof < 256

    dig = digits()
    size = dig.sum(axis=1)
    pairs = np.minimum((dig >> 1).sum(axis=1), 7)
    odd = (dig & 1).sum(axis=1)
    seven = (pairs * 32 + odd).astype(np.uint8)

    # a key is exactly a shape when it is at distance 0 from the target of its own size
    complete = np.zeros(N, dtype=bool)
    for m in range(5):
        complete |= (size == 3 * m) & (table[:, 2 * m] == 0)
        complete |= (size == 3 * m + 2) & (table[:, 2 * m + 1] == 0)
    mask = np.zeros(N, dtype=np.uint16)
    ks = np.arange(N, dtype=np.int64)
    for r in range(9):
        room = dig[:, r] < 4
        nxt = np.where(room, ks + 5**r, 0)
        mask |= ((room & complete[nxt]).astype(np.uint16) << r).astype(np.uint16)
    wait = (mask | (complete.astype(np.uint16) << 9) | (size.astype(np.uint16) << 10)).astype("<u2")

    combined = combine(rows[:, None, :], rows[None, :, :]).reshape(n_prof * n_prof, 10)
    crows, pair2 = np.unique(combined, axis=0, return_inverse=True)
    assert len(crows) < 256
    two = combined[:, 1::2].astype(np.uint8)  # (P*P, 5): want w sets plus the pair
    triple = combine(crows[:, None, :], rows[None, :, :])[..., 1::2].astype(np.uint8)  # (Q, P, 5)

    sections = [
        profile.astype(np.uint8).tobytes(),
        seven.tobytes(),
        wait.tobytes(),
        rows.astype(np.uint8).tobytes(),
        pair2.reshape(-1).astype(np.uint8).tobytes(),
        two.tobytes(),
        triple.tobytes(),
    ]
    header = MAGIC + struct.pack("<7I", *(len(s) for s in sections))
    return header + b"".join(sections)


def main() -> None:
    data = build()
    OUT.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes, {len(data)} uncompressed)")


if __name__ == "__main__":
    main()
