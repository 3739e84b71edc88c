"""Review (复盘): every decision of a recorded hand weighed by the expert.

The record is replayed (:func:`xuezhan.records.replay`) and, at each action it lists that had
more than one legal choice, the deciding seat's view is handed to the expert
(:meth:`xuezhan.bots.expert.ExpertBot.expected_points`): each legal choice is played out to
the end of the hand over the same sampled worlds, and its mean points for the seat are its
expected points (``ev``). The loss of the choice taken is the best choice's ev less its own
(never below zero), with its standard error over the worlds (the choices are played out in the
same worlds, so the error is of the difference). The expert reads only the seat's view, so a
decision is weighed with what the seat knew then, never with the hidden tiles the record holds.

A loss is an estimate, and the best of a dozen noisy estimates beats the one taken by chance: a
decision is a *mistake* (:attr:`Decision.mistake`, listed in the text and on the web page) only
where its loss is at least :data:`MISTAKE_Z` standard errors, so that a player is not blamed for
the play-outs' noise.

A decision is reviewed by a fresh expert seeded with ``seed`` (:data:`REVIEW_SEED` by default),
whose worlds follow from that seed and the view's step: a review is a function of the record,
the seed and the budget, whatever else is reviewed with it. The budget is
``per_choice`` play-outs for each legal choice (:data:`PLAYOUTS_PER_CHOICE` where the compiled
core is built, :data:`PYTHON_PLAYOUTS_PER_CHOICE` without it), never a clock.

A decision a seat's stand-in took for its player (托管, or a decision whose time ran out; a server's
hand result lists them, records do not) is weighed like any other and marked
(:attr:`Decision.stand_in`): it is shown as the stand-in's and counts for no seat's total loss.

Not reviewed: actions a record does not list (the passes of a window it closes, its
``autoplay``), a choice of a single legal action, escapes and item cards (no choice of play).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from . import i18n
from .bots.expert import ExpertBot
from .engine.actions import Action
from .engine.game import Game
from .hints import action_words
from .i18n import DEFAULT_LANG, Lang
from .native import available
from .records import Record, replay
from .runtime.playout import play_out

REVIEW_SEED = 0
"""The expert's seed of a review unless another is given."""
PLAYOUTS_PER_CHOICE = 512
"""Play-outs of each legal choice where the compiled core is built (128 worlds, 4 wall orders each): at
64 a choice the losses of a hand played well were mostly noise (docs/bots.md, "Review")."""
PYTHON_PLAYOUTS_PER_CHOICE = 8
"""Likewise without it (about 3 ms a play-out in Python)."""
SHOWN_LOSS = 0.005
"""A loss under this rounds to 0.00: the choice was as good as the best, and the text does not list it."""
MISTAKE_Z = 2.5
"""Standard errors a loss must reach to be a mistake (:attr:`Decision.mistake`)."""

__all__ = ["MISTAKE_Z", "PLAYOUTS_PER_CHOICE", "PYTHON_PLAYOUTS_PER_CHOICE", "REVIEW_SEED", "SHOWN_LOSS", "Decision",
           "Review", "WeighedChoice", "default_per_choice", "review_lines", "review_record", "weigh"]


@dataclass(frozen=True)
class WeighedChoice:
    """One legal choice and its expected points for the deciding seat."""

    action: Action
    ev: float

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action.to_json(), "ev": round(self.ev, 2)}


@dataclass(frozen=True)
class Decision:
    """One decision of the record: who took what at which step, every legal choice weighed (the best
    first), and the loss of the choice taken with its standard error."""

    seat: int
    step: int
    """The index of the action taken in the record's ``actions``."""
    taken: Action
    choices: tuple[WeighedChoice, ...]
    stderr: float = 0.0
    """The standard error of :attr:`loss` over the worlds (0 when the best choice was the one taken)."""
    stand_in: bool = False
    """The seat's stand-in took it for the player (托管, or a decision whose time ran out), not the player."""

    @property
    def best(self) -> WeighedChoice:
        return self.choices[0]

    @property
    def taken_ev(self) -> float:
        return next(c.ev for c in self.choices if c.action == self.taken)

    @property
    def loss(self) -> float:
        """The best choice's expected points less the taken one's (0 when the best was taken)."""
        return max(0.0, self.best.ev - self.taken_ev)

    @property
    def mistake(self) -> bool:
        """The loss shows (:data:`SHOWN_LOSS`) and is at least :data:`MISTAKE_Z` standard errors: more than
        the play-outs' noise."""
        loss = self.loss
        return loss >= SHOWN_LOSS and loss >= MISTAKE_Z * self.stderr

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "step": self.step, "taken": self.taken.to_json(),
                "choices": [c.to_json() for c in self.choices], "loss": round(self.loss, 2),
                "stderr": round(self.stderr, 2), "mistake": self.mistake, "stand_in": self.stand_in}


@dataclass(frozen=True)
class Review:
    """The reviewed decisions of one hand, in the record's order, and each reviewed seat's total loss."""

    hand: int
    seats: tuple[int, ...]
    decisions: tuple[Decision, ...]

    def total_loss(self) -> dict[int, float]:
        """Each reviewed seat's losses in its own mistakes (:attr:`Decision.mistake`, the stand-in's left
        out): what the search can tell it lost, not the sum of every loss, which adds up the search's
        noise over a hand."""
        out = dict.fromkeys(self.seats, 0.0)
        for d in self.decisions:
            if d.mistake and not d.stand_in:
                out[d.seat] += d.loss
        return out

    def stand_ins(self) -> int:
        """The reviewed decisions the seats' stand-ins took (:attr:`Decision.stand_in`)."""
        return sum(d.stand_in for d in self.decisions)

    def mistakes(self) -> list[Decision]:
        """The decisions that are mistakes (:attr:`Decision.mistake`), the biggest loss first (then by step)."""
        return sorted((d for d in self.decisions if d.mistake), key=lambda d: (-d.loss, d.step, d.seat))

    def to_json(self) -> dict[str, Any]:
        return {"hand": self.hand, "decisions": [d.to_json() for d in self.decisions],
                "total_loss": {str(s): round(x, 2) for s, x in self.total_loss().items()}}


def default_per_choice() -> int:
    """Play-outs of each legal choice by default: :data:`PLAYOUTS_PER_CHOICE` with the compiled core."""
    return PLAYOUTS_PER_CHOICE if available() else PYTHON_PLAYOUTS_PER_CHOICE


def weigh(game: Game, seat: int, legal: Sequence[Action], *, seed: int = REVIEW_SEED,
          per_choice: int | None = None, reference: Action | None = None) -> tuple[tuple[WeighedChoice, ...], float]:
    """Each distinct action of ``legal`` with the expert's expected points for ``seat`` of ``game``, the
    best first (ties in the order of ``legal``), and the standard error of the best one's points less
    those of ``reference`` (an action of ``legal``; its first by default) over the common worlds."""
    ExpertBot.use_play_out(play_out)  # the expert's Python play-outs run on the one decision loop
    per = default_per_choice() if per_choice is None else per_choice
    actions = list(dict.fromkeys(legal))
    place = {a: k for k, a in enumerate(actions)}
    if reference is not None:
        actions.remove(reference)
        actions.insert(0, reference)  # the reference of the search's differences and their errors
    budget = max(2, per * len(actions))
    expert = ExpertBot(random.Random(seed), playouts=budget)
    expert.start_hand(seed)
    evals = sorted(expert.expected_points(game.view(seat), actions, budget), key=lambda e: (-e.mean, place[e.action]))
    stderr = 0.0 if evals[0].action == actions[0] else evals[0].stderr
    return tuple(WeighedChoice(e.action, e.mean) for e in evals), stderr


def review_record(record: Record, seats: Iterable[int] | None = None, *, hand: int = 1, seed: int = REVIEW_SEED,
                  per_choice: int | None = None, stand_in: Collection[int] = ()) -> Review:
    """Review the decisions of ``seats`` (every seat by default) in ``record``, hand number ``hand`` of
    its file; ``stand_in``: the actions (by their index in the record's ``actions``) a stand-in took for
    its seat's player (a server's hand result says which: :attr:`xuezhan.match.HandResult.stand_in`).
    Raises :class:`~xuezhan.errors.RecordError` for a record that does not replay, before weighing
    anything."""
    wanted = tuple(sorted(set(range(4) if seats is None else seats)))
    by_stand_in = frozenset(stand_in)
    replay(record)  # a broken record is refused at once, not after the decisions before its fault
    decisions: list[Decision] = []

    def before(index: int, action: Action, game: Game) -> None:
        if action.seat not in wanted:
            return
        legal = game.legal_actions(action.seat)
        if action not in legal or len(set(legal)) < 2:
            return  # an escape, an item card, or nothing to choose
        choices, stderr = weigh(game, action.seat, legal, seed=seed, per_choice=per_choice, reference=action)
        decisions.append(Decision(action.seat, index, action, choices, stderr, index in by_stand_in))

    replay(record, before)
    return Review(hand, wanted, tuple(decisions))


def _points(x: float) -> str:
    return f"{x:+.2f}"


def review_lines(review: Review, lang: Lang = DEFAULT_LANG, names: Sequence[str] | None = None,
                 limit: int | None = None) -> list[str]:
    """The review in words: a heading, each reviewed seat's total loss, how many decisions stand-ins took (when
    any), then the mistakes (:meth:`Review.mistakes`, a stand-in's marked as such),
    the biggest first (at most ``limit``), each with the choice taken and the best one, their expected points, and
    the loss with its standard error."""

    def seat_word(seat: int) -> str:
        return names[seat] if names is not None else i18n.t("common.seat", lang, seat=seat)

    lines = [i18n.t("review.heading", lang, hand=review.hand, count=len(review.decisions))]
    sep = i18n.t("review.sep", lang)
    totals = review.total_loss()
    lines.append(sep.join(i18n.t("review.total", lang, seat=seat_word(s), loss=f"{x:.2f}") for s, x in totals.items()))
    stand_ins = review.stand_ins()
    if stand_ins:
        lines.append(i18n.t("review.stand_ins", lang, count=stand_ins))
    mistakes = review.mistakes()
    if not mistakes:
        lines.append(i18n.t("review.no_mistake", lang))
        return lines
    for rank, d in enumerate(mistakes[:limit] if limit is not None else mistakes, start=1):
        who = seat_word(d.seat) + (i18n.t("review.stand_in", lang) if d.stand_in else "")
        lines.append(i18n.t("review.mistake", lang, rank=rank, step=d.step + 1, seat=who,
                            taken=action_words(d.taken, lang), taken_ev=_points(d.taken_ev),
                            best=action_words(d.best.action, lang), best_ev=_points(d.best.ev),
                            loss=f"{d.loss:.2f}", stderr=f"{d.stderr:.2f}"))
    return lines
