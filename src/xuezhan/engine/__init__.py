"""The hand engine: one hand of blood-battle mahjong as a state machine."""

from .actions import (
    ACTION_SPACE_SIZE,
    Action,
    ActionType,
    LedgerEntry,
    action_from_index,
    action_index,
)
from .deal import Deal, deal_from_layout, random_deal
from .game import Game, Phase, WinRecord
from .views import SeatView, events_for

__all__ = [
    "ACTION_SPACE_SIZE",
    "Action",
    "ActionType",
    "Deal",
    "Game",
    "LedgerEntry",
    "Phase",
    "SeatView",
    "WinRecord",
    "action_from_index",
    "action_index",
    "deal_from_layout",
    "events_for",
    "random_deal",
]
