"""``xuezhan play`` at 80x24 and larger, through Textual's pilot: the hand, the rivers, the actions and
the hint are on screen (or scroll into sight, with a scroll bar), never silently cut off."""

from __future__ import annotations

import errno
import math
import os
import random
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from test_tui import DrawnTileBot, run, scripted_game, scripted_match, text
from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from xuezhan import i18n
from xuezhan.bots import make_bot
from xuezhan.cli import _common, main
from xuezhan.engine.game import Game
from xuezhan.hints import action_words
from xuezhan.i18n import Lang
from xuezhan.records import parse_record, record_json
from xuezhan.review import SHOWN_LOSS, review_record
from xuezhan.rules import Rules
from xuezhan.runtime import HandDriver, Seat
from xuezhan.tui import PlayApp, ReplayApp, TerminalTable
from xuezhan.tui.widgets import ActionButton, SeatBox, SettlementScreen, TileButton, is_compact
from xuezhan.tui.words import seat_name

SIZES = [(80, 24), (100, 30), (120, 40), (200, 60)]


def on_screen(app: PlayApp | ReplayApp, widget: Widget) -> bool:
    """Every corner of the widget is on screen and the widget itself is what is drawn there."""
    region = widget.region
    screen = app.screen.region
    if region.width == 0 or region.height == 0 or not screen.contains_region(region):
        return False
    for x, y in ((region.x, region.y), (region.right - 1, region.bottom - 1), region.center):
        found, _ = app.screen.get_widget_at(int(x), int(y))
        if found is not widget and widget not in found.ancestors:
            return False
    return True


def reachable(app: PlayApp | ReplayApp, widget: Widget, scroller: VerticalScroll) -> bool:
    """On screen now, or below/above a scroll bar that brings it there."""
    if on_screen(app, widget):
        return True
    return scroller.max_scroll_y > 0 and scroller.show_vertical_scrollbar and scroller.scrollbar_size_vertical > 0


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_hand_rivers_actions_and_hint_are_on_screen(size: tuple[int, int]) -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            assert app.screen.has_class("-compact") == is_compact(*size)
            await pilot.press("s")  # 定缺: the dealer (seat 3) then throws 5p, which the human may peng
            await pilot.pause()
            tiles = [b for b in app.query(TileButton) if b.display]
            assert len(tiles) == 13 and all(on_screen(app, b) for b in tiles)
            buttons = [b for b in app.query(ActionButton) if b.display]
            assert {b.id for b in buttons} == {"btn-peng", "btn-pass", "btn-hint"}
            assert all(on_screen(app, b) for b in buttons)
            assert on_screen(app, app.query_one("#prompt")) and "3 号位打出 5筒：p 碰 · x 过" in text(app, "#prompt")
            # the seat whose discard is offered is in sight, its river with it
            seat3 = app.query_one("#seat-3", Static)
            assert on_screen(app, seat3) and "牌河 5筒" in text(app, "#seat-3")
            table = app.query_one("#table", VerticalScroll)
            for seat in range(4):
                assert reachable(app, app.query_one(f"#seat-{seat}"), table), seat
            assert on_screen(app, app.query_one("#keys"))

            await pilot.press("p")  # peng; the hint for the discard after it
            await pilot.press("question_mark")
            await pilot.pause()
            box = app.query_one("#hint-box", VerticalScroll)
            assert on_screen(app, box) and "提示" in text(app, "#hint")
            hint_lines = text(app, "#hint").count("\n") + 1
            assert box.size.height >= min(hint_lines, 4) or box.max_scroll_y > 0
            if box.max_scroll_y > 0:  # ? again: the hint's next lines
                await pilot.press("question_mark")
                await pilot.pause()
                assert box.scroll_y > 0
            assert all(on_screen(app, b) for b in app.query(TileButton) if b.display)
            assert on_screen(app, app.query_one("#btn-discard"))

            if app.compact:  # the log in place of the table, and back
                await pilot.press("l")
                await pilot.pause()
                assert on_screen(app, app.query_one("#game-log")) and not app.query_one("#table").region.height
                await pilot.press("l")
                await pilot.pause()
                assert on_screen(app, app.query_one("#hand"))
            else:
                assert on_screen(app, app.query_one("#scores"))

    run(body)


@pytest.mark.parametrize("lang", ["zh-CN", "zh-TW", "en"])
def test_the_headers_fit_80x24_in_every_language(lang: Lang, monkeypatch: pytest.MonkeyPatch) -> None:
    """The status line and every seat's title (with its points, three digits and a sign) are
    whole at 80x24: nothing cut to "…"."""
    monkeypatch.setattr(TerminalTable, "totals", property(lambda self: [-128, 256, -100, -28]))
    app = PlayApp(scripted_match(), bot_delay=0, lang=lang)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("s")  # 定缺; the dealer (seat 3) throws 5p
            await pilot.pause()
            assert app.compact
            status = app.query_one("#status", Static)
            assert cell_len(text(app, "#status")) <= status.region.width - 2, text(app, "#status")
            assert "+256" in str(app.query_one("#seat-1", SeatBox).border_title)
            for seat in range(4):
                box = app.query_one(f"#seat-{seat}", SeatBox)
                title = str(box.border_title)
                assert cell_len(title) <= box.region.width - 4, (seat, title, box.region.width)

    run(body)


NAMED_BOTS: list[tuple[Lang, str]] = [("zh-CN", "机器人1"), ("zh-TW", "機器人2"), ("en", "Bot 3")]


@pytest.mark.parametrize(("lang", "name"), NAMED_BOTS, ids=[lang for lang, _ in NAMED_BOTS])
def test_bots_are_named_in_the_player_s_language(lang: Lang, name: str) -> None:
    """The totals name the bots as the web table does (机器人1 …), never by their kind."""
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang=lang)

    async def body() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            scores = text(app, "#scores")
            assert name in scores and match.bot_name not in scores, scores

    run(body)


def test_the_settlement_s_summary_fits_80x24_and_its_details_scroll() -> None:
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=1)
    match.start_hand(scripted_game(), bots=[DrawnTileBot(), DrawnTileBot(), DrawnTileBot()])
    app = PlayApp(match, bot_delay=0, lang="zh-TW")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("s", "p", "9", "enter", "h")  # 定缺, peng, discard 1p, win on 9m
            await pilot.pause()
            assert isinstance(app.screen, SettlementScreen)
            for ident in ("#settlement-title", "#dialog-keys", "#settlement-summary"):
                assert on_screen(app, app.screen.query_one(ident)), ident
            summary = text(app, "#settlement-summary")
            assert "胡 你：1 號位點炮 9萬 · 平胡 1番 · +6" in summary
            assert "流局" in summary  # the others played on to the end of the wall
            scroll = app.screen.query_one("#settlement-scroll", VerticalScroll)
            assert scroll.max_scroll_y == 0
            # every payment on d; on a shorter screen it scrolls, the title and the keys stay
            await pilot.resize_terminal(80, 12)
            await pilot.press("d")
            await pilot.pause()
            assert "你胡了1 號位打出的 9萬（平胡，1 番，1 倍），1 號位付 6 分" in text(app, "#settlement-details")
            assert on_screen(app, app.screen.query_one("#settlement-details"))
            assert not app.screen.query_one("#settlement-summary").display
            for ident in ("#settlement-title", "#dialog-keys"):
                assert on_screen(app, app.screen.query_one(ident)), ident
            assert scroll.max_scroll_y > 0
            await pilot.press("down", "down")
            assert scroll.scroll_y > 0
            await pilot.press("d")  # back to the summary, from its top
            await pilot.pause()
            assert app.screen.query_one("#settlement-summary").display and scroll.scroll_y == 0


def test_replay_at_80x24_in_chinese() -> None:
    match = scripted_match()
    game = match.game
    data = record_json(game, with_result=False)
    data["autoplay"] = "tsumogiri"
    app = ReplayApp(parse_record(data), name="scripted", lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.screen.has_class("-compact")
            assert on_screen(app, app.query_one("#step")) and text(app, "#step").startswith("第 0/")
            assert text(app, "#step").endswith("下一步：0 号位 定缺 条")  # the next action in words, not its code
            await pilot.press("end")
            await pilot.pause()
            assert "本局结束" in text(app, "#step")
            assert any(line.startswith("本局得失：") for line in app.log_lines)
            table = app.query_one("#table", VerticalScroll)
            for seat in range(4):
                assert reachable(app, app.query_one(f"#seat-{seat}"), table), seat
                assert "牌河" in text(app, f"#seat-{seat}")

    run(body)


def test_replay_review_at_80x24_in_chinese() -> None:
    """The review line under the step, in Chinese, whole on the screen with the keys: here a decision
    the expert would have taken too (a hand of four heuristic seats)."""
    game = Game.new(Rules.preset("chengdu"), seed=3)
    HandDriver(game, [Seat.of_bot(make_bot("heuristic", random.Random(s))) for s in range(4)], seed=3).run()
    record = parse_record(record_json(game))
    review = review_record(record)
    best = next(d for d in review.decisions if d.loss < SHOWN_LOSS)
    app = ReplayApp(record, name="heuristic", lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await app.workers.wait_for_complete()
            await pilot.pause()
            k = next(k for k, i in app.stepper.listed.items() if i == best.step)
            app.action_goto(k)
            await pilot.pause()
            line = i18n.t("tui.replay.review_best", "zh-CN", seat=seat_name(best.seat, None, "zh-CN"),
                          taken=action_words(best.taken, "zh-CN"), ev=f"{best.taken_ev:+.2f}")
            assert line.startswith("复盘：") and "专家也这样选" in line
            assert text(app, "#step").splitlines()[1] == line
            step = app.query_one("#step", Static)
            assert on_screen(app, step) and on_screen(app, app.query_one("#keys"))
            wrapped = math.ceil(cell_len(line) / (step.region.width - 2))  # its padding: a cell each side
            assert step.region.height == 1 + wrapped  # the step, then the review whole, wrapped to the width
            assert "r 复盘" in text(app, "#keys")

    run(body)


def test_a_full_disk_when_saving_the_record_is_said_in_the_settlement(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    match = TerminalTable(Rules.preset("qq"), hands=1, seed=1, record_dir=tmp_path)
    match.start_hand(scripted_game(), bots=[DrawnTileBot(), DrawnTileBot(), DrawnTileBot()])
    app = PlayApp(match, bot_delay=0, lang="zh-CN")
    real_open = Path.open

    def full_disk(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if "x" in mode or "w" in mode:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(self, mode, *args, **kwargs)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            monkeypatch.setattr(Path, "open", full_disk)
            await pilot.press("s", "p", "9", "enter", "h")
            await pilot.pause()
            assert isinstance(app.screen, SettlementScreen)
            summary = text(app, "#settlement-summary")
            assert f"牌谱没有保存：cannot write {tmp_path}" in summary
            assert os.strerror(errno.ENOSPC) in summary

    run(body)
    assert not list(tmp_path.iterdir())
    assert match.results[0].record_path is None


def test_play_refuses_a_record_dir_on_a_device(capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_common, "has_terminal", lambda: True)
    monkeypatch.setattr(PlayApp, "run", lambda self: pytest.fail("the table must not open"))
    rc = main(["play", "--record-dir", "/dev/full/records", "--lang", "en"])
    _, err = capsys.readouterr()
    assert rc == 2 and "--record-dir /dev/full/records: cannot write there" in err and "Traceback" not in err


def test_resizing_switches_the_layout_even_under_a_dialog() -> None:
    app = PlayApp(scripted_match(), bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            assert not app.compact and on_screen(app, app.query_one("#scores"))
            await pilot.resize_terminal(80, 24)
            await pilot.pause()
            assert app.compact and app.screen.has_class("-compact")
            assert all(on_screen(app, b) for b in app.query(TileButton) if b.display)
            await pilot.press("q")  # the quit question is open while the terminal grows
            await pilot.pause()
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert not app.compact and not app.screen_stack[0].has_class("-compact")
            await pilot.press("n")
            await pilot.pause()
            assert on_screen(app, app.query_one("#scores"))
            assert all(on_screen(app, b) for b in app.query(TileButton) if b.display)

    run(body)


def test_the_waits_show_under_the_prompt_at_80x24_in_chinese() -> None:
    match = scripted_match()
    app = PlayApp(match, bot_delay=0, lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press("s")  # 定缺; the dealer throws 5p
            await pilot.pause()
            assert "听" not in text(app, "#prompt")  # 1m-8m 1p 5p5p 9p9p: not ready
            await pilot.press("p")  # peng: now a discard of 1p leaves the hand ready
            await pilot.pause()
            assert "打这些听牌：1筒（10张）" in text(app, "#prompt")
            await pilot.press("9")  # select 1p: the waits it leaves, each with the copies not in sight
            await pilot.pause()
            assert "打1筒听：3万余3 6万余3 9万余4" in text(app, "#prompt")
            assert on_screen(app, app.query_one("#prompt"))
            assert all(on_screen(app, b) for b in app.query(TileButton) if b.display)
            await pilot.press("enter")
            await pilot.pause()
            prompt = text(app, "#prompt")
            # seat 1 threw 9m, which the player may win on: one 9m fewer out of sight
            assert "听牌：3万余3 6万余3 9万余3" in prompt, prompt
            assert on_screen(app, app.query_one("#prompt"))

    run(body)
