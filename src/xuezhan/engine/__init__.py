"""The hand engine: one hand of blood-battle mahjong as a state machine."""

from .actions import (
    ACTION_SPACE_SIZE,
    Action,
    ActionType,
    LedgerEntry,
    action_from_index,
    action_index,
)
from .deal import Deal, deal_from_layout, random_deal, validate_deal
from .events import Event, EventKind
from .game import ClaimWindow, Game, HandState, Phase, SeatState, WinRecord
from .views import SeatView, events_for, sample_world, seat_view_json, table_views, visible_events

__all__ = [
    "ACTION_SPACE_SIZE",
    "Action",
    "ActionType",
    "ClaimWindow",
    "Deal",
    "Event",
    "EventKind",
    "Game",
    "HandState",
    "LedgerEntry",
    "Phase",
    "SeatState",
    "SeatView",
    "WinRecord",
    "action_from_index",
    "action_index",
    "deal_from_layout",
    "events_for",
    "random_deal",
    "sample_world",
    "seat_view_json",
    "table_views",
    "validate_deal",
    "visible_events",
]
