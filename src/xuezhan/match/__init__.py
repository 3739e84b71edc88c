"""The match layer: rooms, matches of several hands, bystander bets and item cards.

It sits above the hand engine (docs/rules.md §9-13) and imports it; the engine
never imports this package. Coins are in :mod:`xuezhan.coins`, persistence in
:mod:`xuezhan.store`.
"""

from .bystanders import JIAO_MA, BystanderBet, jiao_ma_seat, mirror_for_bystanders
from .errors import MatchError
from .items import DOUBLE_CARD, ITEM_NAMES_ZH, ItemKind, ItemUse, flush_deal, seek_quarters
from .match import Hand, HandResult, Match, hand_record, hand_seed
from .room import MAX_COEFFICIENT, MAX_FEE, MAX_HANDS, MAX_PEOPLE, MIN_PEOPLE, RoomConfig
from .tiers import TIER_IDS, TIERS, Tier, best_tier, max_hand_loss, seat_minimum, tier
from .transfers import Transfer, net_points

__all__ = [
    "DOUBLE_CARD",
    "ITEM_NAMES_ZH",
    "JIAO_MA",
    "MAX_COEFFICIENT",
    "MAX_FEE",
    "MAX_HANDS",
    "MAX_PEOPLE",
    "MIN_PEOPLE",
    "TIERS",
    "TIER_IDS",
    "BystanderBet",
    "Hand",
    "HandResult",
    "ItemKind",
    "ItemUse",
    "Match",
    "MatchError",
    "RoomConfig",
    "Tier",
    "Transfer",
    "best_tier",
    "flush_deal",
    "hand_record",
    "hand_seed",
    "jiao_ma_seat",
    "max_hand_loss",
    "mirror_for_bystanders",
    "net_points",
    "seat_minimum",
    "seek_quarters",
    "tier",
]
