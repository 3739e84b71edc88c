"""Self-play: bots play hands against each other; summary statistics."""

from __future__ import annotations

import math
import random
import time
import zlib
from collections.abc import Callable, Generator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import IO, Any

from .bots import DEFAULT_MAX_LINE, DEFAULT_TIMEOUT, Bot, bot_faults, close_bot, make_bot
from .engine.game import Game
from .errors import XuezhanError
from .ids import ErrorCode, EventKind
from .match import Hand, Match, RoomConfig, hand_record, hand_seed
from .records import record_line
from .rules import Rules
from .runtime import HandDriver, MatchRuntime, Seat
from .scale import Shard, check_workers, iter_shards, shards

PLAYERS = ("east", "south", "west", "north")
"""The players of a self-play match (the bots move between them with ``rotate``)."""

SHARD_HANDS = 200
"""Hands per shard of a self-play run: the shards, hence the results, never depend on the workers."""


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
    bot_faults: dict[str, int] = field(default_factory=dict)
    """Faults of outside bots (``cmd:``) by bot name: answers refused, late or missing."""
    seconds: float = 0.0
    records: list[dict[str, Any]] = field(default_factory=list)
    """The game record of every hand, when the run keeps them."""
    record_lines: bytes = b""
    """The game records of a shard's hands as JSON lines (UTF-8, :func:`xuezhan.records.record_line`),
    when the run writes them out (``simulate(out=...)``): written as each shard comes, never merged."""

    def merge(self, other: Stats) -> None:
        """Add the hands of ``other`` (the next shard of the same run) after these."""
        self.hands += other.hands
        self.exhausted += other.exhausted
        self.no_win += other.no_win
        for s in range(4):
            self.seat_points[s] += other.seat_points[s]
            self.seat_points_sq[s] += other.seat_points_sq[s]
            self.seat_wins[s] += other.seat_wins[s]
            self.seat_fan[s] += other.seat_fan[s]
        for name, pts in other.bot_points.items():
            self.bot_points.setdefault(name, []).extend(pts)
            self.bot_wins[name] = self.bot_wins.get(name, 0) + other.bot_wins[name]
            self.bot_fan[name] = self.bot_fan.get(name, 0) + other.bot_fan[name]
            self.bot_seats[name] = self.bot_seats.get(name, 0) + other.bot_seats[name]
        for name, faults in other.bot_faults.items():
            self.bot_faults[name] = self.bot_faults.get(name, 0) + faults
        self.records.extend(other.records)

    def add(self, game: Game, names: Sequence[str]) -> None:
        exhausted = any(e.get("type") == EventKind.WALL_EMPTY for e in game.events[-3:])
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
            "bot_faults": {name: self.bot_faults.get(name, 0) for name in dict.fromkeys(self.bot_names)},
        }


@dataclass(frozen=True)
class SimulateShard:
    """Plays one shard of a self-play run (picklable: it may run in another process).

    Shard ``[start, stop)`` plays hands ``start + 1`` .. ``stop`` of the match seeded ``seed``:
    each hand is dealt from ``hand_seed(seed, k)`` as in one long match, and the first hand of
    a shard has its dealer thrown by its own dice, as the first hand of any match."""

    bot_names: tuple[str, ...]
    seed: int
    rules: Rules
    rotate: bool = False
    keep_records: bool = False
    bot_timeout: float = DEFAULT_TIMEOUT
    engine: str = "python"
    """``"native"``: the shard's hands are played by the compiled core (:mod:`xuezhan.native`),
    which gives the same hands, statistics and records."""
    bot_max_line: int = DEFAULT_MAX_LINE
    """The most bytes of one line of an outside bot (``cmd:``)."""
    write_records: bool = False
    """Encode the shard's records as JSON lines (:attr:`Stats.record_lines`), where they are played:
    in the worker, which sends back bytes rather than records."""

    def __call__(self, shard: Shard, on_hand: Callable[[Hand], None] | None = None) -> Stats:
        if self.engine == "native":
            return self.native(shard)
        master = random.Random(self.seed)
        stats = Stats(list(self.bot_names))
        # one seat owner per bot (bots are seeded per hand from the hand's seed: this rng changes nothing)
        owners = [Seat.of_bot(make_bot(n, random.Random(master.getrandbits(64)), timeout=self.bot_timeout,
                                           max_line=self.bot_max_line))
                  for n in self.bot_names]
        match = Match(RoomConfig(rules=self.rules), PLAYERS, seed=self.seed, hands=shard.stop, records=False)
        match.hands_played = shard.start
        rotate = self.rotate

        def seats_for(hand: Hand) -> list[Seat]:
            shift = (hand.hand_no - 1) % 4 if rotate else 0
            return [owners[(s - shift) % 4] for s in range(4)]

        runtime = MatchRuntime(match, seats_for)
        lines: list[bytes] = []
        for _ in shard:
            driver = runtime.start_hand()
            driver.run()
            hand = runtime.hand
            assert hand is not None
            stats.add(hand.game, [seat.name for seat in driver.seats])
            if self.keep_records or self.write_records:
                record = hand_record(hand)
                if self.keep_records:
                    stats.records.append(record)
                if self.write_records:
                    lines.append(record_line(record))
            if on_hand is not None:
                on_hand(hand)
            runtime.finish_hand()
        for seat in owners:
            stats.bot_faults[seat.name] = stats.bot_faults.get(seat.name, 0) + bot_faults(seat.bot)
            close_bot(seat.bot)
        stats.record_lines = b"".join(lines)
        return stats

    def native(self, shard: Shard) -> Stats:
        """The shard played by the compiled core, in batches (the same match: hand ``k`` from
        ``hand_seed(seed, k)``, the dealer chained from hand to hand, the first one by dice)."""
        from . import native

        names = list(self.bot_names)
        stats = Stats(names)
        records = self.keep_records or self.write_records
        hands = native.play_hands([hand_seed(self.seed, k + 1) for k in shard], self.rules, names, records=records)
        mapping = self.rules.to_mapping() if records else None  # once, not once a hand
        lines: list[bytes] = []
        for k, h in zip(shard, hands, strict=True):
            stats.add_result(h.deltas, h.wins, h.exhausted, names)
            if records:
                record = {**h.record(self.rules, mapping=mapping), "seed": h.seed,
                          "match": {"seed": self.seed, "hand_no": k + 1}}
                if self.keep_records:
                    stats.records.append(record)
                if self.write_records:
                    lines.append(record_line(record))
        stats.record_lines = b"".join(lines)
        return stats


def simulate(
    games: int,
    bot_names: Sequence[str],
    *,
    seed: int = 0,
    rules: Rules | None = None,
    on_hand: Callable[[Hand], None] | None = None,
    rotate: bool = False,
    workers: int = 1,
    backend: str = "local",
    keep_records: bool = False,
    on_shard: Callable[[Shard, Stats], None] | None = None,
    shard_hands: int = SHARD_HANDS,
    bot_timeout: float = DEFAULT_TIMEOUT,
    engine: str = "python",
    bot_max_line: int = DEFAULT_MAX_LINE,
    out: IO[bytes] | None = None,
) -> Stats:
    """Play ``games`` hands of one match on the match runtime: hand ``k`` is dealt from
    ``hand_seed(seed, k)`` exactly as in ``xuezhan play`` and ``xuezhan serve``, and the dealer
    of each next hand follows the rules' ``dealer_rule`` (within each shard of
    :data:`SHARD_HANDS` hands: see :class:`SimulateShard`). With ``rotate`` the bots move one
    seat on every hand (for fair comparisons).

    The shards run on ``workers`` through :func:`xuezhan.scale.iter_shards` (``backend`` local
    or ray) and are merged in order: the same statistics whatever the workers and backend.
    ``on_hand`` sees every hand and needs them in this process (``workers=1``, local);
    ``keep_records`` keeps every hand's game record in :attr:`Stats.records`; ``out`` gets them
    written instead (``simulate --out``): JSON lines in the order of the hands, byte for byte
    ``json_line(record)`` and a newline, written shard by shard as the shards are played and
    never kept, so the memory of a run does not grow with ``games`` (only a few shards are
    played ahead of the writing). ``on_shard`` is told of each finished shard (progress).
    ``shard_hands`` is part of what the run computes (the dealer is thrown afresh at each
    shard): keep the default to compare runs.

    ``bot_timeout``: seconds an outside bot (``cmd:``) has for each decision; ``bot_max_line``
    the most bytes of one of its lines (a longer one is its fault).

    ``engine="native"`` plays on the compiled core (:mod:`xuezhan.native`): the same statistics
    and records, without ``on_hand`` (there is no Python hand to show; keep the records). It
    raises ``native_unavailable`` or ``native_refused`` where the core cannot play these rules
    and bots (:func:`xuezhan.native.refusal`)."""
    check_workers(workers, backend)
    if on_hand is not None and (workers != 1 or backend != "local"):
        raise ValueError("on_hand sees the hands in this process: it needs workers=1 and the local backend")
    rules = rules or Rules.preset("qq")
    if engine == "native":
        from . import native

        if on_hand is not None:
            raise ValueError("on_hand sees the Python engine's hands: the native engine keeps records instead")
        why = native.refusal(rules, bot_names)
        if why is None and rotate and len(set(bot_names)) > 1:
            why = "the compiled core plays the same bot at a seat for a whole batch: no rotation"
        if why is not None:
            code = ErrorCode.NATIVE_UNAVAILABLE if not native.available() else ErrorCode.NATIVE_REFUSED
            raise XuezhanError(code, why)
    elif engine != "python":
        raise ValueError(f"no engine {engine!r}: python or native")
    job = SimulateShard(tuple(bot_names), seed, rules, rotate, keep_records, bot_timeout, engine, bot_max_line,
                        write_records=out is not None)
    parts = shards(games, shard_hands)
    start = time.perf_counter()
    stats = Stats(list(bot_names))
    if on_hand is not None:
        results = _with_hands(job, parts, on_hand, on_shard)
    else:
        results = iter_shards(job, parts, workers=workers, backend=backend, on_done=on_shard)
    with closing(results):
        for part in results:
            if out is not None:
                out.write(part.record_lines)
                part.record_lines = b""
            stats.merge(part)
    stats.seconds = time.perf_counter() - start
    return stats


def _with_hands(job: SimulateShard, parts: Sequence[Shard], on_hand: Callable[[Hand], None],
                on_shard: Callable[[Shard, Stats], None] | None) -> Generator[Stats, None, None]:
    for shard in parts:
        part = job(shard, on_hand)
        if on_shard is not None:
            on_shard(shard, part)
        yield part
