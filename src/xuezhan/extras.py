"""The optional parts of the package (the extras of ``pyproject.toml``), imported where they are used.

One way to ask for one: :func:`optional` imports the module or raises ``missing_extra`` with the
``pip install`` line that adds it, so a user without the extra gets a clear error, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

from .errors import XuezhanError
from .ids import ErrorCode


def optional(module: str, needs: str, extra: str) -> Any:
    """The module ``module`` (dotted names too), or ``missing_extra``: "``needs``: pip install
    'xuezhan[``extra``]'". Imports through ``__import__``, as an ``import`` statement does."""
    try:
        __import__(module)
    except ImportError:
        raise XuezhanError(ErrorCode.MISSING_EXTRA, f"{needs}: pip install 'xuezhan[{extra}]'") from None
    return sys.modules[module]


__all__ = ["optional"]
