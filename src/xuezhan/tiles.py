"""Tiles and their text notation (docs/rules.md §1).

A tile is an ``int`` from 0 to 26: ``suit * 9 + rank - 1`` with suits ordered
m (万), p (筒), s (条). Plain ints keep the engine fast and make tiles map
directly to a fixed action space; this module converts them to and from text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from .errors import TileError
from .ids import ErrorCode

Tile = int
"""A tile: 0..26, ``suit * 9 + rank - 1``."""

NUM_KINDS: Final = 27
COPIES: Final = 4
NUM_TILES: Final = NUM_KINDS * COPIES  # 108
SUITS: Final = "mps"
SUIT_NAMES_ZH: Final = ("万", "筒", "条")
ALL_TILES: Final = tuple(range(NUM_KINDS))

# Chinese suffixes accepted on input (docs/rules.md §1: 万/筒/饼/条/索; 束 is another name of 条).
_SUFFIX: Final = {
    "m": 0, "p": 1, "s": 2,
    "万": 0, "萬": 0, "筒": 1, "饼": 1, "餅": 1, "条": 2, "條": 2, "索": 2, "束": 2,
}


def tile(rank: int, suit: int) -> Tile:
    """The tile of ``rank`` (1-9) in ``suit`` (0 m, 1 p, 2 s)."""
    if not 1 <= rank <= 9 or not 0 <= suit <= 2:
        raise TileError(ErrorCode.BAD_TILE, f"no tile of rank {rank} in suit {suit}")
    return suit * 9 + rank - 1


def suit_of(t: Tile) -> int:
    return t // 9


def rank_of(t: Tile) -> int:
    return t % 9 + 1


def suit_index(name: str) -> int:
    """``"m"``/``"p"``/``"s"`` (or a Chinese suit name) to 0/1/2."""
    s = _SUFFIX.get(name.strip())
    if s is None:
        raise TileError(ErrorCode.BAD_SUIT, f"unknown suit {name!r}: use m, p or s")
    return s


def tile_name(t: Tile) -> str:
    """``"5m"`` for tile 4."""
    if not 0 <= t < NUM_KINDS:
        raise TileError(ErrorCode.BAD_TILE, f"no tile numbered {t}")
    return f"{t % 9 + 1}{SUITS[t // 9]}"


def parse_tiles(text: str, *, max_copies: int = COPIES) -> list[Tile]:
    """Parse a hand string such as ``"123m 456p 55s"`` or ``"1m1m4p"`` into tiles, in text order.

    Raises :class:`TileError` with code ``empty``, ``bad_char``, ``honour_tile``,
    ``bad_rank``, ``missing_suit`` or ``too_many_copies``.
    """
    tiles: list[Tile] = []
    digits: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            continue
        if "1" <= ch <= "9" and ch.isascii():
            digits.append(int(ch))
            continue
        if ch == "0":
            raise TileError(ErrorCode.BAD_RANK, f"rank 0 at position {i} of {text!r}: ranks are 1-9 (no red fives)")
        suit = _SUFFIX.get(ch)
        if suit is None:
            if ch in "zZhHwWdDfF" or ch in "东南西北中发發白":
                raise TileError(
                    ErrorCode.HONOUR_TILE, f"{ch!r} at position {i} of {text!r}: this game has no honour tiles"
                )
            raise TileError(ErrorCode.BAD_CHAR, f"unknown character {ch!r} at position {i} of {text!r}")
        if not digits:
            raise TileError(ErrorCode.MISSING_RANK, f"suit {ch!r} at position {i} of {text!r} has no ranks before it")
        tiles.extend(suit * 9 + d - 1 for d in digits)
        digits.clear()
    if digits:
        raise TileError(ErrorCode.MISSING_SUIT, f"ranks at the end of {text!r} have no suit letter")
    if not tiles:
        raise TileError(ErrorCode.EMPTY, "no tiles given")
    check_copies(tiles, max_copies=max_copies)
    return tiles


def parse_tile(text: str) -> Tile:
    """Parse exactly one tile, ``"5m"``."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise TileError(ErrorCode.NOT_ONE_TILE, f"{text!r} is {len(tiles)} tiles, expected one")
    return tiles[0]


def check_copies(tiles: Iterable[Tile], *, max_copies: int = COPIES) -> None:
    """Raise ``too_many_copies`` if any tile kind appears more than ``max_copies`` times."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
        if counts[t] > max_copies:
            raise TileError(ErrorCode.TOO_MANY_COPIES, f"more than {max_copies} copies of {tile_name(t)}")


def sort_key(t: Tile) -> int:
    return t


_RANKS: Final = "123456789"


def format_tiles(tiles: Iterable[Tile], *, compact: bool = True) -> str:
    """Tiles as text in the order m, p, s, rank ascending: ``"123m55p"``.

    ``compact=False`` writes every tile with its suit (``"1m2m3m5p5p"``), the form
    the game record uses for walls, where order matters and is kept.
    """
    if not compact:
        return "".join(tile_name(t) for t in tiles)
    ordered = sorted(tiles)
    out: list[str] = []
    for suit in range(3):
        ranks = [str(t % 9 + 1) for t in ordered if t // 9 == suit]
        if ranks:
            out.append("".join(ranks) + SUITS[suit])
    return "".join(out)


def format_counts(counts: Sequence[int]) -> str:
    """:func:`format_tiles` of the tiles of a 27-count vector, straight from the counts."""
    out = ""
    for suit in range(3):
        base = suit * 9
        ranks = "".join([_RANKS[r] * counts[base + r] for r in range(9) if counts[base + r]])
        if ranks:
            out += ranks + SUITS[suit]
    return out


def counts_of(tiles: Iterable[Tile]) -> list[int]:
    """The 27 counts of a tile collection."""
    counts = [0] * NUM_KINDS
    for t in tiles:
        counts[t] += 1
    return counts


def tiles_of(counts: Sequence[int]) -> list[Tile]:
    """The sorted tiles of a 27-count vector."""
    return [t for t in range(NUM_KINDS) for _ in range(counts[t])]


def full_set() -> list[Tile]:
    """All 108 tiles, sorted."""
    return [t for t in range(NUM_KINDS) for _ in range(COPIES)]
