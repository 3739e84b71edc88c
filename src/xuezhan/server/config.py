"""Server settings: timeouts, bot pacing and limits, all in one frozen value.

Time lives here and in the table tasks, never in the engine. Tests shrink every
delay to (almost) nothing; a real table uses the defaults.
"""

from __future__ import annotations

import dataclasses
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..bots import DEFAULT_MAX_LINE, check_max_line, make_bot
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..match import MAX_COEFFICIENT, MAX_FEE, MAX_HANDS, ItemKind, RoomConfig
from ..rules import MAX_BASE_SCORE, MAX_MULTIPLE
from .limits import trusted_networks
from .tournament_config import TournamentConfig, tournaments_from

_LIMIT_BOUNDS: Final = (
    ("max_base_score", 1, MAX_BASE_SCORE),
    ("max_cap_multiple", 1, MAX_MULTIPLE),
    ("max_hua_zhu_multiple", 0, MAX_MULTIPLE),
    ("max_coefficient", 0, MAX_COEFFICIENT),
    ("max_fee", 0, MAX_FEE),
    ("max_hands", 1, MAX_HANDS),
)
"""Each room limit of the server and the range it may take: never beyond the bounds that keep
settlements inside 64-bit columns (docs/options.md)."""

SHOP: Final = (ItemKind.DOUBLE, ItemKind.FLUSH, ItemKind.SWAP, ItemKind.RANDOM_SWAP, ItemKind.SEEK,
               ItemKind.GOLDEN_FINGER, ItemKind.MATCH_TICKET)
"""The item cards the shop sells, in its order (every kind there is)."""


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Every tunable of the web table. Times are in seconds."""

    turn_timeout: float = 25.0
    """A seated human's time to discard (or hu, or kong) before the stand-in bot takes that decision
    (two such decisions in a row start 托管)."""
    claim_timeout: float = 8.0
    """Time to answer a discard (hu / gang / peng / pass) before the bot answers."""
    choice_timeout: float = 30.0
    """Time for 换三张 and 定缺."""
    restart_grace: float = 15.0
    """After a restart, the least time a person's open decision gets before the stand-in may take it
    (the decision's whole time limit when that is longer): time to reconnect."""
    bot_delay: float = 0.7
    """How long a bot (or a seat in 托管) waits before it acts, so people can follow the play."""
    bot_claim_delay: float = 0.35
    """How long a bot waits before it answers a claim window (at most half of ``discard_pause``
    when there is one, so its answer falls inside the pause)."""
    discard_pause: float = 0.6
    """After every discard, claimable or not, the table holds this long before anything else is
    shown (the next draw, or a claim's result), and shows the seats that may not claim the tile,
    and spectators, only the discard meanwhile: nobody learns from the timing or the messages
    whether another seat may claim it. 0: no pause."""
    next_hand_delay: float = 20.0
    """After a hand ends, the next one starts when every connected player is ready, or after this."""
    queue_wait: float = 10.0
    """How long the first person in a queue (``/api/queue``) waits for others with the same choice
    before bots take the table's other seats; also how long a queue table waits for its people to
    arrive before it deals without the missing ones."""
    room_idle_timeout: float = 1800.0
    """A room nobody is connected to is closed after this long (hands in progress are settled first)."""
    max_message_bytes: int = 4096
    """A client message longer than this is refused with an error event."""
    rate_per_second: float = 10.0
    """Sustained client messages per second per connection."""
    rate_burst: int = 30
    """Messages a connection may send in a burst before the rate limit applies."""
    rate_strikes: int = 50
    """Refused messages after which a flooding connection is closed."""
    http_rate_per_second: float = 5.0
    """Sustained lobby requests that create things (accounts, rooms) per client address."""
    http_rate_burst: int = 20
    send_queue: int = 256
    """Messages waiting for a slow client before it is disconnected."""
    max_rooms: int = 500
    """Rooms open at once, on the whole server: the last resort against abuse (``too_many_rooms``),
    behind ``max_open_rooms_per_account``."""
    max_open_rooms_per_account: int = 3
    """Rooms one account may have open at once among those it made (``POST /api/rooms``, quick
    start): each waiting for its match, or with its match being played and the account still in it
    (:meth:`xuezhan.server.lobby.Lobby.open_rooms`). One more is ``too_many_open_rooms`` (429) and
    nothing is made. Tables the queue seats people at are the server's, and never count."""
    waiting_room_timeout: float = 600.0
    """A room still waiting for its match closes once nobody has been connected to it for this long,
    counted from its creation or from when the last connection left it, across a restart too (a
    room nobody is connected to whose match is over closes after it too, if ``room_idle_timeout``
    is not shorter)."""
    max_spectators: int = 32
    max_base_score: int = 100
    """The largest base score (底分) a room may set. This and the five limits below are checked
    when a room is created (:meth:`check_room`); each lies within the bounds every room obeys
    (:data:`xuezhan.rules.MAX_BASE_SCORE`, :data:`xuezhan.match.MAX_COEFFICIENT` ...)."""
    max_cap_multiple: int = 1024
    """The largest ``cap_multiple`` a room may set (a room may also play without a cap)."""
    max_hua_zhu_multiple: int = 1024
    """The largest integer ``hua_zhu_multiple`` a room may set."""
    max_coefficient: int = 10_000
    """The largest coefficient N (coins per point) of a room."""
    max_fee: int = 1_000_000
    """The largest fee A (coins per seat per hand) of a room."""
    max_hands: int = 64
    """The most hands a match in a room may last."""
    starting_coins: int = 20_000
    """Coins a new account is granted, once (setting a password later grants nothing more)."""
    accounts_per_address: int = 3
    """New accounts (guests or not) one client address may make a day (UTC); then ``rate_limited``."""
    session_ttl: float = 30 * 24 * 3600.0
    """How long a session lasts (seconds); an expired session cookie is refused."""
    login_attempts: int = 10
    """Wrong passwords (and new accounts) allowed per name from one client address in
    ``login_window``; a right password from another address is never refused for them."""
    login_window: float = 300.0
    login_attempts_per_address: int = 50
    """Wrong passwords (and new accounts) allowed per client address, whatever the names, in
    ``login_window``."""
    trusted_proxies: tuple[str, ...] = ()
    """Proxies (addresses or networks, ``"10.0.0.0/8"``) whose ``X-Forwarded-For`` / ``Forwarded``
    names the client; from any other peer those headers are ignored. Default: none."""
    relief_floor: int = 1_000
    """Below this balance a player may take the daily relief coins (the novice tier's minimum)."""
    relief_amount: int = 2_000
    """The daily relief, once a day (UTC) per account."""
    custom_stakes: bool = False
    """Rooms may set their own coefficient, fee and stake options instead of a tier's (tests and
    friendly servers); such a room has no tier and its stake is only within the limits below."""
    bot_name: str = "heuristic"
    """The bot that plays a person's seat under 托管, and the bot seats unless ``seat_bot`` is set."""
    seat_bot: str = ""
    """The bot at the bot seats, any bot name (docs/interfaces.md §3, bots): ``"cmd:python mybot.py"``
    seats an outside program at the web tables; empty: ``bot_name``."""
    bot_timeout: float = 5.0
    """Seconds an outside bot (``cmd:``) has for each decision before the heuristic takes it."""
    bot_max_line: int = DEFAULT_MAX_LINE
    """The most bytes of one line an outside bot (``cmd:``) may write (1 MiB, at least 1,024); a
    longer line is the bot's fault, and the heuristic takes that decision."""
    seed: int | None = None
    """Fixed seed for the walls (tests and benchmarks only); ``None`` uses the secrets module."""
    secure_cookies: bool = False
    """Mark the session cookie ``Secure`` (behind HTTPS)."""
    write_process: bool = True
    """Make the tables' writes (hand logs, settlements) in a process of their own
    (:mod:`xuezhan.server.writer_process`), on a database several processes share (a SQLite file,
    PostgreSQL); ``False``: on a thread of the server's process."""
    header_timeout: float = 10.0
    """Seconds a connection has to send a request's headers in full (from its opening, or from the
    first byte of a later request on it); past them it is closed (``xuezhan serve``)."""
    max_connections_per_address: int = 64
    """Connections (HTTP and websocket) one client address (the TCP peer) may hold open at once;
    more are closed as soon as they are accepted (``xuezhan serve``)."""
    tournaments: tuple[TournamentConfig, ...] = ()
    """The tournaments the server holds: the file's ``[[tournament]]`` tables
    (:mod:`xuezhan.server.tournament_config`), not a ``[server]`` setting."""
    item_price_double: int = 2_000
    """The item shop's price of a double card (加倍卡), in coins (``GET /api/items``); this and the
    six prices below are at least 1."""
    item_price_flush: int = 3_000
    """The price of a flush card (清一色卡)."""
    item_price_swap: int = 1_000
    """The price of a swap card (换牌卡)."""
    item_price_random_swap: int = 500
    """The price of a random swap card (随机换牌卡)."""
    item_price_seek: int = 500
    """The price of a seek card (查找卡)."""
    item_price_golden_finger: int = 1_000
    """The price of a golden finger (金手指): the seat's discards marked while its player stays at
    the table."""
    item_price_match_ticket: int = 5_000
    """The price of a match ticket (比赛卡), the entry to a tournament."""

    def __post_init__(self) -> None:
        try:
            trusted_networks(self.trusted_proxies)
        except (ValueError, TypeError, AttributeError):
            raise ValueError(f"ServerConfig.trusted_proxies must be addresses or networks, "
                             f"not {self.trusted_proxies!r}") from None
        for name, lo, hi in _LIMIT_BOUNDS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(f"ServerConfig.{name} must be an integer from {lo} to {hi}, not {value!r}")
        rooms = self.max_open_rooms_per_account
        if isinstance(rooms, bool) or not isinstance(rooms, int) or rooms < 1:
            raise ValueError(f"ServerConfig.max_open_rooms_per_account must be an integer of 1 or more, not {rooms!r}")
        wait = self.waiting_room_timeout
        if isinstance(wait, bool) or not isinstance(wait, int | float) or not 0 < wait < math.inf:
            raise ValueError(f"ServerConfig.waiting_room_timeout must be a number of seconds above 0, not {wait!r}")
        if not 0 < self.header_timeout < math.inf:
            raise ValueError(f"ServerConfig.header_timeout must be a number of seconds above 0, "
                             f"not {self.header_timeout!r}")
        if self.max_connections_per_address < 1:
            raise ValueError("ServerConfig.max_connections_per_address must be at least 1, "
                             f"not {self.max_connections_per_address!r}")
        try:
            check_max_line(self.bot_max_line)
        except XuezhanError as exc:
            raise ValueError(f"ServerConfig.bot_max_line: {exc.message}") from None
        for kind, price in self.item_prices().items():
            if isinstance(price, bool) or not isinstance(price, int) or price < 1:
                raise ValueError(f"ServerConfig.item_price_{kind} must be a number of coins of 1 or more, "
                                 f"not {price!r}")
        for name in (self.bot_name, self.seat_bot):
            if name:
                # unknown_bot now, not when a table deals
                make_bot(name, timeout=self.bot_timeout, max_line=self.bot_max_line)

    def item_prices(self) -> dict[ItemKind, int]:
        """What the item shop sells and the price of each, in coins (``item_price_<kind>``), in the
        shop's order."""
        return {kind: getattr(self, f"item_price_{kind}") for kind in SHOP}

    def check_room(self, room: RoomConfig) -> None:
        """Refuse a room beyond this server's limits (``bad_room``); rooms are bounded already."""
        rules = room.rules
        checks: list[tuple[str, int | None, int]] = [
            ("base_score", rules.base_score, self.max_base_score),
            ("cap_multiple", rules.cap_multiple, self.max_cap_multiple),
            ("hua_zhu_multiple", rules.hua_zhu_multiple if isinstance(rules.hua_zhu_multiple, int) else None,
             self.max_hua_zhu_multiple),
            ("coefficient", room.coefficient, self.max_coefficient),
            ("fee", room.fee, self.max_fee),
            ("hands", room.hands, self.max_hands),
        ]
        for name, value, limit in checks:
            if value is not None and value > limit:
                raise XuezhanError(ErrorCode.BAD_ROOM, f"{name} {value} is over this server's limit of {limit}")

    @classmethod
    def fast(cls, **overrides: Any) -> ServerConfig:
        """Settings for tests and benchmarks: bots act at once, short timeouts, no limit on accounts,
        sign-ins or the rooms an account has open (a test of a limit sets it)."""
        base = cls(turn_timeout=5.0, claim_timeout=5.0, choice_timeout=5.0, bot_delay=0.0,
                   bot_claim_delay=0.0, discard_pause=0.0, next_hand_delay=0.5, rate_per_second=1000.0,
                   rate_burst=1000, accounts_per_address=1_000_000, login_attempts=1_000_000,
                   login_attempts_per_address=1_000_000, max_open_rooms_per_account=1_000_000,
                   custom_stakes=True, write_process=False)
        return dataclasses.replace(base, **overrides)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ServerConfig:
        """Settings from a mapping of field names (a ``[server]`` table of a TOML file); unknown
        names and values of the wrong type are ``bad_config``."""
        names = {f.name for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in names or key == "tournaments":
                raise XuezhanError(ErrorCode.BAD_CONFIG, f"unknown server setting {key!r}")
            default = getattr(cls(), key)
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, float):
                ok = isinstance(value, int | float) and not isinstance(value, bool) and value >= 0
                value = float(value) if ok else value
            elif isinstance(default, int):
                ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            elif isinstance(default, tuple):  # trusted_proxies: a list of strings
                ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
                value = tuple(value) if ok else value
            elif isinstance(default, str):
                ok = isinstance(value, str) and (bool(value) or key == "seat_bot")
            else:  # seed: an integer or absent
                ok = isinstance(value, int) and not isinstance(value, bool)
            if not ok:
                raise XuezhanError(ErrorCode.BAD_CONFIG, f"server setting {key!r} has a bad value {value!r}")
            values[key] = value
        try:
            return cls(**values)
        except ValueError as exc:  # a limit beyond the bounds every room keeps
            raise XuezhanError(ErrorCode.BAD_CONFIG, str(exc)) from None

    @classmethod
    def from_file(cls, path: Path) -> ServerConfig:
        """Settings from a TOML file: its ``[server]`` table (or the top level) and its
        ``[[tournament]]`` tables."""
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise XuezhanError(ErrorCode.BAD_CONFIG, f"cannot read {path}: {exc.strerror or exc}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise XuezhanError(ErrorCode.BAD_CONFIG, f"{path} is not valid TOML: {exc}") from None
        tournaments = tournaments_from(data.pop("tournament", None))
        table = data.get("server", data)
        if not isinstance(table, dict):
            raise XuezhanError(ErrorCode.BAD_CONFIG, "[server] must be a table")
        config = cls.from_mapping(table)
        for t in tournaments:
            try:
                config.check_room(t.room)
            except XuezhanError as exc:
                raise XuezhanError(ErrorCode.BAD_CONFIG, f"tournament {t.id!r}: {exc.message}") from None
        return dataclasses.replace(config, tournaments=tournaments)
