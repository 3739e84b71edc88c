"""The tournaments a server holds (比赛), as its config file names them: ``[[tournament]]`` tables.

Each table::

    [[tournament]]
    id = "evening"                  # [a-z0-9_-], at most 32 characters, unique
    name = "晚间赛"
    starts = "2026-12-02T20:00:00+08:00"   # ISO 8601 with its offset, or "every 30m" / "every 2h"
    entry = 500                     # coins, or "match_ticket" (比赛卡)
    rounds = 2
    hands_per_round = 4
    preset = "qq"                   # or "chengdu"
    options = { exchange_three = "random" }
    prizes = [3000, 1500, 500]      # coins by place
    min_players = 4                 # fewer at the start: cancelled, entries refunded
    max_players = 64                # entries refused beyond it

``starts = "every 30m"`` holds one every 30 minutes, on the multiples of the period since
1970-01-01 UTC (every 30m: hh:00 and hh:30 UTC). Tournament tables play for points, not coins
(their coefficient and fee are 0): the entry and the prizes are the tournament's only coins.

Standard library and the rules only: :mod:`xuezhan.server.config` reads this with the rest of
the file, and the controller (:mod:`xuezhan.server.tournaments`) runs what it describes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Final, Literal

from ..errors import RulesError, XuezhanError
from ..ids import ErrorCode
from ..match import MAX_HANDS, RoomConfig
from ..rules import Rules

MATCH_TICKET: Final = "match_ticket"
"""The entry that is a match ticket (比赛卡, :class:`xuezhan.match.ItemKind`) rather than coins."""
MAX_ROUNDS: Final = 16
MAX_ENTRANTS: Final = 1024
MAX_PERIOD_MINUTES: Final = 7 * 24 * 60
_ID: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_EVERY: Final = re.compile(r"every\s+(\d{1,6})\s*(m|h)")
_KEYS: Final = frozenset({"id", "name", "starts", "entry", "rounds", "hands_per_round", "preset", "options", "prizes",
                          "min_players", "max_players"})
EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)

Entry = int | Literal["match_ticket"]


def _bad(where: str, message: str) -> XuezhanError:
    return XuezhanError(ErrorCode.BAD_CONFIG, f"{where}: {message}")


def _count(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int, where: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _bad(where, f"{key} must be an integer from {lo} to {hi}, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """One ``[[tournament]]`` table, checked: when it starts (``at`` once, or every ``every``),
    what it costs, how it plays (``room``: the rules, ``hands_per_round`` hands, no coins) and pays."""

    id: str
    name: str
    starts: str
    """As written in the file."""
    entry: Entry
    rounds: int
    hands_per_round: int
    room: RoomConfig
    prizes: tuple[int, ...]
    min_players: int = 4
    max_players: int = 64
    at: datetime | None = None
    """The start of a tournament held once (an aware time)."""
    every: timedelta | None = None
    """The period of one held again and again."""

    @classmethod
    def from_mapping(cls, data: object, where: str = "[[tournament]]") -> TournamentConfig:
        """A ``[[tournament]]`` table, checked; ``bad_config`` saying what is wrong."""
        if not isinstance(data, Mapping):
            raise _bad(where, "a tournament is a table")
        unknown = set(data) - _KEYS
        if unknown:
            raise _bad(where, f"unknown key(s) {', '.join(sorted(map(str, unknown)))}")
        ident = data.get("id")
        if not isinstance(ident, str) or not _ID.fullmatch(ident):
            raise _bad(where, f"id must be 1-32 of a-z, 0-9, _ and - (starting with a letter or digit), not {ident!r}")
        where = f"tournament {ident!r}"
        name = data.get("name", ident)
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise _bad(where, "name must be 1-40 characters")
        starts = data.get("starts")
        if not isinstance(starts, str):
            raise _bad(where, "starts must be an ISO 8601 time with its offset or \"every 30m\"")
        at, every = parse_starts(starts, where)
        entry = data.get("entry", 0)
        if entry != MATCH_TICKET and (isinstance(entry, bool) or not isinstance(entry, int) or entry < 0
                                      or entry > 10**12):
            raise _bad(where, f"entry must be \"match_ticket\" or a number of coins, not {entry!r}")
        rounds = _count(data, "rounds", 3, 1, MAX_ROUNDS, where)
        hands = _count(data, "hands_per_round", 4, 1, MAX_HANDS, where)
        max_players = _count(data, "max_players", 64, 2, MAX_ENTRANTS, where)
        min_players = _count(data, "min_players", 4, 2, max_players, where)
        preset = data.get("preset", "qq")
        options = data.get("options", {})
        if preset not in ("qq", "chengdu"):
            raise _bad(where, f"preset must be \"qq\" or \"chengdu\", not {preset!r}")
        if not isinstance(options, Mapping):
            raise _bad(where, "options must be a table of rule options")
        try:
            rules = Rules.preset(preset).with_options(options)
            room = RoomConfig(rules, coefficient=0, fee=0, hands=hands)
        except (RulesError, XuezhanError, TypeError, ValueError) as exc:
            raise _bad(where, f"options: {getattr(exc, 'message', exc)}") from None
        prizes = data.get("prizes", [])
        if not isinstance(prizes, Sequence) or isinstance(prizes, str) or len(prizes) > max_players or not all(
                isinstance(p, int) and not isinstance(p, bool) and 0 <= p <= 10**12 for p in prizes):
            raise _bad(where, "prizes must be a list of coins by place (at most max_players of them)")
        return cls(ident, name.strip(), starts, entry, rounds, hands, room, tuple(prizes), min_players, max_players,
                   at, every)

    def next_start(self, after: datetime) -> datetime | None:
        """The first start strictly after ``after`` (``None``: a tournament held once, started already)."""
        if self.at is not None:
            return self.at if self.at > after else None
        assert self.every is not None
        period = self.every
        done = math.floor((after - EPOCH) / period)
        return EPOCH + period * (done + 1)

    def instance_id(self, start: datetime) -> str:
        """The id of the tournament held at ``start``: the config's id for one held once, else the id
        and the start in UTC (``evening-202612021230``)."""
        if self.at is not None:
            return self.id
        return f"{self.id}-{start.astimezone(UTC):%Y%m%d%H%M}"

    def entry_json(self) -> int | str:
        return self.entry


def parse_starts(starts: str, where: str = "tournament") -> tuple[datetime | None, timedelta | None]:
    """``starts`` as (the one start, ``None``) or (``None``, the period); ``bad_config`` otherwise."""
    every = _EVERY.fullmatch(starts.strip())
    if every is not None:
        minutes = int(every.group(1)) * (60 if every.group(2) == "h" else 1)
        if not 1 <= minutes <= MAX_PERIOD_MINUTES:
            raise _bad(where, f"the period of \"every\" is 1 minute to {MAX_PERIOD_MINUTES // 1440} days")
        return None, timedelta(minutes=minutes)
    try:
        at = datetime.fromisoformat(starts.strip())
    except ValueError:
        raise _bad(where, f"starts {starts!r} is neither an ISO 8601 time nor \"every 30m\"") from None
    if at.tzinfo is None:
        raise _bad(where, f"starts {starts!r} needs its offset (+08:00, Z)")
    return at, None


def tournaments_from(tables: object) -> tuple[TournamentConfig, ...]:
    """The ``[[tournament]]`` tables of a config file (a list of tables), checked, ids unique."""
    if tables is None:
        return ()
    if not isinstance(tables, list):
        raise XuezhanError(ErrorCode.BAD_CONFIG, "tournament must be an array of tables ([[tournament]])")
    out = tuple(TournamentConfig.from_mapping(t, f"[[tournament]] number {i + 1}") for i, t in enumerate(tables))
    ids = [t.id for t in out]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise XuezhanError(ErrorCode.BAD_CONFIG, f"tournament id(s) used twice: {', '.join(twice)}")
    return out
