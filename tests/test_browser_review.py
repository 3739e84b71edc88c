"""The review (复盘) of a past hand in a real browser, on a phone (390x844, Simplified Chinese).

A server of its own with a fixed wall and short clocks: the player never answers, the stand-in
plays the seat to the end of the hand. From the settlement the player opens the hand's replay,
taps 复盘, and the page lists the costliest mistakes of the player's own seat (losses beyond the
search's noise, the biggest first, each with the choice taken and the best one) inside the screen,
each marked as the stand-in's (托管), and says in one line that every step was the stand-in's and counts for no loss; a
decision's step button takes the replay to that point of the hand. The wall (``SEED``) is one on
which the stand-in makes such a mistake.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser
from test_browser import HAND_LIMIT, SIZES, TOUCH, Watch, _context, _guest, browser, served

from xuezhan import i18n
from xuezhan.server import ServerConfig

__all__ = ["browser"]  # the fixture, shared with test_browser

SEED = 6


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=0.05, claim_timeout=0.05,
                               choice_timeout=0.05, next_hand_delay=600.0, seed=SEED)
    with served(config, tmp_path_factory.mktemp("browser-review") / "web.sqlite3") as (url, _):
        yield url


def test_a_past_hand_shows_its_review_on_a_phone(seeded_server: str, browser: Browser, tmp_path: Path) -> None:
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _guest(page, seeded_server, "Rui")
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    page.tap("[data-testid=quickstart]")
    page.wait_for_selector("[data-testid=settlement][open]", timeout=HAND_LIMIT * 1000)
    page.tap("#settle-leave")
    page.wait_for_selector("[data-replay]", state="visible")
    hand_id = page.get_attribute("[data-replay]", "data-replay")
    # a win's effect still playing over the table (it shows 1.8 s) does not play over the replay
    page.evaluate("async () => (await import('/static/effects.js')).showEffect('hu', [1])")
    assert page.locator("#effect[data-effect=hu]").is_visible()
    page.tap("[data-replay]")
    page.wait_for_selector("#replay-line", state="visible")
    assert page.locator("#effect").is_hidden()
    page.tap("#review-btn")
    page.wait_for_selector("[data-testid=review] ol li, [data-testid=review] .review-none", state="visible",
                           timeout=60_000)
    review: dict[str, Any] = page.evaluate(
        "id => fetch(`/api/history/${id}/review`).then(r => r.json())", hand_id)
    mistakes = sorted((d for d in review["decisions"] if d["mistake"]), key=lambda d: (-d["loss"], d["step"]))
    assert mistakes, "the stand-in's hand on this wall holds decisions the expert would take otherwise"
    items: list[dict[str, Any]] = page.evaluate("""() => Array.from(
        document.querySelectorAll('[data-testid=review] ol li')).map(li => ({
          step: Number(li.dataset.step), loss: Number(li.dataset.loss), text: li.innerText,
          taken: li.querySelector('.review-taken').innerText, best: li.querySelector('.review-best').innerText}))""")
    shown = mistakes[:5]
    assert [(i["step"], i["loss"]) for i in items] == [(d["step"], d["loss"]) for d in shown]  # the biggest first
    for item in items:
        assert item["taken"].startswith("托管：") and item["best"].startswith("最好：")  # not 你: the stand-in's
        assert f"第 {item['step'] + 1} 步" in item["text"] and "分" in item["text"]
    panel = page.inner_text("[data-testid=review]")
    assert i18n.t("web.review.title", "zh-CN") in panel
    assert all(d["stand_in"] for d in review["decisions"]) and sum(review["total_loss"].values()) == 0
    # every step the stand-in's: one line says so, no "0 decisions, 0.00 lost" of the player's
    assert i18n.t("web.review.all_stand_in", "zh-CN", count=len(review["decisions"])) in panel
    assert i18n.t("web.review.total", "zh-CN", count=0, loss="0.00") not in panel
    assert i18n.t("web.review.stand_ins", "zh-CN", count=len(review["decisions"])) not in panel
    # on the phone's screen: nothing sideways, the panel inside it, each step button big enough to tap
    width, height = SIZES["phone"]["viewport"]["width"], SIZES["phone"]["viewport"]["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    box = page.locator("[data-testid=review]").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5
    assert box["y"] >= 0 and box["y"] + box["height"] <= height + 0.5
    for b in page.locator("[data-testid=review] .review-step").all():
        size = b.bounding_box()
        assert size is not None and size["width"] >= TOUCH - 0.5 and size["height"] >= TOUCH - 0.5
    page.screenshot(path=str(tmp_path / "review.png"), scale="css")
    # a decision's step takes the replay to the table as the player saw it then
    page.locator("[data-testid=review] .review-step").first.tap()
    status = page.inner_text("#room-status")
    assert status.startswith(f"第 {shown[0]['step'] + 1}/"), status
    assert not watch.problems, watch.problems
    ctx.close()
