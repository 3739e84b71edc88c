"""The :class:`~xuezhan.server.bank.Bank` of a real server: :class:`xuezhan.store.Store` underneath.

Accounts, balances, rooms, matches, finished hands and their settlement are the
store's (one idempotent transaction per hand). Passwords are hashed with argon2id
(argon2-cffi, OWASP's parameters: 19 MiB, two passes, one lane). Sessions are random tokens kept in the database by
their SHA-256 (the token itself lives only in the player's cookie), with an expiry;
logging out revokes one, so a logged-out or expired token is refused everywhere, and
sessions outlive a restart. Bots play under four accounts topped up from the mint by
the house.

Hands in play are the store's hand logs; the id of each hand's log is kept here once
known, so logging an action is one small insert.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import HandResult, ItemKind, Match, RoomConfig
from ..store import AccountSettings, PlayerInfo, Store, StoreError, Tournament
from .bank import (
    BOT_PLAYERS,
    Account,
    HandSummary,
    HeldTournament,
    LogEntry,
    LoggedHand,
    PastHand,
    RunningMatch,
    Settings,
    Settled,
    WaitingRoom,
    WalletEntry,
    is_bot,
)
from .names import name_key, name_skeleton, skeleton_version

BOT_FLOAT: Final = 10_000_000
"""Coins a bot account is topped up to when it runs low, so its losses are always paid in full."""
SESSION_TTL: Final = 30 * 24 * 3600.0
"""How long a session lasts, in seconds (30 days)."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _account(info: PlayerInfo) -> Account:
    return Account(info.name, info.name, info.coins, guest=info.password_hash is None, lang=info.lang)


class StoreBank:
    """A :class:`~xuezhan.server.bank.Bank` on a :class:`~xuezhan.store.Store` (thread-safe).

    ``starting_coins``: each new account's opening grant (once per account);
    ``accounts_per_address``: how many accounts one client address may make a day (UTC);
    ``session_ttl``: seconds a session lasts."""

    def __init__(self, store: Store, *, starting_coins: int = 20_000, accounts_per_address: int = 3,
                 session_ttl: float = SESSION_TTL) -> None:
        self.store = store
        self.starting_coins = starting_coins
        self.accounts_per_address = accounts_per_address
        self.session_ttl = session_ttl
        # OWASP's argon2id setting (19 MiB, 2 passes, 1 lane): safe, and quick enough not to stall the lobby
        self.hasher = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)
        # addresses are kept as keyed digests: the database never holds a client's address
        self._address_key = store.accounts.setting("address_key", lambda: secrets.token_hex(32)).encode()
        # a hash to check a password against when the name is unknown, so both cases take as long
        self._dummy_hash = self.hasher.hash(secrets.token_hex(16))
        # what each name looks like, for accounts made before it was kept or with other confusable data
        store.accounts.fill_name_skeletons(name_skeleton, skeleton_version())
        for bot in BOT_PLAYERS:
            try:
                store.accounts.create_account(bot, BOT_FLOAT)
            except StoreError as exc:
                if exc.code != ErrorCode.ACCOUNT_EXISTS:
                    raise

    @classmethod
    def open(cls, url: str | None, **options: Any) -> StoreBank:
        return cls(Store(url), **options)

    # --- sessions ----------------------------------------------------------------------------------------
    def _new_session(self, name: str) -> str:
        token = secrets.token_urlsafe(32)
        expires = datetime.now(UTC) + timedelta(seconds=self.session_ttl)
        self.store.accounts.open_session(name, _digest(token), expires)
        return token

    def account_for_token(self, token: str) -> Account | None:
        if not token or len(token) > 200:
            return None
        info = self.store.accounts.session_player(_digest(token), datetime.now(UTC))
        if info is None or is_bot(info.name):
            return None
        return _account(info)

    def end_session(self, token: str) -> None:
        if token and len(token) <= 200:
            self.store.accounts.revoke_session(_digest(token), datetime.now(UTC))

    def session_expires(self, token: str) -> datetime | None:
        if not token or len(token) > 200:
            return None
        return self.store.accounts.session_expires(_digest(token))

    def end_other_sessions(self, player: str, keep: str | None) -> None:
        keep_hash = _digest(keep) if keep and len(keep) <= 200 else None
        self.store.accounts.revoke_other_sessions(player, keep_hash, datetime.now(UTC))

    # --- accounts ----------------------------------------------------------------------------------------
    def origin_of(self, address: str) -> str:
        """The digest an address is kept as."""
        return hmac.new(self._address_key, address.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()

    def create_account(self, nickname: str, *, origin: str | None = None,
                       password: str | None = None) -> tuple[Account, str]:
        if is_bot(nickname) or ":" in nickname:
            raise XuezhanError(ErrorCode.BAD_NAME, "a name may not contain ':'")
        digest = None if origin is None else self.origin_of(origin)
        today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        hashed = None if password is None else self.hasher.hash(password)
        try:
            self.store.accounts.create_player(nickname, name_key(nickname), self.starting_coins, origin=digest,
                                              password_hash=hashed, max_from_origin=self.accounts_per_address,
                                              since=today, name_skeleton=name_skeleton(nickname))
        except StoreError as exc:
            if exc.code == ErrorCode.NAME_TAKEN:
                raise XuezhanError(ErrorCode.NAME_TAKEN, f"the name {nickname!r} is taken") from None
            if exc.code == ErrorCode.TOO_MANY_ACCOUNTS:
                raise XuezhanError(ErrorCode.RATE_LIMITED, exc.message) from None
            raise
        account = Account(nickname, nickname, self.starting_coins, guest=password is None)
        return account, self._new_session(nickname)

    def _check(self, info: PlayerInfo | None, password: str) -> PlayerInfo:
        stored = info.password_hash if info is not None else None
        try:
            ok = self.hasher.verify(stored or self._dummy_hash, password) and stored is not None
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or info is None:
            raise XuezhanError(ErrorCode.BAD_LOGIN, "wrong name or password")
        if self.hasher.check_needs_rehash(stored or ""):
            self.store.accounts.set_password(info.name, self.hasher.hash(password))
        return info

    def login(self, nickname: str, password: str) -> tuple[Account, str]:
        info = self._check(self.store.accounts.player_by_key(name_key(nickname)), password)
        return _account(info), self._new_session(info.name)

    def set_password(self, player: str, password: str, old_password: str | None) -> Account:
        info = self.store.accounts.player(player)
        if info is None:
            raise XuezhanError(ErrorCode.NOT_SIGNED_IN, "sign in first")
        if info.password_hash is not None:
            self._check(info, old_password or "")
        self.store.accounts.set_password(player, self.hasher.hash(password))
        return Account(info.name, info.name, info.coins, guest=False, lang=info.lang)

    def set_lang(self, player: str, lang: str | None) -> None:
        self.store.accounts.set_lang(player, lang)

    def account(self, player: str) -> Account | None:
        info = self.store.accounts.player(player)
        if info is not None:
            return _account(info)
        try:
            coins = self.store.ledger.balance(player)  # a bot
        except StoreError:
            return None
        return Account(player, player, coins)

    def accounts(self, players: Sequence[str]) -> dict[str, Account | None]:
        found = self.store.accounts.players(players)
        return {p: _account(found[p]) if p in found else self.account(p) for p in players}

    def settings(self, player: str) -> Settings:
        return Settings(mute=self.store.accounts.account_settings(player).mute)

    def save_settings(self, player: str, settings: Settings) -> Settings:
        self.store.accounts.save_account_settings(player, AccountSettings(mute=settings.mute))
        return settings

    # --- coins -------------------------------------------------------------------------------------------
    def wallet(self, player: str, limit: int = 100) -> list[WalletEntry]:
        out: list[WalletEntry] = []
        for line in self.store.ledger.wallet(player, limit):
            room = line.room
            if line.reason == "grant":
                kind = {"opening balance": "start", "relief": "relief"}.get(line.memo, "grant")
            else:
                kind = line.reason
            if kind in ("entry", "refund", "prize"):
                room = line.memo  # the tournament's id
            out.append(WalletEntry(line.at.isoformat(), line.amount, kind, room, line.hand_no))
        return out

    def relief_taken(self, player: str, day: str) -> bool:
        return self.store.ledger.grant_made(f"relief/{player}/{day}")

    def grant_relief(self, player: str, day: str, coins: int) -> bool:
        return self.store.ledger.grant(player, coins, key=f"relief/{player}/{day}", memo="relief")

    # --- rooms, matches, hands ---------------------------------------------------------------------------
    def open_room(self, code: str, room: RoomConfig, meta: dict[str, Any] | None = None) -> None:
        self.store.rooms.create_room(code, room, meta)

    def save_room(self, code: str, meta: dict[str, Any]) -> None:
        self.store.rooms.set_room_meta(code, meta)

    def waiting_rooms(self, rooms: Collection[str] | None = None) -> list[WaitingRoom]:
        return [WaitingRoom(code, room, meta) for code, room, meta in self.store.rooms.rooms_without_matches(rooms)]

    def open_match(self, code: str, players: list[str], seed: int) -> tuple[str, Match]:
        match_id, match = self.store.rooms.start_match(code, players, seed=seed)
        return str(match_id), match

    def save_match(self, key: str, match: Match) -> None:
        self.store.rooms.save_match(int(key), match)

    def settle_hand(self, key: str, result: HandResult, match: Match) -> Settled:
        # one transaction: the bots topped up, the hand paid and recorded, the balances read back
        top_up = {p: BOT_FLOAT for p in result.participants if is_bot(p)}
        done = self.store.settle_hand(int(key), result, match, top_up=top_up)
        people = result.participants
        return Settled(
            changes=tuple(done.changes[p] for p in people),
            fees=tuple(done.fees[p] for p in people),
            balances=tuple(None if is_bot(p) else done.balances[p] for p in people),
            replayed=done.replayed,
        )

    # --- hands in play -------------------------------------------------------------------------------------
    def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
        self.store.hands.write_log([(kind, int(key), hand_no, n, payload)
                                    for key, (kind, hand_no, n, payload) in entries])

    def running_matches(self, rooms: Collection[str] | None = None) -> list[RunningMatch]:
        out: list[RunningMatch] = []
        for m in self.store.rooms.running_matches(rooms):
            key = str(m.match_id)
            hand = None
            if m.hand is not None:
                hand = LoggedHand(m.hand.hand_no, m.hand.seed, m.hand.start, m.hand.actions)
            out.append(RunningMatch(key=key, room_code=m.room, room=m.config, meta=m.meta, match=m.match, hand=hand))
        return out

    def end_match(self, key: str, status: str) -> None:
        self.store.rooms.end_match(int(key), status)

    def history(self, player: str, limit: int = 50) -> list[HandSummary]:
        try:
            rows = self.store.hands.history(player, limit)
        except StoreError as exc:
            if exc.code == ErrorCode.UNKNOWN_ACCOUNT:
                return []
            raise
        return [
            HandSummary(room=h.room, hand_no=h.hand_no, seat=h.seat, points=h.points, coins=h.coins, fee=h.fee,
                        finished_at=h.settled_at.isoformat(), hand_id=h.hand_id)
            for h in rows
        ]

    def past_hand(self, player: str, hand_id: int) -> PastHand | None:
        found = self.store.hands.past_hand(player, hand_id)
        if found is None:
            return None
        room, hand_no, seat, record, result = found
        seating = tuple(str(p) for p in result.get("seating", ()))
        return PastHand(hand_id, room, hand_no, seat, seating, record, result)

    # --- tournaments -------------------------------------------------------------------------------------
    def save_tournament(self, key: str, status: str, starts_at: datetime, state: dict[str, Any]) -> None:
        self.store.tournaments.save(key, status, starts_at, state)

    def tournament(self, key: str) -> HeldTournament | None:
        found = self.store.tournaments.get(key)
        return None if found is None else _held(found)

    def tournaments(self) -> list[HeldTournament]:
        return [_held(t) for t in self.store.tournaments.active() + self.store.tournaments.recent()]

    def start_tournament(self, key: str, min_players: int) -> tuple[str, list[str]]:
        return self.store.tournaments.start(key, min_players)

    def cancel_tournament(self, key: str) -> None:
        self.store.tournaments.cancel(key)

    def finish_tournament(self, key: str, places: dict[str, int]) -> dict[str, int]:
        return self.store.tournaments.finish(key, places)

    def round_rooms(self, key: str, round_no: int) -> dict[int, str]:
        return self.store.tournaments.round_rooms(key, round_no)

    def round_points(self, codes: list[str]) -> tuple[bool, dict[str, int]]:
        return self.store.tournaments.round_points(codes)

    def match_tickets(self, player: str) -> int:
        try:
            return self.store.ledger.items(player).get(ItemKind.MATCH_TICKET, 0)
        except StoreError:
            return 0
    # --- item cards ---------------------------------------------------------------------------------------
    def items(self, player: str) -> dict[str, int]:
        return {str(kind): n for kind, n in self.store.ledger.items(player).items()}

    def buy_items(self, player: str, kind: str, count: int, price: int) -> tuple[int, int]:
        if is_bot(player):
            raise XuezhanError(ErrorCode.BAD_NAME, "bots buy no item cards")
        return self.store.ledger.buy_items(player, ItemKind(kind), count, price)

    def spend_item(self, player: str, kind: str, key: str) -> bool:
        return self.store.ledger.spend_item(player, ItemKind(kind), key=key)

    def close(self) -> None:
        self.store.close()


def _held(t: Tournament) -> HeldTournament:
    return HeldTournament(t.key, t.status, t.starts_at, t.state)
