"""How wide the terminal draws the Unicode mahjong tiles (for ``--glyphs``).

Unicode gives the tiles 🀀-🀫 "neutral" width, so Rich and Textual lay them out one
cell wide; but many terminals (tmux built with utf8proc, among others) draw them two
cells wide, and every line holding a tile then slides to the right. Before the full
screen opens, ``xuezhan play --glyphs`` asks the terminal where the cursor lands after
one tile (a cursor position report) and, when the tile took two cells, makes Rich
measure the whole block as two cells wide too.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Final

from rich import cells
from rich._unicode_data import load as load_cell_table

MAHJONG_BLOCK: Final = (0x1F000, 0x1F02F)
_original: list[tuple[int, int, int]] | None = None


def probe_cell_width(text: str, timeout: float = 0.5) -> int | None:
    """Cells the terminal advances for ``text`` (``None`` if it cannot be asked: not a terminal, no answer)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    try:
        import select
        import termios
        import tty
    except ImportError:  # not a POSIX terminal
        return None
    fd = sys.stdin.fileno()
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        return None
    answer = b""
    try:
        tty.setcbreak(fd)
        sys.stdout.write(f"\r{text}\x1b[6n")
        sys.stdout.flush()
        while b"R" not in answer and select.select([fd], [], [], timeout)[0]:
            answer += os.read(fd, 64)
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write("\r\x1b[K")
        sys.stdout.flush()
    m = re.search(rb"\x1b\[\d+;(\d+)R", answer)
    return int(m.group(1)) - 1 if m else None


def set_mahjong_tiles_wide(wide: bool) -> None:
    """Make Rich measure the mahjong tiles two cells wide (``wide``), or as Unicode says (not ``wide``)."""
    global _original
    table = load_cell_table("auto").widths
    if not isinstance(table, list):
        return
    if _original is None:
        _original = list(table)
    if wide:
        lo, hi = MAHJONG_BLOCK
        kept = [span for span in _original if span[1] < lo or span[0] > hi]
        kept.append((lo, hi, 2))
        kept.sort()
        table[:] = kept
    else:
        table[:] = _original
    cells.get_character_cell_size.cache_clear()
    cells.cached_cell_len.cache_clear()


def fit_mahjong_tiles_to_terminal() -> bool:
    """Ask the terminal how it draws a tile and make Rich agree; whether the tiles are drawn wide."""
    width = probe_cell_width("\U0001f007")
    wide = width == 2
    if wide:
        set_mahjong_tiles_wide(True)
    return wide
