"""JSON text as the project writes it: one line, always UTF-8.

Standard library only, and nothing of the project, so that a command that only prints JSON (a
score, the waits of a hand) loads no game engine to do it. :mod:`xuezhan.records` re-exports
both functions.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

__all__ = ["escape_surrogates", "has_surrogate", "json_line"]

_LINE_BREAKS: Final = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def has_surrogate(text: str) -> bool:
    """``text`` holds a lone surrogate (a character UTF-8 cannot encode)."""
    return _SURROGATE.search(text) is not None


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate (which UTF-8 cannot encode: a ``\\ud800`` escape read
    from JSON, a byte of a file name that is not UTF-8) written as its JSON escape ``\\udXXX``.
    In JSON text they stand only inside strings, where the escape reads back the same."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def json_line(data: Any) -> str:
    """``data`` as one line of JSON text (no newline at the end): UTF-8 as is, but the characters
    that other readers take for the end of a line (U+0085, U+2028, U+2029; JSON escapes the
    control characters already) escaped, so a JSON-lines file or output splits at its newlines
    only. They can stand only inside strings, where the escape reads back the same. Lone
    surrogates are escaped too (:func:`escape_surrogates`): the line always encodes as UTF-8."""
    return escape_surrogates(json.dumps(data, ensure_ascii=False).translate(_LINE_BREAKS))
