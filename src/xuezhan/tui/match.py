"""The terminal's table: the human (seat 0) against three bots over N hands, with running totals.

:class:`TerminalTable` is a seat owner and a view on the match runtime
(:class:`~xuezhan.runtime.MatchRuntime`): the runtime deals each hand from the match seed
(the same hands as ``xuezhan simulate --seed`` and the web table), its driver applies every
decision, and this class only says which seat is the human's, lets the bots act when the
runtime's pacer (:class:`~xuezhan.runtime.Pacer`, :func:`terminal_delays`) says they are due,
and keeps the running totals and records. It knows nothing of the screen or of a clock (the
time is passed in), so it is driven the same way by the terminal UI and by tests.
"""

from __future__ import annotations

import json
import math
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
from ..ids import ErrorCode
from ..match import HandResult as MatchHandResult
from ..match import Match, RoomConfig
from ..rules import Rules
from ..runtime import Delays, HandDriver, MatchRuntime, Pacer, Seat

HUMAN = 0
"""The human's seat."""

PLAYERS = ("you", "bot 1", "bot 2", "bot 3")

BotFactory = Callable[[random.Random], Bot]

BOT_DELAY = 0.45
"""Seconds a bot waits on its turn by default, so the human can follow the play."""
QUICK_DELAY = 0.08
"""A bot's turn once the human is out of the hand: let the others finish quickly."""


def terminal_delays(bot_delay: float = BOT_DELAY) -> Delays:
    """The terminal's pace: a bot's turn after ``bot_delay`` (at most :data:`QUICK_DELAY` once the human
    is out of the hand). Claim answers, 定缺 and 换三张 go at once: a pause there would tell the
    human that some bot could claim the tile; only a turn is worth a pause to watch."""
    turn = max(bot_delay, 0.0)
    return Delays(turn=turn, claim=0.0, choice=0.0, unwatched=QUICK_DELAY)


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
    seed: int = 0


def check_record_dir(path: Path) -> Path:
    """Create ``path`` if needed and check a file can be written there (``unwritable`` otherwise)."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".xuezhan-probe-{time.time_ns()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise XuezhanError(
            ErrorCode.UNWRITABLE, f"--record-dir {path}: cannot write there: {exc.strerror or exc}"
        ) from None
    return path


class TerminalTable:
    """N hands between the human at seat 0 and three bots, on the match runtime."""

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
            raise XuezhanError(ErrorCode.BAD_HANDS, f"--hands must be at least 1, not {hands}")
        if bot_factory is None:
            make_bot(bot)  # raises unknown_bot early

            def factory(rng: random.Random) -> Bot:
                return make_bot(bot, rng)

            bot_factory = factory
        self.rules = rules
        self.hands = hands
        self.seed = seed if seed is not None else random.getrandbits(31)
        self.bot_name = bot
        self.record_dir = record_dir
        self._stamp = time.strftime("%Y%m%d-%H%M%S")
        seed_rng = random.Random(self.seed)
        self.seats = [Seat.of_person(PLAYERS[HUMAN], stand_in=bot_factory(random.Random(seed_rng.getrandbits(64))))]
        self.seats += [Seat.of_bot(bot_factory(random.Random(seed_rng.getrandbits(64))), name=PLAYERS[s])
                       for s in (1, 2, 3)]
        self.runtime = MatchRuntime(Match(RoomConfig(rules=rules), PLAYERS, seed=self.seed, hands=hands),
                                    dict(zip(PLAYERS, self.seats, strict=True)))
        self.results: list[HandResult] = []
        self.wins = [0, 0, 0, 0]
        self._driver: HandDriver | None = None
        self.pacer = Pacer(terminal_delays())
        """When each bot acts (:meth:`pace`); the human has no time limit."""

    # --- the hand in play -----------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        if self._driver is None:
            raise RuntimeError("no hand has been started")
        return self._driver.game

    @property
    def driver(self) -> HandDriver:
        if self._driver is None:
            raise RuntimeError("no hand has been started")
        return self._driver

    @property
    def started(self) -> bool:
        return self._driver is not None

    @property
    def hand_number(self) -> int:
        """The number (1-based) of the hand in play, or of the last one."""
        finished = len(self.results)
        if self._driver is not None and not self.hand_finished:
            return finished + 1
        return max(finished, 1)

    @property
    def hand_finished(self) -> bool:
        """The current hand is over and counted."""
        return self._driver is not None and self.runtime.hand is None

    @property
    def match_over(self) -> bool:
        return len(self.results) >= self.hands

    @property
    def totals(self) -> list[int]:
        """Every seat's points over the hands played (the match keeps them)."""
        running = self.runtime.match.running
        return [running[p] for p in PLAYERS]

    @property
    def bots(self) -> list[Bot | None]:
        return [None] + [self.seats[s].bot for s in (1, 2, 3)]

    def start_hand(self, game: Game | None = None, bots: Sequence[Bot] | None = None) -> Game:
        """Deal the next hand. ``game`` (tests, a record) gives a prepared deal and its dealer, and
        ``bots`` the bots of seats 1, 2 and 3 from this hand on."""
        if self.match_over:
            raise RuntimeError("the match is over")
        if self._driver is not None and not self.hand_finished:
            raise RuntimeError("the current hand is not finished")
        if bots is not None:
            if len(bots) != 3:
                raise ValueError("three bots are needed, for seats 1, 2 and 3")
            for s, b in zip((1, 2, 3), bots, strict=True):
                self.seats[s].bot = b
        if game is None:
            self._driver = self.runtime.start_hand()
        else:
            self._driver = self.runtime.start_hand(deal=game.deal, dealer=game.dealer,
                                                   exchange_direction=game.exchange_direction)
        return self._driver.game

    # --- who acts ---------------------------------------------------------------------------------------
    def human_pending(self) -> bool:
        """The engine waits for the human."""
        g = self.game
        return not g.over and HUMAN in g.pending()

    def human_legal(self) -> list[Action]:
        return list(self.game.legal_actions(HUMAN))

    def bot_to_act(self) -> int | None:
        """The next bot seat that must act, if any (bots act before the human in a claim window)."""
        if self._driver is None:
            return None
        return next((s for s in self._driver.deciding() if self.seats[s].automatic), None)

    def step_bot(self) -> Action | None:
        """Let one bot act; ``None`` when no bot has to (the human must act, or the hand is over)."""
        seat = self.bot_to_act()
        if seat is None:
            return None
        return self.driver.act(seat)

    def pace(self, now: float) -> tuple[int, float | None]:
        """Let every bot whose time has come at ``now`` act, as the pacer says; returns how many acted
        and when the next bot is due (``None``: none is, the human must act or the hand is over)."""
        driver = self._driver
        if driver is None:
            return 0, None
        pacer = self.pacer
        acted = 0
        pacer.refresh(driver, now)
        while (move := pacer.next_move(driver, now)) is not None:
            driver.act(move.seat)
            acted += 1
            pacer.refresh(driver, now)
        wake = pacer.next_due(driver)
        return acted, wake if wake is not None and math.isfinite(wake) else None

    def run_bots(self) -> list[Action]:
        """Let the bots act until the human must act or the hand is over."""
        done: list[Action] = []
        while (a := self.step_bot()) is not None:
            done.append(a)
        return done

    def play(self, action: Action) -> None:
        """The human's action. Raises :class:`IllegalActionError` and changes nothing if it is not legal."""
        if action.seat != HUMAN:
            raise IllegalActionError(ErrorCode.NOT_YOUR_SEAT, f"you play seat {HUMAN}, not seat {action.seat}")
        self.driver.submit(action)

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
        done: MatchHandResult = self.runtime.finish_hand()
        deltas = g.deltas()
        for w in g.winners:
            self.wins[w.seat] += 1
        number = len(self.results) + 1
        path, error = self._save_record(done.record, number)
        result = HandResult(number, g.dealer, tuple(deltas), tuple(self.totals), done.next_dealer, path, error,
                            seed=done.seed)
        self.results.append(result)
        return result

    def _save_record(self, record: dict[str, object], number: int) -> tuple[Path | None, str | None]:
        if self.record_dir is None:
            return None, None
        data = json.dumps(record, ensure_ascii=False, indent=1) + "\n"
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
