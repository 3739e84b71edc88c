"""Limits in a real browser: after too many wrong passwords the sign-in box says how long to wait,
in the page's language, and counts the wait down.

A server of its own (uvicorn in a thread, :func:`test_browser.served`) with two wrong passwords
allowed per name and address in a minute.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser
from test_browser import Watch, _context, browser, served

from xuezhan import i18n
from xuezhan.i18n import Lang
from xuezhan.server import ServerConfig

__all__ = ["browser"]  # the fixture, shared with test_browser

PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(login_attempts=2, login_attempts_per_address=50, login_window=60.0)
    with served(config, tmp_path_factory.mktemp("limits") / "web.sqlite3") as running:
        yield running


def _post(url: str, body: dict[str, Any]) -> int:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request) as answer:
            status: int = answer.status
            return status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_the_sign_in_box_shows_the_wait(browser: Browser, server: tuple[str, Any], lang: Lang) -> None:
    url, _ = server
    name = f"wait{lang[:2]}"
    assert _post(url + "/api/register", {"name": name, "password": PASSWORD}) == 200
    ctx = _context(browser, "phone", lang)
    page = ctx.new_page()
    watch = Watch(page)
    try:
        page.goto(url + "/")
        page.wait_for_selector("#login-name", state="visible")
        # the registration above came from this address too: one more wrong password reaches the limit
        page.fill("#login-name", name)
        page.fill("#login-password", "guess guess")
        page.click("#login-btn")
        page.wait_for_function("document.getElementById('login-error').textContent !== ''")
        wrong = page.text_content("#login-error") or ""
        page.fill("#login-password", PASSWORD)  # even the right one waits, from here
        page.click("#login-btn")
        pattern = re.escape(i18n.t("web.login.wait", lang, seconds=99)).replace("99", r"(\d+)")
        page.wait_for_function(f"/{pattern}/.test(document.getElementById('login-error').textContent)")
        first = re.search(pattern, page.text_content("#login-error") or "")
        assert first is not None and first.group(0) != wrong
        seconds = int(first.group(1))
        assert 1 <= seconds <= 60
        page.wait_for_function(f"(m => m !== null && Number(m[1]) < {seconds})"
                               f"(/{pattern}/.exec(document.getElementById('login-error').textContent))")
        later = re.search(pattern, page.text_content("#login-error") or "")
        assert later is not None and int(later.group(1)) < seconds  # counted down
        assert watch.problems == []
    finally:
        ctx.close()
