"""Duplicate, seat-rotated matches: every deal played by each pair of bots as ABAB and BABA.

Deal ``d`` (0-based) of a league seeded ``seed`` is hand ``d + 1`` of the match seeded
``seed``: dealt from ``hand_seed(seed, d + 1)`` (wall, dice, 换三张 direction), its dealer
thrown by its own dice. Both seat patterns of a pair get that same deal, through the match
runtime like every other table, so the luck of the tiles cancels in the pair's difference.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots import DEFAULT_MAX_LINE, DEFAULT_TIMEOUT, Bot, bot_faults, close_bot, make_bot
from ..engine.game import Game
from ..ids import Reason
from ..match import Hand, Match, RoomConfig
from ..rules import Rules
from ..runtime import MatchRuntime, Seat
from ..scale import Shard

PLAYERS = ("east", "south", "west", "north")
DEALS_PER_SHARD = 10
"""Deals per shard: the shards, hence the results, never depend on the workers."""
_REASON_ORDER = {str(r): i for i, r in enumerate(Reason)}


def reason_key(reason: str) -> int:
    """The order of ``points_by_reason``: the engine's reasons as :class:`~xuezhan.ids.Reason` lists
    them (an unknown one last)."""
    return _REASON_ORDER.get(reason, len(_REASON_ORDER))

QING_PATTERNS = frozenset({"qing_yi_se", "qing_dui", "qing_qi_dui", "qing_yao_jiu", "qing_long_qi_dui"})
"""The 清一色 family (one suit only), for the 清一色 share of a bot's wins."""


@dataclass
class BotTally:
    """One bot's totals over the seat-hands it played."""

    hands: int = 0
    points: int = 0
    won: int = 0
    """Seat-hands with at least one win."""
    wins: int = 0
    fan: int = 0
    qing: int = 0
    """Wins of the 清一色 family."""
    dealt_in: int = 0
    """Seat-hands in which it discarded (or had robbed) at least one winning tile."""
    kongs: int = 0
    faults: int = 0
    received: dict[str, int] = field(default_factory=dict)
    """Points received, by the reason of the ledger entry (:class:`~xuezhan.ids.Reason`)."""
    paid: dict[str, int] = field(default_factory=dict)
    """Points paid, by reason."""

    def merge(self, other: BotTally) -> None:
        for name in self.__dataclass_fields__:
            mine = getattr(self, name)
            if isinstance(mine, dict):
                for reason, points in getattr(other, name).items():
                    mine[reason] = mine.get(reason, 0) + points
            else:
                setattr(self, name, mine + getattr(other, name))

    def add(self, game: Game, seat: int) -> None:
        self.hands += 1
        self.points += game.deltas()[seat]
        mine = [w for w in game.winners if w.seat == seat]
        self.won += 1 if mine else 0
        self.wins += len(mine)
        self.fan += sum(w.score.fan for w in mine)
        self.qing += sum(1 for w in mine if w.score.base in QING_PATTERNS)
        self.dealt_in += 1 if any(w.from_seat == seat for w in game.winners) else 0
        self.kongs += sum(1 for k in game.kongs if k.seat == seat)
        for e in game.ledger:
            if e.to_seat == seat:
                self.received[str(e.reason)] = self.received.get(str(e.reason), 0) + e.points
            if e.from_seat == seat:
                self.paid[str(e.reason)] = self.paid.get(str(e.reason), 0) + e.points

    def to_json(self) -> dict[str, Any]:
        n = max(self.hands, 1)
        return {
            "hands": self.hands,
            "points_per_hand": self.points / n,
            "win_rate": self.won / n,
            "deal_in_rate": self.dealt_in / n,
            "mean_fan": self.fan / self.wins if self.wins else 0.0,
            "qing_yi_se_share": self.qing / self.wins if self.wins else 0.0,
            "kongs_per_hand": self.kongs / n,
            "points_by_reason": {
                reason: {"received": self.received.get(reason, 0) / n, "paid": self.paid.get(reason, 0) / n}
                for reason in sorted(set(self.received) | set(self.paid), key=reason_key)
            },
        }


@dataclass
class ShardResult:
    """What one shard of deals gives: each pair's per-deal differences (in deal order) and each bot's totals."""

    diffs: dict[tuple[str, str], list[float]] = field(default_factory=dict)
    tallies: dict[str, BotTally] = field(default_factory=dict)


def pairs_of(bots: Sequence[str]) -> list[tuple[str, str]]:
    """Every pair of bots once, in the order given."""
    return list(itertools.combinations(bots, 2))


def play_deal(match_seed: int, deal_no: int, rules: Rules, seats: Sequence[Seat]) -> Game:
    """Deal ``deal_no`` (0-based) of a league seeded ``match_seed``, played by ``seats`` through the match runtime."""
    match = Match(RoomConfig(rules=rules), PLAYERS, seed=match_seed, hands=deal_no + 1, records=False)
    match.hands_played = deal_no

    def seats_for(hand: Hand) -> Sequence[Seat]:
        return seats

    runtime = MatchRuntime(match, seats_for)
    driver = runtime.start_hand()
    driver.run()
    hand = runtime.hand
    assert hand is not None
    runtime.finish_hand()
    return hand.game


@dataclass(frozen=True)
class DuplicateShard:
    """Plays the deals of one shard for every pair (picklable: it may run in another process)."""

    bots: tuple[str, ...]
    seed: int
    rules: Rules
    bot_timeout: float = DEFAULT_TIMEOUT
    """Seconds an outside program (``cmd:``) has for each decision."""
    bot_max_line: int = DEFAULT_MAX_LINE
    """The most bytes of one line of an outside program."""

    def __call__(self, shard: Shard) -> ShardResult:
        master = random.Random(self.seed)
        # one bot per name and seat (bots are seeded per hand from the hand's seed and the seat)
        made: dict[str, list[Bot]] = {
            name: [make_bot(name, random.Random(master.getrandbits(64)), timeout=self.bot_timeout,
                           max_line=self.bot_max_line) for _ in range(4)]
            for name in self.bots
        }
        seats = {name: [Seat.of_bot(b) for b in bs] for name, bs in made.items()}
        out = ShardResult(tallies={name: BotTally() for name in self.bots})
        try:
            for a, b in pairs_of(self.bots):
                diffs = out.diffs.setdefault((a, b), [])
                for deal_no in shard:
                    total = 0
                    for names in ((a, b, a, b), (b, a, b, a)):
                        game = play_deal(self.seed, deal_no, self.rules, [seats[n][s] for s, n in enumerate(names)])
                        deltas = game.deltas()
                        for s, n in enumerate(names):
                            out.tallies[n].add(game, s)
                            total += deltas[s] if n == a else -deltas[s]
                    diffs.append(total / 4)  # A's mean per seat-hand minus B's, over this deal
        finally:
            for name, bs in made.items():
                for bot in bs:
                    out.tallies[name].faults += bot_faults(bot)
                    close_bot(bot)
        return out


__all__ = ["DEALS_PER_SHARD", "PLAYERS", "QING_PATTERNS", "BotTally", "DuplicateShard", "ShardResult",
           "pairs_of", "play_deal"]
