"""叫马 on a phone (390x844, zh-CN): a fifth person at a table bets on the next hand and sees its result.

A host makes a room and waits; a guest opens the room's watch link on a phone, taps the
``jiao-ma`` button and is told it waits for the deal. The host starts (and hands its seat
to the bot); at the deal the phone shows its tile and the seat it follows, the very bet the
server drew, while the host's page names the bystander only. At the end the phone's
settlement lists the bet with its coins, which are in the guest's balance, and offers the next
hand's bet; the books balance.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser
from test_browser import HAND_LIMIT, SIZES, Watch, _context, _guest, _press, _table_of, browser, served
from test_browser_settlement import _fits, _shots

from xuezhan import i18n
from xuezhan.server import ServerConfig
from xuezhan.server.table import Status
from xuezhan.server.words import display_name
from xuezhan.tiles import tile_name

__all__ = ["browser"]  # the fixture, shared with test_browser

PHONE = SIZES["phone"]["viewport"]


@pytest.fixture(scope="module")
def jiaoma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0, discard_pause=0.05, seed=2026_12_02)
    with served(config, tmp_path_factory.mktemp("browser-jiaoma") / "web.sqlite3") as running:
        yield running


def test_a_fifth_person_bets_on_a_hand_on_a_phone(jiaoma_server: tuple[str, Any], browser: Browser,
                                                   tmp_path: Path) -> None:
    url, app = jiaoma_server
    shots = _shots(tmp_path)
    host_ctx = _context(browser, "desktop")
    host = host_ctx.new_page()
    host_watch = Watch(host)
    _guest(host, url, "Host5")
    host.wait_for_selector("[data-testid=quickstart]", state="visible")
    host.click("details.create summary")
    host.fill("#room-name", "five")
    host.click("#create-form button[type=submit]")
    host.wait_for_selector("#waiting-panel .big-code", state="visible")
    code = host.inner_text("#waiting-panel .big-code").strip()

    ctx = _context(browser, "phone")
    phone = ctx.new_page()
    watch = Watch(phone)
    name = "Fifth5"
    _guest(phone, url, name, path=f"/?watch={code}")
    phone.wait_for_selector(f"#room-code:has-text('{code}')")
    # between hands a spectator is offered 叫马: a button inside the screen, big enough to touch
    ask = phone.locator("[data-testid=jiao-ma] button")
    ask.wait_for(state="visible")
    assert ask.inner_text() == i18n.t("web.jiao_ma.ask", "zh-CN")
    box = ask.bounding_box()
    assert box is not None and box["width"] >= 44 - 0.5 and box["height"] >= 44 - 0.5
    assert box["x"] >= -0.5 and box["x"] + box["width"] <= PHONE["width"] + 0.5
    assert box["y"] >= -0.5 and box["y"] + box["height"] <= PHONE["height"] + 0.5
    phone.screenshot(path=str(shots / "jiaoma-ask.png"), scale="css")
    ask.tap()
    phone.wait_for_selector("[data-testid=jiao-ma][data-state=asked]", state="visible")
    assert i18n.t("web.jiao_ma.asked", "zh-CN") in phone.inner_text("[data-testid=jiao-ma]")
    table = _table_of(app, "Host5")
    assert table.jiao_ma.players() == [name]

    host.click("#start-btn")
    host.wait_for_selector("#trustee-btn", state="visible")
    host.click("#trustee-btn")  # the bot plays the host's seat
    # the phone alone is shown its tile and the seat it follows
    phone.wait_for_selector("[data-testid=jiao-ma][data-state=mine]", state="visible")
    hand = table.hand
    assert hand is not None
    [bet] = hand.bets
    mine = phone.locator("[data-testid=jiao-ma]")
    tile = mine.get_attribute("data-bet-tile")
    assert bet.player == name and bet.tile == hand.game.bystander_tiles[0] and tile == tile_name(bet.tile)
    assert mine.get_attribute("data-bet-seat") == str(bet.seat)
    followed = display_name(table.players[bet.seat] or "", table.names, "zh-CN")
    assert i18n.t("web.jiao_ma.mine", "zh-CN", name=followed) in mine.inner_text()
    phone.screenshot(path=str(shots / "jiaoma-mine.png"), scale="css")
    # everyone else: the bystander's name, never its tile or seat
    host.wait_for_selector("[data-testid=jiao-ma][data-state=others]", state="visible")
    assert name in host.inner_text("[data-testid=jiao-ma]")
    assert host.locator("[data-bet-tile]").count() == 0 and host.locator("[data-bet-seat]").count() == 0

    deadline = time.monotonic() + HAND_LIMIT
    while not phone.locator("[data-testid=settlement][open]").count():
        assert time.monotonic() < deadline, "the hand did not end"
        phone.wait_for_timeout(50)
    phone.wait_for_selector("#settle-bystanders .jm-line", state="visible")
    phone.wait_for_timeout(200)  # the hand's last messages
    phone.screenshot(path=str(shots / "jiaoma-settlement.png"), scale="css")
    assert table.status is Status.BETWEEN
    line = phone.locator("#settle-bystanders .jm-line")
    assert line.count() == 1
    assert line.get_attribute("data-bet-tile") == tile and line.get_attribute("data-bet-seat") == str(bet.seat)
    coins = int(line.locator("[data-amount]").get_attribute("data-amount") or "x")
    assert table.last_hand_end is not None
    end = table.last_hand_end["zh-CN"]
    assert coins == end["bystanders"][0]["coins"] == end["points"][bet.seat] * table.room.coefficient
    assert app.state.bank.account(name).balance == 20_000 + coins
    assert i18n.t("web.jiao_ma.settle_title", "zh-CN") in phone.inner_text("#settle-bystanders")
    _fits(phone, PHONE["width"], PHONE["height"])  # the summary with its bets still fits the screen
    # the next hand is a new bet, asked for from the settlement itself
    again = phone.locator("#settle-bystanders [data-state=ask] button")
    again.wait_for(state="visible")
    box = again.bounding_box()
    assert box is not None and box["height"] >= 44 - 0.5 and box["y"] + box["height"] <= PHONE["height"] + 0.5
    again.tap()
    phone.wait_for_selector("#settle-bystanders [data-state=asked]", state="visible")
    assert table.jiao_ma.players() == [name]
    _press(phone, "#settle-look", True)  # past the settlement, the table says the bet waits for the deal
    phone.wait_for_selector("[data-testid=jiao-ma][data-state=asked]", state="visible")
    totals = app.state.bank.store.ledger.audit()
    assert totals["players"] + totals["house"] == totals["issued"]
    assert not watch.problems and not host_watch.problems, watch.problems + host_watch.problems
    ctx.close()
    host_ctx.close()

