"""Engines from URLs and schema migrations (Alembic, shipped inside the package).

- :func:`make_engine`: a SQLAlchemy engine from a URL; without one, the SQLite file
  ``xuezhan.sqlite3`` in the current directory (or ``$XUEZHAN_DB``). ``postgresql://``
  and ``postgres://`` URLs use psycopg 3.
- :func:`migrate`: bring a database to the newest schema (``alembic upgrade head``),
  programmatically, from the migration scripts in ``xuezhan/store/migrations``.

SQLite is set up so that transactions behave as on a server: foreign keys on, a busy
timeout, and every transaction starts with ``BEGIN IMMEDIATE`` (it takes the write
lock at once, so two settlements never interleave), except on the connections of an
engine with the execution option :data:`READ_ONLY` (:attr:`xuezhan.store.base.Database.reads`),
whose transactions only read: a plain ``BEGIN``, which in write-ahead-log mode never waits
for the writer nor makes it wait.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.pool import StaticPool

MIGRATIONS: Final = Path(__file__).parent / "migrations"
_MIGRATION_LOCK: Final = 0x7875657A68616E  # "xuezhan"
_BUSY_TIMEOUT: Final = 30.0  # seconds a SQLite connection waits for another's lock
DEFAULT_FILE: Final = "xuezhan.sqlite3"
READ_ONLY: Final = "xuezhan_read_only"
"""The execution option of an engine whose transactions only read (on SQLite: ``BEGIN``, not
``BEGIN IMMEDIATE``)."""


def json_text(value: Any) -> str:
    """How JSON columns are written: compact, by orjson (the standard library for integers
    beyond 64 bits, which orjson refuses)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def default_url() -> str:
    """``$XUEZHAN_DB`` if set, else the SQLite file ``xuezhan.sqlite3`` in the current directory."""
    return os.environ.get("XUEZHAN_DB") or f"sqlite:///{DEFAULT_FILE}"


def normalise_url(url: str | URL) -> URL:
    """The URL with PostgreSQL mapped to the psycopg 3 driver (``postgresql+psycopg``)."""
    u = make_url(url) if isinstance(url, str) else url
    if u.drivername in ("postgresql", "postgres"):
        u = u.set(drivername="postgresql+psycopg")
    return u


def _sqlite_setup(engine: Engine, *, file: bool) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        # let SQLAlchemy's "begin" below open transactions, not the sqlite3 module
        dbapi_connection.isolation_level = None
        cur = dbapi_connection.cursor()
        cur.execute("PRAGMA foreign_keys = ON")
        cur.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT * 1000)}")
        if file:
            # write-ahead log: a commit is one append (a killed process loses nothing committed;
            # synchronous=NORMAL leaves only a power cut able to lose the last commits)
            _set_wal(cur)
            cur.execute("PRAGMA synchronous = NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY) else "BEGIN IMMEDIATE")


def _set_wal(cur: Any) -> None:
    """``PRAGMA journal_mode = WAL``, retried while another connection holds the file: SQLite
    answers "database is locked" at once, without its busy timeout, to all but one of the
    connections that switch a new file to WAL at the same moment (servers starting together)."""
    deadline = time.monotonic() + _BUSY_TIMEOUT
    pause = 0.001
    while True:
        try:
            cur.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def make_engine(url: str | URL | None = None, **kwargs: Any) -> Engine:
    """An engine for ``url`` (default :func:`default_url`); extra ``kwargs`` go to ``create_engine``."""
    u = normalise_url(url if url is not None else default_url())
    kwargs.setdefault("json_serializer", json_text)
    if u.get_backend_name() == "sqlite":
        if u.database in (None, "", ":memory:"):
            # one in-memory database shared by every use of the engine
            kwargs.setdefault("poolclass", StaticPool)
            kwargs.setdefault("connect_args", {"check_same_thread": False})
        engine = create_engine(u, **kwargs)
        _sqlite_setup(engine, file=u.database not in (None, "", ":memory:"))
        return engine
    kwargs.setdefault("pool_pre_ping", True)
    return create_engine(u, **kwargs)


def alembic_config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def _run(target: str | URL | Engine | None, step: Callable[[Config], None]) -> None:
    engine = target if isinstance(target, Engine) else make_engine(target)
    cfg = alembic_config()
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                # two processes starting at once: the second waits, then finds the schema up to date
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            cfg.attributes["connection"] = conn
            step(cfg)
    finally:
        if not isinstance(target, Engine):
            engine.dispose()


def migrate(target: str | URL | Engine | None = None, revision: str = "head") -> None:
    """Upgrade the database at ``target`` (a URL or an engine; default :func:`default_url`) to ``revision``."""
    _run(target, lambda cfg: command.upgrade(cfg, revision))


def downgrade(target: str | URL | Engine | None, revision: str = "base") -> None:
    """Downgrade the database at ``target`` to ``revision`` (``"base"``: drop everything the migrations made)."""
    _run(target, lambda cfg: command.downgrade(cfg, revision))


def current_revision(engine: Engine) -> str | None:
    """The schema revision the database is at (``None``: not migrated)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head_revision() -> str | None:
    """The newest revision shipped with the package."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()
