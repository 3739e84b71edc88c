"""The bot protocol over JSON lines (docs/interfaces.md §4, bot protocol), both ways.

xuezhan sends an outside bot one JSON object per line:

- ``{"type": "start_hand", "protocol": 1, "seat": S, "rules": {OPTION: VALUE, ...}}`` when a
  hand begins (``protocol``: :data:`PROTOCOL_VERSION`; ``rules`` has ``preset`` and every
  option, :func:`rules_json`);
- ``{"type": "request", "view": VIEW, "legal": [ACTION, ...]}`` whenever the seat must
  decide: ``VIEW`` is :func:`~xuezhan.engine.views.seat_view_json` of the seat plus
  ``"step"``, the number of actions applied so far in the hand; ``ACTION`` objects are in
  the game-record action format;
- ``{"type": "end_hand", "result": RESULT}`` when the hand is over (as ``replay --json``,
  with the events as the seat may see them).

and reads ``{"action": ACTION}`` in answer to each request. docs/bot-protocol.md is the full
specification, with the JSON Schema of every message (:mod:`xuezhan.bots.schema`).
:class:`RemoteView` is the other side: a seat view rebuilt from ``VIEW``, so that any of our
bots can play as an outside program (:func:`serve`, ``xuezhan bot stdio --bot NAME``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any, Final

from ..engine.actions import Action
from ..engine.state import RIVER_CLAIMED
from ..engine.views import SeatView
from ..jsontext import json_line
from ..rules import Rules
from ..scoring import Meld, MeldKind
from ..tiles import SUITS, parse_tile, parse_tiles
from .base import Bot

PROTOCOL_VERSION: Final = 1
"""The version of the bot protocol, sent in every ``start_hand``: it changes when a message loses
or changes a field, or gains one (docs/bot-protocol.md, versions)."""


def rules_json(rules: Rules) -> dict[str, Any]:
    """Every option of ``rules`` by its docs/rules.md §14 name, with ``preset`` (readable by
    :meth:`Rules.from_mapping`)."""
    out: dict[str, Any] = {"preset": rules.preset_name}
    for f in dataclasses.fields(rules):
        if f.name == "preset_name":
            continue
        value = getattr(rules, f.name)
        out[f.name] = dict(value) if f.name == "fan" else value
    return out


def start_message(view: SeatView) -> dict[str, Any]:
    return {"type": "start_hand", "protocol": PROTOCOL_VERSION, "seat": view.seat, "rules": rules_json(view.rules)}


def request_message(view: SeatView, legal: Sequence[Action]) -> dict[str, Any]:
    return {"type": "request", "view": {**view.to_json(), "step": view.step}, "legal": [a.to_json() for a in legal]}


def end_message(view: SeatView) -> dict[str, Any]:
    return {"type": "end_hand", "result": view.result_json()}


def _tile(text: str | None) -> int | None:
    return None if text is None else parse_tile(text)


class RemoteView(SeatView):
    """A seat's view rebuilt from the ``VIEW`` of a request: what :class:`SeatView` answers,
    read from the JSON (an outside program knows nothing else of the game)."""

    __slots__ = ("_counts", "_data", "_rules", "_seats")

    def __init__(self, data: dict[str, Any], rules: Rules) -> None:
        self._data = data
        self._rules = rules
        self.seat = int(data["seat"])
        self._seats: list[dict[str, Any]] = list(data["seats"])
        counts = [0] * 27
        for t in parse_tiles(data["hand"] or ""):
            counts[t] += 1
        self._counts = counts

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def counts(self) -> list[int]:
        return self._counts[:]

    @property
    def hand(self) -> list[int]:
        return [t for t in range(27) for _ in range(self._counts[t])]

    @property
    def drawn(self) -> int | None:
        return _tile(self._data.get("drawn"))

    @property
    def void(self) -> int | None:
        return self.voids()[self.seat]

    def voids(self) -> list[int | None]:
        return [None if s["void"] is None else SUITS.index(s["void"]) for s in self._seats]

    def melds(self, seat: int) -> list[Any]:
        return [Meld(MeldKind(m["type"]), parse_tile(m["tile"])) for m in self._seats[seat]["melds"]
                if m["tile"] is not None]

    def hidden_kongs(self, seat: int) -> int:
        return sum(1 for m in self._seats[seat]["melds"] if m["tile"] is None)

    def river(self, seat: int) -> list[int]:
        return [parse_tile(t) for t in self._seats[seat]["river"]]

    def river_state(self, seat: int) -> list[int]:
        return [int(x) for x in self._seats[seat]["river_state"]]

    def aside(self, seat: int) -> list[int]:
        return [parse_tile(t) for t in self._seats[seat]["aside"]]

    def shown_counts(self, seat: int) -> list[int] | None:
        if seat == self.seat:
            return self.counts
        text = self._seats[seat].get("hand")
        if text is None:
            return None
        counts = [0] * 27
        for t in parse_tiles(text):
            counts[t] += 1
        return counts

    def wins(self, seat: int) -> int:
        return int(self._seats[seat]["wins"])

    def escaped(self, seat: int) -> bool:
        return bool(self._seats[seat]["escaped"])

    def concealed_count(self, seat: int) -> int:
        return int(self._seats[seat]["concealed"])

    def won(self, seat: int) -> bool:
        return bool(self._seats[seat]["won"])

    def win_tiles(self, seat: int) -> list[int]:
        return [parse_tile(w["tile"]) for w in self._data["winners"] if w["seat"] == seat]

    @property
    def live(self) -> int:
        return int(self._data["wall"])

    @property
    def step(self) -> int:
        return int(self._data.get("step", 0))

    @property
    def phase(self) -> str:
        return str(self._data["phase"])

    @property
    def turn(self) -> int:
        return int(self._data["turn"])

    @property
    def dealer(self) -> int:
        return int(self._data["dealer"])

    @property
    def offered_tile(self) -> int | None:
        return _tile(self._data.get("offered"))

    def visible_counts(self) -> list[int]:
        vis = self._counts[:]
        for i, s in enumerate(self._seats):
            for m in s["melds"]:
                if m["tile"] is not None:
                    vis[parse_tile(m["tile"])] += 3 if m["type"] == "peng" else 4
            for t, st in zip(s["river"], s["river_state"], strict=False):
                if st != RIVER_CLAIMED:
                    vis[parse_tile(t)] += 1
            for t in s["aside"]:
                vis[parse_tile(t)] += 1
            if i != self.seat and s.get("hand") is not None:
                for t in parse_tiles(s["hand"]):
                    vis[t] += 1
        return vis

    def deltas(self) -> list[int]:
        return [int(x) for x in self._data["deltas"]]

    def to_json(self) -> dict[str, Any]:
        return dict(self._data)

    def result_json(self) -> dict[str, Any]:
        raise NotImplementedError("an outside program is sent the result at end_hand")


DEFAULT_MAX_LINE = 1 << 20
"""The most bytes of one line of the protocol, newline not counted (``--bot-max-line``)."""


def capped_lines(stream: IO[bytes], max_line: int = DEFAULT_MAX_LINE, *,
                 stderr: IO[str] | None = None) -> Iterator[str]:
    """The lines of ``stream`` as text, each read into at most ``max_line + 1`` bytes: a longer
    line is passed over to its end without being held, and a line that is not UTF-8 is passed
    over too; either is named on ``stderr``."""
    while raw := stream.readline(max_line + 1):
        problem = ""
        if len(raw) > max_line and not raw.endswith(b"\n"):
            while (rest := stream.readline(max_line + 1)) and not rest.endswith(b"\n"):
                pass  # the rest of the long line, one capped piece at a time
            problem = f"a line longer than {max_line} bytes"
        else:
            try:
                yield raw.decode("utf-8")
                continue
            except UnicodeDecodeError as exc:
                problem = f"a line that is not UTF-8 ({exc.reason} at byte {exc.start})"
        if stderr is not None:
            stderr.write(f"xuezhan bot: {problem}: passed over\n")
            stderr.flush()


def serve(bot: Bot, stdin: Iterable[str], stdout: IO[str], *, seed: int = 0, stderr: IO[str] | None = None) -> int:
    """Play ``bot`` over the protocol: read messages from ``stdin`` (lines of text:
    :func:`capped_lines` of a byte stream), answer requests on ``stdout``, until ``stdin`` ends.
    Returns how many requests were answered. A line that is not a message of the protocol is
    answered with nothing (xuezhan counts that as the bot's fault) and named on ``stderr``."""
    rules = Rules.preset("qq")
    answered = 0
    hands = 0
    for line in stdin:
        try:
            msg = json.loads(line)
            kind = msg.get("type")
            if kind == "start_hand":
                rules = Rules.from_mapping(msg["rules"])
                hands += 1
                # an outside program is not told the hand's seed: seed from the hand count and the seat
                bot.start_hand((seed * 1_000_003 + hands) * 4 + int(msg["seat"]))
            elif kind == "request":
                view = RemoteView(msg["view"], rules)
                legal = [Action.from_json(a) for a in msg["legal"]]
                action = legal[0] if len(legal) == 1 else bot.choose(view, legal)
                stdout.write(json_line({"action": action.to_json()}) + "\n")
                stdout.flush()
                answered += 1
            elif kind == "end_hand":
                pass
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            if stderr is not None:
                stderr.write(f"xuezhan bot: not a protocol message ({type(exc).__name__}: {exc}): {line[:80]!r}\n")
                stderr.flush()
    return answered
