"""The ledger: coin balances, double-entry transfers, item cards, and the audit of the books.

Coins move only as transfers of two postings each, summing to zero; a balance is the
cached sum of its account's postings, changed in the transfer's transaction. Coins enter
only by ``grant`` transfers from ``#mint``; a hand's coins (made by
:meth:`xuezhan.store.Store.settle_hand`, through :meth:`Ledger.pay_hand`) go as
transfers of three reasons:

- ``fee``: each seated player → ``#house`` (what it could pay of the room's fee);
- ``stake``: each losing participant → ``#table`` (what it actually paid);
- ``winnings``: ``#table`` → each winning participant (its share of the stakes).

``#table`` is back at zero after every settlement; ``#house`` holds the fees. Item cards
bought in the shop (:meth:`Ledger.buy_items`) are paid by transfers of reason ``item`` from
the buyer to ``#house``, each with its ``item_purchases`` row: the house's shop income is
exactly what the cards sold cost. So the sum of all players' balances plus the house's is
exactly what the mint has issued, at all times (:meth:`Ledger.audit` checks this and more).

Every public method is one transaction. The methods that take a session ``s`` first are
steps of a transaction someone else opened (a new account's opening grant, a tournament's
tickets, a hand's settlement); balances are always locked in account-id order, so
concurrent transactions neither deadlock nor lose updates.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..coins import CoinSettlement
from ..ids import ErrorCode, Reason
from ..match import ItemKind, MatchError
from .base import HOUSE, MINT, TABLE, Database, StoreError, account_ids, aware
from .models import (
    Account,
    Balance,
    CoinTransfer,
    HandPoints,
    HandRow,
    ItemPurchase,
    ItemSpend,
    ItemStock,
    MatchRow,
    Posting,
    Room,
    Settlement,
)

# a hand's settlement's statements, made once (a statement kept keeps its cache key)
_LOCK_COINS = (select(Balance.account_id, Balance.coins).where(Balance.account_id.in_(bindparam("ids", expanding=True)))
               .order_by(Balance.account_id).with_for_update())
_ADD_TRANSFERS = insert(CoinTransfer).returning(CoinTransfer.id, sort_by_parameter_order=True)
_ADD_POSTINGS = insert(Posting)
_SET_COINS = update(Balance).where(Balance.account_id == bindparam("acc")).values(coins=bindparam("new_coins"))

FLOWS: Final[Mapping[str, tuple[str, str]]] = {
    "grant": ("mint", "player"),
    "fee": ("player", "house"),
    "stake": ("player", "table"),
    "winnings": ("table", "player"),
    "item": ("player", "house"),
    "entry": ("player", "house"),
    "refund": ("house", "player"),
    "prize": ("mint", "player"),
}
"""Where each reason's coins go, payer to payee (the audit checks every transfer of these): the
house takes fees, the shop's sales and tournament entries and gives back refunds; the mint issues grants and prizes."""


def bet_on(reason: str, took_part: int | None, seat: int | None) -> bool:
    """A hand's stake or winnings of a participant with no seat: a bystander's bet (叫马), which a
    wallet calls ``jiao_ma`` (the books keep it as ``stake`` and ``winnings``, as every participant's)."""
    return reason in ("stake", "winnings") and took_part is not None and seat is None


@dataclass(frozen=True, slots=True)
class WalletLine:
    """One movement of a player's coins: when, how many (negative: out), the transfer's reason
    (``grant``, ``fee``, ``stake``, ``winnings``; ``jiao_ma`` for a bystander's) and memo (a grant's
    kind, or the hand's key)."""

    at: datetime
    amount: int
    reason: str
    memo: str
    room: str | None = None
    hand_no: int | None = None


class Ledger:
    """Balances, transfers, item cards and the audit, on ``db``."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # --- coins ------------------------------------------------------------------------------------------------
    def grant(self, name: str, coins: int, *, key: str | None = None, memo: str = "grant") -> bool:
        """Give ``name`` new coins from the mint. With a ``key`` the grant happens once:
        returns ``False`` if a grant with that key was already made. ``memo`` says why
        (``"opening balance"``, ``"relief"``...); a wallet shows it in words."""
        try:
            with self._db.sessions.begin() as s:
                if key is not None and s.scalar(select(CoinTransfer.id).where(CoinTransfer.key == key)) is not None:
                    return False
                acc = account_ids(s, [name])[name]
                self.issue(s, acc, coins, key, memo)
                return True
        except IntegrityError:
            if key is not None:
                return False  # the same key, granted concurrently
            raise

    def grant_made(self, key: str) -> bool:
        """Whether a grant with ``key`` was made."""
        with self._db.sessions() as s:
            return s.scalar(select(CoinTransfer.id).where(CoinTransfer.key == key)) is not None

    def balance(self, name: str) -> int:
        return self.balances([name])[name]

    def balances(self, names: Iterable[str]) -> dict[str, int]:
        with self._db.sessions() as s:
            return self.balances_in(s, names)

    @staticmethod
    def balances_in(s: Session, names: Iterable[str]) -> dict[str, int]:
        """In ``s``: the coins of the accounts ``names``."""
        ids = account_ids(s, names)
        rows = s.execute(select(Balance.account_id, Balance.coins).where(Balance.account_id.in_(ids.values())))
        by_id = {a: c for a, c in rows}
        return {n: by_id[i] for n, i in ids.items()}

    def postings(self, name: str) -> list[tuple[int, str, int]]:
        """``name``'s postings, oldest first: (transfer id, reason, amount)."""
        with self._db.sessions() as s:
            acc = account_ids(s, [name])[name]
            rows = s.execute(
                select(Posting.transfer_id, CoinTransfer.reason, Posting.amount)
                .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
                .where(Posting.account_id == acc)
                .order_by(Posting.id)
            ).all()
            return [(t, r, a) for t, r, a in rows]

    def wallet(self, name: str, limit: int = 100) -> list[WalletLine]:
        """``name``'s coin movements, newest first: when, how much, why (the transfer's reason and
        memo) and, for a hand's coins, which hand (its settlement key). The stakes and winnings of a
        hand ``name`` bet on as a bystander (no seat) read ``jiao_ma`` (叫马, docs/rules.md §12)."""
        with self._db.sessions() as s:
            acc = account_ids(s, [name])[name]
            rows = s.execute(
                select(CoinTransfer.created_at, Posting.amount, CoinTransfer.reason, CoinTransfer.memo, Room.name,
                       HandRow.hand_no, HandPoints.account_id, HandPoints.seat)
                .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
                .outerjoin(Settlement, Settlement.id == CoinTransfer.settlement_id)
                .outerjoin(HandRow, HandRow.id == Settlement.hand_id)
                .outerjoin(HandPoints, (HandPoints.hand_id == HandRow.id) & (HandPoints.account_id == acc))
                .outerjoin(MatchRow, MatchRow.id == HandRow.match_id)
                .outerjoin(Room, Room.id == MatchRow.room_id)
                .where(Posting.account_id == acc)
                .order_by(Posting.id.desc())
                .limit(limit)
            ).all()
            return [WalletLine(aware(at), amount, str(Reason.JIAO_MA) if bet_on(reason, took_part, seat) else reason,
                               memo, room, hand_no)
                    for at, amount, reason, memo, room, hand_no, took_part, seat in rows]

    # --- steps of other transactions: coins -------------------------------------------------------------------
    def issue(self, s: Session, account_id: int, coins: int, key: str | None, memo: str) -> None:
        """In ``s``: a ``grant`` of ``coins`` from the mint to ``account_id`` (``bad_amount`` unless positive)."""
        if isinstance(coins, bool) or not isinstance(coins, int) or coins <= 0:
            raise StoreError(ErrorCode.BAD_AMOUNT, f"a grant must be a positive number of coins, not {coins!r}")
        transfer = CoinTransfer(key=key, reason="grant", memo=memo)
        s.add(transfer)
        s.flush()
        mint = self._db.system_ids[MINT]
        net = {mint: -coins, account_id: coins}
        self._post(s, transfer.id, net)
        self.move(s, self.lock_balances(s, net), net)

    @staticmethod
    def lock_balances(s: Session, ids: Iterable[int]) -> dict[int, Balance]:
        """In ``s``: the balances of the accounts ``ids``, locked in account-id order (no deadlocks)."""
        order = sorted(set(ids))
        rows = s.scalars(
            select(Balance).where(Balance.account_id.in_(order)).order_by(Balance.account_id).with_for_update()
        ).all()
        return {b.account_id: b for b in rows}

    def lock_hand_balances(self, s: Session, ids: Iterable[int], mint: bool = False) -> dict[int, int]:
        """In ``s``: the coins of a hand's participants (``ids``), the house's and the table's (and the
        mint's, to grant coins in the same transaction), their balances locked in account-id order (as
        :meth:`lock_balances`, without loading them as objects)."""
        system = [self._db.system_ids[k] for k in ((HOUSE, TABLE, MINT) if mint else (HOUSE, TABLE))]
        order = sorted({*ids, *system})
        rows = s.connection().execute(_LOCK_COINS, {"ids": order}).all()
        return {acc: coins for acc, coins in rows}

    def pay_hand(
        self, s: Session, settlement_id: int, key: str, people: Sequence[str], ids: Mapping[str, int],
        coins: CoinSettlement,
    ) -> dict[int, int]:
        """In ``s``: the transfers and postings of a hand's ``coins`` (``people`` in the order of
        ``coins``), made under the settlement ``settlement_id`` with memo ``key``. Returns the net
        change of each account, for :meth:`add_to_balances` (balances are not touched yet)."""
        house, table = self._db.system_ids[HOUSE], self._db.system_ids[TABLE]
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
        # the transfers in one statement, then their postings in one, on the connection (no unit of work):
        # a short transaction holds the lock briefly
        conn = s.connection()
        if moves:
            transfer_ids = conn.execute(
                _ADD_TRANSFERS,
                [{"key": None, "settlement_id": settlement_id, "reason": reason, "memo": key} for *_, reason in moves],
            ).scalars().all()
            postings: list[dict[str, int]] = []
            for transfer_id, (payer, payee, amount, _) in zip(transfer_ids, moves, strict=True):
                postings += [{"transfer_id": transfer_id, "account_id": payer, "amount": -amount},
                             {"transfer_id": transfer_id, "account_id": payee, "amount": amount}]
                net[payer] = net.get(payer, 0) - amount
                net[payee] = net.get(payee, 0) + amount
            conn.execute(_ADD_POSTINGS, postings)
        return net

    @staticmethod
    def add_to_balances(s: Session, locked: Mapping[int, int], net: Mapping[int, int]) -> dict[int, int]:
        """In ``s``: add ``net`` to the balances whose coins ``locked`` holds (locked by
        :meth:`lock_hand_balances`) in one statement; returns every balance of ``locked`` after."""
        after = dict(locked)
        changed = []
        for acc, value in net.items():
            if value:
                after[acc] += value
                changed.append({"acc": acc, "new_coins": after[acc]})
        if changed:
            s.connection().execute(_SET_COINS, changed)
        return after

    @staticmethod
    def move(s: Session, locked: Mapping[int, Balance], net: Mapping[int, int]) -> None:
        """In ``s``: add ``net`` to the ``locked`` balances."""
        for acc, value in net.items():
            if value:
                locked[acc].coins += value
        s.flush()

    @staticmethod
    def _post(s: Session, transfer_id: int, amounts: Mapping[int, int]) -> None:
        if len(amounts) != 2 or sum(amounts.values()) != 0:
            raise StoreError(ErrorCode.UNBALANCED_TRANSFER, "a transfer is two postings summing to zero")
        s.add_all([Posting(transfer_id=transfer_id, account_id=a, amount=v) for a, v in amounts.items()])

    # --- item cards -------------------------------------------------------------------------------------------
    def grant_items(self, name: str, kind: ItemKind, quantity: int = 1) -> None:
        if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity <= 0:
            raise StoreError(ErrorCode.BAD_AMOUNT, f"grant a positive number of item cards, not {quantity!r}")
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            stock = s.get(ItemStock, (acc, str(kind)), with_for_update=True)
            if stock is None:
                s.add(ItemStock(account_id=acc, kind=str(kind), quantity=quantity))
            else:
                stock.quantity += quantity

    def buy_items(self, name: str, kind: ItemKind, count: int, price: int) -> tuple[int, int]:
        """``name`` buys ``count`` cards of ``kind`` at ``price`` coins each, in one transaction: the
        coins to the house (a transfer of reason ``item``, memo ``<kind> x<count>``), the cards to
        its stock, the purchase recorded. Returns its balance and its cards of ``kind`` after.
        ``bad_amount`` for a count or a price that is not positive;
        ``insufficient_balance`` (nothing changes) when its coins do not cover the cost."""
        for what, value in (("count", count), ("price", price)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise StoreError(ErrorCode.BAD_AMOUNT, f"an item purchase needs a positive {what}, not {value!r}")
        cost = count * price
        with self._db.sessions.begin() as s:
            acc = account_ids(s, [name])[name]
            house = self._db.system_ids[HOUSE]
            locked = self.lock_balances(s, [acc, house])
            if locked[acc].coins < cost:
                raise StoreError(ErrorCode.INSUFFICIENT_BALANCE, f"{count} {kind} card(s) cost {cost} coins; "
                                                                 f"{name!r} has {locked[acc].coins}")
            transfer = CoinTransfer(reason="item", memo=f"{kind} x{count}")
            s.add(transfer)
            s.flush()
            net = {acc: -cost, house: cost}
            self._post(s, transfer.id, net)
            self.move(s, locked, net)
            s.add(ItemPurchase(transfer_id=transfer.id, account_id=acc, kind=str(kind), count=count, price=price))
            stock = s.get(ItemStock, (acc, str(kind)), with_for_update=True)
            if stock is None:
                stock = ItemStock(account_id=acc, kind=str(kind), quantity=count)
                s.add(stock)
            else:
                stock.quantity += count
            s.flush()
            return locked[acc].coins, stock.quantity

    def items(self, name: str) -> dict[ItemKind, int]:
        with self._db.sessions() as s:
            acc = account_ids(s, [name])[name]
            rows = s.execute(select(ItemStock.kind, ItemStock.quantity).where(ItemStock.account_id == acc)).all()
            return {ItemKind(k): q for k, q in rows if q}

    def spend_item(self, name: str, kind: ItemKind, *, key: str, match_id: int | None = None) -> bool:
        """Spend one item card of ``kind`` (before using it in a hand). Idempotent by ``key``:
        returns ``False`` if that key was spent already. Raises ``no_item`` without a card."""
        try:
            with self._db.sessions.begin() as s:
                acc = account_ids(s, [name])[name]
                return self.spend(s, acc, kind, key, match_id)
        except IntegrityError:
            return False

    @staticmethod
    def spend(s: Session, account_id: int, kind: ItemKind, key: str, match_id: int | None) -> bool:
        """In ``s``: spend one card of ``kind`` once by ``key`` (``False``: spent already);
        ``no_ticket`` or ``no_item`` (a :class:`~xuezhan.match.MatchError`) without one."""
        if s.scalar(select(ItemSpend.id).where(ItemSpend.key == key)) is not None:
            return False
        stock = s.get(ItemStock, (account_id, str(kind)), with_for_update=True)
        if stock is None or stock.quantity < 1:
            name = s.scalar(select(Account.name).where(Account.id == account_id))
            code = ErrorCode.NO_TICKET if kind is ItemKind.MATCH_TICKET else ErrorCode.NO_ITEM
            raise MatchError(code, f"{name!r} has no {kind} card")
        stock.quantity -= 1
        s.add(ItemSpend(key=key, account_id=account_id, kind=str(kind), match_id=match_id))
        s.flush()
        return True

    # --- checks -----------------------------------------------------------------------------------------------
    def audit(self) -> dict[str, int]:
        """Check the books; raises ``StoreError(ErrorCode.AUDIT_FAILED)`` on the first broken invariant.

        Every transfer is exactly two postings summing to zero; every balance is the sum of
        its postings; no player or house balance is below zero; the clearing account is at
        zero; all balances together sum to zero (the mint's is minus everything issued); the
        shop balances: every ``item`` transfer goes from a player to the house and is paid for
        exactly one purchase of its amount (count × price).
        Returns the totals: ``issued``, ``house``, ``players``, ``shop`` (the house's shop income).
        """
        with self._db.sessions() as s:
            bad = s.execute(
                select(Posting.transfer_id)
                .group_by(Posting.transfer_id)
                .having((func.count() != 2) | (func.sum(Posting.amount) != 0))
                .limit(1)
            ).first()
            if bad is not None:
                raise StoreError(ErrorCode.AUDIT_FAILED, f"transfer {bad[0]} is not two postings summing to zero")
            orphan = s.execute(
                select(CoinTransfer.id).outerjoin(Posting, Posting.transfer_id == CoinTransfer.id)
                .where(Posting.id.is_(None)).limit(1)
            ).first()
            if orphan is not None:
                raise StoreError(ErrorCode.AUDIT_FAILED, f"transfer {orphan[0]} has no postings")
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
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"account {acc}: balance {coins} but postings sum "
                                                             f"to {sums.get(acc, 0)}")
                if coins < 0 and not overdraft:
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"account {acc} is below zero")
                if kind == "clearing" and coins != 0:
                    raise StoreError(ErrorCode.AUDIT_FAILED, f"the clearing account holds {coins}")
                if kind == "player":
                    players += coins
                total += coins
            if total != 0:
                raise StoreError(ErrorCode.AUDIT_FAILED, f"balances sum to {total}, not zero")
            house = s.scalar(select(Balance.coins).where(Balance.account_id == self._db.system_ids[HOUSE])) or 0
            mint = s.scalar(select(Balance.coins).where(Balance.account_id == self._db.system_ids[MINT])) or 0
            self._audit_flows(s)
            shop = self._audit_shop(s)
            return {"issued": -mint, "house": house, "players": players, "shop": shop}

    def _audit_flows(self, s: Session) -> None:
        """In ``s`` (the audit): each transfer of a reason in :data:`FLOWS` goes from the kind of account
        it names to the one it names (a fee, an entry to the house; a prize, a grant from the mint ...)."""
        kinds = {self._db.system_ids[HOUSE]: "house", self._db.system_ids[MINT]: "mint",
                 self._db.system_ids[TABLE]: "table"}
        sides: dict[int, list[str]] = {}
        for transfer, reason, account, _amount in s.execute(
            select(Posting.transfer_id, CoinTransfer.reason, Posting.account_id, Posting.amount)
            .join(CoinTransfer, CoinTransfer.id == Posting.transfer_id)
            .where(CoinTransfer.reason.in_(list(FLOWS)))
            .order_by(Posting.transfer_id, Posting.amount)
        ).all():
            side = sides.setdefault(transfer, [reason])
            side.append(kinds.get(account, "player"))
            if len(side) == 3 and (side[1], side[2]) != FLOWS[side[0]]:
                raise StoreError(ErrorCode.AUDIT_FAILED, f"transfer {transfer} ({side[0]}) goes from {side[1]} to "
                                                         f"{side[2]}, not {' to '.join(FLOWS[side[0]])}")

    def _audit_shop(self, s: Session) -> int:
        """The shop's part of :meth:`audit`: its income, once every ``item`` transfer is found to be
        a player's payment to the house for exactly one purchase of that cost."""
        house = self._db.system_ids[HOUSE]
        rows = s.execute(
            select(CoinTransfer.id, Posting.account_id, Posting.amount, Account.kind)
            .join(Posting, Posting.transfer_id == CoinTransfer.id)
            .join(Account, Account.id == Posting.account_id)
            .where(CoinTransfer.reason == "item")
        ).all()
        paid: dict[int, int] = {}
        for transfer, acc, amount, kind in rows:
            if (amount > 0 and acc != house) or (amount < 0 and kind != "player"):
                raise StoreError(ErrorCode.AUDIT_FAILED, f"item transfer {transfer} is not a player's payment "
                                                         "to the house")
            if amount > 0:
                paid[transfer] = amount
        bought = {t: count * price for t, count, price in s.execute(
            select(ItemPurchase.transfer_id, ItemPurchase.count, ItemPurchase.price)).all()}
        if bought != paid:
            wrong = sorted(set(bought.items()) ^ set(paid.items()))[0][0]
            raise StoreError(ErrorCode.AUDIT_FAILED, f"item transfer {wrong} does not pay for its purchase")
        return sum(paid.values())
