"""The advisor: the expert's ranking of a seat's legal choices, with its reasons, as data.

:func:`advise` takes what a seat sees (a :class:`~xuezhan.engine.views.SeatView`) and its
legal actions and returns an :class:`Advice`: the expert's choice first, then every other
choice, each with

- ``expected_points``: what the choice is worth to the seat, in points: the mean result of
  the rest of the hand over play-outs in sampled worlds (``basis`` ``"playouts"``: claims,
  kongs, the discards the expert searches) or the expected value of the hand two draws ahead (``"draws"``: a
  discard that leaves the hand ready or one step from ready); ``None`` where neither applies;
- ``shanten`` after the choice (−1 complete, 0 ready);
- ``live_effective``: copies the seat has not seen of the tiles that would bring it closer
  (``effective``: those tiles);
- ``danger``: how likely a discard deals in to an opponent, weighted by what that hand is
  worth (0 safe; about 1 a likely wait of a likely ready hand).

It reads only the seat's view (the expert never sees hidden tiles), so a server can call it
for any seat: ``advise(SeatView(game, seat), game.legal_actions(seat))`` or
:func:`advise_game`. ``Advice.to_json()`` is JSON-able with actions in the game-record format.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..engine.actions import Action, ActionType
from ..engine.game import Game
from ..engine.views import SeatView
from ..hand import shanten
from ..tiles import NUM_KINDS, Tile, tile_name
from .expert import PLAYOUTS, ExpertBot, HandValue


@dataclass(frozen=True)
class Choice:
    """One legal choice and the reasons it ranks where it does."""

    action: Action
    expected_points: float | None = None
    basis: str | None = None
    """``"playouts"`` (the rest of the hand, searched) or ``"draws"`` (the hand's value two draws ahead)."""
    shanten: int | None = None
    live_effective: int | None = None
    effective: tuple[Tile, ...] = ()
    danger: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action.to_json(),
            "expected_points": None if self.expected_points is None else round(self.expected_points, 2),
            "basis": self.basis,
            "shanten": self.shanten,
            "live_effective": self.live_effective,
            "effective": [tile_name(t) for t in self.effective],
            "danger": None if self.danger is None else round(self.danger, 3),
        }


@dataclass(frozen=True)
class Advice:
    """The expert's choice and the ranking of every legal choice (the choice first)."""

    seat: int
    phase: str
    choice: Action
    ranking: tuple[Choice, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "phase": self.phase, "choice": self.choice.to_json(),
                "ranking": [c.to_json() for c in self.ranking]}


def _melds(view: SeatView) -> tuple[int, int]:
    melds = view.melds(view.seat)
    mask = 0
    for m in melds:
        mask |= 1 << (m.tile // 9)
    return len(melds), mask


def _effective(view: SeatView, counts: list[int], n: int, meld_suits: int, sh: int,
               visible: Sequence[int]) -> tuple[int, tuple[Tile, ...]]:
    """Live copies of the tiles that lower the shanten ``sh`` of a 13-equivalent hand, and those tiles."""
    void = view.void
    live = 0
    tiles: list[Tile] = []
    for u in range(NUM_KINDS):
        if u // 9 == void or visible[u] >= 4 or counts[u] >= 4:
            continue
        counts[u] += 1
        if shanten(counts, n, meld_suits=meld_suits, void=void) < sh:
            tiles.append(u)
            live += 4 - visible[u]
        counts[u] -= 1
    return live, tuple(tiles)


def _after(view: SeatView, action: Action, counts: list[int], n: int, meld_suits: int) -> tuple[int, int, int]:
    """The 13-equivalent hand after ``action`` as (shanten, melds, meld suits), best discard after a peng."""
    void = view.void
    t = action.tile if action.tile is not None else view.offered_tile
    if action.type is ActionType.PENG and t is not None:
        counts[t] -= 2
        ms = meld_suits | 1 << (t // 9)
        best = 99
        for d in range(NUM_KINDS):
            if counts[d]:
                counts[d] -= 1
                best = min(best, shanten(counts, n + 1, meld_suits=ms, void=void))
                counts[d] += 1
        counts[t] += 2
        return best, n + 1, ms
    if action.type is ActionType.GANG and t is not None:
        held = counts[t]
        if view.phase == "turn" and held == 1:  # added kong: the peng becomes a kong
            counts[t] -= 1
            sh = shanten(counts, n, meld_suits=meld_suits, void=void)
            counts[t] += 1
            return sh, n, meld_suits
        counts[t] -= held
        ms = meld_suits | 1 << (t // 9)
        sh = shanten(counts, n + 1, meld_suits=ms, void=void)
        counts[t] += held
        return sh, n + 1, ms
    return shanten(counts, n, meld_suits=meld_suits, void=void), n, meld_suits


def advise(view: SeatView, legal: Sequence[Action], *, seed: int = 0, playouts: int = PLAYOUTS) -> Advice:
    """The expert's ranking of ``legal`` for the seat of ``view`` (see the module docstring).
    Deterministic for a ``seed``; ``playouts`` is the search budget of the searched choices."""
    if not legal:
        return Advice(view.seat, view.phase, Action(view.seat, ActionType.PASS), ())
    expert = ExpertBot(random.Random(seed), playouts=playouts)
    expert.start_hand(seed)
    choice = expert.choose(view, legal)
    kinds = {a.type for a in legal}
    if ActionType.DINGQUE in kinds or ActionType.EXCHANGE in kinds:
        others = [a for a in legal if a != choice]
        if ActionType.EXCHANGE in kinds:
            others = []  # every set of three tiles is a choice: the advice names its own
        return Advice(view.seat, view.phase, choice, _distinct(Choice(a) for a in [choice, *others]))
    counts = view.counts
    n, meld_suits = _melds(view)
    visible = view.visible_counts()
    threats = expert.policy.threats(view)
    hv = HandValue(view)
    searched: dict[Action, float] = {}
    if ActionType.HU not in kinds:
        if view.phase == "turn":
            cands = expert.candidates(view, legal, choice)
            if ActionType.GANG in kinds and len(cands) < 2:
                cands = [choice, *[a for a in legal if a.type is ActionType.GANG and a != choice]]
        else:
            cands = [choice, *[a for a in legal if a != choice]]
        if len(cands) > 1:
            for e in expert.evaluate(view, cands):
                searched[e.action] = e.mean
    choices: list[Choice] = []
    seen: set[Action] = set()
    for a in legal:
        if a in seen:
            continue
        seen.add(a)
        if a.type is ActionType.HU:
            choices.append(Choice(a, shanten=-1))
            continue
        if a.type is ActionType.DISCARD and a.tile is not None:
            t = a.tile
            counts[t] -= 1
            sh = shanten(counts, n, meld_suits=meld_suits, void=view.void)
            live, eff = _effective(view, counts, n, meld_suits, sh, visible)
            value = hv.value(counts) if sh <= 1 else None
            counts[t] += 1
            danger = expert.policy.danger(view, t, threats, visible)
            if a in searched:
                choices.append(Choice(a, searched[a], "playouts", sh, live, eff, danger))
            else:
                choices.append(Choice(a, value, None if value is None else "draws", sh, live, eff, danger))
            continue
        sh = _after(view, a, counts, n, meld_suits)[0]
        points = searched.get(a)
        choices.append(Choice(a, points, None if points is None else "playouts", sh))

    def rank(c: Choice) -> tuple[int, int, float, int, float]:
        return (0 if c.action == choice else 1,
                0 if c.basis == "playouts" else 1 if c.basis == "draws" else 2,
                -(c.expected_points or 0.0),
                99 if c.shanten is None else c.shanten,
                -(c.live_effective or 0) + (c.danger or 0.0))

    choices.sort(key=rank)
    return Advice(view.seat, view.phase, choice, _distinct(choices))


def _distinct(choices: Iterable[Choice]) -> tuple[Choice, ...]:
    """Each action once, where it first ranks (its best evaluation): a legal list may name
    one action more than once (a tile held twice, a kong offered two ways)."""
    out: dict[Action, Choice] = {}
    for c in choices:
        out.setdefault(c.action, c)
    return tuple(out.values())


def advise_game(game: Game, seat: int, **options: Any) -> Advice:
    """:func:`advise` for ``seat`` of ``game``, from that seat's view and legal actions only."""
    return advise(SeatView(game, seat), game.legal_actions(seat), **options)


__all__ = ["Advice", "Choice", "advise", "advise_game"]
