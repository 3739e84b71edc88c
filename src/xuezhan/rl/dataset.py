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
                                                       (:mod:`xuezhan.encoding`)
  ``action_mask``    fixed_size_list<int8>[ACTIONS]    its legal actions then
  ``action``         int16                             the action taken (its index)
  ``legal_count``    int16                             how many actions were legal
  ``points``         int32                             the seat's points for the whole hand
  =================  ================================  ==========================================

- ``_records/shard-IIIII.jsonl``: the game record of each hand of the shard (docs/interfaces.md
  §2.4, records) with its ``"id"``, the ``record_id`` of its rows. (Readers of Parquet
  folders skip names that begin with ``_``: ``pandas.read_parquet(DIR)`` reads the rows.)

The observations are rebuilt by replaying each finished hand on a learning table
(:func:`xuezhan.rl.table.make_table`: the compiled core when it plays the rules, which
writes each observation and mask straight into the shard's arrays; else the Python
engine and its :class:`~xuezhan.encoding.ObservationCache`), so the bots play at full
speed and every row is exactly what the seat saw, the same values as the environments give.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..encoding import OBS_FIELDS, OBS_SIZE
from ..engine.actions import ACTION_SPACE_SIZE, action_index
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import Hand, hand_record, hand_seed
from ..records import json_line
from ..rules import Rules
from ..scale import Shard, map_shards, shards
from ..selfplay import simulate
from .table import Table, make_table

DEFAULT_SHARD_HANDS = 500


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise XuezhanError(ErrorCode.MISSING_EXTRA, "datasets need pyarrow: pip install 'xuezhan[dataset]'") from None
    return pa, pq


def shard_seed(seed: int, shard: int) -> int:
    """The match seed of shard ``shard`` (0-based) of a dataset seeded with ``seed``."""
    return hand_seed(seed, shard + 1)


def record_id(hand: Hand) -> str:
    return f"{hand.match.seed}:{hand.hand_no}"


@dataclass
class _Columns:
    replay: Table
    """Four learners and no bot: each hand is replayed on it, action by action."""
    record_id: list[str] = field(default_factory=list)
    step: list[int] = field(default_factory=list)
    seat: list[int] = field(default_factory=list)
    bot: list[str] = field(default_factory=list)
    phase: list[str] = field(default_factory=list)
    observation: list[np.ndarray[Any, np.dtype[np.float32]]] = field(default_factory=list)
    """One ``(actions, OBS_SIZE)`` array per hand."""
    action_mask: list[np.ndarray[Any, np.dtype[np.int8]]] = field(default_factory=list)
    """One ``(actions, ACTION_SPACE_SIZE)`` array per hand."""
    action: list[int] = field(default_factory=list)
    legal_count: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)

    def add_hand(self, hand: Hand, bots: Sequence[str]) -> None:
        """One row per action of the finished ``hand``, replayed from its start."""
        played = hand.game
        if played.bystander_tiles:
            raise XuezhanError(ErrorCode.BAD_INPUT, "a dataset's hands have no bystanders")
        table = self.replay
        table.start(played.deal, played.dealer, played.exchange_direction)
        rid = record_id(hand)
        deltas = played.deltas()
        n = len(played.actions)
        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        masks = np.empty((n, ACTION_SPACE_SIZE), dtype=np.int8)
        for step, action in enumerate(played.actions):
            seat = action.seat
            index = action_index(action)
            self.record_id.append(rid)
            self.step.append(step)
            self.seat.append(seat)
            self.bot.append(bots[seat])
            self.phase.append(table.phase)
            self.legal_count.append(table.observe_into(seat, obs[step], masks[step]))
            self.action.append(index)
            self.points.append(deltas[seat])
            table.step(seat, index)
        self.observation.append(obs)
        self.action_mask.append(masks)

    def table(self, metadata: dict[str, Any]) -> Any:
        pa, _ = _pyarrow()
        obs = np.concatenate([o.reshape(-1) for o in self.observation]) if self.observation else np.zeros(0, np.float32)
        masks = (np.concatenate([m.reshape(-1) for m in self.action_mask]) if self.action_mask
                 else np.zeros(0, np.int8))
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
    columns = _Columns(make_table(rules, learners=range(4), opponents={}))
    records: list[str] = []
    match_seed = shard_seed(seed, shard)

    def on_hand(hand: Hand) -> None:
        columns.add_hand(hand, bots)
        records.append(json_line({"id": record_id(hand), **hand_record(hand)}))

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
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write {out}: {exc.strerror or exc}") from None
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
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot create {out}: {exc.strerror or exc}") from None
    if not out.is_dir():
        raise XuezhanError(ErrorCode.UNWRITABLE, f"{out} is not a folder")


def read_dataset(out: str | Path) -> Any:
    """Every shard of a dataset folder as one ``pyarrow.Table`` (in shard order)."""
    pa, pq = _pyarrow()
    files = sorted(Path(out).glob("shard-*.parquet"))
    if not files:
        raise XuezhanError(ErrorCode.UNREADABLE, f"no shard-*.parquet files in {out}")
    return pa.concat_tables([pq.read_table(f) for f in files])
