"""What the store's repositories share: the database they work on, the system accounts, the
store's error, and the checks and lookups every repository makes inside its transactions.

A :class:`Database` is one engine and one session factory; every repository of a
:class:`~xuezhan.store.Store` holds the same one, so they all open their transactions the
same way (``with db.sessions.begin() as s``) on the same connections.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from ..errors import XuezhanError
from ..ids import ErrorCode
from .db import READ_ONLY
from .models import Account, MatchRow

HOUSE: Final = "#house"
MINT: Final = "#mint"
TABLE: Final = "#table"
SYSTEM: Final = (HOUSE, MINT, TABLE)


class StoreError(XuezhanError):
    """A store request that cannot be done (unknown name, conflict, not enough coins...)."""


class Database:
    """An engine and its session factories, with the ids of the system accounts (made by the
    first migration: ``not_migrated`` when they are missing).

    ``sessions`` for every transaction that writes, or reads what it is about to write;
    ``reads`` for a read alone (on SQLite it does not take the write lock: :data:`READ_ONLY`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self.reads = sessionmaker(engine.execution_options(**{READ_ONLY: True}), expire_on_commit=False)
        with self.sessions() as s:
            rows = s.execute(select(Account.name, Account.id).where(Account.name.in_(SYSTEM))).all()
            self.system_ids: dict[str, int] = {name: ident for name, ident in rows}
        if len(self.system_ids) != len(SYSTEM):
            raise StoreError(ErrorCode.NOT_MIGRATED, "the database has no system accounts: migrate it first")


def account_ids(s: Session, names: Iterable[str]) -> dict[str, int]:
    """The ids of the accounts named ``names``; ``unknown_account`` if one is missing."""
    names = list(dict.fromkeys(names))
    rows = s.execute(select(Account.name, Account.id).where(Account.name.in_(names))).all()
    ids = {n: i for n, i in rows}
    missing = [n for n in names if n not in ids]
    if missing:
        raise StoreError(ErrorCode.UNKNOWN_ACCOUNT, f"no account named {', '.join(map(repr, missing))}")
    return ids


class Fence(Protocol):
    """What a node of a cluster checks in every transaction that writes for a room: that it still
    holds the room's lease with the token it took it with (:class:`xuezhan.store.leases.NodeFence`);
    else ``lease_lost`` and nothing of the transaction is written."""

    def check_matches(self, s: Session, match_ids: Iterable[int]) -> None: ...

    def check_room(self, s: Session, room_id: int) -> None: ...

    def claim(self, s: Session, room_id: int, name: str) -> None:
        """A room made by this node: its lease, in the transaction that makes it."""
        ...

    def check_lead(self, s: Session, task: str) -> None:
        """This node leads the cluster's ``task`` (``tournaments``) with the token it took it with
        (:mod:`xuezhan.store.leaders`); else ``lease_lost``."""
        ...


FENCE: Final = "xuezhan.fence"
"""The key of a store's sessions' ``info`` under which a node keeps its :class:`Fence`."""


def fence(s: Session) -> Fence | None:
    """The fence of the node whose store opened ``s`` (``None``: a server alone, no leases)."""
    found: Fence | None = s.info.get(FENCE)
    return found


def lock_match(s: Session, match_id: int) -> MatchRow:
    """The match's row, locked for the rest of the transaction (``unknown_match`` if there is none).
    Every transaction that changes a match or its hands locks its row first; on a node of a cluster
    it also checks the room's lease there (:func:`fence`)."""
    row = s.get(MatchRow, match_id, with_for_update=True)
    if row is None:
        raise StoreError(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}")
    fenced = fence(s)
    if fenced is not None:
        fenced.check_matches(s, (match_id,))
    return row


def aware(at: datetime) -> datetime:
    """A time from the database with its zone (SQLite gives times back without one: they are UTC)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def canonical(data: Any) -> str:
    """``data`` as one canonical JSON text: what two writes of "the same" thing are compared by."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def json_object(data: object, code: ErrorCode, what: str) -> dict[str, Any]:
    """``data`` as it will read back from the database (a JSON object), or ``StoreError(code)``."""
    if not isinstance(data, Mapping):
        raise StoreError(code, f"{what} is a JSON object, not {type(data).__name__}")
    try:
        out = json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise StoreError(code, f"{what} is not JSON: {exc}") from None
    assert isinstance(out, dict)
    return out


def is_count(value: object) -> bool:
    """Whether ``value`` is an ``int`` (and not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_name(name: object) -> None:
    """``bad_name`` unless ``name`` can name a player (1-100 characters, not starting with ``#``)."""
    if not isinstance(name, str) or not name or name.startswith("#") or len(name) > 100:
        raise StoreError(ErrorCode.BAD_NAME, f"{name!r} is not a player name (1-100 characters, not starting with #)")
