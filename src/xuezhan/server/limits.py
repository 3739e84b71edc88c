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


class AttemptLimiter:
    """At most ``limit`` attempts per key in any ``window`` seconds (sign-in and register attempts,
    per name and per client address); the least recently used keys forgotten beyond ``size``."""

    def __init__(self, limit: int, window: float, size: int = 10_000) -> None:
        self.limit = limit
        self.window = window
        self.size = size
        self._seen: OrderedDict[str, list[float]] = OrderedDict()

    def allow(self, *keys: str, now: float | None = None) -> bool:
        """Count one attempt on every key; ``False`` (and nothing counted) if any key is over its limit."""
        now = time.monotonic() if now is None else now
        recent: list[list[float]] = []
        for key in keys:
            stamps = [t for t in self._seen.get(key, ()) if now - t < self.window]
            if len(stamps) >= self.limit:
                return False
            recent.append(stamps)
        for key, stamps in zip(keys, recent, strict=True):
            stamps.append(now)
            self._seen[key] = stamps
            self._seen.move_to_end(key)
        while len(self._seen) > self.size:
            self._seen.popitem(last=False)
        return True
