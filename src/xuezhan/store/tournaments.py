"""Tournaments: each one held, its coins and tickets, and the points its tables played for.

A tournament's row keeps its status (``open``, ``running``, ``finished``, ``cancelled``) and its
state, one JSON value the server owns (entrants, rounds, tables, points, places); the store reads
four things in it: ``entrants``, ``entry`` (coins, or ``"match_ticket"``), ``prizes`` (coins by
place) and what it writes itself, ``paid``, ``refunded`` and ``places``.

Its coins move in three reasons, each a transfer keyed ``tournament/<id>/<reason>/<who>`` (so a
retry never pays twice):

- ``entry``: each entrant → ``#house``, taken at the start (:meth:`Tournaments.start`); an entry
  of a match ticket (比赛卡) spends the card instead (:meth:`Ledger.spend`, the same key);
- ``refund``: ``#house`` → the entrant, the same amount, when it is cancelled (the card given
  back for a ticket);
- ``prize``: ``#mint`` → the entrant at each place that has a prize, when it finishes: prizes are
  coins the server issues, as its grants are.

:meth:`Tournaments.audit` checks that these balance: every entry of its tournament's amount,
refunds only of a cancelled one and each of an entry, prizes only of a finished one, to its
entrants at their places, of its prizes' amounts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..ids import ErrorCode
from ..match import ItemKind, MatchError
from .base import HOUSE, MINT, Database, StoreError, account_ids, aware, fence, json_object
from .ledger import Ledger
from .models import Account, CoinTransfer, HandPoints, HandRow, ItemSpend, ItemStock, MatchRow, Posting, Room
from .models import TournamentRow as Row

MATCH_TICKET: Final = "match_ticket"
STORE_KEYS: Final = ("paid", "refunded", "places", "prizes_paid")
"""What the store writes in a tournament's state itself: a save by the server keeps them."""
_KEY: Final = re.compile(r"tournament/(.+)/(entry|refund|prize)/(.+)")


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as kept: its id, status, start and state."""

    key: str
    status: str
    starts_at: datetime
    state: dict[str, Any]


def coin_key(key: str, reason: str, who: str) -> str:
    """The key of a tournament's transfer (and of a ticket's spending, ``entry``)."""
    return f"tournament/{key}/{reason}/{who}"


LEAD: Final = "tournaments"
"""The leader lease under which one node of a cluster runs the tournaments (:mod:`.leaders`)."""


def _led(s: Session) -> None:
    """On a node of a cluster: it leads the tournaments (else ``lease_lost``, nothing written)."""
    fenced = fence(s)
    if fenced is not None:
        fenced.check_lead(s, LEAD)


class Tournaments:
    """Tournaments held, on ``db``; their coins and tickets through ``ledger``."""

    def __init__(self, db: Database, ledger: Ledger) -> None:
        self._db = db
        self._ledger = ledger

    # --- rows ---------------------------------------------------------------------------------------------
    def save(self, key: str, status: str, starts_at: datetime, state: Mapping[str, Any]) -> None:
        """Keep a tournament's state (a new one, or one still open or running); a tournament that
        finished or was cancelled is not changed any more (``match_over``)."""
        data = json_object(state, ErrorCode.BAD_ROOM_META, "a tournament's state")
        with self._db.sessions.begin() as s:
            _led(s)
            row = s.scalar(select(Row).where(Row.key == key).with_for_update())
            if row is None:
                s.add(Row(key=key, status=status, starts_at=starts_at, state=data))
                return
            if row.status in ("finished", "cancelled"):
                raise StoreError(ErrorCode.MATCH_OVER, f"tournament {key!r} is {row.status}")
            row.status = status
            row.state = {**data, **{k: row.state[k] for k in STORE_KEYS if k in row.state}}

    def get(self, key: str) -> Tournament | None:
        with self._db.sessions() as s:
            row = s.scalar(select(Row).where(Row.key == key))
            return None if row is None else Tournament(row.key, row.status, aware(row.starts_at), dict(row.state))

    def active(self) -> list[Tournament]:
        """Every tournament open or running (oldest start first): what a restarted server carries on."""
        with self._db.sessions() as s:
            rows = s.scalars(select(Row).where(Row.status.in_(("open", "running"))).order_by(Row.starts_at, Row.id))
            return [Tournament(r.key, r.status, aware(r.starts_at), dict(r.state)) for r in rows]

    def recent(self, limit: int = 20) -> list[Tournament]:
        """The latest tournaments that finished or were cancelled, newest start first."""
        with self._db.sessions() as s:
            rows = s.scalars(select(Row).where(Row.status.in_(("finished", "cancelled")))
                             .order_by(Row.starts_at.desc(), Row.id.desc()).limit(limit))
            return [Tournament(r.key, r.status, aware(r.starts_at), dict(r.state)) for r in rows]

    def _locked(self, s: Session, key: str) -> Row:
        row = s.scalar(select(Row).where(Row.key == key).with_for_update())
        if row is None:
            raise StoreError(ErrorCode.UNKNOWN_TOURNAMENT, f"no tournament {key!r}")
        return row

    # --- coins --------------------------------------------------------------------------------------------
    def start(self, key: str, min_players: int) -> tuple[str, list[str]]:
        """Take each entrant's entry (those who cannot pay it any more are left out), then: fewer than
        ``min_players`` paid, cancel it and refund them; else it is running. One transaction; again
        after it has started, nothing moves. Returns the status and who paid, in the entrants' order."""
        with self._db.sessions.begin() as s:
            _led(s)
            row = self._locked(s, key)
            state = dict(row.state)
            if row.status != "open":
                return row.status, list(state.get("paid", []))
            entrants = [str(p) for p in state.get("entrants", [])]
            entry = state.get("entry", 0)
            ids = account_ids(s, entrants)
            paid = [p for p in sorted(entrants, key=lambda p: ids[p]) if self._take_entry(s, key, p, ids[p], entry)]
            paid = [p for p in entrants if p in set(paid)]
            state["paid"] = paid
            row.state = state
            row.status = "running"
            if len(paid) < min_players:
                self._refund(s, row, ids)
            return row.status, paid

    def cancel(self, key: str) -> None:
        """Cancel a tournament that is open or running and refund every entry taken (once)."""
        with self._db.sessions.begin() as s:
            _led(s)
            row = self._locked(s, key)
            if row.status in ("finished", "cancelled"):
                return
            self._refund(s, row, account_ids(s, row.state.get("paid", [])))

    def finish(self, key: str, places: Mapping[str, int]) -> dict[str, int]:
        """The tournament is over: each entrant's place (1..N), and the prize of each place that has
        one paid to whoever holds it; the prizes paid by entrant. Once: again, nothing moves."""
        with self._db.sessions.begin() as s:
            _led(s)
            row = self._locked(s, key)
            state = dict(row.state)
            if row.status != "running":
                return {str(p): int(c) for p, c in state.get("prizes_paid", {}).items()}
            entrants = set(state.get("paid", []))
            if set(places) != entrants or sorted(places.values()) != list(range(1, len(entrants) + 1)):
                raise StoreError(ErrorCode.BAD_AMOUNT, "places are 1..N, one for each entrant who paid")
            prizes = [int(c) for c in state.get("prizes", [])]
            ids = account_ids(s, places)
            mint = self._db.system_ids[MINT]
            won: dict[str, int] = {}
            for player, place in sorted(places.items(), key=lambda x: x[1]):
                coins = prizes[place - 1] if place <= len(prizes) else 0
                if coins > 0:
                    self._transfer(s, mint, ids[player], coins, "prize", coin_key(key, "prize", str(place)), key)
                    won[player] = coins
            state["places"] = dict(places)
            state["prizes_paid"] = won
            row.state = state
            row.status = "finished"
            return won

    def _take_entry(self, s: Session, key: str, player: str, account: int, entry: object) -> bool:
        """In ``s``: ``player``'s entry; ``False`` when they cannot pay it (no coins, no ticket)."""
        if entry == MATCH_TICKET:
            return spend_ticket(self._ledger, s, account, coin_key(key, "entry", player))
        coins = int(entry) if isinstance(entry, int) else 0
        if coins <= 0:
            return True
        balance = self._ledger.lock_balances(s, [account])[account]
        if balance.coins < coins:
            return False
        self._transfer(s, account, self._db.system_ids[HOUSE], coins, "entry", coin_key(key, "entry", player), key)
        return True

    def _refund(self, s: Session, row: Row, ids: Mapping[str, int]) -> None:
        """In ``s``: every entry of ``row`` given back, and it is cancelled."""
        state = dict(row.state)
        entry = state.get("entry", 0)
        house = self._db.system_ids[HOUSE]
        refunded = []
        for player in state.get("paid", []):
            if entry == MATCH_TICKET:
                return_ticket(s, ids[player])
            elif isinstance(entry, int) and entry > 0:
                self._transfer(s, house, ids[player], entry, "refund", coin_key(row.key, "refund", player), row.key)
            refunded.append(player)
        state["refunded"] = refunded
        row.state = state
        row.status = "cancelled"

    def _transfer(self, s: Session, payer: int, payee: int, coins: int, reason: str, key: str, memo: str) -> None:
        transfer = CoinTransfer(key=key, reason=reason, memo=memo)
        s.add(transfer)
        s.flush()
        s.add_all([Posting(transfer_id=transfer.id, account_id=payer, amount=-coins),
                   Posting(transfer_id=transfer.id, account_id=payee, amount=coins)])
        net = {payer: -coins, payee: coins}
        self._ledger.move(s, self._ledger.lock_balances(s, net), net)

    # --- the tables' points -----------------------------------------------------------------------------
    def round_rooms(self, key: str, round_no: int) -> dict[int, str]:
        """The rooms opened for round ``round_no`` of tournament ``key``, by table number (as their
        metadata says: ``tournament``, ``round``, ``table``): those a server opened and was stopped
        before it wrote them into the tournament's state. Of two rooms of one number, the first opened."""
        with self._db.sessions() as s:
            rows = s.execute(select(Room.name, Room.meta["table"].as_integer())
                             .where(Room.meta["tournament"].as_string() == key,
                                    Room.meta["round"].as_integer() == round_no)
                             .order_by(Room.id.desc())).all()
        return {number: name for name, number in rows if isinstance(number, int)}

    def round_points(self, codes: Sequence[str]) -> tuple[bool, dict[str, int]]:
        """Whether every table (room) of ``codes`` has played its match out (none running, each with
        one), and the points each player won there in the hands settled so far."""
        with self._db.sessions() as s:
            matches = s.execute(select(Room.name, MatchRow.status).join(MatchRow, MatchRow.room_id == Room.id)
                                .where(Room.name.in_(list(codes)))).all()
            done = {name for name, _ in matches} >= set(codes) and all(st != "running" for _, st in matches)
            rows = s.execute(
                select(Account.name, func.sum(HandPoints.points))
                .join(HandPoints, HandPoints.account_id == Account.id)
                .join(HandRow, HandRow.id == HandPoints.hand_id)
                .join(MatchRow, MatchRow.id == HandRow.match_id)
                .join(Room, Room.id == MatchRow.room_id)
                .where(Room.name.in_(list(codes)))
                .group_by(Account.name)
            ).all()
            return done, {name: int(total) for name, total in rows}

    # --- the audit ---------------------------------------------------------------------------------------
    def audit(self) -> dict[str, int]:
        """Check that tournaments' coins balance (see the module); raises ``audit_failed``. Returns
        the totals of ``entries``, ``refunds`` and ``prizes``."""
        totals = {"entries": 0, "refunds": 0, "prizes": 0}
        with self._db.sessions() as s:
            rows = {r.key: r for r in s.scalars(select(Row))}
            names = dict(s.execute(select(Account.id, Account.name)).all())
            moves = s.execute(
                select(CoinTransfer.id, CoinTransfer.key, CoinTransfer.reason, Posting.account_id, Posting.amount)
                .join(Posting, Posting.transfer_id == CoinTransfer.id)
                .where(CoinTransfer.reason.in_(("entry", "refund", "prize")), Posting.amount > 0)
            ).all()
            payers = dict(s.execute(
                select(Posting.transfer_id, Posting.account_id)
                .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
                .where(CoinTransfer.reason.in_(("entry", "refund", "prize")), Posting.amount < 0)).all())
            entries: dict[tuple[str, str], int] = {}
            refunds: dict[tuple[str, str], int] = {}
            prizes: dict[tuple[str, str], int] = {}
            for transfer, key, reason, payee, amount in moves:
                found = _KEY.fullmatch(key or "")
                if found is None or found.group(2) != reason or found.group(1) not in rows:
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"transfer {transfer} ({reason}) names no tournament")
                tkey, _, who = found.groups()
                row = rows[tkey]
                payer = payers.get(transfer)
                if reason == "entry":
                    if names.get(payer or -1) != who or payee != self._db.system_ids[HOUSE] \
                            or amount != row.state.get("entry") or who not in row.state.get("paid", []):
                        raise StoreError(ErrorCode.AUDIT_FAILED, f"entry {transfer} does not fit tournament {tkey!r}")
                    entries[(tkey, who)] = amount
                    totals["entries"] += amount
                elif reason == "refund":
                    if row.status != "cancelled" or names.get(payee) != who or payer != self._db.system_ids[HOUSE]:
                        raise StoreError(ErrorCode.AUDIT_FAILED, f"refund {transfer} does not fit tournament {tkey!r}")
                    refunds[(tkey, who)] = amount
                    totals["refunds"] += amount
                else:
                    place = int(who) if who.isdigit() else 0
                    listed = row.state.get("prizes", [])
                    player = names.get(payee, "")
                    if row.status != "finished" or payer != self._db.system_ids[MINT] or not 1 <= place <= len(listed) \
                            or amount != listed[place - 1] or row.state.get("places", {}).get(player) != place:
                        raise StoreError(ErrorCode.AUDIT_FAILED, f"prize {transfer} does not fit tournament {tkey!r}")
                    prizes[(tkey, player)] = amount
                    totals["prizes"] += amount
            for pair, amount in refunds.items():
                if entries.get(pair) != amount:
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"a refund of tournament {pair[0]!r} to {pair[1]!r} "
                                                             "is not of an entry")
            tickets = {key for (key,) in s.execute(select(ItemSpend.key).where(ItemSpend.key.like("tournament/%")))}
            for tkey, row in rows.items():
                entry = row.state.get("entry")
                paid = row.state.get("paid", [])
                coins = isinstance(entry, int) and entry > 0
                if row.status != "open" and coins and {p for (k, p) in entries if k == tkey} != set(paid):
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r}: its entries are not its paid")
                if entry == MATCH_TICKET and not {coin_key(tkey, "entry", p) for p in paid} <= tickets:
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r}: a ticket entry was not spent")
                if row.status == "cancelled" and set(row.state.get("refunded", [])) != set(paid):
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r} is cancelled, not all refunded")
                if row.status == "cancelled" and coins and {p for (k, p) in refunds if k == tkey} != set(paid):
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r}: its refunds are not its entries")
                if row.status != "finished" and any(k == tkey for (k, _) in prizes):
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r} paid prizes and did not finish")
                if row.status == "finished" and not set(row.state.get("places", {})) <= set(paid):
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"tournament {tkey!r} placed someone who did not enter")
        return totals


# --- the match ticket: the one place a tournament touches the inventory of item cards -----------------------
def spend_ticket(ledger: Ledger, s: Session, account: int, key: str) -> bool:
    """In ``s``: spend one match ticket (比赛卡) of ``account`` once by ``key``; ``False`` without one."""
    try:
        ledger.spend(s, account, ItemKind.MATCH_TICKET, key, None)
    except MatchError:
        return False
    return True


def return_ticket(s: Session, account: int) -> None:
    """In ``s``: a match ticket given back to ``account`` (a refund)."""
    stock = s.get(ItemStock, (account, str(ItemKind.MATCH_TICKET)), with_for_update=True)
    if stock is None:
        s.add(ItemStock(account_id=account, kind=str(ItemKind.MATCH_TICKET), quantity=1))
    else:
        stock.quantity += 1
    s.flush()


__all__ = ["Tournament", "Tournaments", "coin_key", "return_ticket", "spend_ticket"]
