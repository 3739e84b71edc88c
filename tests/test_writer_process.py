"""The tables' writes in a process of their own (xuezhan.server.writer_process): the same writes as
the writer's thread makes, errors with their codes, a node's fence with every batch, a child that
died replaced, and no child that outlives its server."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from xuezhan.bots import make_bot
from xuezhan.errors import XuezhanError
from xuezhan.ids import ErrorCode
from xuezhan.match import HandResult, Match, RoomConfig
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand
from xuezhan.server import ServerConfig
from xuezhan.server.app import writer_for
from xuezhan.server.journal import LogWriter
from xuezhan.server.storebank import StoreBank
from xuezhan.server.writer_process import WriterProcess, spec_of
from xuezhan.store import NodeFence, Store

PEOPLE = ["ann", "bo", "cai", "dan"]
WAIT = 60.0


def room() -> RoomConfig:
    return RoomConfig(Rules.preset("chengdu"), coefficient=10, fee=2, hands=4)


@pytest.fixture
def bank(url: str) -> Iterator[StoreBank]:
    opened = StoreBank(Store(url), starting_coins=5_000)
    for p in PEOPLE:
        opened.create_account(p)
    yield opened
    opened.close()


async def started(bank: StoreBank) -> tuple[WriterProcess, LogWriter]:
    """A writer whose writes are made by a child process on ``bank``'s database, started."""
    spec = spec_of(bank)
    assert spec is not None
    process = WriterProcess(spec)
    writer = LogWriter(bank, process)
    await writer.start()
    assert process.pid is not None and process.pid != os.getpid()
    return process, writer


def played(match: Match, seed: int) -> HandResult:
    hand = match.start_hand()
    play_match_hand(hand, [make_bot("heuristic", random.Random(seed + k)) for k in range(4)], random.Random(seed))
    return match.finish_hand(hand)


def test_the_server_writes_in_a_process_only_on_a_database_processes_share(bank: StoreBank) -> None:
    assert writer_for(bank, ServerConfig()).process is not None
    assert writer_for(bank, ServerConfig(write_process=False)).process is None
    memory = StoreBank(Store("sqlite://"))
    assert spec_of(memory) is None and writer_for(memory, ServerConfig()).process is None
    memory.close()


def test_a_match_written_through_the_process_is_the_one_the_database_keeps(bank: StoreBank) -> None:
    async def scenario() -> None:
        process, writer = await started(bank)
        bank.open_room("R1", room())
        key, match = await writer.call(bank.open_match, "R1", PEOPLE, 7)
        assert isinstance(match, Match) and list(match.people) == PEOPLE
        before = {p: a.balance for p, a in bank.accounts(PEOPLE).items() if a is not None}
        result = played(match, 1)
        await writer.write(key, [("begin", 1, result.seed, {"seating": list(result.seating)})])
        settled = await writer.call(bank.settle_hand, key, result, match)
        # the coins moved in the database as the settlement says, and the books balance
        after = {p: a.balance for p, a in bank.accounts(PEOPLE).items() if a is not None}
        assert tuple(after[p] for p in result.participants) == settled.balances
        assert [after[p] - before[p] for p in result.participants] == list(settled.changes)
        assert sum(settled.changes) + sum(settled.fees) == 0
        bank.store.audit()
        assert [h.hand_no for h in bank.history("ann")] == [1]
        # the same hand again is the first settlement, replayed; an unknown match keeps its code
        again = await writer.call(bank.settle_hand, key, result, match)
        assert again.replayed and again.changes == settled.changes
        with pytest.raises(XuezhanError) as refused:
            await writer.call(bank.settle_hand, "999999", result, match)
        assert refused.value.code == ErrorCode.UNKNOWN_MATCH
        # the match's state saved by the child is the one read back
        await writer.call(bank.save_match, key, match)
        running = {m.key: m for m in bank.running_matches()}
        assert running[key].match.state_json() == match.state_json()
        await writer.close()
        assert process.pid is None  # the child ended with the writer

    asyncio.run(scenario())


def test_a_child_that_died_is_replaced_and_its_jobs_refused(bank: StoreBank) -> None:
    async def scenario() -> None:
        process, writer = await started(bank)
        first = process.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        # whether the next batch meets the dead child (refused: database_error) or a new one, a
        # retry is written by a child that runs
        try:
            account = await writer.call(bank.account, "ann")
        except XuezhanError as exc:
            assert exc.code == ErrorCode.DATABASE_ERROR
            account = await writer.call(bank.account, "ann")
        assert account is not None and account.player == "ann"
        assert process.pid not in (None, first)
        await writer.close()

    asyncio.run(scenario())


def test_a_batch_is_refused_when_its_child_is_gone(bank: StoreBank) -> None:
    """The child's end of the pipe closed mid-batch: every job of the batch not yet told is refused."""
    import socket
    from multiprocessing.connection import Connection

    spec = spec_of(bank)
    assert spec is not None
    process = WriterProcess(spec)
    ours, theirs = socket.socketpair()
    theirs.close()  # the child is gone
    process._conn = Connection(ours.detach())
    process._child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    child = process._child
    told: list[tuple[int, object, BaseException | None]] = []
    process.work([("call", "account", ("ann",)), ("log", "1", [])], told.extend)
    assert [i for i, _, _ in told] == [0, 1]
    assert all(isinstance(e, XuezhanError) and e.code == ErrorCode.DATABASE_ERROR for _, _, e in told)
    assert child.poll() is not None and process.pid is None  # killed, not waited for


def test_a_write_that_cannot_cross_is_refused_and_the_child_keeps_on(bank: StoreBank) -> None:
    async def scenario() -> None:
        process, writer = await started(bank)
        pid = process.pid
        with pytest.raises(XuezhanError) as refused:
            await writer.call(bank.account, lambda: "ann")  # a lambda does not pickle
        assert refused.value.code == ErrorCode.DATABASE_ERROR
        account = await writer.call(bank.account, "ann")
        assert account is not None and account.player == "ann" and process.pid == pid
        await writer.close()

    asyncio.run(scenario())


def test_a_nodes_fence_goes_with_every_batch(url: str) -> None:
    store = Store(url)
    fence = NodeFence("n1", 30.0)
    store.leases.install(fence)
    node = StoreBank(store)
    for p in PEOPLE:
        node.create_account(p)
    node.open_room("R2", room())  # the node's lease on the room, token 1
    assert fence.held == {"R2": 1}
    spec = spec_of(node)
    assert spec is not None

    async def scenario() -> None:
        writer = LogWriter(node, WriterProcess(spec, fence=store.leases.installed))
        await writer.start()
        key, match = await writer.call(node.open_match, "R2", PEOPLE, 3)
        result = played(match, 2)
        fence.held["R2"] = 5  # what the node holds now is not what the database says
        with pytest.raises(XuezhanError) as refused:
            await writer.call(node.settle_hand, key, result, match)
        assert refused.value.code == ErrorCode.LEASE_LOST
        fence.held["R2"] = 1
        settled = await writer.call(node.settle_hand, key, result, match)
        assert not settled.replayed
        await writer.close()

    asyncio.run(scenario())
    node.close()


def test_the_child_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import asyncio, sys
        from xuezhan.server.journal import LogWriter
        from xuezhan.server.storebank import StoreBank
        from xuezhan.server.writer_process import WriterProcess, spec_of
        from xuezhan.store import Store

        bank = StoreBank(Store({f"sqlite:///{tmp_path / 'killed.sqlite3'}"!r}))
        process = WriterProcess(spec_of(bank))
        asyncio.run(LogWriter(bank, process).start())
        print(process.pid, flush=True)
        sys.stdin.read()
    """)
    server = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdout is not None
    child = int(server.stdout.readline())
    os.kill(child, 0)  # it runs
    server.kill()
    server.wait()
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{child}/stat", encoding="ascii") as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":  # ended; only its reaping is left
                return
        time.sleep(0.05)
    pytest.fail(f"the writer process {child} outlived its server")
