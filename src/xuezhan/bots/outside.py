"""An outside program at the table: ``cmd:COMMAND`` speaks the bot protocol over its stdin and stdout.

``COMMAND`` is split like a shell line (:func:`shlex.split`) and run without a shell. The
program is started when it is first needed and kept from hand to hand. A fault (an answer
that is not JSON or not one of the legal actions, no answer within the time limit, or a
program that has ended) does not stop the game: the heuristic bot takes that decision,
the program is stopped and the heuristic plays the seat to the end of the hand, the
program is started again for the next hand, and the fault is counted (:attr:`faults`,
``bot_faults`` in the summaries).

A line of the program is at most ``max_line`` bytes (:data:`DEFAULT_MAX_LINE`, 1 MiB;
``--bot-max-line``) without its newline: a longer one (a program that writes without
newlines, say) is a fault as soon as ``max_line + 1`` bytes of it have come, and is never held
whole. A line that is not UTF-8 text is a fault too. At most one read line waits to be taken.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import random
import shlex
import shutil
import subprocess
import threading
import weakref
from collections.abc import Sequence
from typing import IO, Any

from ..engine.actions import Action
from ..engine.views import SeatView
from ..errors import XuezhanError
from ..ids import ErrorCode
from ..jsontext import json_line
from ..records import loads_text
from .heuristic import HeuristicBot
from .protocol import DEFAULT_MAX_LINE, end_message, request_message, start_message

log = logging.getLogger("xuezhan.bots")

DEFAULT_TIMEOUT = 5.0
"""Seconds an outside bot has for each decision (``--bot-timeout``)."""


class BotFault(Exception):
    """The outside program did not answer as the protocol says."""


_Line = str | None | BotFault
"""What the reader passes on: a line, the end of the output (``None``), or what was wrong."""


def _put(stream: IO[bytes], lines: queue.Queue[_Line], item: _Line) -> bool:
    """Hand ``item`` over, waiting while the last line has not been taken; ``False`` when the
    program was stopped meanwhile (nobody will take it)."""
    while True:
        try:
            lines.put(item, timeout=0.2)
            return True
        except queue.Full:
            if stream.closed:
                return False


def check_max_line(max_line: int) -> int:
    """``max_line`` if it is a usable line cap (a whole number of at least 1,024 bytes); else ``bad_input``."""
    if not isinstance(max_line, int) or isinstance(max_line, bool) or max_line < 1024:
        raise XuezhanError(ErrorCode.BAD_INPUT, f"the bot line cap must be at least 1024 bytes, not {max_line!r}")
    return max_line


def _read_lines(stream: IO[bytes], lines: queue.Queue[_Line], max_line: int = DEFAULT_MAX_LINE) -> None:
    """Pass the program's lines on as text, each read into at most ``max_line + 1`` bytes: a
    longer line or one that is not UTF-8 ends the reading with a :class:`BotFault`."""
    end: _Line = None  # the program's output ended
    try:
        while True:
            raw = stream.readline(max_line + 1)
            if not raw:
                break
            if len(raw) > max_line and not raw.endswith(b"\n"):
                end = BotFault(f"a line longer than {max_line} bytes")
                break
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                end = BotFault("a line that is not UTF-8 text")
                break
            del raw
            if not _put(stream, lines, line):
                return
    except (OSError, ValueError):
        pass
    _put(stream, lines, end)


def _stop(proc: subprocess.Popen[bytes], grace: float = 1.0) -> None:
    """End the program: its stdin is closed (a bot ends when its input ends); after ``grace``
    seconds it is killed."""
    if proc.poll() is None and grace > 0 and proc.stdin is not None:
        with contextlib.suppress(OSError, ValueError):
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=grace)
    if proc.poll() is None:
        proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def split_command(command: str) -> list[str]:
    """``COMMAND`` of ``cmd:COMMAND`` as a program and its arguments; bad input raises
    ``unknown_bot`` (an empty command, unbalanced quotes, a program that is not there)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise XuezhanError(ErrorCode.UNKNOWN_BOT, f"cmd:{command}: {exc}") from None
    if not argv:
        raise XuezhanError(ErrorCode.UNKNOWN_BOT, "cmd: needs a command, e.g. cmd:python mybot.py")
    if shutil.which(argv[0]) is None:
        raise XuezhanError(ErrorCode.UNKNOWN_BOT, f"cmd:{command}: no program {argv[0]!r} found")
    return argv


def read_answer(line: str) -> Action:
    """The action of an answer line ``{"action": ACTION}``; :class:`BotFault` for anything else
    (not JSON, a number past 4,300 digits, a lone surrogate, no action)."""
    try:
        answer = loads_text(line)
        return Action.from_json(answer["action"])
    except (ValueError, TypeError, KeyError, RecursionError, XuezhanError):
        raise BotFault(f"not an answer: {line.strip()[:200]!r}") from None


class OutsideBot:
    """A bot that is an outside program speaking the bot protocol (see the module docstring)."""

    def __init__(self, command: str, rng: random.Random, *, timeout: float = DEFAULT_TIMEOUT,
                 max_line: int = DEFAULT_MAX_LINE) -> None:
        if not timeout > 0:
            raise XuezhanError(ErrorCode.BAD_INPUT, f"the bot timeout must be positive, not {timeout!r}")
        self.name = f"cmd:{command}"
        self.argv = split_command(command)
        self.timeout = timeout
        self.max_line = check_max_line(max_line)
        self.faults = 0
        self.fallback = HeuristicBot(rng)
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[_Line] = queue.Queue(1)
        self._broken = False  # a fault in this hand: the heuristic plays on
        self._started = False  # start_hand sent for this hand

    # --- the program -------------------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[bytes]:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise BotFault(f"cannot start {self.argv[0]}: {exc.strerror}") from None
        self._lines = queue.Queue(1)  # one line waits at most: the program waits to write more
        assert proc.stdout is not None
        threading.Thread(target=_read_lines, args=(proc.stdout, self._lines, self.max_line), daemon=True).start()
        weakref.finalize(self, _stop, proc)
        self._proc = proc
        return proc

    def _send(self, message: dict[str, Any]) -> None:
        proc = self._proc if self._proc is not None and self._proc.poll() is None else None
        if proc is None:
            if self._proc is not None:
                raise BotFault("the program has ended")
            proc = self._spawn()
        assert proc.stdin is not None
        try:
            proc.stdin.write((json_line(message) + "\n").encode("utf-8"))
            proc.stdin.flush()
        except (OSError, ValueError):
            raise BotFault("the program has ended") from None

    def _drain(self) -> None:
        """Drop lines written before a request (they cannot answer it); the end of the output
        means the program has ended."""
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                raise BotFault("the program has ended")
            if isinstance(line, BotFault):
                raise line

    def _receive(self) -> str:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise BotFault(f"no answer within {self.timeout:g} s") from None
        if line is None:
            raise BotFault("the program has ended")
        if isinstance(line, BotFault):
            raise line
        return line

    def close(self, grace: float = 1.0) -> None:
        """Stop the program (it is started again when next needed): its input ends, and it is
        killed if it has not ended after ``grace`` seconds."""
        if self._proc is not None:
            _stop(self._proc, grace)
            self._proc = None

    def _fault(self) -> None:
        self.faults += 1
        self._broken = True
        self.close(grace=0)  # it misbehaved: no time to wind down

    # --- the bot protocol -----------------------------------------------------------------------------
    def start_hand(self, seed: int) -> None:
        self.fallback.start_hand(seed)
        self._broken = False
        self._started = False

    def _begin(self, view: SeatView) -> None:
        if not self._started:
            self._send(start_message(view))
            self._started = True

    def choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        if not self._broken:
            try:
                self._begin(view)
                self._drain()
                self._send(request_message(view, legal))
                action = read_answer(self._receive())
                if action in legal:
                    return action
                raise BotFault(f"{action} is not legal now")
            except BotFault as exc:
                log.warning("%s at seat %d: %s; the heuristic bot plays on this hand", self.name, view.seat, exc)
                self._fault()
        return self.fallback.choose(view, legal)

    def end_hand(self, view: SeatView) -> None:
        if self._broken or self._proc is None:
            self._started = False
            return
        try:
            self._begin(view)
            self._send(end_message(view))
        except BotFault:
            self._fault()
        self._started = False
