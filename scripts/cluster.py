"""A local cluster of the web table: what ``scripts/cluster.sh`` runs (docs/deploy.md).

``up --nodes N --port P --dir D [--db URL] [--config FILE.toml]``: a PostgreSQL (the project's
test PostgreSQL, :mod:`xuezhan.store.pgtemp`, kept by a small process of its own, unless ``--db``
names one), N nodes ``n1``..``nN`` (``xuezhan serve --node``) on ports P+1..P+N, and nginx on
port P balancing over them (its config: ``D/nginx.conf``, as docs/deploy.md shows it); writes
``D/nodes.json`` (``{"nodes": [{"name", "port", "pid"}], "nginx_pid", "db"}``) and returns when
every node and nginx answer. Logs: ``D/nI.log``, ``D/nginx-error.log``.

``down --dir D``: stops the nodes, nginx and the PostgreSQL it started.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

WAIT = 120.0  # seconds for everything to come up, on a busy machine
NGINX = """\
# The balancer of a local cluster (scripts/cluster.sh); docs/deploy.md explains each part.
worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/nginx-error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {dir}/nginx-tmp/body;
    proxy_temp_path {dir}/nginx-tmp/proxy;
    fastcgi_temp_path {dir}/nginx-tmp/fastcgi;
    uwsgi_temp_path {dir}/nginx-tmp/uwsgi;
    scgi_temp_path {dir}/nginx-tmp/scgi;
    map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
    upstream xuezhan {{
{servers}
    }}
    server {{
        listen 127.0.0.1:{port};
        proxy_http_version 1.1;
        proxy_set_header Host $http_host;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_read_timeout 1h;
        proxy_connect_timeout 2s;
        proxy_next_upstream error timeout http_502 http_503;
        # any node: the lobby, accounts, and /ws/CODE (a node that does not run the room says which does)
        location / {{ proxy_pass http://xuezhan; }}
        # one node by name: /n/NAME/ws/CODE reaches the node that runs the room, /n/NAME/api/tournaments the
        # node that runs the tournaments
{named}
    }}
}}
"""


def _nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if found is None:
        raise SystemExit("cluster: nginx is missing: scripts/ensure_chromium.sh installs Debian's")
    return found


def _answers(port: int, path: str = "/api/tiers") -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        conn.request("GET", path)
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie of ours is dead
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except OSError:
        return True


def _keep_postgres(folder: Path) -> None:
    """The process that keeps the cluster's PostgreSQL: starts it, says where, stops it on SIGTERM."""
    from xuezhan.store.pgtemp import TempPostgres

    server = TempPostgres().start()
    try:
        url = server.create_database("xuezhan")
        (folder / "postgres.tmp").write_text(json.dumps({"url": url, "pid": os.getpid()}))
        (folder / "postgres.tmp").replace(folder / "postgres.json")
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        while True:
            signal.pause()
    finally:
        server.stop()


def _start_postgres(folder: Path) -> str:
    out = (folder / "postgres.log").open("wb")
    subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "keep-postgres", "--dir", str(folder)],
                     stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + WAIT
    where = folder / "postgres.json"
    while not where.exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"cluster: PostgreSQL did not start; see {folder / 'postgres.log'}")
        time.sleep(0.1)
    url: str = json.loads(where.read_text())["url"]
    return url


def start_node(folder: Path, name: str, port: int, url: str, config: Path | None) -> int:
    """Start node ``name`` on ``port`` (logging to ``D/NAME.log``); its pid."""
    args = [sys.executable, "-m", "xuezhan", "serve", "--host", "127.0.0.1", "--port", str(port), "--db", url,
            "--node", name]
    if config is not None:
        args += ["--config", str(config)]
    with (folder / f"{name}.log").open("ab") as out:
        proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    return proc.pid


def up(nodes: int, port: int, folder: Path, db: str | None, config: Path | None) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "nodes.json").exists():
        raise SystemExit(f"cluster: {folder} holds a cluster already: scripts/cluster.sh down --dir {folder}")
    nginx = _nginx()
    url = db if db is not None else _start_postgres(folder)
    from xuezhan.store import migrate

    migrate(url)  # once, before the nodes start
    started = [{"name": f"n{i}", "port": port + i, "pid": start_node(folder, f"n{i}", port + i, url, config)}
               for i in range(1, nodes + 1)]
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (folder / "nginx-tmp" / d).mkdir(parents=True, exist_ok=True)
    os.chmod(folder / "nginx-tmp", 0o777)  # nginx's workers may run as another user
    servers = "\n".join(f"        server 127.0.0.1:{n['port']} max_fails=1 fail_timeout=2s;" for n in started)
    named = "\n".join(f"        location /n/{n['name']}/ {{ proxy_pass http://127.0.0.1:{n['port']}/; }}"
                      for n in started)
    conf = folder / "nginx.conf"
    conf.write_text(NGINX.format(dir=folder.resolve(), port=port, servers=servers, named=named))
    with (folder / "nginx.log").open("ab") as out:
        balancer = subprocess.Popen([nginx, "-c", str(conf.resolve()), "-p", str(folder.resolve()),
                                     "-e", str((folder / "nginx-error.log").resolve())],
                                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
    cluster = {"nodes": started, "nginx_pid": balancer.pid, "db": url}
    (folder / "nodes.json").write_text(json.dumps(cluster, indent=2) + "\n")
    deadline = time.monotonic() + WAIT
    waiting = [n["port"] for n in started] + [port]
    while waiting:
        for n in started:
            if not _alive(n["pid"]):
                raise SystemExit(f"cluster: node {n['name']} exited; see {folder / (n['name'] + '.log')}")
        if not _alive(balancer.pid):
            raise SystemExit(f"cluster: nginx exited; see {folder / 'nginx-error.log'}")
        waiting = [p for p in waiting if not _answers(p)]
        if time.monotonic() > deadline:
            raise SystemExit(f"cluster: ports {waiting} do not answer; see the logs in {folder}")
        if waiting:
            time.sleep(0.1)
    return cluster


def _stop(pid: int, sig: int = signal.SIGTERM, wait: float = 15.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)
    deadline = time.monotonic() + wait
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def down(folder: Path) -> None:
    where = folder / "nodes.json"
    if where.exists():
        cluster = json.loads(where.read_text())
        for n in cluster["nodes"]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(n["pid"], signal.SIGTERM)
        for n in cluster["nodes"]:
            _stop(n["pid"])
        _stop(cluster["nginx_pid"], signal.SIGQUIT)
        where.unlink()
    keeper = folder / "postgres.json"
    if keeper.exists():
        _stop(json.loads(keeper.read_text())["pid"], wait=30.0)
        keeper.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(prog="scripts/cluster.sh", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    start = sub.add_parser("up", help="start a local cluster")
    start.add_argument("--nodes", type=int, default=3)
    start.add_argument("--port", type=int, default=8000)
    start.add_argument("--dir", type=Path, required=True)
    start.add_argument("--db", default=None, metavar="URL")
    start.add_argument("--config", type=Path, default=None, metavar="FILE.toml")
    stop = sub.add_parser("down", help="stop it")
    stop.add_argument("--dir", type=Path, required=True)
    keep = sub.add_parser("keep-postgres")  # the cluster's own PostgreSQL, kept by a process of its own
    keep.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    if args.command == "up":
        if not 1 <= args.nodes <= 64 or not 0 < args.port < 65536 - args.nodes:
            parser.error("--nodes is 1-64 and the ports P..P+N must be ports")
        cluster = up(args.nodes, args.port, args.dir, args.db, args.config)
        print(f"cluster: {len(cluster['nodes'])} nodes behind http://127.0.0.1:{args.port}/")
    elif args.command == "down":
        down(args.dir)
    else:
        _keep_postgres(args.dir)


if __name__ == "__main__":
    main()
