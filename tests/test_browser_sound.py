"""Sound and motion in a real browser, on a phone (390x844, zh-CN): the mute switch on the table
is kept per account (across a reload and a new session of the same account), the page plays its
sounds (as it records them on ``<body>``: no audio hardware needed) only while not muted, and a
win shows its effect over the table in the catalog's words.

A server of its own with a fixed seed, bots that act at once and long clocks: the player takes
every decision by taps.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, TOUCH, Watch, _context, _press, _table_of, browser, served

from xuezhan import i18n
from xuezhan.server import ServerConfig

__all__ = ["browser"]  # the fixture, shared with test_browser

SEED = 7
PASSWORD = "correct horse"

# every time #effect is shown: its kind, its words and the size of its word
WATCH_EFFECTS = """() => {
  window.shownEffects = [];
  const box = document.getElementById('effect');
  new MutationObserver(() => {
    if (box.hidden || !box.dataset.effect) return;
    const word = box.querySelector('.effect-word');  // its size as laid out, before the animation scales it
    window.shownEffects.push({kind: box.dataset.effect, text: box.innerText,
                              w: word.offsetWidth, h: word.offsetHeight});
  }).observe(box, {attributes: true, attributeFilter: ['hidden', 'data-effect'], childList: true});
}"""

# the animation an effect plays, read from the stylesheet (the effect shown, and hidden again)
EFFECT_ANIMATION = """() => {
  const box = document.getElementById('effect');
  box.hidden = false; box.classList.add('play');
  const name = getComputedStyle(box).animationName;
  box.classList.remove('play'); box.hidden = true;
  return name;
}"""

# what the page makes of a message's events: the strongest moment, its sound and its seats
MOMENTS = """async () => {
  const fx = await import('/static/effects.js');
  const hu = (seat, from) => ({type: 'hu', seat, from, tile: '5m', fan: 1});
  return {
    yipao: fx.moment([{type: 'discard', seat: 2, tile: '5m'}, hu(0, 2), hu(1, 2)]),
    zimo: fx.moment([{type: 'draw', seat: 3, tile: null}, hu(3, null)]),
    hu: fx.moment([hu(1, 0)]),
    bugang: fx.moment([{type: 'bugang', seat: 1, tile: '3p'}]),
    zhigang: fx.moment([{type: 'zhigang', seat: 2, tile: '3p', from: 0}]),
    angang: fx.moment([{type: 'angang', seat: 0, tile: null}]),
    peng: fx.moment([{type: 'peng', seat: 1, tile: '7s', from: 0}]),
    discard: fx.moment([{type: 'discard', seat: 1, tile: '7s'}]),
  };
}"""
ONE_DISCARD_TWO_WINS = """async () => {
  const fx = await import('/static/effects.js');
  fx.onState({type: 'state', reset: false, decision: null, events: [
    {type: 'hu', seat: 1, from: 3, tile: '5m'}, {type: 'hu', seat: 2, from: 3, tile: '5m'}]});
}"""


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0, seed=SEED)
    with served(config, tmp_path_factory.mktemp("browser-sound") / "web.sqlite3") as running:
        yield running


def _sounds(page: Page) -> list[str]:
    text: str = page.evaluate("document.body.dataset.sounds || ''")
    return text.split()


def _mute_pressed(page: Page) -> str:
    value: str = page.get_attribute("[data-testid=mute]", "aria-pressed") or ""
    return value


def _account_mute(page: Page) -> Any:
    return page.evaluate("fetch('/api/settings').then(r => r.json())")


def _sign_in(page: Page, url: str, name: str, button: str, path: str = "/") -> None:
    page.goto(url + path)
    page.wait_for_selector("#login-name", state="visible")
    page.fill("#login-name", name)
    page.fill("#login-password", PASSWORD)
    page.click(button)


def _play(page: Page, shots: Path | None, decisions: int = 10_000) -> int:
    """Take the player's decisions by taps (win when offered, else pass, 定缺 on the first suit offered,
    discard by tapping a tile twice) until the hand's settlement or that many decisions; a screenshot of
    the first effect shown (into ``shots``)."""
    shot = shots is None
    presses = 0
    deadline = time.monotonic() + HAND_LIMIT
    while not page.locator("[data-testid=settlement][open]").count() and presses < decisions:
        assert time.monotonic() < deadline, "the hand did not end"
        if not shot and shots is not None and page.locator("#effect[data-effect]:not([hidden])").count():
            page.screenshot(path=str(shots / "effect.png"), scale="css")
            shot = True
        if (_press(page, "[data-testid=actions] [data-action=hu]:not([disabled])", True)
                or _press(page, "[data-testid=actions] [data-action=pass]:not([disabled])", True)
                or _press(page, "[data-testid=actions] [data-action=dingque]:not([disabled])", True)):
            presses += 1
        elif _press(page, "[data-testid=hand] .playable", True):
            if _press(page, "[data-testid=hand] .selected", True):
                presses += 1
        else:
            page.wait_for_timeout(25)
    return presses


def test_a_win_sounds_and_shows_and_the_mute_switch_is_kept_per_account(
        seeded_server: tuple[str, Any], browser: Browser, tmp_path: Path) -> None:
    url, app = seeded_server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _sign_in(page, url, "Yin", "#register-btn")
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    page.wait_for_function("document.body.dataset.muteLoaded === 'Yin'")  # the account's choice: not muted
    page.uncheck("#quick-exchange")  # straight to 定缺
    page.tap("[data-testid=quickstart]")  # a tap: the page may make sound from now on
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    code = _table_of(app, "Yin").code

    # the player's own decision sounds, and the switch is on the phone's screen, big enough to tap
    page.wait_for_function("(document.body.dataset.sounds || '').split(' ').includes('turn')")
    mute = page.locator("[data-testid=mute]")
    box = mute.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["y"] + box["height"] <= 844
    assert box["width"] >= TOUCH - 0.5 and box["height"] >= TOUCH - 0.5
    assert mute.get_attribute("aria-label") == i18n.t("web.sound.mute", "zh-CN")
    assert _mute_pressed(page) == "false" and _account_mute(page) == {"mute": False}

    # a whole hand: each win sounds and shows its effect, in the catalog's words
    page.evaluate(WATCH_EFFECTS)
    assert _play(page, tmp_path) >= 1
    game = _table_of(app, "Yin").hand.game  # type: ignore[union-attr]
    assert game.winners, "this seed's hand has a win"
    sounds = _sounds(page)
    assert "turn" in sounds and {"hu", "zimo"} & set(sounds), sounds
    effects: list[dict[str, Any]] = page.evaluate("window.shownEffects")
    assert {"hu", "zimo", "yipao"} & {e["kind"] for e in effects}, effects
    words = {k: i18n.t(f"web.effect.{k}", "zh-CN") for k in ("hu", "zimo", "yipao", "guafeng", "xiayu")}
    for e in effects:
        assert e["text"].startswith(words[e["kind"]]) and e["w"] > 40 and e["h"] > 40, e
    assert page.evaluate("document.body.dataset.effects").split() == [e["kind"] for e in effects]

    # muted from the table (behind the settlement), for the account
    page.tap("#settle-look")
    page.tap("[data-testid=mute]")
    assert _mute_pressed(page) == "true"
    page.wait_for_function("fetch('/api/settings').then(r => r.json()).then(d => d.mute === true)")
    page.screenshot(path=str(tmp_path / "muted.png"), scale="css")
    page.reload()  # the same browser: still muted
    page.wait_for_selector("[data-testid=table]", state="visible")
    page.wait_for_function("document.body.dataset.muteLoaded === 'Yin'")
    assert _mute_pressed(page) == "true"
    assert not watch.problems, watch.problems
    ctx.close()

    # a new session of the same account, in a browser that never saw the switch: muted, from the account
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _sign_in(page, url, "Yin", "#login-btn", f"/#/t/{code}")
    page.wait_for_selector("[data-testid=table]", state="visible")
    page.wait_for_function("document.body.dataset.muteLoaded === 'Yin'")
    assert _mute_pressed(page) == "true"
    assert page.evaluate("localStorage.getItem('xz.mute')") == "1"
    # the next hand, muted: the player's decisions and whatever the others do meanwhile make no sound
    page.wait_for_selector("#settle-next", state="visible")
    page.tap("#settle-next")
    page.wait_for_selector("[data-testid=actions] [data-action=dingque]", state="visible")
    assert _play(page, None, decisions=3) == 3
    page.wait_for_timeout(300)
    assert _sounds(page) == []

    page.tap("[data-testid=mute]")  # sound again, for this account everywhere
    assert _mute_pressed(page) == "false"
    page.wait_for_function("fetch('/api/settings').then(r => r.json()).then(d => d.mute === false)")

    # each moment's sound and effect: 一炮多响, 自摸, 胡, 刮风 (bugang, zhigang), 下雨 (angang), 碰
    assert page.evaluate(MOMENTS) == {
        "yipao": {"effect": "yipao", "sound": "hu", "seats": [0, 1]},
        "zimo": {"effect": "zimo", "sound": "zimo", "seats": [3]},
        "hu": {"effect": "hu", "sound": "hu", "seats": [1]},
        "bugang": {"effect": "guafeng", "sound": "gang", "seats": [1]},
        "zhigang": {"effect": "guafeng", "sound": "gang", "seats": [2]},
        "angang": {"effect": "xiayu", "sound": "gang", "seats": [0]},
        "peng": {"effect": None, "sound": "peng", "seats": []},
        "discard": None,
    }
    # shown while the table waits on the player's own decision (or the hand is over): no message of the hand
    # comes meanwhile to show an effect or make a sound of its own
    page.wait_for_selector("[data-testid=actions] [data-action], [data-testid=settlement][open]", state="attached")
    page.evaluate(ONE_DISCARD_TWO_WINS)
    page.wait_for_selector("#effect[data-effect=yipao]", state="visible")
    assert page.inner_text("#effect .effect-word") == i18n.t("web.effect.yipao", "zh-CN")
    assert page.evaluate("document.body.dataset.lastSound") == "hu"
    page.screenshot(path=str(tmp_path / "yipao.png"), scale="css")
    page.wait_for_selector("#effect", state="hidden")

    # the effect moves, unless the phone asks for less motion: then it only shows
    assert page.evaluate(EFFECT_ANIMATION) == "effect-pop"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(EFFECT_ANIMATION) == "none"
    assert not watch.problems, watch.problems
    ctx.close()
