"""The :class:`~xuezhan.server.bank.Bank` of a real server: :class:`xuezhan.store.Store` underneath.

Accounts, balances, rooms, matches, finished hands and their settlement are the
store's (one idempotent transaction per hand). Sessions are signed tokens: the
account name, a random nonce and an HMAC-SHA256 under the server's secret
(``XUEZHAN_SECRET``; without one, a random secret made on the first start and kept in
the database, so sessions outlive a restart). Bots play under four accounts topped up from the mint by the house.

Hands in play are the store's hand logs; the id of each hand's log is kept here once
known, so logging an action is one small insert.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
import threading
from typing import Any, Final

from ..errors import XuezhanError
from ..match import HandResult, Match, RoomConfig
from ..store import Store, StoreError
from .bank import BOT_PLAYERS, Account, HandSummary, LogEntry, LoggedHand, RunningMatch, Settled, is_bot

BOT_FLOAT: Final = 10_000_000
"""Coins a bot account is topped up to when it runs low, so its losses are always paid in full."""


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class StoreBank:
    """A :class:`~xuezhan.server.bank.Bank` on a :class:`~xuezhan.store.Store` (thread-safe)."""

    def __init__(self, store: Store, *, secret: bytes | None = None, starting_coins: int = 20_000) -> None:
        self.store = store
        self.secret = secret if secret else store.setting("session_secret", lambda: secrets.token_hex(32)).encode()
        self.starting_coins = starting_coins
        self._revoked: set[str] = set()
        self._lock = threading.Lock()
        for bot in BOT_PLAYERS:
            try:
                store.create_account(bot, BOT_FLOAT)
            except StoreError as exc:
                if exc.code != "account_exists":
                    raise

    @classmethod
    def open(cls, url: str | None, *, secret: bytes | None = None, starting_coins: int = 20_000) -> StoreBank:
        return cls(Store(url), secret=secret, starting_coins=starting_coins)

    # --- sessions ----------------------------------------------------------------------------------------
    def _sign(self, body: str) -> str:
        return hmac.new(self.secret, body.encode("ascii"), hashlib.sha256).hexdigest()

    def _token_for(self, name: str) -> str:
        body = f"{_b64(name.encode('utf-8'))}.{secrets.token_urlsafe(18)}"
        return f"{body}.{self._sign(body)}"

    def _name_of(self, token: str) -> str | None:
        if len(token) > 400 or token in self._revoked:
            return None
        parts = token.split(".")
        if len(parts) != 3:
            return None
        body = f"{parts[0]}.{parts[1]}"
        if not hmac.compare_digest(self._sign(body), parts[2]):
            return None
        try:
            return _unb64(parts[0]).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return None

    # --- accounts ----------------------------------------------------------------------------------------
    def create_account(self, nickname: str) -> tuple[Account, str]:
        if is_bot(nickname) or ":" in nickname:
            raise XuezhanError("bad_nickname", "a nickname may not contain ':'")
        try:
            self.store.create_account(nickname, self.starting_coins)
        except StoreError as exc:
            if exc.code == "account_exists":
                raise XuezhanError("nickname_taken", f"the nickname {nickname!r} is taken") from None
            raise
        return Account(nickname, nickname, self.starting_coins), self._token_for(nickname)

    def account_for_token(self, token: str) -> Account | None:
        name = self._name_of(token)
        if name is None or is_bot(name):
            return None
        return self.account(name)

    def end_session(self, token: str) -> None:
        with self._lock:
            self._revoked.add(token)

    def account(self, player: str) -> Account | None:
        try:
            coins = self.store.balance(player)
        except StoreError:
            return None
        return Account(player, player, coins)

    # --- rooms, matches, hands ---------------------------------------------------------------------------
    def open_room(self, code: str, room: RoomConfig, meta: dict[str, Any] | None = None) -> None:
        self.store.create_room(code, room, meta)

    def open_match(self, code: str, players: list[str], seed: int) -> tuple[str, Match]:
        match_id, match = self.store.start_match(code, players, seed=seed)
        return str(match_id), match

    def save_match(self, key: str, match: Match) -> None:
        self.store.save_match(int(key), match)

    def settle_hand(self, key: str, result: HandResult, match: Match) -> Settled:
        bots = [p for p in result.participants if is_bot(p)]
        if bots:
            for bot, coins in self.store.balances(bots).items():
                if coins < BOT_FLOAT // 2:
                    self.store.grant(bot, BOT_FLOAT - coins)
        done = self.store.settle_hand(int(key), result, match)
        people = result.participants
        balances = self.store.balances(people)
        return Settled(
            changes=tuple(done.changes[p] for p in people),
            fees=tuple(done.fees[p] for p in people),
            balances=tuple(None if is_bot(p) else balances[p] for p in people),
            replayed=done.replayed,
        )

    # --- hands in play -------------------------------------------------------------------------------------
    def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
        self.store.write_log([(kind, int(key), hand_no, n, payload) for key, (kind, hand_no, n, payload) in entries])

    def running_matches(self) -> list[RunningMatch]:
        out: list[RunningMatch] = []
        for m in self.store.running_matches():
            key = str(m.match_id)
            hand = None
            if m.hand is not None:
                hand = LoggedHand(m.hand.hand_no, m.hand.seed, m.hand.start, m.hand.actions)
            out.append(RunningMatch(key=key, room_code=m.room, room=m.config, meta=m.meta, match=m.match, hand=hand))
        return out

    def end_match(self, key: str, status: str) -> None:
        self.store.end_match(int(key), status)

    def history(self, player: str, limit: int = 50) -> list[HandSummary]:
        try:
            rows = self.store.history(player, limit)
        except StoreError as exc:
            if exc.code == "unknown_account":
                return []
            raise
        return [
            HandSummary(room=h.room, hand_no=h.hand_no, seat=h.seat, points=h.points, coins=h.coins, fee=h.fee,
                        finished_at=h.settled_at.isoformat())
            for h in rows
        ]

    def close(self) -> None:
        self.store.close()
