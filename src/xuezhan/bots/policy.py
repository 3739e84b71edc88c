"""A trained policy at the table: ``policy:FILE`` as a bot name (``pip install 'xuezhan[train]'``).

A policy file holds a small network that maps the observation of
:mod:`xuezhan.encoding` to one score per action of the fixed action space; the bot
takes the legal action with the highest score. :func:`save_policy` writes such a file
(``examples/train_imitation.py`` trains one), :class:`PolicyBot` plays it. PyTorch is
imported only when a policy is made or loaded.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..encoding import OBS_SIZE, observation_list
from ..engine.actions import ACTION_SPACE_SIZE, Action, action_index
from ..engine.views import SeatView
from ..errors import XuezhanError
from ..extras import optional
from ..ids import ErrorCode

FORMAT = "xuezhan-policy-1"


def _torch() -> Any:
    return optional("torch", "a policy bot needs PyTorch", "train")


def build_policy(hidden: Sequence[int] = (256, 256)) -> Any:
    """A fresh network: the observation in, a score for each action out (``torch.nn.Sequential``)."""
    torch = _torch()
    layers: list[Any] = []
    width = OBS_SIZE
    for h in hidden:
        layers += [torch.nn.Linear(width, h), torch.nn.ReLU()]
        width = h
    layers.append(torch.nn.Linear(width, ACTION_SPACE_SIZE))
    return torch.nn.Sequential(*layers)


def save_policy(model: Any, path: str | Path, hidden: Sequence[int]) -> None:
    """Write ``model`` (made by :func:`build_policy` with ``hidden``) as a policy file."""
    torch = _torch()
    torch.save({"format": FORMAT, "obs_size": OBS_SIZE, "actions": ACTION_SPACE_SIZE, "hidden": list(hidden),
                "state_dict": model.state_dict()}, str(path))


def load_policy(path: str | Path) -> Any:
    """The network of a policy file, ready to score (``bad_policy`` or ``unreadable`` when it is not one)."""
    torch = _torch()
    try:
        data = torch.load(str(path), map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise XuezhanError(ErrorCode.UNREADABLE, f"no policy file {path}") from None
    except Exception as exc:  # torch raises many kinds for a file that is not its own
        raise XuezhanError(ErrorCode.BAD_POLICY, f"{path} is not a policy file: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise XuezhanError(ErrorCode.BAD_POLICY, f"{path} is not a policy file (format {FORMAT})")
    if data.get("obs_size") != OBS_SIZE or data.get("actions") != ACTION_SPACE_SIZE:
        raise XuezhanError(ErrorCode.BAD_POLICY, f"{path} was trained for another observation or action space")
    model = build_policy(data["hidden"])
    try:
        model.load_state_dict(data["state_dict"])
    except (RuntimeError, KeyError, TypeError) as exc:
        raise XuezhanError(ErrorCode.BAD_POLICY, f"{path}: {exc}") from None
    model.eval()
    return model


class PolicyBot:
    """Plays the legal action its policy scores highest (deterministic)."""

    def __init__(self, path: str, rng: random.Random | None = None) -> None:
        self.name = f"policy:{path}"
        self.model = load_policy(path)
        self._torch = torch = _torch()
        torch.set_num_threads(1)  # one small network per decision: more threads only wait on each other

    def start_hand(self, seed: int) -> None:
        """Deterministic: nothing to seed."""

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        torch = self._torch
        with torch.no_grad():
            scores = self.model(torch.tensor(observation_list(view), dtype=torch.float32))
        return max(legal, key=lambda a: float(scores[action_index(a)]))
