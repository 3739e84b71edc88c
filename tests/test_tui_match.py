"""The match controller and the wording of the terminal UI, without a screen.

:class:`xuezhan.tui.TerminalTable` holds the human's seat and the bots on the match runtime; the human
(seat 0) is played here by the record's ``tsumogiri`` rule. ``words`` turns events and
ledger entries into the sentences the settlement shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xuezhan.engine.actions import Action, ActionType, LedgerEntry
from xuezhan.engine.game import Game, Phase, WinRecord
from xuezhan.engine.views import visible_events
from xuezhan.errors import IllegalActionError, XuezhanError
from xuezhan.explain import explain_hand
from xuezhan.ids import EventKind, Reason
from xuezhan.records import load_record, parse_record, replay, tsumogiri
from xuezhan.rules import Rules
from xuezhan.scoring import Score, WinContext, score_win
from xuezhan.tiles import parse_tile, parse_tiles
from xuezhan.tui import HUMAN, TerminalTable, check_record_dir
from xuezhan.tui.panels import whose_turn
from xuezhan.tui.words import event_words, payments, tile_label, win_amounts

HANDS = ["12345678m15599p", "456789m445566s7s", "1122m3399m6688s9s", "22334466p11223s5p"]


def known_game() -> Game:
    head = parse_tiles("9m")
    used = [0] * 27
    for t in [t for h in HANDS for t in parse_tiles(h)] + head:
        used[t] += 1
    rest = [t for t in range(27) for _ in range(4 - used[t])]
    wall = "".join(f"{t % 9 + 1}{'mps'[t // 9]}" for t in head + rest)
    return parse_record({"rules": "qq", "dealer": 3, "hands": HANDS, "wall": wall}).new_game()


def play_match(match: TerminalTable) -> list[tuple[int, tuple[int, ...], tuple[int, ...]]]:
    """Play every hand of ``match`` (the human by tsumogiri); (dealer, deal of seat 0, deltas) per hand."""
    out = []
    while not match.match_over:
        game = match.start_hand()
        deal = tuple(game.deal.hands[HUMAN])
        while not game.over:
            match.run_bots()
            if game.over:
                break
            assert match.human_pending() and match.bot_to_act() is None
            match.play(tsumogiri(game, HUMAN))
        result = match.finish_hand()
        assert match.finish_hand() is result  # counted once
        out.append((result.dealer, deal, result.deltas))
    return out


def test_same_seed_same_match() -> None:
    a = play_match(TerminalTable(Rules.preset("qq"), hands=3, seed=21))
    b = play_match(TerminalTable(Rules.preset("qq"), hands=3, seed=21))
    c = play_match(TerminalTable(Rules.preset("qq"), hands=3, seed=22))
    assert a == b
    assert [h[1] for h in a] != [h[1] for h in c]


def test_running_totals_and_the_dealer_by_the_rules() -> None:
    match = TerminalTable(Rules.preset("chengdu"), hands=4, seed=8)
    hands = play_match(match)
    totals = [0, 0, 0, 0]
    for r in match.results:
        totals = [t + d for t, d in zip(totals, r.deltas, strict=True)]
        assert list(r.totals) == totals
    assert match.totals == totals and sum(totals) == 0
    # chengdu: dealer_rule first_winner, never dice (no one leaves)
    for before, after in zip(match.results, match.results[1:], strict=False):
        assert before.next_dealer is not None
        assert after.dealer == before.next_dealer
    assert len(hands) == 4
    assert match.standings()[0] == max(range(4), key=lambda s: (match.totals[s], -s))


def test_dice_dealer_comes_from_the_seeded_rng() -> None:
    match = TerminalTable(Rules.preset("qq"), hands=4, seed=2)
    play_match(match)
    assert all(r.next_dealer is None for r in match.results)
    again = TerminalTable(Rules.preset("qq"), hands=4, seed=2)
    play_match(again)
    assert [r.dealer for r in match.results] == [r.dealer for r in again.results]


def test_bots_wait_for_the_human_and_illegal_actions_change_nothing() -> None:
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=0)
    game = match.start_hand(known_game())
    match.run_bots()
    assert game.phase is Phase.DINGQUE and game.pending() == [HUMAN]
    before = (json.dumps(match.view().to_json()), len(game.actions))
    for bad in (Action(HUMAN, ActionType.DINGQUE, suit=0), Action(HUMAN, ActionType.DISCARD, tile=0),
                Action(HUMAN, ActionType.PENG)):
        with pytest.raises(IllegalActionError):
            match.play(bad)
    with pytest.raises(IllegalActionError, match="you play seat 0"):
        match.play(Action(2, ActionType.PASS))
    assert (json.dumps(match.view().to_json()), len(game.actions)) == before
    match.play(Action(HUMAN, ActionType.DINGQUE, suit=2))
    match.run_bots()
    # the dealer (a heuristic bot) has thrown; whatever it threw, the bots now wait for seat 0
    assert match.bot_to_act() is None and match.human_pending()


def test_bad_match_settings() -> None:
    with pytest.raises(XuezhanError, match="--hands must be at least 1"):
        TerminalTable(Rules.preset("qq"), hands=0)
    with pytest.raises(XuezhanError, match="unknown bot"):
        TerminalTable(Rules.preset("qq"), bot="oracle")
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=1)
    with pytest.raises(RuntimeError):
        _ = match.game
    match.start_hand()
    with pytest.raises(RuntimeError):
        match.start_hand()  # the hand in play is not finished
    with pytest.raises(RuntimeError):
        match.finish_hand()


def test_records_are_saved_and_replay(tmp_path: Path) -> None:
    match = TerminalTable(Rules.preset("qq"), hands=2, seed=4, record_dir=check_record_dir(tmp_path / "r"))
    play_match(match)
    paths = [r.record_path for r in match.results]
    assert all(p is not None and p.exists() for p in paths)
    for r in match.results:
        assert r.record_path is not None
        game, complete = replay(load_record(r.record_path))
        assert complete and tuple(game.deltas()) == r.deltas and game.dealer == r.dealer


def test_check_record_dir_refuses_a_file(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("", encoding="utf-8")
    with pytest.raises(XuezhanError) as err:
        check_record_dir(f)
    assert err.value.code == "unwritable"


# --- words ----------------------------------------------------------------------------------------------


def test_tile_labels() -> None:
    assert [tile_label(parse_tile(t)) for t in ("1m", "5p", "9s")] == ["1万", "5筒", "9条"]
    assert [tile_label(parse_tile(t), glyphs=True) for t in ("1m", "9m", "1p", "9p", "1s", "9s")] == \
        ["🀇", "🀏", "🀙", "🀡", "🀐", "🀘"]


def test_private_events_of_other_seats_are_not_told() -> None:
    game = known_game()
    words = [event_words(ev, HUMAN) for ev in visible_events(game, HUMAN)]
    assert words[0] == "new hand: seat 3 deals"
    assert all(w is None for w in words[1:])  # the four deals: secret (and ours is on screen)
    draw = {"type": "draw", "seat": 2, "tile": 4, "replacement": False}
    assert event_words({"type": "draw", "seat": 2, "replacement": False}, HUMAN) is None  # as the view gives it
    assert event_words(draw, HUMAN) is None
    assert event_words(draw, None, reveal=True) == "seat 2 drew 5万"
    assert event_words({"type": "draw", "seat": 0, "tile": 4, "replacement": True}, HUMAN) == \
        "you drew 5万 (kong replacement)"


def test_names_and_the_two_choices_come_from_the_catalogs_in_every_language() -> None:
    named = ["ann", "bob", "cat", "dan"]
    start = {"type": "start", "dealer": 3}
    assert event_words(start, HUMAN, names=named) == "new hand: dan deals"
    assert event_words(start, 3, names=named) == "new hand: you deal"  # one's own seat is "you" still
    voids = {"type": "dingque", "voids": [0, 1, 2, None]}
    assert event_words(voids, None, lang="en") == "void suits: seat 0 万, seat 1 筒, seat 2 条, seat 3 -"
    assert event_words(voids, None, lang="zh-TW") == "定缺：0 號位 萬，1 號位 筒，2 號位 條，3 號位 -"
    done = {"type": "exchange_done", "direction": 1}
    assert str(event_words(done, None, lang="zh-CN")).startswith("换三张完成（")
    assert str(event_words(done, None, lang="en")).startswith("exchange three done (")
    # the phases of 换三张 and 定缺 in the status line: the action's name in the player's language
    match = TerminalTable(Rules.preset("qq").with_options({"exchange_three": "counter"}), hands=1, seed=3)
    game = match.start_hand()
    assert game.phase is Phase.EXCHANGE
    said = {lang: whose_turn(game, HUMAN, lang=lang) for lang in ("zh-CN", "zh-TW", "en")}
    assert said == {"zh-CN": "换三张：轮到你选", "zh-TW": "換三張：輪到你選", "en": "exchange three: your choice"}
    assert "换三张" not in whose_turn(game, None, lang="en") and "定缺" not in whose_turn(game, None, lang="en")


def _score(hand: str, win: str, rules: Rules, self_drawn: bool = False) -> Score:
    s = score_win(parse_tiles(hand), [], parse_tile(win), WinContext(self_drawn=self_drawn), rules)
    assert isinstance(s, Score)
    return s


def test_ledger_in_words_groups_payers_and_payees() -> None:
    rules = Rules.preset("qq")
    game = known_game()
    flush = _score("11123456789999m", "9m", rules, self_drawn=True)  # qing_yi_se + gen
    plain = _score("123m456m789m123p55p", "5p", rules)
    # a made-up end of hand, written through the engine's own state as the rule modules write it
    st = game.state
    wins = [WinRecord(2, None, parse_tile("9m"), flush, 1), WinRecord(0, 1, parse_tile("5p"), plain, 2)]
    entries = [
        LedgerEntry(0, 2, flush.points, Reason.ZIMO), LedgerEntry(1, 2, flush.points, Reason.ZIMO),
        LedgerEntry(3, 2, flush.points, Reason.ZIMO),
        LedgerEntry(1, 0, plain.hand_points, Reason.HU),
        LedgerEntry(3, 0, 96, Reason.HUA_ZHU), LedgerEntry(3, 1, 96, Reason.HUA_ZHU),
        LedgerEntry(1, 3, 12, Reason.ZHIGANG),
    ]
    for win, paid in ((wins[0], entries[:3]), (wins[1], entries[3:4]), (None, entries[4:])):
        if win is not None:
            st.winners.append(win)
            st.emit({"type": EventKind.HU, "seat": win.seat, "from": win.from_seat, "tile": win.tile,
                     "fan": win.score.fan, "multiple": win.score.multiple, "base": win.score.base,
                     "extras": win.score.extras_dict})
        for e in paid:
            st.pay(e.from_seat, e.to_seat, e.points, Reason(e.reason))
    assert list(game.ledger) == entries
    assert [p.win for p in payments(game)][:4] == [game.winners[0]] * 3 + [game.winners[1]]
    assert win_amounts(game) == {0: 3 * flush.points, 1: plain.hand_points}
    assert explain_hand(game, "en", me=HUMAN)[:4] == [
        f"seat 2 won self-drawn on 9万 (pure one suit + root, 4 fan, x8); you, seat 1 and seat 3 each paid "
        f"{flush.points} points (a self-draw bonus of 6 included)",
        "you won on 5筒, discarded by seat 1 (plain win, 1 fan, x1); seat 1 paid 6 points",
        "flower pig (查花猪): seat 3 paid you and seat 1 96 points each",
        "seat 3: direct kong; seat 1 paid 12 points",
    ]
