"""The web table driven directly: who owns a seat, and a database that stops answering.

A table whose database stops taking its hand log holds still, and carries on when it is back.

What nobody could log is shown to nobody: while the log cannot be written no bot moves, no
new state is sent and people's actions are refused with ``database_error``; when the
database answers again the log is written and the hand goes on to its end, settled once.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from xuezhan.match import RoomConfig
from xuezhan.records import parse_record
from xuezhan.server.bank import LogEntry
from xuezhan.server.config import ServerConfig
from xuezhan.server.conn import Conn
from xuezhan.server.protocol import ClientMessage
from xuezhan.server.storebank import StoreBank
from xuezhan.server.table import Status, Table
from xuezhan.store import Store

WAIT = 60.0  # seconds: a bound against hangs, never a timing assertion


class DownBank(StoreBank):
    """A bank whose hand-log writes fail while ``down`` is set."""

    down = False
    refused = 0

    def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
        if self.down:
            self.refused += 1
            raise ConnectionError("the database is not answering")
        super().write_log(entries)


async def _until(check: Any, what: str) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + WAIT
    while not check():
        assert loop.time() < end, what
        await asyncio.sleep(0.005)


async def _scenario(db: Path) -> None:
    bank = DownBank(Store(f"sqlite:///{db}"))
    ann = bank.create_account("ann")[0]
    room = RoomConfig.from_mapping({"rules": "qq", "hands": 1})
    config = ServerConfig.fast(seed=4, turn_timeout=0.0, claim_timeout=0.0, choice_timeout=0.0)
    bank.open_room("DOWN1", room)
    table = Table("DOWN1", "down", room, ann, bank, config)
    conn = Conn(ann, queue_size=1_000_000)
    seen: list[dict[str, Any]] = []

    async def read() -> None:
        while (text := await conn.outbox.get()) is not None:
            seen.append(json.loads(text))

    reader = asyncio.create_task(read())
    table.start_task()
    table.join(conn)
    table.message(conn, ClientMessage("start", {"type": "start"}))
    await _until(lambda: table.hand is not None and len(table.hand.game.actions) >= 12, "the hand did not start")

    bank.down = True
    await _until(lambda: table.log_failing, "the failing log was not noticed")
    assert table.hand is not None
    game = table.hand.game
    held = (len(game.actions), table.version)
    shown = len([m for m in seen if m["type"] == "state"])
    await _until(lambda: bank.refused >= 3, "the log was not tried again")  # retries, and nothing moves
    assert (len(game.actions), table.version) == held
    assert len([m for m in seen if m["type"] == "state"]) == shown  # nothing shown that is not logged
    assert any(m["type"] == "error" and m["code"] == "database_error" for m in seen)
    logged = bank.store.rooms.running_matches()[0].hand
    assert logged is not None and len(logged.actions) >= held[0] - 1  # at most the move that found it down
    legal = game.legal_actions(0)
    if legal:
        table.message(conn, ClientMessage("action", {"type": "action", "action": {
            k: v for k, v in legal[0].to_json().items() if k != "seat"}, "version": table.version}))
        await _until(lambda: any(m.get("for") == "action" for m in seen), "no answer to an action")
        answer = next(m for m in seen if m.get("for") == "action")
        assert answer["type"] == "error" and answer["code"] == "database_error"
        assert len(game.actions) == held[0]

    bank.down = False
    await _until(lambda: table.last_match_end is not None, "the match did not finish after the database came back")
    assert table.status is Status.FINISHED
    match_id = int(table.match_key)
    record = bank.store.hands.hand_record(match_id, 1)
    assert [a.to_json() for a in parse_record(record).actions] == [a.to_json() for a in game.actions]
    assert [r.hand_no for r in bank.store.hands.hand_results(match_id)] == [1]  # settled once
    conn.close()
    await reader
    assert table.task is not None
    table.task.cancel()
    await asyncio.gather(table.task, return_exceptions=True)
    bank.close()


def test_a_table_holds_still_while_its_log_cannot_be_written(tmp_path: Path) -> None:
    asyncio.run(_scenario(tmp_path / "down.sqlite3"))


def test_a_person_named_like_a_seat_is_a_person() -> None:
    bank = StoreBank(Store("sqlite://"))
    person = bank.create_account("seat1")[0]
    table = Table("NAMES1", "names", RoomConfig(), person, bank, ServerConfig.fast())
    table.players = [None, person.player, None, None]
    assert table.seat_owner(1).is_person and table.seat_owner(1).name == "seat1"
    assert not table.seat_owner(0).is_person and not table.seat_owner(2).is_person
    bank.close()


def test_a_table_that_stops_waiting_does_not_hold_up_the_others() -> None:
    from xuezhan.server.journal import LogWriter

    class SlowBank:
        def __init__(self) -> None:
            self.batches: list[list[str]] = []
            self.first = True

        def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
            if self.first:  # the first write is slow: the others queue up behind it
                self.first = False
                import time

                time.sleep(0.2)
            self.batches.append([key for key, _ in entries])

    async def scenario() -> None:
        bank = SlowBank()
        writer = LogWriter(bank)  # type: ignore[arg-type]
        first = asyncio.create_task(writer.write("1", [("action", 1, 0, {})]))
        await asyncio.sleep(0.05)  # the first write is under way
        gone = asyncio.create_task(writer.write("2", [("action", 1, 0, {})]))
        kept = asyncio.create_task(writer.write("3", [("action", 1, 0, {})]))
        await asyncio.sleep(0.01)
        gone.cancel()  # its table closed while it waited
        await asyncio.wait_for(asyncio.gather(first, kept), WAIT)
        assert bank.batches == [["1"], ["2", "3"]]  # one group commit for the two waiting
        await writer.close()

    asyncio.run(scenario())


def test_the_hand_log_writer_meets_the_loop_once_per_batch() -> None:
    from xuezhan.server.journal import LogWriter

    class Bank:
        def __init__(self) -> None:
            self.done: list[list[str] | str] = []

        def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
            self.done.append([key for key, _ in entries])

    async def scenario() -> None:
        bank = Bank()
        writer = LogWriter(bank)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()
        wakeups = 0
        threadsafe = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal wakeups
            wakeups += 1
            return threadsafe(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign,assignment]
        # fifty tables flush in one turn of the loop: one batch, one transaction, one wake-up
        await asyncio.wait_for(asyncio.gather(*(writer.write(str(k), [("action", 1, 0, {})]) for k in range(50))),
                               WAIT)
        assert bank.done == [[str(k) for k in range(50)]] and wakeups == 1
        # a batch's logs go first, in one commit, however the calls fall among them (each table has
        # one job at a time); then each call, told as it is done: two calls, three wake-ups in all
        first = writer.write("a", [("action", 1, 1, {})])
        call = writer.call(bank.done.append, "call")
        last = writer.write("b", [("action", 1, 1, {})])
        again = writer.call(bank.done.append, "again")
        await asyncio.wait_for(asyncio.gather(first, call, last, again), WAIT)
        assert bank.done[1:] == [["a", "b"], "call", "again"] and wakeups == 4
        await writer.close()
        with pytest.raises(RuntimeError):
            await writer.write("c", [])

    asyncio.run(scenario())


def test_the_end_of_a_hand_is_encoded_once_per_language() -> None:
    from types import SimpleNamespace

    from xuezhan.i18n import Lang
    from xuezhan.server.bank import Account
    from xuezhan.server.outbound import Outbound

    langs: tuple[Lang, ...] = ("zh-CN", "en", "zh-CN", "en")
    conns = [Conn(Account(f"p{k}", f"p{k}", 0), lang=lang) for k, lang in enumerate(langs)]
    table = SimpleNamespace(
        conns=set(conns), status=Status.FINISHED, next_hand_at=0.0, now=lambda: 0.0,
        last_hand_end={lang: {"type": "hand_end", "lang": lang} for lang in ("zh-CN", "zh-TW", "en")},
        last_match_end={lang: {"type": "match_end", "lang": lang} for lang in ("zh-CN", "zh-TW", "en")},
    )
    Outbound(table).broadcast_hand_end()
    sent = [[str(conn.outbox.get_nowait()) for _ in range(2)] for conn in conns]
    for conn, (hand_end, match_end) in zip(conns, sent, strict=True):
        assert json.loads(hand_end) == {"type": "hand_end", "lang": conn.lang, "next_hand_ms": None}
        assert json.loads(match_end) == {"type": "match_end", "lang": conn.lang}
        assert conn.outbox.empty()
    # the same text, not an equal one: each message was encoded once for everyone of a language
    assert sent[0][0] is sent[2][0] and sent[0][1] is sent[2][1] and sent[1][0] is sent[3][0]
    assert sent[0][0] != sent[1][0]
