"""Hand analysis by example (docs/rules.md §5, docs/interfaces.md §2.2-2.3 waits/shanten), in tile strings."""

from __future__ import annotations

import pytest

from xuezhan import hand
from xuezhan.hand import (
    SETS_ONLY,
    SETS_PAIR,
    completing_tiles,
    is_complete,
    key_counts,
    seven_pairs_shanten,
    shanten,
    standard_shanten,
    standard_splits,
    suit_distance,
    suit_keys,
    win_block,
    winning_tiles,
)
from xuezhan.tiles import counts_of, parse_tile, parse_tiles, tile_name

M, P, S = 0b001, 0b010, 0b100  # meld-suit bits


def c(text: str) -> list[int]:
    return counts_of(parse_tiles(text))


def names(tiles: list[int]) -> str:
    return " ".join(tile_name(t) for t in tiles)


def split_texts(text: str) -> set[tuple[str, ...]]:
    """The splits of a hand as sorted ``kind:tile`` strings."""
    return {tuple(sorted(f"{b.kind}:{tile_name(b.tile)}" for b in split)) for split in standard_splits(c(text))}


# --- complete hands ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tiles", "melds", "complete"),
    [
        # four sets and a pair
        ("11123455678999m", 0, True),
        ("123m456m789m123p11s", 0, True),  # the shape is complete; the three suits are win_block's business
        ("111222333m456p11s", 0, True),
        ("123m456m789m12p11p", 0, False),
        ("123m456m789m11p22s", 0, False),
        ("123m11p456s789s22s", 0, False),  # two pairs
        ("123m456m789m123p1s", 0, False),  # 13 tiles
        ("123m456m789m123p111s", 0, False),  # 15 tiles
        # regression: the set tables once added keys with carries (pung 1m + pair 1m = five 1m = the
        # key of one 2m), so keys such as 1m3m passed as "sets plus a pair"
        ("13m123p456p789p111p", 0, False),
        ("14m123p456p789p111p", 0, False),
        ("1m3m5m123p456p789p11p", 0, False),
        # melds count as sets
        ("123m55p", 3, True),
        ("55p", 4, True),
        ("5p6p", 4, False),
        ("123m456m55p", 2, True),
        ("123m456m55p", 1, False),  # 11 tile-equivalents
        ("123m456m789m55p", 1, True),
        ("123m456m789m123p55p", 1, False),  # 17 tile-equivalents
        # seven pairs; four identical tiles are two pairs
        ("1199m2288p335577s", 0, True),
        ("1111m2233p445566s", 0, True),
        ("11112222m3333p44s", 0, True),
        ("1199m2288p335578s", 0, False),
        ("1122m3344p55s", 1, False),  # no seven pairs with a meld
        ("1199m2288p3355s", 0, False),  # twelve tiles
    ],
)
def test_is_complete(tiles: str, melds: int, complete: bool) -> None:
    assert is_complete(c(tiles), melds) is complete


def test_is_complete_accepts_any_sequence() -> None:
    counts = c("11123455678999m")
    assert is_complete(tuple(counts))
    assert is_complete(bytes(counts))
    assert not is_complete([-1, *counts[1:]])


def test_set_tables_hold_only_real_shapes() -> None:
    # 1m + 3m is not sets plus a pair (the fifth-copy carry made it one)
    assert 1 + 5**2 not in SETS_PAIR
    assert 3 * 5**0 + 5**1 not in SETS_ONLY  # 111m + 2m
    assert 3 * 5**8 in SETS_ONLY and 2 * 5**8 in SETS_PAIR
    assert all(max(key_counts(k)) <= 4 and sum(key_counts(k)) % 3 == 0 for k in SETS_ONLY)
    assert all(max(key_counts(k)) <= 4 and sum(key_counts(k)) % 3 == 2 for k in SETS_PAIR)
    assert len(SETS_ONLY) == 2869 and len(SETS_PAIR) == 18874


# --- splits ---------------------------------------------------------------------------------


def test_splits_give_pungs_and_runs() -> None:
    assert split_texts("111222333m456p11s") == {
        ("pair:1s", "pung:1m", "pung:2m", "pung:3m", "run:4p"),
        ("pair:1s", "run:1m", "run:1m", "run:1m", "run:4p"),
    }


def test_splits_move_the_pair() -> None:
    assert split_texts("11223344m556677p") == {
        ("pair:1m", "run:2m", "run:2m", "run:5p", "run:5p"),
        ("pair:4m", "run:1m", "run:1m", "run:5p", "run:5p"),
    }


def test_nine_gates_with_a_five_has_one_split() -> None:
    assert split_texts("11123455678999m") == {("pair:5m", "pung:1m", "pung:9m", "run:2m", "run:6m")}


def test_split_of_the_concealed_part_only() -> None:
    assert split_texts("123m55p") == {("pair:5p", "run:1m")}


def test_splits_are_distinct() -> None:
    splits = standard_splits(c("111122223333m44p"))
    assert len(splits) == len({tuple(sorted(s)) for s in splits}) == len(split_texts("111122223333m44p"))
    assert split_texts("111122223333m44p") == {
        ("pair:4p", "pung:1m", "pung:2m", "pung:3m", "run:1m"),
        ("pair:4p", "run:1m", "run:1m", "run:1m", "run:1m"),
    }


@pytest.mark.parametrize("tiles", ["1199m2288p335577s", "123m456m789m12p11p", "123m456m789m123p1s", "1m"])
def test_no_split(tiles: str) -> None:
    assert standard_splits(c(tiles)) == []


# --- waits ------------------------------------------------------------------------------------


def test_nine_gates_waits_on_every_rank() -> None:
    assert names(winning_tiles(c("1112345678999m"))) == "1m 2m 3m 4m 5m 6m 7m 8m 9m"


def test_waits_on_both_forms() -> None:
    # seven pairs wants 7p; and 11223344m is 123m 123m 44m, so 5566p + 4p or 7p makes two runs
    assert names(winning_tiles(c("1122m3344m5566p7p"))) == "4p 7p"


def test_a_triple_waits_as_two_pairs_of_seven_pairs() -> None:
    # 111m + 1m = two pairs for seven pairs; 2m, 3p and 6p complete four sets and a pair
    assert names(winning_tiles(c("111m22m3344p5566p"))) == "1m 2m 3p 6p"


def test_two_suit_rule_removes_every_wait_of_a_three_suit_hand() -> None:
    counts = c("123m456p789s1122s")
    assert names(completing_tiles(counts)) == "1s 2s"
    assert winning_tiles(counts) == []


def test_meld_suits_count_toward_the_two_suits() -> None:
    counts = c("123m456m78m11s")  # plus a peng
    assert names(completing_tiles(counts, 1)) == "3m 6m 9m"
    assert names(winning_tiles(counts, 1, meld_suits=S)) == "3m 6m 9m"
    assert names(winning_tiles(counts, 1, meld_suits=M)) == "3m 6m 9m"
    assert winning_tiles(counts, 1, meld_suits=P) == []


def test_void_suit() -> None:
    counts = c("123456789m1122p")
    assert names(winning_tiles(counts)) == "1p 2p"
    assert winning_tiles(counts, void=1) == []  # holds a void tile: cannot hu at all
    assert names(winning_tiles(counts, void=2)) == "1p 2p"
    assert winning_tiles(c("123456789m1p"), 1, meld_suits=S, void=2) == []  # a meld in the void suit


def test_a_tile_whose_four_copies_the_seat_owns_is_not_a_wait() -> None:
    counts = c("1m234p567p888p")  # plus a peng of 1m: the single wait is the fifth 1m
    owned = list(counts)
    owned[parse_tile("1m")] += 3
    assert names(completing_tiles(counts, 1)) == "1m"
    assert names(winning_tiles(counts, 1, meld_suits=M)) == "1m"  # without ``owned`` only the hand counts
    assert winning_tiles(counts, 1, meld_suits=M, owned=owned) == []
    # four in the concealed hand: 1111m can only wait on a fifth 1m, so no wait at all
    assert completing_tiles(c("1111m234p567p888p")) == []
    assert completing_tiles(c("1111m23m456p789p")) == []


def test_owned_copies_remove_only_that_wait() -> None:
    counts = c("1112345678999m")
    owned = list(counts)
    owned[parse_tile("5m")] = 4
    assert names(winning_tiles(counts, owned=owned)) == "1m 2m 3m 4m 6m 7m 8m 9m"


def test_seven_pairs_waits() -> None:
    assert names(winning_tiles(c("1199m2288m3377p5p"))) == "5p"
    assert names(completing_tiles(c("1122m3344p5566s7s"))) == "7s"
    assert winning_tiles(c("1122m3344p5566s7s")) == []  # three suits
    assert completing_tiles(c("1199m2288m337p"), 1) == []  # seven pairs needs no melds


def test_regression_no_wait_from_carried_keys() -> None:
    # with the carrying set tables, 1m waited on 3m, 4m and 5m as well as 1m
    assert names(winning_tiles(c("1m123p456p789p111p"))) == "1m"


def test_only_13_tile_equivalents_have_waits() -> None:
    assert completing_tiles(c("123m456m7m")) == []  # 7 tiles, no melds
    assert names(completing_tiles(c("123m456m7m"), 2)) == "1m 4m 7m"
    assert completing_tiles(c("1112345678999m"), 1) == []
    assert completing_tiles(c("11123455678999m")) == []


# --- shanten ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tiles", "melds", "kwargs", "expected"),
    [
        ("11123455678999m", 0, {}, -1),
        ("1112345678999m", 0, {}, 0),
        ("123m456m789m12p11p", 0, {}, 0),  # 14 tiles, one from complete
        ("1199m2288m3377p5p", 0, {}, 0),  # seven pairs
        ("1199m2288m3377p56p", 0, {}, 0),  # seven pairs after a discard
        # the fifth copy does not count: 1111m waits on nothing
        ("1111m234p567p888p", 0, {}, 1),
        ("1111m23m456p789p", 0, {}, 1),
        # void-suit tiles are useless
        ("123456789m1122p", 0, {}, 0),
        ("123456789m1122p", 0, {"void": 1}, 4),
        ("123456789m1122p", 0, {"void": 2}, 0),
        # the target uses at most two suits, meld suits included
        ("123m456p789s1122s", 0, {}, 3),
        ("123m456p789s1122s", 0, {"two_suits": False}, 0),
        ("123s456s78s", 2, {"meld_suits": M | P}, 7),
        ("123s456s78s", 2, {"meld_suits": M | P, "two_suits": False}, 0),
        ("123s456s78s", 2, {"meld_suits": M}, 0),
        # no winning hand can be reached
        ("123p456p789p1p", 1, {"meld_suits": M, "void": 0}, 99),
        ("1p", 4, {"meld_suits": M | P | S}, 99),
        ("1p", 4, {"meld_suits": M | P | S, "two_suits": False}, 0),
        ("1p", 4, {"meld_suits": M | P | S, "two_suits": False, "void": 2}, 99),
    ],
)
def test_shanten(tiles: str, melds: int, kwargs: dict[str, int], expected: int) -> None:
    assert shanten(c(tiles), melds, **kwargs) == expected  # type: ignore[arg-type]


def test_shanten_is_the_minimum_of_both_forms() -> None:
    counts = c("1199m2288m3377p5p")
    assert seven_pairs_shanten(counts) == 0
    assert standard_shanten(counts) == 3
    assert shanten(counts) == 0
    counts = c("123m456m789m12p44s")
    assert standard_shanten(counts) == 0
    assert seven_pairs_shanten(counts) == 5
    assert shanten(counts, two_suits=False) == 0
    assert shanten(counts) == 2  # in two suits: 123m456m789m + 12p (or + 44s) is three tiles short


def test_seven_pairs_counts_four_of_a_kind_as_two_pairs() -> None:
    assert seven_pairs_shanten(c("1111m2222m3333p4p")) == 0
    assert seven_pairs_shanten(c("1111m2222m3333p44p")) == -1
    assert shanten(c("1111m2222m3333p44p")) == -1


def test_seven_pairs_only_without_melds() -> None:
    counts = c("1199m2288m33p")  # ten tiles, seven-pairs-like, one meld
    assert shanten(counts, 1) == standard_shanten(counts, 1) == 2


def test_shanten_rejects_a_negative_meld_count() -> None:
    with pytest.raises(ValueError, match="n_melds must be 0 or more, not -1"):
        shanten(c("1m"), -1)


# --- win_block ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tiles", "melds", "meld_suits", "void", "reason"),
    [
        ("123m456m789m11p123p", 0, 0, None, None),
        ("123m456m789m11p123p", 0, 0, 2, None),
        ("123m456m789m11p123p", 0, 0, 1, "void_suit_tile"),
        ("123m456m789m123p11s", 0, 0, None, "three_suits"),
        ("123m456m789m123p11s", 0, 0, 2, "void_suit_tile"),  # the void is checked first
        ("123m456m789m12p11p", 0, 0, None, "not_complete"),
        ("123m456m789m12p11s", 0, 0, None, "three_suits"),  # the suits before the shape
        ("123m456m11m", 2, S, None, None),
        ("123m456m11m", 2, P | S, None, "three_suits"),
        ("123m456m11m", 2, S, 2, "void_suit_tile"),
        ("1199m2288p335577p", 0, 0, 2, None),
        ("1199m2288p335577p", 0, 0, 1, "void_suit_tile"),
        ("1199m2288p3355p", 1, S, None, "three_suits"),
        ("1199m2288p3355p", 1, P, None, "not_complete"),
    ],
)
def test_win_block(tiles: str, melds: int, meld_suits: int, void: int | None, reason: str | None) -> None:
    assert win_block(c(tiles), melds, meld_suits, void) == reason


# --- keys and the distance table ------------------------------------------------------------------


def test_suit_keys_are_base_5() -> None:
    counts = c("1m1m9m 23p 4s4s4s4s")
    assert suit_keys(counts) == (2 + 1 * 5**8, 5**1 + 5**2, 4 * 5**3)
    assert [key_counts(k) for k in suit_keys(counts)] == [counts[0:9], counts[9:18], counts[18:27]]
    assert hand.suit_key(counts, 2) == 4 * 5**3


def test_suit_distance_examples() -> None:
    empty, k123, k1111 = 0, 1 + 5 + 25, 4
    assert [suit_distance(empty, m, p) for m in range(5) for p in range(2)] == [0, 2, 3, 5, 6, 8, 9, 11, 12, 14]
    assert suit_distance(k123, 1, 0) == 0
    assert suit_distance(k123, 1, 1) == 2
    assert suit_distance(k123, 2, 0) == 3
    assert suit_distance(k1111, 0, 1) == 0
    assert suit_distance(k1111, 1, 0) == 0
    assert suit_distance(k1111, 1, 1) == 2  # 111 + 11 would be a fifth 1: 11 + 123 or 111 + 22 instead
    assert suit_distance(k1111, 2, 0) == 2  # 111 + 123: add 2 and 3
    assert suit_distance(k1111, 2, 1) == 4  # 111 + 123 + 22
