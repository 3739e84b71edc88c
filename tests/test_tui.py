"""``xuezhan play`` and ``replay --view``, driven headlessly through Textual's pilot.

The positions that matter are built from game records (hands + wall in draw order),
so the deal is known: the dealer (seat 3) throws 5p, the human (seat 0) pengs it,
discards 1p, and wins on the 9m that seat 1 draws and throws. Bots in those tests
discard what they draw and never claim, so every step is fixed. Other tests play
whole seeded hands against the heuristic bots by pressing keys.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path

from rich.cells import cell_len
from textual.pilot import Pilot
from textual.widgets import Static

from xuezhan import i18n
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import SeatView
from xuezhan.hints import action_words
from xuezhan.records import load_record, parse_record, record_json, replay
from xuezhan.review import review_record
from xuezhan.rules import Rules
from xuezhan.tiles import counts_of, format_tiles, parse_tiles
from xuezhan.tui import HUMAN, PlayApp, ReplayApp, TerminalTable
from xuezhan.tui.terminal import probe_cell_width, set_mahjong_tiles_wide
from xuezhan.tui.widgets import ConfirmScreen, SettlementScreen, plain

SIZE = (120, 40)

# seat 0 (human): only m and p, so the void must be s; 5p 5p to peng, ready on 6m/9m after the peng
HANDS = ["12345678m15599p", "456789m445566s7s", "1122m3399m6688s9s", "22334466p11223s5p"]
DEALER = 3  # its 14th tile, 5p, is the first discard


class DrawnTileBot:
    """Throws the tile it drew (a void tile first while it holds one), never claims: a fixed script."""

    name = "drawn"

    def start_hand(self, seed: int) -> None:
        pass

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        first = legal[0].type
        if first is ActionType.DINGQUE:
            counts = view.counts
            return min(legal, key=lambda a: (sum(counts[(a.suit or 0) * 9:(a.suit or 0) * 9 + 9]), a.suit or 0))
        if first is ActionType.EXCHANGE:
            return legal[0]
        if view.phase in ("claim", "rob"):
            return next((a for a in legal if a.type is ActionType.PASS), legal[0])
        discards = [a for a in legal if a.type is ActionType.DISCARD]
        drawn = next((a for a in discards if a.tile == view.drawn), None)
        return drawn or min(discards, key=lambda a: a.tile or 0)


def scripted_game(wall_head: str = "9m", hands: Sequence[str] = HANDS, dealer: int = DEALER) -> Game:
    """A known deal: ``hands`` by seat, the wall starting with ``wall_head``, the other tiles in order."""
    head = parse_tiles(wall_head)
    used = counts_of([t for h in hands for t in parse_tiles(h)] + head)
    rest = [t for t in range(27) for _ in range(4 - used[t])]
    data = {"rules": "qq", "dealer": dealer, "hands": list(hands), "wall": format_tiles(head + rest, compact=False)}
    return parse_record(data).new_game()


def scripted_match(hands: int = 1, record_dir: Path | None = None) -> TerminalTable:
    match = TerminalTable(Rules.preset("qq"), hands=hands, seed=1, record_dir=record_dir)
    match.start_hand(scripted_game(), bots=[DrawnTileBot(), DrawnTileBot(), DrawnTileBot()])
    return match


def text(app: PlayApp | ReplayApp, selector: str) -> str:
    return plain(app.screen.query_one(selector, Static))


def run(body: Callable[[], Coroutine[None, None, None]]) -> None:
    asyncio.run(body())


def snapshot(match: TerminalTable) -> tuple[str, int]:
    """What seat 0 sees, and how many actions were applied: an illegal key must change neither."""
    return json.dumps(match.view().to_json(), sort_keys=True), len(match.game.actions)


# --- a scripted hand: 定缺, an illegal key, a peng, a discard, a win, the settlement ----------------------


def test_scripted_hand_dingque_peng_win_and_settlement(tmp_path: Path) -> None:
    match = scripted_match(record_dir=tmp_path)
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "定缺" in text(app, "#prompt")
            assert "s 条" in text(app, "#prompt") and "m 万" not in text(app, "#prompt")
            hand = "".join(plain(app.query_one(f"#tile-{i}", Static)).split("\n")[0] for i in range(13))
            assert hand == "1万2万3万4万5万6万7万8万1筒5筒5筒9筒9筒"  # sorted, suits by name

            # m: the human holds 万, so 万 cannot be the void: a message, nothing changes
            before = snapshot(match)
            await pilot.press("m")
            assert "cannot give up 万" in text(app, "#message")
            assert snapshot(match) == before

            await pilot.press("s")
            # every seat's void is public now; the dealer threw 5p and the human may peng it
            assert match.game.phase is Phase.CLAIM
            assert "void 条" in text(app, "#seat-0")
            assert "void 万" in text(app, "#seat-3")
            assert "river 5筒" in text(app, "#seat-3")
            assert "seat 3 discarded 5筒: p peng · x pass" in text(app, "#prompt")
            assert "last: seat 3 discarded 5筒" in text(app, "#last")
            assert app.query_one("#btn-peng").display and not app.query_one("#btn-hu").display

            # illegal keys in a claim window: h (no win), enter (no discard), an unbound key
            before = snapshot(match)
            for key, words in (("h", "No hu possible now"), ("enter", "No discard now"), ("z", "does nothing")):
                await pilot.press(key)
                assert words in text(app, "#message"), key
                assert snapshot(match) == before

            await pilot.press("p")
            assert [m.text() for m in match.view().melds(HUMAN)] == ["555p"]
            assert "melds [5筒5筒5筒]" in text(app, "#hand-melds")
            assert "Your turn" in text(app, "#prompt")
            assert "turn: you" in text(app, "#status")

            # the hint ranks the discards: 1p leaves the hand ready
            await pilot.press("question_mark")
            hint = text(app, "#hint")
            assert "Hint: discard 1筒: ready, 10 live effective tiles (3万 6万 9万)" in hint
            assert "others: " in hint and "9筒: shanten 1, 15 live" in hint

            # x (pass) on one's own turn is illegal
            before = snapshot(match)
            await pilot.press("x")
            assert "No pass possible now" in text(app, "#message")
            assert snapshot(match) == before

            await pilot.press("9")  # the 9th tile: 1p
            assert app.selected == 8
            await pilot.press("enter")
            # seat 1 drew 9m and threw it: the human may hu
            assert "seat 1 discarded 9万: h hu · x pass" in text(app, "#prompt")
            assert "you discarded 1筒" in app.log_lines
            await pilot.press("h")
            await pilot.pause()

            # the others played on to the end; the settlement is on screen
            assert isinstance(app.screen, SettlementScreen)
            summary = text(app, "#settlement-summary")
            assert "you won: 9万 from seat 1 · plain win, 1 fan · +6" in summary
            assert "Exhaustive draw: the wall is empty" in summary  # the others played on without a win
            assert "rank  seat" in summary and "you (seat 0)       1      +6      +6" in summary  # a one-hand match
            details = text(app, "#settlement-details")
            assert "you won on 9万, discarded by seat 1 (plain win, 1 fan, x1); seat 1 paid 6 points" in details
            assert "The wall is empty (exhaustive draw)" in details
            assert "This hand: you +6" in details
            assert "胡 WON #1: 9万 from seat 1 · plain win, 1 fan, x1 · +6" in plain(app.query_one("#seat-0", Static))
            assert "Payments" not in app.export_screenshot()
            await pilot.press("d")  # every payment, in place of the summary
            assert "Payments" in app.export_screenshot() and "d: summary" in text(app, "#dialog-keys")

            await pilot.press("enter")
            await pilot.pause()
        assert app.return_value == 0

    run(body)
    assert match.totals[HUMAN] == 6 and sum(match.totals) == 0
    # the hand was saved as a record that replays to the same result
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 1
    game, complete = replay(load_record(files[0]))
    assert complete and game.deltas() == list(match.results[0].deltas)


def test_click_selects_then_discards() -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("s", "p")
            await pilot.click("#tile-8")  # 1p
            assert app.selected == 8 and match.human_pending()
            await pilot.click("#tile-8")  # a second click throws it
            await pilot.pause()
            assert "river 1筒" in text(app, "#seat-0")
            assert match.view().river(HUMAN) == parse_tiles("1p")

    run(body)


def test_concealed_kong_by_key_is_paid_at_once() -> None:
    # the human deals with 1111m in hand: g declares the concealed kong and draws its replacement (2s)
    hands = ["1111m234m567m5599p", "56789m1122334s5s", "2233m445566778s", "1122334466778p"]
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=1)
    match.start_hand(scripted_game("2s", hands, dealer=0), bots=[DrawnTileBot(), DrawnTileBot(), DrawnTileBot()])
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("s")
            assert "g gang 1万" in text(app, "#prompt")
            await pilot.press("g")
            assert "melds [1万1万1万1万]暗" in text(app, "#hand-melds")
            assert "you concealed kong 1万 (angang)" in app.log_lines
            assert "you drew 2条 (kong replacement)" in app.log_lines
            assert "this hand +36" in str(app.query_one("#seat-0", Static).border_subtitle)
            # the replacement is the tile apart at the right, selected; void tiles go first anyway
            assert app.selected == len(app._tiles) - 1 and app._tiles[-1] == parse_tiles("2s")[0]
            await pilot.press("enter")
            assert "river 2条" in text(app, "#seat-0")

    run(body)


def test_hint_and_keys_outside_ones_turn_change_nothing() -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("question_mark")
            assert "Hint: choose 条" in text(app, "#hint")
            before = snapshot(match)
            for key, words in (("enter", "First choose your void suit"), ("g", "No gang possible now"),
                               ("x", "No pass possible now"), ("p", "cannot give up 筒")):
                await pilot.press(key)
                assert words in text(app, "#message"), key
                assert snapshot(match) == before, key

    run(body)


def test_quit_asks_first_and_exits_0() -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("q")
            assert isinstance(app.screen, ConfirmScreen)
            await pilot.press("n")
            assert not isinstance(app.screen, ConfirmScreen)
            await pilot.press("q", "y")
            await pilot.pause()
        assert app.return_value == 0

    run(body)


# --- whole hands against the heuristic bots -----------------------------------------------------------


async def play_out_hand(app: PlayApp, pilot: Pilot[int], limit: int = 200) -> None:
    """Play the human's seat by keys until the settlement shows: 定缺 by the hint's suit, win when
    possible, pass on claims, otherwise throw the tile the app selects."""
    match = app.match
    for _ in range(limit):
        if isinstance(app.screen, SettlementScreen):
            return
        legal = match.human_legal()
        kinds = {a.type for a in legal}
        assert legal, "the app waits for the human, who has nothing to do"
        if ActionType.DINGQUE in kinds:
            await pilot.press("question_mark")  # "Hint: choose 筒 as your void ..."
            suit = "万筒条".index(text(app, "#hint").split("choose ")[1][0])
            await pilot.press("mps"[suit])
        elif ActionType.HU in kinds:
            await pilot.press("h")
        elif match.game.phase in (Phase.CLAIM, Phase.ROB):
            await pilot.press("x")
        else:
            await pilot.press("enter")
        await pilot.pause()
    raise AssertionError("the hand did not end")


def test_a_match_of_two_hands_with_running_totals_and_final_table(tmp_path: Path) -> None:
    match = TerminalTable(Rules.preset("chengdu"), hands=2, seed=5, record_dir=tmp_path)
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert text(app, "#status").startswith("Hand 1/2 · rules Chengdu")
            await play_out_hand(app, pilot)
            first = text(app, "#settlement-summary")
            assert "seat              hand   total" in first and "you (seat 0)" in first
            assert "Next dealer:" in first and "rank" not in first
            assert "Payments" in text(app, "#settlement-details")
            assert text(app, "#settlement-title") == "Hand 1/2 over"
            totals_after_one = list(match.totals)
            await pilot.press("v")  # look at the table behind the settlement
            assert not app.screen.query_one("#dialog").display
            assert "does nothing" not in app.message
            await pilot.press("v", "enter")
            await pilot.pause()
            assert text(app, "#status").startswith("Hand 2/2")
            assert "--- hand 2 ---" in app.log_lines
            await play_out_hand(app, pilot)
            final = text(app, "#settlement-summary")
            assert "rank  seat            wins    hand   total" in final and "you (seat 0)" in final
            ranked = [line.split()[0] for line in final.splitlines()[-4:]]
            assert ranked == ["1", "2", "3", "4"]
            assert "The same deals again: xuezhan play --seed 5 --hands 2" in text(app, "#settlement-details")
            assert match.match_over and len(match.results) == 2
            assert match.results[0].totals == tuple(totals_after_one)
            assert [sum(r.deltas[s] for r in match.results) for s in range(4)] == match.totals
            await pilot.press("enter")
            await pilot.pause()
        assert app.return_value == 0

    run(body)
    assert len(list(tmp_path.glob("*.json"))) == 2
    # chengdu: the first winner of a hand deals the next one (the dealer stays if nobody won)
    assert match.results[0].next_dealer is not None
    assert match.results[1].dealer == match.results[0].next_dealer


def test_same_seed_same_deal_on_screen() -> None:
    async def first_screen(seed: int) -> tuple[str, str]:
        app = PlayApp(TerminalTable(Rules.preset("qq"), hands=1, seed=seed), bot_delay=0, lang="en")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            hand = " ".join(plain(app.query_one(f"#tile-{i}", Static)).split("\n")[0]
                            for i in range(len(app.match.view().hand)))
            return hand, text(app, "#status")

    async def body() -> None:
        a = await first_screen(11)
        b = await first_screen(11)
        c = await first_screen(12)
        assert a == b
        assert a != c

    run(body)


def test_exchange_three_then_dingque_by_keys() -> None:
    rules = Rules.preset("qq").with_options({"exchange_three": "counter"})
    match = TerminalTable(rules, hands=1, seed=3)
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert match.game.phase is Phase.EXCHANGE
            assert "换三张" in text(app, "#prompt")
            tiles = app._tiles
            suit = next(s for s in range(3) if sum(1 for t in tiles if t // 9 == s) >= 3)
            idx = [i for i, t in enumerate(tiles) if t // 9 == suit][:3]
            other = next(i for i, t in enumerate(tiles) if t // 9 != suit)
            keys = "123456789abcde"
            # two of one suit and one of another: refused, nothing changes
            await pilot.press(keys[idx[0]], keys[idx[1]], keys[other])
            before = snapshot(match)
            await pilot.press("enter")
            assert "one suit" in text(app, "#message")
            assert snapshot(match) == before
            await pilot.press(keys[other], keys[idx[2]], "enter")
            await pilot.pause()
            passed = [t for i, t in enumerate(tiles) if i in idx]
            assert any(line.startswith(f"you passed {' '.join(_zh(t) for t in passed)} to seat 1")
                       for line in app.log_lines), app.log_lines
            assert str(match.game.phase) == "dingque"
            assert "定缺" in text(app, "#prompt")

    run(body)


def _zh(t: int) -> str:
    return f"{t % 9 + 1}{'万筒条'[t // 9]}"


def test_glyphs_switch_draws_unicode_tiles() -> None:
    app = PlayApp(scripted_match(), glyphs=True, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert plain(app.query_one("#tile-0", Static)).split("\n")[0].strip() == "🀇"  # 1m
            assert plain(app.query_one("#tile-8", Static)).split("\n")[0].strip() == "🀙"  # 1p
            assert "river 🀙" not in text(app, "#seat-3")
            await pilot.press("s")
            assert "river 🀝" in text(app, "#seat-3")  # 5p

    run(body)


def test_wide_tiles_for_terminals_that_draw_them_wide() -> None:
    # under pytest stdin is not a terminal: nothing to ask, nothing changed
    assert probe_cell_width("🀇") is None
    assert cell_len("🀇 🀙") == 3
    try:
        set_mahjong_tiles_wide(True)
        assert cell_len("🀇 🀙") == 5 and cell_len("5万") == 3 and cell_len("a") == 1
    finally:
        set_mahjong_tiles_wide(False)
    assert cell_len("🀇 🀙") == 3 and cell_len("🀄") == 2


def test_bot_delay_lets_the_bots_act_on_a_timer() -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0.01, lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("s", "p", "9", "enter")
            for _ in range(50):
                await pilot.pause(0.02)
                if match.human_pending():
                    break
            assert "h hu" in text(app, "#prompt")

    run(body)


# --- replay --view ----------------------------------------------------------------------------------------


def test_replay_view_steps_forward_and_back_showing_every_hand() -> None:
    game = scripted_game()
    # a short record: 定缺 for all, the dealer throws 5p, seat 0 pengs and throws 1p; autoplay after
    actions = [{"seat": s, "type": "dingque", "suit": v} for s, v in ((0, "s"), (1, "p"), (2, "p"), (3, "m"))]
    actions += [{"seat": 3, "type": "discard", "tile": "5p"}, {"seat": 0, "type": "peng"},
                {"seat": 0, "type": "discard", "tile": "1p"}, {"seat": 1, "type": "discard", "tile": "9m"},
                {"seat": 0, "type": "hu"}]
    data = record_json(game, with_result=False)
    data["actions"] = actions
    data["autoplay"] = "tsumogiri"
    app = ReplayApp(parse_record(data), name="scripted", lang="en")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert text(app, "#step").startswith("step 0/")
            assert "hand  2筒 2筒 3筒" in text(app, "#seat-3")  # a replay shows every hand
            assert "hand  1万 2万 3万" in text(app, "#seat-0")
            await pilot.press("n", "n", "n", "n")
            assert text(app, "#step").startswith("step 4/") and text(app, "#step").endswith("next: seat 3 discard 5筒")
            await pilot.press("n")
            assert text(app, "#step").startswith("step 5/")
            assert "seat 3 discarded 5筒" in text(app, "#last")
            await pilot.press("n")
            assert "seat 0 peng 5筒 from seat 3" in text(app, "#last")
            await pilot.press("b", "b")
            assert text(app, "#step").startswith("step 4/")
            assert "river -" in text(app, "#seat-3")
            await pilot.press("end")
            assert "the end of the hand" in text(app, "#step")
            won = "seat 0 won on 9万, discarded by seat 1 (plain win, 1 fan, x1); seat 1 paid 6 points"
            assert won in app.log_lines
            await pilot.press("home")
            assert text(app, "#step").startswith("step 0/")
            await pilot.press("q")
        assert app.return_value == 0

    run(body)


def test_replay_view_reviews_the_next_decision_on_r() -> None:
    """``r``: under the step, the expert's word on the next action when the record lists it and it was a
    choice: the review of that decision (``xuezhan review``'s numbers), a pass the record implies and
    autoplay's draws being no choice; ``r`` again hides it."""
    data = record_json(scripted_game(), with_result=False)
    data["actions"] = [{"seat": s, "type": "dingque", "suit": v} for s, v in ((0, "s"), (1, "p"), (2, "p"), (3, "m"))]
    data["actions"] += [{"seat": 3, "type": "discard", "tile": "5p"}, {"seat": 0, "type": "pass"},
                        {"seat": 0, "type": "discard", "tile": "1p"}]
    data["autoplay"] = "tsumogiri"
    record = parse_record(data)
    review = review_record(record)
    by_step = {d.step: d for d in review.decisions}
    app = ReplayApp(record, name="scripted", lang="en")

    def expected(index: int) -> str:  # the catalog's sentence with the review's numbers
        d = by_step[index]
        key = "mistake" if d.mistake else "noise"
        return i18n.t(f"tui.replay.review_{key}", "en", seat=f"seat {d.seat}", taken=action_words(d.taken, "en"),
                      taken_ev=f"{d.taken_ev:+.2f}", best=action_words(d.best.action, "en"),
                      best_ev=f"{d.best.ev:+.2f}", loss=f"{d.loss:.2f}", stderr=f"{d.stderr:.2f}")

    async def body() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert "Review" not in text(app, "#step")
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.review is not None and app.review.to_json() == review.to_json()  # every seat, once
            no_choice = "Review: the next step is no choice (one legal action, or one the record does not list)"
            assert text(app, "#step").splitlines()[1] == no_choice  # seat 0's 定缺: one suit to choose
            await pilot.press("n", "n", "n", "n")  # the dealer's discard is next: its choice reviewed
            assert text(app, "#step").splitlines()[1] == expected(4)
            assert expected(4).startswith("Review: seat 3: discard 5筒 (") and "a mistake, lost" in expected(4)
            await pilot.press("n")  # seat 0 lets the 5筒 go by: the record lists the pass
            assert text(app, "#step").splitlines()[1] == expected(5)
            await pilot.press("n")
            assert text(app, "#step").splitlines()[1] == expected(6)
            assert "within the search's noise" in expected(6)  # a loss of the play-outs' size: not a mistake
            stepper = app.stepper
            autoplay = next(k for k in range(7, stepper.total) if k not in stepper.listed)  # the record stops listing
            await pilot.press(*["n"] * (autoplay - 6))  # from step 6
            assert text(app, "#step").splitlines()[1] == no_choice
            await pilot.press("end")
            assert "Review" not in text(app, "#step")  # nothing next
            await pilot.press("home", "r")
            assert text(app, "#step").splitlines() == [text(app, "#step").splitlines()[0]]  # hidden again
            await pilot.press("q")
        assert app.return_value == 0

    run(body)
