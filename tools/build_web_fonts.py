"""Build the web page's fonts and icons: Noto Sans SC/TC and an emoji font cut down to the
characters the page can show, so the package stays small and no font is fetched from elsewhere.

    python tools/build_web_fonts.py --cjk NotoSansCJK-Regular.ttc --emoji noto-color-emoji.woff

``--cjk``: the Noto Sans CJK collection (Debian's ``fonts-noto-cjk``,
``/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc``; faces 2 and 3 are SC and TC).
``--emoji``: Noto Color Emoji (npm ``@fontsource/noto-color-emoji``, the file
``files/noto-color-emoji-emoji-400-normal.woff``). Both are under the SIL Open Font License
(``server/static/fonts/OFL.txt``).

The characters are those of every message catalog, the vocabulary, the page's HTML, script
and style, and printable ASCII. Run it again after a catalog gains characters
(tests/test_web_assets.py says when). It also draws the home-screen icons from the SC font.
"""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fontTools import subset
from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "src" / "xuezhan"
STATIC = PKG / "server" / "static"
FONTS = STATIC / "fonts"
ICONS = STATIC / "icons"
CJK_FACES = {"noto-sans-sc": 2, "noto-sans-tc": 3}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def page_text() -> str:
    """Every character the page can show from its own sources."""
    import sys

    sys.path.insert(0, str(ROOT / "src"))
    from xuezhan import vocab

    parts = [chr(c) for c in range(0x20, 0x7F)]
    parts += "，。：；、！？（）《》“”‘’…·—×→↗◉⏮◀▶⏭⏸▸▾✓"
    for path in sorted((PKG / "i18n" / "catalogs").glob("*.toml")):
        parts.extend(_strings(tomllib.loads(path.read_text(encoding="utf-8"))))
    parts.extend(_strings(vocab.to_json()))
    for path in [STATIC / "index.html", STATIC / "style.css", *sorted(STATIC.glob("*.js"))]:
        parts.append(path.read_text(encoding="utf-8"))
    return "".join(sorted(set("".join(parts))))


def is_emoji(ch: str) -> bool:
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or 0x2190 <= cp <= 0x21FF or 0x2300 <= cp <= 0x23FF


def cut(source: Path, out: Path, text: str, font_number: int = 0) -> None:
    options = subset.Options()
    options.flavor = "woff"
    options.font_number = font_number
    options.hinting = False
    options.desubroutinize = True
    options.layout_features = ["kern", "liga", "locl", "vert", "ccmp"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # keep the copyright and license notices
    font = subset.load_font(str(source), options)
    if "SVG " in font:
        del font["SVG "]  # the emoji font's colour glyphs are kept as COLR/CPAL
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=text)
    subsetter.subset(font)
    subset.save_font(font, str(out), options)


def draw_icons(cjk: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    for size, name in ((192, "icon-192.png"), (512, "icon-512.png"), (180, "apple-touch-icon.png")):
        img = Image.new("RGB", (size, size), (14, 23, 18))
        d = ImageDraw.Draw(img)
        pad = size // 16
        d.rounded_rectangle((pad, pad, size - pad, size - pad), radius=size // 7, fill=(247, 240, 222),
                            outline=(194, 138, 34), width=max(2, size // 40))
        font = ImageFont.truetype(str(cjk), int(size * 0.56), index=CJK_FACES["noto-sans-sc"])
        d.text((size / 2, size / 2), "血", font=font, fill=(185, 38, 30), anchor="mm")
        img.save(ICONS / name, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cjk", type=Path, required=True)
    parser.add_argument("--emoji", type=Path, required=True)
    args = parser.parse_args()
    text = page_text()
    FONTS.mkdir(exist_ok=True)
    ICONS.mkdir(exist_ok=True)
    plain = "".join(ch for ch in text if ord(ch) < 0x1F000)  # arrows and symbols too, where the font has them
    for name, face in CJK_FACES.items():
        cut(args.cjk, FONTS / f"{name}.woff", plain, face)
    emoji = "".join(ch for ch in text if is_emoji(ch)) + "\u200d\ufe0f"
    cut(args.emoji, FONTS / "noto-emoji.woff", emoji)
    draw_icons(args.cjk)
    for path in sorted(FONTS.glob("*.woff")):
        cmap = TTFont(str(path)).getBestCmap()
        print(f"{path.name}: {path.stat().st_size // 1024} KiB, {len(cmap)} characters")


if __name__ == "__main__":
    main()
