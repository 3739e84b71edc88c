"""An outside program at the table: ``cmd:COMMAND`` speaks the bot protocol over its stdin and stdout.

``COMMAND`` is split like a shell line (:func:`shlex.split`) and run without a shell. The
program is started when it is first needed and kept from hand to hand. A fault (an answer
that is not JSON or not one of the legal actions, no answer within the time limit, or a
program that has ended) does not stop the game: the heuristic bot takes that decision,
the program is stopped and the heuristic plays the seat to the end of the hand, the
program is started again for the next hand, and the fault is counted (:attr:`faults`,
``bot_faults`` in the summaries).
"""

from __future__ import annotations

import contextlib
import json
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
from ..records import json_line
from .heuristic import HeuristicBot
from .protocol import end_message, request_message, start_message

log = logging.getLogger("xuezhan.bots")

DEFAULT_TIMEOUT = 5.0
"""Seconds an outside bot has for each decision (``--bot-timeout``)."""


class BotFault(Exception):
    """The outside program did not answer as the protocol says."""


def _read_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put(None)  # the program's output ended


def _stop(proc: subprocess.Popen[str], grace: float = 1.0) -> None:
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


class OutsideBot:
    """A bot that is an outside program speaking the bot protocol (see the module docstring)."""

    def __init__(self, command: str, rng: random.Random, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        if not timeout > 0:
            raise XuezhanError(ErrorCode.BAD_INPUT, f"the bot timeout must be positive, not {timeout!r}")
        self.name = f"cmd:{command}"
        self.argv = split_command(command)
        self.timeout = timeout
        self.faults = 0
        self.fallback = HeuristicBot(rng)
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._broken = False  # a fault in this hand: the heuristic plays on
        self._started = False  # start_hand sent for this hand

    # --- the program -------------------------------------------------------------------------------
    def _spawn(self) -> subprocess.Popen[str]:
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                    encoding="utf-8", bufsize=1)
        except OSError as exc:
            raise BotFault(f"cannot start {self.argv[0]}: {exc.strerror}") from None
        self._lines = queue.Queue()
        assert proc.stdout is not None
        threading.Thread(target=_read_lines, args=(proc.stdout, self._lines), daemon=True).start()
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
            proc.stdin.write(json_line(message) + "\n")
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

    def _receive(self) -> str:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise BotFault(f"no answer within {self.timeout:g} s") from None
        if line is None:
            raise BotFault("the program has ended")
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
                line = self._receive()
                try:
                    answer = json.loads(line)
                    action = Action.from_json(answer["action"])
                except (ValueError, TypeError, KeyError, XuezhanError):
                    raise BotFault(f"not an answer: {line.strip()[:200]!r}") from None
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
