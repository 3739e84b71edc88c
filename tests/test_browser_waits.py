"""听牌提示 in a real browser: the waits bar of a ready hand, each wait with its tile and the copies left.

A server of its own with a fixed wall (the one of ``test_server``'s waits test) and short clocks: the
player never answers, the stand-in plays the seat, and on that wall it gets ready during the hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser
from test_browser import HAND_LIMIT, Watch, _context, _guest, browser, served
from test_server import WAITS_SEED

from xuezhan.server import ServerConfig

__all__ = ["browser"]  # the fixture, shared with test_browser


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = ServerConfig.fast(bot_delay=0.3, bot_claim_delay=0.1, turn_timeout=0.05, claim_timeout=0.05,
                               choice_timeout=0.05, next_hand_delay=600.0, seed=WAITS_SEED)
    with served(config, tmp_path_factory.mktemp("browser-waits") / "web.sqlite3") as (url, _):
        yield url


def test_the_waits_bar_shows_each_winning_tile_and_how_many_are_left(seeded_server: str, browser: Browser,
                                                                     tmp_path: Path) -> None:
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _guest(page, seeded_server, "Lan")
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    page.uncheck("#quick-exchange")  # the fixed wall's hand as dealt: no 换三张
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=waits] [data-tile][data-left]", state="visible", timeout=HAND_LIMIT * 1000)
    # the bar is drawn again at each move of the hand, and hidden while the hand is not ready: it is read
    # whole, at a moment it shows
    bar: dict[str, Any] = page.wait_for_function("""() => {
        const bar = document.querySelector('[data-testid=waits]');
        const waits = Array.from(bar.querySelectorAll('[data-tile][data-left]'))
          .map(e => ({tile: e.dataset.tile, left: Number(e.dataset.left), text: e.innerText}));
        return !bar.hidden && waits.length ? {text: bar.innerText, waits} : null; }""",
        timeout=HAND_LIMIT * 1000).json_value()
    waits: list[dict[str, Any]] = bar["waits"]
    assert waits
    for w in waits:
        assert len(w["tile"]) == 2 and w["tile"][1] in "mps" and 0 <= w["left"] <= 4
        assert f"{w['left']} 张" in w["text"] and "番" in w["text"]  # the copies left and the fan, in Chinese
    assert "听牌" in bar["text"]
    page.screenshot(path=str(tmp_path / "waits.png"), scale="css")
    assert not watch.problems, watch.problems
    ctx.close()
