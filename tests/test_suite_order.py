"""The suite's own order (tests/conftest.py): the long files it sends out first are files of the
suite, and they are sent first, each file's tests in their own order."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from conftest import LONG_FILES, pytest_collection_modifyitems

HERE = Path(__file__).resolve().parent


def test_every_long_file_is_a_test_file_of_the_suite() -> None:
    assert len(set(LONG_FILES)) == len(LONG_FILES)
    missing = [name for name in LONG_FILES if not (HERE / name).is_file()]
    assert not missing, f"renamed or gone: {missing}"


def test_the_long_files_go_first_and_each_file_keeps_its_order() -> None:
    def item(name: str, k: int) -> Any:
        return SimpleNamespace(path=HERE / name, name=f"{name}::{k}")

    short, long_first, long_second = "test_a.py", LONG_FILES[0], LONG_FILES[1]
    items = [item(short, 0), item(long_second, 0), item(short, 1), item(long_first, 0), item(long_second, 1)]
    pytest_collection_modifyitems(cast(list[pytest.Item], items))
    assert [i.name for i in items] == [f"{long_first}::0", f"{long_second}::0", f"{long_second}::1",
                                       f"{short}::0", f"{short}::1"]
