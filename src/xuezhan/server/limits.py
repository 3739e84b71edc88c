"""Rate limits: a token bucket per connection, and per client address for the lobby."""

from __future__ import annotations

import time
from collections import OrderedDict


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; :meth:`take` spends one if there is one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class AddressLimiter:
    """One bucket per client address, the least recently used forgotten beyond ``size``."""

    def __init__(self, rate: float, burst: int, size: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.size = size
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, address: str) -> bool:
        bucket = self._buckets.get(address)
        if bucket is None:
            bucket = self._buckets[address] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.size:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(address)
        return bucket.take()
