"""Persistence (SQLAlchemy 2): accounts, coin balances, rooms, matches, hand records,
a double-entry coin ledger, item cards, and the append-only logs of hands in play; SQLite by default, PostgreSQL by URL.

>>> store = Store("sqlite://")          # doctest: +SKIP
>>> store.create_account("alice", 10_000)  # doctest: +SKIP

The schema is made and upgraded by the Alembic migrations shipped in
``xuezhan/store/migrations`` (:func:`migrate`, run by ``Store`` unless told not to).
"""

from .db import current_revision, default_url, downgrade, head_revision, make_engine, migrate, normalise_url
from .store import (
    ENDED_STATUSES,
    HOUSE,
    MINT,
    TABLE,
    HandHistory,
    OpenHand,
    PlayerInfo,
    ResumableMatch,
    SettledHand,
    Store,
    StoreError,
    WalletLine,
    settlement_key,
)

__all__ = [
    "ENDED_STATUSES",
    "HOUSE",
    "MINT",
    "TABLE",
    "HandHistory",
    "OpenHand",
    "PlayerInfo",
    "ResumableMatch",
    "SettledHand",
    "Store",
    "StoreError",
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
