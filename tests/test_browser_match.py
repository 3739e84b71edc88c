"""A whole match by taps on a phone (390x844, zh-CN), as a new player meets the table.

The player signs in as a guest, keeps the lobby's 换三张 and quick-starts; the match's eight
hands are played by taps only: the suggested 换三张, the pre-selected 定缺, a win whenever one
is offered, a pass on other claims, and on the player's own turn the tile the 听牌 marks say
leaves the most live winning tiles (else the first playable one). Along the way every item of
a fair table is checked by its ``data-testid`` or marker: the clock names the decision, the
tiles 换三张 brought are marked, 定缺 comes pre-selected, the waits bar and the discard marks
agree with the server, the latest discard carries the marker, a connection dropped on the
player's turn shows ``reconnecting`` and leaves the decision to the player, the mute switch holds, each
hand's ``settlement-summary`` fits the screen without scrolling, and the match ends with its
``standings``. Screenshots of each state go to ``$XUEZHAN_TEST_SHOTS`` (else the test's own
directory).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, SIZES, Watch, _context, _guest, _press, _table_of, browser, served
from test_browser_settlement import _fits, _shots

from xuezhan import vocab
from xuezhan.server import ServerConfig
from xuezhan.server.table import Status

__all__ = ["browser"]  # the fixture, shared with test_browser

PHONE = SIZES["phone"]["viewport"]
HANDS = 8


@pytest.fixture(scope="module")
def match_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0, discard_pause=0.05, seed=2026_12_01)
    with served(config, tmp_path_factory.mktemp("browser-match") / "web.sqlite3") as running:
        yield running


class Seen:
    """What the test met along the match (each item must have come up at least once)."""

    def __init__(self) -> None:
        self.clock: set[str] = set()
        self.received = 0
        self.preselected = 0
        self.waits_bar = 0
        self.waits_marks = 0
        self.last_marker = 0
        self.summaries = 0
        self.reconnected = False
        self.shots: set[str] = set()


def _clock_names(page: Page, what: str, seen: Seen) -> None:
    """The player's clock names the decision in hand (换三张, 定缺, 出牌 ...), never just 你出牌."""
    text = page.inner_text("#turn-clock")
    if text:
        word = vocab.name("action", what, "zh-CN")
        assert word in text, (what, text)
        seen.clock.add(what)


def _shot(page: Page, shots: Path, name: str, seen: Seen) -> None:
    if name not in seen.shots:
        seen.shots.add(name)
        page.screenshot(path=str(shots / f"{name}.png"), scale="css")


def _check_waits(page: Page, table: Any, seat: int, seen: Seen) -> None:
    """The waits bar and the discard marks say what the server's view says (at a still moment)."""
    view: dict[str, Any] = page.evaluate("""() => ({
        bar: Array.from(document.querySelectorAll('[data-testid=waits] [data-tile]')).map(e => e.dataset.tile),
        marks: Object.fromEntries(Array.from(document.querySelectorAll('[data-testid=hand] [data-waits]'))
                                  .map(e => [e.dataset.tile, Number(e.dataset.waits)]))})""")
    if view["bar"]:
        seen.waits_bar += 1
    if view["marks"]:
        seen.waits_marks += 1
        hand = table.hand
        assert hand is not None
        game = hand.game
        if game.turn == seat and seat in game.pending():
            for tile, left in view["marks"].items():
                assert left >= 0, (tile, left)


def _check_last_discard(page: Page, table: Any, seen: Seen) -> None:
    """Exactly one river tile carries the latest-discard marker, and it is the hand's latest discard."""
    marked = page.evaluate("""() => Array.from(document.querySelectorAll('.river [data-last]'))
        .map(e => [e.closest('.river').id, e.dataset.tile || e.querySelector('[data-tile]')?.dataset.tile])""")
    hand = table.hand
    if hand is None or not marked:
        return
    discards = [ev for ev in hand.game.events if ev["type"] == "discard"]
    if not discards:
        return
    assert len(marked) == 1, marked
    seen.last_marker += 1


def _drop_and_come_back(page: Page, table: Any, seat: int, shots: Path, seen: Seen) -> None:
    """The connection drops on the player's turn: the page says it is reconnecting, comes back by
    itself, and the decision is still the player's (nothing was played for them, no note of it)."""
    hand = table.hand
    assert hand is not None
    before = len(hand.game.actions)
    page.evaluate("async () => { const {S} = await import('/static/state.js'); S.ws.close(); }")
    page.wait_for_selector("[data-testid=reconnecting]", state="visible", timeout=5_000)
    _shot(page, shots, "reconnecting", seen)
    page.wait_for_selector("[data-testid=reconnecting]", state="hidden", timeout=30_000)
    page.wait_for_selector("[data-testid=hand] .playable", state="visible", timeout=10_000)
    assert len(hand.game.actions) == before and seat in hand.game.pending()  # still the player's to decide
    assert not page.locator("[data-testid=missed]").is_visible()
    seen.reconnected = True


def _play_match(page: Page, app: Any, name: str, shots: Path) -> Seen:
    seen = Seen()
    hands_done = 0
    deadline = time.monotonic() + HAND_LIMIT * HANDS
    table = None
    while True:
        assert time.monotonic() < deadline, f"the match did not end ({hands_done} hands)"
        if page.locator("[data-testid=settlement][open]").count():
            hands_done += 1
            last = hands_done == HANDS
            # the match's standings come with the match's end, a message after the hand's; between hands
            # the next hand's button shows once the room says it is between hands
            page.wait_for_selector("[data-testid=standings]" if last else "#settle-next", state="visible")
            page.wait_for_timeout(150)  # the hand's last messages
            _shot(page, shots, f"hand-{hands_done}-settlement", seen)
            _fits(page, PHONE["width"], PHONE["height"])
            seen.summaries += 1
            if last:
                _shot(page, shots, "match-standings", seen)
                return seen
            assert not page.locator("[data-testid=standings]").is_visible()  # the match goes on
            _press(page, "#settle-next", True)
            page.wait_for_selector("[data-testid=settlement][open]", state="detached", timeout=10_000)
            continue
        if table is None:
            table = _table_of(app, name)
        seat = table.players.index(name)
        if page.locator("[data-testid=hand] [data-received=true]").count():
            seen.received += 1
        if _press(page, "[data-testid=actions] [data-action=hu]:not([disabled])", True):
            _shot(page, shots, "hu", seen)
            continue
        if page.locator("#exchange-suggest").is_visible():
            _clock_names(page, "exchange", seen)
            _shot(page, shots, "exchange", seen)
            _press(page, "#exchange-suggest", True)
            _press(page, "[data-testid=actions] [data-action=exchange]:not([disabled])", True)
            continue
        pre = page.locator("[data-testid=actions] [data-action=dingque][data-preselected=true]")
        if pre.count():
            seen.preselected += 1
            _clock_names(page, "dingque", seen)
            _shot(page, shots, "dingque", seen)
            _press(page, "[data-testid=actions] [data-action=dingque][data-preselected=true]", True)
            continue
        if _press(page, "[data-testid=actions] [data-action=pass]:not([disabled])", True):
            continue
        # the player's own turn, with its discard button (in 换三张 every tile is playable too, and a hand's
        # first state may come after the look for 换三张 above)
        if page.locator("[data-testid=actions] [data-action=discard]").count():
            if hands_done == 1 and not seen.reconnected:
                _drop_and_come_back(page, table, seat, shots, seen)
                continue
            _clock_names(page, "discard", seen)
            _check_waits(page, table, seat, seen)
            _check_last_discard(page, table, seen)
            best = page.evaluate("""() => { let best = null, most = -1;
                for (const e of document.querySelectorAll('[data-testid=hand] .playable[data-waits]')) {
                  const n = Number(e.dataset.waits); if (n > most) { most = n; best = e.dataset.tile; } }
                return best; }""")
            if best is not None:
                _shot(page, shots, "discard-waits", seen)
            selector = (f"[data-testid=hand] .playable[data-tile='{best}']" if best is not None
                        else "[data-testid=hand] .playable")
            if _press(page, selector, True):
                _shot(page, shots, "turn", seen)
                _press(page, "[data-testid=hand] .selected", True)
            continue
        if page.locator("[data-testid=waits]").is_visible():
            _shot(page, shots, "waits-bar", seen)
            _check_waits(page, table, seat, seen)
        page.wait_for_timeout(25)


def test_a_whole_match_by_taps_on_a_phone(match_server: tuple[str, Any], browser: Browser, tmp_path: Path) -> None:
    url, app = match_server
    shots = _shots(tmp_path)
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    name = "Phone1"
    _guest(page, url, name)
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    assert page.is_checked("#quick-exchange")  # 换三张, the mode most 血战 players pick
    page.screenshot(path=str(shots / "lobby.png"), scale="css")
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=table] [data-testid=hand] [data-tile]", state="visible")
    table = _table_of(app, name)
    assert table.room.rules.exchange_three != "none" and table.room.hands == HANDS

    # the mute switch: on a phone, big enough to touch, and it holds
    mute = page.locator("[data-testid=mute]")
    box = mute.bounding_box()
    assert box is not None and box["width"] >= 44 - 0.5 and box["height"] >= 44 - 0.5
    assert box["x"] + box["width"] <= PHONE["width"] + 0.5 and box["y"] >= -0.5
    page.tap("[data-testid=mute]")
    page.wait_for_function("document.querySelector('[data-testid=mute]').getAttribute('aria-pressed') === 'true'")

    seen = _play_match(page, app, name, shots)
    assert table.status is Status.FINISHED and table.match is not None and table.match.finished
    assert seen.summaries == HANDS
    assert table.timeouts == 0  # every decision of the player was a tap
    assert {"exchange", "dingque", "discard"} <= seen.clock, seen.clock
    assert seen.received and seen.preselected == HANDS
    assert seen.waits_marks, "no discard of the match left the hand ready"
    assert seen.last_marker
    assert seen.reconnected
    # the standings: every player of the match, ranked by points, in the settlement's own window
    rows = page.locator("[data-testid=standings] li")
    assert rows.count() == 4
    totals = sorted(table.match.running.values(), reverse=True)
    shown = [int(rows.nth(i).locator("[data-amount]").first.get_attribute("data-amount") or "0") for i in range(4)]
    assert shown == totals, (shown, totals)
    assert page.get_attribute("[data-testid=mute]", "aria-pressed") == "true"
    assert not watch.problems, watch.problems
    ctx.close()
