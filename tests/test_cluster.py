"""Many nodes behind a real balancer (docs/deploy.md): three ``xuezhan serve --node`` processes and
Debian's nginx, started by ``scripts/cluster.sh``, on the project's test PostgreSQL.

Four tables are played through the balancer: one person who plays every decision of their own,
three who leave theirs to 托管, bots in the other seats. While the person's hand is in play the
node running it is killed with SIGKILL. Then every room of that node goes on on another node within
10 s (its lease taken over, its hand carried on from the log); each player's page reconnects
through the balancer and is shown the same hand, every event it saw before first (no action lost:
everything the person was told was done is in the hand's record); every match is played to its end,
each hand settled once, and the ledger's audit balances.

The clients follow the cluster's way to a table: ``/ws/CODE`` through the balancer; a node that
does not run the room closes with 4307 and the name of the one that does, reached at
``/n/NAME/ws/CODE``; 4503 (or a dead connection) means: try again through the balancer.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from killed import Cluster, Guest, cluster_settings, holders, opened, paused, running, until
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from xuezhan.server.nodes import MOVED
from xuezhan.store import Store
from xuezhan.store.models import MatchRow, Room, RoomLease, Settlement
from xuezhan.store.pgtemp import TempPostgres

HANDS = 2
FAILOVER = 10.0  # seconds: the promise
WAIT = 90.0  # generous bounds on waits, never timing assertions
CONFIG = cluster_settings(accounts_per_address=20)


@pytest.fixture
def cluster(postgres: TempPostgres, tmp_path: Path) -> Iterator[Cluster]:
    with running(postgres, tmp_path / "cluster", 3, CONFIG) as c:
        yield c


@pytest.fixture
def pair(postgres: TempPostgres, tmp_path: Path) -> Iterator[Cluster]:
    with running(postgres, tmp_path / "pair", 2, CONFIG) as c:
        yield c


def choose(state: dict[str, Any]) -> dict[str, Any] | None:
    """A simple player: win when it can, never claim otherwise, discard the drawn tile."""
    legal = state["view"]["legal"]
    if state["decision"] is None or not legal:
        return None
    types = {a["type"] for a in legal}
    if "hu" in types:
        return {"type": "hu"}
    if "pass" in types:
        return {"type": "pass"}
    if "dingque" in types:
        return {"type": "dingque", "suit": legal[0]["suit"]}
    if "exchange" in types:
        return {"type": "exchange", "tiles": legal[0]["tiles"]}
    discards = [a["tile"] for a in legal if a["type"] == "discard"]
    drawn = state["view"]["drawn"]
    return {"type": "discard", "tile": drawn if drawn in discards else discards[-1]}


def guest(c: Cluster, name: str, trustee: bool) -> Guest:
    """A person at a quick table of ``HANDS`` hands on cluster ``c``, in 托管 or playing every
    decision of their own (:func:`choose`), from now on."""
    person = Guest(c.port, name, None if trustee else choose, hands=HANDS, wait=WAIT, patience=4 * WAIT)
    person.start()
    return person


def under_way(kim: Guest) -> bool:
    """Kim's hand is in play, well started, and kim's own actions in it were done."""
    assert not kim.over, "kim's match ended before its hand got going"
    return kim.in_hand and len(kim.seen.get(kim.hand_no, [])) >= 12 and len(kim.acked) >= 2


def subsequence(needles: list[dict[str, Any]], hay: list[dict[str, Any]]) -> bool:
    it = iter(hay)
    return all(any(all(h.get(k) == v for k, v in n.items()) for h in it) for n in needles)


def played_out(store: Store, person: Guest, acted_in_every_hand: bool = False) -> None:
    """``person``'s match finished, each of its hands settled once; with ``person`` playing its own
    decisions, every action it was told was done is in its hand's record, in order (and with
    ``acted_in_every_hand``, it did some in every hand)."""
    with Session(store.engine) as s:
        match = s.scalars(select(MatchRow).join(Room, Room.id == MatchRow.room_id)
                          .where(Room.name == person.code)).one()
        assert (match.status, match.hands_played) == ("finished", HANDS)
        settled = s.scalar(select(func.count()).select_from(Settlement)
                           .where(Settlement.key.like(f"match/{match.id}/hand/%")))
        assert settled == HANDS
    if person.trustee:
        return
    for hand in store.hands.hand_results(match.id):
        mine = [{k: v for k, v in a.items() if k != "hand_no"} for a in person.acked if a["hand_no"] == hand.hand_no]
        logged = [a for a in hand.record["actions"] if a.get("seat") == 0]
        assert mine or not acted_in_every_hand, f"kim did nothing in hand {hand.hand_no}"
        assert subsequence(mine, logged), f"hand {hand.hand_no} lost an action of kim's"


def test_a_node_killed_mid_hand_its_rooms_go_on_elsewhere_and_nothing_is_lost(cluster: Cluster) -> None:
    db = cluster.info["db"]
    people = [guest(cluster, "kim", trustee=False)] + [guest(cluster, f"p{i}", trustee=True) for i in range(1, 4)]
    with opened(db) as store:
        issued_before = store.ledger.audit()["issued"]  # the new accounts' coins included
    kim = people[0]
    until(lambda: under_way(kim), "kim's hand did not get going", WAIT)
    before = holders(db)
    victim = before[kim.code]
    assert victim is not None
    rooms = sorted(code for code, node in before.items() if node == victim)
    os.kill(cluster.node_pid(victim), signal.SIGKILL)
    killed_at = time.monotonic()
    seen_at_kill = {p.code: (p.hand_no, p.in_hand) for p in people}

    # every room of the dead node is taken by another node within 10 s
    taken_at: dict[str, float] = {}
    while len(taken_at) < len(rooms):
        now = holders(db)
        for code in rooms:
            if code not in taken_at and now.get(code) not in (None, victim):
                taken_at[code] = time.monotonic() - killed_at
        assert time.monotonic() - killed_at < WAIT, f"rooms {set(rooms) - set(taken_at)} were not taken over"
        time.sleep(0.1)
    for p in people:
        p.join(4 * WAIT)
    print(f"killed {victim} running {rooms}; taken over after {taken_at}")
    for p in people:
        assert not p.problems, (p.name, p.problems)
        assert p.over
        if p.code in rooms:
            hand_no, in_hand = seen_at_kill[p.code]
            # the page is back on the same hand, every event shown before first, within 10 s
            back = p.shown_again(killed_at)
            assert back, f"{p.name}'s table was never shown again"
            after, shown_hand = back[0]
            if in_hand:
                assert shown_hand == hand_no
            assert after < FAILOVER, f"{p.name} saw its table again only after {after:.1f} s"
    assert max(taken_at.values()) < FAILOVER
    assert kim.moved >= 1  # kim's page was sent from the balancer's node to the one running the room

    with opened(db) as store:
        totals = store.ledger.audit()  # raises on any broken invariant
        assert totals["players"] + totals["house"] == totals["issued"] == issued_before  # no coin made or lost
        for p in people:
            played_out(store, p, acted_in_every_hand=True)


def test_a_node_paused_past_its_leases_writes_nothing_more_for_its_rooms(pair: Cluster) -> None:
    """SIGSTOP a node mid-hand until the other node has taken its room, then SIGCONT: it stops the
    room's table (its page reconnects through the balancer), the lease stays the other node's, the
    node sends a page that asks it for the room on, and the match ends with every hand settled once,
    every action of the person's in the record, and the ledger balanced."""
    db = pair.info["db"]
    kim = guest(pair, "kim", trustee=False)
    until(lambda: under_way(kim), "kim's hand did not get going", WAIT)
    victim = holders(db)[kim.code]
    assert victim is not None

    def taken() -> str | None:
        node = holders(db).get(kim.code)
        return None if node == victim else node

    paused_at = time.monotonic()
    with paused(pair.node_pid(victim)):
        taker = until(taken, "the paused node's room was not taken over", WAIT, every=0.1)
        token = lease_token(db, kim.code)
    log_file = pair.dir / f"{victim}.log"
    stopped = f"room {kim.code} is run by another node now; its table stops here"
    until(lambda: stopped in log_file.read_text(encoding="utf-8", errors="replace"),
          "the paused node did not stop the room's table", WAIT, every=0.1)
    # asked directly for the room, the node that was paused sends the page to the one that runs it
    # (or, once the match is over, knows no such room)
    direct = f"ws://127.0.0.1:{pair.port}/n/{victim}/ws/{kim.code}"
    with pytest.raises(ConnectionClosed) as moved, \
            connect(direct, additional_headers={"Cookie": kim.cookie}, open_timeout=10) as ws:
        while True:
            ws.recv(timeout=WAIT)
    closed = moved.value.rcvd
    assert closed is not None
    assert (closed.code, closed.reason) == (MOVED, taker) or (closed.code == 4404 and kim.code not in holders(db))
    kim.join(4 * WAIT)
    # kim's page was shown the whole table again after the pause, by whichever node the balancer
    # sent it to first (the one that was paused says where the room is run: just above)
    assert kim.over and kim.shown_again(paused_at)
    assert (holders(db).get(kim.code), lease_token(db, kim.code)) in ((None, None), (taker, token))
    with opened(db) as store:
        store.ledger.audit()  # raises on any broken invariant
        played_out(store, kim)


def lease_token(db: str, code: str) -> int | None:
    """The fencing token of room ``code``'s lease while it is to be played."""
    with opened(db) as store, Session(store.engine) as s:
        return s.scalar(select(RoomLease.token).join(Room, Room.id == RoomLease.room_id)
                        .where(Room.name == code, RoomLease.expires_at.is_not(None)))
