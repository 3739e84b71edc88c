"""End to end in a real browser: Playwright drives Debian's Chromium against a real server.

The server (uvicorn) runs in a thread of this module on a free loopback port, with bots that
act at once and people's clocks long enough for a browser. Without Chromium these tests
fail, they never skip: ``scripts/ensure_chromium.sh`` installs it.

A whole hand is played by taps on a phone (390x844 upright and 844x390 on its side) and a
tablet, and by clicks on a desktop; at each size nothing scrolls sideways and every tile of the hand and every button of
the decision lies inside the screen and is at least a touch target (44 px) big.

``XUEZHAN_SCREENSHOTS=1`` also writes the screenshots of docs/screenshots/ (phone and
desktop); without it nothing is written.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from killed import until
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from xuezhan import i18n
from xuezhan.i18n import Lang
from xuezhan.server import ServerConfig, create_app
from xuezhan.server.table import Status, Table
from xuezhan.server.words import display_name
from xuezhan.store.pgtemp import free_port
from xuezhan.words import event_words

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
SHOTS = Path(__file__).resolve().parent.parent / "docs" / "screenshots"
WRITE_SHOTS = os.environ.get("XUEZHAN_SCREENSHOTS") == "1"
HAND_LIMIT = 120.0  # seconds: a bound for a whole hand, not a timing assertion
TOUCH = 44

SIZES: dict[str, dict[str, Any]] = {
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
              "device_scale_factor": 2},
    "tablet": {"viewport": {"width": 768, "height": 1024}, "has_touch": True},
    "landscape": {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True},
    "desktop": {"viewport": {"width": 1366, "height": 768}},
}
SHOT_SIZES = ("phone", "desktop")
_names = itertools.count(1)


@contextmanager
def served(config: ServerConfig, db: Path, port: int | None = None) -> Iterator[tuple[str, Any]]:
    """The web table on ``db`` with ``config``, served by uvicorn in a thread (on ``port``, else a
    free one): its URL and app."""
    app = create_app(f"sqlite:///{db}", config=config)
    port = free_port() if port is None else port
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                        ws_per_message_deflate=False))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not srv.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        srv.should_exit = True
        thread.join(30)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0)
    with served(config, tmp_path_factory.mktemp("browser") / "web.sqlite3") as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: run scripts/ensure_chromium.sh")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


class Watch:
    """What went wrong in a page: script errors, console errors, server errors."""

    def __init__(self, page: Page) -> None:
        self.problems: list[str] = []
        page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))
        # a contract endpoint this server may not have yet answers 404 and the page does without it
        page.on("console", lambda m: self.problems.append(f"console: {m.text}")
                if m.type == "error" and "Failed to load resource" not in m.text else None)
        page.on("response", lambda r: self.problems.append(f"{r.status} {r.url}") if r.status >= 500 else None)


def _context(browser: Browser, size: str, lang: str = "zh-CN") -> BrowserContext:
    opts: dict[str, Any] = dict(SIZES[size])
    # bypass_csp lets wait_for_function poll its expression; the page itself runs under the CSP
    return browser.new_context(locale=lang, extra_http_headers={"Accept-Language": lang}, bypass_csp=True, **opts)


def _press(page: Page, selector: str, touch: bool) -> bool:
    """Tap (or click) the first match; the table re-renders often, so a miss is not an error."""
    loc = page.locator(selector)
    if loc.count() == 0:
        return False
    try:
        if touch:
            loc.first.tap(timeout=1500)
        else:
            loc.first.click(timeout=1500)
    except Exception:
        return False
    return True


def _guest(page: Page, url: str, name: str, path: str = "/") -> None:
    page.goto(url + path)
    page.wait_for_selector("#login-name", state="visible")
    page.fill("#login-name", name)
    page.click("#guest-btn")


def _table_of(app: Any, player: str) -> Table:
    tables = [t for t in app.state.lobby.tables.values() if player in t.players]
    assert len(tables) == 1
    table: Table = tables[0]
    return table


def _check_layout(page: Page, size: str) -> int:
    """No sideways scrolling; every hand tile and decision button on screen and big enough to touch."""
    width = SIZES[size]["viewport"]["width"]
    height = SIZES[size]["viewport"]["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate("document.body.scrollWidth") <= width
    boxes = page.evaluate("""() => Array.from(document.querySelectorAll(
        '[data-testid=hand] [data-tile], [data-testid=actions] button')).map(e => {
          const r = e.getBoundingClientRect();
          return {what: e.dataset.tile || e.dataset.action || e.id, l: r.left, t: r.top, r: r.right, b: r.bottom,
                  w: r.width, h: r.height};
        })""")
    assert boxes
    # the four rivers lie side by side, never over one another, and inside the screen
    rivers = page.evaluate("""() => [0, 1, 2, 3].map(i => {
        const r = document.getElementById('river-' + i).getBoundingClientRect();
        return [r.left, r.top, r.right, r.bottom]; })""")
    for a, b in itertools.combinations(rivers, 2):
        assert a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5, (size, a, b)
    for r in rivers:
        assert r[0] >= -0.5 and r[2] <= width + 0.5 and r[2] > r[0] and r[3] > r[1], (size, r)
    for box in boxes:
        assert box["l"] >= -0.5 and box["t"] >= -0.5, (size, box)
        assert box["r"] <= width + 0.5 and box["b"] <= height + 0.5, (size, box)
        assert box["w"] >= TOUCH - 0.5 and box["h"] >= TOUCH - 0.5, (size, box)
    return len(boxes)


def _play_hand(page: Page, size: str, touch: bool) -> dict[str, int]:
    """Play one hand to its settlement: win when offered, else pass claims, 定缺 on the
    first suit offered, and discard by tapping a tile twice."""
    presses = {"dingque": 0, "discard": 0, "hu": 0, "pass": 0, "layout": 0}
    deadline = time.monotonic() + HAND_LIMIT
    while not page.locator("[data-testid=settlement][open]").count():
        assert time.monotonic() < deadline, "the hand did not end"
        if presses["layout"] < 3 and page.locator("[data-testid=actions] button:not([disabled])").count():
            try:
                presses["layout"] += 1 if _check_layout(page, size) else 0
            except AssertionError:
                page.wait_for_timeout(100)  # the table may have moved on mid-measure: measure once more
                presses["layout"] += 1 if _check_layout(page, size) else 0
        if _press(page, "[data-testid=actions] [data-action=hu]:not([disabled])", touch):
            presses["hu"] += 1
        elif _press(page, "[data-testid=actions] [data-action=pass]:not([disabled])", touch):
            presses["pass"] += 1
        elif _press(page, "[data-testid=actions] [data-action=dingque]:not([disabled])", touch):
            presses["dingque"] += 1
        elif _press(page, "[data-testid=hand] .playable", touch):
            # the first tap picks the tile, the second discards it
            if _press(page, "[data-testid=hand] .selected", touch):
                presses["discard"] += 1
                if presses["discard"] == 4 and WRITE_SHOTS and size in SHOT_SIZES:
                    page.wait_for_timeout(200)
                    page.screenshot(path=str(SHOTS / f"{size}-table.png"), scale="css")
        else:
            page.wait_for_timeout(25)
    return presses


@pytest.mark.parametrize("size", list(SIZES))
def test_a_whole_hand_by_taps_and_clicks_at_every_size(server: tuple[str, Any], browser: Browser, size: str) -> None:
    url, app = server
    touch = bool(SIZES[size].get("has_touch"))
    ctx = _context(browser, size)
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Mei{next(_names)}"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["viewport"]["width"]
    if WRITE_SHOTS and size in SHOT_SIZES:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{size}-lobby.png"), scale="css")
    page.uncheck("#quick-exchange")  # a hand without 换三张: 定缺 comes first
    _press(page, "[data-testid=quickstart]", touch)
    page.wait_for_selector("[data-testid=table] [data-testid=hand] [data-tile]", state="visible")
    # the hand's children are its tiles, each marked with its name
    tiles = page.evaluate("Array.from(document.querySelectorAll('[data-testid=hand] [data-tile]'))"
                          ".map(t => t.parentElement.dataset.testid + ':' + t.dataset.tile)")
    assert len(tiles) in (13, 14) and all(t.startswith("hand:") and t != "hand:back" for t in tiles), tiles
    # a visible countdown on the player's own decision
    page.wait_for_selector("#my-clock b", state="visible")
    assert page.inner_text("#my-clock b").strip()[0].isdigit()

    presses = _play_hand(page, size, touch)
    table = _table_of(app, name)
    assert table.status is Status.BETWEEN and table.hands_finished == 1
    assert table.timeouts == 0  # every decision of the player was a tap or a click
    assert presses["dingque"] == 1 and presses["discard"] >= 1 and presses["layout"] >= 1, presses

    dialog = page.locator("[data-testid=settlement]")
    page.wait_for_function("document.querySelector('#settle-countdown').textContent.length > 0")
    if WRITE_SHOTS and size in SHOT_SIZES:
        page.screenshot(path=str(SHOTS / f"{size}-settlement.png"), scale="css")
    assert i18n.t("web.settle.title", "zh-CN", n=1) in dialog.inner_text()
    assert page.locator("#settle-rows tr").count() == 4
    assert table.hand is not None
    game = table.hand.game
    assert page.locator("#settle-ledger li").count() == max(1, len(game.ledger))
    assert page.locator("#settle-winners .winner").count() == len(game.winners)
    # every discard lies in its river, and a claimed one (taken into a peng or kong) is marked
    seats = [game.seat_state(i) for i in range(4)]
    assert page.locator(".river .rt").count() == sum(len(s.river) for s in seats)
    claimed = sum(1 for s in seats for st in s.river_state if st == 1)
    assert page.locator(".river .rt.claimed").count() == claimed
    my_coins = page.locator("#settle-rows tr").nth(table.players.index(name)).locator("td").nth(2)
    assert app.state.bank.account(name).balance == 20_000 + int(my_coins.locator("[data-amount]").get_attribute(
        "data-amount") or "x")
    # the next hand's countdown, in the dialog
    assert any(ch.isdigit() for ch in page.inner_text("#settle-countdown"))

    # leaving from the settlement closes it and shows the lobby
    _press(page, "#settle-leave", touch)
    page.wait_for_selector("[data-testid=lobby]", state="visible")
    page.wait_for_timeout(300)
    assert page.locator("[data-testid=settlement][open]").count() == 0
    assert not watch.problems, watch.problems
    ctx.close()


def test_leaving_during_dingque_leaves_no_window_over_the_lobby(server: tuple[str, Any], browser: Browser) -> None:
    url, app = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Leaver{next(_names)}"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    page.uncheck("#quick-exchange")  # a hand without 换三张: 定缺 comes first
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    table = _table_of(app, name)
    page.tap("#leave-btn")
    page.wait_for_selector("#confirm[open]")
    assert i18n.t("web.leave.title", "zh-CN") in page.inner_text("#confirm")
    page.tap("#confirm-ok")
    page.wait_for_selector("[data-testid=lobby]", state="visible")
    deadline = time.monotonic() + 20
    while table.hand_in_play() and time.monotonic() < deadline:  # the bots play the escaped hand out
        time.sleep(0.05)
    page.wait_for_timeout(500)
    assert page.locator("dialog[open]").count() == 0
    assert page.locator("[data-testid=lobby]").is_visible()
    assert not page.locator("[data-testid=table]").is_visible()
    assert not watch.problems, watch.problems
    ctx.close()


def test_the_clock_names_the_decision_during_dingque(server: tuple[str, Any], browser: Browser) -> None:
    """The seat's clock says which decision it is counting down: 定缺 here, not 出牌."""
    url, _ = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    _guest(page, url, f"Clock{next(_names)}")
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    page.uncheck("#quick-exchange")  # a hand without 换三张: 定缺 comes first
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    page.wait_for_function("document.getElementById('turn-clock').textContent.length > 0")
    clock = page.inner_text("#turn-clock")
    assert clock.startswith("你定缺 · ") and "出牌" not in clock, clock
    ctx.close()


def test_the_page_language_follows_the_choice(server: tuple[str, Any], browser: Browser) -> None:
    url, _ = server
    ctx = _context(browser, "phone", lang="en-US")
    page = ctx.new_page()
    watch = Watch(page)
    page.goto(url + "/")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("#login-btn") == i18n.t("web.login.login", "en")
    for lang in ("zh-TW", "zh-CN", "en", "zh-TW"):
        page.select_option("#lang-select", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
        assert page.inner_text("#login-btn") == i18n.t("web.login.login", lang)
        assert page.title() == i18n.t("web.brand", lang)
    page.reload()  # the choice is kept
    page.wait_for_function("document.documentElement.lang === 'zh-TW'")
    assert page.inner_text("#guest-btn") == i18n.t("web.login.guest", "zh-TW")
    assert not watch.problems, watch.problems
    ctx.close()


def test_the_log_shows_the_servers_words_and_follows_the_language(server: tuple[str, Any], browser: Browser) -> None:
    url, app = server
    ctx = _context(browser, "desktop")
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Reader{next(_names)}"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    page.uncheck("#quick-exchange")  # a hand without 换三张: 定缺 comes first
    page.click("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    table = _table_of(app, name)
    assert table.hand is not None
    seat = table.players.index(name)
    start = table.hand.game.events[0]
    assert start["type"] == "start"

    def first_line(lang: Lang) -> str:
        names = [display_name(p, table.names, lang) if p is not None else "?" for p in table.players]
        words = event_words(start, seat, lang=lang, names=names)
        assert words
        return words

    def log_starts_with(line: str) -> None:
        page.wait_for_function("(line) => { const li = document.querySelector('#log li');"
                               " return li !== null && li.textContent.trim() === line; }", arg=line)

    log_starts_with(first_line("zh-CN"))
    # another language: the server words the hand again, and the seat's decision is still its own
    page.select_option("#table-lang", "en")
    log_starts_with(first_line("en"))
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    assert not table.trustee(seat) and seat in table.hand.game.pending()
    assert not watch.problems, watch.problems
    ctx.close()


def test_a_friend_joins_by_code_and_a_spectator_by_link_sees_no_concealed_tile(
    server: tuple[str, Any], browser: Browser
) -> None:
    url, app = server
    host_ctx = _context(browser, "desktop")
    host = host_ctx.new_page()
    watch = Watch(host)
    host_name = f"Host{next(_names)}"
    _guest(host, url, host_name)
    host.wait_for_selector("[data-testid=quickstart]", state="visible")
    host.click("details.create summary")
    host.fill("#room-name", "friends")
    host.click("#create-form button[type=submit]")
    host.wait_for_selector("#waiting-panel .big-code", state="visible")
    code = host.inner_text("#waiting-panel .big-code").strip()
    assert len(code) == 10

    friend_ctx = _context(browser, "phone")
    friend = friend_ctx.new_page()
    friend_watch = Watch(friend)
    friend_name = f"Friend{next(_names)}"
    _guest(friend, url, friend_name)
    friend.wait_for_selector("[data-testid=quickstart]", state="visible")
    friend.fill("#join-code", code.lower())
    friend.tap("#join-form button[type=submit]")
    friend.wait_for_selector("button[data-sit='1']", state="visible")
    friend.tap("button[data-sit='1']")
    host.wait_for_function(f"document.querySelector('#waiting-panel').innerText.includes('{friend_name}')")

    # the link a spectator is sent: sign in first, then the table opens to watch
    watcher_ctx = _context(browser, "tablet")
    watcher = watcher_ctx.new_page()
    _guest(watcher, url, f"Watcher{next(_names)}", path=f"/?watch={code}")
    watcher.wait_for_selector(f"#room-code:has-text('{code}')")
    assert watcher.evaluate("location.hash") == f"#/t/{code}/watch"

    host.click("#start-btn")
    for page in (host, friend):
        page.wait_for_selector("[data-testid=hand] [data-tile]", state="visible")
    watcher.wait_for_function("document.querySelectorAll('[data-testid=hand] [data-tile]').length >= 13")
    table = _table_of(app, host_name)
    assert table.players[:2] == [host_name, friend_name]
    # the spectator's page shows backs for every concealed hand, and no action at all
    faces = watcher.evaluate("Array.from(document.querySelectorAll('[data-tile]')).map(t => t.dataset.tile)")
    hand_faces = watcher.evaluate(
        "Array.from(document.querySelectorAll('[data-testid=hand] [data-tile]')).map(t => t.dataset.tile)")
    assert hand_faces and set(hand_faces) == {"back"}
    assert watcher.locator("[data-testid=actions] button").count() == 0
    assert len(faces) == len(hand_faces) + len(watcher.evaluate(
        "Array.from(document.querySelectorAll('.river [data-tile], .meld [data-tile], .hero-tiles [data-tile]'))"))
    # the friend sees its own tiles face up, and the host's not at all
    own = friend.evaluate(
        "Array.from(document.querySelectorAll('[data-testid=hand] [data-tile]')).map(t => t.dataset.tile)")
    assert own and "back" not in own
    assert not watch.problems and not friend_watch.problems, watch.problems + friend_watch.problems
    for c in (host_ctx, friend_ctx, watcher_ctx):
        c.close()


# --- accounts, tiers, the wallet and the replay (the server's side of "Web: accounts and the page") ---


PASSWORD = "correct horse 1"


def _register(page: Any, url: str, name: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#login-name", state="visible")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.tap("#register-btn")
    page.wait_for_selector("[data-testid=quickstart]", state="visible")


def test_register_tiers_stake_warning_wallet_and_login_again(server: tuple[str, Any], browser: Browser) -> None:
    url, app = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Ann{next(_names)}"
    _register(page, url, name)
    page.wait_for_selector("#tier-list .tier", state="visible")
    tiers = page.evaluate("Array.from(document.querySelectorAll('#tier-list .tier')).map(b => b.dataset.tier)")
    assert tiers == ["novice", "junior", "middle", "senior"]
    # the default is the highest tier whose worst hand the balance covers: no warning there
    assert page.get_attribute("#tier-list .tier.chosen", "data-tier") == "junior"
    assert page.is_disabled("#tier-list .tier[data-tier=senior]") is False  # shown, with what it needs
    # a tier whose worst hand is more than the balance asks first; cancel changes nothing
    page.tap("#tier-list .tier[data-tier=middle]")
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("#confirm[open]")
    assert any(ch.isdigit() for ch in page.inner_text("#confirm-text"))  # the server's sentence, with the stake
    page.tap("#confirm-cancel")
    page.wait_for_timeout(300)
    assert page.evaluate("location.hash") in ("", "#/")
    # accepting the risk seats the player
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("#confirm[open]")
    page.tap("#confirm-ok")
    page.wait_for_selector("[data-testid=table] [data-testid=hand] [data-tile]", state="visible")
    table = _table_of(app, name)
    assert table.hand is not None
    page.tap("#leave-btn")
    page.wait_for_selector("#confirm[open]")
    page.tap("#confirm-ok")
    page.wait_for_selector("[data-testid=lobby]", state="visible")
    # the hand left (逃跑) plays on without the player and is settled at its end, the escape's
    # coins with it: the balance is read once it is, or a slow hand would change it later
    until(lambda: table.hands_finished >= 1, "the hand left was not settled", 60.0, every=0.05)

    # the wallet: the balance and the ledger in words
    page.goto(url + "/#/wallet")
    page.wait_for_selector("#ledger-list li", state="visible")
    assert page.locator("#ledger-list li").count() >= 1
    assert i18n.t("common.coins", "zh-CN", count=0).split(" ")[-1] in page.inner_text("#wallet-coins")
    coins = page.inner_text("#me-coins")

    # log out; a wrong password is refused with the server's words; the right one signs in again
    page.tap("#logout-btn")
    page.wait_for_selector("#login-name", state="visible")
    page.fill("#login-name", name)
    page.fill("#login-password", "wrong password")
    page.tap("#login-btn")
    page.wait_for_function("document.querySelector('#login-error').textContent.length > 0")
    page.fill("#login-password", PASSWORD)
    page.tap("#login-btn")
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    assert page.inner_text("#me-coins") == coins
    assert not watch.problems, watch.problems
    ctx.close()


def test_a_guest_keeps_the_account_and_the_language_follows_the_account(
    server: tuple[str, Any], browser: Browser
) -> None:
    url, _ = server
    ctx = _context(browser, "tablet")
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Bo{next(_names)}"
    page.goto(url + "/")
    page.fill("#login-name", name)
    page.tap("#guest-btn")
    page.wait_for_selector("#guest-note", state="visible")
    page.select_option("#lang-select", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.goto(url + "/#/wallet")
    page.wait_for_selector("#wallet-guest", state="visible")
    page.fill("#password-new", "short")
    page.tap("#password-form button[type=submit]")
    page.fill("#password-new", PASSWORD)
    page.tap("#password-form button[type=submit]")
    page.wait_for_selector("#wallet-guest", state="hidden")
    assert not watch.problems, watch.problems
    ctx.close()

    # another device, in Chinese: signing in brings the account's language back
    other = _context(browser, "phone", lang="zh-CN")
    page = other.new_page()
    page.goto(url + "/")
    page.wait_for_function("document.documentElement.lang === 'zh-CN'")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.tap("#login-btn")
    page.wait_for_selector("[data-testid=quickstart]", state="visible")
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.inner_text("[data-testid=quickstart]") == i18n.t("web.lobby.quick_button", "en")
    other.close()


def test_a_finished_hand_replays_step_by_step(server: tuple[str, Any], browser: Browser) -> None:
    url, _ = server
    ctx = _context(browser, "desktop")
    page = ctx.new_page()
    watch = Watch(page)
    name = f"Cy{next(_names)}"
    page.goto(url + "/")
    page.fill("#login-name", name)
    page.click("#guest-btn")
    page.uncheck("#quick-exchange")  # a hand without 换三张: 定缺 comes first
    page.click("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    page.click("#trustee-btn")  # the bot plays the hand out for the player
    deadline = time.monotonic() + 60
    while not page.locator("[data-testid=settlement][open]").count():
        assert time.monotonic() < deadline
        page.wait_for_timeout(50)
    page.click("#settle-leave")
    page.wait_for_selector("[data-replay]", state="visible")
    page.click("[data-replay]")
    page.wait_for_selector("#replay-line", state="visible")
    first = page.inner_text("#replay-line")
    hand = page.evaluate(
        "Array.from(document.querySelectorAll('[data-testid=hand] [data-tile]')).map(t => t.dataset.tile)")
    assert len(hand) in (13, 14) and "back" not in hand
    page.click("#replay-next")
    assert page.inner_text("#replay-line") != first
    page.click("#replay-last")
    page.wait_for_selector(".replay-result li", state="visible")
    assert not watch.problems, watch.problems
    ctx.close()
