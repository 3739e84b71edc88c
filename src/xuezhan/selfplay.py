"""Self-play: bots play hands against each other; summary statistics."""

from __future__ import annotations

import math
import random
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bots import Bot, make_bot
from .engine.game import Game
from .match import Hand, Match, RoomConfig
from .rules import Rules
from .runtime import HandDriver, MatchRuntime, Seat

PLAYERS = ("east", "south", "west", "north")
"""The players of a self-play match (the bots move between them with ``rotate``)."""


def play_hand(game: Game, bots: Sequence[Bot], *, seed: int | None = None) -> Game:
    """Let ``bots`` (one per seat) play ``game`` to its end, through the match runtime's driver.

    ``seed`` seeds the bots for this hand; without it they are seeded from the deal itself, so
    that every deal gets fresh choices and the same deal the same ones."""
    if seed is None:
        deal = game.deal
        seed = zlib.crc32(bytes(t for hand in deal.hands for t in hand) + bytes(deal.wall))
    HandDriver(game, [Seat.of_bot(b) for b in bots], seed=seed).run()
    return game


@dataclass
class Stats:
    """Running statistics over simulated hands."""

    bot_names: list[str]
    hands: int = 0
    exhausted: int = 0
    no_win: int = 0
    seat_points: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    seat_points_sq: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    seat_wins: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    seat_fan: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    bot_points: dict[str, list[int]] = field(default_factory=dict)
    bot_wins: dict[str, int] = field(default_factory=dict)
    bot_fan: dict[str, int] = field(default_factory=dict)
    bot_seats: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, game: Game, names: Sequence[str]) -> None:
        exhausted = any(e.get("type") == "wall_empty" for e in game.events[-3:])
        self.add_result(game.deltas(), [(w.seat, w.score.fan) for w in game.winners], exhausted, names)

    def add_result(
        self, deltas: Sequence[int], wins: Sequence[tuple[int, int]], exhausted: bool, names: Sequence[str]
    ) -> None:
        """Count one hand from its deltas, its wins as (seat, fan) and whether the wall ran out."""
        self.hands += 1
        if not wins:
            self.no_win += 1
        if exhausted:
            self.exhausted += 1
        for seat in range(4):
            name = names[seat]
            self.seat_points[seat] += deltas[seat]
            self.seat_points_sq[seat] += deltas[seat] ** 2
            self.bot_points.setdefault(name, []).append(deltas[seat])
            self.bot_seats[name] = self.bot_seats.get(name, 0) + 1
            self.bot_wins.setdefault(name, 0)
            self.bot_fan.setdefault(name, 0)
        for seat, fan in wins:
            self.seat_wins[seat] += 1
            self.seat_fan[seat] += fan
            self.bot_wins[names[seat]] += 1
            self.bot_fan[names[seat]] += fan

    def to_json(self) -> dict[str, Any]:
        n = max(self.hands, 1)
        by_bot = {}
        for name, pts in self.bot_points.items():
            k = len(pts)
            mean = sum(pts) / k
            var = sum((p - mean) ** 2 for p in pts) / (k - 1) if k > 1 else 0.0
            half = 1.96 * math.sqrt(var / k) if k > 1 else 0.0
            wins = self.bot_wins[name]
            by_bot[name] = {
                "seat_hands": k,
                "win_rate": wins / k,
                "avg_points": mean,
                "avg_points_ci95": [mean - half, mean + half],
                "avg_fan": self.bot_fan[name] / wins if wins else 0.0,
            }
        return {
            "hands": self.hands,
            "bots": list(self.bot_names),
            "hands_per_second": self.hands / self.seconds if self.seconds > 0 else None,
            "draw_rate": self.exhausted / n,
            "no_win_rate": self.no_win / n,
            "by_seat": [
                {
                    "seat": s,
                    "bot": self.bot_names[s],
                    "win_rate": self.seat_wins[s] / n,
                    "avg_points": self.seat_points[s] / n,
                    "avg_fan": self.seat_fan[s] / self.seat_wins[s] if self.seat_wins[s] else 0.0,
                }
                for s in range(4)
            ],
            "by_bot": by_bot,
        }


def simulate(
    games: int,
    bot_names: Sequence[str],
    *,
    seed: int = 0,
    rules: Rules | None = None,
    on_hand: Callable[[Hand], None] | None = None,
    rotate: bool = False,
) -> Stats:
    """Play ``games`` hands of one match on the match runtime: hand ``k`` is dealt from
    ``hand_seed(seed, k)`` exactly as in ``xuezhan play`` and ``xuezhan serve``, and the dealer
    of each next hand follows the rules' ``dealer_rule``. With ``rotate`` the bots move one
    seat on every hand (for fair comparisons)."""
    rules = rules or Rules.preset("qq")
    master = random.Random(seed)
    stats = Stats(list(bot_names))
    # one seat owner per bot, kept for the whole run
    owners = [Seat.of_bot(make_bot(name, random.Random(master.getrandbits(64)))) for name in bot_names]
    match = Match(RoomConfig(rules=rules), PLAYERS, seed=seed, hands=games, records=False)

    def seats_for(hand: Hand) -> list[Seat]:
        shift = (hand.hand_no - 1) % 4 if rotate else 0
        return [owners[(s - shift) % 4] for s in range(4)]

    runtime = MatchRuntime(match, seats_for)
    start = time.perf_counter()
    for _ in range(games):
        driver = runtime.start_hand()
        driver.run()
        hand = runtime.hand
        assert hand is not None
        stats.add(hand.game, [seat.name for seat in driver.seats])
        if on_hand is not None:
            on_hand(hand)
        runtime.finish_hand()
    stats.seconds = time.perf_counter() - start
    return stats


def simulate_native(
    games: int,
    bot_names: Sequence[str],
    *,
    seed: int = 0,
    rules: Rules | None = None,
    on_record: Callable[[dict[str, Any]], None] | None = None,
) -> Stats:
    """:func:`simulate` on the compiled core (:mod:`xuezhan.native`): the same hands, the same
    decisions and the same statistics, many hands per call. ``on_record`` gets each hand's game
    record (as ``match.hand_record`` writes it). Raises ``native_unavailable`` or
    ``native_refused`` (:func:`xuezhan.native.refusal`) when the core cannot play these."""
    from . import native
    from .match import hand_seed

    rules = rules or Rules.preset("qq")
    stats = Stats(list(bot_names))
    names = list(bot_names)
    start = time.perf_counter()
    done = 0
    last_next: int | None = None  # the first hand's dealer is thrown by its dice
    while done < games:
        k = min(native.BATCH * 8, games - done)
        seeds = [hand_seed(seed, done + i + 1) for i in range(k)]
        hands = native.play_hands(seeds, rules, names, first_dealer=last_next, records=on_record is not None)
        for i, h in enumerate(hands):
            stats.add_result(h.deltas, h.wins, h.exhausted, names)
            if on_record is not None:
                on_record({**h.record(rules), "seed": h.seed, "match": {"seed": seed, "hand_no": done + i + 1}})
        last_next = hands[-1].next_dealer
        done += k
    stats.seconds = time.perf_counter() - start
    return stats
