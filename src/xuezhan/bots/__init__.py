"""Bots behind one protocol: a seat view and the legal actions in, one action out.

A bot by name (docs/interfaces.md §3, bots): ``random``, ``heuristic``, ``expert``, ``expert-0.4`` (the
expert as released in 0.4.0, a yardstick), ``learned`` (the shipped network alone, :mod:`xuezhan.bots.learned`,
needs numpy), ``cmd:COMMAND``
(an outside program speaking the JSON-lines bot protocol, :mod:`xuezhan.bots.outside`)
or ``policy:FILE`` (a trained policy, :mod:`xuezhan.bots.policy`, needs PyTorch).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..errors import XuezhanError
from ..ids import ErrorCode
from .base import Bot
from .expert import Expert04Bot, ExpertBot
from .heuristic import HeuristicBot
from .learned import LearnedBot
from .outside import DEFAULT_TIMEOUT, OutsideBot, check_max_line
from .protocol import DEFAULT_MAX_LINE
from .random_bot import RandomBot

BOTS: dict[str, Callable[[random.Random], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "expert": ExpertBot,
    "expert-0.4": Expert04Bot,
    "learned": LearnedBot,
}

PREFIXES = ("cmd:", "policy:")
"""Bot names that carry an argument: an outside program, a trained policy file."""


def make_bot(name: str, rng: random.Random | None = None, *, timeout: float = DEFAULT_TIMEOUT,
             max_line: int = DEFAULT_MAX_LINE) -> Bot:
    """A bot by name (``random``, ``heuristic``, ``expert``, ``expert-0.4``, ``learned``, ``cmd:COMMAND``,
    ``policy:FILE``); ``timeout`` is the
    seconds an outside program has for each decision, ``max_line`` the most bytes of one of its lines."""
    rng = rng or random.Random(0)
    if name.startswith("cmd:"):
        return OutsideBot(name[4:], rng, timeout=timeout, max_line=max_line)
    if name.startswith("policy:"):
        from .policy import PolicyBot  # numpy and PyTorch are imported only for a policy

        policy: Bot = PolicyBot(name[7:], rng)
        return policy
    factory = BOTS.get(name)
    if factory is None:
        raise XuezhanError(ErrorCode.UNKNOWN_BOT, f"unknown bot {name!r}: choose from {', '.join(sorted(BOTS))}, "
                                          "cmd:COMMAND or policy:FILE")
    return factory(rng)


def bot_faults(bot: Bot) -> int:
    """How many times ``bot`` failed to answer as the protocol says (an outside program; else 0)."""
    return int(getattr(bot, "faults", 0))


def close_bot(bot: Bot) -> None:
    """Stop what ``bot`` holds (an outside program) once it is no longer needed."""
    close = getattr(bot, "close", None)
    if close is not None:
        close()


__all__ = ["BOTS", "DEFAULT_MAX_LINE", "DEFAULT_TIMEOUT", "PREFIXES", "Bot", "Expert04Bot", "ExpertBot", "HeuristicBot",
           "LearnedBot", "OutsideBot", "RandomBot", "bot_faults", "check_max_line", "close_bot", "make_bot"]
