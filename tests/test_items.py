"""Item cards in a hand's record (docs/rules.md §13): listed with what each did, read back
strictly, explained by ``xuezhan replay``; a hand without cards keeps the record it had."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session
from test_match import PEOPLE, play, room

from xuezhan.cli import main
from xuezhan.engine.game import Phase
from xuezhan.errors import RecordError
from xuezhan.explain import item_lines
from xuezhan.match import Hand, ItemKind, Match
from xuezhan.records import RecordItem, parse_record, record_json, replay, tsumogiri
from xuezhan.store import Store, StoreError
from xuezhan.store.models import ItemPurchase


def _to_turn(hand: Hand) -> int:
    game = hand.game
    while game.phase is not Phase.TURN:
        game.apply(tsumogiri(game, game.pending()[0]))
    return game.turn


def hand_with_every_card(seed: int = 4) -> dict[str, Any]:
    m = Match(room(items=True), PEOPLE[:4], seed=seed)
    hand = m.start_hand(double=[PEOPLE[1]], flush={PEOPLE[2]: 1})
    seat = _to_turn(hand)
    game = hand.game
    give = game.seat_state(seat).hand[0]
    hand.swap(seat, give, next(t for t in game.live_wall if t != give))
    hand.random_swap(seat, game.seat_state(seat).hand[-1])
    hand.seek((seat + 1) % 4, 13)
    result = play(hand, seed)
    return result.record


def test_a_record_lists_every_card_and_replays() -> None:
    record = json.loads(json.dumps(hand_with_every_card()))
    kinds = [(i["kind"], i.get("at")) for i in record["items"]]
    assert [k for k, _ in kinds] == ["flush", "double", "swap", "random_swap", "seek"]
    assert kinds[0][1] is None and kinds[1][1] is None  # before the deal
    swap, random_swap, seek = record["items"][2:]
    assert record["actions"][swap["at"]] == {"seat": swap["seat"], "type": "swap", "tile": swap["tile"],
                                             "want": swap["wanted"]}
    assert random_swap["at"] == swap["at"] + 1 and seek["at"] == swap["at"] + 2
    assert "player" not in seek and len(seek["quarters"]) == 4 and seek["tile"] == "5p"
    parsed = parse_record(record)
    assert parsed.items[4] == RecordItem(seek["seat"], "seek", seek["at"], 13, None, None, tuple(seek["quarters"]))
    assert parsed.items[0].suit == 1
    game, complete = replay(parsed)
    assert complete and game.tile_total() == 108


def test_a_hand_without_cards_keeps_its_record() -> None:
    m = Match(room(items=True), PEOPLE[:4], seed=2)
    result = play(m.start_hand(), 2)
    assert "items" not in result.record
    assert result.record == {**record_json(m_game := replay(parse_record(result.record))[0]),
                             "seed": result.seed, "match": {"seed": 2, "hand_no": 1}}
    assert m_game.over


@pytest.mark.parametrize("bad", [
    "items",  # not a list
    [{"seat": 0}],  # no kind
    [{"seat": 4, "kind": "seek"}],
    [{"seat": True, "kind": "seek"}],
    [{"seat": 0, "kind": "rocket"}],
    [{"seat": 0, "kind": "seek", "at": -1}],
    [{"seat": 0, "kind": "seek", "tile": "0m"}],
    [{"seat": 0, "kind": "seek", "tile": 5}],
    [{"seat": 0, "kind": "flush", "suit": "z"}],
    [{"seat": 0, "kind": "flush", "suit": "mp"}],
    [{"seat": 0, "kind": "seek", "quarters": [1, 2, 3]}],
    [{"seat": 0, "kind": "seek", "quarters": [1, 2, 3, 5]}],
    [{"seat": 0, "kind": "seek", "player": "ann"}],
])
def test_a_records_cards_are_read_strictly(bad: Any) -> None:
    record = hand_with_every_card()
    with pytest.raises(RecordError):
        parse_record({**record, "items": bad})


@pytest.mark.parametrize(("entry", "code"), [
    ({"tile": "0m"}, "bad_tiles"), ({"tile": 5}, "bad_tiles"), ({"wanted": "10p"}, "bad_tiles"),
    ({"suit": "z"}, "bad_record"), ({"suit": 1}, "bad_record"),
])
def test_a_records_card_fields_are_refused_with_their_codes(entry: dict[str, Any], code: str) -> None:
    # read by the same reader as the table's ``item`` message (records.card_fields), each with its own codes
    with pytest.raises(RecordError) as info:
        parse_record({**hand_with_every_card(), "items": [{"seat": 0, "kind": "swap", **entry}]})
    assert info.value.code == code and "items[0]" in info.value.message


def test_replay_explains_each_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = hand_with_every_card()
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", str(path), "--lang", "zh-CN"]) == 0
    out = capsys.readouterr().out.splitlines()
    swap, random_swap, seek = record["items"][2:]
    assert out[:2] == ["2 号位用了清一色卡：发到的牌接近清一色筒", "1 号位用了加倍卡：这一盘的输赢算两倍"]
    assert out[2].startswith(f"第 {swap['at'] + 1} 步前，{swap['seat']} 号位用了换牌卡：以 ")
    assert out[3].startswith(f"第 {random_swap['at'] + 1} 步前，{random_swap['seat']} 号位用了随机换牌卡：以 ")
    quarters = " / ".join(str(q) for q in seek["quarters"])
    assert out[4] == (f"第 {seek['at'] + 1} 步前，{seek['seat']} 号位用了查找卡："
                      f"牌墙里的 5筒 在四段中（先摸的一段在前）各有 {quarters} 张")
    en = item_lines(parse_record(record).items, "en")
    assert en[1].endswith("used a double card: this hand's result counts twice")
    assert len(item_lines(parse_record(record).items, "zh-TW")) == 5


# --- the shop in the books ------------------------------------------------------------------------------------


def test_the_shops_income_balances_in_the_audit(store: Store) -> None:
    store.accounts.create_account("ann", 10_000)
    assert store.ledger.buy_items("ann", ItemKind.SEEK, 3, 500) == (8_500, 3)
    assert store.ledger.buy_items("ann", ItemKind.SEEK, 1, 500) == (8_000, 4)
    assert store.ledger.items("ann") == {ItemKind.SEEK: 4}
    with pytest.raises(StoreError) as exc:
        store.ledger.buy_items("ann", ItemKind.MATCH_TICKET, 2, 5_000)
    assert exc.value.code == "insufficient_balance"
    for bad in ((0, 500), (1, 0), (True, 5)):
        with pytest.raises(StoreError) as exc:
            store.ledger.buy_items("ann", ItemKind.SEEK, *bad)
        assert exc.value.code == "bad_amount"
    assert store.ledger.balance("ann") == 8_000
    assert store.ledger.audit() == {"issued": 10_000, "house": 2_000, "players": 8_000, "shop": 2_000}
    assert [r for _, r, _ in store.ledger.postings("ann")] == ["grant", "item", "item"]


def test_the_audit_finds_shop_income_that_pays_for_nothing(store: Store) -> None:
    store.accounts.create_account("bo", 1_000)
    store.ledger.buy_items("bo", ItemKind.DOUBLE, 1, 300)
    with Session(store.engine) as s, s.begin():
        s.execute(update(ItemPurchase).values(price=200))  # the purchase and its payment disagree
    with pytest.raises(StoreError) as exc:
        store.ledger.audit()
    assert exc.value.code == "audit_failed"
