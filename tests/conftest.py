"""Fixtures shared by the test modules: the databases every store test runs on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from xuezhan.store import Store
from xuezhan.store.pgtemp import TempPostgres, shared_server


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
