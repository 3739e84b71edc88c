"""The store: accounts, coins, rooms, matches, hand records and item cards, persisted.

Every public method is one database transaction. Settling a hand
(:meth:`Store.settle_hand`) is idempotent: its key (``match/<id>/hand/<n>``) is unique
in the ``settlements`` table, so a retry after a timeout, a crash or a lost reply
returns the settlement already made and never pays twice; a settlement that fails
half-way (an exception, a killed process, a lost connection) is rolled back whole
and leaves no trace.

How a hand becomes coins (RULES 11, :func:`xuezhan.coins.settle_detailed`), as coin
transfers of two postings each:

- ``fee``: each seated player → ``#house`` (what it could pay of the room's fee);
- ``stake``: each losing participant → ``#table`` (what it actually paid);
- ``winnings``: ``#table`` → each winning participant (its share of the stakes).

``#table`` is back at zero after every settlement; ``#house`` holds the fees; coins
enter only by ``grant`` transfers from ``#mint``. So the sum of all players'
balances plus the house's is exactly what the mint has issued, at all times
(:meth:`Store.audit` checks this and more).

Hands in play are kept as append-only logs: :meth:`Store.begin_hand` records
the deal (its seed and start data), :meth:`Store.append_action` every action applied, in
order (``seq`` 0, 1, 2 ...); both are idempotent, so a retried write changes nothing.
Settling the hand marks its log settled in the settlement's transaction. After a restart,
:meth:`Store.running_matches` gives every running match with its unsettled hand, to be
rebuilt by replaying the actions on the deal.

Concurrency: the match row is locked first (``SELECT … FOR UPDATE`` on PostgreSQL;
SQLite transactions take the write lock at ``BEGIN IMMEDIATE``), then the balances of
everyone involved, in account-id order, so concurrent settlements neither deadlock
nor lose updates. Two attempts at the same hand serialise on the match row and the
second finds the first's settlement.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final

from sqlalchemy import Engine, func, insert, select, update
from sqlalchemy.engine import URL
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import XuezhanError
from ..match import HandResult, ItemKind, Match, MatchError, RoomConfig
from .db import make_engine, migrate
from .models import (
    Account,
    Balance,
    CoinTransfer,
    HandAction,
    HandLog,
    HandPoints,
    HandRow,
    ItemSpend,
    ItemStock,
    MatchRow,
    Posting,
    Room,
    SessionRow,
    Setting,
    Settlement,
)

HOUSE: Final = "#house"
MINT: Final = "#mint"
TABLE: Final = "#table"
_SYSTEM: Final = (HOUSE, MINT, TABLE)


class StoreError(XuezhanError):
    """A store request that cannot be done (unknown name, conflict, not enough coins...)."""


@dataclass(frozen=True, slots=True)
class HandHistory:
    """One settled hand as one participant saw it (``seat`` is ``None`` for a bystander)."""

    room: str
    match_id: int
    hand_no: int
    seat: int | None
    points: int
    fee: int
    coins: int
    settled_at: datetime
    hand_id: int = 0


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """A person's account as the store keeps it (``password_hash`` ``None``: a guest)."""

    id: int
    name: str
    password_hash: str | None
    lang: str | None
    coins: int


@dataclass(frozen=True, slots=True)
class WalletLine:
    """One movement of a player's coins: when, how many (negative: out), the transfer's reason
    (``grant``, ``fee``, ``stake``, ``winnings``) and memo (a grant's kind, or the hand's key)."""

    at: datetime
    amount: int
    reason: str
    memo: str
    room: str | None = None
    hand_no: int | None = None


def _aware(at: datetime) -> datetime:
    """A time from the database with its zone (SQLite gives times back without one: they are UTC)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class SettledHand:
    """The coins of one settled hand by participant; ``replayed`` when an earlier attempt had settled it."""

    key: str
    match_id: int
    hand_no: int
    changes: dict[str, int]
    fees: dict[str, int]
    points: dict[str, int]
    replayed: bool = False

    @property
    def house(self) -> int:
        return sum(self.fees.values())


@dataclass(frozen=True, slots=True)
class OpenHand:
    """A dealt hand not settled yet, as logged: the deal and the actions applied, in order."""

    id: int
    """The hand log's id (for :meth:`Store.append_action`)."""
    hand_no: int
    seed: int
    start: dict[str, Any]
    actions: tuple[dict[str, Any], ...]


LogItem = tuple[str, int, int, int, Mapping[str, Any]]
"""A hand-log entry for :meth:`Store.write_log`: ``("begin", match_id, hand_no, seed, start)`` or
``("action", match_id, hand_no, seq, action)``."""


@dataclass(frozen=True, slots=True)
class ResumableMatch:
    """A running match as saved: its room, the match between hands, and the hand in play if any."""

    match_id: int
    room: str
    config: RoomConfig
    meta: dict[str, Any]
    match: Match
    hand: OpenHand | None


ENDED_STATUSES: Final = ("finished", "abandoned")
"""How a running match may be ended by :meth:`Store.end_match`."""


def settlement_key(match_id: int, hand_no: int) -> str:
    return f"match/{match_id}/hand/{hand_no}"


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _json_object(data: object, code: str, what: str) -> dict[str, Any]:
    """``data`` as it will read back from the database (a JSON object), or ``StoreError(code)``."""
    if not isinstance(data, Mapping):
        raise StoreError(code, f"{what} is a JSON object, not {type(data).__name__}")
    try:
        out = json.loads(json.dumps(data, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise StoreError(code, f"{what} is not JSON: {exc}") from None
    assert isinstance(out, dict)
    return out


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Store:
    """Persistence for rooms, matches and coins. ``url`` (or ``engine``): where; ``migrate``:
    bring the schema up to date first. ``fault`` is for tests: it is called with the name
    of each step inside a settlement (``"hand"``, ``"postings"``, ``"balances"``,
    ``"commit"``) and may raise (or kill the process) to simulate a crash there."""

    def __init__(
        self,
        url: str | URL | None = None,
        *,
        engine: Engine | None = None,
        migrate_schema: bool = True,
        fault: Callable[[str], None] | None = None,
    ) -> None:
        self.engine = engine if engine is not None else make_engine(url)
        if migrate_schema:
            migrate(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self.fault = fault
        # (match id, hand no) -> (hand log id, next seq) of logs this process wrote last
        self._log_tails: dict[tuple[int, int], tuple[int, int]] = {}
        self._tails_lock = threading.Lock()
        with self._sessions() as s:
            # made by the first migration
            rows = s.execute(select(Account.name, Account.id).where(Account.name.in_(_SYSTEM))).all()
            self._system_ids: dict[str, int] = {name: ident for name, ident in rows}
        if len(self._system_ids) != len(_SYSTEM):
            raise StoreError("not_migrated", "the database has no system accounts: migrate it first")

    def close(self) -> None:
        self.engine.dispose()

    def _fault(self, step: str) -> None:
        if self.fault is not None:
            self.fault(step)

    # --- accounts and coins ---------------------------------------------------------------------------
    @staticmethod
    def _new_account(s: Session, name: str, kind: str, overdraft: bool = False) -> Account:
        acc = Account(name=name, kind=kind)
        s.add(acc)
        s.flush()
        s.add(Balance(account_id=acc.id, coins=0, overdraft=overdraft))
        s.flush()
        return acc

    def create_account(self, name: str, coins: int = 0) -> int:
        """A new player account, granted ``coins`` from the mint. Names starting with ``#`` are the system's."""
        if not isinstance(name, str) or not name or name.startswith("#") or len(name) > 100:
            raise StoreError("bad_name", f"{name!r} is not a player name (1-100 characters, not starting with #)")
        try:
            with self._sessions.begin() as s:
                acc = self._new_account(s, name, "player")
                if coins:
                    self._grant(s, acc.id, coins, None, "opening balance")
                return acc.id
        except IntegrityError:
            raise StoreError("account_exists", f"an account named {name!r} exists") from None

    def _account_ids(self, s: Session, names: Iterable[str]) -> dict[str, int]:
        names = list(dict.fromkeys(names))
        rows = s.execute(select(Account.name, Account.id).where(Account.name.in_(names))).all()
        ids = {n: i for n, i in rows}
        missing = [n for n in names if n not in ids]
        if missing:
            raise StoreError("unknown_account", f"no account named {', '.join(map(repr, missing))}")
        return ids

    def _grant(self, s: Session, account_id: int, coins: int, key: str | None, memo: str) -> None:
        if isinstance(coins, bool) or not isinstance(coins, int) or coins <= 0:
            raise StoreError("bad_amount", f"a grant must be a positive number of coins, not {coins!r}")
        transfer = CoinTransfer(key=key, reason="grant", memo=memo)
        s.add(transfer)
        s.flush()
        mint = self._system_ids[MINT]
        self._post(s, transfer.id, {mint: -coins, account_id: coins})
        self._apply_balances(s, {mint: -coins, account_id: coins})

    def grant(self, name: str, coins: int, *, key: str | None = None, memo: str = "grant") -> bool:
        """Give ``name`` new coins from the mint. With a ``key`` the grant happens once:
        returns ``False`` if a grant with that key was already made. ``memo`` says why
        (``"opening balance"``, ``"relief"``...); a wallet shows it in words."""
        try:
            with self._sessions.begin() as s:
                if key is not None and s.scalar(select(CoinTransfer.id).where(CoinTransfer.key == key)) is not None:
                    return False
                acc = self._account_ids(s, [name])[name]
                self._grant(s, acc, coins, key, memo)
                return True
        except IntegrityError:
            if key is not None:
                return False  # the same key, granted concurrently
            raise

    # --- people's accounts and sessions ------------------------------------------------------------------
    def create_player(
        self,
        name: str,
        name_key: str,
        coins: int,
        *,
        origin: str | None = None,
        password_hash: str | None = None,
        lang: str | None = None,
        max_from_origin: int | None = None,
        since: datetime | None = None,
    ) -> int:
        """A person's account: ``name`` as shown, unique by ``name_key`` (``name_taken``), with a
        starting grant of ``coins`` (once: the grant's key is the account's), made from ``origin``.
        With ``max_from_origin`` and ``since``, refused (``too_many_accounts``) when ``origin`` has
        made that many accounts since then; checked in the same transaction as the insert."""
        if not isinstance(name, str) or not name or name.startswith("#") or len(name) > 100:
            raise StoreError("bad_name", f"{name!r} is not a player name (1-100 characters, not starting with #)")
        try:
            with self._sessions.begin() as s:
                if max_from_origin is not None and origin is not None and since is not None:
                    made = s.scalar(select(func.count()).select_from(Account)
                                    .where(Account.origin == origin, Account.created_at >= since)) or 0
                    if made >= max_from_origin:
                        raise StoreError("too_many_accounts", "this address has made as many accounts as it may "
                                                              "today")
                if s.scalar(select(Account.id).where(Account.name_key == name_key)) is not None:
                    raise StoreError("name_taken", f"the name {name!r} is taken")
                acc = self._new_account(s, name, "player")
                acc.name_key = name_key
                acc.origin = origin
                acc.password_hash = password_hash
                acc.lang = lang
                s.flush()
                if coins:
                    self._grant(s, acc.id, coins, f"start/{acc.id}", "opening balance")
                return acc.id
        except IntegrityError:
            raise StoreError("name_taken", f"the name {name!r} is taken") from None

    def player(self, name: str) -> PlayerInfo | None:
        """A person's account by its name, or ``None``."""
        return self._player(Account.name == name)

    def player_by_key(self, name_key: str) -> PlayerInfo | None:
        """A person's account by its name key, or ``None``."""
        return self._player(Account.name_key == name_key)

    def _player(self, where: Any) -> PlayerInfo | None:
        with self._sessions() as s:
            row = s.execute(
                select(Account.id, Account.name, Account.password_hash, Account.lang, Balance.coins)
                .join(Balance, Balance.account_id == Account.id)
                .where(where, Account.kind == "player")
            ).first()
            return None if row is None else PlayerInfo(*row)

    def set_password(self, name: str, password_hash: str) -> None:
        with self._sessions.begin() as s:
            acc = self._account_ids(s, [name])[name]
            s.execute(update(Account).where(Account.id == acc).values(password_hash=password_hash))

    def set_lang(self, name: str, lang: str | None) -> None:
        with self._sessions.begin() as s:
            acc = self._account_ids(s, [name])[name]
            s.execute(update(Account).where(Account.id == acc).values(lang=lang))

    def open_session(self, name: str, token_hash: str, expires_at: datetime) -> None:
        """Keep a new session of ``name`` (by the digest of its token) until ``expires_at``."""
        with self._sessions.begin() as s:
            acc = self._account_ids(s, [name])[name]
            s.add(SessionRow(token_hash=token_hash, account_id=acc, expires_at=expires_at))

    def session_player(self, token_hash: str, now: datetime) -> PlayerInfo | None:
        """The account of a session that is neither revoked nor expired at ``now``, or ``None``."""
        with self._sessions() as s:
            row = s.execute(
                select(Account.id, Account.name, Account.password_hash, Account.lang, Balance.coins,
                       SessionRow.expires_at)
                .join(Account, Account.id == SessionRow.account_id)
                .join(Balance, Balance.account_id == Account.id)
                .where(SessionRow.token_hash == token_hash, SessionRow.revoked_at.is_(None))
            ).first()
        if row is None or _aware(row[5]) <= now:
            return None
        return PlayerInfo(*row[:5])

    def revoke_session(self, token_hash: str, now: datetime) -> None:
        """End a session (logout): its token is refused from now on."""
        with self._sessions.begin() as s:
            s.execute(update(SessionRow).where(SessionRow.token_hash == token_hash, SessionRow.revoked_at.is_(None))
                      .values(revoked_at=now))

    def wallet(self, name: str, limit: int = 100) -> list[WalletLine]:
        """``name``'s coin movements, newest first: when, how much, why (the transfer's reason and
        memo) and, for a hand's coins, which hand (its settlement key)."""
        with self._sessions() as s:
            acc = self._account_ids(s, [name])[name]
            rows = s.execute(
                select(CoinTransfer.created_at, Posting.amount, CoinTransfer.reason, CoinTransfer.memo, Room.name,
                       HandRow.hand_no)
                .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
                .outerjoin(Settlement, Settlement.id == CoinTransfer.settlement_id)
                .outerjoin(HandRow, HandRow.id == Settlement.hand_id)
                .outerjoin(MatchRow, MatchRow.id == HandRow.match_id)
                .outerjoin(Room, Room.id == MatchRow.room_id)
                .where(Posting.account_id == acc)
                .order_by(Posting.id.desc())
                .limit(limit)
            ).all()
            return [WalletLine(_aware(at), amount, reason, memo, room, hand_no)
                    for at, amount, reason, memo, room, hand_no in rows]

    def grant_made(self, key: str) -> bool:
        """Whether a grant with ``key`` was made."""
        with self._sessions() as s:
            return s.scalar(select(CoinTransfer.id).where(CoinTransfer.key == key)) is not None

    def past_hand(self, name: str, hand_id: int) -> tuple[str, int, int, dict[str, Any], dict[str, Any]] | None:
        """A settled hand ``name`` sat in (not as a bystander): its room, number, ``name``'s seat, its
        game record and its result; ``None`` for any other hand."""
        with self._sessions() as s:
            row = s.execute(
                select(Room.name, HandRow.hand_no, HandPoints.seat, HandRow.record, HandRow.result)
                .join(HandRow, HandRow.id == HandPoints.hand_id)
                .join(Account, Account.id == HandPoints.account_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .join(Room, Room.id == MatchRow.room_id)
                .where(HandPoints.hand_id == hand_id, Account.name == name, HandPoints.seat.is_not(None))
            ).first()
            if row is None:
                return None
            return str(row[0]), int(row[1]), int(row[2]), dict(row[3]), dict(row[4])

    def setting(self, key: str, make: Callable[[], str]) -> str:
        """The stored value of ``key``; the first caller stores ``make()`` (once, even when racing)."""
        with self._sessions() as s:
            row = s.get(Setting, key)
            if row is not None:
                return row.value
        try:
            with self._sessions.begin() as s:
                s.add(Setting(key=key, value=make()))
        except IntegrityError:
            pass  # another process stored it first
        with self._sessions() as s:
            row = s.get(Setting, key)
            assert row is not None
            return row.value

    def balance(self, name: str) -> int:
        return self.balances([name])[name]

    def balances(self, names: Iterable[str]) -> dict[str, int]:
        with self._sessions() as s:
            ids = self._account_ids(s, names)
            rows = s.execute(select(Balance.account_id, Balance.coins).where(Balance.account_id.in_(ids.values())))
            by_id = {a: c for a, c in rows}
            return {n: by_id[i] for n, i in ids.items()}

    def postings(self, name: str) -> list[tuple[int, str, int]]:
        """``name``'s postings, oldest first: (transfer id, reason, amount)."""
        with self._sessions() as s:
            acc = self._account_ids(s, [name])[name]
            rows = s.execute(
                select(Posting.transfer_id, CoinTransfer.reason, Posting.amount)
                .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
                .where(Posting.account_id == acc)
                .order_by(Posting.id)
            ).all()
            return [(t, r, a) for t, r, a in rows]

    @staticmethod
    def _post(s: Session, transfer_id: int, amounts: Mapping[int, int]) -> None:
        if len(amounts) != 2 or sum(amounts.values()) != 0:
            raise StoreError("unbalanced_transfer", "a transfer is two postings summing to zero")
        s.add_all([Posting(transfer_id=transfer_id, account_id=a, amount=v) for a, v in amounts.items()])

    def _lock_balances(self, s: Session, account_ids: Iterable[int]) -> dict[int, Balance]:
        ids = sorted(set(account_ids))
        rows = s.scalars(
            select(Balance).where(Balance.account_id.in_(ids)).order_by(Balance.account_id).with_for_update()
        ).all()
        return {b.account_id: b for b in rows}

    def _apply_balances(self, s: Session, net: Mapping[int, int]) -> None:
        locked = self._lock_balances(s, [a for a, v in net.items() if v])
        for acc, value in net.items():
            if value:
                locked[acc].coins += value
        s.flush()

    # --- rooms and matches --------------------------------------------------------------------------------
    def create_room(self, name: str, config: RoomConfig, meta: Mapping[str, Any] | None = None) -> int:
        """A new room; ``meta`` is what a server shows of it (display name, owner, public or not)."""
        data = None if meta is None else _json_object(meta, "bad_room_meta", "a room's metadata")
        try:
            with self._sessions.begin() as s:
                room = Room(name=name, config=config.to_mapping())
                if data is not None:
                    room.meta = data
                s.add(room)
                s.flush()
                return room.id
        except IntegrityError:
            raise StoreError("room_exists", f"a room named {name!r} exists") from None

    def room(self, name: str) -> tuple[int, RoomConfig]:
        with self._sessions() as s:
            row = s.scalar(select(Room).where(Room.name == name))
            if row is None:
                raise StoreError("unknown_room", f"no room named {name!r}")
            return row.id, RoomConfig.from_mapping(row.config)

    def start_match(self, room: str, players: Sequence[str], *, seed: int) -> tuple[int, Match]:
        """A new match in ``room`` for ``players`` (4-8; accounts must exist). In a tournament room
        (``ticket_required``) every player spends a match ticket (比赛卡), all or none."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise StoreError("bad_seed", f"a match seed is an integer from 0 to 2**63 - 1, not {seed!r}")
        with self._sessions.begin() as s:
            room_row = s.scalar(select(Room).where(Room.name == room))
            if room_row is None:
                raise StoreError("unknown_room", f"no room named {room!r}")
            config = RoomConfig.from_mapping(room_row.config)
            match = Match(config, players, seed=seed)
            ids = self._account_ids(s, players)
            row = MatchRow(room_id=room_row.id, seed=seed, status="running", hands_played=0,
                           state=match.state_json())
            s.add(row)
            s.flush()
            if config.ticket_required:
                for p in sorted(players, key=lambda p: ids[p]):  # rows locked in one order: no deadlocks
                    self._spend(s, ids[p], ItemKind.MATCH_TICKET, f"match/{row.id}/ticket/{p}", row.id)
            return row.id, match

    def room_meta(self, name: str) -> dict[str, Any]:
        """The metadata the room was opened with (``{}`` without)."""
        with self._sessions() as s:
            row = s.scalar(select(Room).where(Room.name == name))
            if row is None:
                raise StoreError("unknown_room", f"no room named {name!r}")
            return dict(row.meta or {})

    def load_match(self, match_id: int) -> Match:
        """The match as it stands between hands (after its last settled hand)."""
        with self._sessions() as s:
            row = s.get(MatchRow, match_id)
            if row is None:
                raise StoreError("unknown_match", f"no match {match_id}")
            room = s.get(Room, row.room_id)
            assert room is not None
            return Match.from_state(RoomConfig.from_mapping(room.config), row.state)

    def save_match(self, match_id: int, match: Match) -> None:
        """Save people coming and going between hands (:meth:`Match.join`, :meth:`Match.leave`)."""
        state = match.state_json()
        with self._sessions.begin() as s:
            row = s.get(MatchRow, match_id, with_for_update=True)
            if row is None:
                raise StoreError("unknown_match", f"no match {match_id}")
            if state["hands_played"] != row.hands_played or state["seed"] != row.seed:
                raise StoreError("stale_match", "the match has moved on since this copy was loaded")
            self._account_ids(s, match.people)
            row.state = state

    def hand_results(self, match_id: int) -> list[HandResult]:
        with self._sessions() as s:
            rows = s.scalars(select(HandRow).where(HandRow.match_id == match_id).order_by(HandRow.hand_no)).all()
            return [HandResult.from_json(r.result) for r in rows]

    def history(self, name: str, limit: int = 50) -> list[HandHistory]:
        """``name``'s settled hands, newest first."""
        with self._sessions() as s:
            acc = self._account_ids(s, [name])[name]
            rows = s.execute(
                select(Room.name, HandRow.match_id, HandRow.hand_no, HandPoints.seat, HandPoints.points,
                       HandPoints.fee, HandPoints.coins, HandRow.created_at, HandRow.id)
                .join(HandRow, HandRow.id == HandPoints.hand_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .join(Room, Room.id == MatchRow.room_id)
                .where(HandPoints.account_id == acc)
                .order_by(HandRow.id.desc())
                .limit(limit)
            ).all()
            return [HandHistory(*row) for row in rows]

    def hand_record(self, match_id: int, hand_no: int) -> dict[str, Any]:
        """The game record of a settled hand (replays with :func:`xuezhan.records.replay`)."""
        with self._sessions() as s:
            row = s.scalar(select(HandRow).where(HandRow.match_id == match_id, HandRow.hand_no == hand_no))
            if row is None:
                raise StoreError("unknown_hand", f"match {match_id} has no settled hand {hand_no}")
            return dict(row.record)

    # --- hands in play: append-only logs ----------------------------------------------------------------------
    def begin_hand(self, match_id: int, hand_no: int, seed: int, start: Mapping[str, Any]) -> int:
        """Log the deal of hand ``hand_no`` (the match's next one): its seed and ``start``, whatever
        else the deal took (seating, dealer, bets, item cards). Returns the hand log's id.

        Idempotent: the same hand again (same seed and start) returns the id already made; a
        different seed raises ``hand_seed_conflict``, a different start ``hand_start_conflict``.
        Only a running match's next hand can begin (``match_over``, ``out_of_order``).
        """
        if not _count(hand_no) or hand_no < 1:
            raise StoreError("bad_hand_no", f"hands are numbered from 1, not {hand_no!r}")
        if not _count(seed) or not 0 <= seed < 2**63:
            raise StoreError("bad_seed", f"a hand seed is an integer from 0 to 2**63 - 1, not {seed!r}")
        data = _json_object(start, "bad_hand_start", "a hand's start")
        try:
            with self._sessions.begin() as s:
                return self._begin_hand(s, match_id, hand_no, seed, data)
        except IntegrityError:
            # the same hand, begun concurrently
            with self._sessions() as s:
                found = self._same_hand_log(s, match_id, hand_no, seed, data)
            if found is None:
                raise
            return found

    def _begin_hand(self, s: Session, match_id: int, hand_no: int, seed: int, data: dict[str, Any]) -> int:
        row = s.get(MatchRow, match_id, with_for_update=True)
        if row is None:
            raise StoreError("unknown_match", f"no match {match_id}")
        found = self._same_hand_log(s, match_id, hand_no, seed, data)
        if found is not None:
            return found
        if row.status != "running":
            raise StoreError("match_over", f"match {match_id} is {row.status}")
        if hand_no != row.hands_played + 1:
            raise StoreError("out_of_order", f"match {match_id} expects hand {row.hands_played + 1}, "
                                             f"not {hand_no}")
        log = HandLog(match_id=match_id, hand_no=hand_no, seed=seed, start=data)
        s.add(log)
        s.flush()
        return log.id

    @staticmethod
    def _same_hand_log(s: Session, match_id: int, hand_no: int, seed: int, start: dict[str, Any]) -> int | None:
        log = s.scalar(select(HandLog).where(HandLog.match_id == match_id, HandLog.hand_no == hand_no))
        if log is None:
            return None
        if log.seed != seed:
            raise StoreError("hand_seed_conflict", f"hand {hand_no} of match {match_id} was dealt with seed "
                                                   f"{log.seed}, not {seed}")
        if _canonical(log.start) != _canonical(start):
            raise StoreError("hand_start_conflict", f"hand {hand_no} of match {match_id} was begun with "
                                                    "different start data")
        return log.id

    def hand_log_id(self, match_id: int, hand_no: int) -> int:
        """The id of the log of hand ``hand_no`` (``unknown_hand`` if it was never begun)."""
        with self._sessions() as s:
            found = s.scalar(select(HandLog.id).where(HandLog.match_id == match_id, HandLog.hand_no == hand_no))
            if found is None:
                raise StoreError("unknown_hand", f"match {match_id} has no logged hand {hand_no}")
            return found

    def append_action(self, hand_log_id: int, seq: int, action: Mapping[str, Any]) -> None:
        """Append the action applied at position ``seq`` (0, 1, 2 ...) of a logged hand.

        ``seq`` must be the next position (``action_gap`` if it skips one). Writing the same
        action at an existing position again does nothing (a retried write); a different one
        raises ``action_conflict``. A settled hand (``hand_settled``) or a match no longer
        running (``match_over``) takes no more actions.
        """
        if not _count(seq) or seq < 0:
            raise StoreError("bad_seq", f"actions are numbered from 0, not {seq!r}")
        data = _json_object(action, "bad_action", "an action")
        try:
            with self._sessions.begin() as s:
                self._append_action(s, hand_log_id, seq, data)
        except IntegrityError:
            # written concurrently (a retry racing the first attempt)
            with self._sessions() as s:
                written = s.get(HandLog, hand_log_id)
                if written is None or not self._same_action(s, written, seq, data):
                    raise

    def _append_action(self, s: Session, hand_log_id: int, seq: int, data: dict[str, Any]) -> None:
        # one statement to lock the log and learn whether it still takes actions
        found = s.execute(
            select(HandLog, MatchRow.status).join(MatchRow, MatchRow.id == HandLog.match_id)
            .where(HandLog.id == hand_log_id).with_for_update(of=HandLog)
        ).first()
        if found is None:
            raise StoreError("unknown_hand", f"no hand log {hand_log_id}")
        log, status = found
        count = s.scalar(select(func.count()).select_from(HandAction)
                         .where(HandAction.hand_log_id == hand_log_id)) or 0
        if seq < count:
            self._same_action(s, log, seq, data)  # a retry, or action_conflict
            return
        if log.settled_at is not None:
            raise StoreError("hand_settled", f"hand {log.hand_no} of match {log.match_id} is settled")
        if status != "running":
            raise StoreError("match_over", f"match {log.match_id} is {status}")
        if seq != count:
            raise StoreError("action_gap", f"hand {log.hand_no} of match {log.match_id} has {count} "
                                           f"actions: the next is {count}, not {seq}")
        s.add(HandAction(hand_log_id=hand_log_id, seq=seq, action=data))
        s.flush()

    def write_log(self, items: Sequence[LogItem]) -> None:
        """Write many hand-log entries, of any matches, in one transaction (a group commit): each
        ``("begin", match_id, hand_no, seed, start)`` or ``("action", match_id, hand_no, seq, action)``,
        checked as :meth:`begin_hand` and :meth:`append_action` check them. All or nothing: if one
        entry is refused the transaction is rolled back and the error raised."""
        checked = []
        for kind, match_id, hand_no, n, payload in items:
            if kind == "begin":
                if not _count(n) or not 0 <= n < 2**63:
                    raise StoreError("bad_seed", f"a hand seed is an integer from 0 to 2**63 - 1, not {n!r}")
                checked.append((kind, match_id, hand_no, n, _json_object(payload, "bad_hand_start", "a hand's start")))
            elif kind == "action":
                if not _count(n) or n < 0:
                    raise StoreError("bad_seq", f"actions are numbered from 0, not {n!r}")
                checked.append((kind, match_id, hand_no, n, _json_object(payload, "bad_action", "an action")))
            else:
                raise StoreError("bad_log_entry", f"a log entry is a begin or an action, not {kind!r}")
        with self._tails_lock:
            tails = dict(self._log_tails)
        with self._sessions.begin() as s:
            ids: dict[tuple[int, int], int] = {}
            logs: dict[int, tuple[HandLog, str]] = {}
            counts: dict[int, int] = {}
            rows: list[dict[str, Any]] = []
            batch: dict[tuple[int, int], dict[str, Any]] = {}
            for kind, match_id, hand_no, n, data in checked:
                if kind == "begin":
                    ids[(match_id, hand_no)] = self._begin_hand(s, match_id, hand_no, n, data)
                    tails.pop((match_id, hand_no), None)
                    continue
                tail = tails.get((match_id, hand_no))
                if tail is not None and tail[1] == n:
                    # the next action of a log this process wrote last: no need to read the log again
                    # (the unique (log, seq) key still refuses a clash)
                    rows.append({"hand_log_id": tail[0], "seq": n, "action": data})
                    batch[(tail[0], n)] = data
                    tails[(match_id, hand_no)] = (tail[0], n + 1)
                    continue
                log_id = ids.get((match_id, hand_no))
                if log_id is None:
                    log_id = s.scalar(select(HandLog.id).where(HandLog.match_id == match_id,
                                                               HandLog.hand_no == hand_no))
                    if log_id is None:
                        raise StoreError("unknown_hand", f"match {match_id} has no logged hand {hand_no}")
                    ids[(match_id, hand_no)] = log_id
                if log_id not in logs:  # each log locked and counted once per batch
                    found = s.execute(
                        select(HandLog, MatchRow.status).join(MatchRow, MatchRow.id == HandLog.match_id)
                        .where(HandLog.id == log_id).with_for_update(of=HandLog)
                    ).one()
                    logs[log_id] = (found[0], found[1])
                    counts[log_id] = s.scalar(select(func.count()).select_from(HandAction)
                                              .where(HandAction.hand_log_id == log_id)) or 0
                log, status = logs[log_id]
                count = max(counts[log_id], tails.get((match_id, hand_no), (log_id, 0))[1])
                if n < count:  # a retry: the same action, or action_conflict
                    earlier = batch.get((log_id, n))
                    if earlier is None:
                        self._same_action(s, log, n, data)
                    elif _canonical(earlier) != _canonical(data):
                        raise StoreError("action_conflict", f"action {n} of hand {log.hand_no} of match "
                                                            f"{log.match_id} was logged as something else")
                    continue
                if log.settled_at is not None:
                    raise StoreError("hand_settled", f"hand {log.hand_no} of match {log.match_id} is settled")
                if status != "running":
                    raise StoreError("match_over", f"match {log.match_id} is {status}")
                if n != count:
                    raise StoreError("action_gap", f"hand {log.hand_no} of match {log.match_id} has {count} "
                                                   f"actions: the next is {count}, not {n}")
                rows.append({"hand_log_id": log_id, "seq": n, "action": data})
                batch[(log_id, n)] = data
                counts[log_id] = count + 1
                tails[(match_id, hand_no)] = (log_id, count + 1)
            if rows:
                try:
                    s.connection().execute(insert(HandAction), rows)  # on the connection: no ORM bookkeeping
                except IntegrityError:  # another writer got there first
                    raise StoreError("action_conflict", "a logged action was written by someone else") from None
        with self._tails_lock:
            self._log_tails = tails

    def _forget_logs(self, match_id: int) -> None:
        """A match's hand settled or ended: its logs take the checked path again."""
        with self._tails_lock:
            self._log_tails = {k: v for k, v in self._log_tails.items() if k[0] != match_id}

    @staticmethod
    def _same_action(s: Session, log: HandLog, seq: int, action: dict[str, Any]) -> bool:
        """Whether ``action`` is already logged at ``seq``; ``action_conflict`` if another one is."""
        found = s.scalar(select(HandAction.action).where(HandAction.hand_log_id == log.id, HandAction.seq == seq))
        if found is None:
            return False
        if _canonical(found) != _canonical(action):
            raise StoreError("action_conflict", f"action {seq} of hand {log.hand_no} of match {log.match_id} "
                                                "was logged as something else")
        return True

    def running_matches(self) -> list[ResumableMatch]:
        """Every running match (oldest first), as saved between hands (the state given to
        :meth:`settle_hand` or :meth:`save_match` last), with its hand in play: the one logged
        and not settled, its actions in order (``None`` between hands)."""
        with self._sessions() as s:
            rows = s.execute(
                select(MatchRow, Room).join(Room, Room.id == MatchRow.room_id)
                .where(MatchRow.status == "running").order_by(MatchRow.id)
            ).all()
            logs = {
                log.match_id: log
                for log in s.scalars(
                    select(HandLog).join(MatchRow, MatchRow.id == HandLog.match_id)
                    .where(MatchRow.status == "running", HandLog.settled_at.is_(None),
                           HandLog.hand_no == MatchRow.hands_played + 1)
                )
            }
            actions: dict[int, list[dict[str, Any]]] = {log.id: [] for log in logs.values()}
            if actions:
                for log_id, action in s.execute(
                    select(HandAction.hand_log_id, HandAction.action)
                    .where(HandAction.hand_log_id.in_(actions)).order_by(HandAction.hand_log_id, HandAction.seq)
                ):
                    actions[log_id].append(action)
            out: list[ResumableMatch] = []
            for row, room in rows:
                config = RoomConfig.from_mapping(room.config)
                log = logs.get(row.id)
                hand = None if log is None else OpenHand(log.id, log.hand_no, log.seed, dict(log.start),
                                                         tuple(actions[log.id]))
                out.append(ResumableMatch(row.id, room.name, config, dict(room.meta or {}),
                                          Match.from_state(config, row.state), hand))
            return out

    def end_match(self, match_id: int, status: str = "abandoned") -> None:
        """End a running match that will not go on: ``finished`` (ended on purpose) or ``abandoned``
        (it could not be resumed). Ending it again the same way does nothing; a match already
        ended otherwise raises ``match_over``. A hand in play stays logged, unsettled."""
        self._forget_logs(match_id)
        if status not in ENDED_STATUSES:
            raise StoreError("bad_status", f"a match ends as {' or '.join(ENDED_STATUSES)}, not {status!r}")
        with self._sessions.begin() as s:
            row = s.get(MatchRow, match_id, with_for_update=True)
            if row is None:
                raise StoreError("unknown_match", f"no match {match_id}")
            if row.status == status:
                return
            if row.status != "running":
                raise StoreError("match_over", f"match {match_id} is {row.status}")
            row.status = status

    # --- settling a hand -------------------------------------------------------------------------------------
    def settle_hand(self, match_id: int, result: HandResult, match: Match | None = None) -> SettledHand:
        """Settle one finished hand in coins, record it, and save the match's state (``match``,
        after :meth:`Match.finish_hand`) — all in one transaction, at most once per hand.

        A retry with the same result returns the first settlement (``replayed=True``); a
        different result for a hand already settled raises ``settlement_conflict``.
        """
        self._forget_logs(match_id)
        key = settlement_key(match_id, result.hand_no)
        payload = result.to_json()
        digest = hashlib.sha256(_canonical(payload).encode()).hexdigest()
        state = match.state_json() if match is not None else None
        try:
            with self._sessions.begin() as s:
                row = s.get(MatchRow, match_id, with_for_update=True)
                if row is None:
                    raise StoreError("unknown_match", f"no match {match_id}")
                done = self._find_settlement(s, key, digest, match_id, result.hand_no)
                if done is not None:
                    return done
                if result.hand_no != row.hands_played + 1:
                    raise StoreError("out_of_order", f"match {match_id} expects hand {row.hands_played + 1}, "
                                                     f"not {result.hand_no}")
                if row.status != "running":
                    raise StoreError("match_over", f"match {match_id} is over")
                return self._settle(s, row, key, digest, result, state)
        except IntegrityError:
            # a concurrent attempt settled the same hand first
            with self._sessions() as s:
                done = self._find_settlement(s, key, digest, match_id, result.hand_no)
            if done is None:
                raise
            return done

    def _find_settlement(self, s: Session, key: str, digest: str, match_id: int, hand_no: int) -> SettledHand | None:
        found = s.scalar(select(Settlement).where(Settlement.key == key))
        if found is None:
            return None
        if found.payload_sha256 != digest:
            raise StoreError("settlement_conflict", f"hand {hand_no} of match {match_id} was settled with "
                                                    "a different result")
        rows = s.execute(
            select(Account.name, HandPoints.points, HandPoints.fee, HandPoints.coins)
            .join(Account, Account.id == HandPoints.account_id)
            .where(HandPoints.hand_id == found.hand_id)
        ).all()
        return SettledHand(
            key, match_id, hand_no,
            changes={n: c for n, _, _, c in rows},
            fees={n: f for n, _, f, _ in rows},
            points={n: p for n, p, _, _ in rows},
            replayed=True,
        )

    def _settle(
        self, s: Session, row: MatchRow, key: str, digest: str, result: HandResult, state: dict[str, Any] | None
    ) -> SettledHand:
        room = s.get(Room, row.room_id)
        assert room is not None
        config = RoomConfig.from_mapping(room.config)
        people = result.participants
        ids = self._account_ids(s, people)
        house, table = self._system_ids[HOUSE], self._system_ids[TABLE]
        locked = self._lock_balances(s, [*ids.values(), house, table])
        coins = result.coins(config, {p: locked[ids[p]].coins for p in people})

        hand = HandRow(match_id=row.id, hand_no=result.hand_no, seed=result.seed, dealer=result.dealer,
                       record=result.record, result=result.to_json())
        s.add(hand)
        s.flush()
        settlement = Settlement(key=key, hand_id=hand.id, payload_sha256=digest)
        s.add(settlement)
        s.flush()
        self._fault("hand")

        net: dict[int, int] = {}
        moves: list[tuple[int, int, int, str]] = []  # payer, payee, amount, reason
        for i, p in enumerate(people):
            if coins.fees[i]:
                moves.append((ids[p], house, coins.fees[i], "fee"))
        for i, p in enumerate(people):
            if coins.paid[i]:
                moves.append((ids[p], table, coins.paid[i], "stake"))
        for i, p in enumerate(people):
            if coins.received[i]:
                moves.append((table, ids[p], coins.received[i], "winnings"))
        # the transfers in one batch, then their postings in one: a short transaction holds the lock briefly
        transfers = [CoinTransfer(settlement_id=settlement.id, reason=reason, memo=key) for *_, reason in moves]
        s.add_all(transfers)
        s.flush()
        postings: list[Posting] = []
        for transfer, (payer, payee, amount, _) in zip(transfers, moves, strict=True):
            postings += [Posting(transfer_id=transfer.id, account_id=payer, amount=-amount),
                         Posting(transfer_id=transfer.id, account_id=payee, amount=amount)]
            net[payer] = net.get(payer, 0) - amount
            net[payee] = net.get(payee, 0) + amount
        s.add_all(postings)
        s.flush()
        self._fault("postings")

        for acc, value in net.items():
            if value:
                locked[acc].coins += value
        s.flush()
        self._fault("balances")

        points = result.points()
        seats = {p: i for i, p in enumerate(result.seating)}
        s.add_all([
            HandPoints(hand_id=hand.id, account_id=ids[p], seat=seats.get(p), points=points[p],
                       fee=coins.fees[i], coins=coins.changes[i])
            for i, p in enumerate(people)
        ])
        # the hand's log (if it was logged) is closed by the same commit that settles it
        s.execute(update(HandLog).where(HandLog.match_id == row.id, HandLog.hand_no == result.hand_no)
                  .values(settled_at=func.now()))
        row.hands_played = result.hand_no
        if state is not None:
            if state["hands_played"] != result.hand_no:
                raise StoreError("stale_match", "the match state given is not the one after this hand")
            row.state = state
        if row.hands_played >= config.hands:
            row.status = "finished"
        s.flush()
        self._fault("commit")
        return SettledHand(
            key, row.id, result.hand_no,
            changes=dict(zip(people, coins.changes, strict=True)),
            fees=dict(zip(people, coins.fees, strict=True)),
            points=points,
        )

    # --- item cards ---------------------------------------------------------------------------------------------
    def grant_items(self, name: str, kind: ItemKind, quantity: int = 1) -> None:
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity <= 0:
            raise StoreError("bad_amount", f"grant a positive number of item cards, not {quantity!r}")
        with self._sessions.begin() as s:
            acc = self._account_ids(s, [name])[name]
            stock = s.get(ItemStock, (acc, str(kind)), with_for_update=True)
            if stock is None:
                s.add(ItemStock(account_id=acc, kind=str(kind), quantity=quantity))
            else:
                stock.quantity += quantity

    def items(self, name: str) -> dict[ItemKind, int]:
        with self._sessions() as s:
            acc = self._account_ids(s, [name])[name]
            rows = s.execute(select(ItemStock.kind, ItemStock.quantity).where(ItemStock.account_id == acc)).all()
            return {ItemKind(k): q for k, q in rows if q}

    def _spend(self, s: Session, account_id: int, kind: ItemKind, key: str, match_id: int | None) -> bool:
        if s.scalar(select(ItemSpend.id).where(ItemSpend.key == key)) is not None:
            return False
        stock = s.get(ItemStock, (account_id, str(kind)), with_for_update=True)
        if stock is None or stock.quantity < 1:
            name = s.scalar(select(Account.name).where(Account.id == account_id))
            code = "no_ticket" if kind is ItemKind.MATCH_TICKET else "no_item"
            raise MatchError(code, f"{name!r} has no {kind} card")
        stock.quantity -= 1
        s.add(ItemSpend(key=key, account_id=account_id, kind=str(kind), match_id=match_id))
        s.flush()
        return True

    def spend_item(self, name: str, kind: ItemKind, *, key: str, match_id: int | None = None) -> bool:
        """Spend one item card of ``kind`` (before using it in a hand). Idempotent by ``key``:
        returns ``False`` if that key was spent already. Raises ``no_item`` without a card."""
        try:
            with self._sessions.begin() as s:
                acc = self._account_ids(s, [name])[name]
                return self._spend(s, acc, kind, key, match_id)
        except IntegrityError:
            return False

    # --- checks ----------------------------------------------------------------------------------------------------
    def audit(self) -> dict[str, int]:
        """Check the books; raises ``StoreError("audit_failed")`` on the first broken invariant.

        Every transfer is exactly two postings summing to zero; every balance is the sum of
        its postings; no player or house balance is below zero; the clearing account is at
        zero; all balances together sum to zero (the mint's is minus everything issued).
        Returns the totals: ``issued``, ``house``, ``players``.
        """
        with self._sessions() as s:
            bad = s.execute(
                select(Posting.transfer_id)
                .group_by(Posting.transfer_id)
                .having((func.count() != 2) | (func.sum(Posting.amount) != 0))
                .limit(1)
            ).first()
            if bad is not None:
                raise StoreError("audit_failed", f"transfer {bad[0]} is not two postings summing to zero")
            orphan = s.execute(
                select(CoinTransfer.id).outerjoin(Posting, Posting.transfer_id == CoinTransfer.id)
                .where(Posting.id.is_(None)).limit(1)
            ).first()
            if orphan is not None:
                raise StoreError("audit_failed", f"transfer {orphan[0]} has no postings")
            sums: dict[int, int] = {
                acc: int(total)
                for acc, total in s.execute(
                    select(Posting.account_id, func.sum(Posting.amount)).group_by(Posting.account_id)
                ).all()
            }
            total = 0
            players = 0
            for acc, kind, coins, overdraft in s.execute(
                select(Account.id, Account.kind, Balance.coins, Balance.overdraft)
                .join(Balance, Balance.account_id == Account.id)
            ).all():
                if sums.get(acc, 0) != coins:
                    raise StoreError("audit_failed", f"account {acc}: balance {coins} but postings sum "
                                                     f"to {sums.get(acc, 0)}")
                if coins < 0 and not overdraft:
                    raise StoreError("audit_failed", f"account {acc} is below zero")
                if kind == "clearing" and coins != 0:
                    raise StoreError("audit_failed", f"the clearing account holds {coins}")
                if kind == "player":
                    players += coins
                total += coins
            if total != 0:
                raise StoreError("audit_failed", f"balances sum to {total}, not zero")
            house = s.scalar(select(Balance.coins).where(Balance.account_id == self._system_ids[HOUSE])) or 0
            mint = s.scalar(select(Balance.coins).where(Balance.account_id == self._system_ids[MINT])) or 0
            return {"issued": -mint, "house": house, "players": players}
