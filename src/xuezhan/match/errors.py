"""Errors of the match layer, with stable codes (a :class:`~xuezhan.errors.XuezhanError`)."""

from __future__ import annotations

from ..errors import XuezhanError


class MatchError(XuezhanError):
    """A room, match, seating, bystander or item-card request that the rules do not allow."""
