"""Persistence (SQLAlchemy 2): accounts, coin balances, rooms, matches, hand records,
a double-entry coin ledger, item cards, and the append-only logs of hands in play; SQLite by default, PostgreSQL by URL.

>>> store = Store("sqlite://")                   # doctest: +SKIP
>>> store.accounts.create_account("alice", 10_000)  # doctest: +SKIP
>>> store.ledger.balance("alice")                   # doctest: +SKIP
10000

A :class:`Store` holds one repository per concern: ``store.accounts`` (accounts, sessions),
``store.ledger`` (coins, item cards, the audit), ``store.hands`` (hand logs and records) and
``store.rooms`` (rooms and matches), ``store.tournaments`` (tournaments); settling a hand, which spans them, is
:meth:`Store.settle_hand`.

The schema is made and upgraded by the Alembic migrations shipped in
``xuezhan/store/migrations`` (:func:`migrate`, run by ``Store`` unless told not to).
"""

from .accounts import Accounts, AccountSettings, PlayerInfo
from .base import HOUSE, MINT, TABLE, StoreError
from .db import current_revision, default_url, downgrade, head_revision, make_engine, migrate, normalise_url
from .hands import HandHistory, Hands, LogItem, OpenHand
from .leaders import Lead, Leaders
from .leases import Leases, NodeFence
from .ledger import Ledger, WalletLine
from .queue import QueueBook, Queued
from .rooms import ENDED_STATUSES, ResumableMatch, Rooms
from .store import SettledHand, Store, settlement_key
from .tournaments import Tournament, Tournaments

__all__ = [
    "ENDED_STATUSES",
    "HOUSE",
    "MINT",
    "TABLE",
    "AccountSettings",
    "Accounts",
    "HandHistory",
    "Hands",
    "Lead",
    "Leaders",
    "Leases",
    "Ledger",
    "LogItem",
    "NodeFence",
    "OpenHand",
    "PlayerInfo",
    "QueueBook",
    "Queued",
    "ResumableMatch",
    "Rooms",
    "SettledHand",
    "Store",
    "StoreError",
    "Tournament",
    "Tournaments",
    "WalletLine",
    "current_revision",
    "default_url",
    "downgrade",
    "head_revision",
    "make_engine",
    "migrate",
    "normalise_url",
    "settlement_key",
]
