"""One websocket connection as a table sees it, and what reaches a table's inbox."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import orjson

from ..i18n import DEFAULT_LANG, Lang
from ..jsontext import escape_surrogates
from .bank import Account
from .protocol import ClientMessage


def dumps(msg: dict[str, Any]) -> str:
    """A message as compact JSON text, UTF-8 as is: as the database writes JSON
    (:func:`~xuezhan.store.db.json_text`), but a lone surrogate (text that UTF-8 cannot encode)
    escaped (:func:`~xuezhan.jsontext.escape_surrogates`), so that the text can always be sent."""
    try:
        return orjson.dumps(msg, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # integers beyond 64 bits, lone surrogates: orjson refuses them
        return escape_surrogates(json.dumps(msg, separators=(",", ":"), ensure_ascii=False))


class Conn:
    """One websocket connection as a table sees it: who, which seat, and an outbox.

    The table never awaits a client: it puts text in the outbox and the connection's
    own writer task sends it. A client that lets the outbox fill up is disconnected.
    """

    def __init__(self, account: Account, *, watch: bool = False, queue_size: int = 256,
                 lang: Lang = DEFAULT_LANG) -> None:
        self.account = account
        self.lang: Lang = lang
        """The language of this connection's messages (names of bots, settlements, errors)."""
        self.watch = watch
        self.seat: int | None = None
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self.events_sent = 0
        self.hand_key = -1
        self.closed = False
        self.close_code = 1000

    def send(self, msg: dict[str, Any]) -> None:
        self.send_text(dumps(msg))

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close(1008)  # too slow to keep up

    def close(self, code: int = 1000) -> None:
        """Stop sending: the writer closes the socket with ``code`` after what is queued."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        while True:
            try:
                self.outbox.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.outbox.get_nowait()  # drop the oldest: the client is going away anyway


@dataclass(slots=True)
class Inbound:
    """Something for a table to handle: a connection joins (``join``), goes (``gone``) or sends (``msg``)."""

    kind: str
    conn: Conn
    msg: ClientMessage | None = None
