"""Scale-out: the one way to spread seeded work over workers.

Seeded work (hands of self-play, deals of a league) is cut into :class:`Shard` ranges that
depend on the amount of work and a fixed shard size only, never on how many workers run
them; :func:`map_shards` runs one picklable function on every shard, in this process
(``workers=1``), in local processes (``workers=W``) or as tasks on a Ray cluster
(``backend="ray"``: a local one started for the run with ``W`` CPUs, or the one
``RAY_ADDRESS`` names), and returns the results in shard order. A caller that merges the
results in that order gets the same answer whatever the backend and the worker count.
:func:`iter_shards` hands the same results over one by one, in the same order, with only a few
shards started ahead: a caller that writes each result out and drops it holds a few at most.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from .errors import XuezhanError
from .extras import optional
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
    return list(iter_shards(fn, parts, workers=workers, backend=backend, on_done=on_done, ahead=max(len(parts), 1)))


def iter_shards(
    fn: Callable[[Shard], R],
    parts: Sequence[Shard],
    *,
    workers: int = 1,
    backend: str = "local",
    on_done: Callable[[Shard, R], None] | None = None,
    ahead: int | None = None,
) -> Generator[R, None, None]:
    """The results of :func:`map_shards`, one by one in the order of ``parts``, each as soon as
    it and those before it are done. At most ``ahead`` shards (by default two per worker, or
    per CPU of the Ray cluster ``RAY_ADDRESS`` names) are started and not yet handed over: a
    slow shard holds back only those, and a caller that writes each result out and drops it
    keeps memory flat however many shards the run has.
    Close it (``with contextlib.closing(...)``) to stop early: the shards not yet started are
    cancelled and the pool (or the Ray cluster started for the run) is shut down."""
    check_workers(workers, backend)
    if ahead is not None and ahead < 1:
        raise ValueError("ahead must be at least 1")
    if backend == "ray":
        return _iter_ray(fn, parts, workers, on_done, ahead)
    if workers == 1 or len(parts) <= 1:
        return _iter_here(fn, parts, on_done)
    return _iter_processes(fn, parts, workers, on_done, 2 * workers if ahead is None else ahead)


def _iter_here(
    fn: Callable[[Shard], R], parts: Sequence[Shard], on_done: Callable[[Shard, R], None] | None
) -> Generator[R, None, None]:
    for shard in parts:
        result = fn(shard)
        if on_done is not None:
            on_done(shard, result)
        yield result


def _iter_processes(
    fn: Callable[[Shard], R], parts: Sequence[Shard], workers: int, on_done: Callable[[Shard, R], None] | None,
    ahead: int,
) -> Generator[R, None, None]:
    # spawned, not forked: the parent may run threads (a progress bar, a server) that a fork would copy mid-lock
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(parts)), mp_context=context)
    try:
        running: dict[Future[R], int] = {}
        done: dict[int, R] = {}
        started = 0
        for k in range(len(parts)):
            while started < len(parts) and started - k < ahead:
                running[pool.submit(fn, parts[started])] = started
                started += 1
            while k not in done:
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in finished:
                    j = running.pop(future)
                    done[j] = future.result()
                    if on_done is not None:
                        on_done(parts[j], done[j])
            yield done.pop(k)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_shard(fn: Callable[[Shard], R], shard: Shard) -> R:
    return fn(shard)


def _iter_ray(
    fn: Callable[[Shard], R], parts: Sequence[Shard], workers: int, on_done: Callable[[Shard, R], None] | None,
    ahead: int | None,
) -> Generator[R, None, None]:
    ray = optional("ray", "--backend ray needs Ray", "ray")
    started_ray = False
    if not ray.is_initialized():
        address = os.environ.get("RAY_ADDRESS")
        try:
            if address:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise XuezhanError(ErrorCode.RAY_UNAVAILABLE, f"cannot start or reach a Ray cluster: {exc}") from None
        started_ray = True
    running: dict[Any, int] = {}
    try:
        if ahead is None:  # a running cluster spreads the tasks over all its CPUs, whatever the workers
            resources: Any = ray.cluster_resources
            ahead = 2 * max(workers, int(resources().get("CPU", workers)))
        task: Any = ray.remote(num_cpus=1)(_run_shard)
        done: dict[int, R] = {}
        started = 0
        for k in range(len(parts)):
            while started < len(parts) and started - k < ahead:
                running[task.remote(fn, parts[started])] = started
                started += 1
            while k not in done:
                finished, _ = ray.wait(list(running), num_returns=1)
                for ref in finished:
                    j = running.pop(ref)
                    done[j] = ray.get(ref)
                    if on_done is not None:
                        on_done(parts[j], done[j])
            yield done.pop(k)
    finally:
        for ref in running:
            ray.cancel(ref)
        if started_ray:
            ray.shutdown()


__all__ = ["BACKENDS", "Shard", "check_workers", "iter_shards", "map_shards", "shards"]
