"""The tables (SQLAlchemy 2 declarative models). The schema itself is made by the
Alembic migrations in ``migrations/versions``; a test checks that they agree.

Coins move only as :class:`CoinTransfer` rows, each with exactly two :class:`Posting`
rows that sum to zero (double entry). A :class:`Balance` is a cached sum of its
account's postings, kept in the same transaction, with a check that a player's never
goes below zero. System accounts: ``#house`` (collects fees), ``#mint`` (issues
coins to players; its balance is minus all coins issued, so it may go negative) and
``#table`` (the clearing account of hand settlements: losers pay into it, winners
are paid out of it; it is back at zero after every settlement).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Final

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# BIGINT ids on PostgreSQL; INTEGER on SQLite, where only "INTEGER PRIMARY KEY" autoincrements.
BigId = BigInteger().with_variant(Integer(), "sqlite")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON}


class Account(Base):
    """A player (its name is its id in matches) or a system account (names start with ``#``).

    ``name_key`` makes people's names unique however they are written (NFKC, case-folded);
    ``password_hash`` (argon2) is empty for a guest; ``lang`` is the language the player chose;
    ``origin`` is a digest of the client address the account was made from (the daily limit of
    new accounts per address counts it), never the address itself."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("kind IN ('player', 'house', 'mint', 'clearing')", name="kind"),
        Index("ix_accounts_name_key", "name_key", unique=True),
        Index("ix_accounts_origin", "origin"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    name_key: Mapped[str | None] = mapped_column(String(100))
    password_hash: Mapped[str | None] = mapped_column(String(255))
    lang: Mapped[str | None] = mapped_column(String(8))
    origin: Mapped[str | None] = mapped_column(String(64))


class NameSkeleton(Base):
    """What a person's name looks like: its confusable skeleton (UTS #39), made by the server
    (:func:`xuezhan.server.names.name_skeleton`). A new name is refused when an account has its
    skeleton; accounts that shared one before skeletons were kept keep their names."""

    __tablename__ = "name_skeletons"

    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), primary_key=True)
    skeleton: Mapped[str] = mapped_column(Text, index=True)


class AccountSettingsRow(Base):
    """What a person chose for the page, kept with the account (one row once anything is chosen;
    no row: every default). ``mute``: the table plays no sounds."""

    __tablename__ = "account_settings"

    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), primary_key=True)
    mute: Mapped[bool] = mapped_column(Boolean, default=False)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class SessionRow(Base):
    """A signed-in session: the SHA-256 of its token (the token itself is only in the cookie),
    when it expires and, once logged out, when it was revoked."""

    __tablename__ = "sessions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), index=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Balance(Base):
    """An account's coins: the sum of its postings. Only ``overdraft`` accounts (the mint) go below zero."""

    __tablename__ = "balances"
    __table_args__ = (CheckConstraint("overdraft OR coins >= 0", name="not_negative"),)

    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), primary_key=True)
    coins: Mapped[int] = mapped_column(BigInteger, default=0)
    overdraft: Mapped[bool] = mapped_column(Boolean, default=False)


class Room(Base):
    __tablename__ = "rooms"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    config: Mapped[dict[str, Any]]
    meta: Mapped[dict[str, Any] | None]
    """What a server shows of the room in its lobby (display name, owner, public or not), kept so
    that the lobby can be rebuilt after a restart; the store does not look inside."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


MATCH_STATUSES = ("running", "finished", "abandoned")
"""``finished``: every hand played (or ended on purpose); ``abandoned``: it could not be resumed."""


class MatchRow(Base):
    """A match: its room, seed, how far it has got, and its state between hands (``Match.state_json``)."""

    __tablename__ = "matches"
    __table_args__ = (CheckConstraint("status IN ('running', 'finished', 'abandoned')", name="status"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    room_id: Mapped[int] = mapped_column(BigId, ForeignKey("rooms.id"), index=True)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="running")
    hands_played: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class HandRow(Base):
    """A settled hand: its game record (replayable) and its result (transfers, bets, items)."""

    __tablename__ = "hands"
    __table_args__ = (UniqueConstraint("match_id", "hand_no", name="uq_hands_match_hand"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    match_id: Mapped[int] = mapped_column(BigId, ForeignKey("matches.id"))
    hand_no: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    dealer: Mapped[int] = mapped_column(Integer)
    record: Mapped[dict[str, Any]]
    result: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class HandLog(Base):
    """One dealt hand, as it is played: the deal (its seed and whatever else the deal took:
    seating, dealer, bets, item cards) and, in :class:`HandAction`, every action applied in
    order. Replaying the actions on the deal rebuilds the hand after a restart. ``settled_at``
    is set in the transaction that settles the hand; a log is never edited otherwise."""

    __tablename__ = "hand_logs"
    __table_args__ = (UniqueConstraint("match_id", "hand_no", name="uq_hand_logs_match_hand"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    match_id: Mapped[int] = mapped_column(BigId, ForeignKey("matches.id"))
    hand_no: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    start: Mapped[dict[str, Any]]
    settled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class HandAction(Base):
    """One action applied in a logged hand; ``seq`` counts 0, 1, 2 ... with no gaps (append-only)."""

    __tablename__ = "hand_actions"
    __table_args__ = (
        UniqueConstraint("hand_log_id", "seq", name="uq_hand_actions_log_seq"),
        CheckConstraint("seq >= 0", name="seq_not_negative"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    hand_log_id: Mapped[int] = mapped_column(BigId, ForeignKey("hand_logs.id"))
    seq: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Settlement(Base):
    """The coin settlement of one hand; ``key`` makes it idempotent (unique)."""

    __tablename__ = "settlements"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    hand_id: Mapped[int] = mapped_column(BigId, ForeignKey("hands.id"), unique=True)
    payload_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class HandPoints(Base):
    """What one participant of a settled hand got: points, fee and net coin change."""

    __tablename__ = "hand_points"

    hand_id: Mapped[int] = mapped_column(BigId, ForeignKey("hands.id"), primary_key=True)
    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), primary_key=True)
    seat: Mapped[int | None] = mapped_column(Integer)  # None for a bystander
    points: Mapped[int] = mapped_column(BigInteger)
    fee: Mapped[int] = mapped_column(BigInteger)
    coins: Mapped[int] = mapped_column(BigInteger)


TRANSFER_REASONS: Final = ("grant", "fee", "stake", "winnings", "item", "jiao_ma", "entry", "refund", "prize")
"""Why coins move: a grant from the mint, a hand's fee, stake and winnings, the shop (``item``),
a bystander's coins (``jiao_ma``), and a tournament's ``entry``, ``refund`` and ``prize``."""


class CoinTransfer(Base):
    """One movement of coins: two postings, ``-amount`` on the payer and ``+amount`` on the payee.

    ``key`` (optional, unique) makes a grant idempotent; hand settlements are keyed by
    their :class:`Settlement` instead.
    """

    __tablename__ = "coin_transfers"
    __table_args__ = (
        CheckConstraint(f"reason IN ({', '.join(repr(r) for r in TRANSFER_REASONS)})", name="reason"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    key: Mapped[str | None] = mapped_column(String(200), unique=True)
    settlement_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("settlements.id"), index=True)
    reason: Mapped[str] = mapped_column(String(16))
    memo: Mapped[str] = mapped_column(String(200), default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Posting(Base):
    __tablename__ = "postings"
    __table_args__ = (
        CheckConstraint("amount <> 0", name="nonzero"),
        Index("ix_postings_account", "account_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    transfer_id: Mapped[int] = mapped_column(BigId, ForeignKey("coin_transfers.id"), index=True)
    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"))
    amount: Mapped[int] = mapped_column(BigInteger)


class ItemStock(Base):
    """How many item cards of a kind an account holds (docs/rules.md §13)."""

    __tablename__ = "item_stock"
    __table_args__ = (CheckConstraint("quantity >= 0", name="not_negative"),)

    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    quantity: Mapped[int] = mapped_column(Integer, default=0)


class ItemSpend(Base):
    """An item card spent; ``key`` (unique) makes spending idempotent."""

    __tablename__ = "item_spends"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    match_id: Mapped[int | None] = mapped_column(BigId, ForeignKey("matches.id"))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class ItemPurchase(Base):
    """Item cards bought in the shop: ``count`` cards of ``kind`` at ``price`` coins each, paid by the
    coin transfer ``transfer_id`` (reason ``item``, the buyer → the house)."""

    __tablename__ = "item_purchases"
    __table_args__ = (
        CheckConstraint("count > 0", name="count_positive"),
        CheckConstraint("price > 0", name="price_positive"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    transfer_id: Mapped[int] = mapped_column(BigId, ForeignKey("coin_transfers.id"), unique=True)
    account_id: Mapped[int] = mapped_column(BigId, ForeignKey("accounts.id"), index=True)
    kind: Mapped[str] = mapped_column(String(32))
    count: Mapped[int] = mapped_column(Integer)
    price: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class Setting(Base):
    """A server-wide value kept with the data (e.g. the key that signs session tokens)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(512))


class RoomLease(Base):
    """Which node of a cluster runs a room (docs/deploy.md): ``node`` holds it until ``expires_at``
    and renews it; ``token`` (the fencing token) goes up by one at each take-over, and every write
    for the room checks it in its own transaction (:mod:`xuezhan.store.leases`). ``expires_at``
    ``NULL``: the room is done (closed), nobody carries it on. ``summary``: what the lobby of every
    node lists of a public room, as its node last wrote it."""

    __tablename__ = "room_leases"

    room_id: Mapped[int] = mapped_column(BigId, ForeignKey("rooms.id"), primary_key=True)
    node: Mapped[str | None] = mapped_column(String(100))
    token: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), index=True)
    summary: Mapped[dict[str, Any] | None]
TOURNAMENT_STATUSES: Final = ("open", "running", "finished", "cancelled")


class TournamentRow(Base):
    """A tournament held (:mod:`xuezhan.store.tournaments`): its id (``key``), status, start, and its
    state as one JSON value (entrants, who paid, rounds, tables, points, places, what was refunded)."""

    __tablename__ = "tournaments"
    __table_args__ = (CheckConstraint("status IN ('open', 'running', 'finished', 'cancelled')", name="status"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    key: Mapped[str] = mapped_column(String(80), unique=True)
    status: Mapped[str] = mapped_column(String(16), index=True)
    starts_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    state: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class LeaderLease(Base):
    """A task of a cluster that one node runs at a time (``queue``: seating the queue, ``tournaments``:
    the tournaments' director), under a lease like a room's (:mod:`xuezhan.store.leaders`): ``node``
    holds it until ``expires_at`` and renews it; ``token`` goes up at each change of hands."""

    __tablename__ = "leader_leases"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    node: Mapped[str | None] = mapped_column(String(100))
    token: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


QUEUE_STATES: Final = ("waiting", "seating", "seated")


class QueueTicket(Base):
    """One person in the queue of a cluster (:mod:`xuezhan.store.queue`): what they queue for (``tier``,
    ``preset``, ``exchange_three``: the key; ``room``: the room they would sit in), their language,
    since when (the database's time); ``state`` ``waiting``, ``seating`` (a table is being opened for
    them) or ``seated`` at room ``table``."""

    __tablename__ = "queue_tickets"
    __table_args__ = (CheckConstraint("state IN ('waiting', 'seating', 'seated')", name="state"),)

    player: Mapped[str] = mapped_column(String(64), primary_key=True)
    tier: Mapped[str] = mapped_column(String(20))
    preset: Mapped[str] = mapped_column(String(40))
    exchange_three: Mapped[bool] = mapped_column(Boolean)
    room: Mapped[dict[str, Any]]
    lang: Mapped[str] = mapped_column(String(16))
    since: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    state: Mapped[str] = mapped_column(String(10))
    table: Mapped[str | None] = mapped_column(String(16))
