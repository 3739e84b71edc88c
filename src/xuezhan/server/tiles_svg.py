"""The tile pictures of the web table, drawn here as SVG (no fonts, no images to download).

Every face is built from shapes only, so a browser without Chinese fonts still
shows the tiles: 筒 as rings, 条 as bamboo sticks (the 1 of 条 is a bird), 万 as a
brush-stroke numeral over a red 万. A small rank index in the corner helps players
who do not read the numerals. :func:`tile_svg` gives one face, :func:`back_svg` the
back of a concealed tile.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from ..tiles import NUM_KINDS, Tile, parse_tile, tile_name

WIDTH: Final = 64
HEIGHT: Final = 86

GREEN: Final = "#17804a"
RED: Final = "#c62a2f"
BLUE: Final = "#1f4f9e"
INK: Final = "#1b2747"
FACE_TOP: Final = "#fffdf5"
FACE_BOTTOM: Final = "#efe7d2"
BODY: Final = "#1b6a4e"


def _frame(content: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{label}">'
        '<defs><linearGradient id="f" x1="0" y1="0" x2="0" y2="1">'
        f'<stop offset="0" stop-color="{FACE_TOP}"/><stop offset="1" stop-color="{FACE_BOTTOM}"/>'
        "</linearGradient></defs>"
        f'<rect x="1" y="5" width="62" height="80" rx="8" fill="{BODY}"/>'
        '<rect x="1" y="1" width="62" height="80" rx="8" fill="url(#f)" stroke="#b8ab8c" stroke-width="1"/>'
        '<rect x="3.5" y="3.5" width="57" height="75" rx="6" fill="none" stroke="#ffffff" stroke-width="1.2" '
        'opacity="0.8"/>'
        f"{content}</svg>"
    )


# --- 筒 (dots) -----------------------------------------------------------------------------------------


def _ring(cx: float, cy: float, r: float, color: str) -> str:
    return (
        f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{color}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="{r * 0.74:.2f}" fill="{FACE_TOP}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="{r * 0.56:.2f}" fill="{color}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="{r * 0.2:.2f}" fill="{FACE_TOP}"/>'
    )


def _big_dot() -> str:
    cx, cy = 32, 41
    petals = "".join(
        f'<circle cx="{cx}" cy="{cy - 17.5}" r="2.6" fill="{RED}" transform="rotate({a} {cx} {cy})"/>'
        for a in range(0, 360, 30)
    )
    return (
        f'<circle cx="{cx}" cy="{cy}" r="23" fill="{GREEN}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="20.5" fill="{FACE_TOP}"/>'
        f"{petals}"
        f'<circle cx="{cx}" cy="{cy}" r="13" fill="{BLUE}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="10" fill="{FACE_TOP}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="7.5" fill="{RED}"/>'
        f'<circle cx="{cx}" cy="{cy}" r="2.5" fill="{FACE_TOP}"/>'
    )


_DOTS: Final[dict[int, list[tuple[float, float, float, str]]]] = {
    2: [(32, 24, 13, GREEN), (32, 59, 13, BLUE)],
    3: [(17, 19, 10.5, BLUE), (32, 41, 10.5, RED), (47, 63, 10.5, GREEN)],
    4: [(20, 26, 10.5, BLUE), (44, 26, 10.5, GREEN), (20, 56, 10.5, GREEN), (44, 56, 10.5, BLUE)],
    5: [(18, 21, 9.5, BLUE), (46, 21, 9.5, GREEN), (32, 41, 9.5, RED), (18, 61, 9.5, GREEN), (46, 61, 9.5, BLUE)],
    6: [(20, 17, 9, GREEN), (44, 17, 9, GREEN), (20, 45, 9, RED), (44, 45, 9, RED), (20, 66, 9, RED),
        (44, 66, 9, RED)],
    7: [(15, 13, 7.5, GREEN), (32, 21, 7.5, GREEN), (49, 29, 7.5, GREEN), (21, 49, 8, RED), (43, 49, 8, RED),
        (21, 68, 8, RED), (43, 68, 8, RED)],
    8: [(x, y, 8, BLUE) for y in (14, 32, 50, 68) for x in (21, 43)],
    9: [(x, y, 8, c) for y, c in ((17, BLUE), (41, RED), (65, GREEN)) for x in (15, 32, 49)],
}


# --- 条 (bamboo) -----------------------------------------------------------------------------------------


def _stick(cx: float, cy: float, h: float, color: str, angle: float = 0) -> str:
    top = cy - h / 2
    dark = "#0d3d28" if color == GREEN else ("#7a1216" if color == RED else "#12305f")
    rot = f' transform="rotate({angle} {cx} {cy})"' if angle else ""
    return (
        f"<g{rot}>"
        f'<rect x="{cx - 3.4}" y="{top}" width="6.8" height="{h}" rx="3.4" fill="{color}"/>'
        f'<rect x="{cx - 4.4}" y="{top + 0.6}" width="8.8" height="2.4" rx="1.2" fill="{dark}"/>'
        f'<rect x="{cx - 4.4}" y="{cy - 1.2}" width="8.8" height="2.4" rx="1.2" fill="{dark}"/>'
        f'<rect x="{cx - 4.4}" y="{top + h - 3}" width="8.8" height="2.4" rx="1.2" fill="{dark}"/>'
        f'<line x1="{cx - 0.8}" y1="{top + 4}" x2="{cx - 0.8}" y2="{cy - 2.5}" stroke="#ffffff" '
        'stroke-width="1.1" stroke-linecap="round" opacity="0.55"/>'
        f'<line x1="{cx - 0.8}" y1="{cy + 2.5}" x2="{cx - 0.8}" y2="{top + h - 4}" stroke="#ffffff" '
        'stroke-width="1.1" stroke-linecap="round" opacity="0.55"/>'
        "</g>"
    )


_STICKS: Final[dict[int, list[tuple[float, float, float, str, float]]]] = {
    2: [(32, 24, 28, GREEN, 0), (32, 59, 28, BLUE, 0)],
    3: [(32, 23, 27, GREEN, 0), (20, 59, 27, BLUE, 0), (44, 59, 27, BLUE, 0)],
    4: [(21, 24, 28, GREEN, 0), (43, 24, 28, BLUE, 0), (21, 59, 28, BLUE, 0), (43, 59, 28, GREEN, 0)],
    5: [(16, 24, 27, GREEN, 0), (48, 24, 27, BLUE, 0), (32, 41, 27, RED, 0), (16, 59, 27, BLUE, 0),
        (48, 59, 27, GREEN, 0)],
    6: [(x, y, 28, GREEN if y < 40 else BLUE, 0) for y in (24.0, 59.0) for x in (16.0, 32.0, 48.0)],
    7: [(32, 15, 20, RED, 0)] + [(x, y, 21, GREEN if y < 50 else BLUE, 0) for y in (40.0, 65.0)
                                 for x in (16.0, 32.0, 48.0)],
    8: [(12, 24, 27, GREEN, 0), (25, 24, 27, GREEN, 22), (39, 24, 27, GREEN, -22), (52, 24, 27, GREEN, 0),
        (12, 59, 27, BLUE, 0), (25, 59, 27, BLUE, -22), (39, 59, 27, BLUE, 22), (52, 59, 27, BLUE, 0)],
    9: [(x, y, 21, c, 0) for y in (16.0, 41.0, 66.0) for x, c in ((16.0, GREEN), (32.0, RED), (48.0, BLUE))],
}


def _bird() -> str:
    """幺鸡: the 1 of bamboo is a bird on a branch."""
    return (
        # tail feathers
        f'<path d="M24 50 Q8 58 6 74 Q16 66 26 56 Z" fill="{BLUE}"/>'
        f'<path d="M26 52 Q16 64 18 78 Q24 66 30 56 Z" fill="{GREEN}"/>'
        f'<path d="M22 48 Q6 50 4 62 Q14 56 24 53 Z" fill="{RED}"/>'
        # body and wing
        f'<ellipse cx="33" cy="45" rx="14" ry="11" fill="{GREEN}" transform="rotate(-25 33 45)"/>'
        f'<ellipse cx="36" cy="49" rx="8" ry="6" fill="{RED}" transform="rotate(-25 36 49)"/>'
        f'<path d="M24 42 Q34 34 42 44 Q34 44 26 48 Z" fill="#0d3d28"/>'
        # head, crest, eye, beak
        f'<circle cx="44" cy="28" r="7.5" fill="{GREEN}"/>'
        f'<path d="M41 21 Q40 13 45 11 M44 21 Q46 14 51 14" stroke="{RED}" stroke-width="2" fill="none" '
        'stroke-linecap="round"/>'
        f'<circle cx="46.5" cy="26.5" r="2.2" fill="{FACE_TOP}"/><circle cx="47" cy="26.5" r="1.1" fill="{INK}"/>'
        '<path d="M51 28 L58 30 L51 32 Z" fill="#e39a1c"/>'
        # legs and branch
        f'<path d="M32 55 L30 66 M38 54 L38 66" stroke="{INK}" stroke-width="1.6" stroke-linecap="round"/>'
        '<path d="M18 67 Q34 64 52 68" stroke="#8a5a2b" stroke-width="3" fill="none" stroke-linecap="round"/>'
    )


# --- 万 (characters) --------------------------------------------------------------------------------------

# Brush strokes of the numerals 一 to 九 in a 100 x 80 box.
_NUMERALS: Final[dict[int, tuple[str, ...]]] = {
    1: ("M6 42 Q50 32 94 40",),
    2: ("M20 20 Q50 13 80 18", "M6 64 Q50 54 94 60"),
    3: ("M20 8 Q50 2 80 7", "M28 38 Q50 33 72 36", "M4 72 Q50 62 96 68"),
    4: ("M14 12 V74", "M14 12 H86 V74", "M14 72 H86", "M40 14 Q40 44 24 54", "M60 14 V40 Q60 52 76 50"),
    5: ("M14 8 H86", "M48 8 Q46 42 36 72", "M22 38 H74 V72", "M4 74 H96"),
    6: ("M44 2 L54 14", "M6 30 H94", "M36 46 Q30 64 14 76", "M62 46 Q72 62 88 74"),
    7: ("M6 44 L92 30", "M38 4 V62 Q38 76 56 76 H84 Q92 76 92 64"),
    8: ("M40 12 Q36 52 8 76", "M58 10 Q64 50 94 74"),
    9: ("M44 4 Q46 50 8 78", "M12 28 H64 Q64 70 74 74 Q84 78 96 68"),
}
# 万: 一, 𠃌 (横折钩) and 丿, in a 100 x 100 box.
_WAN: Final = ("M4 10 H96", "M34 42 H80 Q80 86 70 92 Q62 94 54 86", "M40 12 Q40 68 6 94")


def _strokes(paths: tuple[str, ...], tx: float, ty: float, scale: float, color: str, width: float) -> str:
    body = "".join(f'<path d="{d}"/>' for d in paths)
    return (
        f'<g transform="translate({tx} {ty}) scale({scale})" fill="none" stroke="{color}" '
        f'stroke-width="{width}" stroke-linecap="round" stroke-linejoin="round">{body}</g>'
    )


def _characters(rank: int) -> str:
    return _strokes(_NUMERALS[rank], 14, 7, 0.36, INK, 11) + _strokes(_WAN, 15, 42, 0.34, RED, 12)


def _index(rank: int, color: str) -> str:
    """The small rank in the top-left corner (digits render in any font)."""
    return (
        f'<text x="7" y="14" font-family="DejaVu Sans, Arial, sans-serif" font-size="10" font-weight="700" '
        f'fill="{color}" opacity="0.75">{rank}</text>'
    )


@lru_cache(maxsize=NUM_KINDS)
def tile_svg(t: Tile) -> str:
    """The SVG picture of one tile face."""
    name = tile_name(t)
    suit, rank = divmod(t, 9)
    rank += 1
    if suit == 0:
        content = _characters(rank) + _index(rank, INK)
    elif suit == 1:
        content = _big_dot() if rank == 1 else "".join(_ring(*d) for d in _DOTS[rank])
    else:
        content = _bird() if rank == 1 else "".join(_stick(*s) for s in _STICKS[rank])
    return _frame(content, name)


@lru_cache(maxsize=1)
def back_svg() -> str:
    """The back of a concealed tile: jade green with a lighter inlay."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
        f'height="{HEIGHT}" role="img" aria-label="concealed tile">'
        '<defs><linearGradient id="b" x1="0" y1="0" x2="1" y2="1">'
        '<stop offset="0" stop-color="#2fa36f"/><stop offset="1" stop-color="#15603f"/></linearGradient></defs>'
        f'<rect x="1" y="5" width="62" height="80" rx="8" fill="#efe7d2"/>'
        '<rect x="1" y="1" width="62" height="80" rx="8" fill="url(#b)" stroke="#0f4a31" stroke-width="1"/>'
        '<rect x="7" y="7" width="50" height="68" rx="5" fill="none" stroke="#8fdcb5" stroke-width="1.4" '
        'opacity="0.6"/>'
        '<path d="M32 20 L44 41 L32 62 L20 41 Z" fill="none" stroke="#8fdcb5" stroke-width="1.4" opacity="0.5"/>'
        "</svg>"
    )


def svg_for_name(name: str) -> str | None:
    """The picture for a file name stem: ``"5m"``, or ``"back"``; ``None`` if there is no such tile."""
    if name == "back":
        return back_svg()
    if len(name) != 2:
        return None
    try:
        return tile_svg(parse_tile(name))
    except ValueError:
        return None


__all__ = ["HEIGHT", "WIDTH", "back_svg", "svg_for_name", "tile_svg"]
