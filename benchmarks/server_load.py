"""Load on the web table: N tables of four bot clients over loopback websockets.

    python benchmarks/server_load.py [--tables 50,200,400] [--seconds 100] [--hands N] [--think S]
                                     [--claim-think S] [--discard-pause S] [--limits on|off]
                                     [--stagger S] [--server-cpus LIST] [--client-cpus LIST]
                                     [--writer process|thread] [--cluster DIR]
                                     [--cluster-config FILE.toml] [--json]

For each number of tables, a fresh server (``xuezhan serve``'s app on uvicorn, a SQLite
file in a temporary folder) runs in a child process; this process plays every seat of
every table as a client:
it logs in four accounts per table over HTTP, seats them, starts the match and answers
every decision it is shown (win when it can, never claim otherwise, discard the drawn
tile). Each level is measured for ``--seconds`` (100 by default: long enough for hand ends
to be in it), or until ``--hands`` hands have ended. The tables sit down at once, so that
their first hands end in one wave (the worst case of hand ends), or, with ``--stagger S``,
one after another over S seconds, as people come to a server. It reports the hands finished per second
(each one settled in the database), the actions per second, the server's CPU time per action
(user and system, from ``/proc``, its writer process's included) and the latency of three phases (p50, p99, max):

- play (``latency_ms``): from sending an action to receiving the first table state that
  includes it, for the actions the table shows at once;
- claim answers (``claim_latency_ms``), which the table shows only when the window has
  closed and the discard pause has ended: by design, never less than what is left of the pause;
- hand end (``hand_end_latency_ms``): from the table state that ends a hand to the next hand's
  deal (the hand settled in the database, its ``hand_end``, the next deal: all a player waits
  for; under load the server deals again at once), and of it, from that state to the
  ``hand_end`` (``settle_latency_ms``). Both are read by a client between two messages of the
  server: a client late to read them would see them closer together than they were sent, so
  the clients' own delay is reported beside them (``client_lag_ms``, how late a timer of the
  clients' event loop fires).

The server runs in a process group of its own; ``--server-cpus`` and ``--client-cpus`` pin it
and the clients to cores of their own (``--server-cpus 1 --client-cpus 0``), so that the
clients' work is not counted as the server's. ``--cluster DIR`` drives the cluster that
``scripts/cluster.sh up --dir DIR`` started, through its balancer (the server's CPU is then its
nodes'); start it with the settings the single server has under load, written by
``--cluster-config FILE.toml`` (``scripts/cluster.sh up ... --config FILE.toml``).

The clients play at the pace of the server's own bots (``ServerConfig.bot_delay`` before a
turn or a choice, ``bot_claim_delay`` before answering a claim window, each drawn between
half and one and a half times that, seeded): the pace of a table of bots, faster than
people. The server pauses ``--discard-pause`` seconds after every discard (``[server]
discard_pause``, 0.6 by default as in a real server; 0 for none). ``--think 0 --claim-think
0`` measures capacity instead: every table then always has an action waiting, so the latency
is the number of tables over the throughput (Little's law) and only the actions per second
say something. Beyond what the machine can carry the latency grows; every client then closes
and the server is stopped (SIGTERM, then SIGKILL after 30 s), so no process outlives the
run. Targets (README): p99 under 50 ms at 50 tables and under 150 ms at 200, at that pace.

``--writer thread`` makes the tables' writes on a thread of the server's process rather than
in a process of their own (``[server] write_process = false``), to weigh the two side by side.

``--limits off`` serves the same app without the public server's limits (docs/security.md):
no connection guard (header timeout, connections counted per address), no client-address or
same-origin middleware; ``benchmarks/compare.py --base HEAD --base-args "--limits off" --
benchmarks/server_load.py --json`` weighs their cost side by side. The server's CPU time per
action is the figure a busy machine disturbs least.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx2 as httpx
import websockets

if TYPE_CHECKING:
    from xuezhan.server import ServerConfig


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    """Actions shown at once: a turn's (a discard, a kong, a win), 换三张 and 定缺."""
    claim_latencies: list[float] = field(default_factory=list)
    """Answers to a claim window: shown when the window closes and the discard pause has ended."""
    hand_end_latencies: list[float] = field(default_factory=list)
    """The hand end: from the state that ends a hand to the next hand's first state (the deal)."""
    settle_latencies: list[float] = field(default_factory=list)
    """From the state that ends a hand to its ``hand_end`` (settled in the database)."""
    client_lags: list[float] = field(default_factory=list)
    """How late a 10-ms timer of the clients' event loop fired."""
    hands: int = 0
    actions: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    measuring: bool = False
    playing: set[int] = field(default_factory=set)
    """The tables whose first hand is dealt."""


@dataclass(frozen=True)
class Pace:
    """How long a client thinks before it answers: ``think`` for a turn or a choice, ``claim``
    for a claim window, each times a factor drawn between 0.5 and 1.5."""

    think: float
    claim: float

    def delay(self, state: dict[str, Any], rng: random.Random) -> float:
        legal = state["view"]["legal"]
        base = self.claim if any(a["type"] == "pass" for a in legal) else self.think
        return base * rng.uniform(0.5, 1.5) if base > 0 else 0.0


def choose(state: dict[str, Any]) -> dict[str, Any] | None:
    legal = state["view"]["legal"]
    if not legal:
        return None
    types = {a["type"] for a in legal}
    if "hu" in types:
        return {"type": "hu"}
    if "pass" in types:
        return {"type": "pass"}
    if "dingque" in types:
        return {"type": "dingque", "suit": legal[0]["suit"]}
    if "exchange" in types:
        return {"type": "exchange", "tiles": legal[0]["tiles"]}
    discards = [a["tile"] for a in legal if a["type"] == "discard"]
    drawn = state["view"]["drawn"]
    return {"type": "discard", "tile": drawn if drawn in discards else discards[-1]}


RUN = os.urandom(3).hex()
"""This run's mark in its players' names: a cluster's database outlives a run."""
MOVED = 4307
"""A cluster's node that does not run the room closes with this code and the name of the one that does."""


async def open_table(url: str, code: str, token: str) -> tuple[Any, str]:
    """A connection to table ``code`` and its first message, the way a page reaches it: ``/ws/CODE``
    (through a cluster's balancer), then, when a node that does not run the room closes with
    :data:`MOVED`, ``/n/NAME/ws/CODE`` of the node it names."""
    base = url.replace("http://", "ws://")
    path = f"/ws/{code}"
    for _ in range(4):
        ws = await websockets.connect(base + path, additional_headers={"Cookie": f"xz_session={token}"},
                                      max_size=2**22, compression=None)
        try:
            first = await ws.recv()
        except websockets.ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != MOVED:
                raise
            path = f"/n/{exc.rcvd.reason}/ws/{code}"
            continue
        return ws, str(first)
    raise RuntimeError(f"table {code}: sent from node to node")


async def seat_client(url: str, k: int, code: str, token: str, seat: int, stats: Stats, pace: Pace,
                      stop: asyncio.Event, seated: list[asyncio.Event], rng: random.Random) -> None:
    ws, first = await open_table(url, code, token)
    async with ws:
        starter = None
        if seat:
            await ws.send(json.dumps({"type": "sit", "seat": seat}))
        else:  # the owner starts the match once everyone sits

            async def start() -> None:
                await asyncio.gather(*(e.wait() for e in seated))
                await ws.send(json.dumps({"type": "start"}))

            starter = asyncio.create_task(start())
        answered: int | None = None
        sent_at: float | None = None
        state_at = 0.0  # when the last state came
        ended_at: float | None = None  # when the state that ended the last hand came: the next deal is timed
        sent_claim = False
        sent_version = -1
        raw: str | bytes | None = first
        while not stop.is_set():
            if raw is None:
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
            assert raw is not None
            msg = json.loads(raw)
            raw = None
            kind = msg["type"]
            if kind == "hello" and msg["seat"] == seat:
                seated[seat].set()
            elif kind == "state":
                stats.playing.add(k)
                if ended_at is not None:  # the next hand is dealt
                    if stats.measuring:
                        stats.hand_end_latencies.append(time.perf_counter() - ended_at)
                    ended_at = None
                state_at = time.perf_counter()
                if sent_at is not None and msg["version"] > sent_version:
                    if stats.measuring:
                        kept = stats.claim_latencies if sent_claim else stats.latencies
                        kept.append(time.perf_counter() - sent_at)
                    sent_at = None
                decision = msg["decision"]
                if decision is not None and decision != answered:
                    action = choose(msg)
                    if action is not None:
                        think = pace.delay(msg, rng)
                        if think:
                            await asyncio.sleep(think)
                        answered = decision
                        sent_claim = any(a["type"] == "pass" for a in msg["view"]["legal"])
                        sent_version = msg["version"]
                        sent_at = time.perf_counter()
                        await ws.send(json.dumps({"type": "action", "action": action, "version": msg["version"]}))
                        if stats.measuring:
                            stats.actions += 1
            elif kind == "hand_end":
                sent_at = None  # an answer the hand's end made moot
                ended_at = state_at
                if stats.measuring:
                    stats.settle_latencies.append(time.perf_counter() - ended_at)
                if seat == 0 and stats.measuring:
                    stats.hands += 1
                await ws.send(json.dumps({"type": "ready"}))
            elif kind == "error" and msg["code"] != "stale":
                stats.errors[msg["code"]] = stats.errors.get(msg["code"], 0) + 1
        if starter is not None:
            starter.cancel()


async def login(http: httpx.AsyncClient, nickname: str) -> str:
    r = await http.post("/api/login", json={"name": nickname})
    r.raise_for_status()
    return r.cookies["xz_session"]


async def table(url: str, k: int, stats: Stats, pace: Pace, stop: asyncio.Event, delay: float = 0.0) -> None:
    if delay:
        await asyncio.sleep(delay)
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        tokens = [await login(http, f"load{RUN}-{k}-{s}") for s in range(4)]
        http.cookies.clear()
        r = await http.post("/api/rooms", json={"hands": 64, "fee": 0, "public": False},
                            headers={"Cookie": f"xz_session={tokens[0]}"})
        r.raise_for_status()
        code = r.json()["code"]
    seated = [asyncio.Event() for _ in range(4)]
    await asyncio.gather(*(seat_client(url, k, code, tokens[s], s, stats, pace, stop, seated,
                                       random.Random(k * 4 + s)) for s in range(4)),
                         return_exceptions=True)


def bench_config(discard_pause: float, write_process: bool = True) -> ServerConfig:
    """The server's settings under load: :meth:`ServerConfig.fast`'s, with long clocks, no wait
    between hands, room for every table, and ``discard_pause``; the writes in a process of their
    own as in ``xuezhan serve`` (unless not ``write_process``). Every client comes from
    127.0.0.1: the cap on connections per address is lifted (its counting and the header
    timeout still run, as in ``xuezhan serve``)."""
    from xuezhan.server import ServerConfig

    return ServerConfig.fast(turn_timeout=120.0, claim_timeout=120.0, choice_timeout=120.0, next_hand_delay=0.0,
                             max_rooms=10_000, http_rate_per_second=10_000.0, http_rate_burst=10_000,
                             max_connections_per_address=100_000, discard_pause=discard_pause,
                             write_process=write_process)


def config_toml(config: ServerConfig) -> str:
    """``config`` as a ``[server]`` table for ``xuezhan serve --config`` (and ``scripts/cluster.sh up
    --config``): every plain setting that differs from the default."""
    from xuezhan.server import ServerConfig

    default = ServerConfig()
    lines = ["[server]"]
    for f in dataclasses.fields(config):
        value = getattr(config, f.name)
        if value == getattr(default, f.name) or not isinstance(value, bool | int | float | str):
            continue
        lines.append(f"{f.name} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def serve(port: int, db: str, discard_pause: float, limits: bool = True, write_process: bool = True) -> None:
    """The server process, with ``discard_pause`` after every discard (``[server] discard_pause``);
    without ``limits``, no connection guard and no client-address or same-origin middleware;
    ``write_process``: ``[server] write_process``."""
    import uvicorn

    from xuezhan.server import create_app
    from xuezhan.server.app import ClientAddress, SameOrigin
    from xuezhan.server.guard import guarded_config, raise_open_file_limit, tune_collector

    config = bench_config(discard_pause, write_process)
    app = create_app(f"sqlite:///{db}", config=config)
    raise_open_file_limit()
    tune_collector()  # as ``xuezhan serve`` does
    options: dict[str, Any] = {"host": "127.0.0.1", "port": port, "log_level": "warning",
                               "ws_per_message_deflate": False, "ws_max_size": 65536}
    if limits:
        uvicorn.Server(guarded_config(app, config, **options)).run()
        return
    limited: tuple[object, ...] = (ClientAddress, SameOrigin)
    app.user_middleware = [m for m in app.user_middleware if m.cls not in limited]
    uvicorn.Server(uvicorn.Config(app, **options)).run()


def _stat(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the process's name (``None``: no such process)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int | None) -> float:
    """The CPU time (user and system) process ``pid`` and the processes it started (the server's
    writer process) have used so far; 0 without ``/proc``."""
    if pid is None:
        return 0.0
    parents: dict[int, int] = {}
    with contextlib.suppress(OSError):
        for entry in os.listdir("/proc"):
            if entry.isdigit() and (found := _stat(entry)) is not None:
                parents[int(entry)] = int(found[1])
    family, grew = {pid}, True
    while grew:
        more = {child for child, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    total = 0.0
    for member in family:
        fields = _stat(member)
        if fields is not None:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def clients_lag(stats: Stats, stop: asyncio.Event) -> None:
    """Until ``stop``: how late a 10-ms timer of this (the clients') event loop fires, kept in ``stats``."""
    while not stop.is_set():
        t = time.perf_counter()
        await asyncio.sleep(0.01)
        stats.client_lags.append(time.perf_counter() - t - 0.01)


async def run(tables: int, seconds: float, pace: Pace, url: str, discard_pause: float,
              server_pids: Sequence[int] = (), hands: int = 0, stagger: float = 0.0) -> dict[str, Any]:
    """Play ``tables`` tables against the server at ``url``, measuring for ``seconds`` (or until
    ``hands`` hands have ended, when given, ``seconds`` then being the most it waits); the CPU
    time of the processes ``server_pids`` over the measured time is the server's. The tables sit
    down together, or, with ``stagger``, one after another, evenly over that many seconds."""
    stats = Stats()
    stop = asyncio.Event()
    tasks = [asyncio.create_task(table(url, k, stats, pace, stop, stagger * k / tables)) for k in range(tables)]
    # warm-up: every table's logins, seating and first deal (at most two minutes), then a few moves
    deadline = time.monotonic() + 120 + stagger
    while len(stats.playing) < tables and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    await asyncio.sleep(2.0)
    stats.measuring = True
    start, cpu = time.perf_counter(), sum(cpu_seconds(pid) for pid in server_pids)
    end = start + seconds
    lag = asyncio.create_task(clients_lag(stats, stop))
    while time.perf_counter() < end and not (hands and stats.hands >= hands):
        await asyncio.sleep(min(0.25, max(0.0, end - time.perf_counter())))
    elapsed, cpu = time.perf_counter() - start, sum(cpu_seconds(pid) for pid in server_pids) - cpu
    stats.measuring = False
    stop.set()
    await lag
    for outcome in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(outcome, BaseException):
            name = type(outcome).__name__
            stats.errors[name] = stats.errors.get(name, 0) + 1
    def summary(times: list[float]) -> dict[str, float | None]:
        lat = sorted(times)

        def pct(p: float) -> float | None:
            return round(lat[min(len(lat) - 1, int(p * len(lat)))] * 1000, 2) if lat else None

        return {"p50": pct(0.50), "p99": pct(0.99), "max": round(lat[-1] * 1000, 2) if lat else None,
                "mean": round(statistics.fmean(lat) * 1000, 2) if lat else None}

    return {
        "tables": tables,
        "seconds": round(elapsed, 1),
        "think_seconds": pace.think,
        "claim_think_seconds": pace.claim,
        "hands": stats.hands,
        "hands_per_second": round(stats.hands / elapsed, 2),
        "actions": stats.actions,
        "actions_per_second": round(stats.actions / elapsed, 1),
        "server_cpu_ms_per_action": round(cpu * 1000 / stats.actions, 3) if stats.actions and cpu else None,
        "discard_pause": discard_pause,
        "latency_ms": summary(stats.latencies),
        "claim_latency_ms": summary(stats.claim_latencies),
        "hand_end_latency_ms": summary(stats.hand_end_latencies),
        "settle_latency_ms": summary(stats.settle_latencies),
        "client_lag_ms": summary(stats.client_lags),
        "errors": stats.errors,
        "cpus": os.cpu_count(),
    }


@dataclass(frozen=True)
class Setup:
    """How each level is measured."""

    seconds: float
    """How long (at most, with ``hands``) each level is measured, after the warm-up."""
    hands: int
    """Stop measuring once this many hands have ended (0: run the whole ``seconds``)."""
    pace: Pace
    discard_pause: float
    limits: bool = True
    server_cpus: frozenset[int] | None = None
    """The cores the server process may run on (``None``: any)."""
    stagger: float = 0.0
    """Seconds over which the tables sit down one after another (0: all together)."""
    write_process: bool = True
    """The server's writes in a process of their own (``[server] write_process``)."""


def wait_for(url: str, proc: subprocess.Popen[bytes] | None = None, seconds: float = 30.0) -> None:
    """Return once ``url`` answers (``SystemExit`` if it does not, or ``proc`` ended, in time)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.get(url + "/api/rooms", timeout=1).raise_for_status()
            return
        except httpx.HTTPError:
            if time.monotonic() > deadline or (proc is not None and proc.poll() is not None):
                raise SystemExit(f"the server at {url} did not answer") from None
            time.sleep(0.1)


def measure(tables: int, setup: Setup) -> dict[str, Any]:
    """One level of load against a server of its own (a process group of its own, on
    ``setup.server_cpus`` when given), stopped whatever happens."""
    from xuezhan.store.pgtemp import free_port

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "load.sqlite3")
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port), db, str(setup.discard_pause),
                                 "on" if setup.limits else "off", "process" if setup.write_process else "thread"],
                                start_new_session=True)
        if setup.server_cpus is not None:
            os.sched_setaffinity(proc.pid, setup.server_cpus)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_for(url, proc)
            result = asyncio.run(run(tables, setup.seconds, setup.pace, url, setup.discard_pause, [proc.pid],
                                     setup.hands, setup.stagger))
            return result | {"limits": setup.limits, "nodes": 1, "stagger": setup.stagger,
                             "writer": "process" if setup.write_process else "thread"}
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(30)


def measure_cluster(tables: int, setup: Setup, directory: Path) -> dict[str, Any]:
    """One level of load against a running cluster (``scripts/cluster.sh up --dir DIR``) through
    its balancer; the server's CPU time is its nodes'."""
    try:
        cluster = json.loads((directory / "nodes.json").read_text(encoding="utf-8"))
        nodes = cluster["nodes"]
        port = min(int(n["port"]) for n in nodes) - 1  # the balancer listens on P, nodes on P+1..P+N
        pids = [int(n["pid"]) for n in nodes]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"not a cluster's folder ({directory}/nodes.json): {exc}") from None
    url = f"http://127.0.0.1:{port}"
    wait_for(url)
    result = asyncio.run(run(tables, setup.seconds, setup.pace, url, setup.discard_pause, pids, setup.hands,
                             setup.stagger))
    return result | {"limits": True, "nodes": len(nodes), "stagger": setup.stagger, "writer": "cluster"}


def cpus(text: str) -> frozenset[int]:
    """``"0"``, ``"0,1"`` or ``"0-3"``: a set of cores."""
    found: set[int] = set()
    for part in text.split(","):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return frozenset(found)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", default="50", help="tables, or several levels: 50,200,400")
    parser.add_argument("--seconds", type=float, default=100.0,
                        help="seconds measured at each level (with --hands: the most)")
    parser.add_argument("--hands", type=int, default=0, help="stop measuring a level once this many hands ended")
    from xuezhan.server import ServerConfig

    config = ServerConfig()
    parser.add_argument("--think", type=float, default=config.bot_delay,
                        help="mean thinking time before a turn or a choice (s; default: the server's bots')")
    parser.add_argument("--claim-think", type=float, default=config.bot_claim_delay,
                        help="mean thinking time before answering a claim window (s; default: the server's bots')")
    parser.add_argument("--discard-pause", type=float, default=config.discard_pause,
                        help="the server's pause after every discard (s; default: the server's)")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="S",
                        help="seat the tables one after another over S seconds, as people arrive (default: "
                             "all at once, every table's hand ending in the same wave)")
    parser.add_argument("--limits", choices=("on", "off"), default="on",
                        help="serve with the public server's limits or without them")
    parser.add_argument("--server-cpus", type=cpus, default=None, metavar="LIST",
                        help="cores of the server process (\"1\", \"0-1\")")
    parser.add_argument("--client-cpus", type=cpus, default=None, metavar="LIST",
                        help="cores of this process, the clients (\"0\")")
    parser.add_argument("--writer", choices=("process", "thread"), default="process",
                        help="the server's writes in a process of their own (the default) or on its thread")
    parser.add_argument("--cluster", type=Path, default=None, metavar="DIR",
                        help="drive the cluster that `scripts/cluster.sh up --dir DIR` started, through its balancer")
    parser.add_argument("--cluster-config", type=Path, default=None, metavar="FILE.toml",
                        help="write the server's settings under load (with --discard-pause) for "
                             "`scripts/cluster.sh up --config FILE.toml`, and stop")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--serve", nargs=5, metavar=("PORT", "DB", "PAUSE", "LIMITS", "WRITER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], float(args.serve[2]), args.serve[3] == "on",
              args.serve[4] == "process")
        return 0
    if args.cluster_config is not None:
        config = bench_config(args.discard_pause, args.writer == "process")
        args.cluster_config.write_text(config_toml(config), encoding="utf-8")
        return 0
    try:
        levels = [int(n) for n in str(args.tables).split(",")]
    except ValueError:
        parser.error("--tables takes numbers separated by commas")
    if args.client_cpus is not None:
        os.sched_setaffinity(0, args.client_cpus)
    setup = Setup(args.seconds, args.hands, Pace(args.think, args.claim_think), args.discard_pause,
                  args.limits == "on", args.server_cpus, args.stagger, args.writer == "process")
    for tables in levels:
        result = measure(tables, setup) if args.cluster is None else measure_cluster(tables, setup, args.cluster)
        if args.json:
            print(json.dumps(result), flush=True)
            continue
        print(f"{result['tables']} tables on {result['nodes']} node(s), thinking {args.think} s "
              f"(claims {args.claim_think} s), discard pause {args.discard_pause} s, "
              f"{result['seconds']} s: {result['hands']} hands "
              f"({result['hands_per_second']}/s), {result['actions']} actions ({result['actions_per_second']}/s), "
              f"server CPU {result['server_cpu_ms_per_action']} ms an action")
        for name, key in (("play", "latency_ms"), ("claim answers (after the pause)", "claim_latency_ms"),
                          ("hand end (its last state to the next deal)", "hand_end_latency_ms"),
                          ("  of it, to its hand_end", "settle_latency_ms"),
                          ("the clients' own delay", "client_lag_ms")):
            lat = result[key]
            print(f"  {name}: p50 {lat['p50']} ms, p99 {lat['p99']} ms, max {lat['max']} ms", flush=True)
        if result["errors"]:
            print(f"  errors {result['errors']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
