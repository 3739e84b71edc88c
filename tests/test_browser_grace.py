"""The connection's grace in a real browser: the ``reconnecting`` overlay while the server is
unreachable, gone once the table is back, and the ``missed`` note of what was played meanwhile.

The server is stopped while the page waits on its 定缺 and started again on the same port and
database with no grace and no time for 定缺: the stand-in chooses the void before the page is
back, and the page says so once it is.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser
from test_browser import Watch, _context, _guest, browser, served

from xuezhan.server import ServerConfig
from xuezhan.store.pgtemp import free_port

__all__ = ["browser"]  # the fixture, shared with test_browser

WAIT_MS = 60_000


@contextmanager
def served_at(config: ServerConfig, db: Path, port: int) -> Iterator[Any]:
    """The web table on ``db`` at ``port`` until the block ends (:func:`test_browser.served`); its app."""
    with served(config, db, port) as (_, app):
        yield app


def test_the_page_shows_reconnecting_while_the_server_is_away_and_then_what_was_missed(
        browser: Browser, tmp_path: Path) -> None:
    db = tmp_path / "grace.sqlite3"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    patient = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                                choice_timeout=300.0, next_hand_delay=600.0)
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    with served_at(patient, db, port):
        _guest(page, url, "Mei")
        page.wait_for_selector("[data-testid=quickstart]", state="visible")
        page.uncheck("#quick-exchange")  # straight to 定缺
        page.tap("[data-testid=quickstart]")
        page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
        assert page.locator("[data-testid=reconnecting]").is_hidden()
    page.wait_for_selector("[data-testid=reconnecting]", state="visible", timeout=WAIT_MS)
    assert "重新连接中" in page.inner_text("[data-testid=reconnecting]")
    page.screenshot(path=str(tmp_path / "reconnecting.png"), scale="css")
    time.sleep(1.0)  # unreachable for a while: the overlay stays
    assert page.locator("[data-testid=reconnecting]").is_visible()

    hurried = ServerConfig.fast(bot_delay=0.0, bot_claim_delay=0.0, turn_timeout=300.0, claim_timeout=300.0,
                                choice_timeout=0.0, restart_grace=0.0, next_hand_delay=600.0)
    with served_at(hurried, db, port):
        page.wait_for_selector("[data-testid=reconnecting]", state="hidden", timeout=WAIT_MS)
        note = page.wait_for_selector("[data-testid=missed]", state="visible", timeout=WAIT_MS)
        assert note is not None
        text = note.inner_text()
        assert "你不在时" in text and "定缺" in text, text  # the stand-in's 定缺, in the page's language
        page.screenshot(path=str(tmp_path / "missed.png"), scale="css")
        page.tap("#missed-close")
        page.wait_for_selector("[data-testid=missed]", state="hidden")
        assert page.locator("[data-testid=actions] [data-action=dingque]").count() == 0  # the void is chosen
    problems = [p for p in watch.problems if "WebSocket" not in p]  # the socket's failures while away
    assert not problems, problems
    ctx.close()
