"""Dice, the wall layout and the deal with 跳牌 (docs/rules.md §2).

``wall_layout`` is the 108 tiles of the 54 stacks in the order tiles are taken
around the table: the dealer's wall (14 stacks) from its right end, then the
previous seat's wall (13), the opposite's (14) and the next seat's (13); each stack
as its top tile then its bottom tile.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..errors import DealError, RecordError
from ..ids import ErrorCode
from ..tiles import COPIES, NUM_KINDS, NUM_TILES, Tile, check_copies, counts_of, format_tiles, full_set

STACKS = 54
# Stacks per wall in taking order: dealer, previous, opposite, next.
_WALL_STACKS = (14, 13, 14, 13)
_WALL_START = (0, 14, 27, 41)
# Which wall (by offset from the dealer in play order) the dice total breaks.
_BREAK_OFFSET = {5: 0, 9: 0, 2: 1, 6: 1, 10: 1, 3: 2, 7: 2, 11: 2, 4: 3, 8: 3, 12: 3}
# Offset in play order (0 dealer, 1 next, 2 opposite, 3 previous) -> wall index in taking order.
_OFFSET_TO_WALL = {0: 0, 3: 1, 2: 2, 1: 3}


_FULL_SET = tuple(full_set())


@dataclass(frozen=True, slots=True)
class Deal:
    """The start of a hand: hands by seat (the dealer's 14th tile last) and the live wall from the head."""

    hands: tuple[tuple[Tile, ...], ...]
    wall: tuple[Tile, ...]
    dice: tuple[int, int] | None = None
    wall_layout: tuple[Tile, ...] | None = None


def validate_deal(deal: Deal, dealer: int) -> None:
    """Check that ``deal`` can start a hand with ``dealer``: four hands of 13 tiles (the
    dealer's of 14), tiles 0-26 only, and hands plus wall exactly the 108 tiles.

    Raises :class:`~xuezhan.errors.DealError` (code ``bad_deal``; ``problem`` says which).
    """
    if not 0 <= dealer <= 3:
        raise DealError(ErrorCode.BAD_DEALER, f"no seat {dealer!r} to deal")
    if len(deal.hands) != 4:
        raise DealError(ErrorCode.WRONG_HAND_COUNT, f"a deal needs four hands, not {len(deal.hands)}")
    for seat, hand in enumerate(deal.hands):
        want = 14 if seat == dealer else 13
        if len(hand) != want:
            raise DealError(
                ErrorCode.WRONG_TILE_COUNT,
                f"hands[{seat}] has {len(hand)} tiles; seat {seat} needs {want} (dealer {dealer})",
            )
    tiles = [t for h in deal.hands for t in h]
    tiles += deal.wall
    if not all(isinstance(t, int) and not isinstance(t, bool) and 0 <= t < NUM_KINDS for t in tiles):
        raise DealError(ErrorCode.BAD_TILE, "a deal holds tiles 0-26 only")
    counts = counts_of(tiles)
    if len(tiles) != NUM_TILES or counts != [COPIES] * NUM_KINDS:
        bad = [t for t, c in enumerate(counts) if c != COPIES]
        raise DealError(
            ErrorCode.NOT_108_TILES,
            f"hands + wall must be exactly the 108 tiles ({len(tiles)} given); wrong count of {format_tiles(bad)}",
        )


def break_stack(dice: tuple[int, int]) -> int:
    """The index (in taking order) of the first stack taken, from the dice (docs/rules.md §2)."""
    a, b = dice
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise RecordError(ErrorCode.BAD_DICE, f"dice {dice!r} are not two numbers from 1 to 6")
    wall = _OFFSET_TO_WALL[_BREAK_OFFSET[a + b]]
    return _WALL_START[wall] + min(a, b)


def deal_from_layout(
    layout: tuple[Tile, ...] | list[Tile], dice: tuple[int, int], dealer: int, *, validate: bool = True
) -> Deal:
    """Deal from a full wall layout: three rounds of two stacks each, then 跳牌."""
    if validate:
        if len(layout) != NUM_TILES:
            raise RecordError(ErrorCode.BAD_WALL, f"the wall layout has {len(layout)} tiles, expected 108")
        check_copies(layout)
    start = break_stack(dice)
    order = [(start + i) % STACKS for i in range(STACKS)]

    def top(i: int) -> Tile:
        return layout[2 * order[i]]

    def bottom(i: int) -> Tile:
        return layout[2 * order[i] + 1]

    hands: list[list[Tile]] = [[] for _ in range(4)]
    stack = 0
    for _ in range(3):
        for k in range(4):
            seat = (dealer + k) % 4
            for _ in range(2):
                hands[seat] += [top(stack), bottom(stack)]
                stack += 1
    # 跳牌: dealer takes the top of the first and third stacks, next the bottom of the first,
    # opposite the top of the second, previous the bottom of the second.
    hands[dealer].append(top(stack))
    hands[(dealer + 1) % 4].append(bottom(stack))
    hands[(dealer + 2) % 4].append(top(stack + 1))
    hands[(dealer + 3) % 4].append(bottom(stack + 1))
    hands[dealer].append(top(stack + 2))
    wall = [bottom(stack + 2)]
    for i in range(stack + 3, STACKS):
        wall += [top(i), bottom(i)]
    return Deal(tuple(tuple(h) for h in hands), tuple(wall), dice, tuple(layout))


def random_deal(rng: random.Random, dealer: int) -> Deal:
    """Shuffle a wall, throw the dice and deal."""
    rand = rng.random
    # a uniform shuffle: sort by independent uniform keys (faster than a Python-level Fisher-Yates)
    layout = sorted(_FULL_SET, key=lambda _: rand())
    dice = (int(rand() * 6) + 1, int(rand() * 6) + 1)
    return deal_from_layout(layout, dice, dealer, validate=False)


def throw_for_dealer(rng: random.Random) -> int:
    """The first dealer by dice: counting from seat 0 in play order by the total."""
    return (rng.randint(1, 6) + rng.randint(1, 6) - 1) % 4
