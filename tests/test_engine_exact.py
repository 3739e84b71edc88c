"""Exact effects of kongs, claims, wins and escapes that the rule tests leave implicit: the
kong records and their events, a bugang's replacement and call transfer, the suits a meld
adds, several winners' order, blood-river winners, escapes of winners, the first winner.

Records as in tests/test_engine_rules.py (same helpers and inert hands).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_engine_rules import (
    BUGANG_HANDS,
    BUGANG_NOW,
    BUGANG_START,
    KANCHAN_5P,
    N1,
    N2,
    N3,
    READY_5P,
    THREE_WAITING,
    ZHIGANG_HANDS,
    T,
    build,
    discard,
    escape,
    gang,
    hu,
    ledger,
    pass_,
    peng,
    play,
    then,
    transfer_record,
)

from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import RIVER_OPEN, RIVER_ROBBED, RIVER_WON, Game, KongRecord, Phase
from xuezhan.ids import Reason
from xuezhan.rules import Rules
from xuezhan.scoring import Meld, MeldKind, Score, WinContext, score_win
from xuezhan.tiles import parse_tiles


def event(game: Game, kind: str) -> tuple[dict[str, Any], int | None]:
    i = next(i for i, e in enumerate(game.events) if e["type"] == kind)
    return game.events[i], game.event_owners[i]


# --- kong records and events ------------------------------------------------------------------------


def test_angang_record_and_its_face_down_event() -> None:
    game = play(transfer_record({}))  # seat 1 konges 9999p, paid 12 by each other seat
    assert game.kongs[0] == KongRecord(1, Reason.ANGANG, T("9p"), [(0, 12), (2, 12), (3, 12)], transferred=True)
    assert event(game, "angang") == ({"type": "angang", "seat": 1, "tile": T("9p")}, 1)  # only seat 1 sees it


def test_bugang_record_and_events() -> None:
    game = play(build(BUGANG_HANDS, "2m3m4m5p6m", actions=BUGANG_NOW, autoplay=False))
    assert list(game.kongs) == [KongRecord(2, Reason.BUGANG, T("5p"), [(0, 6), (1, 6), (3, 6)])]
    assert event(game, "bugang_declared") == ({"type": "bugang_declared", "seat": 2, "tile": T("5p")}, None)
    assert event(game, "bugang") == ({"type": "bugang", "seat": 2, "tile": T("5p")}, None)
    assert event(game, "peng") == ({"type": "peng", "seat": 2, "tile": T("5p"), "from": 0}, None)
    assert game.pending_bugang is None and game.tile_total() == 108


def test_zhigang_record_and_event() -> None:
    game = play(build(ZHIGANG_HANDS, "7m", actions=[discard(0, "5p"), gang(2, "5p")], autoplay=False))
    assert list(game.kongs) == [KongRecord(2, Reason.ZHIGANG, T("5p"), [(0, 12)])]
    assert event(game, "zhigang") == ({"type": "zhigang", "seat": 2, "tile": T("5p"), "from": 0}, None)


def test_a_bugang_tile_offered_to_rob_is_pending() -> None:
    hands = [N2 + "5p", N1, "123m456m789m19p55p", KANCHAN_5P]  # seat 3 waits on 5p
    game = play(build(hands, "2m3m4m5p6m", actions=BUGANG_NOW, autoplay=False))
    assert game.phase is Phase.ROB and game.pending_bugang == T("5p") and game.tile_total() == 108
    window = game.claim_window
    assert window is not None and (window.kind, window.seat, window.tile) == ("rob_kong", 2, T("5p"))
    assert window.opened_at == game.action_count  # opened by the bugang, the last action applied
    assert game.actions[-1] == Action(2, ActionType.GANG, tile=T("5p"))
    game = play(build(hands, "2m3m4m5p6m", actions=[*BUGANG_NOW, pass_(3)], autoplay=False))
    assert game.pending_bugang is None and game.phase is Phase.TURN and game.drawn == T("6m")
    # nobody robbed it: the peng is a kong now
    assert game.seat_state(2).melds == (Meld(MeldKind.GANG, T("5p")),) and game.tile_total() == 108
    assert list(game.kongs) == [KongRecord(2, Reason.BUGANG, T("5p"), [(0, 6), (1, 6), (3, 6)])]


def test_the_seats_that_may_rob_a_bugang_in_play_order_past_a_winner() -> None:
    # Seat 3 (78s) wins on the dealer's 9s and is out. The dealer (46p) and seat 1 (46p) wait on 5p; the
    # dealer draws a 5p and throws it, seat 2 pengs it, throws 9p, then draws the fourth 5p and adds
    # it: the dealer and seat 1 may rob it, in play order from seat 2, seat 3 passed over.
    hands = [KANCHAN_5P + "9s", "123m456m789m46p88p", "123m456m789m19p55p", "123s456s78s99p222p"]
    actions = [discard(0, "9s"), hu(3), discard(0, "5p"), peng(2), discard(2, "9p"), discard(0, "9m"),
               discard(1, "1s"), gang(2, "5p")]
    game = play(build(hands, "5p9m1s5p", voids="sssm", actions=actions, autoplay=False))
    assert game.phase is Phase.ROB and game.pending() == [0, 1]


def test_a_konger_waiting_on_its_own_bugang_tile_may_not_rob_it() -> None:
    # seat 2 pengs 5p and throws 7s: 123m 456m 99m 46p waits on 5p; it draws the fourth and adds it
    # to its peng instead of winning: nobody else may rob it, so the kong is made at once
    hands = [N2 + "5p", N1, "55p123m456m99m46p7s", N3]
    actions = [discard(0, "5p"), peng(2), discard(2, "7s"), discard(3, "2m"), discard(0, "3m"), discard(1, "4m")]
    rec = build(hands, "2m3m4m5p6m", voids="mmsm", actions=actions, autoplay=False)
    assert Action(2, ActionType.HU) in play(rec).legal_actions(2)
    game = play(then(rec, gang(2, "5p")))
    assert (game.phase, game.turn, game.drawn) == (Phase.TURN, 2, T("6m"))
    assert [m.kind.value for m in game.seat_state(2).melds] == ["gang"]


@pytest.mark.parametrize(("scope", "robbing"), [("any_tile", False), ("same_tile", True)])
def test_a_win_passed_up_blocks_robbing_a_bugang_until_the_next_draw(scope: str, robbing: bool) -> None:
    # The dealer (67p) waits on 5p or 8p. Seat 1 throws a 5p, seat 2 pengs it and throws 9p; seat 1
    # throws 8p and the dealer passes it up; seat 2 then draws the fourth 5p and adds it. With
    # any_tile the dealer may not rob it before its own next draw; with same_tile only 8p is barred.
    hands = ["123m456m789m67p11p9s", N1, "123m456m789m19p55p", N3]
    actions = [discard(0, "9s"), discard(1, "5p"), peng(2), discard(2, "9p"), discard(3, "1m"), discard(0, "2m"),
               discard(1, "8p"), pass_(0), gang(2, "5p")]
    game = play(build(hands, "5p1m2m8p5p", options={"pass_hu_scope": scope}, voids="smsm", actions=actions,
                      autoplay=False))
    assert (game.phase, game.pending()) == ((Phase.ROB, [0]) if robbing else (Phase.TURN, [2]))


# --- a bugang's replacement: 杠上花, and 杠上炮 with call transfer -------------------------------------------


def test_bugang_replacement_self_drawn_is_gang_shang_hua() -> None:
    # seat 2 (123m 456m 789m 1p after throwing 9p) draws 1p as its bugang's replacement:
    # ping_hu 1 + gen 1 + gang_shang_hua 1 = 3 fan x4 x6 = 24, + 6 from each
    game = play(build(BUGANG_HANDS, "2m3m4m5p1p", actions=[*BUGANG_NOW, hu(2)], autoplay=False))
    bugang = [(0, 2, 6, "bugang"), (1, 2, 6, "bugang"), (3, 2, 6, "bugang")]
    assert ledger(game) == [*bugang, (0, 2, 30, "zimo"), (1, 2, 30, "zimo"), (3, 2, 30, "zimo")]
    assert game.winners[0].score.extras_dict == {"gen": 1, "gang_shang_hua": 1}


def test_call_transfer_of_a_bugang() -> None:
    # seat 3 (45m 99m, waits 3m/6m) wins on the replacement 6m that seat 2 throws: ping_hu 1 +
    # gang_shang_pao 1 = 2 fan x2 x6 = 12, and the 18 the bugang earned
    hands = [N2 + "5p", N1, "123m456m789m19p55p", "123s456s789s45m99m"]
    game = play(build(hands, "2m3m4m5p6m", actions=[*BUGANG_NOW, discard(2, "6m"), hu(3)], autoplay=False))
    bugang = [(0, 2, 6, "bugang"), (1, 2, 6, "bugang"), (3, 2, 6, "bugang")]
    assert ledger(game) == [*bugang, (2, 3, 12, "hu"), (2, 3, 18, "call_transfer")]
    assert game.kongs[0].transferred


# --- the suits a meld adds ----------------------------------------------------------------------------------

N1_NO_1P = "459p1133567789s"  # N1 with its 1p swapped for 5p


@pytest.mark.parametrize(
    ("hands", "actions"),
    [
        ([N2 + "1p", N1_NO_1P, "11p123m456m789m37s", N3], [discard(0, "1p"), peng(2), discard(2, "7s")]),
        ([N2 + "1p", N1_NO_1P, "111p123m456m789m3s", N3], [discard(0, "1p"), gang(2, "1p"), discard(2, "7m")]),
        (["1111p123m456m789m3s", N1_NO_1P, N2, N3], [gang(0, "1p"), discard(0, "7m")]),
    ],
    ids=["peng", "zhigang", "angang"],
)
def test_a_meld_of_a_third_suit_makes_a_flower_pig(hands: list[str], actions: list[dict[str, Any]]) -> None:
    # without 定缺, three suits make the pig: m and s in the hand, p in the meld (1p: tile 9)
    game = play(build(hands, "7m", options={"dingque": False}, voids="", actions=actions, autoplay=False))
    konger = 0 if len(actions) == 2 else 2
    assert game.seat_state(konger).melds[0].tile == T("1p")
    assert game.is_hua_zhu(konger)
    # it has thrown 7s or 7m: 123m 456m 789m 3s would wait on 3s, but not with three suits
    assert game.waits(konger) == [] and not game.is_ready(konger)


@pytest.mark.parametrize("second", ["peng", "zhigang"])
def test_a_second_meld_keeps_the_first_meld_suit(second: str) -> None:
    # no 定缺: seat 2 pengs 1p and throws 7s, then pengs (or konges) the 9m seat 3 throws: m and s
    # in its hand, p and m in its melds make three suits
    claim = peng(2) if second == "peng" else gang(2, "9m")
    actions = [discard(0, "1p"), peng(2), discard(2, "7s"), discard(3, "9m"), claim]
    game = play(build([N2 + "1p", N1_NO_1P, "11p999m123m456m37s", N3], "9m", options={"dingque": False},
                      voids="", actions=actions, autoplay=False))
    assert [m.tile for m in game.seat_state(2).melds] == [T("1p"), T("9m")]
    assert game.is_hua_zhu(2)


# --- several winners, blood river, escapes --------------------------------------------------------------------


def test_several_winners_in_play_order_from_the_discarder() -> None:
    # seat 1 throws 5p; seats 0 and 3 win, answering 0 first: paid in play order after seat 1 (3, then 0)
    hands = [KANCHAN_5P + "9s", N1, N3, READY_5P]
    rec = build(hands, "5p", voids="smms", actions=[discard(0, "9s"), discard(1, "5p"), hu(0), hu(3)],
                autoplay=False)
    game = play(rec)
    assert ledger(game) == [(1, 3, 6, "hu"), (1, 0, 6, "hu")]
    assert [w.seat for w in game.winners] == [3, 0]
    assert (game.turn, game.phase) == (1, Phase.TURN)  # the seat after the farthest winner (0)


BLOOD = build([N2 + "5p", N1, READY_5P, N3], "1m2m3m5p5p", options={"blood_river": True}, autoplay=False,
              actions=[discard(0, "5p"), hu(2), discard(3, "1m"), discard(0, "2m"), discard(1, "3m")])


def test_blood_river_winner_sets_its_self_drawn_tile_aside() -> None:
    game = play(then(BLOOD, hu(2)))
    state = game.seat_state(2)
    assert (state.wins, state.aside, state.concealed) == (2, (T("5p"),), 13)
    assert [w.order for w in game.winners] == [1, 2]


def test_a_tile_set_aside_by_a_blood_river_winner_is_face_up_for_jue_zhang() -> None:
    # Seats 1 (46p 11p) and 2 (46p 99p) wait on 5p alone, holding none. Both pass the dealer's 5p;
    # seat 1 draws the second and wins (it sets it aside); seat 3 throws the third (both pass);
    # seat 2 draws the fourth: the river's two and the one set aside are face up: 绝张.
    hands = [N2 + "5p", KANCHAN_5P, "123m456m789m46p99p", N1]
    actions = [discard(0, "5p"), pass_(1), pass_(2), hu(1), discard(2, "1m"), discard(3, "5p"), pass_(1), pass_(2),
               discard(0, "2m"), discard(1, "3m"), hu(2)]
    game = play(build(hands, "5p1m5p2m3m5p", options={"blood_river": True, "fan": {"jue_zhang": 1}}, voids="mssm",
                      actions=actions, autoplay=False))
    assert game.seat_state(1).aside == (T("5p"),)
    win = game.winners[-1]
    assert (win.seat, win.tile, win.score.extras_dict) == (2, T("5p"), {"jue_zhang": 1})
    # ping_hu 1 + jue_zhang 1 = 2 fan x2 x6 + 6, from every other seat (blood river: seat 1 too)
    assert ledger(game)[-3:] == [(0, 2, 18, "zimo"), (1, 2, 18, "zimo"), (3, 2, 18, "zimo")]


def test_a_winner_escaping_on_its_turn_hands_the_turn_on() -> None:
    game = play(then(BLOOD, escape(2)))  # qq: its win is paid back at once
    assert ledger(game) == [(0, 2, 6, "hu"), (2, 0, 6, "escape")]
    assert (game.turn, game.phase, game.drawn) == (3, Phase.TURN, T("5p"))


def test_a_winner_escaping_with_a_claim_open_closes_its_part_of_the_window() -> None:
    # seat 2 throws the 5p it drew; seat 3 throws the next 5p: seat 2 (a blood-river winner) may
    # win on it and leaves instead; the window closes and the dealer draws
    rec = then(BLOOD, discard(2, "5p"), discard(3, "5p"))
    game = play(rec)
    assert game.phase is Phase.CLAIM and game.pending() == [2]
    game = play(then(rec, escape(2)))
    assert (game.turn, game.phase) == (0, Phase.TURN)
    assert ledger(game) == [(0, 2, 6, "hu"), (2, 0, 6, "escape")]


def test_a_winner_that_passed_and_then_escapes_leaves_the_window_open_for_the_others() -> None:
    # blood river: seat 2 (23p 55p, waits 1p/4p) wins on the dealer's 1p and plays on; seat 3 throws
    # what it draws, the dealer throws 4p: seat 2 may win again and passes, seat 3 (44p) may peng;
    # seat 2 leaves before seat 3 answers: the window waits for seat 3
    rec = build([N2 + "1p", N1, "123m456m789m23p55p", "1124578m445578p"], "1m9s", options={"blood_river": True},
                autoplay=False, actions=[discard(0, "1p"), hu(2), discard(3, "1m"), discard(0, "4p"), pass_(2)])
    assert play(rec).pending() == [3]
    game = play(then(rec, escape(2)))
    assert (game.phase, game.pending()) == (Phase.CLAIM, [3])
    game = play(then(rec, escape(2), peng(3)))
    assert [m.tile for m in game.seat_state(3).melds] == [T("4p")]


def test_an_escaping_winner_forfeits_only_its_own_wins() -> None:
    rec = build(THREE_WAITING, actions=[discard(0, "5p"), hu(1), hu(2), pass_(3), escape(1)], autoplay=False)
    assert ledger(play(rec)) == [(0, 1, 6, "hu"), (0, 2, 6, "hu"), (1, 0, 6, "escape")]


def test_first_winner_deals_next_after_two_separate_wins() -> None:
    # seat 2 wins on the dealer's 5p, then seat 3 self-draws 6s: the first win was seat 2's alone
    rec = build(["2458p1367788899s", N3, READY_5P, "123m456m789m45s22s"], "6s",
                actions=[discard(0, "5p"), hu(2), hu(3)], options={"dealer_rule": "first_winner"})
    game = play(rec)
    assert [(w.seat, w.order) for w in game.winners] == [(2, 1), (3, 2)]
    assert game.next_dealer() == 2


def test_no_hai_di_on_the_discard_after_a_peng() -> None:
    # chengdu: seat 2 pengs 5p and throws 9p; seat 3 (78p, waits 6p/9p) wins on it: ping_hu x1, no 海底
    hands = [N2 + "5p", N1, "123m456m789m19p55p", "123m456m789m78p11p"]
    game = play(build(hands, rules="chengdu", actions=[*BUGANG_START[:3], hu(3)], autoplay=False))
    assert ledger(game) == [(2, 3, 1, "hu")]
    assert game.winners[0].score.extras_dict == {}


# --- a "cap" base pattern's fan ------------------------------------------------------------------------------


@pytest.mark.parametrize(("cap", "fan"), [(1, 1), (2, 2), (3, 3), (8, 4), (16, 5)])
def test_a_cap_pattern_reports_the_smallest_fan_reaching_the_cap(cap: int, fan: int) -> None:
    rules = Rules.preset("chengdu").with_options({"cap_multiple": cap})
    score = score_win(parse_tiles("123m456m789m123p55p"), [], T("5p"), WinContext(tian_hu=True), rules)
    assert isinstance(score, Score)
    assert (score.base, score.fan, score.multiple, score.points) == ("tian_hu", fan, cap, cap + 1)


def test_a_robbed_bugang_tile_is_no_longer_pending_and_a_passed_win_is_private() -> None:
    hands = [N2 + "5p", N1, "123m456m789m19p55p", KANCHAN_5P]  # seat 3 waits on 5p and passes the first
    game = play(build(hands, "2m3m4m5p6m", actions=[*BUGANG_NOW, hu(3)], autoplay=False))
    assert game.pending_bugang is None and game.tile_total() == 108
    assert game.seat_state(2).river == (T("9p"), T("5p")) and game.seat_state(2).river_state[-1] == RIVER_ROBBED
    assert event(game, "pass_hu") == ({"type": "pass_hu", "seat": 3, "tile": T("5p")}, 3)


def test_qq_seven_pairs_with_two_fours_keeps_one_gen() -> None:
    # 1111m 4444m 55m 77m 99m: qing_long_qi_dui 6 + gen 1 (one four-of-a-kind is the dragon) = 7 fan
    score = score_win(parse_tiles("11114444557799m"), [], T("9m"), WinContext(), Rules.preset("qq"))
    assert isinstance(score, Score)
    assert (score.base, score.extras_dict, score.fan) == ("qing_long_qi_dui", {"gen": 1}, 7)


@pytest.mark.parametrize(
    ("tiles", "split"),
    [
        # two splits score the same (ping_hu x1): the first one found is reported
        ("111222333m456p55p", ("55p", "111m", "222m", "333m", "456p")),
        # the pair first, then the sets in tile order, m before p before s
        ("456m789m123p456p55p", ("55p", "456m", "789m", "123p", "456p")),
    ],
)
def test_the_reported_split(tiles: str, split: tuple[str, ...]) -> None:
    score = score_win(parse_tiles(tiles), [], T("5p"), WinContext(), Rules.preset("qq"))
    assert isinstance(score, Score) and (score.base, score.split) == ("ping_hu", split)


def test_river_states_window_opening_and_the_end() -> None:
    rec = build([N2 + "5p", N1, READY_5P, N3], "1m", actions=[discard(0, "5p")], autoplay=False)
    game = play(rec)
    window = game.claim_window
    assert window is not None and window.opened_at == game.action_count == 5  # four dingque, one discard
    assert game.drawn is None  # nobody holds a drawn tile while a discard is offered
    assert game.seat_state(0).river_state == (RIVER_OPEN,)
    game = play(then(rec, hu(2), autoplay=True))
    assert game.seat_state(0).river_state[0] == RIVER_WON
    assert game.over and game.result_json()["complete"] is True
    assert all(game.seat_state(s).revealed for s in range(4))  # every hand is shown at the end


def test_an_unfinished_hand_has_no_next_dealer() -> None:
    # chengdu (first_winner): the dealer would stay if nobody won, but the hand is not over yet
    game = play(build([N2 + "5p", N1, READY_5P, N3], rules="chengdu", actions=[discard(0, "5p")], autoplay=False))
    result = game.result_json()
    assert (result["complete"], result["next_dealer"]) == (False, None)


def test_a_copy_taken_after_a_peng_plays_on_alike() -> None:
    rec = build(BUGANG_HANDS, "2m3m4m5p6m", actions=BUGANG_START[:2], autoplay=False)  # seat 2 has just penged
    game = play(rec)
    twin = game.copy()
    for g in (game, twin):
        g.apply(Action(2, ActionType.DISCARD, tile=T("9p")))
    assert (twin.turn, twin.drawn) == (game.turn, game.drawn) == (3, T("2m")) and twin.events == game.events


def test_no_wait_on_a_fifth_copy_across_a_peng() -> None:
    # seat 2 pengs 5m and throws 7s: 5m 123p 456p 789p + peng 5m would wait on a fifth 5m
    rec = build([N2 + "5m", N1, "555m123p456p789p7s", N3], "1m", voids="mmsm",
                actions=[discard(0, "5m"), peng(2), discard(2, "7s")], autoplay=False)
    game = play(rec)
    assert game.waits(2) == [] and not game.is_ready(2)


def test_an_escaping_winner_gives_back_its_call_transfer_too() -> None:
    # seat 3 wins 杠上炮 with call transfer (12 + 36 from seat 1), then leaves: qq takes both back
    game = play(then(transfer_record({}), escape(3)))
    assert ledger(game)[-4:] == [(1, 3, 12, "hu"), (1, 3, 36, "call_transfer"), (3, 1, 12, "escape"),
                                 (3, 1, 36, "escape")]


def test_an_angang_after_a_peng_keeps_both_meld_suits() -> None:
    # no 定缺: seat 2 pengs 1p (throws 9m), then draws 8s and konges 1111m: with m and s in its
    # hand, p in one meld and m in the other, it holds three suits
    hands = [N2 + "1p", N1_NO_1P, "11p11112345m9m37s", N3]
    actions = [discard(0, "1p"), peng(2), discard(2, "9m"), discard(3, "8m"), discard(0, "7m"), discard(1, "6m"),
               gang(2, "1m")]
    game = play(build(hands, "8m7m6m8s9m", options={"dingque": False}, voids="", actions=actions, autoplay=False))
    assert [m.kind.value for m in game.seat_state(2).melds] == ["peng", "angang"]
    assert game.seat_state(2).suit_sizes[1] == 0  # no p tile in the hand itself
    assert game.is_hua_zhu(2)
