"""Shared by the test modules: the Hypothesis profiles, the databases every store test runs on,
an interpreter without numpy (``no_numpy``), and the repository's scripts loaded as modules
(``load_script``).

Hypothesis profiles (``XUEZHAN_HYPOTHESIS`` selects one; CI uses the default):

- ``ci`` (default): derandomized, no example database: every run tries the same examples.
- ``dev``: a fresh random seed each run, failing examples kept in ``.hypothesis/`` and
  tried first next time.

A test's own ``@settings`` (its number of examples) applies under either profile.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import settings
from hypothesis.database import DirectoryBasedExampleDatabase

from xuezhan.store import Store
from xuezhan.store.pgtemp import TempPostgres, shared_server

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True)
settings.register_profile(
    "dev",
    derandomize=False,
    database=DirectoryBasedExampleDatabase(str(Path(__file__).resolve().parent.parent / ".hypothesis" / "examples")),
    deadline=None,
)
settings.load_profile(os.environ.get("XUEZHAN_HYPOTHESIS", "ci"))

ROOT = Path(__file__).resolve().parents[1]


def _load_script(relative: str) -> ModuleType:
    path = ROOT / relative
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) == str(path):
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # by name, as when it runs: its dataclasses and pickles find it
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def load_script() -> Callable[[str], ModuleType]:
    """Loads a script of the repository (``benchmarks/deal_in.py``, ``scripts/...``) as a module by its
    path from the repository's root, once a process, under its file's name."""
    return _load_script


# Files with a test of a quarter of a minute or more (`pytest --durations=30`). With a worker
# per core each file runs whole on one worker, in the order collected: these go first, so no
# worker is left with one of them while the others have finished.
LONG_FILES = (
    "test_kill.py",
    "test_browser_match.py",
    "test_engine_properties.py",
    "test_kill_tournament.py",
    "test_fuzz_cli.py",
    "test_fuzz_parsers.py",
    "test_kill_jiaoma.py",
    "test_restart.py",
    "test_table_stateful.py",
    "test_jiao_ma.py",
    "test_fair_table.py",
    "test_browser_tournament.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long files first, each file's tests in their own order (a stable sort)."""
    rank = {name: k for k, name in enumerate(LONG_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


@pytest.fixture(scope="session")
def postgres() -> TempPostgres:
    """A throwaway local PostgreSQL; raises if it cannot start: the tests fail, they do not skip."""
    return shared_server()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database: a SQLite file, then a new schema on the local PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store.sqlite3'}"
    server: TempPostgres = request.getfixturevalue("postgres")
    return server.create_schema(f"t_{uuid.uuid4().hex[:20]}")


@pytest.fixture
def store(url: str) -> Iterator[Store]:
    s = Store(url)
    yield s
    s.close()


@pytest.fixture
def no_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``import numpy`` from here on fails, as on an install without it."""
    real = builtins.__import__

    def without(name: str, *args: object, **kwargs: object) -> object:
        if name == "numpy" or name.startswith("numpy."):
            raise ImportError("no numpy")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", without)
