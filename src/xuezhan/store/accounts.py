"""Accounts and sessions: people's accounts (name, password, language, what they chose for the
page), the bots' and tests' plain accounts, and the sessions people log in with.

A new account gets its balance row and its opening coins (a ``grant`` from the mint, made
by the :class:`~xuezhan.store.ledger.Ledger`) in the transaction that makes it: an account
never exists without its coins.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from .base import Database, StoreError, account_ids, aware, check_name
from .ledger import Ledger
from .models import Account, AccountSettingsRow, Balance, NameSkeleton, SessionRow, Setting


@dataclass(frozen=True, slots=True)
class PlayerInfo:
    """A person's account as the store keeps it (``password_hash`` ``None``: a guest)."""

    id: int
    name: str
    password_hash: str | None
    lang: str | None
    coins: int


@dataclass(frozen=True, slots=True)
class AccountSettings:
    """What a person chose for the page; an account that never chose has these defaults.
    ``mute``: the table plays no sounds."""

    mute: bool = False


class Accounts:
    """Accounts, sessions and the server's settings, on ``db``; opening balances through ``ledger``."""

    def __init__(self, db: Database, ledger: Ledger) -> None:
        self._db = db
        self._ledger = ledger

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
        check_name(name)
        try:
            with self._db.sessions.begin() as s:
                acc = self._new_account(s, name, "player")
                if coins:
                    self._ledger.issue(s, acc.id, coins, None, "opening balance")
                return acc.id
        except IntegrityError:
            raise StoreError(ErrorCode.ACCOUNT_EXISTS, f"an account named {name!r} exists") from None

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
        name_skeleton: str | None = None,
    ) -> int:
        """A person's account: ``name`` as shown, unique by ``name_key`` and by ``name_skeleton``
        (what it looks like) when given (``name_taken``), with a
        starting grant of ``coins`` (once: the grant's key is the account's), made from ``origin``.
        With ``max_from_origin`` and ``since``, refused (``too_many_accounts``) when ``origin`` has
        made that many accounts since then; checked in the same transaction as the insert."""
        check_name(name)
        try:
            with self._db.sessions.begin() as s:
                if max_from_origin is not None and origin is not None and since is not None:
                    made = s.scalar(select(func.count()).select_from(Account)
                                    .where(Account.origin == origin, Account.created_at >= since)) or 0
                    if made >= max_from_origin:
                        raise StoreError(ErrorCode.TOO_MANY_ACCOUNTS,
                                         "this address has made as many accounts as it may today")
                taken = s.scalar(select(Account.id).where(Account.name_key == name_key)) is not None
                if name_skeleton is not None and not taken:
                    taken = s.scalar(select(NameSkeleton.account_id)
                                     .where(NameSkeleton.skeleton == name_skeleton).limit(1)) is not None
                if taken:
                    raise StoreError(ErrorCode.NAME_TAKEN, f"the name {name!r} is taken")
                acc = self._new_account(s, name, "player")
                acc.name_key = name_key
                if name_skeleton is not None:
                    s.add(NameSkeleton(account_id=acc.id, skeleton=name_skeleton))
                acc.origin = origin
                acc.password_hash = password_hash
                acc.lang = lang
                s.flush()
                if coins:
                    self._ledger.issue(s, acc.id, coins, f"start/{acc.id}", "opening balance")
                return acc.id
        except IntegrityError:
            raise StoreError(ErrorCode.NAME_TAKEN, f"the name {name!r} is taken") from None

    def fill_name_skeletons(self, skeleton: Callable[[str], str], version: str) -> int:
        """Make each person's name skeleton (``name_skeletons``) with ``skeleton``: the missing ones, or all when
        ``version`` (which confusable data) is not the one they were made with. Accounts that share a
        skeleton keep their names. Returns how many were made (0 when another server, opening the
        database at the same time, made them first)."""
        try:
            return self._fill_name_skeletons(skeleton, version)
        except IntegrityError:  # another process made the same rows, or the setting, first
            return 0

    def _fill_name_skeletons(self, skeleton: Callable[[str], str], version: str) -> int:
        with self._db.sessions.begin() as s:
            kept = s.get(Setting, "name_skeleton_version", with_for_update=True)
            query = select(Account.id, Account.name).where(Account.kind == "player")
            if kept is not None and kept.value == version:
                query = query.outerjoin(NameSkeleton, NameSkeleton.account_id == Account.id).where(
                    NameSkeleton.account_id.is_(None))
            rows = s.execute(query).all()
            for ident, name in rows:
                row = s.get(NameSkeleton, ident)
                if row is None:
                    s.add(NameSkeleton(account_id=ident, skeleton=skeleton(name)))
                else:
                    row.skeleton = skeleton(name)
            if kept is None:
                s.add(Setting(key="name_skeleton_version", value=version))
            else:
                kept.value = version
            return len(rows)

    def player(self, name: str) -> PlayerInfo | None:
        """A person's account by its name, or ``None``."""
        return self._player(Account.name == name)

    def players(self, names: Sequence[str]) -> dict[str, PlayerInfo]:
        """The accounts of those of ``names`` that are people, by name, in one read (one that
        takes no write lock: :attr:`~xuezhan.store.base.Database.reads`)."""
        if not names:
            return {}
        with self._db.reads() as s:
            rows = s.execute(
                select(Account.id, Account.name, Account.password_hash, Account.lang, Balance.coins)
                .join(Balance, Balance.account_id == Account.id)
                .where(Account.name.in_(list(names)), Account.kind == "player")
            ).all()
        return {row[1]: PlayerInfo(*row) for row in rows}

    def player_by_key(self, name_key: str) -> PlayerInfo | None:
        """A person's account by its name key, or ``None``."""
        return self._player(Account.name_key == name_key)

    def _player(self, where: Any) -> PlayerInfo | None:
        with self._db.sessions() as s:
            row = s.execute(
                select(Account.id, Account.name, Account.password_hash, Account.lang, Balance.coins)
                .join(Balance, Balance.account_id == Account.id)
                .where(where, Account.kind == "player")
            ).first()
            return None if row is None else PlayerInfo(*row)

    def set_password(self, name: str, password_hash: str) -> None:
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            s.execute(update(Account).where(Account.id == acc).values(password_hash=password_hash))

    def set_lang(self, name: str, lang: str | None) -> None:
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            s.execute(update(Account).where(Account.id == acc).values(lang=lang))

    # --- what a person chose for the page -----------------------------------------------------------------
    def account_settings(self, name: str) -> AccountSettings:
        """What ``name`` chose for the page (the defaults until it chooses); ``unknown_account``."""
        with self._db.sessions() as s:
            acc = account_ids(s, [name])[name]
            row = s.get(AccountSettingsRow, acc)
            return AccountSettings() if row is None else AccountSettings(mute=row.mute)

    def save_account_settings(self, name: str, settings: AccountSettings) -> AccountSettings:
        """Keep ``settings`` as what ``name`` chose (the last write wins); ``unknown_account``."""
        try:
            self._save_settings(name, settings)
        except IntegrityError:  # another write made the row first: this one updates it
            self._save_settings(name, settings)
        return settings

    def _save_settings(self, name: str, settings: AccountSettings) -> None:
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            row = s.get(AccountSettingsRow, acc, with_for_update=True)
            if row is None:
                s.add(AccountSettingsRow(account_id=acc, mute=settings.mute))
            else:
                row.mute = settings.mute
                row.updated_at = datetime.now(UTC)

    # --- sessions ---------------------------------------------------------------------------------------------
    def open_session(self, name: str, token_hash: str, expires_at: datetime) -> None:
        """Keep a new session of ``name`` (by the digest of its token) until ``expires_at``."""
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            s.add(SessionRow(token_hash=token_hash, account_id=acc, expires_at=expires_at))

    def session_player(self, token_hash: str, now: datetime) -> PlayerInfo | None:
        """The account of a session that is neither revoked nor expired at ``now``, or ``None``."""
        with self._db.sessions() as s:
            row = s.execute(
                select(Account.id, Account.name, Account.password_hash, Account.lang, Balance.coins,
                       SessionRow.expires_at)
                .join(Account, Account.id == SessionRow.account_id)
                .join(Balance, Balance.account_id == Account.id)
                .where(SessionRow.token_hash == token_hash, SessionRow.revoked_at.is_(None))
            ).first()
        if row is None or aware(row[5]) <= now:
            return None
        return PlayerInfo(*row[:5])

    def session_expires(self, token_hash: str) -> datetime | None:
        """When a session that is not revoked expires (``None``: no such session, or revoked)."""
        with self._db.sessions() as s:
            at = s.scalar(select(SessionRow.expires_at)
                          .where(SessionRow.token_hash == token_hash, SessionRow.revoked_at.is_(None)))
        return None if at is None else aware(at)

    def revoke_other_sessions(self, name: str, keep_hash: str | None, now: datetime) -> int:
        """End every session of ``name`` but the one whose token digest is ``keep_hash`` (a password
        change); returns how many were ended."""
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            where = [SessionRow.account_id == acc, SessionRow.revoked_at.is_(None)]
            if keep_hash is not None:
                where.append(SessionRow.token_hash != keep_hash)
            done = s.execute(update(SessionRow).where(*where).values(revoked_at=now))
            return int(getattr(done, "rowcount", 0) or 0)

    def revoke_session(self, token_hash: str, now: datetime) -> None:
        """End a session (logout): its token is refused from now on."""
        with self._db.sessions.begin() as s:
            s.execute(update(SessionRow).where(SessionRow.token_hash == token_hash, SessionRow.revoked_at.is_(None))
                      .values(revoked_at=now))

    # --- settings ---------------------------------------------------------------------------------------------
    def setting(self, key: str, make: Callable[[], str]) -> str:
        """The stored value of ``key`` (a server's secret, say); the first caller stores ``make()``
        (once, even when racing)."""
        with self._db.sessions() as s:
            row = s.get(Setting, key)
            if row is not None:
                return row.value
        try:
            with self._db.sessions.begin() as s:
                s.add(Setting(key=key, value=make()))
        except IntegrityError:
            pass  # another process stored it first
        with self._db.sessions() as s:
            row = s.get(Setting, key)
            assert row is not None
            return row.value
