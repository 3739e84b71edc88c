"""The rules core needs only the standard library, and lower layers never import higher ones."""

from __future__ import annotations

import subprocess
import sys

import pytest

CORE = ("xuezhan.tiles", "xuezhan.vocab", "xuezhan.hand", "xuezhan.rules", "xuezhan.scoring", "xuezhan.engine",
        "xuezhan.records", "xuezhan.bots", "xuezhan.selfplay", "xuezhan.coins", "xuezhan.match", "xuezhan.runtime",
        "xuezhan.native")
THIRD_PARTY = ("click", "rich", "textual", "starlette", "uvicorn", "sqlalchemy", "alembic", "numpy")
HIGHER = ("xuezhan.cli", "xuezhan.tui", "xuezhan.server", "xuezhan.store")


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_no_third_party_package_and_no_higher_layer(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {THIRD_PARTY!r} or m.startswith({HIGHER!r}))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
