"""The compiled core: whole hands in C, many per call, the same records as the Python engine.

The C sources (``csrc/`` in the source tree) hold one hand's state machine, the deal from a
seed (Python's Mersenne Twister, reproduced), fan scoring, the settlement and compiled bots;
:func:`play_hands` plays one hand per seed without calling back into Python. The Python
engine (:mod:`xuezhan.engine`) stays the reference: for the same seed and rules the compiled
core offers the same legal actions in the same order, so the same bots take the same
decisions and every record comes out byte-identical (``tests/test_native.py`` checks it).

Long: the one Python face of the core (batches of hands, play-outs, the learned bot's weights,
a hand played action by action, the learning tables), each a thin checked call into C.

:class:`NativeGame` plays one hand action by action (from a seed or a prepared deal), with the
Python engine's legal actions and its codes for illegal ones: for tests and playouts.

The core is optional. ``pip install .`` builds it where a C compiler is present and goes on
without it where none is; :func:`available` says which, and everything falls back to the
Python engine. What the core does not implement (:func:`refusal` says what) is refused, so
that the Python engine plays it.

The C sources read every id, enum and fan table by name from a header written at build time
from the Python tables (:mod:`xuezhan.native.gen`); the rules reach them through one
marshaller, :func:`marshal_rules`, in the layout that header declares.

Compiled bots: ``random`` (:class:`xuezhan.bots.random_bot.RandomBot`, the same hash of seed
and step) and ``heuristic`` (:class:`xuezhan.bots.heuristic.HeuristicBot`, the same decisions:
the same shanten, the same floats in the same order, the same ties). Other bots run on the
Python engine.
"""

from __future__ import annotations

import dataclasses
import importlib
import random
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import Any, Final

from ..engine.actions import REASONS, Action, ActionType, LedgerEntry
from ..engine.deal import Deal, validate_deal
from ..engine.game import Game
from ..engine.packed import pack_action, pack_state
from ..engine.state import EXCHANGE_DIRECTIONS
from ..errors import IllegalActionError, XuezhanError
from ..ids import ErrorCode, EventKind
from ..rules import Rules
from ..tiles import SUITS, format_tiles, tile_name
from .layout import BOT_CODES, EVENT_CODES, IRRELEVANT, REFUSED, encoders, passed_fields
from .layout import FAN_IDS as FAN_IDS


def _load() -> tuple[ModuleType | None, str | None]:
    try:
        return importlib.import_module("xuezhan.native._core"), None
    except ImportError as exc:  # not built (no compiler when installed)
        return None, str(exc)


_core, _IMPORT_ERROR = _load()

NATIVE_BOTS: Final = ("random", "heuristic")
"""Bots the compiled core plays itself."""

BATCH: Final = 512
"""Hands per call into the core (bounds the memory held for records)."""

_BOT_CODES: Final = {name: BOT_CODES.index(name) for name in NATIVE_BOTS}
HEURISTIC: Final = _BOT_CODES["heuristic"]
"""The core's code for ``HeuristicBot``."""
HEURISTIC_QUICK: Final = BOT_CODES.index("heuristic_quick")
"""The core's code for ``HeuristicBot(quick=True)`` (search play-outs; no name of its own)."""
LEARNED: Final = BOT_CODES.index("learned")
"""The core's code for :class:`~xuezhan.bots.learned.LearnedBot` on the weights of
:func:`use_learned_weights` (search play-outs; no name of its own)."""
LEARNED_ARRAYS: Final = ("s_w0", "s_b0", "s_w1", "s_b1", "s_w2", "s_b2")
"""The scorer's arrays the core reads (:data:`xuezhan.bots.learned.SHAPES`), in this order."""
QUICK_BOTS: Final = (HEURISTIC_QUICK,) * 4
"""Four quick heuristic bots (play-outs; the expert's by default)."""
_DIRECTION_NAMES: Final = {v: k for k, v in EXCHANGE_DIRECTIONS.items()}
_TYPES: Final = tuple(ActionType)
"""Action types by the core's numbers (``XZ_ACTION_*``); it plays all but escapes and item cards."""
_NOT_COMPILED: Final = (ActionType.ESCAPE, ActionType.SWAP)
_TYPE_NAMES: Final = tuple(str(t) for t in _TYPES)
_ENCODERS: Final = encoders()
_PLAYED: Final = frozenset(passed_fields() | IRRELEVANT.keys())
_DEFAULTS: Final = Rules()


def available() -> bool:
    """Whether the compiled core is built and importable here."""
    return _core is not None


def why_unavailable() -> str | None:
    """Why the compiled core cannot be imported (``None`` when it can)."""
    return _IMPORT_ERROR


def refusal(rules: Rules, bots: Sequence[str] = ()) -> str | None:
    """Why the compiled core cannot play these rules with these bots (``None``: it can).

    Every option of docs/rules.md §14 is played natively; bystanders, item cards and escapes are not
    (self-play has none), nor any bot but those of :data:`NATIVE_BOTS`. Refused as well: a core
    built from other tables than these (:func:`stale`), an option it is not passed
    (:data:`xuezhan.native.layout.REFUSED`, or one not listed at all) set to anything but its default,
    and fan given to a pattern or extra its scorer does not implement (``FAN_IMPLEMENTED``)."""
    if _core is None:
        return f"the compiled core is not built ({_IMPORT_ERROR})"
    if not isinstance(rules, Rules):
        return "no rules given"
    why = stale()
    if why is not None:
        return why
    why = unplayed(rules, _core.FAN_IMPLEMENTED)
    if why is not None:
        return why
    for name in bots:
        if name not in _BOT_CODES:
            return f"the compiled core has no {name!r} bot"
    return None


def unplayed(rules: Rules, implemented: Sequence[str]) -> str | None:
    """Why a core whose scorer implements the patterns and extras ``implemented`` cannot play
    ``rules`` as they stand (``None``: it can): fan given to another one, or an option it is not
    passed set to anything but its default. Worked out once per rules (a search asks per world)."""
    return _unplayed(rules, tuple(implemented), _PLAYED, tuple(REFUSED.items()))


@lru_cache(maxsize=64)
def _unplayed(rules: Rules, implemented: tuple[str, ...], played: frozenset[str],
              refused: tuple[tuple[str, str], ...]) -> str | None:
    for pid, fan in rules.fan:
        if fan != 0 and pid not in implemented:
            return f"the compiled core does not score {pid!r} (fan {fan} under these rules)"
    for f in dataclasses.fields(Rules):
        if f.name not in played and getattr(rules, f.name) != getattr(_DEFAULTS, f.name):
            why = dict(refused).get(f.name, "the compiled core is not passed it")
            return f"the compiled core plays {f.name!r} only at its default ({why})"
    return None


_STALE: list[str | None] = []


def stale() -> str | None:
    """Why the built core does not match the Python tables (``None``: it does, or it is not built):
    it was compiled from a header other than the one :mod:`xuezhan.native.gen` writes now (a
    table changed since; rebuild it). Worked out once per process."""
    if _core is None:
        return None
    if not _STALE:
        from . import gen

        built = getattr(_core, "GEN_DIGEST", None)
        now = gen.digest(gen.body())
        _STALE.append(None if built == now else
                      f"the compiled core was built from other tables ({built} here, {now} now): rebuild it")
    return _STALE[0]


@lru_cache(maxsize=64)
def marshal_rules(rules: Rules) -> tuple[int, ...]:
    """The rules as the core reads them: one integer per :data:`xuezhan.native.layout.RULE_WORDS`
    entry (``XzRules`` in the generated header; a bool 0/1, a choice its place among the option's
    values, no cap 0), then the fan of each of :data:`FAN_IDS` (``"cap"`` -1). The one way rules
    reach the core; worked out once per rules (every play-out of a search passes them)."""
    fan = dict(rules.fan)
    return (*(encode(rules) for encode in _ENCODERS), *(-1 if fan[pid] == "cap" else int(fan[pid]) for pid in FAN_IDS))


@dataclass(frozen=True, slots=True)
class NativeHand:
    """One hand played by the core: the summary always, the record's material with ``records``."""

    seed: int
    dealer: int
    next_dealer: int | None
    exhausted: bool
    """The wall ran out and the settlement's last events came right after (as self-play counts it)."""
    deltas: tuple[int, int, int, int]
    wins: tuple[tuple[int, int], ...]
    """(seat, fan) of every win, in order."""
    detail: tuple[Any, ...] | None
    complete: bool = True
    """The hand is over (a hand played action by action may stop anywhere)."""

    def record(self, rules: Rules, *, mapping: dict[str, Any] | None = None) -> dict[str, Any]:
        """The game record (``records.record_json`` of the same hand played by the Python engine).

        ``mapping``: ``rules.to_mapping()`` made once by a caller that writes many records (it
        costs more than the rest of a record); those records then share it."""
        if self.detail is None:
            raise XuezhanError(ErrorCode.NO_RECORD, "this hand was played without its record (records=False)")
        dice, layout, direction, actions_raw, events_raw, ledger_raw, winners_raw = self.detail
        out: dict[str, Any] = {"rules": rules.to_mapping() if mapping is None else mapping, "dealer": self.dealer}
        if dice is not None:
            out["dice"] = list(dice)
            out["wall_layout"] = _wall(layout)
        else:  # a prepared deal: the hands by seat, then the wall
            tiles = list(layout)
            hands: list[str] = []
            for seat in range(4):
                n = 14 if seat == self.dealer else 13
                hands.append(_wall(tiles[:n]))
                tiles = tiles[n:]
            out["hands"] = hands
            out["wall"] = _wall(tiles)
        if direction is not None and rules.exchange_three != "none":
            out["exchange_direction"] = _DIRECTION_NAMES[direction]
        out["actions"] = [_action_json(w) for w in _chunks(_words(actions_raw), 7)]
        winners = list(_winners(_words(winners_raw)))
        ledger = [LedgerEntry(int(f), int(t), int(p), REASONS[r]) for f, t, p, r in _chunks(_words(ledger_raw), 4)]
        out["result"] = {
            "complete": self.complete,
            "winners": winners,
            "ledger": [e.to_json() for e in ledger],
            "deltas": list(self.deltas),
            "next_dealer": self.next_dealer,
            "events": _events(_words(events_raw), winners, self),
        }
        return out


def _words(raw: bytes) -> list[int]:
    return memoryview(raw).cast("q").tolist()


def _chunks(words: list[int], n: int) -> Iterator[tuple[int, ...]]:
    it = iter(words)
    return zip(*[it] * n, strict=True)


def _actions(words: list[int]) -> Iterator[Action]:
    for seat, kind, tile, suit, a, b, c in _chunks(words, 7):
        t = _TYPES[kind]
        yield Action(seat, t, tile=None if tile < 0 else tile, suit=None if suit < 0 else suit,
                     tiles=(a, b, c) if a >= 0 else ())


def _winners(words: list[int]) -> Iterator[dict[str, Any]]:
    for w in _chunks(words, 26):
        seat, frm, tile, fan, multiple, order, base, points, _robbed, nextras = w[:10]
        extras = {FAN_IDS[w[10 + 2 * k]]: w[11 + 2 * k] for k in range(nextras)}
        yield {"seat": seat, "from": None if frm < 0 else frm, "tile": tile_name(tile), "fan": fan,
               "multiple": multiple, "order": order, "base": FAN_IDS[base], "extras": extras, "points": points}


_NAMES: Final = tuple(tile_name(t) for t in range(27))
_VOIDS: Final = (*SUITS, None)  # index -1: no void


def _wall(tiles: Iterable[int]) -> str:
    """``format_tiles(tiles, compact=False)``: every tile with its suit, in the order given."""
    return "".join([_NAMES[t] for t in tiles])


def _action_json(words: Sequence[int]) -> dict[str, Any]:
    """``Action.to_json`` of the core's packed action (checked equal by tests/test_native.py)."""
    seat, kind, tile, suit, a, b, c = words
    out: dict[str, Any] = {"seat": seat, "type": _TYPE_NAMES[kind]}
    if tile >= 0:
        out["tile"] = _NAMES[tile]
    if suit >= 0:
        out["suit"] = SUITS[suit]
    if a >= 0:
        out["tiles"] = format_tiles((a, b, c))
    return out


# the codes of the core's event stream (XZ_EVENT_*), by event kind
(_E_START, _E_DEAL, _E_EXCHANGE_CHOSEN, _E_DINGQUE_CHOSEN, _E_EXCHANGE, _E_EXCHANGE_RECEIVED, _E_EXCHANGE_DONE,
 _E_DINGQUE, _E_TURN, _E_DRAW, _E_DISCARD, _E_PAY, _E_PASS_HU, _E_PENG, _E_ANGANG, _E_BUGANG_DECLARED, _E_BUGANG,
 _E_ZHIGANG, _E_HU, _E_WALL_EMPTY, _E_END) = (EVENT_CODES.index(kind) for kind in (
    EventKind.START, EventKind.DEAL, EventKind.EXCHANGE_CHOSEN, EventKind.DINGQUE_CHOSEN, EventKind.EXCHANGE,
    EventKind.EXCHANGE_RECEIVED, EventKind.EXCHANGE_DONE, EventKind.DINGQUE, EventKind.TURN, EventKind.DRAW,
    EventKind.DISCARD, EventKind.PAY, EventKind.PASS_HU, EventKind.PENG, EventKind.ANGANG, EventKind.BUGANG_DECLARED,
    EventKind.BUGANG, EventKind.ZHIGANG, EventKind.HU, EventKind.WALL_EMPTY, EventKind.END))
_SEAT_TILE: Final = frozenset({_E_ANGANG, _E_BUGANG_DECLARED, _E_BUGANG})


def _events(words: list[int], winners: list[dict[str, Any]], hand: NativeHand) -> list[dict[str, Any]]:
    """The engine's events as ``views.event_json`` writes them, from the core's packed stream."""
    out: list[dict[str, Any]] = []
    add = out.append
    i = 0
    n = len(words)
    names = _NAMES
    kinds = EVENT_CODES  # a code's kind: its place (the same member as EventKind.<KIND>)
    draw, discard, pay, turn = _E_DRAW, _E_DISCARD, _E_PAY, _E_TURN  # most of the stream, tested first
    while i < n:
        code = words[i]
        i += 1
        if code == draw:
            add({"type": kinds[code], "seat": words[i], "tile": names[words[i + 1]], "replacement": words[i + 2] != 0})
            i += 3
        elif code == discard:
            add({"type": kinds[code], "seat": words[i], "tile": names[words[i + 1]]})
            i += 2
        elif code == turn:
            add({"type": kinds[code], "seat": words[i]})
            i += 1
        elif code == pay:
            add({"type": kinds[code], "from": words[i], "to": words[i + 1], "points": words[i + 2],
                 "reason": REASONS[words[i + 3]]})
            i += 4
        elif code == _E_START:
            add({"type": kinds[code], "dealer": words[i], "wall": words[i + 1], "bystanders": words[i + 2]})
            i += 3
        elif code == _E_DEAL:
            k = words[i + 1]
            add({"type": kinds[code], "seat": words[i], "tiles": format_tiles(words[i + 2:i + 2 + k])})
            i += 2 + k
        elif code in (_E_EXCHANGE_CHOSEN, _E_DINGQUE_CHOSEN):
            add({"type": kinds[code], "seat": words[i]})
            i += 1
        elif code == _E_EXCHANGE:
            add({"type": kinds[code], "seat": words[i], "to": words[i + 1], "tiles": format_tiles(words[i + 2:i + 5])})
            i += 5
        elif code == _E_EXCHANGE_RECEIVED:
            add({"type": kinds[code], "seat": words[i], "tiles": format_tiles(words[i + 1:i + 4])})
            i += 4
        elif code == _E_EXCHANGE_DONE:
            add({"type": kinds[code], "direction": words[i]})
            i += 1
        elif code == _E_DINGQUE:
            add({"type": kinds[code], "voids": [_VOIDS[v] for v in words[i:i + 4]]})
            i += 4
        elif code == _E_PASS_HU:
            add({"type": kinds[code], "seat": words[i], "tile": names[words[i + 1]]})
            i += 2
        elif code in (_E_PENG, _E_ZHIGANG):
            add({"type": kinds[code], "seat": words[i], "tile": names[words[i + 1]], "from": words[i + 2]})
            i += 3
        elif code in _SEAT_TILE:
            add({"type": kinds[code], "seat": words[i], "tile": names[words[i + 1]]})
            i += 2
        elif code == _E_HU:
            w = winners[words[i]]
            ev: dict[str, Any] = {"type": kinds[code], "seat": w["seat"], "from": w["from"], "tile": w["tile"],
                                  "fan": w["fan"], "multiple": w["multiple"], "base": w["base"],
                                  "extras": dict(w["extras"])}
            if words[i + 1] >= 0:
                ev["robbing"] = bool(words[i + 1])
            add(ev)
            i += 2
        elif code == _E_WALL_EMPTY:
            add({"type": kinds[code]})
        elif code == _E_END:
            add({"type": kinds[code], "deltas": list(hand.deltas), "next_dealer": hand.next_dealer})
        else:  # cannot happen: the stream comes from the core
            raise XuezhanError(ErrorCode.BAD_BATCH, f"unknown event code {code} from the compiled core")
    return out


def play_hands(
    seeds: Sequence[int],
    rules: Rules,
    bots: Sequence[str] = ("random",) * 4,
    *,
    first_dealer: int | None = None,
    chain: bool = True,
    records: bool = False,
) -> list[NativeHand]:
    """Play one hand per seed in the compiled core (hand ``k`` dealt as ``Match.start_hand`` deals
    from ``Random(seeds[k])``; each seat's bot seeded with ``bot_seed(seeds[k], seat)``).

    The first hand's dealer is ``first_dealer`` (``None``: by the dice of its seed); with
    ``chain`` each later hand is dealt by the previous hand's next dealer (by dice when that is
    ``None``), as in a match; without it every hand starts like the first. ``records`` keeps
    what :meth:`NativeHand.record` needs.

    Raises :class:`XuezhanError`: ``native_unavailable`` (not built), ``native_refused`` (rules
    or bots the core does not implement), ``bad_batch`` (a malformed request).
    """
    if _core is None:
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
    if not isinstance(rules, Rules):
        raise XuezhanError(ErrorCode.BAD_BATCH, f"rules must be a Rules value, not {type(rules).__name__}")
    if isinstance(bots, str) or not isinstance(bots, Sequence) or len(bots) != 4:
        raise XuezhanError(ErrorCode.BAD_BATCH, "bots must be four bot names")
    why = refusal(rules, bots)
    if why is not None:
        raise XuezhanError(ErrorCode.NATIVE_REFUSED, why)
    if first_dealer is not None and (isinstance(first_dealer, bool) or first_dealer not in (0, 1, 2, 3)):
        raise XuezhanError(ErrorCode.BAD_BATCH, f"first_dealer must be a seat 0-3 or None, not {first_dealer!r}")
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Sequence):
        raise XuezhanError(ErrorCode.BAD_BATCH, "seeds must be a sequence of integers")
    for k, s in enumerate(seeds):
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < 1 << 64:
            raise XuezhanError(ErrorCode.BAD_BATCH, f"seeds[{k}] must be an integer from 0 to 2**64 - 1, not {s!r}")
    words = marshal_rules(rules)
    codes = tuple(_BOT_CODES[b] for b in bots)
    dealer = -1 if first_dealer is None else first_dealer
    out: list[NativeHand] = []
    for start in range(0, len(seeds), BATCH):
        chunk = list(seeds[start:start + BATCH])
        try:
            raw = _core.play(chunk, dealer, chain, words, codes, records)
        except (ValueError, TypeError, OverflowError, RuntimeError) as exc:
            raise XuezhanError(ErrorCode.BAD_BATCH, f"the compiled core refused the batch: {exc}") from None
        for seed, (d, nd, exhausted, deltas, wins, detail) in zip(chunk, raw, strict=True):
            out.append(NativeHand(seed, d, nd, exhausted, deltas, wins, detail))
        if chain and raw:
            last = raw[-1][1]
            dealer = -1 if last is None else last
    return out


def playout_state(game: Game) -> bytes | None:
    """A hand in the middle of play (a sampled world of a search) packed for :func:`play_out`
    (:func:`xuezhan.engine.packed.pack_state`), or ``None`` when the core cannot play it on: not
    built, rules not compiled, a seat escaped."""
    if refusal(game.rules) is not None:
        return None
    words = pack_state(game)
    return None if words is None else array("q", words).tobytes()


def play_out(game: Game, state: bytes, action: Action | None,
             bots: Sequence[int] = QUICK_BOTS, wall_seed: int = 0) -> tuple[int, int, int, int]:
    """The deltas of the hand ``game`` (packed in ``state`` by :func:`playout_state`) once ``action``
    is applied and the compiled ``bots`` (codes: 0 random, 1 heuristic, :data:`HEURISTIC_QUICK`)
    have played it to its end: those ``HandDriver(game, seats).run()`` reaches with the same bots.
    With a ``wall_seed`` (1 to 2**64 - 1) the live wall is first put in another order, the one
    :func:`xuezhan.engine.views.reshuffle_wall` gives. ``game`` is not changed. Raises
    :class:`XuezhanError` ``native_unavailable`` without the core, ``bad_batch`` for a malformed
    state, an action not legal in it or a ``wall_seed`` out of range."""
    return play_outs(game, state, [action], bots, [wall_seed])[0]


def play_outs(game: Game, state: bytes, actions: Sequence[Action | None], bots: Sequence[int] = QUICK_BOTS,
              wall_seeds: Sequence[int] = (0,)) -> list[tuple[int, int, int, int]]:
    """:func:`play_out` for every wall seed and action, in that order (seeds outer), in one call:
    what a search plays in one sampled world (the state is read once, each wall order made once)."""
    if _core is None:
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
    for seed in wall_seeds:
        if not (isinstance(seed, int) and 0 <= seed < 1 << 64):
            raise XuezhanError(ErrorCode.BAD_BATCH, f"a wall seed is an integer from 0 to 2**64 - 1, not {seed!r}")
    try:
        deltas: list[tuple[int, int, int, int]] = _core.play_outs(
            marshal_rules(game.rules), state, [None if a is None else pack_action(a) for a in actions],
            tuple(bots), list(wall_seeds))
    except (ValueError, TypeError, OverflowError, RuntimeError) as exc:
        raise XuezhanError(ErrorCode.BAD_BATCH, f"the compiled core refused the play-out: {exc}") from None
    return deltas


def search_worlds(world: Game, state: bytes, deal: Sequence[int], rates: Sequence[float], rng: random.Random,
                  worlds: int, orders: int, actions: Sequence[Action | None], bots: Sequence[int] = QUICK_BOTS,
                  hands: Mapping[int, Sequence[int]] | None = None, check: Sequence[int] = (),
                  tries: int = 1) -> list[tuple[int, ...]]:
    """A search's play-outs with its worlds dealt in the core: ``worlds`` worlds of the deal of
    :func:`xuezhan.engine.views.world_deal` (``world``, packed in ``state`` by :func:`playout_state`,
    ``deal``, ``rates``), drawn from ``rng`` as
    :func:`~xuezhan.engine.views.sample_world` draws them (``hands``: its given hands), each followed by
    ``orders - 1`` wall seeds (``getrandbits(64) | 1``), every action played to the end under every
    order (the first: the wall as dealt). A world is dealt again, ``tries`` times at most, while one of
    the ``check`` seats is ready, and given hands that do not fit give one world without them (the
    loop of ``ExpertBot.ready_world``). For each world, each action's points for the deal's seat
    summed over the orders: the numbers the search's Python loop gets, and ``rng`` left as that loop
    leaves it. Raises :class:`XuezhanError` ``bad_batch`` for a deal that does not fit the state."""
    if _core is None:
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
    given = b""
    if hands:
        hidden = deal[30::4][: deal[1]]
        if any(o not in hidden or len(hands[o]) != 27 or not all(0 <= c <= 4 for c in hands[o]) for o in hands):
            raise XuezhanError(ErrorCode.BAD_BATCH, "a given hand of a seat the deal does not deal, or not 27 counts")
        given = bytes(x for o in hidden for x in (int(o in hands), *hands.get(o, (0,) * 27)))
    version, words, gauss = rng.getstate()
    try:
        rows, after = _core.search_worlds(
            marshal_rules(world.rules), state, array("q", deal).tobytes(), array("d", rates).tobytes(), words,
            worlds, orders, [None if a is None else pack_action(a) for a in actions], tuple(bots), given,
            tuple(check), tries)
    except (ValueError, TypeError, OverflowError, RuntimeError) as exc:
        raise XuezhanError(ErrorCode.BAD_BATCH, f"the compiled core refused the search: {exc}") from None
    rng.setstate((version, after, gauss))
    return list(rows)


_learned_given: list[object] = []
"""The arrays last given to the core (:func:`use_learned_weights`)."""


def use_learned_weights(arrays: Mapping[str, Any]) -> bool:
    """Give the compiled learned bot (:data:`LEARNED`) the scorer of a weights file: the float32
    arrays of :func:`xuezhan.bots.learned.load_weights` by name (:data:`LEARNED_ARRAYS`). One set
    a process, shared by every play-out (given again only when other arrays come); ``False``
    without the core. Raises :class:`XuezhanError` ``bad_policy`` when the arrays do not fit."""
    if _core is None:
        return False
    if _learned_given and _learned_given[0] is arrays:
        return True
    try:
        blob = b"".join(arrays[name].astype("<f4", copy=False).tobytes(order="C") for name in LEARNED_ARRAYS)
        _core.set_learned(blob)
    except (KeyError, AttributeError, TypeError, ValueError) as exc:
        raise XuezhanError(ErrorCode.BAD_POLICY, f"the compiled learned bot cannot read these weights: {exc}") from None
    _learned_given[:] = [arrays]
    return True


def prepare_bots() -> bool:
    """Build the compiled heuristic's tables now (about 0.1 s, once per process) rather than in the
    first hand or play-out that needs them; ``False`` without the core."""
    if _core is None:
        return False
    _core.shanten(bytes(27), 0, 0, -1)  # the compiled heuristic's first use builds them
    return True


class NativeGame:
    """One hand in the compiled core, played action by action like :class:`xuezhan.engine.game.Game`:
    dealt from ``seed`` as ``Game.new(rules, rng=Random(seed), dealer=dealer)`` deals it, the same
    legal actions in the same order, and an illegal action refused with the same
    :class:`IllegalActionError` code (and nothing changed). Escapes and item cards are not compiled
    (``native_refused``). For tests and playouts; self-play uses :func:`play_hands`."""

    def __init__(
        self, rules: Rules, seed: int, dealer: int | None = None, *, deal: Deal | None = None,
        exchange_direction: int | None = None,
    ) -> None:
        if _core is None:
            raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
        why = refusal(rules)
        if why is not None:
            raise XuezhanError(ErrorCode.NATIVE_REFUSED, why)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 1 << 64:
            raise XuezhanError(ErrorCode.BAD_BATCH, f"the seed must be an integer from 0 to 2**64 - 1, not {seed!r}")
        if dealer is not None and (isinstance(dealer, bool) or dealer not in (0, 1, 2, 3)):
            raise XuezhanError(ErrorCode.BAD_BATCH, f"the dealer must be a seat 0-3 or None, not {dealer!r}")
        if exchange_direction not in (None, 1, 2, 3):
            raise XuezhanError(ErrorCode.BAD_BATCH, f"no exchange direction {exchange_direction!r}")
        self.rules = rules
        self.seed = seed
        if deal is None:
            self._hand = _core.Hand(seed, -1 if dealer is None else dealer, marshal_rules(rules))
            return
        if dealer is None:
            raise XuezhanError(ErrorCode.BAD_BATCH, "a prepared deal needs its dealer")
        validate_deal(deal, dealer)
        tiles = bytes([t for hand in deal.hands for t in hand] + list(deal.wall))
        self._hand = _core.Hand(seed, dealer, marshal_rules(rules), tiles, exchange_direction or 0)

    @classmethod
    def from_deal(cls, rules: Rules, deal: Deal, dealer: int, exchange_direction: int | None = None) -> NativeGame:
        """A hand from a prepared deal, as :meth:`Game.from_deal` (checked by ``validate_deal``)."""
        return cls(rules, 0, dealer, deal=deal, exchange_direction=exchange_direction)

    @property
    def over(self) -> bool:
        return bool(self._hand.over)

    @property
    def step(self) -> int:
        """How many actions have been applied."""
        return int(self._hand.step)

    def pending(self) -> list[int]:
        """The seats that must act now."""
        return list(self._hand.pending())

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Everything ``seat`` may do now, in the Python engine's order."""
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat <= 3:
            return ()
        return tuple(_actions([w for t in self._hand.legal(seat) for w in t]))

    def apply(self, action: Action) -> None:
        """Apply one legal action; raises :class:`IllegalActionError` (and changes nothing) otherwise."""
        if self.over:
            raise IllegalActionError(ErrorCode.HAND_OVER, f"the hand is over: {action!r}")
        try:
            kind = ActionType(action.type)
        except (ValueError, TypeError):
            code = len(_TYPES)  # no such type: never legal
        else:
            if kind in _NOT_COMPILED:
                raise XuezhanError(ErrorCode.NATIVE_REFUSED, "escapes and item cards are not compiled")
            code = _TYPES.index(kind)
        tiles = action.tiles
        if tiles == ():
            packed = [0, 0, 0, 0]
        elif isinstance(tiles, tuple) and len(tiles) == 3 and all(_in_range(t, 27) for t in tiles):
            packed = [3, *tiles]
        else:
            packed = [255, 0, 0, 0]
        why = self._hand.apply(_field(action.seat, 4), code, _field(action.tile, 27), _field(action.suit, 3), *packed)
        if why is not None:
            raise IllegalActionError(why, f"illegal action: {action!r}")

    def learned_features(self, seat: int) -> tuple[list[float], list[list[float]]] | None:
        """:func:`xuezhan.bots.learned.features` of ``seat``'s legal actions as the compiled learned
        bot reads them (as float32), or ``None`` when the seat has nothing to do."""
        got = self._hand.learned_features(seat)
        if got is None:
            return None
        table, rows = got
        return list(table), [list(r) for r in rows]

    def record(self) -> dict[str, Any]:
        """The game record so far (``records.record_json`` of the same hand in the Python engine)."""
        d, nd, exhausted, deltas, wins, detail = self._hand.summary()
        return NativeHand(self.seed, d, nd, exhausted, deltas, wins, detail, self.over).record(self.rules)

    def actions(self) -> list[Action]:
        """The actions applied so far, in order (the Python engine's ``Game.actions``)."""
        detail = self._hand.summary()[5]
        return list(_actions(_words(detail[3])))

    @staticmethod
    def of_table(table: Any, rules: Rules) -> NativeGame:
        """The hand a :func:`learning_table` holds now, seen as a game (the same object underneath:
        it follows the table from hand to hand; ``seed`` is the seed of the hand dealt when called)."""
        return _TableGame(table, rules)


class _TableGame(NativeGame):
    """:meth:`NativeGame.of_table`: a game over the hand of a learning table."""

    def __init__(self, table: Any, rules: Rules) -> None:  # the table has dealt it: nothing to check or deal
        self.rules = rules
        self.seed = int(table.seed)
        self._hand = table


def _in_range(value: object, n: int) -> bool:
    return isinstance(value, int) and 0 <= value < n


def _field(value: object, n: int) -> int:
    """A seat, tile or suit for the core: itself in range, 255 for None, 254 for anything else."""
    if value is None:
        return 255
    return int(value) if _in_range(value, n) else 254  # type: ignore[call-overload]


def learning_table(rules: Rules, bots: Sequence[str | None]) -> Any:
    """The core's ``Table`` for the reinforcement-learning environments (:mod:`xuezhan.rl.table`):
    hands dealt from seeds as ``Match.start_hand`` deals them, a learner's action given by its index
    in the fixed action space, the compiled bots of ``bots`` (one name per seat, ``None`` for a
    learner's seat) playing the other seats, observations and masks written into buffers.

    Raises :class:`XuezhanError`: ``native_unavailable`` (not built), ``native_refused`` (rules or
    bots the core does not implement)."""
    if _core is None:
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
    if len(bots) != 4:
        raise XuezhanError(ErrorCode.BAD_BATCH, "bots: one name per seat, None for a learner")
    why = refusal(rules, [b for b in bots if b is not None])
    if why is not None:
        raise XuezhanError(ErrorCode.NATIVE_REFUSED, why)
    try:
        return _core.Table(marshal_rules(rules), tuple(-1 if b is None else _BOT_CODES[b] for b in bots))
    except ValueError as exc:  # a bot the core plays in batches but not at a table yet
        raise XuezhanError(ErrorCode.NATIVE_REFUSED, f"the compiled core's table refused the bots: {exc}") from None


def table_batch() -> tuple[Any, Any]:
    """The core's ``step_tables`` and ``observe_tables`` (csrc/xz_env.c: their buffers, and what
    they return): many :func:`learning_table` objects stepped and observed in one call, for
    :mod:`xuezhan.rl.vector`. Raises :class:`XuezhanError` ``native_unavailable`` without the core."""
    if _core is None:
        raise XuezhanError(ErrorCode.NATIVE_UNAVAILABLE, f"the compiled core is not built ({_IMPORT_ERROR})")
    return _core.step_tables, _core.observe_tables
