"""Item cards in a real browser on a phone (390x844, zh-CN): a player makes an items room from the
lobby, buys each card in the table's shop, plays the golden finger (its river marked), the double
and flush cards before the deal and the swap, random swap and seek cards during the hand, and
plays the hand out; the hand's result lists every card, the coins spent are the shop's, and the
books balance."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from test_browser import HAND_LIMIT, Watch, _context, _guest, _play_hand, _press, _table_of, browser, served

from xuezhan import i18n
from xuezhan.match import ItemKind
from xuezhan.server import ServerConfig
from xuezhan.tiles import parse_tile, tile_name

__all__ = ["browser"]  # the fixture, from the browser tests

KINDS = ("double", "flush", "swap", "random_swap", "seek")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    config = ServerConfig.fast(bot_delay=0.02, bot_claim_delay=0.01, turn_timeout=300.0, claim_timeout=300.0,
                               choice_timeout=300.0, next_hand_delay=600.0)
    with served(config, tmp_path_factory.mktemp("items") / "web.sqlite3") as running:
        yield running


def owned(page: Page, kind: str) -> int:
    text = page.locator(f"[data-testid=item-buy-{kind}]").locator("xpath=..").inner_text()
    return int(text.split("有 ", 1)[1].split(" 张", 1)[0])


def to_my_turn(page: Page) -> None:
    """Answer 定缺 and claims (pass) until the swap card can be used: the player's own turn."""
    deadline = time.monotonic() + HAND_LIMIT
    while not page.locator("[data-testid=item-use-swap]:not([disabled])").count():
        assert time.monotonic() < deadline, "the player's turn did not come"
        if not (_press(page, "[data-testid=actions] [data-action=dingque]:not([disabled])", True)
                or _press(page, "[data-testid=actions] [data-action=pass]:not([disabled])", True)):
            page.wait_for_timeout(25)


def test_a_player_buys_and_uses_each_card_at_an_items_table(server: tuple[str, Any], browser: Browser) -> None:
    url, app = server
    ctx = _context(browser, "phone")
    page = ctx.new_page()
    watch = Watch(page)
    _guest(page, url, "Lin")
    page.wait_for_selector("[data-testid=lobby] [data-testid=quickstart]", state="visible")
    page.click("details.create summary")
    page.check("[data-testid=room-items]")
    page.fill("#room-hands", "1")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("[data-testid=items-button]", state="visible")
    assert page.inner_text("[data-testid=items-button]") == i18n.t("web.items.button", "zh-CN")
    page.tap("[data-testid=items-button]")
    page.wait_for_selector("[data-testid=items] [data-testid=item-buy-seek]", state="visible")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # the shop: one of each card
    for kind in KINDS:
        page.tap(f"[data-testid=item-buy-{kind}]")
        page.wait_for_function(f"document.querySelector('[data-testid=item-buy-{kind}]').parentElement"
                               f".textContent.includes('有 1 张')")
        assert owned(page, kind) == 1
    prices = app.state.config.item_prices()
    spent = sum(prices[ItemKind(k)] for k in KINDS)
    assert app.state.bank.account("Lin").balance == 20_000 - spent

    # the golden finger, played in the waiting room: the seat's river marked for as long as Lin stays
    page.tap("[data-testid=item-buy-golden_finger]")
    page.wait_for_function("document.querySelector('[data-testid=item-buy-golden_finger]').parentElement"
                           ".textContent.includes('有 1 张')")
    page.tap("[data-testid=item-use-golden_finger]")
    page.wait_for_selector("#river-0[data-golden=true]", state="attached")
    page.wait_for_function("document.querySelector('[data-testid=item-buy-golden_finger]').parentElement"
                           ".textContent.includes('有 0 张')")
    assert page.locator("[data-testid=item-use-golden_finger]").is_disabled()  # one shows already
    spent += prices[ItemKind.GOLDEN_FINGER]
    assert app.state.bank.account("Lin").balance == 20_000 - spent

    # before the deal: the double card, and the flush card in 筒
    page.tap("[data-testid=item-use-double]")
    page.select_option("[data-testid=item-suit]", "p")
    page.tap("[data-testid=item-use-flush]")
    page.wait_for_function("document.querySelector('[data-testid=items]').textContent.includes('下一局用')")
    page.tap("[data-testid=items-button]")  # the panel closed: the waiting room's start button
    table = _table_of(app, "Lin")
    deadline = time.monotonic() + HAND_LIMIT
    while table.hand is None:
        assert time.monotonic() < deadline, "the match did not start"
        _press(page, "#start-btn", True)
        page.wait_for_timeout(50)
    page.tap("[data-testid=items-button]")
    page.wait_for_function("document.querySelector('[data-testid=items-used]').textContent.includes('清一色卡')")
    used = page.inner_text("[data-testid=items-used]")
    assert "加倍卡" in used and "清一色卡" in used
    assert table.hand is not None
    flush_tiles = table.hand.game.deal.hands[table.players.index("Lin")]
    assert sum(1 for t in flush_tiles if t // 9 == 1) >= len(flush_tiles) - 2  # close to all 筒

    # on the player's turn: the swap card (for a tile the wall holds), the random swap, the seek card
    to_my_turn(page)
    # for the hand's tile the page offers, a tile the live wall holds (the table waits on the player's discard)
    seat = table.players.index("Lin")
    mine = parse_tile(page.input_value("[data-testid=item-tile]"))
    wanted = next(w for w in range(27) if table.hand.game.can_swap(seat, mine, w) is None)
    page.select_option("[data-testid=item-wanted]", tile_name(wanted))
    page.tap("[data-testid=item-use-swap]")
    # the shop is read again once the server has said the card was used
    page.wait_for_function("document.querySelector('[data-testid=item-buy-swap]').parentElement"
                           ".textContent.includes('有 0 张')")
    assert owned(page, "swap") == 0
    page.wait_for_selector("[data-testid=item-use-random_swap]:not([disabled])")
    page.tap("[data-testid=item-use-random_swap]")
    page.wait_for_function("document.querySelector('[data-testid=items-used]').textContent.includes('随机换牌卡')")
    page.select_option("[data-testid=item-wanted]", "5p")
    page.tap("[data-testid=item-use-seek]")
    page.wait_for_selector("[data-testid=item-seek]", state="visible")
    assert page.inner_text("[data-testid=item-seek]").startswith("5筒：牌墙四段（先摸的在前）各有 ")
    # the shop is read again once the server has said the card was used, after its answer came
    page.wait_for_function("document.querySelector('[data-testid=item-buy-seek]').parentElement"
                           ".textContent.includes('有 0 张')")
    assert all(owned(page, kind) == 0 for kind in KINDS)
    assert "null" not in page.inner_text("[data-testid=items]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    # the hand played out with the panel closed
    page.tap("[data-testid=items-button]")
    assert page.locator("[data-testid=items]").is_hidden()
    _play_hand(page, "phone", True)
    assert page.locator("#river-0").get_attribute("data-golden") == "true"
    assert "金手指" in page.inner_text("#my-plate")
    assert page.locator("#river-0 .rt").count() > 0  # Lin discarded: each of its discards glows gold
    glow = page.eval_on_selector("#river-0 .rt .tile", "t => getComputedStyle(t).boxShadow")
    assert "245, 197, 66" in glow, glow
    assert all(not page.locator(f"#river-{k}").get_attribute("data-golden") for k in (1, 2, 3))
    result = app.state.bank.store.hands.hand_results(int(table.match_key))[0]
    assert [u.kind for u in result.items] == ["flush", "double", "swap", "random_swap", "seek"]
    totals = app.state.bank.store.ledger.audit()
    assert totals["players"] + totals["house"] == totals["issued"] and totals["shop"] >= spent
    assert not watch.problems, watch.problems
    ctx.close()
