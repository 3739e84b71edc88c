"""The settlement in a real browser on a phone (390x844, zh-CN): one screen, opening at its top.

A match of one hand: the player asks for 托管 at once, the stand-in plays the hand out, and the
hand's settlement opens with the match's standings in it. Checked on the DOM: it fits the screen
without scrolling, each winner's hand is laid out once with its winning tile marked, every line of
points names its seat and its amount in elements of their own, the rate and the fee are stated,
every payment waits folded under 明细. Screenshots (390x844, 明细 open, 1366x768) go to
``$XUEZHAN_TEST_SHOTS`` when set, else to the test's own directory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, SIZES, Watch, _context, _guest, _table_of, browser, served
from test_messages import played, result_of

from xuezhan import i18n
from xuezhan.coins import settle_detailed
from xuezhan.match import RoomConfig
from xuezhan.server import ServerConfig
from xuezhan.server.bank import Settled
from xuezhan.server.messages import hand_end_messages
from xuezhan.tiles import tile_name

__all__ = ["browser"]  # the fixture, shared with test_browser

PHONE = SIZES["phone"]["viewport"]
DESKTOP = SIZES["desktop"]["viewport"]


@pytest.fixture(scope="module")
def settle_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0, seed=20261201)
    with served(config, tmp_path_factory.mktemp("browser-settle") / "web.sqlite3") as running:
        yield running


def _shots(tmp_path: Path) -> Path:
    where = os.environ.get("XUEZHAN_TEST_SHOTS")
    out = Path(where) if where else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out


def _box(page: Page, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.evaluate("""(sel) => { const r = document.querySelector(sel).getBoundingClientRect();
        return {l: r.left, t: r.top, r: r.right, b: r.bottom}; }""", selector)
    return box


def _fits(page: Page, width: int, height: int) -> None:
    """The summary lies inside the screen, nothing is scrolled or needs scrolling, title and buttons in view."""
    scrolls = page.evaluate("""() => { const d = document.getElementById('settlement');
        return {top: d.scrollTop, over: d.scrollHeight - d.clientHeight,
                page: document.scrollingElement.scrollTop}; }""")
    assert scrolls == {"top": 0, "over": 0, "page": 0}, scrolls
    for sel in ("[data-testid=settlement-summary]", "#settle-title", "#settle-leave", "#settle-look"):
        box = _box(page, sel)
        inside = box["l"] >= -0.5 and box["t"] >= -0.5 and box["r"] <= width + 0.5 and box["b"] <= height + 0.5
        assert inside, (sel, box)


BUSY_HANDS = (("heuristic", 247), ("heuristic", 160))
"""Hands with much to show: three winners with seven melds, kongs and 呼叫转移; two winners, kongs,
查大叫 and 退税 (found by playing seeds with these bots)."""


def _busy_hand_end(bot: str, seed: int) -> dict[str, Any]:
    game = played(seed, False, bot)
    room = RoomConfig(coefficient=50, fee=20)
    balances = [20_000, 10**9, 3_000, 10**9]
    coins = settle_detailed(game.deltas(), balances, room.coefficient, [room.fee] * 4)
    settled = Settled(coins.changes, coins.fees, tuple(b + c if b < 10**9 else None
                                                       for b, c in zip(balances, coins.changes, strict=True)))
    names = {"ann": "Settle1", "bo": "Bo"}
    message = hand_end_messages(result_of(game), game, names, settled, room, final=True)["zh-CN"]
    assert len(message["winners"]) >= 2 and len(message["kinds"]) >= 2
    return message


def _show(page: Page, message: dict[str, Any]) -> None:
    """Show ``message`` as the hand's settlement, as if the server had sent it."""
    page.evaluate("""async (msg) => { const st = await import('/static/state.js');
        const table = await import('/static/table.js'); st.S.handEnd = msg; table.renderAll(); }""", message)


def test_the_settlement_fits_a_phone_screen_and_shows_the_match_s_standings(
    settle_server: tuple[str, Any], browser: Browser, tmp_path: Path
) -> None:
    url, app = settle_server
    shots = _shots(tmp_path)
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = "Settle1"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    # a match of one hand: its only hand is its last
    page.tap("details.create summary")
    page.fill("#room-hands", "1")
    page.tap("#create-form button[type=submit]")
    page.tap("#start-btn")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    page.tap("#trustee-btn")  # the stand-in plays the hand out
    page.wait_for_selector("[data-testid=standings]", state="visible", timeout=HAND_LIMIT * 1000)
    table = _table_of(app, name)
    assert table.hand is not None and table.match is not None
    game = table.hand.game
    assert game.over and table.match.finished
    summary = page.locator("[data-testid=settlement-summary]")
    assert summary.is_visible()
    page.wait_for_timeout(300)  # the last messages of the hand have been shown
    page.screenshot(path=str(shots / "settlement-390x844.png"), scale="css")
    _fits(page, PHONE["width"], PHONE["height"])
    assert i18n.t("web.settle.title", "zh-CN", n=1) in page.inner_text("#settle-title")

    # each win once: a block per win with its hand laid out, the winning tile marked, the pattern
    assert game.winners, "the seeded hand has a winner"
    blocks = page.locator("#settle-winners .winner")
    assert blocks.count() == len(game.winners)
    text = summary.inner_text()
    for i, w in enumerate(game.winners):
        block = blocks.nth(i)
        state = game.seat_state(w.seat)
        tiles = block.locator(".win-hand [data-tile]")
        assert tiles.count() == 14 + sum(1 for m in state.melds if m.is_kong)
        assert block.locator(".won-tile [data-tile]").get_attribute("data-tile") == tile_name(w.tile)
        assert block.locator(".meld").count() == len(state.melds)
        assert "番" in block.locator(".win-pattern").inner_text()
        assert block.locator(".win-top .who").inner_text() == page.evaluate(
            "(s) => document.querySelectorAll('#settle-rows tr')[s].querySelector('.who').textContent", w.seat)
    end = table.last_hand_end
    assert end is not None
    for w in end["zh-CN"]["winners"]:  # the sentence of each win is not said a second time
        assert w["text"] not in text

    # the rate from points to coins and the fee
    room = table.room
    assert i18n.t("web.settle.rate", "zh-CN", n=room.coefficient) in text
    assert i18n.t("web.settle.fee", "zh-CN", fee=room.fee) in text
    # names and amounts: elements of their own, apart on screen, each amount signed with its unit
    pairs = page.evaluate("""() => Array.from(document.querySelectorAll('#settlement .who'))
        .filter(w => !w.closest('.payment')).map(w => {
        const row = w.closest('tr, .pair, .win-top, .standing');
        const a = row.querySelector('.amt'); const rw = w.getBoundingClientRect();
        const ra = a ? a.getBoundingClientRect() : null;
        return {name: w.textContent, amount: a ? a.textContent : null, gap: ra ? ra.left - rw.right : null,
                sameLine: ra ? Math.abs(ra.top - rw.top) < rw.height : null,
                whole: row.textContent}; })""")
    assert len(pairs) >= 4 + 4 + len(game.winners)
    for p in pairs:
        assert p["amount"] is not None and p["amount"] not in p["name"], p
        amount = p["amount"].strip()
        assert amount[0] in "+-" or amount.startswith("0 "), p
        assert amount.endswith(("分", "金币")), p
        if p["sameLine"]:
            assert p["gap"] >= 4, p
    bot_names = [n for n in end["zh-CN"]["names"] if n[-1].isdigit()]
    assert bot_names
    for n in bot_names:  # "机器人1 1 分" can no longer be read as 11
        for digit in "0123456789":
            assert f"{n} {digit}" not in text and f"{n}{digit}" not in text

    # every seat's points and coins, as the server settled them
    rows = page.locator("#settle-rows tr")
    assert rows.count() == 4
    for seat in range(4):
        cells = rows.nth(seat).locator("[data-amount]")
        assert int(cells.nth(0).get_attribute("data-amount") or "x") == game.deltas()[seat]
        assert int(cells.nth(1).get_attribute("data-amount") or "x") == end["zh-CN"]["coins"][seat]

    # the match's standings, ranked, with each player's total points and coins
    standing = page.locator("[data-testid=standings] .standing")
    assert standing.count() == 4
    running = table.match.running
    shown = [(int(standing.nth(i).locator(".amt").nth(0).get_attribute("data-amount") or "x"),
              int(standing.nth(i).locator(".amt").nth(1).get_attribute("data-amount") or "x")) for i in range(4)]
    assert [p for p, _ in shown] == sorted(running.values(), reverse=True)
    assert sorted(c for _, c in shown) == sorted(end["zh-CN"]["coins"])  # one hand: the match's coins are its coins

    # every payment, folded under 明细: closed at first, opens on a tap
    details = page.locator("#settle-details")
    assert details.get_attribute("open") is None and not page.locator("#settle-ledger").is_visible()
    assert page.inner_text("#settle-details > summary") == "明细"
    page.tap("#settle-details > summary")
    page.wait_for_selector("#settle-ledger li", state="visible")
    assert page.locator("#settle-ledger li").count() == max(1, len(game.ledger))
    # each payment: payer, payee, why, then the amount, never right after a name
    before = page.evaluate("""() => Array.from(document.querySelectorAll('#settle-ledger .payment .amt'))
        .map(a => a.previousElementSibling.className)""")
    assert len(before) == len(game.ledger) and all("who" not in c for c in before), before
    opened = summary.inner_text()
    for n in bot_names:
        for digit in "0123456789":
            assert f"{n} {digit}" not in opened and f"{n}{digit}" not in opened
    page.screenshot(path=str(shots / "settlement-390x844-details.png"), scale="css")
    page.tap("#settle-details > summary")

    # a desktop: the same summary, on one screen too
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(200)
    page.screenshot(path=str(shots / "settlement-1366x768.png"), scale="css")
    _fits(page, DESKTOP["width"], DESKTOP["height"])

    # busier hands fit too: more winners, melds and lines of kongs, 呼叫转移, 查大叫 and 退税
    for bot, seed in BUSY_HANDS:
        busy = _busy_hand_end(bot, seed)
        _show(page, busy)
        assert page.locator("#settle-winners .winner").count() == len(busy["winners"])
        assert page.locator("#settle-kinds .kind").count() == len(busy["kinds"])
        assert page.locator("[data-testid=standings]").is_visible()
        for k, kind in enumerate(busy["kinds"]):
            line = page.locator("#settle-kinds .kind").nth(k)
            assert line.locator(".kind-name").inner_text() == kind["name"]
            assert [int(a.get_attribute("data-amount") or "x") for a in line.locator(".amt").all()] == [
                p for p in kind["points"] if p]
        for size, viewport in (("390x844", PHONE), ("1366x768", DESKTOP)):
            page.set_viewport_size(viewport)
            page.wait_for_timeout(150)
            page.screenshot(path=str(shots / f"settlement-{size}-busy-{seed}.png"), scale="css")
            _fits(page, viewport["width"], viewport["height"])

    # 看牌桌: the table, and the match's standings in a window of their own
    page.set_viewport_size(PHONE)
    page.tap("#settle-look")
    page.wait_for_selector("#match-end[open] #standings .standing", state="visible")
    assert page.locator("#standings .standing").count() == 4
    page.screenshot(path=str(shots / "match-end-390x844.png"), scale="css")
    assert not watch.problems, watch.problems
    ctx.close()


def test_the_settlement_opens_at_its_top_on_every_hand(settle_server: tuple[str, Any], browser: Browser) -> None:
    """A match of two hands: the first settlement has no standings and opens at its top with the
    next hand's button in view."""
    url, app = settle_server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = "Settle2"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    page.tap("details.create summary")
    page.fill("#room-hands", "2")
    page.tap("#create-form button[type=submit]")
    page.tap("#start-btn")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    page.tap("#trustee-btn")
    page.wait_for_selector("[data-testid=settlement-summary]", state="visible", timeout=HAND_LIMIT * 1000)
    page.wait_for_selector("#settle-next", state="visible")
    deadline = time.monotonic() + 10
    while page.locator("#settle-countdown").inner_text() == "" and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    _fits(page, PHONE["width"], PHONE["height"])
    box = _box(page, "#settle-next")
    assert box["b"] <= PHONE["height"] and box["t"] >= 0
    assert not page.locator("[data-testid=standings]").is_visible()
    assert _table_of(app, name).match is not None
    assert not watch.problems, watch.problems
    ctx.close()
