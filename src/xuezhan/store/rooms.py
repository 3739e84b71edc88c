"""Rooms and matches: a room's settings and metadata, and each match's state between hands.

A match's row holds its state as it stands after its last settled hand (or as last saved
between hands, :meth:`Rooms.save_match`); it moves on only under its row's lock, in the
settlement of a hand (:meth:`xuezhan.store.Store.settle_hand`) or when the match ends
(:meth:`Rooms.end_match`). After a restart :meth:`Rooms.running_matches` gives every
running match back with its hand in play, from the hand logs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ..ids import ErrorCode
from ..match import ItemKind, Match, RoomConfig
from .base import Database, StoreError, account_ids, fence, json_object, lock_match
from .hands import Hands, OpenHand
from .ledger import Ledger
from .models import MatchRow, Room


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
"""How a running match may be ended by :meth:`Rooms.end_match`."""


class Rooms:
    """Rooms and matches, on ``db``; a tournament's tickets are spent through ``ledger``, the
    hands in play are read from ``hands``."""

    def __init__(self, db: Database, ledger: Ledger, hands: Hands) -> None:
        self._db = db
        self._ledger = ledger
        self._hands = hands

    # --- rooms ------------------------------------------------------------------------------------------------
    def create_room(self, name: str, config: RoomConfig, meta: Mapping[str, Any] | None = None) -> int:
        """A new room; ``meta`` is what a server shows of it (display name, owner, public or not)."""
        data = None if meta is None else json_object(meta, ErrorCode.BAD_ROOM_META, "a room's metadata")
        try:
            with self._db.sessions.begin() as s:
                room = Room(name=name, config=config.to_mapping())
                if data is not None:
                    room.meta = data
                s.add(room)
                s.flush()
                fenced = fence(s)
                if fenced is not None:  # made by a node of a cluster: its lease from the start
                    fenced.claim(s, room.id, name)
                return room.id
        except IntegrityError:
            raise StoreError(ErrorCode.ROOM_EXISTS, f"a room named {name!r} exists") from None

    def room(self, name: str) -> tuple[int, RoomConfig]:
        with self._db.sessions() as s:
            row = s.scalar(select(Room).where(Room.name == name))
            if row is None:
                raise StoreError(ErrorCode.UNKNOWN_ROOM, f"no room named {name!r}")
            return row.id, RoomConfig.from_mapping(row.config)

    def room_meta(self, name: str) -> dict[str, Any]:
        """The metadata the room was opened with (``{}`` without)."""
        with self._db.sessions() as s:
            row = s.scalar(select(Room).where(Room.name == name))
            if row is None:
                raise StoreError(ErrorCode.UNKNOWN_ROOM, f"no room named {name!r}")
            return dict(row.meta or {})

    def set_room_meta(self, name: str, meta: Mapping[str, Any]) -> None:
        """Replace the room's metadata (its seats while it waits for its match, that it closed)."""
        data = json_object(meta, ErrorCode.BAD_ROOM_META, "a room's metadata")
        with self._db.sessions.begin() as s:
            row = s.scalar(select(Room).where(Room.name == name))
            if row is None:
                raise StoreError(ErrorCode.UNKNOWN_ROOM, f"no room named {name!r}")
            fenced = fence(s)
            if fenced is not None:
                fenced.check_room(s, row.id)
            row.meta = data

    def rooms_without_matches(
        self, rooms: Collection[str] | None = None
    ) -> list[tuple[str, RoomConfig, dict[str, Any]]]:
        """Every room no match was ever started in (oldest first; of ``rooms`` only, when given): its
        name, config and metadata."""
        query = select(Room).where(~select(MatchRow.id).where(MatchRow.room_id == Room.id).exists())
        if rooms is not None:
            query = query.where(Room.name.in_(list(rooms)))
        with self._db.sessions() as s:
            rows = s.scalars(query.order_by(Room.id)).all()
            return [(row.name, RoomConfig.from_mapping(row.config), dict(row.meta or {})) for row in rows]

    # --- matches ----------------------------------------------------------------------------------------------
    def start_match(self, room: str, players: Sequence[str], *, seed: int) -> tuple[int, Match]:
        """A new match in ``room`` for ``players`` (4-8; accounts must exist). In a tournament room
        (``ticket_required``) every player spends a match ticket (比赛卡), all or none."""
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
            raise StoreError(ErrorCode.BAD_SEED, f"a match seed is an integer from 0 to 2**63 - 1, not {seed!r}")
        with self._db.sessions.begin() as s:
            room_row = s.scalar(select(Room).where(Room.name == room))
            if room_row is None:
                raise StoreError(ErrorCode.UNKNOWN_ROOM, f"no room named {room!r}")
            fenced = fence(s)
            if fenced is not None:
                fenced.check_room(s, room_row.id)
            config = RoomConfig.from_mapping(room_row.config)
            match = Match(config, players, seed=seed)
            ids = account_ids(s, players)
            row = MatchRow(room_id=room_row.id, seed=seed, status="running", hands_played=0,
                           state=match.state_json())
            s.add(row)
            s.flush()
            if config.ticket_required:
                for p in sorted(players, key=lambda p: ids[p]):  # rows locked in one order: no deadlocks
                    self._ledger.spend(s, ids[p], ItemKind.MATCH_TICKET, f"match/{row.id}/ticket/{p}", row.id)
            return row.id, match

    def load_match(self, match_id: int) -> Match:
        """The match as it stands between hands (after its last settled hand)."""
        with self._db.sessions() as s:
            row = s.get(MatchRow, match_id)
            if row is None:
                raise StoreError(ErrorCode.UNKNOWN_MATCH, f"no match {match_id}")
            room = s.get(Room, row.room_id)
            assert room is not None
            return Match.from_state(RoomConfig.from_mapping(room.config), row.state)

    def save_match(self, match_id: int, match: Match) -> None:
        """Save people coming and going between hands (:meth:`Match.join`, :meth:`Match.leave`)."""
        state = match.state_json()
        with self._db.sessions.begin() as s:
            row = lock_match(s, match_id)
            if state["hands_played"] != row.hands_played or state["seed"] != row.seed:
                raise StoreError(ErrorCode.STALE_MATCH, "the match has moved on since this copy was loaded")
            account_ids(s, match.people)
            row.state = state

    def running_matches(self, rooms: Collection[str] | None = None) -> list[ResumableMatch]:
        """Every running match (oldest first; in ``rooms`` only, when given), as saved between hands
        (the state given to :meth:`~xuezhan.store.Store.settle_hand` or :meth:`save_match` last),
        with its hand in play: the one logged and not settled, its actions in order (``None``
        between hands)."""
        query = select(MatchRow, Room).join(Room, Room.id == MatchRow.room_id).where(MatchRow.status == "running")
        if rooms is not None:
            query = query.where(Room.name.in_(list(rooms)))
        with self._db.sessions() as s:
            rows = s.execute(query.order_by(MatchRow.id)).all()
            hands = self._hands.open_hands(s, None if rooms is None else [row.id for row, _ in rows])
            out: list[ResumableMatch] = []
            for row, room in rows:
                config = RoomConfig.from_mapping(room.config)
                out.append(ResumableMatch(row.id, room.name, config, dict(room.meta or {}),
                                          Match.from_state(config, row.state), hands.get(row.id)))
            return out

    def end_match(self, match_id: int, status: str = "abandoned") -> None:
        """End a running match that will not go on: ``finished`` (ended on purpose) or ``abandoned``
        (it could not be resumed). Ending it again the same way does nothing; a match already
        ended otherwise raises ``match_over``. A hand in play stays logged, unsettled."""
        self._hands.forget(match_id)
        if status not in ENDED_STATUSES:
            raise StoreError(ErrorCode.BAD_STATUS, f"a match ends as {' or '.join(ENDED_STATUSES)}, not {status!r}")
        with self._db.sessions.begin() as s:
            row = lock_match(s, match_id)
            if row.status == status:
                return
            if row.status != "running":
                raise StoreError(ErrorCode.MATCH_OVER, f"match {match_id} is {row.status}")
            row.status = status
