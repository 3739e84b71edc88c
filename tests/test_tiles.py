"""Tiles and their text notation (docs/rules.md §1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xuezhan.errors import TileError, XuezhanError
from xuezhan.tiles import (
    ALL_TILES,
    NUM_KINDS,
    NUM_TILES,
    counts_of,
    format_counts,
    format_tiles,
    full_set,
    parse_tile,
    parse_tiles,
    rank_of,
    suit_index,
    suit_of,
    tile,
    tile_name,
    tiles_of,
)

# Tile ids: suit * 9 + rank - 1, suits m=0, p=1, s=2.
M1, M5, M9 = 0, 4, 8
P1, P5, P9 = 9, 13, 17
S1, S5, S9 = 18, 22, 26


def test_the_set_is_108_tiles_of_27_kinds() -> None:
    assert NUM_KINDS == 27
    assert NUM_TILES == 108
    assert len(full_set()) == 108
    assert counts_of(full_set()) == [4] * 27
    assert tuple(range(27)) == ALL_TILES


@pytest.mark.parametrize(
    ("t", "name", "rank", "suit"),
    [(M1, "1m", 1, 0), (M9, "9m", 9, 0), (P5, "5p", 5, 1), (S1, "1s", 1, 2), (S9, "9s", 9, 2)],
)
def test_tile_numbering(t: int, name: str, rank: int, suit: int) -> None:
    assert tile(rank, suit) == t
    assert tile_name(t) == name
    assert rank_of(t) == rank
    assert suit_of(t) == suit
    assert parse_tile(name) == t


@pytest.mark.parametrize(("rank", "suit"), [(0, 0), (10, 0), (1, 3), (5, -1)])
def test_tile_constructor_rejects_bad_rank_or_suit(rank: int, suit: int) -> None:
    with pytest.raises(TileError) as err:
        tile(rank, suit)
    assert err.value.code == "bad_tile"


@pytest.mark.parametrize("t", [-1, 27, 100])
def test_tile_name_rejects_out_of_range(t: int) -> None:
    with pytest.raises(TileError) as err:
        tile_name(t)
    assert err.value.code == "bad_tile"


# --- parsing -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "tiles"),
    [
        ("5m", [M5]),
        ("123m", [0, 1, 2]),
        ("123m456p789s", [0, 1, 2, 12, 13, 14, 24, 25, 26]),
        ("1m1m4p", [M1, M1, 12]),
        # Spaces anywhere are ignored.
        ("123m 456p 55s", [0, 1, 2, 12, 13, 14, S5, S5]),
        ("  9s  ", [S9]),
        ("1 2 3 m", [0, 1, 2]),
        # Parsing keeps text order; only formatting sorts.
        ("9s1m5p", [S9, M1, P5]),
        ("321m", [2, 1, 0]),
        # Chinese suffixes: 万 (m), 筒/饼 (p), 条/索 (s), and 束 (docs/rules.md §1: "also 索/束").
        ("5万", [M5]),
        ("123万456筒789条", [0, 1, 2, 12, 13, 14, 24, 25, 26]),
        ("5饼", [P5]),
        ("5索", [S5]),
        ("5束", [S5]),
        ("1万 9筒 5条", [M1, P9, S5]),
        # Letters and Chinese suffixes mixed in one string.
        ("12m3万", [0, 1, 2]),
    ],
)
def test_parse_tiles(text: str, tiles: list[int]) -> None:
    assert parse_tiles(text) == tiles


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("9s1m5p", "1m5p9s"),
        ("321m", "123m"),
        ("55s 44p 33m", "33m44p55s"),
        ("9m1m", "19m"),
        ("123万456筒789条", "123m456p789s"),
        ("5饼5索5万", "5m5p5s"),
        ("987s654p321m", "123m456p789s"),
    ],
)
def test_format_orders_m_p_s_rank_ascending(text: str, expected: str) -> None:
    assert format_tiles(parse_tiles(text)) == expected
    assert format_counts(counts_of(parse_tiles(text))) == expected


@given(st.lists(st.integers(0, 4), min_size=27, max_size=27))
def test_format_counts_is_format_tiles_of_the_counts(counts: list[int]) -> None:
    assert format_counts(counts) == format_tiles(tiles_of(counts))


def test_format_tiles_uncompact_keeps_order() -> None:
    assert format_tiles([S9, M1, P5], compact=False) == "9s1m5p"
    assert format_tiles([], compact=False) == ""
    assert format_tiles([]) == ""


def test_tiles_of_and_counts_of_are_inverse() -> None:
    tiles = parse_tiles("1123m55p999s")
    counts = counts_of(tiles)
    assert counts[M1] == 2 and counts[P5] == 2 and counts[S9] == 3 and sum(counts) == 9
    assert tiles_of(counts) == sorted(tiles)


@pytest.mark.parametrize(
    ("name", "suit"),
    [("m", 0), ("p", 1), ("s", 2), ("万", 0), ("筒", 1), ("饼", 1), ("条", 2), ("索", 2), (" s ", 2)],
)
def test_suit_index(name: str, suit: int) -> None:
    assert suit_index(name) == suit


@pytest.mark.parametrize("name", ["", "x", "z", "mp", "1m", "M"])
def test_suit_index_rejects_unknown(name: str) -> None:
    with pytest.raises(TileError) as err:
        suit_index(name)
    assert err.value.code == "bad_suit"


# --- strict errors with stable codes --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("1x", "bad_char"),
        ("12m3q", "bad_char"),
        ("1m,2m", "bad_char"),
        ("１m", "bad_char"),  # a full-width digit is not a rank
        ("1M", "bad_char"),  # suits are lower-case letters
        ("1z", "honour_tile"),
        ("123m1z", "honour_tile"),
        ("东", "honour_tile"),
        ("1m中", "honour_tile"),
        ("0m", "bad_rank"),
        ("105p", "bad_rank"),
        ("123", "missing_suit"),
        ("123m45", "missing_suit"),
        ("m", "missing_rank"),
        ("123mp", "missing_rank"),
        ("万", "missing_rank"),
        ("11111m", "too_many_copies"),
        ("1111m 1m", "too_many_copies"),
        ("5p5p5p5p5p", "too_many_copies"),
        ("5筒5饼555p", "too_many_copies"),
    ],
)
def test_parse_errors_have_stable_codes(text: str, code: str) -> None:
    with pytest.raises(TileError) as err:
        parse_tiles(text)
    assert err.value.code == code
    assert err.value.message  # a message for people
    assert isinstance(err.value, XuezhanError)
    assert isinstance(err.value, ValueError)
    assert err.value.to_json() == {"code": code, "message": err.value.message}


def test_four_copies_are_fine_five_are_not() -> None:
    assert parse_tiles("1111m") == [M1] * 4
    assert parse_tiles("11m", max_copies=2) == [M1, M1]
    with pytest.raises(TileError) as err:
        parse_tiles("111m", max_copies=2)
    assert err.value.code == "too_many_copies"


@pytest.mark.parametrize(("text", "code"), [("55m", "not_one_tile"), ("5m5p", "not_one_tile"), ("", "empty"),
                                            ("5", "missing_suit"), ("0p", "bad_rank"), ("5x", "bad_char")])
def test_parse_tile_wants_exactly_one(text: str, code: str) -> None:
    with pytest.raises(TileError) as err:
        parse_tile(text)
    assert err.value.code == code


# --- round trips (hypothesis; derandomized under the CI profile) -------------------------------------------

# A random legal tile collection: a prefix of a shuffled 108-tile set (never five copies).
hands = st.permutations(full_set()).flatmap(lambda ts: st.integers(1, 20).map(lambda n: ts[:n]))


@settings(max_examples=200, deadline=None)
@given(hands)
def test_round_trip_compact(ts: list[int]) -> None:
    text = format_tiles(ts)
    assert parse_tiles(text) == sorted(ts)
    assert format_tiles(parse_tiles(text)) == text


@settings(max_examples=200, deadline=None)
@given(hands)
def test_round_trip_uncompact_keeps_order(ts: list[int]) -> None:
    assert parse_tiles(format_tiles(ts, compact=False)) == list(ts)


@settings(max_examples=200, deadline=None)
@given(hands, st.sampled_from(["筒", "饼"]), st.sampled_from(["条", "索"]))
def test_round_trip_chinese_suffixes_and_spaces(ts: list[int], p: str, s: str) -> None:
    text = format_tiles(ts)
    chinese = text.replace("m", "万 ").replace("p", p + " ").replace("s", s + "  ")
    assert parse_tiles(chinese) == sorted(ts)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(ALL_TILES), hands)
def test_a_fifth_copy_is_always_rejected(t: int, others: list[int]) -> None:
    ts = [x for x in others if x != t] + [t] * 5
    with pytest.raises(TileError) as err:
        parse_tiles(format_tiles(ts, compact=False))
    assert err.value.code == "too_many_copies"
