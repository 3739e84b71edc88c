"""The league: duplicate, seat-rotated matches between bots, with paired confidence intervals,
ratings and per-bot statistics (``xuezhan league``)."""

from __future__ import annotations

from .duplicate import BotTally, DuplicateShard, pairs_of, play_deal
from .league import LeagueResult, PairResult, run_league, summarize
from .stats import PairedCI, bradley_terry, paired_ci

__all__ = [
           "BotTally",
           "DuplicateShard",
           "LeagueResult",
           "PairResult",
           "PairedCI",
           "bradley_terry",
           "paired_ci",
           "pairs_of",
           "play_deal",
           "run_league",
           "summarize",
]
