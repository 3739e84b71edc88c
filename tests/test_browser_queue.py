"""People to play with, in a real browser on a phone (390x844, zh-CN): the lobby's queue button
seats the player (bots fill after ``queue_wait``), 换三张 is on by default, the tiles it brought
are marked in the hand until the player's first discard, and 定缺 comes with the shortest suit
chosen; a ``/r/CODE`` link to no open room says so in the lobby.

Screenshots of each state go to the test's ``tmp_path``."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, Watch, _context, _guest, _press, browser, served

from xuezhan import i18n
from xuezhan.server import ServerConfig
from xuezhan.server.queue_table import QueueTable
from xuezhan.tiles import tile_name

__all__ = ["browser"]  # the fixture, shared with test_browser


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.05, bot_claim_delay=0.02, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0, queue_wait=1.0)
    with served(config, tmp_path_factory.mktemp("browser-queue") / "web.sqlite3") as running:
        yield running


def _game(table: QueueTable) -> Any:
    hand = table.hand
    assert hand is not None
    return hand.game


def _void(table: QueueTable) -> int | None:
    void: int | None = _game(table).seat_state(0).void
    return void


def _hand(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("""() => Array.from(
        document.querySelectorAll('[data-testid=hand] [data-tile]')).map(t => ({
          tile: t.dataset.tile, received: t.dataset.received === 'true'}))""")
    return found


def test_the_queue_seats_the_player_and_the_hand_shows_the_exchange_and_a_preselected_void(
        server: tuple[str, Any], browser: Browser, tmp_path: Path) -> None:
    url, app = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = "Queuer"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=lobby] [data-testid=queue]", state="visible")
    assert page.is_checked("#quick-exchange")  # 换三张 unless the player unticks it
    page.tap("[data-testid=queue]")
    page.wait_for_selector("#queue-status", state="visible")
    assert page.inner_text("#queue-cancel") == i18n.t("web.queue.cancel", "zh-CN")
    page.screenshot(path=str(tmp_path / "1-queued.png"))
    # nobody else comes: after queue_wait the bots take the other seats and the page goes to the table
    page.wait_for_selector("[data-testid=table] [data-testid=hand] [data-tile]", state="visible")
    code = page.evaluate("location.hash").removeprefix("#/t/")
    table = app.state.lobby.tables[code]
    assert isinstance(table, QueueTable) and table.players[0] == name
    assert table.room.rules.exchange_three == "random"
    assert page.evaluate("fetch('/api/queue').then(r => r.json())") == {"queued": False, "table": code}

    # 换三张: the suggestion, then the exchange
    page.wait_for_selector("#exchange-suggest", state="visible")
    page.screenshot(path=str(tmp_path / "2-exchange.png"))
    page.tap("#exchange-suggest")
    page.tap("[data-testid=actions] [data-action=exchange]:not([disabled])")
    page.wait_for_selector("[data-testid=hand] [data-received=true]", state="attached")
    marked = Counter(t["tile"] for t in _hand(page) if t["received"])
    got = next(ev for ev in _game(table).events if ev["type"] == "exchange_received" and ev["seat"] == 0)
    assert marked == Counter(tile_name(t) for t in got["tiles"])

    # 定缺: the suit with the fewest tiles is chosen already; one tap confirms it
    page.wait_for_selector("[data-testid=actions] [data-action=dingque][data-preselected=true]", state="visible")
    page.screenshot(path=str(tmp_path / "3-dingque.png"))
    counts = Counter(t["tile"][1] for t in _hand(page))
    chosen = page.get_attribute("[data-action=dingque][data-preselected=true]", "data-suit")
    assert chosen is not None and counts[chosen] == min(counts[s] for s in "mps")
    assert page.get_attribute("[data-action=dingque][data-preselected=true]", "aria-pressed") == "true"
    assert page.locator("[data-action=dingque][data-preselected]").count() == 1
    page.tap("[data-action=dingque][data-preselected=true]")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="detached")
    deadline = time.monotonic() + HAND_LIMIT
    while (void := _void(table)) is None:
        assert time.monotonic() < deadline, "定缺 was not taken"
        time.sleep(0.02)
    assert "mps"[void] == chosen
    assert sum(t["received"] for t in _hand(page)) == 3  # still marked: the player has not discarded

    # the first discard: the marks go
    discarded = False
    while not discarded:
        assert time.monotonic() < deadline, "no discard came"
        if page.locator("[data-testid=settlement][open]").count():
            break  # somebody won before the player's turn came: nothing more to see
        if _press(page, "[data-testid=actions] [data-action=hu]:not([disabled])", True):
            continue
        if _press(page, "[data-testid=actions] [data-action=pass]:not([disabled])", True):
            continue
        if _press(page, "[data-testid=hand] .playable", True):
            page.screenshot(path=str(tmp_path / "4-turn.png"))
            discarded = _press(page, "[data-testid=hand] .selected", True)
        else:
            page.wait_for_timeout(25)
    if discarded:
        page.wait_for_function("document.querySelectorAll('[data-testid=hand] [data-received]').length === 0")
    assert not watch.problems, watch.problems
    ctx.close()


def test_a_link_to_no_open_room_says_so_in_the_lobby(server: tuple[str, Any], browser: Browser,
                                                      tmp_path: Path) -> None:
    url, _ = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    _guest(page, url, "Linker")
    page.wait_for_selector("[data-testid=lobby] [data-testid=queue]", state="visible")
    page.goto(url + "/r/1234567")
    page.wait_for_selector("[data-testid=lobby]", state="visible")
    expected = i18n.t("web.room.unknown_code", "zh-CN", code="1234567")
    page.wait_for_function(f"document.getElementById('join-error').textContent === {expected!r}")
    assert page.evaluate("location.pathname + location.hash") in ("/#/", "/")
    page.screenshot(path=str(tmp_path / "unknown-code.png"))
    # a friends' room made in the lobby has six digits, and its link opens it
    page.click("details.create summary")
    page.uncheck("#room-public")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#waiting-panel .big-code", state="visible")
    code = page.inner_text("#waiting-panel .big-code").strip()
    assert len(code) == 6 and code.isdigit()
    other = ctx.new_page()
    other.goto(url + f"/r/{code}")
    other.wait_for_selector(f"#room-code:has-text('{code}')")
    assert other.evaluate("location.pathname + location.hash") == f"/#/t/{code}"
    ctx.close()
