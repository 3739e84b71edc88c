"""Training data: bots play hands, every decision becomes one row of a Parquet shard.

``xuezhan dataset --games N --bots A,B,C,D --out DIR`` (``pip install 'xuezhan[dataset]'``)
plays N hands in shards of ``shard_hands`` hands (:func:`xuezhan.scale.shards`). Shard ``i``
is a match of its own, seeded with :func:`shard_seed` ``(seed, i)``, so shards can be
played by any worker in any order (:func:`xuezhan.scale.map_shards`, ``--workers W``,
``--backend ray``) and the dataset is the same. Each shard writes two files:

- ``shard-IIIII.parquet``: one row per action of each hand (every decision of every
  seat, forced ones included), in the order they were taken:

  =================  ================================  ==========================================
  column             type                              meaning
  =================  ================================  ==========================================
  ``record_id``      string                            the hand: ``"MATCHSEED:HANDNO"``
  ``step``           int16                             the action's number in the hand (0, 1, ..)
  ``seat``           int8                              who decided
  ``bot``            string                            the bot at that seat
  ``phase``          string                            exchange, dingque, turn, claim, rob
  ``observation``    fixed_size_list<float32>[OBS]     the seat's observation before deciding
                                                       (:mod:`xuezhan.rl.encoding`)
  ``action_mask``    fixed_size_list<int8>[ACTIONS]    its legal actions then
  ``action``         int16                             the action taken (its index)
  ``legal_count``    int16                             how many actions were legal
  ``points``         int32                             the seat's points for the whole hand
  =================  ================================  ==========================================

- ``_records/shard-IIIII.jsonl``: the game record of each hand of the shard (INTERFACES
  "Game records") with its ``"id"``, the ``record_id`` of its rows. (Readers of Parquet
  folders skip names that begin with ``_``: ``pandas.read_parquet(DIR)`` reads the rows.)

The observations are rebuilt by replaying each finished hand's record on the engine,
so the bots play at full speed and every row is exactly what the seat saw.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..engine.actions import ACTION_SPACE_SIZE, action_index
from ..engine.game import Game
from ..engine.views import SeatView
from ..errors import XuezhanError
from ..match import Hand, hand_record, hand_seed
from ..rules import Rules
from ..scale import Shard, map_shards, shards
from ..selfplay import simulate
from .encoding import OBS_FIELDS, OBS_SIZE, observation_list

DEFAULT_SHARD_HANDS = 500


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise XuezhanError("missing_extra", "datasets need pyarrow: pip install 'xuezhan[dataset]'") from None
    return pa, pq


def shard_seed(seed: int, shard: int) -> int:
    """The match seed of shard ``shard`` (0-based) of a dataset seeded with ``seed``."""
    return hand_seed(seed, shard + 1)


def record_id(hand: Hand) -> str:
    return f"{hand.match.seed}:{hand.hand_no}"


@dataclass
class _Columns:
    record_id: list[str] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    bot: list[str] = field(default_factory=list)
    phase: list[str] = field(default_factory=list)
    observation: list[list[float]] = field(default_factory=list)
    action_mask: list[list[int]] = field(default_factory=list)
    action: list[int] = field(default_factory=list)
    legal_count: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)

    def add_hand(self, hand: Hand, bots: Sequence[str]) -> None:
        """One row per action of the finished ``hand``, replayed from its start."""
        played = hand.game
        game = Game(played.rules, played.deal, played.dealer, exchange_direction=played.exchange_direction,
                    bystanders=len(played.bystander_tiles))
        rid = record_id(hand)
        deltas = played.deltas()
        for step, action in enumerate(played.actions):
            seat = action.seat
            legal = game.legal_actions(seat)
            mask = [0] * ACTION_SPACE_SIZE
            for a in legal:
                mask[action_index(a)] = 1
            self.record_id.append(rid)
            self.step.append(step)
            self.seat.append(seat)
            self.bot.append(bots[seat])
            self.phase.append(str(game.phase))
            self.observation.append(observation_list(SeatView(game, seat)))
            self.action_mask.append(mask)
            self.action.append(action_index(action))
            self.legal_count.append(len(legal))
            self.points.append(deltas[seat])
            game.apply(action)

    def table(self, metadata: dict[str, Any]) -> Any:
        pa, _ = _pyarrow()
        n = len(self.step)
        obs = np.asarray(self.observation, dtype=np.float32).reshape(n * OBS_SIZE)
        masks = np.asarray(self.action_mask, dtype=np.int8).reshape(n * ACTION_SPACE_SIZE)
        return pa.table({
            "record_id": pa.array(self.record_id, pa.string()),
            "step": pa.array(self.step, pa.int16()),
            "seat": pa.array(self.seat, pa.int8()),
            "bot": pa.array(self.bot, pa.string()),
            "phase": pa.array(self.phase, pa.string()),
            "observation": pa.FixedSizeListArray.from_arrays(pa.array(obs, pa.float32()), OBS_SIZE),
            "action_mask": pa.FixedSizeListArray.from_arrays(pa.array(masks, pa.int8()), ACTION_SPACE_SIZE),
            "action": pa.array(self.action, pa.int16()),
            "legal_count": pa.array(self.legal_count, pa.int16()),
            "points": pa.array(self.points, pa.int32()),
        }).replace_schema_metadata({"xuezhan": json.dumps(metadata)})


@dataclass(frozen=True)
class ShardResult:
    shard: int
    hands: int
    rows: int
    files: tuple[str, str]
    seconds: float
    bot_faults: dict[str, int] = field(default_factory=dict)


def write_shard(out: Path, shard: int, hands: int, bots: Sequence[str], *, seed: int, rules: Rules,
                bot_timeout: float = 5.0) -> ShardResult:
    """Play shard ``shard`` (``hands`` hands) and write its Parquet file and its records."""
    _, pq = _pyarrow()
    start = time.perf_counter()
    columns = _Columns()
    records: list[str] = []
    match_seed = shard_seed(seed, shard)

    def on_hand(hand: Hand) -> None:
        columns.add_hand(hand, bots)
        records.append(json.dumps({"id": record_id(hand), **hand_record(hand)}, ensure_ascii=False))

    stats = simulate(hands, bots, seed=match_seed, rules=rules, on_hand=on_hand, bot_timeout=bot_timeout)
    metadata = {"seed": seed, "shard": shard, "match_seed": match_seed, "bots": list(bots),
                "rules": rules.to_mapping(), "obs_fields": OBS_FIELDS, "action_space": ACTION_SPACE_SIZE}
    parquet = out / f"shard-{shard:05d}.parquet"
    jsonl = out / "_records" / f"shard-{shard:05d}.jsonl"
    try:
        jsonl.parent.mkdir(exist_ok=True)
        pq.write_table(columns.table(metadata), parquet, compression="zstd")
        jsonl.write_text("".join(r + "\n" for r in records), encoding="utf-8")
    except OSError as exc:
        raise XuezhanError("unwritable", f"cannot write {out}: {exc.strerror or exc}") from None
    files = (parquet.name, f"_records/{jsonl.name}")
    return ShardResult(shard, hands, len(columns.step), files, time.perf_counter() - start, stats.bot_faults)


@dataclass(frozen=True)
class DatasetShard:
    """Plays and writes one shard of a dataset (picklable: it may run in another process)."""

    out: str
    bots: tuple[str, ...]
    seed: int
    rules: Rules
    bot_timeout: float = 5.0

    def __call__(self, shard: Shard) -> ShardResult:
        return write_shard(Path(self.out), shard.index, shard.size, self.bots, seed=self.seed, rules=self.rules,
                           bot_timeout=self.bot_timeout)


def make_dataset(out: Path, games: int, bots: Sequence[str], *, seed: int = 0, rules: Rules | None = None,
                 shard_hands: int = DEFAULT_SHARD_HANDS, workers: int = 1, backend: str = "local",
                 bot_timeout: float = 5.0) -> list[ShardResult]:
    """Write a dataset of ``games`` hands to ``out``, its shards spread over ``workers``
    (:func:`xuezhan.scale.map_shards`): the same files whatever the workers and backend."""
    _pyarrow()  # missing_extra before anything is played
    prepare_out(out)
    job = DatasetShard(str(out), tuple(bots), seed, rules or Rules.preset("qq"), bot_timeout)
    return map_shards(job, shards(games, shard_hands), workers=workers, backend=backend)


def prepare_out(out: Path) -> None:
    """Create the output folder (``unwritable`` when it cannot be)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise XuezhanError("unwritable", f"cannot create {out}: {exc.strerror or exc}") from None
    if not out.is_dir():
        raise XuezhanError("unwritable", f"{out} is not a folder")


def read_dataset(out: str | Path) -> Any:
    """Every shard of a dataset folder as one ``pyarrow.Table`` (in shard order)."""
    pa, pq = _pyarrow()
    files = sorted(Path(out).glob("shard-*.parquet"))
    if not files:
        raise XuezhanError("unreadable", f"no shard-*.parquet files in {out}")
    return pa.concat_tables([pq.read_table(f) for f in files])
