"""Scale-out: the one way to spread seeded work over workers.

Seeded work (hands of self-play, deals of a league) is cut into :class:`Shard` ranges that
depend on the amount of work and a fixed shard size only, never on how many workers run
them; :func:`map_shards` runs one picklable function on every shard, in this process
(``workers=1``), in local processes (``workers=W``) or as tasks on a Ray cluster
(``backend="ray"``: a local one started for the run with ``W`` CPUs, or the one
``RAY_ADDRESS`` names), and returns the results in shard order. A caller that merges the
results in that order gets the same answer whatever the backend and the worker count.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from .errors import XuezhanError
from .ids import ErrorCode

R = TypeVar("R")

BACKENDS: Final[tuple[str, ...]] = ("local", "ray")
"""``local``: this machine's processes; ``ray``: tasks on a Ray cluster (``pip install 'xuezhan[ray]'``)."""


@dataclass(frozen=True, slots=True)
class Shard:
    """Items ``start`` (inclusive) to ``stop`` (exclusive) of a run, the ``index``-th shard."""

    index: int
    start: int
    stop: int

    @property
    def size(self) -> int:
        return self.stop - self.start

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.start, self.stop))


def shards(total: int, size: int) -> tuple[Shard, ...]:
    """``total`` items cut into consecutive shards of ``size`` (the last one may be shorter)."""
    if total < 0:
        raise ValueError("total must not be negative")
    if size < 1:
        raise ValueError("a shard holds at least one item")
    return tuple(Shard(i, start, min(start + size, total)) for i, start in enumerate(range(0, total, size)))


def check_workers(workers: int, backend: str) -> None:
    """Bad input (``bad_workers``, ``bad_backend``) before any work starts."""
    if backend not in BACKENDS:
        raise XuezhanError(ErrorCode.BAD_BACKEND, f"--backend is one of {', '.join(BACKENDS)}, not {backend!r}")
    if not isinstance(workers, int) or workers < 1:
        raise XuezhanError(ErrorCode.BAD_WORKERS, f"--workers must be at least 1, not {workers!r}")


def map_shards(
    fn: Callable[[Shard], R],
    parts: Sequence[Shard],
    *,
    workers: int = 1,
    backend: str = "local",
    on_done: Callable[[Shard, R], None] | None = None,
) -> list[R]:
    """``[fn(shard) for shard in parts]``, spread over ``workers``; ``on_done`` is called in this
    process as each shard finishes (in any order: for progress), the results come back in the
    order of ``parts``. ``fn`` must be picklable (a module-level function or an instance of a
    module-level class) when it runs outside this process."""
    check_workers(workers, backend)
    if backend == "ray":
        return _map_ray(fn, parts, workers, on_done)
    if workers == 1 or len(parts) <= 1:
        results = []
        for shard in parts:
            result = fn(shard)
            if on_done is not None:
                on_done(shard, result)
            results.append(result)
        return results
    return _map_processes(fn, parts, workers, on_done)


def _map_processes(
    fn: Callable[[Shard], R], parts: Sequence[Shard], workers: int, on_done: Callable[[Shard, R], None] | None
) -> list[R]:
    # spawned, not forked: the parent may run threads (a progress bar, a server) that a fork would copy mid-lock
    context = multiprocessing.get_context("spawn")
    results: dict[int, R] = {}
    with ProcessPoolExecutor(max_workers=min(workers, len(parts)), mp_context=context) as pool:
        futures: dict[Future[R], int] = {pool.submit(fn, shard): k for k, shard in enumerate(parts)}
        pending = set(futures)
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                k = futures[future]
                results[k] = future.result()
                if on_done is not None:
                    on_done(parts[k], results[k])
    return [results[k] for k in range(len(parts))]


def _run_shard(fn: Callable[[Shard], R], shard: Shard) -> R:
    return fn(shard)


def _map_ray(
    fn: Callable[[Shard], R], parts: Sequence[Shard], workers: int, on_done: Callable[[Shard, R], None] | None
) -> list[R]:
    try:
        import ray
    except ImportError:
        raise XuezhanError(ErrorCode.MISSING_EXTRA, "--backend ray needs Ray: pip install 'xuezhan[ray]'") from None
    started = False
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
        try:
            if address:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise XuezhanError(ErrorCode.RAY_UNAVAILABLE, f"cannot start or reach a Ray cluster: {exc}") from None
        started = True
    try:
        task: Any = ray.remote(num_cpus=1)(_run_shard)
        refs = {task.remote(fn, shard): k for k, shard in enumerate(parts)}
        results: dict[int, R] = {}
        pending = list(refs)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                k = refs[ref]
                results[k] = ray.get(ref)
                if on_done is not None:
                    on_done(parts[k], results[k])
        return [results[k] for k in range(len(parts))]
    finally:
        if started:
            ray.shutdown()


__all__ = ["BACKENDS", "Shard", "check_workers", "map_shards", "shards"]
