"""One benchmark, this tree against an earlier revision, side by side: the ratio of every rate.

    python benchmarks/compare.py --base REV [--base-args ARGS] [--rounds N] [--json] -- SCRIPT [ARGS ...]

Checks out ``REV`` into a temporary work tree (``git worktree``), builds its compiled core in
place when this tree has one, then runs ``SCRIPT ARGS`` (a benchmark of ``benchmarks/`` that
prints JSON, e.g. ``benchmarks/selfplay_bench.py --json --seconds 3``) ``N`` times for each tree,
in turn (base, this tree, base, …), each tree's own copy of the script with its own sources first
on ``PYTHONPATH``, so a drift of the machine's speed falls on both alike. Prints, for every
number of the output that is a rate (its name ends in ``_per_s``, ``_per_second`` or
``_per_cpu_second``: more is faster) or a time (its name has ``_us`` or ``_ms`` in it, such as
``decision_ms_p99``, or it is a number inside an object so named, such as ``latency_ms.p99``:
less is faster), the median of each tree and the speed of
this tree over the base's (for a time, base / this); under 0.95 is more than 5 % slower. A
peer's figure in the output (``mahjong_us``, ``rlcard_...``) runs the same code in both and shows
the noise of the run.

``--base-args "ARGS"`` adds arguments to the base's runs only: with ``--base HEAD`` it compares
two settings of one revision, e.g. the web table with and without the public server's limits
(``--base HEAD --base-args "--limits off" -- benchmarks/server_load.py --json``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


RATES = ("_per_s", "_per_second", "_per_cpu_second")
TIMES = ("_us", "_ms")


def is_time(key: str) -> bool:
    """A time: its name ends in a unit of :data:`TIMES` or has one inside (``decision_ms_p99``)."""
    return key.endswith(TIMES) or any(f"{unit}_" in key for unit in TIMES)


def rates(data: Any, prefix: str = "", times: bool = False) -> dict[str, float]:
    """Every rate and time of ``data`` (see above) by its dotted path (a time's path ends in a
    name of :data:`TIMES`, or its object's does)."""
    out: dict[str, float] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            path = f"{prefix}{key}"
            if isinstance(value, int | float) and not isinstance(value, bool):
                if times:
                    out[f"{path}{TIMES[-1]}"] = float(value)
                elif key.endswith(RATES) or is_time(key):
                    out[path] = float(value)
            elif isinstance(value, dict | list):
                out.update(rates(value, path + ".", times or key.endswith(TIMES)))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            out.update(rates(value, f"{prefix}{i}.", times))
    return out


def run(tree: Path, script: str, args: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree / "src")}
    done = subprocess.run([sys.executable, str(tree / script), *args], env=env, cwd=tree,
                          capture_output=True, text=True, check=True)
    return rates(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the revision to compare with (a commit, tag or branch)")
    parser.add_argument("--base-args", default="", metavar="ARGS",
                        help="more arguments for the base's runs only (one string, split as a shell would)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- SCRIPT [ARGS ...]")
    ns = parser.parse_args()
    command = ns.command[1:] if ns.command[:1] == ["--"] else ns.command
    if not command:
        parser.error("give the benchmark to run after --")
    script, args = command[0], command[1:]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(base), ns.base], cwd=HERE, check=True)
        try:
            if (HERE / "setup.py").exists():
                subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=base,
                               capture_output=True, check=False)
            seen: dict[str, dict[str, list[float]]] = {"base": {}, "this": {}}
            for _ in range(ns.rounds):
                for name, tree, extra in (("base", base, shlex.split(ns.base_args)), ("this", HERE, [])):
                    for key, value in run(tree, script, [*args, *extra]).items():
                        seen[name].setdefault(key, []).append(value)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=HERE, check=False)
    table = {}
    for key, values in seen["this"].items():
        if not seen["base"].get(key):
            continue
        before, now = statistics.median(seen["base"][key]), statistics.median(values)
        if before <= 0 or now <= 0:
            continue
        speed = before / now if is_time(key.rpartition(".")[2]) else now / before
        table[key] = {"base": before, "this": now, "speed": speed}
    if ns.json:
        print(json.dumps({"base": ns.base, "base_args": ns.base_args, "rounds": ns.rounds, "command": command,
                          "rates": table}, indent=2))
        return
    against = f"{ns.base} {ns.base_args}".strip()
    print(f"{' '.join(command)}: this tree against {against}, median of {ns.rounds} runs each, in turn")
    for key, row in table.items():
        print(f"  {key:<40} base {row['base']:>12.4g}  this {row['this']:>12.4g}  speed {row['speed']:.3f}")


if __name__ == "__main__":
    main()
