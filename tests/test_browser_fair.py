"""The last-discard marker in a real browser: the latest discard is marked (``data-last``) in its
river, always exactly one tile, and no river tile pulses for a seat that is not offered it.

A server of its own with a discard pause and short clocks: the player never answers, the
stand-in plays the seat.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser
from test_browser import HAND_LIMIT, Watch, _context, _guest, browser, served

from xuezhan.server import ServerConfig

__all__ = ["browser"]  # the fixture, shared with test_browser


@pytest.fixture(scope="module")
def paused_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = ServerConfig.fast(bot_delay=0.15, bot_claim_delay=0.1, discard_pause=0.3, turn_timeout=0.05,
                               claim_timeout=0.05, choice_timeout=0.05, next_hand_delay=600.0, seed=5)
    with served(config, tmp_path_factory.mktemp("browser-fair") / "web.sqlite3") as (url, _):
        yield url


MARKS = """async () => {
  const {S} = await import('/static/state.js');
  const last = Array.from(document.querySelectorAll('.river [data-last]'));
  const rivers = last.map(e => e.parentElement.id);
  return {count: last.length, rivers, atEnd: last.every(e => e === e.parentElement.lastElementChild),
          pulsing: document.querySelectorAll('.river .offered').length,
          claim: S.view && S.view.phase === 'claim' && S.view.legal.length ? 1 : 0,
          discards: Array.from(document.querySelectorAll('.river .rt')).length};
}"""


def test_the_latest_discard_is_marked_in_its_river(paused_server: str, browser: Browser, tmp_path: Path) -> None:
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _guest(page, paused_server, "Mei")
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector(".river [data-last]", state="attached", timeout=HAND_LIMIT * 1000)
    samples: list[dict[str, Any]] = []
    end = time.monotonic() + 6.0
    while time.monotonic() < end:
        samples.append(page.evaluate(MARKS))
        time.sleep(0.05)
    page.screenshot(path=str(tmp_path / "last-discard.png"), scale="css")
    played = [s for s in samples if s["discards"]]
    assert len(played) > 50
    for s in played:
        assert s["count"] == 1 and s["atEnd"], s  # exactly one marker, on the last tile of its river
        assert s["pulsing"] <= s["claim"], s  # a pulse only for a seat whose own view offers it the tile
    assert len({s["rivers"][0] for s in played}) >= 3  # it follows the play round the table
    assert not watch.problems, watch.problems
    ctx.close()
