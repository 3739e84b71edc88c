"""Search play-outs on the compiled core: a hand in the middle of play, finished by compiled bots.

A search (:class:`xuezhan.bots.expert.ExpertBot`) plays candidate actions out from sampled
worlds (:func:`xuezhan.engine.views.sample_world`): Python engine hands in the middle of play,
with the hidden tiles dealt afresh. :func:`state_words` writes such a hand as the core loads
it (hands, melds, rivers, wall, open claim window, kongs and their payers, wins, ledger);
:func:`play_out` applies one action and lets the compiled bots play the hand to its end, with
the Python engine's rules, legal actions and decisions, so the deltas are the ones
``HandDriver(game, seats).run()`` would reach with the same bots.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

from .. import native
from ..engine.actions import REASONS, Action
from ..engine.game import Game
from ..engine.state import Phase
from . import _TYPES, HEURISTIC_QUICK, rule_words

_PHASES: Final = (Phase.EXCHANGE, Phase.DINGQUE, Phase.TURN, Phase.CLAIM, Phase.ROB, Phase.OVER)
_MELD_KINDS: Final = {"peng": 0, "gang": 1, "angang": 2}
_KONG_KINDS: Final = {"angang": 2, "bugang": 3, "zhigang": 4}
QUICK_BOTS: Final = (HEURISTIC_QUICK,) * 4
"""Four quick heuristic bots (``HeuristicBot(quick=True)``), as the expert's play-outs use."""


def _opt(value: int | None) -> int:
    return -1 if value is None else value


def action_words(action: Action) -> tuple[int, int, int, int, int, int, int, int]:
    """An action as the core reads it: seat, type, tile, suit (-1: none), the number of tiles, tiles."""
    t = action.tiles
    a, b, c = t if len(t) == 3 else (0, 0, 0)
    return (action.seat, _TYPES.index(action.type), _opt(action.tile), _opt(action.suit), len(t), a, b, c)


def state_words(game: Game) -> bytes | None:
    """The state of ``game`` as the core loads it (packed int64), or ``None`` when the core cannot
    hold it: the core is not built, the rules are not compiled, or a seat has escaped."""
    if native.refusal(game.rules) is not None:  # not built, or rules not compiled
        return None
    seats = game._seats
    if any(s.escaped for s in seats):
        return None
    out = array("q", (
        game._dealer, _PHASES.index(game._phase), game._turn, _opt(game._drawn), game._after_kong,
        game._drew_last, game._must_discard, _opt(game._zhigang_source), _opt(game._pending_bugang),
        game._bugang_late, game._clean_start, game._win_groups, len(game._actions), game._exchange_direction or 0,
        len(game._wall), *game._wall, game._head, game._tail,
    ))
    for s in seats:
        out.extend(s.counts)
        pass_hu = 0
        for t in s.pass_hu:
            pass_hu |= 1 << t
        out.extend((_opt(s.void), s.won, s.wins, s.revealed, s.draws, pass_hu, s.pass_hu_any, s.choice is not None))
        if s.choice is not None:
            out.extend(action_words(s.choice))
        out.append(len(s.melds))
        for m in s.melds:
            out.extend((_MELD_KINDS[m.kind], m.tile))
        out.append(len(s.river))
        for t, st in zip(s.river, s.river_state, strict=True):
            out.extend((t, st))
        out.append(len(s.aside))
        out.extend(s.aside)
    kongs = game._kongs
    out.append(len(kongs))
    for k in kongs:
        out.extend((k.seat, _KONG_KINDS[k.kind], k.tile, k.transferred, len(k.payments)))
        for payer, points in k.payments:
            out.extend((payer, points))
    index = {id(k): i for i, k in enumerate(kongs)}
    out.append(len(game._turn_kongs))
    out.extend(index[id(k)] for k in game._turn_kongs)
    out.append(len(game._winners))
    for win in game._winners:
        out.extend((win.seat, _opt(win.from_seat), win.tile, win.order, win.robbed))
    out.append(len(game._ledger))
    for e in game._ledger:
        out.extend((e.from_seat, e.to_seat, e.points, REASONS.index(e.reason)))
    w = game._window
    if w is None:
        out.append(0)
    else:
        out.extend((1, w.tile, w.source, w.after_kong, w.last_tile, w.robbing, len(w.options)))
        slots: dict[int, int] = {}
        for i, (seat, actions) in enumerate(w.options.items()):
            slots[seat] = i
            out.extend((seat, len(actions)))
            for a in actions:
                out.extend(action_words(a))
        out.append(len(w.answers))
        for seat, a in w.answers.items():
            out.append(slots[seat])
            out.extend(action_words(a))
    return out.tobytes()


def prepare() -> bool:
    """Build the compiled heuristic's tables now (about 0.1 s, once per process) rather than in
    the first play-out; ``False`` when the core is not built."""
    core = native._core
    if core is None:
        return False
    core.shanten(bytes(27), 0, 0, -1)  # the first use of the compiled heuristic builds them
    return True


def play_out(game: Game, state: bytes, action: Action | None,
             bots: Sequence[int] = QUICK_BOTS) -> tuple[int, int, int, int]:
    """The deltas of the hand ``game`` (its :func:`state_words` in ``state``) once ``action`` is
    applied and the compiled ``bots`` (codes of :mod:`xuezhan.native`) have played it to its end.
    ``game`` itself is not changed."""
    core = native._core
    assert core is not None  # state_words gave a state: the core is there
    deltas: tuple[int, int, int, int] = core.play_out(
        rule_words(game.rules), state, None if action is None else action_words(action), bots)
    return deltas
