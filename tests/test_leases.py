"""Room leases (xuezhan.store.leases): a room made by a node is its; the node renews it; a lease
left to lapse is taken over by another node with a higher token; and a node whose lease was taken
writes nothing more for the room (fencing). Each node is a store of its own on the same database,
as each ``xuezhan serve --node`` process is."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import func, select

from xuezhan.ids import ErrorCode
from xuezhan.match import HandResult, RoomConfig, Transfer
from xuezhan.rules import Rules
from xuezhan.store import NodeFence, Store, StoreError
from xuezhan.store.base import lock_match
from xuezhan.store.models import HandAction, HandRow

PLAYERS = ("ann", "bo", "cai", "dan")
SHORT = 0.3  # seconds a lease lasts in these tests


def node(url: str, name: str, seconds: float = 30.0) -> tuple[Store, NodeFence]:
    store = Store(url)
    fence = NodeFence(name, seconds)
    store.leases.install(fence)
    return store, fence


@pytest.fixture
def nodes(url: str) -> Iterator[tuple[tuple[Store, NodeFence], tuple[Store, NodeFence]]]:
    a, b = node(url, "a", SHORT), node(url, "b", SHORT)
    yield a, b
    a[0].close()
    b[0].close()


def room() -> RoomConfig:
    return RoomConfig(Rules.preset("qq"), coefficient=10, fee=5, hands=2)


def zimo(hand_no: int) -> HandResult:
    return HandResult(hand_no=hand_no, seed=hand_no, dealer=0, seating=PLAYERS, bets=(),
                      transfers=tuple(Transfer(p, PLAYERS[0], 18, "zimo") for p in PLAYERS[1:]), items=(),
                      escaped=(), next_dealer=None, record={"note": "synthetic"})


def held_by(store: Store, name: str) -> tuple[str | None, bool] | None:
    holder = store.leases.holder(name)
    return None if holder is None else (holder.node, holder.live)


def lapse() -> None:
    time.sleep(SHORT + 0.2)


def actions(store: Store) -> int:
    with store.hands._db.sessions() as s:
        return s.scalar(select(func.count()).select_from(HandAction)) or 0


def test_a_room_made_by_a_node_is_its_own_until_it_lapses(nodes: tuple[tuple[Store, NodeFence], ...]) -> None:
    (a, fa), (b, fb) = nodes
    a.rooms.create_room("r1", room())
    assert fa.held == {"r1": 1}
    assert held_by(a, "r1") == ("a", True)
    assert b.leases.take_lapsed(fb) == {}  # live: nobody else takes it
    for _ in range(3):  # renewed, it never lapses
        time.sleep(SHORT / 2)
        assert a.leases.renew(fa) == set()
    assert b.leases.take_lapsed(fb) == {}
    lapse()
    assert held_by(a, "r1") == ("a", False)
    assert b.leases.take_lapsed(fb) == {"r1": 2}  # taken over: the token goes up
    assert fb.held == {"r1": 2}
    assert held_by(b, "r1") == ("b", True)
    assert a.leases.renew(fa) == {"r1"}  # a learns it lost the room
    assert fa.held == {}
    assert b.leases.renew(fb) == set()


def test_a_node_whose_lease_was_taken_writes_nothing_more(nodes: tuple[tuple[Store, NodeFence], ...]) -> None:
    (a, _), (b, fb) = nodes
    for p in PLAYERS:
        a.accounts.create_account(p, 10_000)
    a.rooms.create_room("r1", room(), {"name": "one"})
    match_id, match = a.rooms.start_match("r1", list(PLAYERS), seed=1)
    a.hands.write_log([("begin", match_id, 1, 7, {}), ("action", match_id, 1, 0, {"type": "pass", "seat": 0})])
    lapse()
    assert b.leases.take_lapsed(fb) == {"r1": 2}
    before = (actions(a), a.ledger.audit(), a.rooms.room_meta("r1"))
    refused: list[Callable[[], object]] = [
        lambda: a.hands.write_log([("action", match_id, 1, 1, {"type": "pass", "seat": 1})]),
        lambda: a.hands.append_action(a.hands.hand_log_id(match_id, 1), 1, {"type": "pass", "seat": 1}),
        lambda: a.settle_hand(match_id, zimo(1)),
        lambda: a.rooms.save_match(match_id, match),
        lambda: a.rooms.set_room_meta("r1", {"name": "mine"}),
        lambda: a.rooms.end_match(match_id, "abandoned"),
        lambda: a.rooms.start_match("r1", list(PLAYERS), seed=2),
    ]
    for write in refused:
        with pytest.raises(StoreError) as caught:
            write()
        assert caught.value.code == ErrorCode.LEASE_LOST
    assert (actions(a), a.ledger.audit(), a.rooms.room_meta("r1")) == before
    # the node that holds it carries on from the log
    running = b.rooms.running_matches(["r1"])
    assert [m.hand.actions if m.hand else None for m in running] == [({"type": "pass", "seat": 0},)]
    b.hands.write_log([("action", match_id, 1, 1, {"type": "pass", "seat": 1})])
    settled = b.settle_hand(match_id, zimo(1))
    assert settled.changes["ann"] > 0
    with b.hands._db.sessions() as s:
        assert s.scalar(select(func.count()).select_from(HandRow)) == 1
    assert actions(b) == 2


def test_rooms_never_leased_are_taken_and_done_rooms_are_left(url: str) -> None:
    alone = Store(url)  # a server alone made these, before there were nodes
    try:
        for p in PLAYERS:
            alone.accounts.create_account(p, 10_000)
        alone.rooms.create_room("playing", room())
        alone.rooms.start_match("playing", list(PLAYERS), seed=1)
        alone.rooms.create_room("waiting", room(), {"seats": ["ann", None, None, None]})
        alone.rooms.create_room("closed", room(), {"closed": True})
        alone.rooms.create_room("over", room())
        over, _ = alone.rooms.start_match("over", list(PLAYERS), seed=1)
        alone.rooms.end_match(over, "finished")
    finally:
        alone.close()
    a, fa = node(url, "a")
    try:
        assert a.leases.take_lapsed(fa) == {"playing": 1, "waiting": 1}
        assert a.leases.holder("closed") is None and a.leases.holder("over") is None
        assert a.leases.take_lapsed(fa) == {}  # the done rooms are never looked at again
        assert a.leases.renew(fa) == set()
    finally:
        a.close()


def test_a_room_given_up_is_taken_at_once_and_a_closed_one_never(nodes: tuple[tuple[Store, NodeFence], ...]) -> None:
    (a, fa), (b, fb) = nodes
    fa.seconds = fb.seconds = 30.0
    a.rooms.create_room("r1", room())
    a.rooms.create_room("r2", room())
    assert a.leases.release(fa, "r2")
    assert a.leases.holder("r2") is None
    assert a.leases.drain(fa) == 1  # a node stopping on purpose
    assert fa.held == {}
    assert b.leases.take_lapsed(fb) == {"r1": 2}
    assert b.leases.take_lapsed(fb) == {}
    assert not a.leases.release(fa, "r1")  # not a's to give up any more
    assert held_by(b, "r1") == ("b", True)


def test_the_lobby_lists_the_rooms_of_every_node(nodes: tuple[tuple[Store, NodeFence], ...]) -> None:
    (a, fa), (b, fb) = nodes
    fa.seconds = fb.seconds = 30.0
    a.rooms.create_room("r1", room())
    b.rooms.create_room("r2", room())
    b.rooms.create_room("r3", room())
    assert a.leases.renew(fa, {"r1": {"code": "r1"}}) == set()
    assert b.leases.renew(fb, {"r2": {"code": "r2"}, "r3": None}) == set()
    assert a.leases.listing() == b.leases.listing() == [{"code": "r1"}, {"code": "r2"}]
    b.leases.release(fb, "r2")
    assert a.leases.listing() == [{"code": "r1"}]


@pytest.mark.parametrize("url", ["postgresql"], indirect=True)
def test_a_take_over_never_overtakes_a_write_that_checked_before_it(
        nodes: tuple[tuple[Store, NodeFence], ...]) -> None:
    (a, _), (b, fb) = nodes
    for p in PLAYERS:
        a.accounts.create_account(p, 10_000)
    a.rooms.create_room("r1", room())
    match_id, _ = a.rooms.start_match("r1", list(PLAYERS), seed=1)
    lapse()
    writing = a.hands._db.sessions()
    writing.begin()
    lock_match(writing, match_id)  # a's write has checked its lease, and is not committed yet
    taken: list[dict[str, int]] = []
    other = threading.Thread(target=lambda: taken.append(b.leases.take_lapsed(fb)))
    other.start()
    other.join(10)
    assert taken == [{}]  # the lease row is held by the write: it is not taken from under it
    writing.commit()
    writing.close()
    assert b.leases.take_lapsed(fb) == {"r1": 2}
