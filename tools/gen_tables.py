"""Regenerate ``src/xuezhan/data/suit_distance.bin.xz``: the per-suit distance table.

For every suit key (the nine counts of one suit, 0-4 each, as a base-5 number
``sum(count[r] * 5**r)``) and every target of ``m`` sets (0-4) plus ``p`` pairs
(0-1), the table holds the fewest tiles that must be added to the suit so that it
contains such a target (no tile kind above four copies). Shanten is then a small
minimisation over suits (see ``xuezhan.hand``).

The distance is a separable min-plus transform of the target indicator, so it is
computed with one pass per rank axis. Needs numpy (``pip install numpy``); the
shipped file is checked against a plain search by the test suite.

    python tools/gen_tables.py
"""

from __future__ import annotations

import itertools
import lzma
from pathlib import Path

import numpy as np

N = 5**9
INF = 99
SHAPES = [tuple(1 if r in (s, s + 1, s + 2) else 0 for r in range(9)) for s in range(7)] + [
    tuple(3 if r == s else 0 for r in range(9)) for s in range(9)
]


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


def transform(f: np.ndarray) -> np.ndarray:
    g = f.reshape((5,) * 9).astype(np.int16)
    for axis in range(9):
        g = np.moveaxis(g, axis, 0).copy()
        prefix = np.minimum.accumulate(g, axis=0)
        suffix = np.full_like(g, INF)
        for h in range(3, -1, -1):
            suffix[h] = np.minimum(g[h + 1] + 1, suffix[h + 1] + 1)
        g = np.moveaxis(np.minimum(prefix, suffix), 0, axis)
    return np.minimum(g, INF).reshape(N).astype(np.uint8)


def main() -> None:
    table = np.zeros((N, 10), dtype=np.uint8)
    for m in range(5):
        for p in range(2):
            f = np.full(N, INF, dtype=np.int16)
            for vec in targets(m, p):
                f[key(vec)] = 0
            table[:, m * 2 + p] = transform(f)
    out = Path(__file__).resolve().parent.parent / "src" / "xuezhan" / "data" / "suit_distance.bin.xz"
    out.write_bytes(lzma.compress(table.tobytes(), preset=9 | lzma.PRESET_EXTREME))
    print(f"wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
