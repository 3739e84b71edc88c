"""The terminal UI: ``xuezhan play`` against three bots and ``xuezhan replay FILE --view``.

:class:`TerminalTable` (the human's seat and the bots on the match runtime) needs no UI;
:class:`PlayApp` and :class:`ReplayApp` are the Textual applications.
"""

from .app import PlayApp
from .match import HUMAN, HandResult, TerminalTable, check_record_dir
from .replay import ReplayApp, ReplayStepper

__all__ = ["HUMAN", "HandResult", "PlayApp", "ReplayApp", "ReplayStepper", "TerminalTable", "check_record_dir"]
