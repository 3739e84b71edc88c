"""``xuezhan play`` as a user sees it at 80x24, in Chinese and in English: whole hands against the
heuristic bots driven by keys to the settlement and to the match's standings. Every screen is read
as the terminal shows it (the text of an SVG screenshot): no English word on a Chinese screen, no
header cut to "…", and the settlement's summary on one screen without scrolling.
"""

from __future__ import annotations

import html
import math
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from test_tui import run, text
from test_tui_layout import on_screen
from textual.containers import VerticalScroll
from textual.pilot import Pilot
from textual.widgets import Static

from xuezhan import i18n
from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Phase
from xuezhan.i18n import Lang
from xuezhan.records import parse_record, record_json, tsumogiri
from xuezhan.review import review_lines, review_record
from xuezhan.rules import Rules
from xuezhan.tui import HUMAN, PlayApp, TerminalTable
from xuezhan.tui.settlement import HandFacts, summary_text
from xuezhan.tui.widgets import HAND_KEYS, SeatBox, SettlementScreen, plain
from xuezhan.tui.words import seat_name

SHOTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "tui"
"""Where the tests leave their screenshots (SVG), to be looked at."""

_TEXT = re.compile(r'<text [^>]*x="([\d.]+)"[^>]*clip-path="url\(#[\w-]+-line-(\d+)\)"[^>]*>([^<]*)</text>')
_CELL = 12.2
"""How wide Textual's screenshots draw one cell (its SVG's character width)."""
_ENGLISH = re.compile(r"[A-Za-z]{2,}")


def screen_lines(app: PlayApp) -> list[str]:
    """The screen's text, line by line and cell by cell as the terminal draws it (read from an SVG
    screenshot: each run of text where its cell is, blanks where nothing is drawn)."""
    rows: dict[int, str] = {}
    for x, number, chunk in _TEXT.findall(app.export_screenshot()):
        line = rows.get(int(number), "")
        column = round(float(x) / _CELL)
        line += " " * max(column - cell_len(line), 0)
        rows[int(number)] = line + html.unescape(chunk).replace("\xa0", " ")
    return [rows.get(i, "").rstrip() for i in range(app.size.height)]


def save_screen(app: PlayApp, name: str) -> None:
    """The screen as an SVG screenshot and as text, under :data:`SHOTS`."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    app.save_screenshot(f"{name}.svg", str(SHOTS))
    (SHOTS / f"{name}.txt").write_text("\n".join(screen_lines(app)) + "\n", encoding="utf-8")


def dialog_lines(app: PlayApp) -> list[str]:
    """The lines inside the dialog's border (the table behind it left out)."""
    lines = screen_lines(app)
    top = next(i for i, line in enumerate(lines) if "╭" in line)
    bottom = next(i for i, line in enumerate(lines) if "╰" in line and i > top)
    left = cell_len(lines[top][:lines[top].index("╭")])
    inside = []
    for line in lines[top + 1:bottom]:
        cells, width = "", 0
        for ch in line:  # cut by cells, a Chinese character is two wide
            if width > left:
                cells += ch
            width += cell_len(ch)
        inside.append(cells.rsplit("│", 1)[0].strip())
    return inside


def check_screen(app: PlayApp, lang: Lang) -> None:
    """Nothing English on a Chinese screen; the status line and every seat's title whole."""
    lines = screen_lines(app)
    assert lines[0].strip() and "…" not in lines[0], lines[0]
    table = app.screen_stack[0]  # under any dialog
    status = table.query_one("#status", Static)
    assert cell_len(plain(status)) <= status.region.width - 2, plain(status)
    for seat in range(4):
        box = table.query_one(f"#seat-{seat}", SeatBox)
        if box.region.width:  # the log is shown in place of the table
            assert cell_len(str(box.border_title)) <= box.region.width - 4, box.border_title
    if lang == "zh-CN":
        words = [w for line in lines for w in _ENGLISH.findall(line)]
        assert not words, (words, "\n".join(lines))


def check_settlement(app: PlayApp, lang: Lang, shot: str) -> None:
    """The summary on one screen: title, winners, the table and the keys all in sight, no scrolling."""
    screen = app.screen
    assert isinstance(screen, SettlementScreen)
    save_screen(app, shot)
    scroll = screen.query_one("#settlement-scroll", VerticalScroll)
    summary = screen.query_one("#settlement-summary", Static)
    assert scroll.max_scroll_y == 0 and scroll.virtual_size.height <= scroll.region.height
    assert summary.display and summary.virtual_size.height <= summary.region.height
    for ident in ("#settlement-title", "#settlement-summary", "#dialog-keys"):
        assert on_screen(app, screen.query_one(ident)), ident
    lines = dialog_lines(app)
    assert lines[0] == text(app, "#settlement-title") and lines[-1] == text(app, "#dialog-keys")
    game = app.game
    winners = {w.seat for w in game.winners}
    won = re.compile(r"^胡 .*：" if lang == "zh-CN" else r"^(you|seat \d) won: ")
    assert sum(bool(won.match(line)) for line in lines) == len(winners), lines
    seats = ("你（0 号位）", "1 号位 机器人1", "2 号位 机器人2", "3 号位 机器人3") if lang == "zh-CN" else (
        "you (seat 0)", "seat 1 Bot 1", "seat 2 Bot 2", "seat 3 Bot 3")
    for seat, name in enumerate(seats):
        row = next(line for line in lines if name in line)
        assert f"{app.match.totals[seat]:+d}" in row.split(name)[1], row
    if any(e.reason in ("angang", "bugang", "zhigang") for e in game.ledger):
        assert any(line.startswith("杠：" if lang == "zh-CN" else "kongs: ") for line in lines)
    if lang == "zh-CN":
        words = [w for line in lines for w in _ENGLISH.findall(line)]
        assert not words, (words, "\n".join(lines))


async def play_hand(app: PlayApp, pilot: Pilot[int], lang: Lang, name: str, limit: int = 300) -> None:
    """Play the human's seat by keys until the settlement shows (定缺 the suit the app offers, win when
    possible, pass on claims, else throw the tile the app selects), checking every screen on the way."""
    match = app.match
    for step in range(limit):
        if isinstance(app.screen, SettlementScreen):
            return
        check_screen(app, lang)
        if step == 3:  # the hint and the log say nothing in another language either
            save_screen(app, f"{name}-play")
            await pilot.press("question_mark")
            await pilot.pause()
            check_screen(app, lang)
            save_screen(app, f"{name}-hint")
            await pilot.press("l")
            await pilot.pause()
            assert on_screen(app, app.query_one("#game-log"))
            check_screen(app, lang)
            # the log's lines whole, at the log's width (written while it was hidden, too)
            assert any(line.strip("│ ") == app.log_lines[-1] for line in screen_lines(app)), app.log_lines[-1]
            save_screen(app, f"{name}-log")
            await pilot.press("l")
            await pilot.pause()
        legal = match.human_legal()
        kinds = {a.type for a in legal}
        if ActionType.EXCHANGE in kinds:  # mark the first three tiles the rules allow, pass them
            chosen: list[int] = []
            for tile in legal[0].tiles:
                chosen.append(next(i for i, t in enumerate(app._tiles) if t == tile and i not in chosen))
            await pilot.press(*(HAND_KEYS[i] for i in chosen))
            check_screen(app, lang)
            await pilot.press("enter")
        elif ActionType.DINGQUE in kinds:
            suit = next(a.suit for a in legal if a.type is ActionType.DINGQUE)
            await pilot.press("mps"[suit or 0])
        elif ActionType.HU in kinds:
            await pilot.press("h")
        elif match.game.phase in (Phase.CLAIM, Phase.ROB):
            await pilot.press("x")
        else:
            await pilot.press("enter")
        await pilot.pause()
    raise AssertionError("the hand did not end")


async def check_review(app: PlayApp, pilot: Pilot[int], lang: Lang, shot: str) -> None:
    """``r``: the review of the player's decisions in place of the summary, worked out on a thread (the
    words meanwhile), the very text of ``review_lines`` for the hand's record; the keys in sight; ``r``
    again: the summary."""
    screen = app.screen
    assert isinstance(screen, SettlementScreen)
    await pilot.press("r")
    await pilot.pause()
    page = screen.query_one("#settlement-review", Static)
    assert page.display and not screen.query_one("#settlement-summary").display
    assert text(app, "#dialog-keys").endswith(i18n.t("tui.settle.review_back", lang) + " · "
                                                 + i18n.t("tui.settle.view_table", lang))
    await app.workers.wait_for_complete()
    await pilot.pause()
    names = [seat_name(s, HUMAN, lang) for s in range(4)]
    expected = review_lines(review_record(parse_record(record_json(app.game)), [HUMAN]), lang, names=names)
    assert plain(page).splitlines() == expected and screen.reviewed is not None
    assert expected[0].startswith("第 1 局复盘" if lang == "zh-CN" else "Review of hand 1")
    save_screen(app, shot)
    assert on_screen(app, screen.query_one("#dialog-keys"))
    keys = text(app, "#dialog-keys")
    assert any(keys in line for line in screen_lines(app))  # on one line: the review scrolls above it
    if lang == "zh-CN":
        assert not [w for line in expected for w in _ENGLISH.findall(line)], expected
    await pilot.press("r")
    await pilot.pause()
    assert screen.query_one("#settlement-summary").display and not page.display


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_a_match_at_80x24_fits_and_speaks_the_player_s_language(lang: Lang) -> None:
    match = TerminalTable(Rules.preset("chengdu"), hands=2, seed=5)  # hand 2 has a kong: a 杠 line
    app = PlayApp(match, bot_delay=0, lang=lang)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.compact
            await play_hand(app, pilot, lang, f"{lang}-hand1")
            await pilot.pause()
            check_settlement(app, lang, f"{lang}-settlement1")
            summary = text(app, "#settlement-summary")
            assert ("下一局庄家" if lang == "zh-CN" else "Next dealer") in summary
            await pilot.press("d")  # every payment, then back
            await pilot.pause()
            assert not app.screen.query_one("#settlement-summary").display
            details = text(app, "#settlement-details")
            assert ("本局得失" if lang == "zh-CN" else "This hand:") in details
            save_screen(app, f"{lang}-details1")
            await pilot.press("d")
            await pilot.pause()
            assert app.screen.query_one("#settlement-summary").display
            await check_review(app, pilot, lang, f"{lang}-review1")
            await pilot.press("enter")
            await pilot.pause()
            await play_hand(app, pilot, lang, f"{lang}-hand2")
            await pilot.pause()
            check_settlement(app, lang, f"{lang}-standings")
            # the match's end: the standings, ranked by total, with each seat's wins
            final = text(app, "#settlement-summary").splitlines()
            header = next(i for i, line in enumerate(final) if ("名次" if lang == "zh-CN" else "rank") in line)
            rows = final[header + 1:header + 5]
            assert [r.split()[0] for r in rows] == ["1", "2", "3", "4"]
            totals = [int(r.split()[-1]) for r in rows]
            assert totals == sorted(match.totals, reverse=True)
            assert [int(r.split()[-3]) for r in rows] == [match.wins[s] for s in match.standings()]

    run(body)


def test_leaving_a_settlement_while_its_review_is_worked_out() -> None:
    """``r`` then at once enter: the next hand is dealt and played, the review that comes later is shown to
    no one; at the match's end the app ends as it would, the review's thread still at work."""
    match = TerminalTable(Rules.preset("chengdu"), hands=2, seed=5)
    app = PlayApp(match, bot_delay=0, lang="en")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await play_hand(app, pilot, "en", "leave-hand1")
            first = app.screen
            assert isinstance(first, SettlementScreen)
            await pilot.press("r", "enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert not isinstance(app.screen, SettlementScreen) and match.hand_number == 2
            assert app.is_running and first is not app.screen  # the review came to a closed screen, harmlessly
            await play_hand(app, pilot, "en", "leave-hand2")
            await pilot.press("r", "enter")

    run(body)
    assert app.return_value == 0


def test_exchange_three_and_a_quit_question_at_80x24_in_chinese() -> None:
    rules = Rules.preset("qq").with_options({"exchange_three": "counter"})
    match = TerminalTable(rules, hands=1, seed=3)
    app = PlayApp(match, bot_delay=0, lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert "换三张" in text(app, "#prompt")
            check_screen(app, "zh-CN")
            save_screen(app, "zh-CN-exchange")
            await pilot.press("q")  # the question, then no
            await pilot.pause()
            check_screen(app, "zh-CN")
            await pilot.press("n")
            await pilot.pause()
            await play_hand(app, pilot, "zh-CN", "zh-CN-exchange-hand")
            await pilot.pause()
            check_settlement(app, "zh-CN", "zh-CN-exchange-settlement")

    run(body)


def _played(rules: Rules, seed: int) -> TerminalTable:
    """A one-hand match played to its end by the bots (the human throws what it draws), not yet settled."""
    match = TerminalTable(rules, hands=1, seed=seed)
    game = match.start_hand()
    while not game.over:
        match.run_bots()
        if not game.over:
            match.play(tsumogiri(game, HUMAN))
    return match


# hands with the most to say: several wins of one seat, kongs, 呼叫转移, 查大叫, the wall run out
BUSY: list[tuple[str, dict[str, object], int, Lang]] = [
    ("qq", {"blood_river": True}, 16, "en"),
    ("qq", {"blood_river": True}, 16, "zh-CN"),
    ("qq", {"exchange_three": "counter"}, 38, "zh-CN"),
    ("qq", {"exchange_three": "counter"}, 38, "en"),
]


@pytest.mark.parametrize(("preset", "options", "seed", "lang"), BUSY,
                         ids=[f"{p}-{'-'.join(o)}-{s}-{lang}" for p, o, s, lang in BUSY])
def test_a_busy_hand_s_settlement_fits_80x24(preset: str, options: dict[str, object], seed: int,
                                              lang: Lang) -> None:
    rules = Rules.preset(preset).with_options(options)
    match = _played(rules, seed)
    game = match.game
    kinds = {e.reason for e in game.ledger}
    assert {"zhigang", "call_transfer", "cha_jiao"} <= kinds or len(game.winners) > 3, kinds
    app = PlayApp(match, bot_delay=0, lang=lang)

    async def body() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            check_settlement(app, lang, f"busy-{seed}-{lang}")
            lines = dialog_lines(app)
            assert any(("流局" if lang == "zh-CN" else "Exhaustive draw") in line for line in lines)
            assert any(("呼叫转移：" if lang == "zh-CN" else "call transfer: ") in line for line in lines)

    run(body)


def test_the_summary_has_a_line_per_kind_of_payment_not_per_payment() -> None:
    """However many payments a hand has, the summary's rows stay within one 80x24 screen: over seeded
    hands of every rule set, at most 18 rows of 72 cells (the dialog's inside at 80x24)."""
    for rules in (Rules.preset("qq"), Rules.preset("chengdu"), Rules.preset("qq").with_options({"blood_river": True})):
        for seed in range(8):
            match = _played(rules, seed)
            result = match.finish_hand()
            game = match.game
            for lang in ("zh-CN", "en"):
                facts = HandFacts(me=HUMAN, totals=result.totals, wins=list(match.wins), next_dealer="-")
                lines = summary_text(game, facts, lang).plain.split("\n")
                rows = sum(max(1, math.ceil(cell_len(line) / 72)) for line in lines)
                kinds = {e.reason for e in game.ledger if e.reason not in ("hu", "zimo")}
                kongs = {"angang", "bugang", "zhigang"}
                expected = (len({w.seat for w in game.winners}) + len(kinds - kongs) + bool(kinds & kongs)
                            + ("wall_empty" in {ev.get("type") for ev in game.events}) + (not game.ledger) + 5 + 1)
                assert len(lines) == expected, lines
                assert rows <= 18, (seed, lang, lines)


@pytest.mark.parametrize("size", [(100, 30), (120, 40), (200, 60)], ids=["100x30", "120x40", "200x60"])
def test_the_settlement_at_larger_sizes(size: tuple[int, int]) -> None:
    """The full layout: the same summary in a wider dialog, nothing to scroll, the keys in sight."""
    match = _played(Rules.preset("qq").with_options({"exchange_three": "counter"}), 38)
    app = PlayApp(match, bot_delay=0, lang="zh-CN")

    async def body() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, SettlementScreen) and not screen.has_class("-compact")
            save_screen(app, f"zh-CN-settlement-{size[0]}x{size[1]}")
            assert screen.query_one("#settlement-scroll", VerticalScroll).max_scroll_y == 0
            for ident in ("#settlement-title", "#settlement-summary", "#dialog-keys"):
                assert on_screen(app, screen.query_one(ident)), ident
            assert "查大叫：你 -48 · 1 号位 +48" in text(app, "#settlement-summary")
            assert "规则 QQ+ · 庄 3 号位" in plain(app.screen_stack[0].query_one("#status", Static))  # no raw id

    run(body)
