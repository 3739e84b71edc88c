"""Reinforcement-learning environments (``pip install 'xuezhan[rl]'``).

- :func:`env`: a PettingZoo ``AECEnv`` of one hand, agents ``seat_0`` .. ``seat_3``;
- :func:`parallel_env`: the same hand as a PettingZoo ``ParallelEnv``;
- :func:`single_agent_env`: a Gymnasium ``Env``, one seat against bots (registered with
  Gymnasium as ``xuezhan/SingleSeat-v0``: ``gymnasium.make("xuezhan/SingleSeat-v0")`` once
  this package is imported);
- :func:`vector_env`: many tables stepped in one call on the compiled core (:mod:`.vector`);
- :func:`encode`, :func:`encode_batch`, :func:`action_mask`, :func:`mask_batch`: the numpy
  observation (layout in :mod:`xuezhan.encoding`) and action masks of seat views, for
  training loops of one's own.

Actions are the fixed ``Discrete`` space of :func:`xuezhan.engine.actions.action_index`
(:data:`ACTION_SPACE_SIZE` values); rewards are points. The environments step on the
compiled core (:mod:`xuezhan.native`) when it is built and plays the rules and the
opponents, else on the Python engine, with the same results (``engine=`` chooses).
"""

from ..encoding import OBS_FIELDS, OBS_SIZE, action_mask, encode, encode_batch, mask_batch
from ..engine.actions import ACTION_SPACE_SIZE, action_from_index, action_index
from .envs import XuezhanAEC, XuezhanParallel, XuezhanSingle, env, parallel_env, register, single_agent_env
from .vector import VectorEnv, vector_env

__all__ = [
    "ACTION_SPACE_SIZE",
    "OBS_FIELDS",
    "OBS_SIZE",
    "VectorEnv",
    "XuezhanAEC",
    "XuezhanParallel",
    "XuezhanSingle",
    "action_from_index",
    "action_index",
    "action_mask",
    "encode",
    "encode_batch",
    "env",
    "mask_batch",
    "parallel_env",
    "single_agent_env",
    "vector_env",
]

register()
