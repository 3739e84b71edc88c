"""Whole-process time of a few ``xuezhan`` command lines, start-up included.

    python benchmarks/cli_startup.py [--json] [--runs N] [--against SRC]

Each command line (a score and the waits of a hand as JSON, a bad tile string, the help of
``simulate``) runs ``N`` times as its own process (``python -m xuezhan``), in turn with the
same command line of the sources in ``SRC`` when given (``PYTHONPATH=SRC``: a checkout of an
earlier revision, its ``src`` folder); the figure is the median of the wall times in
milliseconds, and with ``--against`` the ratio of this tree's time over that one's (below 1:
faster). A command line is timed from the process's start to its exit: the imports it needs
are most of it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

COMMANDS: dict[str, list[str]] = {
    "score": ["score", "123m456m789m123p55p", "--win", "5p", "--json"],
    "waits": ["waits", "123m456m789m123p5p", "--json"],
    "bad tile": ["score", "12x", "--win", "1m", "--json"],
    "simulate --help": ["simulate", "--help"],
}


def run_once(args: list[str], src: Path | None) -> float:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "xuezhan", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def measure(runs: int, against: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, args in COMMANDS.items():
        run_once(args, None)  # warm the file cache
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(runs):  # in turn, so a drift of the machine's speed touches both alike
            ours.append(run_once(args, None))
            if against is not None:
                theirs.append(run_once(args, against))
        row: dict[str, Any] = {"ms": round(1000 * statistics.median(ours), 1)}
        if theirs:
            row["against_ms"] = round(1000 * statistics.median(theirs), 1)
            row["ratio"] = round(row["ms"] / row["against_ms"], 3)
        out[name] = row
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--against", type=Path, default=None, help="the src folder of another checkout")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.runs < 1:
        p.error("--runs is at least 1")
    if args.against is not None and not (args.against / "xuezhan").is_dir():
        p.error(f"--against: no xuezhan package in {args.against}")
    result = measure(args.runs, args.against)
    if args.json:
        print(json.dumps(result))
        return
    for name, row in result.items():
        extra = f"  (against {row['against_ms']} ms: {row['ratio']}x)" if "ratio" in row else ""
        print(f"{name:>16}: {row['ms']} ms{extra}")


if __name__ == "__main__":
    main()
