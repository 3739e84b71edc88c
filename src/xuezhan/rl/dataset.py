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
  ``reward``         float32                           the seat's points changed by that step: from
                                                       this decision to its next one (or the end of
                                                       the hand); a seat's rewards in a hand add up
                                                       to its ``points``
  ``done``           bool                              the seat's last decision in the hand
  ``next_row``       int64                             the row of the same seat's next decision in
                                                       the hand (in the shard's file; in the whole
                                                       dataset once :func:`read_dataset` reads it),
                                                       or -1 (``done``)
  =================  ================================  ==========================================

  (``observation`` of row ``next_row`` is then the next observation of a transition.)

- ``_records/shard-IIIII.jsonl``: the game record of each hand of the shard, as ``xuezhan
  simulate --out`` writes it (docs/interfaces.md, game records): ``xuezhan replay FILE --hand
  N`` replays it. Its ``match`` (``{"seed", "hand_no"}``) gives the ``record_id`` of its rows,
  ``"SEED:HAND_NO"`` (:func:`record_id_of`).

When every shard is written, ``manifest.json`` says what the run was (:func:`manifest`):
``seed``, ``bots``, ``rules``, ``games``, ``shard_hands``, ``shards`` (each shard's ``file``,
``records``, ``hands`` and ``rows``), ``rows`` (all of them), ``xuezhan_version`` and
``encoding_version`` (:data:`xuezhan.encoding.ENCODING_VERSION`). A folder that holds another
run (its manifest, shards or records) is refused (``dataset_exists``) unless ``overwrite``,
which first deletes those files (and only those). :func:`read_dataset` reads the shards the
manifest names and checks them against it (``bad_dataset``: no manifest, a shard missing,
one more, or rows that are not the manifest's). Other readers of the folder pass over the
manifest: ``pandas.read_parquet(DIR, ignore_prefixes=[".", "_", "manifest"])``.

The observations are rebuilt by replaying each finished hand on a learning table
(:func:`xuezhan.rl.table.make_table`: the compiled core when it plays the rules, which
writes each observation and mask straight into the shard's arrays; else the Python
engine and its :class:`~xuezhan.encoding.ObservationCache`), so the bots play at full
speed and every row is exactly what the seat saw, the same values as the environments give.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..bots import DEFAULT_MAX_LINE
from ..encoding import ENCODING_VERSION, OBS_FIELDS, OBS_SIZE
from ..engine.actions import ACTION_SPACE_SIZE, action_index
from ..errors import XuezhanError
from ..extras import optional
from ..ids import ErrorCode
from ..jsontext import json_line
from ..match import Hand, hand_record, hand_seed
from ..records import loads_text
from ..rules import Rules
from ..scale import Shard, map_shards, shards
from ..selfplay import simulate
from .table import Table, make_table

DEFAULT_SHARD_HANDS = 500
MANIFEST = "manifest.json"


def _pyarrow() -> Any:
    needs = "datasets need pyarrow"
    return optional("pyarrow", needs, "dataset"), optional("pyarrow.parquet", needs, "dataset")


def shard_seed(seed: int, shard: int) -> int:
    """The match seed of shard ``shard`` (0-based) of a dataset seeded with ``seed``."""
    return hand_seed(seed, shard + 1)


def record_id(hand: Hand) -> str:
    """The ``record_id`` of the rows of ``hand``: ``"MATCHSEED:HANDNO"``."""
    return f"{hand.match.seed}:{hand.hand_no}"


def record_id_of(record: dict[str, Any]) -> str:
    """The ``record_id`` of the rows of the hand whose record (as the dataset writes it) is ``record``."""
    place = record["match"]
    return f"{place['seed']}:{place['hand_no']}"


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
    reward: list[float] = field(default_factory=list)
    done: list[bool] = field(default_factory=list)
    next_row: list[int] = field(default_factory=list)

    def add_hand(self, hand: Hand, bots: Sequence[str]) -> None:
        """One row per action of the finished ``hand``, replayed from its start: each seat's points
        paid after its decision go to that decision's row (``reward``) until it decides again."""
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
        base = len(self.step)
        last = [-1, -1, -1, -1]  # each seat's latest row
        early = [0.0, 0.0, 0.0, 0.0]  # points paid before a seat's first decision: they go to it
        table.rewards()  # nothing paid yet counts
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
            row = base + step
            if last[seat] >= 0:
                self.next_row[last[seat]] = row
            last[seat] = row
            self.reward.append(early[seat])
            early[seat] = 0.0
            self.done.append(False)
            self.next_row.append(-1)
            table.step(seat, index)
            for s, paid in enumerate(table.rewards()):
                if paid:
                    if last[s] >= 0:
                        self.reward[last[s]] += paid
                    else:
                        early[s] += paid
        for row in last:
            if row >= 0:
                self.done[row] = True
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
            "reward": pa.array(self.reward, pa.float32()),
            "done": pa.array(self.done, pa.bool_()),
            "next_row": pa.array(self.next_row, pa.int64()),
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
                bot_timeout: float = 5.0, bot_max_line: int = DEFAULT_MAX_LINE) -> ShardResult:
    """Play shard ``shard`` (``hands`` hands) and write its Parquet file and its records."""
    _, pq = _pyarrow()
    start = time.perf_counter()
    columns = _Columns(make_table(rules, learners=range(4), opponents={}))
    records: list[str] = []
    match_seed = shard_seed(seed, shard)

    def on_hand(hand: Hand) -> None:
        columns.add_hand(hand, bots)
        records.append(json_line(hand_record(hand)))

    stats = simulate(hands, bots, seed=match_seed, rules=rules, on_hand=on_hand, bot_timeout=bot_timeout,
                     bot_max_line=bot_max_line)
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
    bot_max_line: int = DEFAULT_MAX_LINE

    def __call__(self, shard: Shard) -> ShardResult:
        return write_shard(Path(self.out), shard.index, shard.size, self.bots, seed=self.seed, rules=self.rules,
                           bot_timeout=self.bot_timeout, bot_max_line=self.bot_max_line)


def make_dataset(out: Path, games: int, bots: Sequence[str], *, seed: int = 0, rules: Rules | None = None,
                 shard_hands: int = DEFAULT_SHARD_HANDS, workers: int = 1, backend: str = "local",
                 bot_timeout: float = 5.0, bot_max_line: int = DEFAULT_MAX_LINE,
                 overwrite: bool = False) -> list[ShardResult]:
    """Write a dataset of ``games`` hands to ``out``, its shards spread over ``workers``
    (:func:`xuezhan.scale.map_shards`): the same files whatever the workers and backend; then
    its ``manifest.json``. A folder holding another run is ``dataset_exists`` unless ``overwrite``."""
    _pyarrow()  # missing_extra before anything is played
    prepare_out(out, overwrite=overwrite)
    rules = rules or Rules.preset("qq")
    job = DatasetShard(str(out), tuple(bots), seed, rules, bot_timeout, bot_max_line)
    results = map_shards(job, shards(games, shard_hands), workers=workers, backend=backend)
    text = json.dumps(manifest(results, bots, seed=seed, rules=rules, shard_hands=shard_hands), indent=1)
    partial = out / f".{MANIFEST}.partial"
    try:  # written whole, then renamed: a manifest is there only for a finished run
        partial.write_text(text + "\n", encoding="utf-8")
        partial.replace(out / MANIFEST)
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write {out / MANIFEST}: {exc.strerror or exc}") from None
    return results


def manifest(results: Sequence[ShardResult], bots: Sequence[str], *, seed: int, rules: Rules,
             shard_hands: int) -> dict[str, Any]:
    """What ``manifest.json`` says of a run whose shards gave ``results``."""
    ordered = sorted(results, key=lambda r: r.shard)
    return {
        "seed": seed, "bots": list(bots), "rules": rules.to_mapping(), "games": sum(r.hands for r in ordered),
        "shard_hands": shard_hands,
        "shards": [{"file": r.files[0], "records": r.files[1], "hands": r.hands, "rows": r.rows} for r in ordered],
        "rows": sum(r.rows for r in ordered), "xuezhan_version": __version__, "encoding_version": ENCODING_VERSION,
    }


def _run_files(out: Path) -> list[Path]:
    """The files of a dataset run in ``out``: its manifest, shards and records (nothing else)."""
    found = [p for p in (out / MANIFEST, out / f".{MANIFEST}.partial", out / "_records") if p.exists()]
    return found + sorted(out.glob("shard-*.parquet"))


def prepare_out(out: Path, *, overwrite: bool = False) -> None:
    """Create the output folder (``unwritable`` when it cannot be). One that holds another run
    is ``dataset_exists``, unless ``overwrite``: then that run's files are deleted first."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot create {out}: {exc.strerror or exc}") from None
    if not out.is_dir():
        raise XuezhanError(ErrorCode.UNWRITABLE, f"{out} is not a folder")
    found = _run_files(out)
    if found and not overwrite:
        raise XuezhanError(ErrorCode.DATASET_EXISTS,
                           f"{out} holds another dataset ({found[0].name}...): choose another folder, or --overwrite")
    try:
        for path in found:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot clear {out}: {exc.strerror or exc}") from None


def read_manifest(out: str | Path) -> dict[str, Any]:
    """The manifest of the dataset in folder ``out`` (``bad_dataset`` when it is missing or not one)."""
    path = Path(out) / MANIFEST
    try:
        data = loads_text(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise XuezhanError(ErrorCode.BAD_DATASET,
                           f"{out} has no {MANIFEST}: not a dataset, or its run did not finish") from None
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNREADABLE, f"cannot read {path}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError):  # not UTF-8, not JSON
        raise XuezhanError(ErrorCode.BAD_DATASET, f"{path} is not a manifest (not JSON)") from None
    shards_ = data.get("shards") if isinstance(data, dict) else None
    if (not isinstance(shards_, list) or not all(
            isinstance(s, dict) and isinstance(s.get("file"), str) and isinstance(s.get("rows"), int)
            and not isinstance(s.get("rows"), bool) and s["file"].startswith("shard-") and "/" not in s["file"]
            for s in shards_)):
        raise XuezhanError(ErrorCode.BAD_DATASET, f"{path} is not a manifest (no list of shards)")
    manifest_: dict[str, Any] = data
    return manifest_


def read_dataset(out: str | Path) -> Any:
    """Every shard of a dataset folder as one ``pyarrow.Table`` (in shard order), checked against
    its manifest: ``bad_dataset`` when a shard is missing, one is there that it does not name
    (another run's), or a shard's rows or seed are not the manifest's."""
    pa, pq = _pyarrow()
    folder = Path(out)
    listed = read_manifest(folder)
    names = [s["file"] for s in listed["shards"]]
    extra = sorted({p.name for p in folder.glob("shard-*.parquet")} - set(names))
    if extra:
        raise XuezhanError(ErrorCode.BAD_DATASET, f"{folder} holds shards its manifest does not name: {extra[0]}")
    tables = []
    for entry in listed["shards"]:
        path = folder / entry["file"]
        try:
            table = pq.read_table(path)
        except FileNotFoundError:
            raise XuezhanError(ErrorCode.BAD_DATASET, f"shard {entry['file']} of {folder} is missing") from None
        except (OSError, pa.ArrowException) as exc:
            raise XuezhanError(ErrorCode.BAD_DATASET,
                               f"shard {entry['file']} of {folder} is unreadable: {exc}") from None
        meta = json.loads((table.schema.metadata or {}).get(b"xuezhan", b"{}"))
        if table.num_rows != entry["rows"] or meta.get("seed") != listed.get("seed"):
            raise XuezhanError(ErrorCode.BAD_DATASET,
                               f"shard {entry['file']} of {folder} is not the manifest's ({table.num_rows} rows, "
                               f"seed {meta.get('seed')}; the manifest says {entry['rows']} rows, "
                               f"seed {listed.get('seed')})")
        tables.append(table)
    if not tables:
        raise XuezhanError(ErrorCode.BAD_DATASET, f"the manifest of {folder} names no shard")
    offsets = accumulate((t.num_rows for t in tables[:-1]), initial=0)
    return pa.concat_tables([_global_rows(t, offset, pa) for t, offset in zip(tables, offsets, strict=True)])


def _global_rows(table: Any, offset: int, pa: Any) -> Any:
    """A shard's rows with ``next_row`` counted from the start of the dataset (the shard's first row
    is row ``offset``)."""
    if offset == 0 or "next_row" not in table.column_names:
        return table
    rows = table.column("next_row").to_numpy()
    at = table.column_names.index("next_row")
    return table.set_column(at, "next_row", pa.array(np.where(rows < 0, rows, rows + offset), pa.int64()))
