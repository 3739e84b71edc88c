"""Where a table stands."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    WAITING = "waiting"  # seats are being taken; nothing dealt yet
    PLAYING = "playing"  # a hand is being played
    BETWEEN = "between"  # a hand is over; the next starts soon
    FINISHED = "finished"  # the match's hands have been played
    CLOSED = "closed"
