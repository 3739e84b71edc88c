"""The terminal UI: ``xuezhan play`` against three bots and ``xuezhan replay FILE --view``.

:class:`Match` (the controller: the hand, the bots, the running totals) needs no UI;
:class:`PlayApp` and :class:`ReplayApp` are the Textual applications.
"""

from .app import PlayApp
from .match import HUMAN, HandResult, Match, check_record_dir
from .replay import ReplayApp, ReplayStepper

__all__ = ["HUMAN", "HandResult", "Match", "PlayApp", "ReplayApp", "ReplayStepper", "check_record_dir"]
