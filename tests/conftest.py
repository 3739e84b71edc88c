"""Shared by the test modules: the Hypothesis profiles and the databases every store test runs on.

Hypothesis profiles (``XUEZHAN_HYPOTHESIS`` selects one; CI uses the default):

- ``ci`` (default): derandomized, no example database: every run tries the same examples.
- ``dev``: a fresh random seed each run, failing examples kept in ``.hypothesis/`` and
  tried first next time.

A test's own ``@settings`` (its number of examples) applies under either profile.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

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
