"""Small exact cases for the parts of hand analysis the shape tests reach only indirectly:
the win checks on suit keys, shanten with the copies a seat owns, and the key helpers."""

from __future__ import annotations

import itertools

import pytest

from xuezhan import hand
from xuezhan.tiles import parse_tile, parse_tiles


def counts(text: str) -> list[int]:
    return hand.tiles_to_counts(parse_tiles(text)) if text else [0] * 27


def keys_and_sizes(text: str) -> tuple[tuple[int, int, int], list[int]]:
    c = counts(text)
    return hand.suit_keys(c), [sum(c[0:9]), sum(c[9:18]), sum(c[18:27])]


@pytest.mark.parametrize(
    ("tiles", "melds", "standard", "seven"),
    [
        ("123m456m789m123p55p", 0, True, False),
        ("1133557799m1199p", 0, False, True),
        ("11113355m7799p22s", 0, False, True),  # four of a kind as two of the seven pairs
        ("11223344556677m", 0, True, True),  # 123 123 456 456 77, or seven pairs
        ("123m456m789m55p", 1, True, False),  # a meld makes seven pairs impossible
        ("1133557799m11p", 1, False, False),
        ("123m456m789m123p5p6p", 0, False, False),
        ("123m456m789m12p55p", 0, False, False),
        ("124m456p789p123s55s", 0, False, False),  # a suit of three tiles that is no set
        ("11123m12223p123s", 0, False, False),  # 13 tiles: two suits hold a pair
    ],
)
def test_complete_by_suit_keys(tiles: str, melds: int, standard: bool, seven: bool) -> None:
    keys, sizes = keys_and_sizes(tiles)
    assert hand.is_standard_complete(keys, sizes) is standard
    assert hand.is_seven_pairs(keys, sizes, melds) is seven
    assert hand.is_complete(counts(tiles), melds) is (standard or seven)
    assert hand.is_complete_keys(*keys, seven_pairs=melds == 0) is (standard or seven)


def test_the_even_suit_keys_are_every_suit_of_even_counts() -> None:
    """The suits seven pairs may hold (:data:`~xuezhan.hand.ALL_EVEN_KEYS`): every count 0, 2 or 4."""
    expected = {hand.suit_key([*c, *[0] * 18], 0) for c in itertools.product((0, 2, 4), repeat=9)}
    assert expected == hand.ALL_EVEN_KEYS and len(expected) == 3**9


def test_the_defaults_hold_no_meld_and_allow_seven_pairs() -> None:
    # a hand in p and s: no meld suit is assumed (a default of m would make three suits)
    ready = counts("123p456p789p123s5s")
    assert hand.shanten(ready) == 0 and hand.winning_tiles(ready) == [parse_tile("5s")]
    assert hand.win_block(counts("123p456p789p123s55s"), 0) is None
    assert hand.is_complete_keys(*hand.suit_keys(counts("11p33p55p22s44s77s99s")))  # seven pairs only


@pytest.mark.parametrize("tiles", ["123m456m789m123p", "11m22p", "11m123m22p456s"])
def test_no_split_without_exactly_one_pair(tiles: str) -> None:
    assert hand.standard_splits(counts(tiles)) == []


def test_shanten_leaves_out_the_copies_in_melds() -> None:
    # peng of 5m plus 5m 123p 456p 789p: ready on a pair of 5m, but that would be a fifth copy
    c = counts("5m123p456p789p")
    owned = list(c)
    owned[parse_tile("5m")] += 3
    assert hand.shanten(c, 1, meld_suits=1) == 0
    assert hand.shanten(c, 1, meld_suits=1, owned=owned) == 1
    # four sets and a pair held: complete either way; one tile short of a set: ready either way
    full = counts("123m456m789m123p55p")
    assert hand.shanten(full, 0, owned=full) == -1
    short = counts("123m456m789m12p55p")
    assert hand.shanten(short, 0, owned=short) == 0 and hand.shanten(short, 0) == 0


@pytest.mark.parametrize(("tiles", "mask"), [("1m", 1), ("9p", 2), ("1s", 4), ("1m9s", 5), ("5m5p5s", 7), ("", 0)])
def test_suits_mask(tiles: str, mask: int) -> None:
    assert hand.suits_mask(counts(tiles)) == mask


def test_suit_keys_beyond_four_copies_and_key_helpers() -> None:
    c = [0] * 27
    c[0], c[8], c[9], c[26] = 5, 1, 7, 2  # counts no hand holds: computed the long way
    assert hand.suit_keys(c) == (5 + 5**8, 7, 2 * 5**8)
    assert [hand.suit_key(c, s) for s in range(3)] == list(hand.suit_keys(c))
    key = hand.suit_key(counts("1123m"), 0)
    assert hand.key_counts(key) == [2, 1, 1, 0, 0, 0, 0, 0, 0] and hand.key_size(key) == 4
    assert hand.tiles_to_counts([0, 0, 26]) == [2] + [0] * 25 + [1]


def test_a_wait_on_a_fifth_copy_is_skipped_not_the_end_of_the_waits() -> None:
    # angang 1111m + 23m 456p 789p 55p: 1m would be a fifth copy; 4m is the wait
    c = counts("23m456p789p55p")
    owned = list(c)
    owned[parse_tile("1m")] = 4
    assert hand.winning_tiles(c, 1, meld_suits=1, owned=owned) == [parse_tile("4m")]


def test_shanten_of_a_hand_that_cannot_win() -> None:
    # melds in all three suits: no winning hand at all, with or without the owned copies
    c = counts("1m2m3m4p")
    assert hand.shanten(c, 3, meld_suits=0b111) == 99
    assert hand.shanten(c, 3, meld_suits=0b111, owned=c) == 99


def test_win_block_and_completeness_edge_cases() -> None:
    # counts outside 0-255 cannot be packed as bytes: never complete, suits still read
    c = counts("123m456m789m123p55p")
    c[0] = 300
    assert hand.win_block(c, 0) == "not_complete"
    c[18] = 1
    assert hand.win_block(c, 0) == "three_suits"
    assert hand.win_block(c, 0, void=2) == "void_suit_tile"
    # the third suit broken
    assert not hand.is_complete(counts("123m456m789m55p12s"), 0)
    assert hand.win_block(counts("123m456m789m55p"), 1, meld_suits=1) is None
    assert hand.win_block(counts("123m456m789m1123s"), 0) == "not_complete"  # two suits, the second broken


@pytest.mark.parametrize(("tiles", "melds", "value"), [
    ("1133557799m1199p", 0, -1), ("1133557799m119p", 0, 0),
    # with a meld only four sets and a pair count: a pair, three pairs made pungs (3 tiles), minus one
    ("1133557799m1p", 1, 2),
])
def test_shanten_counts_seven_pairs_only_without_melds(tiles: str, melds: int, value: int) -> None:
    assert hand.shanten(counts(tiles), melds) == value


def test_shanten_over_three_suits_counts_seven_pairs_too() -> None:
    # two_suits=False (the bare shape, any number of suits): seven pairs across m, p and s
    assert hand.shanten(counts("11m22m33p44p55s66s77s"), 0, two_suits=False) == -1
    assert hand.shanten(counts("11m22m33p44p55s66s77s"), 0) > 0  # the game's rule: tiles of a suit must go


def test_capped_shanten_honours_the_two_suit_rule() -> None:
    # peng of 1m + 123p 456p 123s 45s: ready on 3s/6s over three suits. Under the game's rule one
    # suit must go: m and p keep three sets and lack a set and a pair (5 tiles): shanten 4.
    c = counts("123p456p123s45s")
    owned = list(c)
    owned[parse_tile("1m")] += 3
    assert hand.shanten(c, 1, meld_suits=1, owned=owned) == hand.shanten(c, 1, meld_suits=1) == 4
    assert hand.shanten(c, 1, meld_suits=1, owned=owned, two_suits=False) == 0


def test_capped_shanten_of_a_meld_in_the_void() -> None:
    # peng of 1s with s as the void: no winning hand, through the capped search too
    c = counts("123m456m789m5p")
    owned = list(c)
    owned[parse_tile("1s")] += 3
    assert hand.shanten(c, 1, meld_suits=4, void=2, owned=owned) == hand.shanten(c, 1, meld_suits=4, void=2) == 99


def test_capped_shanten_honours_the_void() -> None:
    # peng of 1m + 456m 789m 11s 23s: ready on 1s/4s; with s as the void the s tiles are no help.
    # The copies in the meld send shanten through the capped search, which must agree.
    c = counts("456m789m11s23s")
    owned = list(c)
    owned[parse_tile("1m")] += 3
    assert hand.shanten(c, 1, meld_suits=1, owned=owned) == 0
    assert hand.shanten(c, 1, meld_suits=1, void=2, owned=owned) == hand.shanten(c, 1, meld_suits=1, void=2) > 0
