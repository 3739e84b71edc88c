"""A throwaway PostgreSQL server on loopback, for tests and local trials.

:class:`TempPostgres` runs ``initdb`` in a new temporary directory and starts
``postgres`` listening on ``127.0.0.1`` at a free port (trust authentication, user
``postgres``, no fsync), and deletes everything when stopped. It takes about a
second. The server binaries are, in order:

1. ``$XUEZHAN_PG_BINDIR`` if set;
2. the PostgreSQL shipped in the ``pgserver`` PyPI package (in the ``test`` extra), so
   ``pip install -e '.[dev]'`` is enough on a fresh machine;
3. Debian's packages (``/usr/lib/postgresql/<version>/bin``, newest first);
4. ``pg_ctl`` on the ``PATH``.

PostgreSQL refuses to run as root; under root the server runs as the unprivileged
user ``$XUEZHAN_PG_USER`` (default ``nobody``), which owns the temporary directory.
Any failure raises :class:`PostgresUnavailable` with the server's log: tests that need
the server fail, they never skip. A small watchdog process stops the server and
deletes its directory if the process that started it dies without stopping it (a test
run killed by a timeout, say).
"""

from __future__ import annotations

import importlib.util
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Runs in its own process: waits for the owner to exit, then shuts the server down (SIGQUIT to the
# postmaster whose pid is the first line of postmaster.pid) and removes the directory.
_WATCHDOG = """
import os, shutil, signal, sys, time
owner, top, data = int(sys.argv[1]), sys.argv[2], sys.argv[3]
def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
while alive(owner) and os.path.isdir(top):
    time.sleep(0.5)
if os.path.isdir(top):
    try:
        with open(os.path.join(data, "postmaster.pid")) as f:
            pid = int(f.readline())
        os.kill(pid, signal.SIGQUIT)
        for _ in range(100):
            if not alive(pid):
                break
            time.sleep(0.1)
    except (OSError, ValueError):
        pass
    shutil.rmtree(top, ignore_errors=True)
"""


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server could be started (the message says why)."""


def find_bindir() -> Path:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres`` (see the module docstring)."""
    candidates: list[Path] = []
    env = os.environ.get("XUEZHAN_PG_BINDIR")
    if env:
        candidates.append(Path(env))
    spec = importlib.util.find_spec("pgserver")
    if spec is not None and spec.origin is not None:
        candidates.append(Path(spec.origin).parent / "pginstall" / "bin")
    debian = Path("/usr/lib/postgresql")
    if debian.is_dir():
        versions = sorted((p for p in debian.iterdir() if p.name.isdigit()), key=lambda p: int(p.name), reverse=True)
        candidates += [p / "bin" for p in versions]
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(on_path).parent)
    for c in candidates:
        if all((c / exe).is_file() for exe in ("initdb", "pg_ctl", "postgres")):
            return c
    raise PostgresUnavailable(
        "no PostgreSQL server binaries found: install the 'pgserver' package (pip install -e '.[test]'), "
        "Debian's 'postgresql' package, or set XUEZHAN_PG_BINDIR; looked in "
        + ", ".join(str(c) for c in candidates)
    )


def _can_run(exe: Path, uid: int, gid: int) -> bool:
    """Whether the user ``uid``/``gid`` may reach and run ``exe`` (every folder above it searchable)."""
    for path, bit in [(exe, 1), *((folder, 1) for folder in exe.resolve().parents)]:
        st = path.stat()
        if st.st_uid == uid:
            allowed = st.st_mode & (bit << 6)
        elif st.st_gid == gid:
            allowed = st.st_mode & (bit << 3)
        else:
            allowed = st.st_mode & bit
        if not allowed:
            return False
    return True


def free_port() -> int:
    """A loopback port nobody listens on (the system's pick): for this server, and for the
    servers the tests and benchmarks start."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempPostgres:
    """A PostgreSQL server in a temporary directory; use as a context manager or call start/stop."""

    def __init__(self, bindir: Path | None = None) -> None:
        self.bindir = bindir
        self.port = 0
        self.dir: Path | None = None
        self._as: dict[str, Any] = {}

    @property
    def data(self) -> Path:
        assert self.dir is not None
        return self.dir / "data"

    def url(self, database: str = "postgres") -> str:
        """A SQLAlchemy URL (psycopg 3) for ``database`` on this server."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{database}"

    def _run(self, exe: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        assert self.bindir is not None and self.dir is not None
        return subprocess.run(
            [str(self.bindir / exe), *args], capture_output=True, text=True, cwd=self.dir, timeout=timeout,
            **self._as,
        )

    def start(self) -> TempPostgres:
        if self.bindir is None:
            self.bindir = find_bindir()
        self.dir = Path(tempfile.mkdtemp(prefix="xuezhan-pg-"))
        self.data.mkdir()
        if os.geteuid() == 0:
            name = os.environ.get("XUEZHAN_PG_USER", "nobody")
            try:
                user = pwd.getpwnam(name)
            except KeyError:
                raise PostgresUnavailable(f"running as root and there is no user {name!r} to run PostgreSQL as; "
                                          "set XUEZHAN_PG_USER to an unprivileged user") from None
            self.dir.chmod(0o755)
            os.chown(self.data, user.pw_uid, user.pw_gid)
            self._as = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
            if not _can_run(self.bindir / "postgres", user.pw_uid, user.pw_gid):
                # the binaries lie where that user cannot reach them (a checkout in a private
                # folder): a copy of the installation in the server's own folder is run instead
                # (pgserver's binaries find their libraries at $ORIGIN/../../../pgserver.libs: the
                # copy keeps that layout)
                install = self.bindir.parent
                copy = self.dir / "pg" / install.parent.name / install.name
                shutil.copytree(install, copy, symlinks=True)
                libs = install.parent.parent / f"{install.parent.name}.libs"
                if libs.is_dir():
                    shutil.copytree(libs, self.dir / "pg" / libs.name, symlinks=True)
                self.bindir = copy / self.bindir.name
        self.data.chmod(0o700)
        init = self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                         "--no-sync", "--no-instructions")
        if init.returncode != 0:
            self._cleanup()
            raise PostgresUnavailable(f"initdb failed ({init.returncode}):\n{init.stdout}\n{init.stderr}")
        log = self.data / "server.log"
        for _attempt in range(3):  # a free port can be taken between the probe and the start
            self.port = free_port()
            opts = f"-h 127.0.0.1 -p {self.port} -k {self.data} -F -c max_connections=60"
            started = self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-l", str(log), "-o", opts,
                                "start", timeout=90)
            if started.returncode == 0 and self._ready():
                subprocess.Popen(
                    [sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(self.dir), str(self.data)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                return self
        text = log.read_text(errors="replace") if log.exists() else ""
        self._cleanup()
        raise PostgresUnavailable(f"PostgreSQL did not start:\n{started.stdout}\n{started.stderr}\n{text}")

    def _ready(self) -> bool:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self) -> None:
        if self.dir is None:
            return
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", timeout=60)
        self._cleanup()

    def _cleanup(self) -> None:
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def create_database(self, name: str) -> str:
        """Create database ``name`` and return its URL."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return self.url(name)

    def create_schema(self, name: str, database: str = "postgres") -> str:
        """Create schema ``name`` and return a URL whose connections use it (``search_path``):
        a fresh, empty store in milliseconds, where a new database takes half a second."""
        import psycopg
        from psycopg import sql

        if not name.isidentifier() or name != name.lower():
            raise ValueError(f"schema names here are lower-case identifiers, not {name!r}")
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/{database}", autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
        return f"{self.url(database)}?options=-csearch_path%3D{name}"

    def __enter__(self) -> TempPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


_shared: TempPostgres | None = None


def shared_server() -> TempPostgres:
    """One server per process, started on first use and stopped at exit (for test sessions)."""
    global _shared
    if _shared is None:
        import atexit

        server = TempPostgres().start()
        atexit.register(server.stop)
        _shared = server
    return _shared
