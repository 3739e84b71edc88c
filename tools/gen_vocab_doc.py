"""Write ``docs/vocabulary.md`` from :mod:`xuezhan.vocab`: every id and its names, kind by kind.

    python tools/gen_vocab_doc.py            # rewrite the file
    python tools/gen_vocab_doc.py --check    # exit 1 if the file is out of date

The test suite runs the check, so the page never drifts from the table.
"""

from __future__ import annotations

import sys
from pathlib import Path

from xuezhan import vocab
from xuezhan.vocab import Kind

DOC = Path(__file__).resolve().parent.parent / "docs" / "vocabulary.md"

TITLES = {
    Kind.PATTERN: "Base patterns ([rules.md §6.1](rules.md#s6))",
    Kind.EXTRA: "Extras ([rules.md §6.2](rules.md#s6))",
    Kind.REASON: "Ledger reasons ([rules.md §7-8, §10, §12-13](rules.md#s7))",
    Kind.ACTION: "Action types (game records, the bot protocol)",
    Kind.EVENT: "Event types (the engine's event log)",
    Kind.ITEM: "Item cards ([rules.md §13](rules.md#s13))",
    Kind.ERROR: "Error codes",
}


def render() -> str:
    """The whole page, as the file should hold it."""
    lines = [
        "# Vocabulary",
        "",
        "<!-- Written by tools/gen_vocab_doc.py from src/xuezhan/vocab.py: edit the table there. -->",
        "",
        "Every id the game shows people, with its names in Simplified Chinese (zh-CN, the",
        "default), Traditional Chinese (zh-TW) and English. Ids are permanent; names may be",
        "improved. Python: `xuezhan.vocab`; the web page reads `GET /api/vocab`.",
    ]
    for kind in Kind:
        lines += ["", f"## {TITLES[kind]}", "", "| id | zh-CN | zh-TW | en |", "|---|---|---|---|"]
        lines += [f"| `{t.id}` | {t.zh_cn} | {t.zh_tw} | {t.en} |" for t in vocab.terms(kind)]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print(f"{DOC} is out of date: run python tools/gen_vocab_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
