"""Hidden information: across many seeded hands, no message the server sends to a seat
holds another seat's concealed tiles or the order of the wall.

The table is driven directly (no sockets, so many hands run quickly): four seated
connections whose every decision times out at once (the bot plays each seat) and one
spectator. Every text the table queues for a connection is exactly what its socket
would carry. Each hand is then replayed from the record the store kept, to know what
every seat held at every moment, and each message is checked against that:

- by shape: another seat's hand only once laid down (a win, or the end of the hand);
  another seat's private events (deal, draw, 换三张, pass-on-a-win) never with tiles;
  void suits secret until all have chosen; legal actions only one's own; the wall
  only as a count;
- by content: no other seat's concealed tiles (any moment's, 7 tiles or more) while
  its hand is still concealed, and no run of the wall's draw order.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from xuezhan.engine.game import Game
from xuezhan.engine.views import SeatView, table_views
from xuezhan.engine.views import seat_view_json as seat_view
from xuezhan.match import RoomConfig
from xuezhan.records import parse_record
from xuezhan.rules import Rules
from xuezhan.server.bank import Account
from xuezhan.server.config import ServerConfig
from xuezhan.server.conn import Conn
from xuezhan.server.protocol import ClientMessage
from xuezhan.server.storebank import StoreBank
from xuezhan.server.table import Status, Table
from xuezhan.store import Store
from xuezhan.tiles import format_tiles, tile_name

PRIVATE_TYPES = {"deal", "draw", "exchange", "exchange_received", "swap", "pass_hu"}
WALL_RUN = 6  # tiles of the wall in draw order that may never appear together
MIN_SECRET = 7  # concealed hands this long are checked by content (shorter ones only by shape)


@dataclass
class Played:
    messages: list[list[dict[str, Any]]]  # by connection: seats 0-3, then the spectator
    records: list[dict[str, Any]]


async def _play(seed: int, hands: int, preset: str, options: dict[str, Any]) -> Played:
    bank = StoreBank(Store("sqlite://"))
    accounts: list[Account] = [bank.create_account(n)[0] for n in ("north", "south", "east", "west", "eye")]
    room = RoomConfig.from_mapping({"rules": {"preset": preset, "options": options}, "hands": hands,
                                    "coefficient": 1})
    config = ServerConfig.fast(seed=seed, turn_timeout=0.0, claim_timeout=0.0, choice_timeout=0.0,
                               next_hand_delay=0.0, send_queue=1_000_000)
    code = f"HIDDEN{seed}"
    bank.open_room(code, room)
    table = Table(code, "hidden", room, accounts[0], bank, config)
    table.players = [a.player for a in accounts[:4]]
    conns = [Conn(a, queue_size=1_000_000) for a in accounts[:4]] + [Conn(accounts[4], watch=True,
                                                                          queue_size=1_000_000)]
    texts: list[list[str]] = [[] for _ in conns]

    async def drain(k: int, conn: Conn) -> None:
        while True:
            text = await conn.outbox.get()
            if text is None:
                return
            texts[k].append(text)

    readers = [asyncio.create_task(drain(k, c)) for k, c in enumerate(conns)]
    table.start_task()
    for conn in conns:
        table.join(conn)
    table.message(conns[0], ClientMessage("start", {"type": "start"}))
    for _ in range(200_000):
        if table.last_match_end is not None:  # the last hand is settled
            break
        await asyncio.sleep(0.001)
    assert table.status is Status.FINISHED, f"the match did not finish: {table.status}"
    assert table.hands_finished == hands
    for conn in conns:
        conn.close()
    await asyncio.gather(*readers)
    assert table.task is not None
    table.task.cancel()
    await asyncio.gather(table.task, return_exceptions=True)
    match_id = int(table.match_key)
    records = [bank.store.hands.hand_record(match_id, k) for k in range(1, hands + 1)]
    bank.close()
    return Played([[json.loads(t) for t in ts] for ts in texts], records)


def _replay(record: dict[str, Any]) -> Iterator[Game]:
    """The hand after each of its actions, from its start."""
    rec = parse_record(record)
    game = rec.new_game()
    yield game
    for action in rec.actions:
        game.apply(action)
        yield game


def _secrets(record: dict[str, Any]) -> tuple[list[set[str]], list[tuple[str, ...]], Game]:
    """Each seat's concealed hands while not laid down, the wall's runs in draw order, the final game."""
    hidden: list[set[str]] = [set(), set(), set(), set()]
    game = None
    for game in _replay(record):
        for seat, s in enumerate(game.seats):
            tiles = s.tiles()
            if not s.revealed and len(tiles) >= MIN_SECRET:
                hidden[seat].add(format_tiles(tiles))
    assert game is not None and game.over
    wall = [tile_name(t) for t in game.deal.wall]
    runs = [tuple(wall[i:i + WALL_RUN]) for i in range(len(wall) - WALL_RUN + 1)]
    return hidden, runs, game


def _walk(value: Any) -> Iterator[tuple[str | None, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k, v
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield None, v
            yield from _walk(v)


def _check_shape(msg: dict[str, Any], me: int | None) -> None:
    for key, value in _walk(msg):
        assert key not in ("wall_layout", "dice", "seed", "record"), msg["type"]
        if key == "wall":
            assert isinstance(value, int)
    if msg["type"] != "state":
        return
    view = msg["view"]
    assert view["seat"] == me
    if me is None:
        assert view["hand"] is None and view["drawn"] is None and view["legal"] == []
    assert all(a["seat"] == me for a in view["legal"])
    secret_voids = view["phase"] in ("exchange", "dingque")
    for other, seat in enumerate(view["seats"]):
        if other == me:
            continue
        if "hand" in seat:
            assert seat["won"] or view["phase"] == "over", (me, other, view["phase"])
        if secret_voids:
            assert seat["void"] is None
    for ev in msg["events"]:
        if ev["type"] in PRIVATE_TYPES and ev.get("seat") != me:
            assert ev["type"] != "pass_hu", ev
            assert "tile" not in ev and "tiles" not in ev, (me, ev)


def _tile_lists(msg: dict[str, Any]) -> Iterator[list[str]]:
    for _, value in _walk(msg):
        if isinstance(value, list) and len(value) >= WALL_RUN and all(isinstance(v, str) for v in value):
            yield value


CASES = [
    (1, 6, "qq", {}),
    (2, 6, "chengdu", {"exchange_three": "clockwise"}),
    (3, 6, "qq", {"blood_river": True, "exchange_three": "random"}),
    (4, 6, "qq", {"dingque": False, "zhigang_payment": "everyone"}),
]


@pytest.mark.parametrize(("seed", "hands", "preset", "options"), CASES)
def test_no_seat_ever_receives_another_seats_concealed_tiles_or_the_wall(
    seed: int, hands: int, preset: str, options: dict[str, Any]
) -> None:
    played = asyncio.run(_play(seed, hands, preset, options))
    facts = [_secrets(r) for r in played.records]
    checked = 0
    for k, messages in enumerate(played.messages):
        me = k if k < 4 else None
        assert messages, k
        hand_no = 0
        for msg in messages:
            _check_shape(msg, me)
            if msg["type"] == "state":
                hand_no = msg["hand_no"]
            if hand_no == 0:
                continue
            hidden, runs, _ = facts[hand_no - 1]
            text = json.dumps(msg, ensure_ascii=False)
            laid_down = set()
            if msg["type"] == "state":
                laid_down = {i for i, s in enumerate(msg["view"]["seats"]) if "hand" in s}
            elif msg["type"] == "hand_end":  # a winner's hand lies face up: the settlement shows it
                laid_down = {w["seat"] for w in msg["winners"]}
            for other in range(4):
                if other == me or other in laid_down:
                    continue
                for secret in hidden[other]:
                    assert f'"{secret}"' not in text, (me, other, secret, msg["type"])
            run_set = set(runs)
            for tiles in _tile_lists(msg):
                for i in range(len(tiles) - WALL_RUN + 1):
                    assert tuple(tiles[i:i + WALL_RUN]) not in run_set, (me, msg["type"])
            wall_text = "".join(runs[0]) if runs else ""
            assert not wall_text or wall_text not in text
            checked += 1
    assert checked > 1000  # many messages were looked at, not a few
    # and each seat did see its own concealed tiles: the check above is not vacuous
    for seat in range(4):
        own = facts[0][0][seat]
        assert any(f'"{h}"' in json.dumps(m, ensure_ascii=False) for m in played.messages[seat] for h in own)


@pytest.mark.parametrize(
    "options",
    [{}, {"exchange_three": "opposite"}, {"dingque": False}, {"blood_river": True, "exchange_three": "random"}],
)
def test_the_shared_views_are_exactly_the_engines_per_seat_views(options: dict[str, Any]) -> None:
    rules = Rules.preset("qq").with_options(options)
    rng = random.Random(7)
    steps = 0
    for seed in range(12):
        game = Game.new(rules, seed=seed)
        while True:
            views = table_views(game, {0, 1, 2, 3, None})
            for seat in (0, 1, 2, 3):
                assert views[seat] == SeatView(game, seat).to_json(), (seed, steps, seat)
            assert views[None] == seat_view(game, None)
            steps += 1
            pending = game.pending()
            if not pending:
                break
            seat = pending[0]
            legal = game.legal_actions(seat)
            game.apply(legal[int(rng.random() * len(legal))])
    assert steps > 500
