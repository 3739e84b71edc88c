"""A tournament in real browsers on phones (390x844, zh-CN): four guests enter a two-round
tournament of one hand a round from the lobby's list (``tournaments``), one of them goes to
its table from the standings page (``tournament-standings``) and back, another stays at its
table to its match's end and goes back from the dialog (``match-tournament``, no 再来一场), and
all four see the standings follow the rounds live, then the places and the prizes; the wallet shows the entry
and the prize, and the books balance.

Nobody plays by hand here: each person's seat is played by its stand-in once its short time
runs out (as for anyone away from a tournament table). Screenshots go to the test's ``tmp_path``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, SIZES, Watch, _context, _guest, browser, served

from xuezhan.server import ServerConfig
from xuezhan.server.tournament_config import TournamentConfig
from xuezhan.server.tournaments import TournamentTable
from xuezhan.store import Store

__all__ = ["browser"]  # the fixture, shared with test_browser

PHONE = SIZES["phone"]["viewport"]
NAMES = ("春", "夏", "秋", "冬")
ENTRY = 500
PRIZES = [3000, 2000, 1000]
LEAD = 25.0
"""Seconds from the server's start to the tournament's: time for four phones to sign in and enter
(a bound: once they have, the tournaments' clock skips the rest, :func:`_skip_to_the_start`)."""


@pytest.fixture(scope="module")
def cup_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any, Path]]:
    starts = (datetime.now(UTC) + timedelta(seconds=LEAD)).isoformat()
    cup = TournamentConfig.from_mapping({"id": "cup", "name": "周末杯", "starts": starts, "entry": ENTRY, "rounds": 2,
                                         "hands_per_round": 1, "prizes": PRIZES})
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=0.3, claim_timeout=0.3,
                               choice_timeout=0.3, next_hand_delay=0.5, discard_pause=0.0, tournaments=(cup,))
    db = tmp_path_factory.mktemp("browser-tournament") / "web.sqlite3"
    with served(config, db) as (url, app):
        yield url, app, db


def _standings(page: Page) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = page.evaluate("""() => Array.from(document.querySelectorAll('#standings-list tr'))
        .map(tr => ({place: tr.children[0].textContent, name: tr.children[1].textContent,
                     points: tr.children[2].textContent, prize: tr.children[3].textContent}))""")
    return rows


def _skip_to_the_start(app: Any) -> None:
    """The tournaments' clock moves on to the cup's start and the director looks at once: the start
    comes as at its hour, without the rest of the lead to wait through."""
    director = app.state.lobby.tournaments
    skip = max(director.held["cup"].starts_at - datetime.now(UTC), timedelta(0))
    director.clock = lambda: datetime.now(UTC) + skip
    task = director._task  # the director's task runs on the server thread's loop
    assert task is not None
    task.get_loop().call_soon_threadsafe(director.wake)


def _fits(page: Page) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page scrolls sideways: {width} px"


def test_four_guests_enter_a_two_round_tournament_and_see_the_standings_and_prizes(
        cup_server: tuple[str, Any, Path], browser: Browser, tmp_path: Path) -> None:
    url, app, db = cup_server
    pages: list[Page] = []
    watches: list[Watch] = []
    for name in NAMES:
        page = _context(browser, "phone").new_page()
        watches.append(Watch(page))
        _guest(page, url, name)
        page.wait_for_selector("[data-testid=tournaments] [data-tournament=cup] [data-testid=tournament-join]")
        page.click("[data-testid=tournaments] [data-tournament=cup] [data-testid=tournament-join]")
        page.wait_for_function(
            "() => document.querySelector('[data-tournament=cup]')?.textContent.includes('退出报名')")
        pages.append(page)
    first = pages[0]
    assert "周末杯" in first.inner_text("[data-testid=tournaments]") and "报名中" in first.inner_text(
        "[data-testid=tournaments]")
    _fits(first)
    first.screenshot(path=str(tmp_path / "lobby-tournaments.png"))
    held = app.state.lobby.tournaments.held["cup"]
    assert held.entrants == list(NAMES) and held.status == "open", "four entries before the start"

    for page in pages:
        page.click("[data-tournament=cup] [data-testid=tournament-view]")
        page.wait_for_selector("[data-testid=tournament-standings]", state="visible")
        # the page shows at once, its title, status and standings once the tournament has been read
        page.wait_for_function("() => document.getElementById('tournament-title').textContent.length > 0")
    assert [r["name"] for r in _standings(first)] == list(NAMES)
    assert "报名中" in first.inner_text("#tournament-status")
    _skip_to_the_start(app)

    # the start: four at one table, and the standings page offers each their table
    first.wait_for_selector("[data-testid=tournament-table]", timeout=(LEAD + 30) * 1000)
    assert "第 1/2 轮" in first.inner_text("#tournament-status")
    first.screenshot(path=str(tmp_path / "standings-round-1.png"))
    first.click("[data-testid=tournament-table]")
    first.wait_for_selector("[data-testid=table]", state="visible")
    code = first.evaluate("() => location.hash").split("/")[2]
    table = app.state.lobby.tables[code]
    assert isinstance(table, TournamentTable) and sorted(p for p in table.players if p) == sorted(NAMES)
    first.wait_for_function("() => document.querySelector('#room-code').textContent.length > 0")
    first.screenshot(path=str(tmp_path / "tournament-table.png"))
    first.goto(url + "/#/tournament/cup")
    first.wait_for_selector("[data-testid=tournament-standings]", state="visible")

    # another stays at its table to the end of its match: no 再来一场 there (the server would refuse
    # it), the way back to the standings instead
    second = pages[1]
    second.click("[data-testid=tournament-table]")
    second.wait_for_selector("[data-testid=table]", state="visible")
    second.wait_for_selector("#settlement[open]", timeout=HAND_LIMIT * 1000)
    second.click("#settle-look")
    second.wait_for_selector("#match-end[open]", timeout=HAND_LIMIT * 1000)
    assert second.locator("#match-again").is_hidden()
    back = second.locator("#match-end [data-testid=match-tournament]")
    assert back.is_visible() and back.inner_text() == "比赛名次"
    _fits(second)
    second.screenshot(path=str(tmp_path / "tournament-match-end.png"))
    back.click()
    second.wait_for_selector("[data-testid=tournament-standings]", state="visible")
    assert second.evaluate("() => location.hash") == "#/tournament/cup"

    deadline = time.monotonic() + 4 * HAND_LIMIT
    rounds_seen: set[str] = set()
    while "已结束" not in first.inner_text("#tournament-status"):
        status = first.inner_text("#tournament-status")
        rounds_seen.update(r for r in ("第 1/2 轮", "第 2/2 轮") if r in status)
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    api = app.state.lobby.tournaments.held["cup"].detail()
    for page, name in zip(pages, NAMES, strict=True):
        page.wait_for_function("() => document.querySelector('#tournament-status').textContent.includes('已结束')",
                               timeout=10_000)
        rows = _standings(page)
        assert [r["place"] for r in rows] == ["1", "2", "3", "4"]
        assert [r["name"] for r in rows] == [s["name"] for s in api["standings"]]
        assert [int(r["points"]) for r in rows] == [s["points"] for s in api["standings"]]
        assert [r["prize"] for r in rows] == ["3,000 金币", "2,000 金币", "1,000 金币", ""]
        place = next(int(r["place"]) for r in rows if r["name"] == name)
        result = page.locator("#tournament-result")
        if place <= len(PRIZES):
            assert result.inner_text() == f"你获得第 {place} 名，奖金 {PRIZES[place - 1]:,} 金币"
        else:
            assert result.inner_text() == f"你获得第 {place} 名"
        _fits(page)
    assert "第 2/2 轮" in first.inner_text("#tournament-status")
    first.screenshot(path=str(tmp_path / "standings-finished.png"))

    winner = next(p for p, n in zip(pages, NAMES, strict=True) if n == api["standings"][0]["name"])
    winner.goto(url + "/#/wallet")
    winner.wait_for_selector("#ledger-list li")
    ledger = winner.inner_text("#ledger-list")
    assert "比赛 cup 报名费 500 金币" in ledger and "比赛 cup 奖金 3000 金币" in ledger
    store = Store(f"sqlite:///{db}")
    try:
        totals = store.audit()
        assert (totals["entries"], totals["refunds"], totals["prizes"]) == (4 * ENTRY, 0, sum(PRIZES))
        assert totals["players"] + totals["house"] == totals["issued"]
    finally:
        store.close()
    for watch in watches:
        assert not watch.problems, watch.problems
