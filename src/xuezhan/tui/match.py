"""A match: the human (seat 0) against three bots over N hands, with running totals.

:class:`Match` owns the :class:`~xuezhan.engine.game.Game` of the current hand, the
bots and the scores, and knows nothing of the screen, so it is driven the same way
by the terminal UI and by tests. Bots act through the engine API only (a
:class:`~xuezhan.engine.views.SeatView` and the legal actions); the human acts with
:meth:`Match.play`. In a claim window the bots answer first and the engine then
waits for the human.

Everything random comes from one generator seeded with the match seed, as in
:func:`xuezhan.selfplay.simulate`: each hand's deal, its bots and, when the rules
throw dice for the dealer (``Game.next_dealer()`` is ``None``), the dealer.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bots import Bot, make_bot
from ..engine.actions import Action
from ..engine.game import Game
from ..engine.views import SeatView
from ..errors import IllegalActionError, XuezhanError
from ..records import record_json
from ..rules import Rules

HUMAN = 0
"""The human's seat."""

BotFactory = Callable[[random.Random], Bot]


@dataclass(frozen=True, slots=True)
class HandResult:
    """A finished hand: its points by seat, the totals after it, and where its record went."""

    number: int
    dealer: int
    deltas: tuple[int, ...]
    totals: tuple[int, ...]
    next_dealer: int | None
    record_path: Path | None
    record_error: str | None = None


def check_record_dir(path: Path) -> Path:
    """Create ``path`` if needed and check a file can be written there (``unwritable`` otherwise)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".xuezhan-probe-{time.time_ns()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise XuezhanError("unwritable", f"--record-dir {path}: cannot write there: {exc.strerror or exc}") from None
    return path


class Match:
    """N hands between the human at seat 0 and three bots."""

    def __init__(
        self,
        rules: Rules,
        *,
        hands: int = 8,
        seed: int | None = None,
        bot: str = "heuristic",
        record_dir: Path | None = None,
        bot_factory: BotFactory | None = None,
    ) -> None:
        if hands < 1:
            raise XuezhanError("bad_hands", f"--hands must be at least 1, not {hands}")
        if bot_factory is None:
            make_bot(bot)  # raises unknown_bot early

            def factory(rng: random.Random) -> Bot:
                return make_bot(bot, rng)

            bot_factory = factory
        self.rules = rules
        self.hands = hands
        self.seed = seed
        self.bot_name = bot
        self.record_dir = record_dir
        self._bot_factory = bot_factory
        self._rng = random.Random(seed)
        self._stamp = time.strftime("%Y%m%d-%H%M%S")
        self.totals = [0, 0, 0, 0]
        self.results: list[HandResult] = []
        self.wins = [0, 0, 0, 0]
        self._next_dealer: int | None = None  # None: thrown by dice
        self._game: Game | None = None
        self._counted = 0  # the hand number whose result is counted when the hand in play ends
        self.bots: list[Bot | None] = [None, None, None, None]

    # --- the hand in play -----------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        if self._game is None:
            raise RuntimeError("no hand has been started")
        return self._game

    @property
    def started(self) -> bool:
        return self._game is not None

    @property
    def hand_number(self) -> int:
        """The number (1-based) of the hand in play, or of the last one."""
        finished = len(self.results)
        if self._game is not None and not self.hand_finished:
            return finished + 1
        return max(finished, 1)

    @property
    def hand_finished(self) -> bool:
        """The current hand is over and counted."""
        return self._game is not None and len(self.results) == self._counted

    @property
    def match_over(self) -> bool:
        return len(self.results) >= self.hands

    def start_hand(self, game: Game | None = None, bots: Sequence[Bot] | None = None) -> Game:
        """Deal the next hand (or take ``game``, e.g. one built from a record, and ``bots``)."""
        if self.match_over:
            raise RuntimeError("the match is over")
        if self._game is not None and not self.hand_finished:
            raise RuntimeError("the current hand is not finished")
        hand_rng = random.Random(self._rng.getrandbits(64))
        if bots is None:
            seat_bots: list[Bot | None] = [None] + [
                self._bot_factory(random.Random(hand_rng.getrandbits(64))) for _ in range(3)
            ]
        else:
            if len(bots) != 3:
                raise ValueError("three bots are needed, for seats 1, 2 and 3")
            seat_bots = [None, *bots]
        if game is None:
            game = Game.new(self.rules, rng=hand_rng, dealer=self._next_dealer)
        self._game = game
        self._counted = len(self.results) + 1
        self.bots = seat_bots
        return game

    # --- who acts ---------------------------------------------------------------------------------------
    def human_pending(self) -> bool:
        """The engine waits for the human."""
        g = self.game
        return not g.over and HUMAN in g.pending()

    def human_legal(self) -> list[Action]:
        return list(self.game.legal_actions(HUMAN))

    def bot_to_act(self) -> int | None:
        """The next bot seat that must act, if any (bots act before the human in a claim window)."""
        g = self.game
        if g.over:
            return None
        for seat in g.pending():
            if seat != HUMAN and g.legal_actions(seat):
                return seat
        return None

    def step_bot(self) -> Action | None:
        """Let one bot act; ``None`` when no bot has to (the human must act, or the hand is over)."""
        seat = self.bot_to_act()
        if seat is None:
            return None
        bot = self.bots[seat]
        assert bot is not None
        g = self.game
        action = bot.choose(SeatView(g, seat), g.legal_actions(seat))
        g.apply(action)
        return action

    def run_bots(self) -> list[Action]:
        """Let the bots act until the human must act or the hand is over."""
        done: list[Action] = []
        while (a := self.step_bot()) is not None:
            done.append(a)
        return done

    def play(self, action: Action) -> None:
        """The human's action. Raises :class:`IllegalActionError` and changes nothing if it is not legal."""
        if action.seat != HUMAN:
            raise IllegalActionError("not_your_seat", f"you play seat {HUMAN}, not seat {action.seat}")
        if self.game.over:
            raise IllegalActionError("hand_over", "the hand is over")
        self.game.apply(action)

    def view(self) -> SeatView:
        """What the human may see."""
        return SeatView(self.game, HUMAN)

    # --- the end of a hand ----------------------------------------------------------------------------------
    def finish_hand(self) -> HandResult:
        """Count the finished hand: totals, wins, its record, the next dealer. Idempotent."""
        g = self.game
        if not g.over:
            raise RuntimeError("the hand is not over")
        if self.hand_finished:
            return self.results[-1]
        deltas = g.deltas()
        for s in range(4):
            self.totals[s] += deltas[s]
        for w in g.winners:
            self.wins[w.seat] += 1
        number = len(self.results) + 1
        path, error = self._save_record(g, number)
        nd = g.next_dealer()
        self._next_dealer = nd
        result = HandResult(number, g.dealer, tuple(deltas), tuple(self.totals), nd, path, error)
        self.results.append(result)
        return result

    def _save_record(self, game: Game, number: int) -> tuple[Path | None, str | None]:
        if self.record_dir is None:
            return None, None
        data = json.dumps(record_json(game), ensure_ascii=False, indent=1) + "\n"
        for k in range(100):
            suffix = "" if k == 0 else f"-{k}"
            path = self.record_dir / f"xuezhan-{self._stamp}-hand{number:02d}{suffix}.json"
            try:
                with path.open("x", encoding="utf-8") as f:
                    f.write(data)
                return path, None
            except FileExistsError:
                continue
            except OSError as exc:
                return None, f"cannot write {path}: {exc.strerror or exc}"
        return None, f"cannot find a free file name in {self.record_dir}"

    def standings(self) -> list[int]:
        """Seats from the highest total to the lowest (ties by seat)."""
        return sorted(range(4), key=lambda s: (-self.totals[s], s))
