"""The memory and speed of ``xuezhan simulate --out``, at a few sizes, this tree beside another.

    python benchmarks/simulate_memory.py [--sizes 1000,5000,20000] [--engine native] [--workers 1]
                                         [--backend local] [--bots heuristic] [--base REV] [--json]

Each run is ``python -m xuezhan simulate --games N --engine E --workers W --backend B --out FILE
--json`` in a child process, alone, with its tree's sources first on ``PYTHONPATH``. Measured for
each: the peak resident memory of the command's own process (``wait4``'s ``ru_maxrss``), the
peak of the sum over it and every process below it (``/proc``, sampled every 20 ms: the local
workers, or with Ray the whole local Ray started for the run), its CPU seconds (local workers
included; Ray's processes are not), hands per second of wall-clock time and per CPU second (the
figure to compare on a shared machine), and the SHA-256 of the records written.

``--base REV`` runs the same commands on revision ``REV`` too (exported by ``git archive`` into a
temporary folder, its compiled core built there), in turn with this tree at each size, and
prints the ratios: memory of the base over this tree's (above 1: this tree holds less), speed of
this tree over the base's (above 1: faster), and whether the two wrote the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent


def tree_rss_kb(root: int) -> int:
    """Resident memory of ``root`` and every process below it, in KiB (0 once it is gone)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="ascii", errors="replace") as f:
                fields = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:  # gone meanwhile
            continue
        pid = int(entry)
        children.setdefault(int(fields.get("PPid", "0").strip()), []).append(pid)
        rss[pid] = int(fields.get("VmRSS", "0 kB").split()[0])
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, ()))
    return total


def run(tree: Path, games: int, engine: str, workers: int, backend: str, bots: str) -> dict[str, Any]:
    """One ``simulate --out`` of ``tree``, measured."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "records.jsonl"
        cmd = [sys.executable, "-m", "xuezhan", "simulate", "--games", str(games), "--engine", engine,
               "--workers", str(workers), "--backend", backend, "--bots", bots, "--out", str(out), "--json"]
        env = {**os.environ, "PYTHONPATH": str(tree / "src")}
        start = time.perf_counter()
        errors = (Path(tmp) / "stderr").open("w+b")
        proc = subprocess.Popen(cmd, env=env, cwd=tree, stdout=subprocess.PIPE, stderr=errors)
        peak = 0
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, tree_rss_kb(proc.pid))
                done.wait(0.02)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        stdout = proc.stdout.read() if proc.stdout is not None else b""
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own figures, its workers' CPU included
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        done.set()
        sampler.join()
        errors.seek(0)
        problem = errors.read().decode(errors="replace")
        errors.close()
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {problem}")
        summary = json.loads(stdout)
        digest = hashlib.sha256()
        with out.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        cpu = usage.ru_utime + usage.ru_stime
        return {
            "games": games,
            "engine": summary["engine"],
            "peak_rss_mb": usage.ru_maxrss / 1024,
            "peak_tree_rss_mb": peak / 1024,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "hands_per_second": games / seconds,
            "hands_per_cpu_second": games / cpu if cpu > 0 else None,
            "out_mb": out.stat().st_size / 1e6,
            "out_sha256": digest.hexdigest(),
        }


def export(rev: str, into: Path) -> Path:
    """Revision ``rev`` of this repository as files in ``into`` (no work tree registered), its core built."""
    data = subprocess.run(["git", "archive", "--format=tar", rev], cwd=HERE, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    if (into / "setup.py").exists():
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=into,
                       capture_output=True, check=False)
    return into


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="hands of each run, comma-separated")
    parser.add_argument("--engine", default="native", choices=("python", "native"))
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--backend", default="local", choices=("local", "ray"))
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--base", default=None, help="a revision to run beside this tree (a commit, tag or branch)")
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    sizes = [int(s) for s in ns.sizes.split(",")]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = export(ns.base, Path(tmp) / "base") if ns.base else None
        for games in sizes:
            row: dict[str, Any] = {"games": games, "this": run(HERE, games, ns.engine, ns.workers, ns.backend, ns.bots)}
            if base is not None:
                before = row["base"] = run(base, games, ns.engine, ns.workers, ns.backend, ns.bots)
                now = row["this"]
                row["memory_ratio"] = before["peak_tree_rss_mb"] / now["peak_tree_rss_mb"]
                row["speed_per_cpu_second"] = now["hands_per_cpu_second"] / before["hands_per_cpu_second"]
                row["speed_per_second"] = now["hands_per_second"] / before["hands_per_second"]
                row["same_bytes"] = before["out_sha256"] == now["out_sha256"]
            rows.append(row)
    if ns.json:
        print(json.dumps({"engine": ns.engine, "workers": ns.workers, "backend": ns.backend, "bots": ns.bots,
                          "base": ns.base,
                          "runs": rows}, indent=2))
        return
    print(f"simulate --out, {ns.engine} engine, {ns.workers} worker(s) ({ns.backend}), bots {ns.bots}"
          + (f": this tree beside {ns.base}" if ns.base else ""))
    for row in rows:
        for name in ("base", "this"):
            if name in row:
                r = row[name]
                print(f"  {row['games']:>7} hands {name:>4}: peak {r['peak_rss_mb']:7.1f} MB (with workers "
                      f"{r['peak_tree_rss_mb']:7.1f}), {r['hands_per_second']:8.0f} hands/s, "
                      f"{r['hands_per_cpu_second'] or 0:8.0f} per CPU s, {r['out_mb']:.0f} MB written")
        if "memory_ratio" in row:
            print(f"  {'':>7}       memory base/this {row['memory_ratio']:.2f}, speed this/base "
                  f"{row['speed_per_cpu_second']:.2f} per CPU s ({row['speed_per_second']:.2f} wall), "
                  f"same bytes: {row['same_bytes']}")


if __name__ == "__main__":
    main()
