"""docs/rules.md, "Clarifications (2026-12)": one test (or table) per point, written from its text.

Every test is a game record built with :func:`test_engine_rules.build` (hands, then a wall in
draw order filled with the tiles not placed) and replayed; the amounts are worked out by hand:
multiple = 2^(fan - 1), ``qq`` base 6, ``chengdu`` base 1. The inert hands ``N1``-``N3`` and
``M1`` never change and never win; ``READY_5P`` waits on 5p holding one, ``KANCHAN_5P`` waits on
5p holding none.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_engine_rules import (
    KANCHAN_5P,
    M1,
    N1,
    N2,
    N3,
    READY_5P,
    ZHIGANG_HANDS,
    Entry,
    T,
    build,
    discard,
    gang,
    hu,
    ledger,
    pass_,
    peng,
    play,
)

from xuezhan.engine.game import Game
from xuezhan.errors import HandError
from xuezhan.records import record_json
from xuezhan.rules import Rules
from xuezhan.scoring import Meld, MeldKind, Score, WinContext, score_win
from xuezhan.tiles import parse_tiles

# =============================================================================================
# 1. zhigang_payment = "everyone": the discarder pays 2 x base only; every active seat other than
#    the konger and the discarder pays 1 x base.
# =============================================================================================


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("qq", [(0, 2, 12, "zhigang"), (1, 2, 6, "zhigang"), (3, 2, 6, "zhigang")]),
        ("chengdu", [(0, 2, 2, "zhigang"), (1, 2, 1, "zhigang"), (3, 2, 1, "zhigang")]),
    ],
)
def test_zhigang_everyone_discarder_pays_twice_base_only(preset: str, expected: list[Entry]) -> None:
    rec = build(
        ZHIGANG_HANDS, "7m", rules=preset, options={"zhigang_payment": "everyone"},
        actions=[discard(0, "5p"), gang(2, "5p")], autoplay=False,
    )
    game = play(rec)
    assert ledger(game) == expected
    assert game.deltas()[0] == -expected[0][2]  # not 2 x base + 1 x base


def test_zhigang_everyone_a_seat_out_of_the_hand_pays_nothing() -> None:
    # Seat 1 wins on the dealer's 9m (single wait) and is out. Seats 2 and 3 throw wall tiles; the
    # dealer draws 5p and throws it; seat 2 konges it: 12 from the dealer, 6 from seat 3, none from 1.
    hands = [N2 + "9m", "123m456m789m123p9m", "555p123m456m789m1p", N3]
    rec = build(
        hands, "2m3m5p", voids="mssm", options={"zhigang_payment": "everyone"}, autoplay=False,
        actions=[discard(0, "9m"), hu(1), discard(2, "2m"), discard(3, "3m"), discard(0, "5p"), gang(2, "5p")],
    )
    assert ledger(play(rec)) == [(0, 1, 6, "hu"), (0, 2, 12, "zhigang"), (3, 2, 6, "zhigang")]


# =============================================================================================
# 2 and 8. 绝张: every other copy of the winning tile and of each other winning tile is face up;
#    the winner's concealed tiles do not count; another seat's angang counts only once its hand
#    is laid down. With jue_zhang = 1 it is an extra like the others.
# =============================================================================================

# Seat 2 waits on 3m alone (edge wait 12m, holds no 3m). The dealer throws 3m; seat 1 pengs it
# (seat 2 passes) and throws 9m. Seat 2 then draws the last 3m, or throws 5m and seat 3 draws and
# throws the last 3m: its other three copies lie in seat 1's peng.
EDGE_3M = "12m456m789m123p55p"
PENG_3M = "33689m124578p99p"


@pytest.mark.parametrize(
    ("options", "self_drawn", "expected"),
    [
        # chengdu, jue_zhang = 1: ping_hu 1 + jue_zhang 1 = 2 fan x2 (+ 1 bonus when self-drawn)
        ({"fan": {"jue_zhang": 1}}, True, [(0, 2, 3, "zimo"), (1, 2, 3, "zimo"), (3, 2, 3, "zimo")]),
        ({"fan": {"jue_zhang": 1}}, False, [(3, 2, 2, "hu")]),
        ({}, True, [(0, 2, 2, "zimo"), (1, 2, 2, "zimo"), (3, 2, 2, "zimo")]),  # 0 fan by default
        ({}, False, [(3, 2, 1, "hu")]),
    ],
)
def test_jue_zhang_last_copy_against_a_peng(options: dict[str, Any], self_drawn: bool, expected: list[Entry]) -> None:
    start = [discard(0, "3m"), peng(1), discard(1, "9m")]
    if self_drawn:
        rec = build([N2 + "3m", PENG_3M, EDGE_3M, N3], "3m", rules="chengdu", options=options, voids="mssm",
                    autoplay=False, actions=[*start, hu(2)])
    else:
        rec = build([N2 + "3m", PENG_3M, EDGE_3M, N3], "5m3m", rules="chengdu", options=options, voids="mssm",
                    autoplay=False, actions=[*start, discard(2, "5m"), discard(3, "3m"), hu(2)])
    game = play(rec)
    assert ledger(game) == expected
    assert game.winners[0].score.extras_dict == ({"jue_zhang": 1} if options else {})


def test_jue_zhang_never_with_a_winning_tile_in_the_concealed_hand() -> None:
    # Seat 2 waits on 5p alone holding one (单钓). It passes the dealer's 5p, seat 1 throws the
    # second, seat 3 the third and seat 2 wins on it: the fourth copy is in its own concealed
    # hand, which does not count: no 绝张, even with jue_zhang = 1 (ping_hu x1 x6).
    rec = build(
        [N2 + "5p", N1, READY_5P, N3], "5p9m5p", options={"fan": {"jue_zhang": 1}}, autoplay=False,
        actions=[discard(0, "5p"), pass_(2), discard(1, "5p"), discard(2, "9m"), discard(3, "5p"), hu(2)],
    )
    game = play(rec)
    assert ledger(game) == [(3, 2, 6, "hu")]
    assert game.winners[0].score.extras_dict == {}


# Seat 2 waits on 2s or 5s (34s). The dealer throws 2s, seat 1 pengs (seat 2 passes) and throws
# 9s; seat 2 draws and throws 5m; seat 3 draws 5s and throws it, seat 1 pengs it and throws 7s;
# seat 2 throws the second 5m; seat 3 draws the fourth 2s and throws it (or throws 7m and the 2s
# stays in the wall); the dealer, seat 1 and seat 2 throw 6s, 8s, 6s; seat 3 throws the last 5s.
TWO_WAITS = "34678s333p66p999p"
TWO_PAIRS = "336699m1225579s"


@pytest.mark.parametrize(("fourth_2s_seen", "extras", "points"), [(True, {"jue_zhang": 1}, 12), (False, {}, 6)])
def test_jue_zhang_needs_every_copy_of_every_wait(fourth_2s_seen: bool, extras: dict[str, int], points: int) -> None:
    wall = "5m5s5m" + ("2s" if fourth_2s_seen else "7m") + "6s8s6s5s"
    actions = [
        discard(0, "2s"), peng(1), discard(1, "9s"), discard(2, "5m"), discard(3, "5s"), peng(1), discard(1, "7s"),
        discard(2, "5m"), discard(3, "2s" if fourth_2s_seen else "7m"), discard(0, "6s"), discard(1, "8s"),
        discard(2, "6s"), discard(3, "5s"), hu(2),
    ]
    rec = build([M1 + "2s", TWO_PAIRS, TWO_WAITS, M1], wall, voids="spms", options={"fan": {"jue_zhang": 1}},
                autoplay=False, actions=actions)
    game = play(rec)
    assert ledger(game)[-1] == (3, 2, points, "hu")  # ping_hu 1 (+ jue_zhang 1)
    assert game.winners[0].score.extras_dict == extras


# Seat 2 again waits on 2s or 5s; all four 2s are in seat 1's concealed kong. The dealer throws
# 5s, seat 3 pengs it and throws 1s; the dealer throws 8p; seat 1 draws 9s and konges 2222s, then
# either wins on its replacement 9s (杠上花: its hand, kong included, is laid down) or throws the
# replacement 7s and plays on; seat 2 draws the last 5s.
PENG_5S = "336699m1557889s"
ANGANG_2S = "2222s123m456m789m"


@pytest.mark.parametrize(("laid_down", "extras", "points"), [(True, {"jue_zhang": 1}, 18), (False, {}, 12)])
def test_jue_zhang_counts_an_angang_once_laid_down(laid_down: bool, extras: dict[str, int], points: int) -> None:
    start = [discard(0, "5s"), peng(3), discard(3, "1s"), discard(0, "8p"), gang(1, "2s")]
    rest = [hu(1), hu(2)] if laid_down else [discard(1, "7s"), hu(2)]
    rec = build([M1 + "5s", ANGANG_2S, TWO_WAITS, PENG_5S], "8p9s" + ("9s" if laid_down else "7s") + "5s",
                voids="spmp", options={"fan": {"jue_zhang": 1}}, autoplay=False, actions=[*start, *rest])
    game = play(rec)
    win = game.winners[-1]
    assert (win.seat, win.from_seat, win.tile) == (2, None, T("5s"))
    assert win.score.extras_dict == extras
    # self-drawn: ping_hu 1 (+ jue_zhang 1) x6 + 6 from every seat still in the hand
    payers = [0, 3] if laid_down else [0, 1, 3]
    assert ledger(game)[-len(payers):] == [(p, 2, points, "zimo") for p in payers]


@pytest.mark.parametrize(("preset", "points", "extras"), [
    ("chengdu", 4, {"qiang_gang_hu": 1, "jue_zhang": 1}),  # ping_hu 1 + 1 + 1 = 3 fan x4
    ("qq", 12, {"jue_zhang": 1}),  # ping_hu 1 + jue_zhang 1 = 2 fan x2 x6
])
def test_jue_zhang_on_a_robbed_kong_tile(preset: str, points: int, extras: dict[str, int]) -> None:
    # Seat 2 pengs the dealer's 5p and adds the fourth, drawn; seat 3 (kanchan 46p, no 5p held) robs
    # it: the other three copies lie in the peng.
    hands = [N2 + "5p", N1, "123m456m789m19p55p", KANCHAN_5P]
    actions = [discard(0, "5p"), peng(2), discard(2, "9p"), discard(3, "2m"), discard(0, "3m"), discard(1, "4m"),
               gang(2, "5p"), hu(3)]
    game = play(build(hands, "2m3m4m5p6m", rules=preset, options={"fan": {"jue_zhang": 1}}, actions=actions,
                      autoplay=False))
    assert ledger(game) == [(2, 3, points, "hu")]
    assert game.winners[0].score.extras_dict == extras


# Seat 2 pengs the dealer's 1m and throws 7s. Seats 3, 0 and 1 draw and throw 4m (seat 2 passes the
# first); seat 2 draws the last 4m, or draws and throws 9m and seat 3 throws the last 4m.
# - 1m 2233 555m 11p + peng 111m: 1m would complete it (123 123 555m 11p) but the seat owns all four
#   1m (docs/rules.md §5: no wait at all); it waits on 4m alone (123 234m), holding none: 绝张.
# - 23m 555m 789m 11p + peng 111m: it waits on 1m or 4m, and the fourth 1m is still in the wall: no 绝张.
PENG_1M_READY = "1112233555m11p7s"
PENG_1M_TWO_WAITS = "11m23m555m789m11p7s"


@pytest.mark.parametrize(("hand", "self_drawn", "expected", "extras"), [
    # ping_hu 1 + gen 1 (1111m) + jue_zhang 1 = 3 fan x4 x6 = 24 (+ 6 bonus from each payer)
    (PENG_1M_READY, True, [(0, 2, 30, "zimo"), (1, 2, 30, "zimo"), (3, 2, 30, "zimo")], {"gen": 1, "jue_zhang": 1}),
    (PENG_1M_READY, False, [(3, 2, 24, "hu")], {"gen": 1, "jue_zhang": 1}),
    # ping_hu x1 x6 + 6
    (PENG_1M_TWO_WAITS, True, [(0, 2, 12, "zimo"), (1, 2, 12, "zimo"), (3, 2, 12, "zimo")], {}),
])
def test_jue_zhang_of_a_seat_with_a_peng_counts_the_waits_its_meld_leaves(
    hand: str, self_drawn: bool, expected: list[Entry], extras: dict[str, int]
) -> None:
    start = [discard(0, "1m"), peng(2), discard(2, "7s"), discard(3, "4m"), discard(0, "4m"), discard(1, "4m")]
    rest = [hu(2)] if self_drawn else [discard(2, "9m"), discard(3, "4m"), hu(2)]
    rec = build([N2 + "1m", N1, hand, N3], "4m4m4m" + ("4m" if self_drawn else "9m4m"), voids="mmsm",
                options={"fan": {"jue_zhang": 1}}, autoplay=False, actions=[*start, *rest])
    game = play(rec)
    assert ledger(game) == expected
    assert game.winners[0].score.extras_dict == extras


# =============================================================================================
# 3. Dead waits: tiles in a winner's laid-down hand are face up and count; tiles in a hand still
#    playing, or in its face-down angang, do not. (Only with dead_wait_counts = false does a dead
#    wait make a difference: it is then not ready.)
# =============================================================================================

HOLDS_5P = "123m456m789m345p9p"  # waits 9p alone; one of its sets holds a 5p


def _cha_jiao_to(game: Game, seat: int) -> list[Entry]:
    return [e for e in ledger(game) if e[3] == "cha_jiao" and e[1] == seat]


@pytest.mark.parametrize(("counts", "winner_holds_it", "payers"), [
    (False, True, []),  # the fourth 5p lies in seat 1's laid-down hand: a dead wait, not ready
    # seat 1 is still playing: its 5p is not face up (seat 1's own wait, 9p, ends dead: it pays too)
    (False, False, [0, 1, 3]),
    (True, True, [0, 3]),  # dead_wait_counts = true: a dead wait is ready
])
def test_dead_wait_and_a_winners_laid_down_hand(counts: bool, winner_holds_it: bool, payers: list[int]) -> None:
    # Seat 2 waits on 5p holding one; the dealer throws a 5p (seat 2 passes), seat 1 draws 9p and
    # wins on it (or throws it); seat 2 throws 1s; seat 3 draws and throws the third 5p; the fourth
    # is in seat 1's hand. Autoplay runs the wall out.
    first = [hu(1)] if winner_holds_it else [discard(1, "9p")]
    rec = build([N2 + "5p", HOLDS_5P, READY_5P, N3], "9p1s5p", options={"dead_wait_counts": counts},
                actions=[discard(0, "5p"), *first, discard(2, "1s"), discard(3, "5p")])
    game = play(rec)
    # ping_hu x1 x6 from each seat neither ready nor out
    assert _cha_jiao_to(game, 2) == [(p, 2, 6, "cha_jiao") for p in payers]


ANGANG_5P = "5555p367p234679s"  # seat 3: a concealed four of 5p, otherwise far from ready


def test_dead_wait_not_from_a_face_down_angang() -> None:
    # Seat 2 waits on 5p holding none; seat 3 draws 8s, konges all four 5p face down, throws its
    # replacement 7m and plays on to the end.
    # Not a dead wait: seat 2 is ready with dead_wait_counts = false and takes its 大叫 (x1 x6).
    rec = build(
        [N2 + "1m", N1, KANCHAN_5P, ANGANG_5P], "2m3m8s7m", voids="mmsm", options={"dead_wait_counts": False},
        actions=[discard(0, "1m"), discard(1, "2m"), discard(2, "3m"), gang(3, "5p"), discard(3, "7m")],
    )
    game = play(rec)
    assert ledger(game)[:3] == [(0, 3, 12, "angang"), (1, 3, 12, "angang"), (2, 3, 12, "angang")]
    assert _cha_jiao_to(game, 2) == [(0, 2, 6, "cha_jiao"), (1, 2, 6, "cha_jiao"), (3, 2, 6, "cha_jiao")]


# =============================================================================================
# 4. Chained kongs: only a win on the zhigang's own replacement is 点杠花 (a later angang or
#    bugang makes it a plain 杠上花); call transfer passes every kong of the turn.
# =============================================================================================

# Seat 2 konges the dealer's 5p (zhigang, 12 from the dealer), draws 9p, konges 1111m (angang, 12
# from each) and draws its replacement.
CHAIN = "555p1111m456m789m"
CHAIN_KONGS = [(0, 2, 12, "zhigang"), (0, 2, 12, "angang"), (1, 2, 12, "angang"), (3, 2, 12, "angang")]


@pytest.mark.parametrize("mode", ["self_draw", "discard"])
def test_win_after_zhigang_then_angang_is_a_plain_gang_shang_hua(mode: str) -> None:
    # 456m 789m 99p + 5555p + 1111m: ping_hu 1 + gen 2 + gang_shang_hua 1 = 4 fan x8 x6 = 48, + 6
    # from every other seat in either mode.
    rec = build([N2 + "5p", N1, CHAIN, N3], "9p9p", options={"dian_gang_hua": mode}, autoplay=False,
                actions=[discard(0, "5p"), gang(2, "5p"), gang(2, "1m"), hu(2)])
    game = play(rec)
    assert ledger(game) == [*CHAIN_KONGS, (0, 2, 54, "zimo"), (1, 2, 54, "zimo"), (3, 2, 54, "zimo")]
    (win,) = game.winners
    assert win.from_seat is None and win.score.extras_dict == {"gen": 2, "gang_shang_hua": 1}


def test_call_transfer_passes_every_kong_of_the_turn() -> None:
    # After both kongs seat 2 throws its replacement 8p; seat 3 (kanchan 79p) wins on it: ping_hu 1
    # + gang_shang_pao 1 = 2 fan x2 x6 = 12, and the 12 + 36 both kongs earned pass to it.
    rec = build([N2 + "5p", N1, CHAIN, "123s456s789s33p79p"], "9p8p", autoplay=False,
                actions=[discard(0, "5p"), gang(2, "5p"), gang(2, "1m"), discard(2, "8p"), hu(3)])
    game = play(rec)
    assert ledger(game) == [*CHAIN_KONGS, (2, 3, 12, "hu"), (2, 3, 48, "call_transfer")]
    assert game.deltas() == [-24, -12, -12, 48]


# =============================================================================================
# 5. Tail draws: the last tile of the record's live wall first, then the one before it.
# =============================================================================================


def test_bystanders_take_from_the_tail_last_tile_first() -> None:
    # docs/rules.md §2's example: a wall ending ... 3m 7s 2p 9m gives 9m, 2p, 7s, 3m from the tail.
    rec = build([N2 + "5p", N1, READY_5P, N3], tail="3m7s2p9m", autoplay=False)
    rec["bystanders"] = 4
    game = play(rec)
    assert game.bystander_tiles == (T("9m"), T("2p"), T("7s"), T("3m"))
    assert game.live == 51


def test_a_kong_from_the_tail_after_the_bystanders() -> None:
    # Two bystanders take 2p then 4p; the dealer's kong replacement from the tail is then 3p.
    rec = build(["1111m258m369m147p8p", N1, N2, N3], "6p", tail="3p4p2p",
                options={"kong_draw_from_tail": True}, actions=[gang(0, "1m")], autoplay=False)
    rec["bystanders"] = 2
    game = play(rec)
    assert game.bystander_tiles == (T("2p"), T("4p"))
    assert (game.turn, game.drawn) == (0, T("3p"))
    assert game.live_wall == tuple(parse_tiles(rec["wall"])[:-3])


# =============================================================================================
# 6. winners[].points: what each payer paid for the win; 点杠花 under "discard" has no self-draw
#    bonus of either kind (24, not 30).
# =============================================================================================


@pytest.mark.parametrize(
    ("options", "entries", "points", "extras"),
    [
        # 5555p + 123m 456m 789m 11p: ping_hu 1 + gen 1 + gang_shang_hua 1 = 3 fan x4 x6 = 24 (+ 6 each)
        ({"dian_gang_hua": "self_draw"}, [(0, 2, 30, "zimo"), (1, 2, 30, "zimo"), (3, 2, 30, "zimo")], 30,
         {"gen": 1, "gang_shang_hua": 1}),
        ({"dian_gang_hua": "discard"}, [(0, 2, 24, "hu")], 24, {"gen": 1, "gang_shang_hua": 1}),
        # "fan" mode: a self-drawn win takes zi_mo_jia_fan (4 fan x8 x6 = 48 each); 点杠花 paid as a
        # discard does not (3 fan, 24)
        ({"dian_gang_hua": "self_draw", "self_draw_bonus": "fan"},
         [(0, 2, 48, "zimo"), (1, 2, 48, "zimo"), (3, 2, 48, "zimo")], 48,
         {"gen": 1, "gang_shang_hua": 1, "zi_mo_jia_fan": 1}),
        ({"dian_gang_hua": "discard", "self_draw_bonus": "fan"}, [(0, 2, 24, "hu")], 24,
         {"gen": 1, "gang_shang_hua": 1}),
    ],
)
def test_dian_gang_hua_points_are_what_each_payer_paid(
    options: dict[str, Any], entries: list[Entry], points: int, extras: dict[str, int]
) -> None:
    rec = build(ZHIGANG_HANDS, "1p", options=options, actions=[discard(0, "5p"), gang(2, "5p"), hu(2)],
                autoplay=False)
    game = play(rec)
    assert ledger(game) == [(0, 2, 12, "zhigang"), *entries]
    (win,) = record_json(game)["result"]["winners"]
    assert (win["from"], win["points"], win["extras"]) == (None, points, extras)
    hu_event = next(e for e in game.events if e["type"] == "hu")
    assert hu_event["extras"] == extras


def test_winners_points_leave_out_call_transfer() -> None:
    rec = build([N2 + "5p", N1, CHAIN, "123s456s789s33p79p"], "9p8p", autoplay=False,
                actions=[discard(0, "5p"), gang(2, "5p"), gang(2, "1m"), discard(2, "8p"), hu(3)])
    (win,) = record_json(play(rec))["result"]["winners"]
    assert (win["seat"], win["from"], win["points"]) == (3, 2, 12)


# =============================================================================================
# 7. dead_wait_counts = false with cha_jiao_pays = "min": the option only makes a dead wait not
#    ready; the amount is taken over all waits.
# =============================================================================================

# Seat 2: 123m 789m 123p 78p 99p waits 6p (ping_hu x1) or 9p (dai_yao_jiu 3 fan x4). The dealer
# throws 6p and the other three 6p are drawn and thrown at once: all four 6p are face up. The
# fourth 9p stays in seat 1's hand (still playing): not a dead wait.
SIX_NINE = "123m789m123p78p99p"


@pytest.mark.parametrize(
    ("counts", "pays", "points"),
    [(False, "min", 6), (False, "max", 24), (True, "min", 6), (True, "max", 24)],
)
def test_cha_jiao_amount_over_all_waits(counts: bool, pays: str, points: int) -> None:
    rec = build([N2 + "6p", N1, SIX_NINE, M1], "6p1s6p6p", voids="mmss",
                options={"dead_wait_counts": counts, "cha_jiao_pays": pays}, actions=[discard(0, "6p")])
    game = play(rec)
    assert _cha_jiao_to(game, 2) == [(0, 2, points, "cha_jiao"), (1, 2, points, "cha_jiao"),
                                     (3, 2, points, "cha_jiao")]


# The same in the scoring API: a 点杠花 paid as a discard (WinContext.paid_as_discard) scores
# without the self-draw bonus of either kind, and only a self-drawn win on a kong's replacement can be.
DIAN_GANG_HUA = ("123m456m789m11p", "1p")  # with an exposed kong of 5p


@pytest.mark.parametrize(
    ("bonus", "paid_as_discard", "fan", "points", "extras"),
    [
        ("base", False, 3, 30, {"gen": 1, "gang_shang_hua": 1}),
        ("base", True, 3, 24, {"gen": 1, "gang_shang_hua": 1}),
        ("fan", False, 4, 48, {"gen": 1, "gang_shang_hua": 1, "zi_mo_jia_fan": 1}),
        ("fan", True, 3, 24, {"gen": 1, "gang_shang_hua": 1}),
        ("none", True, 3, 24, {"gen": 1, "gang_shang_hua": 1}),
    ],
)
def test_score_win_paid_as_discard(
    bonus: str, paid_as_discard: bool, fan: int, points: int, extras: dict[str, int]
) -> None:
    rules = Rules.preset("qq").with_options({"self_draw_bonus": bonus})
    ctx = WinContext(self_drawn=True, after_kong=True, paid_as_discard=paid_as_discard)
    score = score_win(parse_tiles(DIAN_GANG_HUA[0]), [Meld(MeldKind.GANG, T("5p"))], T(DIAN_GANG_HUA[1]), ctx, rules)
    assert isinstance(score, Score)
    assert (score.fan, score.hand_points, score.points, score.extras_dict) == (fan, 6 * 2 ** (fan - 1), points, extras)


@pytest.mark.parametrize("ctx", [
    WinContext(paid_as_discard=True),  # a discard win
    WinContext(self_drawn=True, paid_as_discard=True),  # not on a kong's replacement
])
def test_paid_as_discard_is_only_for_dian_gang_hua(ctx: WinContext) -> None:
    with pytest.raises(HandError) as info:
        score_win(parse_tiles(DIAN_GANG_HUA[0]), [Meld(MeldKind.GANG, T("5p"))], T(DIAN_GANG_HUA[1]), ctx,
                  Rules.preset("qq"))
    assert info.value.code == "conflicting_context" and "点杠花" in info.value.message
