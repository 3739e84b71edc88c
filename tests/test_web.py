"""End to end in a real browser: Playwright drives Debian's Chromium against a real server.

The server (uvicorn) runs in a thread of this test on a free loopback port. Without
Chromium these tests fail, they never skip: ``scripts/ensure_chromium.sh`` installs it.
Screenshots are kept in ``test-artifacts/web/`` (git-ignored).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, Page, sync_playwright

from xuezhan.server import ServerConfig, create_app
from xuezhan.server.table import Status, Table

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts" / "web"
HAND_LIMIT = 180.0  # seconds: a bound for a whole hand, not a timing assertion


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[str, Any]]:
    config = ServerConfig(bot_delay=0.05, bot_claim_delay=0.02, turn_timeout=300.0, claim_timeout=300.0,
                          choice_timeout=300.0, next_hand_delay=600.0)
    app = create_app(f"sqlite:///{tmp_path / 'web.sqlite3'}", config=config)
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                        ws_per_message_deflate=False))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    thread.join(30)


@pytest.fixture
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/ensure_chromium.sh")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


def _page(browser: Browser, errors: list[str]) -> Page:
    page = browser.new_page(viewport={"width": 1366, "height": 860})
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    return page


def _login(page: Page, url: str, nickname: str) -> None:
    page.goto(url + "/")
    page.fill("#nickname", nickname)
    page.click("#login-btn")
    page.wait_for_selector("#quickstart", state="visible")


def _try_click(page: Page, selector: str) -> bool:
    """Click the first visible, enabled match; the table re-renders often, so a miss is not an error."""
    loc = page.locator(selector)
    if loc.count() == 0:
        return False
    try:
        loc.first.click(timeout=1500)
    except Exception:
        return False
    return True


def _table(app: Any) -> Table:
    tables = list(app.state.lobby.tables.values())
    assert len(tables) == 1
    table: Table = tables[0]
    return table


def test_a_whole_hand_against_three_bots_by_clicking(server: tuple[str, Any], browser: Browser) -> None:
    url, app = server
    errors: list[str] = []
    page = _page(browser, errors)
    _login(page, url, "Mei")
    assert page.inner_text("#me-coins") == "20,000"
    page.screenshot(path=str(ARTIFACTS / "01-lobby.png"))
    page.click("#quickstart")
    page.wait_for_selector("#hand .tile", state="visible")
    page.wait_for_selector("#prompt button.suit", state="visible")  # 定缺 first
    page.screenshot(path=str(ARTIFACTS / "02-dingque.png"))

    clicks = {"dingque": 0, "discard": 0, "hu": 0, "pass": 0}
    mid_shot = False
    deadline = time.monotonic() + HAND_LIMIT
    while not page.locator("#settlement[open]").count():
        assert time.monotonic() < deadline, "the hand did not end"
        if _try_click(page, "#actions button.act.hu:not([disabled])"):
            clicks["hu"] += 1
        elif _try_click(page, "#actions button.act.pass:not([disabled])"):
            clicks["pass"] += 1
        elif _try_click(page, "#prompt button.suit:not([disabled])"):
            clicks["dingque"] += 1
        elif _try_click(page, "#drawn .tile.playable") or _try_click(page, "#hand .tile.playable"):
            clicks["discard"] += 1
            if clicks["discard"] == 6 and not mid_shot:
                page.wait_for_timeout(300)
                page.screenshot(path=str(ARTIFACTS / "03-mid-hand.png"))
                mid_shot = True
        else:
            page.wait_for_timeout(25)
    page.wait_for_timeout(200)
    page.screenshot(path=str(ARTIFACTS / "04-settlement.png"))

    table = _table(app)
    assert table.status is Status.BETWEEN and table.hands_finished == 1
    assert table.timeouts == 0  # every decision of the player was a click
    assert clicks["dingque"] == 1 and clicks["discard"] >= 1
    dialog = page.locator("#settlement")
    assert "Hand 1 over" in dialog.inner_text()
    assert page.locator("#settle-table tbody tr").count() == 4
    assert table.hand is not None
    game = table.hand.game
    ledger_items = page.locator("#settle-ledger li")
    assert ledger_items.count() == max(1, len(game.ledger))
    if game.ledger:
        assert "pays" in ledger_items.first.inner_text()
    assert page.locator("#settle-winners .winner").count() == len(game.winners)
    my_coins = page.locator("#settle-table tbody tr").first.locator("td").nth(3).inner_text()
    balance = app.state.bank.account("Mei").balance
    assert balance == 20_000 + int(my_coins.replace(",", "").replace("+", "").replace("–", "0") or 0)

    # look at the table with every hand laid down, then ask for the next hand
    page.click("#settle-look")
    page.wait_for_selector("#settlement:not([open])", state="attached")
    page.screenshot(path=str(ARTIFACTS / "05-table-after.png"))
    page.click("#next-hand")
    deadline = time.monotonic() + 30
    while table.hands_finished == 1 and not table.hand_in_play():
        assert time.monotonic() < deadline, "the next hand did not start"
        time.sleep(0.02)
    assert not errors, errors


def test_a_friend_joins_by_code_and_a_spectator_sees_no_concealed_tiles(
    server: tuple[str, Any], browser: Browser
) -> None:
    url, app = server
    errors: list[str] = []
    host = _page(browser, errors)
    _login(host, url, "Host")
    host.fill("#room-name", "friends")
    host.click("#create-form button[type=submit]")
    host.wait_for_selector("#waiting-panel .big-code", state="visible")
    code = host.inner_text("#waiting-panel .big-code").strip()
    assert len(code) == 10

    friend_ctx = browser.new_context(viewport={"width": 1366, "height": 860})
    friend = friend_ctx.new_page()
    friend.on("pageerror", lambda exc: errors.append(f"friend page error: {exc}"))
    _login(friend, url, "Friend")
    friend.fill("#join-code", code.lower())
    friend.click("#join-form button[type=submit]")
    friend.wait_for_selector("button[data-sit='1']", state="visible")
    friend.click("button[data-sit='1']")
    host.wait_for_function("document.querySelector('#waiting-panel').innerText.includes('Friend')")

    watcher_ctx = browser.new_context(viewport={"width": 1366, "height": 860})
    watcher = watcher_ctx.new_page()
    _login(watcher, url, "Watcher")
    watcher.goto(f"{url}/#/t/{code}/watch")
    watcher.wait_for_selector("#room-code-label:has-text('" + code + "')")

    host.click("#start-btn")
    for page in (host, friend):
        page.wait_for_selector("#hand .tile", state="visible")
    watcher.wait_for_selector("#river-0", state="attached")
    watcher.wait_for_function("document.querySelectorAll('#hand .tile').length >= 13")
    watcher.screenshot(path=str(ARTIFACTS / "06-spectator.png"))
    table = _table(app)
    assert table.players[:2] == ["Host", "Friend"]
    # the spectator's page shows backs for every concealed hand, and no legal action
    faces = watcher.evaluate(
        "Array.from(document.querySelectorAll('#hand .tile, .backs .tile')).map(t => t.dataset.tile)")
    assert faces and set(faces) == {"back"}
    assert watcher.locator("#actions button").count() == 0
    # the friend sees its own tiles face up, and the host's only as backs
    own = friend.evaluate("Array.from(document.querySelectorAll('#hand .tile')).map(t => t.dataset.tile)")
    assert own and "back" not in own
    assert not errors, errors
    friend_ctx.close()
    watcher_ctx.close()
