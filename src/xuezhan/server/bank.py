"""What the web table needs from coins and persistence, as one small protocol.

The server never writes to a database itself: accounts, sessions, balances,
finished hands and their settlement go through a :class:`Bank`. The real one
(:mod:`xuezhan.server.storebank`) wraps :mod:`xuezhan.store`; every method is
blocking, so the server calls them from a worker thread.

Hands in play are logged as they happen: the deal and every action applied
(:meth:`Bank.write_log`), so that a restarted server rebuilds
each running match's hand by replaying its log (:meth:`Bank.running_matches`).

People are named in the match layer by their account name: a person by the
nickname, a bot by ``bot:1`` to ``bot:4`` (accounts too, topped up by the house).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

from ..match import HandResult, Match, RoomConfig


@dataclass(frozen=True, slots=True)
class Account:
    """A player: its match-layer name (``player``), the name people see, its coins, whether it is
    a guest (no password yet) and the language it chose (``None``: not chosen)."""

    player: str
    nickname: str
    balance: int
    guest: bool = True
    lang: str | None = None


@dataclass(frozen=True, slots=True)
class Settings:
    """What a person chose for the page, kept with the account (these defaults until it chooses).
    ``mute``: the table plays no sounds."""

    mute: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"mute": self.mute}


@dataclass(frozen=True, slots=True)
class WalletEntry:
    """One movement of a player's coins (see :meth:`Bank.wallet`): ``kind`` is ``start`` (the
    opening grant), ``relief``, ``grant`` (any other), ``fee``, ``stake`` (lost in a hand),
    ``winnings``, ``jiao_ma`` (a bystander's bet, won or lost), ``item`` (cards bought in the
    shop), or a tournament's ``entry``, ``refund`` or ``prize``; ``room`` and ``hand_no`` name the
    hand for the four of a hand, ``room`` the tournament's id for the three of a tournament."""

    at: str
    delta: int
    kind: str
    room: str | None = None
    hand_no: int | None = None


@dataclass(frozen=True, slots=True)
class PastHand:
    """A finished hand as one of its seated players may look back at it: its game record (to be
    replayed), its result, its seat and the names of the four seats' accounts."""

    hand_id: int
    room: str
    hand_no: int
    seat: int
    seating: tuple[str, ...]
    record: dict[str, Any]
    result: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Settled:
    """The coins of one finished hand by participant (the hand's ``participants`` order)."""

    changes: tuple[int, ...]
    fees: tuple[int, ...]
    balances: tuple[int | None, ...]
    """Balances after the hand (``None`` for a bot)."""
    replayed: bool = False
    """The hand had been settled already (an idempotent repeat): nothing moved this time."""


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One finished hand as a player's history shows it."""

    room: str
    hand_no: int
    seat: int | None
    points: int
    coins: int
    fee: int
    finished_at: str
    hand_id: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.hand_id,
            "at": self.finished_at,
            "delta": self.coins,
            "room": self.room,
            "hand_no": self.hand_no,
            "seat": self.seat,
            "points": self.points,
            "coins": self.coins,
            "fee": self.fee,
            "finished_at": self.finished_at,
        }


@dataclass(frozen=True, slots=True)
class LoggedHand:
    """A hand in play as logged: its deal (``seed`` and the ``start`` data given to
    :meth:`Bank.write_log`) and the actions applied since, in order."""

    hand_no: int
    seed: int
    start: dict[str, Any]
    actions: tuple[dict[str, Any], ...]


@dataclass(frozen=True, slots=True)
class RunningMatch:
    """A match that was running when the server stopped: its key, its room (code, config and
    the metadata it was opened with), the match between hands, and the hand in play if any."""

    key: str
    room_code: str
    room: RoomConfig
    meta: dict[str, Any]
    match: Match
    hand: LoggedHand | None


@dataclass(frozen=True, slots=True)
class WaitingRoom:
    """A room no match was started in yet, as the database keeps it: its code, config and the
    metadata last saved for it (:meth:`Bank.save_room`)."""

    code: str
    room: RoomConfig
    meta: dict[str, Any]


@dataclass(frozen=True, slots=True)
class HeldTournament:
    """A tournament as the database keeps it (:mod:`xuezhan.server.tournaments`): its id, status
    (``open``, ``running``, ``finished``, ``cancelled``), start and state."""

    key: str
    status: str
    starts_at: datetime
    state: dict[str, Any]


LogEntry = tuple[str, int, int, Any]
"""A hand-log entry: ``("begin", hand_no, seed, start)`` or ``("action", hand_no, seq, action)``."""


BOT_PREFIX = "bot:"
"""Bots play under the accounts ``bot:1`` to ``bot:4`` (a nickname may not contain ``:``)."""
BOT_PLAYERS = tuple(f"{BOT_PREFIX}{i}" for i in range(1, 5))


def is_bot(player: str) -> bool:
    return player.startswith(BOT_PREFIX)


class Bank(Protocol):
    """Accounts, sessions, balances, matches and finished hands. Every method may block
    (database I/O): the server calls them from a worker thread."""

    def create_account(self, nickname: str, *, origin: str | None = None,
                       password: str | None = None) -> tuple[Account, str]:
        """A new account (a guest without ``password``) with the starting grant and a session token
        for it. ``origin`` is where the request came from (the daily limit of new accounts per
        address). Raises :class:`~xuezhan.errors.XuezhanError` ``name_taken`` if the name (by its
        key, :func:`xuezhan.server.names.name_key`, or by what it looks like,
        :func:`xuezhan.server.names.name_skeleton`) is in use, ``rate_limited`` past the limit."""
        ...

    def login(self, nickname: str, password: str) -> tuple[Account, str]:
        """Sign in with a password: the account and a new session token; ``bad_login`` otherwise."""
        ...

    def set_password(self, player: str, password: str, old_password: str | None) -> Account:
        """A guest sets a password (and keeps its account); a member changes it with the old one
        (``bad_login`` without it)."""
        ...

    def set_lang(self, player: str, lang: str | None) -> None: ...

    def account_for_token(self, token: str) -> Account | None:
        """The account of a live session (not logged out, not expired), or ``None``."""
        ...

    def end_session(self, token: str) -> None:
        """Log out: the token is refused from now on."""
        ...

    def session_expires(self, token: str) -> datetime | None:
        """When a live session ends by itself (``None``: no such session, or it was ended)."""
        ...

    def end_other_sessions(self, player: str, keep: str | None) -> None:
        """End every session of ``player`` but ``keep``'s (a password change): their tokens are
        refused from now on."""
        ...

    def wallet(self, player: str, limit: int = 100) -> list[WalletEntry]:
        """The player's coin movements, newest first."""
        ...

    def relief_taken(self, player: str, day: str) -> bool:
        """Whether the player has taken the relief of ``day`` (``YYYY-MM-DD``, UTC)."""
        ...

    def grant_relief(self, player: str, day: str, coins: int) -> bool:
        """Grant the relief of ``day`` once: ``False`` if it was taken already."""
        ...

    def past_hand(self, player: str, hand_id: int) -> PastHand | None:
        """A finished hand the player sat in, or ``None``."""
        ...

    def items(self, player: str) -> dict[str, int]:
        """The item cards the player holds, by kind (kinds it holds none of are left out)."""
        ...

    def buy_items(self, player: str, kind: str, count: int, price: int) -> tuple[int, int]:
        """Buy ``count`` cards of ``kind`` at ``price`` coins each (the coins to the house, reason
        ``item``): the player's balance and cards of ``kind`` after. ``insufficient_balance`` when
        its coins do not cover it (nothing changes); bots buy nothing (``bad_name``)."""
        ...

    def spend_item(self, player: str, kind: str, key: str) -> bool:
        """Spend one of the player's cards of ``kind``, once by ``key`` (``False``: spent already
        under that key); ``no_item`` without one."""
        ...

    def account(self, player: str) -> Account | None: ...

    def accounts(self, players: Sequence[str]) -> dict[str, Account | None]:
        """:meth:`account` of each of ``players``, the people among them read at once."""
        ...

    def settings(self, player: str) -> Settings:
        """What a person chose for the page (the defaults until it chooses)."""
        ...

    def save_settings(self, player: str, settings: Settings) -> Settings:
        """Keep what a person chose for the page, for every later session of the account."""
        ...

    def open_room(self, code: str, room: RoomConfig, meta: dict[str, Any] | None = None) -> None:
        """Record a new room under its code, with what the lobby shows of it (``meta``: display
        name, owner, public or not), given back by :meth:`running_matches`."""
        ...

    def save_room(self, code: str, meta: dict[str, Any]) -> None:
        """Replace what the lobby shows of room ``code`` (its seats while it waits, that it closed)."""
        ...

    def waiting_rooms(self, rooms: Collection[str] | None = None) -> list[WaitingRoom]:
        """Every room no match was started in (of ``rooms`` only, when given), with its metadata as
        last saved."""
        ...

    def open_match(self, code: str, players: list[str], seed: int) -> tuple[str, Match]:
        """Start a match in room ``code``: its key (for :meth:`settle_hand`) and the match."""
        ...

    def save_match(self, key: str, match: Match) -> None:
        """Save people coming and going between hands."""
        ...

    def settle_hand(self, key: str, result: HandResult, match: Match) -> Settled:
        """Record a finished hand and move its coins in one transaction (``match`` after
        :meth:`Match.finish_hand`); idempotent: settling the same hand again moves nothing."""
        ...

    def write_log(self, entries: list[tuple[str, LogEntry]]) -> None:
        """Write many log entries ``(key, entry)`` of any matches in one transaction (a group
        commit); each entry is ``("begin", hand_no, seed, start)`` or ``("action", hand_no, seq,
        action)``; a deal again with the same seed and start, or an action again at its place, changes
nothing (a retried write); a gap (``action_gap``), another action at a logged place
(``action_conflict``), another seed or start (``hand_seed_conflict``, ``hand_start_conflict``)
or a settled hand (``hand_settled``) is refused. All or
        nothing: one refused entry raises and nothing is written."""
        ...

    def running_matches(self, rooms: Collection[str] | None = None) -> list[RunningMatch]:
        """Every running match (in ``rooms`` only, when given), with its hand in play (not settled)
        and that hand's log."""
        ...

    def end_match(self, key: str, status: str) -> None:
        """End a match that will not go on: ``"finished"`` or ``"abandoned"`` (it could not be resumed)."""
        ...

    def history(self, player: str, limit: int = 50) -> list[HandSummary]:
        """The player's finished hands, newest first."""
        ...

    # --- tournaments (xuezhan.server.tournaments; the store's :mod:`xuezhan.store.tournaments`) ---------
    def save_tournament(self, key: str, status: str, starts_at: datetime, state: dict[str, Any]) -> None:
        """Keep a tournament that is open or running (its entrants, rounds, tables)."""
        ...

    def tournament(self, key: str) -> HeldTournament | None: ...

    def tournaments(self) -> list[HeldTournament]:
        """Those open or running, then the latest that finished or were cancelled."""
        ...

    def start_tournament(self, key: str, min_players: int) -> tuple[str, list[str]]:
        """Take the entries (cancelled and refunded under ``min_players`` who paid): the status and who paid."""
        ...

    def cancel_tournament(self, key: str) -> None:
        """Cancel it and refund every entry taken."""
        ...

    def finish_tournament(self, key: str, places: dict[str, int]) -> dict[str, int]:
        """Its places, and the prizes paid by player."""
        ...

    def round_rooms(self, key: str, round_no: int) -> dict[int, str]:
        """The rooms opened for round ``round_no`` of tournament ``key``, by table number."""
        ...

    def round_points(self, codes: list[str]) -> tuple[bool, dict[str, int]]:
        """Whether the tables ``codes`` have played their matches out, and the points each player won there."""
        ...

    def match_tickets(self, player: str) -> int:
        """How many match tickets (比赛卡) the player holds."""
        ...

    def close(self) -> None: ...
