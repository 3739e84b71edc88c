"""Many tables stepped in one call on the compiled core: :func:`vector_env`.

``vector_env(num_envs)`` holds ``num_envs`` tables of the compiled core
(:func:`xuezhan.native.learning_table`). At each table the learners' seats decide and the
other seats are played by compiled bots (``opponents``); :meth:`VectorEnv.step` takes one
action for every table and makes one call into the core, which applies each action, lets the
bots play on until a learner must decide, and writes every table's next observation and action
mask straight into the batch's arrays. Nothing of a step goes through Python per table but the
tables whose hand ended.

- ``reset(seed=None)`` → ``(obs, info)``: ``obs["observation"]`` ``(num_envs, OBS_SIZE)``
  float32 and ``obs["action_mask"]`` ``(num_envs, ACTION_SPACE_SIZE)`` int8, for the seat to
  act at each table (``info["seat"]``);
- ``step(actions)`` (one action index a table) → ``(obs, rewards, terminated, truncated,
  info)``: ``rewards`` ``(num_envs, 4)`` float32, the points each seat gained in that step
  (the learner's action and the bots' play after it); ``terminated`` ``(num_envs,)`` bool,
  the table's hand ended; ``truncated`` is always false (a hand always ends).

A table whose hand ends deals its next hand at once (``metadata["autoreset_mode"]`` is
Gymnasium's ``AutoresetMode.SAME_STEP``): the observation given with ``terminated`` is the
first of the new hand, and the rewards of that step are the last of the old one.

Seeds: table ``i`` plays the hands ``S + i``, ``S + i + num_envs``, ``S + i + 2 * num_envs``, ...
where ``S`` is the ``seed`` of ``reset`` (or, at the first reset, of :func:`vector_env`; else it
comes from the operating system, as at every later reset without a seed). Hand ``s`` is the
hand that ``single_agent_env``'s ``reset(seed=s)`` and ``xuezhan simulate --seed s`` deal first,
so any hand of a run can be played again on its own.
``info["seed"]`` is each table's hand now, ``info["final_seed"]`` the hand that ended at each
table in that step (-1 where none did).

``info`` also holds ``"seat"``: the seat to act at each table (int8). The arrays of a step are
new ones, the caller's to keep, but for ``truncated``: read-only, and the same from step to step.
An action that is not legal (the mask says which) raises
:class:`~xuezhan.errors.IllegalActionError` naming the table, and no table steps.

Opponents: ``None`` (four learners: self-play, the seat to act is whoever must decide next), one
bot name (seat 0 learns against three of it), three names (seats 1-3), or a mapping of seats to
names (the other seats learn). The compiled core plays the bots of
:data:`xuezhan.native.NATIVE_BOTS`; anything it cannot play is refused (``native_refused``, or
``native_unavailable`` where the core is not built): use :func:`~xuezhan.rl.single_agent_env` there.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from .. import native
from ..encoding import OBS_HIGH, OBS_LOW, OBS_SIZE
from ..engine.actions import ACTION_SPACE_SIZE
from ..errors import IllegalActionError, XuezhanError
from ..ids import ErrorCode
from ..match import hand_seed
from ..rules import Rules
from .table import Obs, load_rules

_SEATS: Final = (0, 1, 2, 3)


def _opponents(opponents: str | Sequence[str] | Mapping[int, str] | None) -> dict[int, str]:
    """Seat -> bot name from ``vector_env``'s ``opponents``."""
    if opponents is None:
        return {}
    if isinstance(opponents, str):
        return dict.fromkeys((1, 2, 3), opponents)
    if isinstance(opponents, Mapping):
        seats = dict(opponents)
        if not all(isinstance(s, int) and s in _SEATS for s in seats) or len(seats) > 3:
            raise XuezhanError(ErrorCode.BAD_SEAT, "opponents: bots by seat 0-3, at least one seat left to learn")
        return {int(s): str(n) for s, n in seats.items()}
    names = list(opponents)
    if len(names) != 3:
        raise XuezhanError(ErrorCode.BAD_BOTS, "opponents: one bot name, three, or bots by seat")
    return dict(zip((1, 2, 3), map(str, names), strict=True))


class VectorEnv:
    """``num_envs`` tables stepped together on the compiled core (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, rules: str | Rules = "qq", seed: int | None = None,
                 opponents: str | Sequence[str] | Mapping[int, str] | None = None) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise XuezhanError(ErrorCode.BAD_INPUT, f"num_envs must be a whole number from 1, not {num_envs!r}")
        self.rules = load_rules(rules)
        bots = _opponents(opponents)
        self.opponents = bots
        self.learners = tuple(s for s in _SEATS if s not in bots)
        self.num_envs = num_envs
        self.tables = tuple(native.learning_table(self.rules, [bots.get(s) for s in _SEATS])
                            for _ in range(num_envs))
        self._step_tables, self._observe_tables = native.table_batch()
        self._seed = seed
        n = num_envs
        self._masks = np.zeros((n, ACTION_SPACE_SIZE), dtype=np.int8)
        """The masks last given (:meth:`action_masks`)."""
        self._seats = np.full(n, -1, dtype=np.int8)
        self._actions = np.zeros(n, dtype=np.int64)
        self._hands = np.zeros(n, dtype=np.int64)
        """The seed of each table's hand now."""
        self._next = np.zeros(n, dtype=np.uint64)
        """The hand seed (:func:`~xuezhan.match.hand_seed`) each table deals when its hand ends."""
        self._untruncated = np.zeros(n, dtype=np.bool_)
        self._untruncated.flags.writeable = False
        self._dealt = False
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(OBS_LOW, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(ACTION_SPACE_SIZE,), dtype=np.int8),
        })
        self.single_action_space = spaces.Discrete(ACTION_SPACE_SIZE)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(np.broadcast_to(OBS_LOW, (n, OBS_SIZE)), np.broadcast_to(OBS_HIGH, (n, OBS_SIZE)),
                                      dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(n, ACTION_SPACE_SIZE), dtype=np.int8),
        })
        self.action_space = spaces.MultiDiscrete(np.full(n, ACTION_SPACE_SIZE))

    # --- the batch -----------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Obs, dict[str, Any]]:
        """Deal every table's first hand (table ``i``: the hand of ``seed + i``); see the module docstring."""
        if seed is None:
            seed = self._seed if self._seed is not None else random.SystemRandom().getrandbits(62)
        self._seed = None  # a later reset without a seed takes new hands from the system
        n = self.num_envs
        self._hands[:] = np.arange(seed, seed + n, dtype=np.int64)
        for i, table in enumerate(self.tables):
            table.deal(hand_seed(seed + i, 1))
            self._next[i] = hand_seed(seed + i + n, 1)
        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        masks = np.empty((n, ACTION_SPACE_SIZE), dtype=np.int8)
        self._observe_tables(self.tables, self._seats, obs, masks)
        self._masks = masks
        self._dealt = True
        return {"observation": obs, "action_mask": masks}, {"seat": self._seats.copy(), "seed": self._hands.copy()}

    def step(self, actions: npt.ArrayLike) -> tuple[Obs, npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                                    npt.NDArray[np.bool_], dict[str, Any]]:
        """One action index for every table (see the module docstring)."""
        if not self._dealt:
            raise XuezhanError(ErrorCode.NO_HAND, "no hand is being played: reset the environment first")
        acts = self._actions
        try:
            if len(actions) != self.num_envs:  # type: ignore[arg-type]
                raise ValueError
            acts[:] = actions
        except (ValueError, TypeError, OverflowError):
            raise XuezhanError(ErrorCode.BAD_ACTION, f"step takes one action index for each of the {self.num_envs} "
                                                     "tables") from None
        n = self.num_envs
        seats, hands = self._seats, self._hands
        # written whole by the core: the caller may keep them
        obs = np.empty((n, OBS_SIZE), dtype=np.float32)
        masks = np.empty((n, ACTION_SPACE_SIZE), dtype=np.int8)
        rewards = np.empty((n, 4), dtype=np.float32)
        terminated = np.empty(n, dtype=np.bool_)
        final = np.empty(n, dtype=np.int64)
        ended = self._step_tables(self.tables, seats, acts, self._next, hands, obs, masks, rewards, terminated, final)
        if ended < 0:
            bad = -1 - ended
            raise IllegalActionError(ErrorCode.ILLEGAL_ACTION,
                                     f"table {bad}: seat {int(seats[bad])} may not take action {int(acts[bad])} now")
        if ended:  # those tables dealt their next hand: the one after it, n hands on
            following = self._next
            for i in np.flatnonzero(terminated).tolist():
                following[i] = hand_seed(int(hands[i]) + n, 1)
        self._masks = masks
        info = {"seat": seats.copy(), "seed": hands.copy(), "final_seed": final}
        return {"observation": obs, "action_mask": masks}, rewards, terminated, self._untruncated, info

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """Each table's legal actions now as booleans ``(num_envs, ACTION_SPACE_SIZE)``."""
        return self._masks.astype(bool)

    def close(self) -> None:
        pass


def vector_env(num_envs: int, rules: str | Rules = "qq", seed: int | None = None,
               opponents: str | Sequence[str] | Mapping[int, str] | None = None) -> VectorEnv:
    """``num_envs`` tables stepped in one call on the compiled core (:class:`VectorEnv`)."""
    return VectorEnv(num_envs, rules=rules, seed=seed, opponents=opponents)
