"""A league: the pairs' paired confidence intervals, the bots' ratings and statistics."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import DEFAULT_MAX_LINE, DEFAULT_TIMEOUT, check_max_line, close_bot, make_bot
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..rules import Rules
from ..scale import Shard, check_workers, map_shards, shards
from .duplicate import DEALS_PER_SHARD, BotTally, DuplicateShard, ShardResult, pairs_of
from .stats import PairedCI, bradley_terry, paired_ci


@dataclass(frozen=True)
class PairResult:
    a: str
    b: str
    deals: int
    ci: PairedCI
    a_deals_won: float
    """Deals A came out ahead of B (a tie counts half)."""

    @property
    def hands(self) -> int:
        return 2 * self.deals

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "deals": self.deals, "hands": self.hands,
                "mean_diff": self.ci.mean, "ci95": [self.ci.low, self.ci.high],
                "a_deals_won": self.a_deals_won}


@dataclass
class LeagueResult:
    bots: tuple[str, ...]
    deals: int
    seed: int
    rules: Rules
    pairs: list[PairResult]
    tallies: dict[str, BotTally]
    ratings: dict[str, float]
    seconds: float = 0.0
    diffs: dict[tuple[str, str], list[float]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, Any]:
        bots = {}
        for name in self.bots:
            bots[name] = {"rating": round(self.ratings[name], 1), **self.tallies[name].to_json()}
        return {
            "pairs": [p.to_json() for p in self.pairs],
            "bots": bots,
            "bot_faults": {name: self.tallies[name].faults for name in self.bots},
            "deals": self.deals,
            "seed": self.seed,
            "rules": self.rules.to_mapping(),
        }


def check_bots(bots: Sequence[str]) -> tuple[str, ...]:
    """Two or more distinct bot names that :func:`~xuezhan.bots.make_bot` knows (bad input otherwise)."""
    names = tuple(bots)
    if len(names) < 2:
        raise XuezhanError(ErrorCode.BAD_BOTS, "a league needs at least two bots, comma-separated")
    if len(set(names)) != len(names):
        raise XuezhanError(ErrorCode.BAD_BOTS, "each bot plays once in a league: the names must differ")
    for name in names:
        close_bot(make_bot(name))  # unknown_bot before any work starts
    return names


def summarize(bots: tuple[str, ...], deals: int, seed: int, rules: Rules, parts: Sequence[ShardResult]) -> LeagueResult:
    """Merge the shards' results in shard order: the pairs' intervals, the ratings, the bots' totals."""
    diffs: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs_of(bots)}
    tallies = {name: BotTally() for name in bots}
    for part in parts:
        for pair, ds in part.diffs.items():
            diffs[pair].extend(ds)
        for name, tally in part.tallies.items():
            tallies[name].merge(tally)
    pairs = []
    scores: dict[tuple[str, str], tuple[float, int]] = {}
    for (a, b), ds in diffs.items():
        won = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in ds)
        scores[(a, b)] = (won, len(ds))
        pairs.append(PairResult(a, b, len(ds), paired_ci(ds), won))
    return LeagueResult(bots, deals, seed, rules, pairs, tallies, bradley_terry(bots, scores), diffs=diffs)


def run_league(
    bots: Sequence[str],
    deals: int,
    *,
    seed: int = 0,
    rules: Rules | None = None,
    workers: int = 1,
    backend: str = "local",
    on_shard: Callable[[Shard, ShardResult], None] | None = None,
    bot_timeout: float = DEFAULT_TIMEOUT,
    bot_max_line: int = DEFAULT_MAX_LINE,
) -> LeagueResult:
    """Every pair of ``bots`` plays ``deals`` deals, each as ABAB and BABA (see
    :mod:`xuezhan.league.duplicate`), spread over ``workers`` by :mod:`xuezhan.scale`: the same
    result for the same seed whatever the workers and the backend."""
    names = check_bots(bots)
    if not isinstance(deals, int) or deals < 1:
        raise XuezhanError(ErrorCode.BAD_DEALS, "--deals must be at least 1")
    check_workers(workers, backend)
    if not bot_timeout > 0:
        raise XuezhanError(ErrorCode.BAD_INPUT, "--bot-timeout must be positive")
    check_max_line(bot_max_line)
    rules = rules or Rules.preset("qq")
    start = time.perf_counter()
    parts = map_shards(DuplicateShard(names, seed, rules, bot_timeout, bot_max_line), shards(deals, DEALS_PER_SHARD),
                       workers=workers, backend=backend, on_done=on_shard)
    result = summarize(names, deals, seed, rules, parts)
    result.seconds = time.perf_counter() - start
    return result


__all__ = ["LeagueResult", "PairResult", "check_bots", "run_league", "summarize"]
