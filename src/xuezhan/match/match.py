"""A match: a sequence of hands in a room (docs/rules.md §9-13).

:class:`Match` keeps who sits where, who waits as a bystander, the dealer of the next
hand, how many hands have been played and everyone's running points.
:meth:`Match.start_hand` deals a :class:`Hand` (the engine's :class:`Game` plus the
bystander bets and item cards of that hand); the caller plays it through
:meth:`Hand.apply` (or the engine directly) and hands it back to
:meth:`Match.finish_hand`, which returns the :class:`HandResult`: the point transfers
between people, ready to become coins (:meth:`HandResult.coins`).

Decisions (where docs/rules.md leaves room):

- The dealer (docs/rules.md §9): the first hand and every hand after a change among the four
  seated players (someone left, escaped, or took a vacated seat) are dealt by the
  dice; otherwise the engine's ``next_dealer`` under ``dealer_rule`` decides (``None``,
  dice, after an escape or with ``dealer_rule = "dice"``).
- People (docs/rules.md §12): the first four people sit in seats 0-3; the fifth to eighth wait
  as bystanders in the order they came and bet on every hand. A seat left empty (its
  player left between hands, or escaped) goes to the bystander who has waited
  longest; with nobody waiting the match waits for someone to :meth:`Match.join`.
- Escapes (docs/rules.md §10): the engine settles them; an escaper leaves the table when the
  hand ends. An escaped winner's result stands in the hand's transfers (credited when
  the hand is settled) and it gets no 退税 refund.
- Randomness: hand ``k`` is dealt from a generator seeded by ``(seed, k)``, exactly as
  ``Game.new(rules, rng=Random(hand_seed), dealer=...)`` would deal it; item cards use
  a second generator of the same hand, so the same seed and the same decisions give
  the same match.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..coins import CoinSettlement, settle_detailed
from ..engine.actions import Action, ActionType
from ..engine.deal import Deal, random_deal, throw_for_dealer, validate_deal
from ..engine.game import Game
from ..errors import IllegalActionError, XuezhanError
from ..ids import ErrorCode
from ..records import record_json
from ..tiles import Tile
from .bystanders import BystanderBet, jiao_ma_seat, mirror_for_bystanders
from .errors import MatchError
from .items import (
    IN_HAND,
    ItemKind,
    ItemUse,
    double_card_transfers,
    flush_deal,
    items_seen,
    random_swap_target,
    seek_quarters,
)
from .room import MAX_PEOPLE, MIN_PEOPLE, RoomConfig
from .transfers import Transfer, net_points


def hand_seed(seed: int, hand_no: int) -> int:
    """The seed of hand ``hand_no`` (1-based) of a match seeded with ``seed``: 63 bits of SHA-256
    (a signed 64-bit integer in any database)."""
    digest = hashlib.sha256(f"xuezhan-match:{seed}:{hand_no}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def hand_record(hand: Hand) -> dict[str, Any]:
    """The game record of a hand with its seed and its place in the match (``match.seed``, ``hand_no``),
    and its item cards (``items``, :meth:`ItemUse.to_json` without the player's name) when any were used."""
    record = {**record_json(hand.game), "seed": hand.seed,
              "match": {"seed": hand.match.seed, "hand_no": hand.hand_no}}
    if hand.items:
        record["items"] = [{k: v for k, v in u.to_json().items() if k != "player"} for u in hand.items]
    return record


@dataclass(frozen=True)
class HandResult:
    """One finished hand of a match: who sat where, the bets, items, and every transfer."""

    hand_no: int
    seed: int
    dealer: int
    seating: tuple[str, ...]
    bets: tuple[BystanderBet, ...]
    transfers: tuple[Transfer, ...]
    items: tuple[ItemUse, ...]
    escaped: tuple[str, ...]
    next_dealer: int | None
    record: dict[str, Any] = field(compare=False, hash=False)
    stand_in: tuple[int, ...] = ()
    """The actions of :attr:`record` (by their index in its ``actions``) that a person's stand-in took for
    that person's seat (托管, or a decision whose time ran out): the player did not make them."""

    @property
    def participants(self) -> tuple[str, ...]:
        """The four seated players in seat order, then the bystanders in their order."""
        return self.seating + tuple(b.player for b in self.bets)

    def points(self) -> dict[str, int]:
        """Net points of each participant (summing to zero)."""
        return net_points(self.transfers, self.participants)

    def fees(self, room: RoomConfig) -> list[int]:
        """The fee of each participant: ``room.fee`` for a seat, nothing for a bystander."""
        return [room.fee] * len(self.seating) + [0] * len(self.bets)

    def coins(self, room: RoomConfig, balances: Mapping[str, int]) -> CoinSettlement:
        """The hand in coins (docs/rules.md §11), participants in :attr:`participants` order."""
        people = self.participants
        points = self.points()
        return settle_detailed(
            [points[p] for p in people], [balances[p] for p in people], room.coefficient, self.fees(room)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "hand_no": self.hand_no,
            "seed": self.seed,
            "dealer": self.dealer,
            "seating": list(self.seating),
            "bets": [b.to_json() for b in self.bets],
            "transfers": [t.to_json() for t in self.transfers],
            "items": [i.to_json() for i in self.items],
            "escaped": list(self.escaped),
            "next_dealer": self.next_dealer,
            "points": self.points(),
            "record": self.record,
            "stand_in": list(self.stand_in),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HandResult:
        return cls(
            hand_no=int(data["hand_no"]),
            seed=int(data["seed"]),
            dealer=int(data["dealer"]),
            seating=tuple(str(p) for p in data["seating"]),
            bets=tuple(BystanderBet.from_json(b) for b in data["bets"]),
            transfers=tuple(Transfer.from_json(t) for t in data["transfers"]),
            items=tuple(ItemUse.from_json(i) for i in data["items"]),
            escaped=tuple(str(p) for p in data["escaped"]),
            next_dealer=None if data["next_dealer"] is None else int(data["next_dealer"]),
            record=dict(data["record"]),
            stand_in=tuple(int(i) for i in data.get("stand_in", ())),
        )


class Hand:
    """A hand being played in a match: the engine's :class:`Game` plus bets and item cards."""

    def __init__(
        self,
        match: Match,
        hand_no: int,
        seed: int,
        game: Game,
        seating: tuple[str, ...],
        bets: tuple[BystanderBet, ...],
        items: list[ItemUse],
        item_rng: random.Random,
    ) -> None:
        self.match = match
        self.hand_no = hand_no
        self.seed = seed
        self.game = game
        self.seating = seating
        self.bets = bets
        self.items = items
        self._item_rng = item_rng
        self.applier: Callable[[Action], None] = game.apply
        """Where this hand's actions go: the engine, or the match runtime's driver, which logs them."""
        self.on_item: Callable[[ItemUse], None] | None = None
        """Told of every item card used during the hand, after its effect (the match runtime logs it)."""
        self.stand_in: list[int] = []
        """The actions of the hand (by their index in ``game.actions``) that a person's stand-in took for
        that person's seat (:attr:`HandResult.stand_in`); the match runtime's driver notes them
        (:attr:`xuezhan.runtime.HandDriver.stand_in`)."""
        self.requests: dict[str, Any] = {}
        """The cards asked for at the deal, as :meth:`Match.start_hand` was given them (``double``, a
        list of players; ``flush``, each player's suit or ``None``); empty without any."""

    @property
    def dealer(self) -> int:
        return self.game.dealer

    @property
    def over(self) -> bool:
        return self.game.over

    def seat_of(self, player: str) -> int:
        try:
            return self.seating.index(player)
        except ValueError:
            raise MatchError(ErrorCode.NOT_SEATED, f"{player!r} holds no seat in this hand") from None

    # --- play -------------------------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply one engine action (raises :class:`~xuezhan.errors.IllegalActionError`)."""
        self.applier(action)

    def escape(self, seat: int) -> None:
        """The seat's player leaves (逃跑/强退, docs/rules.md §10); the engine settles it."""
        self.applier(Action(seat, ActionType.ESCAPE))

    # --- item cards during the hand ---------------------------------------------------------------------
    def _check_item(self, seat: int, kind: ItemKind) -> None:
        if not self.match.room.items_allowed:
            raise MatchError(ErrorCode.ITEMS_NOT_ALLOWED, "this room does not allow item cards")
        if not 0 <= seat <= 3:
            raise MatchError(ErrorCode.NOT_SEATED, f"no seat {seat}")
        if self.game.over:
            raise MatchError(ErrorCode.HAND_OVER, "the hand is over")
        if any(u.seat == seat and u.kind is kind for u in self.items):
            raise MatchError(ErrorCode.ITEM_USED, f"seat {seat} has already used a {kind} card this hand")

    def check_item(self, seat: int, kind: ItemKind, tile: Tile | None = None, wanted: Tile | None = None) -> None:
        """Raise what using a ``kind`` card now would raise (changing nothing): ``not_now`` for a
        card of the deal, :class:`MatchError` or the engine's :class:`IllegalActionError` codes.
        A card may be spent once this passes: the use cannot fail after it."""
        if kind not in IN_HAND:
            raise MatchError(ErrorCode.NOT_NOW, f"a {kind} card is used before the deal")
        self._check_item(seat, kind)
        if tile is None or not 0 <= tile < 27:
            raise MatchError(ErrorCode.BAD_ITEM, f"a {kind} card names a tile")
        if kind is ItemKind.SEEK:
            if not self.game.contending(seat):
                raise MatchError(ErrorCode.NOT_PLAYING, f"seat {seat} has won or left: a seek card is of no use")
            return
        if kind is ItemKind.SWAP:
            if wanted is None or not 0 <= wanted < 27:
                raise MatchError(ErrorCode.BAD_ITEM, "a swap card names the wanted tile")
            why = self.game.can_swap(seat, tile, wanted)
            if why is not None:
                raise IllegalActionError(why, f"seat {seat} cannot swap {tile} for {wanted} now")
            return
        why = self.game.can_swap(seat, tile, tile)
        if why not in (None, ErrorCode.SAME_TILE, ErrorCode.TILE_NOT_IN_WALL):
            raise IllegalActionError(why, f"seat {seat} cannot swap {tile} now")
        if not any(t != tile for t in self.game.live_wall):
            raise MatchError(ErrorCode.TILE_NOT_IN_WALL, "the live wall holds no other tile to swap for")

    def _used(self, use: ItemUse) -> ItemUse:
        self.items.append(use)
        if self.on_item is not None:
            self.on_item(use)
        return use

    def swap(self, seat: int, hand_tile: Tile, wanted: Tile) -> ItemUse:
        """换牌卡: on the seat's turn, ``hand_tile`` for a copy of ``wanted`` from the live wall."""
        self.check_item(seat, ItemKind.SWAP, hand_tile, wanted)
        at = len(self.game.actions)
        self.game.apply(Action(seat, ActionType.SWAP, tile=hand_tile, tiles=(wanted,)))
        return self._used(ItemUse(self.seating[seat], seat, ItemKind.SWAP, tile=hand_tile, wanted=wanted, at=at))

    def random_swap(self, seat: int, hand_tile: Tile) -> ItemUse:
        """随机换牌卡: on the seat's turn, ``hand_tile`` for a random tile of the live wall."""
        self.check_item(seat, ItemKind.RANDOM_SWAP, hand_tile)
        wanted = random_swap_target(self.game, hand_tile, self._item_rng)
        at = len(self.game.actions)
        self.game.apply(Action(seat, ActionType.SWAP, tile=hand_tile, tiles=(wanted,)))
        return self._used(ItemUse(self.seating[seat], seat, ItemKind.RANDOM_SWAP, tile=hand_tile, wanted=wanted,
                                  at=at))

    def seek(self, seat: int, tile: Tile) -> ItemUse:
        """查找卡: how many live copies of ``tile`` lie in each quarter of the live wall."""
        self.check_item(seat, ItemKind.SEEK, tile)
        return self._used(ItemUse(self.seating[seat], seat, ItemKind.SEEK, tile=tile,
                                  quarters=seek_quarters(self.game, tile), at=len(self.game.actions)))

    def use_item(self, seat: int, kind: ItemKind, tile: Tile | None = None, wanted: Tile | None = None) -> ItemUse:
        """Use a card of ``kind`` during the hand (:meth:`swap`, :meth:`random_swap`, :meth:`seek`)."""
        self.check_item(seat, kind, tile, wanted)
        assert tile is not None
        if kind is ItemKind.SWAP:
            assert wanted is not None
            return self.swap(seat, tile, wanted)
        if kind is ItemKind.RANDOM_SWAP:
            return self.random_swap(seat, tile)
        return self.seek(seat, tile)

    def redo(self, use: ItemUse) -> None:
        """Use again, from the hand's log, a card logged as ``use`` (a hand rebuilt after a restart):
        the same card with the same effect, at the same place among the actions, without telling
        :attr:`on_item` (it is in the log already). ``log_mismatch`` if it does not come out the same."""
        if use.at != len(self.game.actions) or use.kind not in IN_HAND or not 0 <= use.seat <= 3 \
                or use.player != self.seating[use.seat]:
            raise MatchError(ErrorCode.LOG_MISMATCH, f"the logged {use.kind} card does not fit the hand here")
        tell, self.on_item = self.on_item, None
        try:
            again = self.use_item(use.seat, use.kind, use.tile, use.wanted if use.kind is ItemKind.SWAP else None)
        except XuezhanError as exc:
            raise MatchError(ErrorCode.LOG_MISMATCH, f"the logged {use.kind} card: {exc.message}") from None
        finally:
            self.on_item = tell
        if again != use:
            raise MatchError(ErrorCode.LOG_MISMATCH, f"the logged {use.kind} card came out otherwise")

    def seen_items(self, seat: int | None) -> list[dict[str, Any]]:
        """The hand's item cards as ``seat`` may see them (:func:`~xuezhan.match.items.items_seen`)."""
        return items_seen(self.items, seat)


class Match:
    """A sequence of hands in a room; see the module docstring for the decisions taken."""

    def __init__(
        self,
        room: RoomConfig,
        players: Sequence[str],
        *,
        seed: int,
        hands: int | None = None,
        records: bool = True,
    ) -> None:
        """``hands`` overrides the room's number of hands (self-play runs as many as it is asked);
        ``records=False`` leaves the game record out of each :class:`HandResult` (self-play speed)."""
        players = list(players)
        if not MIN_PEOPLE <= len(players) <= MAX_PEOPLE:
            raise MatchError(ErrorCode.BAD_PLAYERS, f"a match needs 4 to 8 people, not {len(players)}")
        if len(set(players)) != len(players) or not all(isinstance(p, str) and p for p in players):
            raise MatchError(ErrorCode.BAD_PLAYERS, "players must be distinct non-empty names")
        self.room = room
        self.seed = seed
        self.hands = room.hands if hands is None else hands
        self.records = records
        self.seats: list[str | None] = list(players[:4])
        self.waiting: list[str] = players[4:]
        self.hands_played = 0
        self.next_dealer: int | None = None
        self.last_seating: tuple[str, ...] | None = None
        self.running: dict[str, int] = dict.fromkeys(players, 0)
        self.golden_fingers: set[str] = set()
        self.current: Hand | None = None

    # --- people -------------------------------------------------------------------------------------
    @property
    def people(self) -> list[str]:
        return [p for p in self.seats if p is not None] + self.waiting

    @property
    def bystanders(self) -> tuple[str, ...]:
        return tuple(self.waiting)

    @property
    def finished(self) -> bool:
        return self.hands_played >= self.hands

    def _between_hands(self) -> None:
        if self.current is not None:
            raise MatchError(ErrorCode.HAND_IN_PROGRESS, "people may come and go only between hands")

    def join(self, player: str) -> None:
        """``player`` comes to the table: takes an empty seat, or waits as a bystander."""
        self._between_hands()
        if not isinstance(player, str) or not player:
            raise MatchError(ErrorCode.BAD_PLAYERS, "a player needs a non-empty name")
        if player in self.people:
            raise MatchError(ErrorCode.ALREADY_AT_TABLE, f"{player!r} is already at the table")
        if len(self.people) >= MAX_PEOPLE:
            raise MatchError(ErrorCode.TABLE_FULL, "eight people are at the table already")
        self.running.setdefault(player, 0)
        if None in self.seats:
            self.seats[self.seats.index(None)] = player
        else:
            self.waiting.append(player)

    def leave(self, player: str) -> None:
        """``player`` leaves between hands; a vacated seat goes to the longest-waiting bystander."""
        self._between_hands()
        if player in self.waiting:
            self.waiting.remove(player)
        elif player in self.seats:
            seat = self.seats.index(player)
            self.seats[seat] = self.waiting.pop(0) if self.waiting else None
        else:
            raise MatchError(ErrorCode.NOT_AT_TABLE, f"{player!r} is not at the table")
        self.golden_fingers.discard(player)

    def use_golden_finger(self, player: str) -> None:
        """金手指: cosmetic, lasts while ``player`` stays at the table."""
        if not self.room.items_allowed:
            raise MatchError(ErrorCode.ITEMS_NOT_ALLOWED, "this room does not allow item cards")
        if player not in self.seats:
            raise MatchError(ErrorCode.NOT_SEATED, f"{player!r} holds no seat")
        if player in self.golden_fingers:
            raise MatchError(ErrorCode.ITEM_ALREADY_USED, f"{player!r} already shows a golden finger")
        self.golden_fingers.add(player)

    # --- hands -----------------------------------------------------------------------------------------
    def _seating(self) -> tuple[str, ...]:
        if None in self.seats:
            raise MatchError(ErrorCode.SEAT_EMPTY, "a seat is empty: the hand waits for a fourth player")
        return tuple(p for p in self.seats if p is not None)

    def next_hand_dealer(self) -> int:
        """The dealer of the next hand: by ``dealer_rule``, or thrown by the hand's dice
        (docs/rules.md §9)."""
        seating = self._seating()
        dealer = self.next_dealer if seating == self.last_seating else None
        if dealer is None:
            dealer = throw_for_dealer(random.Random(hand_seed(self.seed, self.hands_played + 1)))
        return dealer

    def start_hand(
        self,
        *,
        double: Iterable[str] = (),
        flush: Mapping[str, int | None] | None = None,
        deal: Deal | None = None,
        dealer: int | None = None,
        exchange_direction: int | None = None,
    ) -> Hand:
        """Deal the next hand. ``double``: players using a double card; ``flush``: players using a
        flush card, each with the suit it names (0 m, 1 p, 2 s) or ``None`` (its longest suit).
        ``deal``: a prepared deal instead of a shuffled one (duplicate tournaments, tests); its
        dealer (14 tiles) is ``dealer``, or :meth:`next_hand_dealer` when that is not given, and
        ``exchange_direction`` fixes a ``random`` 换三张 direction of a prepared deal."""
        self._between_hands()
        if self.finished:
            raise MatchError(ErrorCode.MATCH_OVER, f"the match's {self.hands} hands have been played")
        seating = self._seating()
        double = list(double)
        flush = dict(flush or {})
        if (double or flush) and not self.room.items_allowed:
            raise MatchError(ErrorCode.ITEMS_NOT_ALLOWED, "this room does not allow item cards")
        for player in (*double, *flush):
            if player not in seating:
                raise MatchError(ErrorCode.NOT_SEATED, f"{player!r} holds no seat: bystanders use no item cards")
        if len(set(double)) != len(double):
            raise MatchError(ErrorCode.ITEM_USED, "one double card per seat per hand")

        hand_no = self.hands_played + 1
        seed = hand_seed(self.seed, hand_no)
        rng = random.Random(seed)
        item_rng = random.Random(seed ^ 0x5EED_17E5)
        if dealer is not None and deal is None:
            raise MatchError(ErrorCode.BAD_DEAL, "a dealer is given only with a prepared deal")
        if dealer is None:
            dealer = self.next_dealer if seating == self.last_seating else None
        # as Game.new deals: dealer by dice when unknown, then the deal, then the exchange direction
        if dealer is None:
            dealer = throw_for_dealer(rng)
        rules = self.room.rules
        if deal is None:
            deal = random_deal(rng, dealer)
        else:
            validate_deal(deal, dealer)
        direction = rng.choice((1, 2, 3)) if rules.exchange_three == "random" else None
        if exchange_direction is not None and direction is not None:
            direction = exchange_direction
        items: list[ItemUse] = []
        for k in range(4):  # flush cards in play order from the dealer
            seat = (dealer + k) % 4
            player = seating[seat]
            if player in flush:
                deal, suit = flush_deal(deal, seat, flush[player], item_rng, reserved_tail=len(self.waiting))
                items.append(ItemUse(player, seat, ItemKind.FLUSH, suit=suit))
        for player in double:
            items.append(ItemUse(player, seating.index(player), ItemKind.DOUBLE))
        game = Game(rules, deal, dealer, exchange_direction=direction, bystanders=len(self.waiting))
        bets = tuple(
            BystanderBet(player, t, jiao_ma_seat(t, dealer))
            for player, t in zip(self.waiting, game.bystander_tiles, strict=True)
        )
        self.current = Hand(self, hand_no, seed, game, seating, bets, items, item_rng)
        if double:
            self.current.requests["double"] = double
        if flush:
            self.current.requests["flush"] = flush
        return self.current

    def finish_hand(self, hand: Hand) -> HandResult:
        """Close a finished hand: transfers, running points, the next dealer, escapers leave."""
        if hand is not self.current:
            raise MatchError(ErrorCode.NOT_CURRENT_HAND, "this is not the match's current hand")
        game = hand.game
        if not game.over:
            raise MatchError(ErrorCode.HAND_NOT_OVER, "the hand is still being played")
        seating = hand.seating
        transfers = [Transfer(seating[e.from_seat], seating[e.to_seat], e.points, e.reason) for e in game.ledger]
        transfers += double_card_transfers(transfers, [u.player for u in hand.items if u.kind is ItemKind.DOUBLE])
        transfers += mirror_for_bystanders(transfers, seating, hand.bets)
        escaped = tuple(seating[i] for i in range(4) if game.seat_state(i).escaped)
        result = HandResult(
            hand_no=hand.hand_no,
            seed=hand.seed,
            dealer=game.dealer,
            seating=seating,
            bets=hand.bets,
            transfers=tuple(transfers),
            items=tuple(hand.items),
            escaped=escaped,
            next_dealer=game.next_dealer(),
            record=hand_record(hand) if self.records else {},
            stand_in=tuple(hand.stand_in),
        )
        for player, pts in result.points().items():
            self.running[player] = self.running.get(player, 0) + pts
        self.hands_played += 1
        self.next_dealer = result.next_dealer
        self.last_seating = seating
        self.current = None
        for player in escaped:
            self.leave(player)
        return result

    # --- state ------------------------------------------------------------------------------------------
    def state_json(self) -> dict[str, Any]:
        """Everything needed to go on with the match between hands (the room is stored apart)."""
        if self.current is not None:
            raise MatchError(ErrorCode.HAND_IN_PROGRESS, "a match is saved between hands")
        return {
            "seed": self.seed,
            "seats": list(self.seats),
            "waiting": list(self.waiting),
            "hands_played": self.hands_played,
            "next_dealer": self.next_dealer,
            "last_seating": None if self.last_seating is None else list(self.last_seating),
            "running": dict(self.running),
            "golden_fingers": sorted(self.golden_fingers),
        }

    @classmethod
    def from_state(cls, room: RoomConfig, state: Mapping[str, Any]) -> Match:
        m = cls.__new__(cls)
        m.room = room
        m.seed = int(state["seed"])
        m.hands = room.hands
        m.records = True
        m.seats = [None if p is None else str(p) for p in state["seats"]]
        m.waiting = [str(p) for p in state["waiting"]]
        m.hands_played = int(state["hands_played"])
        m.next_dealer = None if state["next_dealer"] is None else int(state["next_dealer"])
        last = state["last_seating"]
        m.last_seating = None if last is None else tuple(str(p) for p in last)
        m.running = {str(k): int(v) for k, v in state["running"].items()}
        m.golden_fingers = {str(p) for p in state["golden_fingers"]}
        m.current = None
        return m
