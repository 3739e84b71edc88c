"""Rate limits: a token bucket per connection, and per client address for the lobby; sign-in
attempts per key; and who the client is (:func:`client_address`), behind trusted proxies or not.

Each refusal says how long to wait (``retry_after``, seconds), which the server passes on in
the error and in HTTP's ``Retry-After``."""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Iterable
from typing import TypeAlias

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network


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

    def wait(self) -> float:
        """Seconds until the next token (0 when there is one)."""
        return max(0.0, (1.0 - self.tokens) / self.rate) if self.rate > 0 else math.inf


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

    def retry_after(self, address: str) -> float:
        """Seconds until ``address`` may send again (0 if it may now)."""
        bucket = self._buckets.get(address)
        return 0.0 if bucket is None else bucket.wait()


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
        if self.wait(*keys, now=now) > 0:
            return False
        self.count(*keys, now=now)
        return True

    def _recent(self, key: str, now: float) -> list[float]:
        return [t for t in self._seen.get(key, ()) if now - t < self.window]

    def wait(self, *keys: str, now: float | None = None) -> float:
        """Seconds until every key is under its limit again (0: an attempt may be made now); counts nothing."""
        now = time.monotonic() if now is None else now
        longest = 0.0
        for key in keys:
            stamps = self._recent(key, now)
            if len(stamps) >= self.limit:
                longest = max(longest, stamps[-self.limit] + self.window - now) if self.limit > 0 else math.inf
        return longest

    def count(self, *keys: str, now: float | None = None) -> None:
        """Count one attempt on every key (a wrong password, a new account)."""
        now = time.monotonic() if now is None else now
        for key in keys:
            stamps = self._recent(key, now)
            stamps.append(now)
            self._seen[key] = stamps
            self._seen.move_to_end(key)
        while len(self._seen) > self.size:
            self._seen.popitem(last=False)

    def forget(self, *keys: str) -> None:
        """Forget the attempts on these keys (a right password ends the count of its name and address)."""
        for key in keys:
            self._seen.pop(key, None)


def retry_seconds(wait: float) -> int:
    """A wait as the whole seconds a client is told (``retry_after``, ``Retry-After``): at least 1."""
    return max(1, math.ceil(wait)) if math.isfinite(wait) else 24 * 3600


def trusted_networks(entries: Iterable[str]) -> tuple[Network, ...]:
    """The proxies whose forwarding headers are believed (``[server] trusted_proxies``): addresses
    (``127.0.0.1``) or networks (``10.0.0.0/8``); raises ``ValueError`` for anything else."""
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in entries)


def _hop(raw: str) -> str | None:
    """One hop of ``X-Forwarded-For`` or of a ``Forwarded`` ``for=`` as a plain address, else ``None``
    (``unknown``, an obfuscated name, garbage). Ports and IPv6 brackets are dropped."""
    text = raw.strip().strip('"').strip()
    if text.startswith("["):
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:
        text = text.split(":", 1)[0]
    try:
        return str(ipaddress.ip_address(text))
    except ValueError:
        return None


def _forwarded_for(header: str) -> list[str]:
    """The ``for=`` values of a ``Forwarded`` header (RFC 7239), in order, one per element."""
    hops: list[str] = []
    for element in header.split(","):
        value = "?"
        for pair in element.split(";"):
            name, _, raw = pair.partition("=")
            if name.strip().lower() == "for":
                value = raw
        hops.append(value)
    return hops


def is_trusted(address: str, trusted: tuple[Network, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def client_address(peer: str, trusted: tuple[Network, ...], *, forwarded: str | None = None,
                   x_forwarded_for: str | None = None) -> str:
    """Who the client is: the connection's ``peer`` address, unless the peer is a trusted proxy;
    then the nearest hop named by the proxies (``Forwarded``'s ``for=``, else ``X-Forwarded-For``,
    read from the right) that is not itself a trusted proxy. A hop that is not an address stops
    the walk at the last trusted one. The one place the server decides a client's address."""
    if not trusted or not is_trusted(peer, trusted):
        return peer
    if forwarded:
        hops = _forwarded_for(forwarded)
    elif x_forwarded_for:
        hops = x_forwarded_for.split(",")
    else:
        return peer
    found = peer
    for raw in reversed(hops):
        hop = _hop(raw)
        if hop is None:
            return found
        found = hop
        if not is_trusted(hop, trusted):
            return hop
    return found
