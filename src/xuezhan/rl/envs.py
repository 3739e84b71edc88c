"""PettingZoo and Gymnasium environments of one hand of blood-battle mahjong.

- :func:`env`: a PettingZoo ``AECEnv``: the four seats ``seat_0`` .. ``seat_3`` decide one at
  a time, in the engine's order (in a claim window every seat with a claim answers in turn).
- :func:`parallel_env`: a PettingZoo ``ParallelEnv``: at each step every seat that must
  decide answers at once (4 seats at 换三张 and 定缺, the claimants of a discard, one seat on
  its turn); the actions of seats with nothing to decide (an all-zero mask) are ignored.
- :func:`single_agent_env`: a Gymnasium ``Env``: one seat against bots.

One episode is one hand. Observations are ``{"observation": float32 vector, "action_mask":
int8 vector}`` (:mod:`xuezhan.encoding`), the action space is the fixed ``Discrete``
space of :func:`xuezhan.engine.actions.action_index`, and rewards are points, paid when they
change hands (a kong's payment at once, a win's at the win, 查叫 and 退税 at the end), so
that a seat's rewards over the hand add up to its points for the hand.

``render()`` with ``render_mode="ansi"`` returns the table as text: with every hand face up
in the PettingZoo environments (they hold all four seats), as the learner's seat sees it in
the Gymnasium environment.

Seeds: ``reset(seed=S)`` deals the hand that a match seeded with ``S`` deals first (the
same hand as ``xuezhan simulate --seed S``); each later ``reset()`` without a seed deals
from ``S + 1``, ``S + 2``, ... The ``seed`` given when the environment is made is the
seed of its first reset; without one, it comes from the operating system.

Engines: ``engine="auto"`` (the default) plays on the compiled core (:mod:`xuezhan.native`)
when it is built and plays the rules and the opponents (:func:`xuezhan.native.refusal`), else
on the Python engine; ``"python"`` and ``"native"`` choose one (``native`` is refused with
``native_unavailable`` or ``native_refused`` where the core cannot play). Both give the same
observations, masks, rewards and records for the same seeds and actions; ``env.engine`` says
which one plays.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..encoding import OBS_HIGH, OBS_LOW, OBS_SIZE
from ..engine.actions import ACTION_SPACE_SIZE
from ..errors import IllegalActionError, XuezhanError
from ..ids import ErrorCode
from ..rules import Rules
from .table import PLAYERS, Obs, make_table

_SEAT: Final = {a: s for s, a in enumerate(PLAYERS)}

RENDER_MODES = ("ansi",)


def observation_space() -> spaces.Dict:
    """The space of one seat's observation: the encoded view and the action mask."""
    return spaces.Dict({
        "observation": spaces.Box(OBS_LOW, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(ACTION_SPACE_SIZE,), dtype=np.int8),
    })


def _check_render_mode(render_mode: str | None) -> None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise XuezhanError(ErrorCode.BAD_INPUT, f"render_mode must be one of {', '.join(RENDER_MODES)} or None")


class _Seeds:
    """The seed of each hand: the given one, then the next ones."""

    def __init__(self, seed: int | None) -> None:
        self.next = seed

    def take(self, seed: int | None) -> int:
        if seed is not None:
            self.next = seed
        if self.next is None:
            self.next = random.SystemRandom().getrandbits(63)
        out = self.next
        self.next = out + 1
        return out


class XuezhanAEC(AECEnv[str, Obs, int | None]):
    """The four seats of one hand as a PettingZoo ``AECEnv`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "xuezhan_v0", "render_modes": list(RENDER_MODES),
                                          "is_parallelizable": False}

    def __init__(self, rules: str | Rules = "qq", seed: int | None = None, render_mode: str | None = None,
                 engine: str = "auto") -> None:
        super().__init__()
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        self.table = make_table(rules, learners=range(4), opponents={}, engine=engine)
        self.engine = self.table.engine
        self._seeds = _Seeds(seed)
        self.possible_agents: list[str] = list(PLAYERS)
        self.agents: list[str] = []
        self._obs_space = {a: observation_space() for a in PLAYERS}
        self._act_space = {a: spaces.Discrete(ACTION_SPACE_SIZE) for a in PLAYERS}
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = PLAYERS[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.table.deal(self._seeds.take(seed))
        self.agents = list(PLAYERS)
        self.rewards = dict.fromkeys(PLAYERS, 0.0)
        self._cumulative_rewards = dict.fromkeys(PLAYERS, 0.0)
        self.terminations = dict.fromkeys(PLAYERS, False)
        self.truncations = dict.fromkeys(PLAYERS, False)
        self.infos = {a: {} for a in PLAYERS}
        self._select()

    def _select(self) -> None:
        first = self.table.first_deciding()
        if first is not None:
            self.agent_selection = PLAYERS[first]
        elif self.agents:
            self.agent_selection = self.agents[0]

    def observe(self, agent: str) -> Obs:
        return self.table.observation(_SEAT[agent])

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise XuezhanError(ErrorCode.BAD_ACTION,
                               f"{agent} must decide: None is the action of a finished agent only")
        table = self.table
        first = table.step(_SEAT[agent], int(action))  # an illegal action raises, changing nothing
        self._cumulative_rewards[agent] = 0.0
        paid = table.rewards()
        if first is not None:
            self.agent_selection = PLAYERS[first]
        else:
            if table.over:
                self.terminations = dict.fromkeys(self.agents, True)
            if self.agents:
                self.agent_selection = self.agents[0]
        if any(paid):
            self.rewards = dict(zip(PLAYERS, paid, strict=True))
            self._accumulate_rewards()
        else:  # most steps pay nothing: nothing to add up
            self.rewards = dict.fromkeys(PLAYERS, 0.0)

    def render(self) -> str | None:
        if self.render_mode is None or not self.table.dealt:
            return None
        return self.table.render(None)

    def close(self) -> None:
        pass


class XuezhanParallel(ParallelEnv[str, Obs, int]):
    """The four seats of one hand as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"name": "xuezhan_parallel_v0", "render_modes": list(RENDER_MODES)}

    def __init__(self, rules: str | Rules = "qq", seed: int | None = None, render_mode: str | None = None,
                 engine: str = "auto") -> None:
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        self.table = make_table(rules, learners=range(4), opponents={}, engine=engine)
        self.engine = self.table.engine
        self._seeds = _Seeds(seed)
        self.possible_agents: list[str] = list(PLAYERS)
        self.agents: list[str] = []
        self._obs_space = {a: observation_space() for a in PLAYERS}
        self._act_space = {a: spaces.Discrete(ACTION_SPACE_SIZE) for a in PLAYERS}

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_space[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_space[agent]

    def _observations(self) -> dict[str, Obs]:
        observation = self.table.observation
        return {a: observation(_SEAT[a]) for a in self.agents}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Obs],
                                                                                         dict[str, dict[str, Any]]]:
        self.table.deal(self._seeds.take(seed))
        self.agents = list(PLAYERS)
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, int]) -> tuple[
        dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]
    ]:
        table = self.table
        deciding = table.deciding()
        for seat in deciding:  # every answer is checked before any is applied
            agent = PLAYERS[seat]
            if agent not in actions:
                raise XuezhanError(ErrorCode.BAD_ACTION, f"{agent} must decide and was given no action")
            index = int(actions[agent])
            if not table.is_legal(seat, index):
                raise IllegalActionError(ErrorCode.ILLEGAL_ACTION, f"{agent} may not take action {index} now")
        for seat in deciding:
            if table.over or seat not in table.deciding():
                continue  # an earlier answer closed the window (a win beats a claim)
            table.step(seat, int(actions[PLAYERS[seat]]))
        rewards = dict(zip(PLAYERS, table.rewards(), strict=True))
        over = table.over
        agents = self.agents
        obs = self._observations()
        out: tuple[dict[str, Obs], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, Any]]]
        out = (obs, {a: rewards[a] for a in agents}, dict.fromkeys(agents, over), dict.fromkeys(agents, False),
               {a: {} for a in agents})
        if over:
            self.agents = []
        return out

    def render(self) -> str | None:
        if self.render_mode is None or not self.table.dealt:
            return None
        return self.table.render(None)

    def close(self) -> None:
        pass

    def state(self) -> npt.NDArray[np.float32]:
        """Every seat's observation side by side (for centralised critics): ``(4, OBS_SIZE)``."""
        return self.table.state()


class XuezhanSingle(gymnasium.Env[Obs, int]):
    """One seat (``seat``, default 0) against three bots as a Gymnasium ``Env``
    (``gymnasium.make("xuezhan/SingleSeat-v0", opponents=..., ...)``, :func:`register`).

    With ``record`` (the default), the step that ends the hand gives its game record in
    ``info["record"]``, as ``xuezhan simulate --out`` writes records (the hand of
    ``reset(seed=S)`` is hand 1 of a match seeded with ``S``; ``xuezhan replay`` reads it).
    Writing it costs about a millisecond a hand, as much as playing the hand on the compiled
    core: ``record=False`` leaves it out.

    An action that is not legal (see the ``action_mask``, also :meth:`action_masks`) is not an
    error: the seat's stand-in bot decides instead, as it does for a person who runs out of
    time, and the step's ``info`` says ``"illegal_action": True``.
    """

    metadata = {"render_modes": list(RENDER_MODES)}  # noqa: RUF012 (declared by gymnasium.Env)

    def __init__(self, opponents: str | Sequence[str] = "heuristic", rules: str | Rules = "qq",
                 seed: int | None = None, render_mode: str | None = None, seat: int = 0,
                 engine: str = "auto", record: bool = True) -> None:
        _check_render_mode(render_mode)
        self.record = record
        if seat not in (0, 1, 2, 3):
            raise XuezhanError(ErrorCode.BAD_SEAT, f"seat must be 0-3, not {seat!r}")
        names = [opponents] * 3 if isinstance(opponents, str) else list(opponents)
        if len(names) != 3:
            raise XuezhanError(ErrorCode.BAD_BOTS, "opponents: one bot name or three")
        others = [s for s in range(4) if s != seat]
        self.seat = seat
        self.render_mode = render_mode
        self.table = make_table(rules, learners=[seat], opponents=dict(zip(others, names, strict=True)),
                                engine=engine)
        self.engine = self.table.engine
        self._seeds = _Seeds(seed)
        self.observation_space: spaces.Space[Any] = observation_space()
        self.action_space: spaces.Space[Any] = spaces.Discrete(ACTION_SPACE_SIZE)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        super().reset(seed=seed)
        self.table.deal(self._seeds.take(seed))
        return self.table.observation(self.seat), {}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions now as booleans (the name maskable-PPO implementations call)."""
        return self.table.mask(self.seat).astype(bool)

    def step(self, action: int) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        table = self.table
        if table.over:
            raise XuezhanError(ErrorCode.HAND_OVER, "the hand is over: reset the environment")
        index = int(action)
        illegal = not table.is_legal(self.seat, index)
        if illegal:
            table.stand_in(self.seat)  # the stand-in decides, as for a person out of time
        else:
            table.step(self.seat, index)
        reward = table.rewards()[self.seat]
        info: dict[str, Any] = {"illegal_action": illegal}
        over = table.over
        if over and self.record:
            info["record"] = table.record()
        return table.observation(self.seat), reward, over, False, info

    def render(self) -> str | None:
        if self.render_mode is None or not self.table.dealt:
            return None
        return self.table.render(self.seat)


SINGLE_SEAT_ID: Final = "xuezhan/SingleSeat-v0"
"""The Gymnasium id of :class:`XuezhanSingle` (its keyword arguments pass through ``gymnasium.make``)."""


def register() -> None:
    """Register the Gymnasium environments (done when :mod:`xuezhan.rl` is imported; again is a no-op)."""
    if SINGLE_SEAT_ID not in gymnasium.registry:
        gymnasium.register(id=SINGLE_SEAT_ID, entry_point="xuezhan.rl.envs:XuezhanSingle")


def env(rules: str | Rules = "qq", seed: int | None = None, render_mode: str | None = None,
        engine: str = "auto") -> XuezhanAEC:
    """The PettingZoo ``AECEnv`` of one hand (agents ``seat_0`` .. ``seat_3``)."""
    return XuezhanAEC(rules=rules, seed=seed, render_mode=render_mode, engine=engine)


def parallel_env(rules: str | Rules = "qq", seed: int | None = None, render_mode: str | None = None,
                 engine: str = "auto") -> XuezhanParallel:
    """The PettingZoo ``ParallelEnv`` of one hand."""
    return XuezhanParallel(rules=rules, seed=seed, render_mode=render_mode, engine=engine)


def single_agent_env(opponents: str | Sequence[str] = "heuristic", rules: str | Rules = "qq",
                     seed: int | None = None, render_mode: str | None = None, seat: int = 0,
                     engine: str = "auto", record: bool = True) -> XuezhanSingle:
    """The Gymnasium ``Env`` of one seat against bots (``opponents``: one bot name or three)."""
    return XuezhanSingle(opponents=opponents, rules=rules, seed=seed, render_mode=render_mode, seat=seat,
                         engine=engine, record=record)
