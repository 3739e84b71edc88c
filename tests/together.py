"""Work started at the same moment on several threads, for the tests of concurrent writers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def all_at_once(work: Callable[[T], object], items: Sequence[T]) -> list[BaseException]:
    """``work(item)`` for every item, each on its own thread, all released together by a barrier;
    what they raised (nothing: an empty list)."""
    start = threading.Barrier(len(items))
    errors: list[BaseException] = []

    def run(item: T) -> None:
        start.wait()
        try:
            work(item)
        except BaseException as exc:  # reported to the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(item,)) for item in items]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors
