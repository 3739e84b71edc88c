"""Errors with stable codes.

Every error the project raises for bad input is an :class:`XuezhanError` (a
``ValueError``) carrying a ``code`` that never changes; the CLI and the server
pass the code on unchanged. Codes are the members of :class:`~xuezhan.ids.ErrorCode`
(a ``StrEnum``: a code given as its text is the same code).
"""

from __future__ import annotations

from .ids import ErrorCode


class XuezhanError(ValueError):
    """Base class: bad input of any kind. ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code = str(code)  # the id as plain text, whichever way it was given
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


class TileError(XuezhanError):
    """A malformed tile or hand string."""


class HandError(XuezhanError):
    """A well-formed tile string that is not a possible hand (size, melds)."""


class RulesError(XuezhanError):
    """An unknown option, a bad option value, or a broken rules file."""


class IllegalActionError(XuezhanError):
    """An action that is not legal in the current state; nothing was changed."""


class RecordError(XuezhanError):
    """A game record that cannot be read or does not describe a legal hand."""


class DealError(XuezhanError):
    """A deal that is not a possible start of a hand (code ``bad_deal``).

    ``problem`` says what is wrong, as a stable code of its own: ``wrong_hand_count`` (not four
    hands), ``wrong_tile_count`` (a hand of the wrong size), ``bad_tile`` (not a tile
    0-26) or ``not_108_tiles`` (hands and wall are not exactly the 108 tiles).
    """

    def __init__(self, problem: ErrorCode | str, message: str) -> None:
        super().__init__(ErrorCode.BAD_DEAL, message)
        self.problem = str(problem)
