"""Mutation scores per module from mutmut's results (mutants/**/*.meta), for scripts/mutation.sh.

    python tools/mutation_score.py sample N SEED   # N mutant names per module, seeded, one a line
    python tools/mutation_score.py score [--names FILE] [--bar 85] [--markdown]

A score is killed / (killed + survived + no tests), timeouts counting as killed; mutants not
run yet are left out. Mutants of the functions in ``EXCLUDED`` are left out too, with the
reason given there (docs/mutation.md lists them).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = ROOT / "mutants"
MODULES = (
    "xuezhan.scoring",
    "xuezhan.hand",
    "xuezhan.rules",
    "xuezhan.engine.claims",
    "xuezhan.engine.kongs",
    "xuezhan.engine.wins",
    "xuezhan.engine.settlement",
    "xuezhan.engine.worth",
)
IMPORT_TIME = ("built once when xuezhan.hand is imported, before any mutant can be switched on; "
               "tests/test_hand_properties.py checks the tables they build against brute force")
EXCLUDED = {
    "xuezhan.hand.x__build_shapes": IMPORT_TIME,
    "xuezhan.hand.x__byte_fits": IMPORT_TIME,
    "xuezhan.hand.x__byte_vector_key": IMPORT_TIME,
    "xuezhan.hand.x__build_suit_class": IMPORT_TIME,
    "xuezhan.hand.x__all_even_keys": IMPORT_TIME,
    "xuezhan.hand.x__seven_pairs_row": IMPORT_TIME,
    "xuezhan.hand.x__load_tables": ("reads data/suit_tables.bin.xz once and keeps it; the tests that map tests "
                                    "to mutants load it before any mutant is switched on; every waits and "
                                    "shanten test reads the tables it loads"),
}
# mutmut's exit codes (mutmut.stats.status_by_exit_code)
KILLED = {1, 3, -24, 24, 36, 37, 152, 255}  # a test failed, or timed out (-24/24/152), or the type check
SURVIVED = {0}
NO_TESTS = {5, 33}
_NAME = re.compile(r"^(?P<module>.+?)\.x[_ǁ](?P<rest>.*)__mutmut_\d+$")


def module_of(name: str) -> str:
    m = _NAME.match(name)
    return m.group("module") if m else name


def excluded(name: str) -> bool:
    return any(name.startswith(prefix + "__mutmut_") for prefix in EXCLUDED)


def results() -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for meta in sorted(MUTANTS.rglob("*.py.meta")):
        out.update(json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"])
    return {k: v for k, v in out.items() if module_of(k) in MODULES and not excluded(k)}


def sample(n: int, seed: int) -> list[str]:
    by_module: dict[str, list[str]] = defaultdict(list)
    for name in sorted(results()):
        by_module[module_of(name)].append(name)
    rng = random.Random(seed)
    out: list[str] = []
    for module in MODULES:
        names = by_module.get(module, [])
        out += sorted(rng.sample(names, min(n, len(names))))
    return out


def score(names: list[str] | None) -> dict[str, Counter[str]]:
    res = results()
    table: dict[str, Counter[str]] = {m: Counter() for m in MODULES}
    for name, code in res.items():
        if names is not None and name not in names:
            continue
        kind = ("killed" if code in KILLED else "survived" if code in SURVIVED else "no tests" if code in NO_TESTS
                else "not run" if code is None else f"exit {code}")
        table[module_of(name)][kind] += 1
    return table


def percent(c: Counter[str]) -> float | None:
    counted = c["killed"] + c["survived"] + c["no tests"]
    return 100.0 * c["killed"] / counted if counted else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_sample = sub.add_parser("sample")
    p_sample.add_argument("n", type=int)
    p_sample.add_argument("seed", type=int)
    p_score = sub.add_parser("score")
    p_score.add_argument("--names", type=Path)
    p_score.add_argument("--bar", type=float, default=85.0)
    p_score.add_argument("--markdown", action="store_true")
    p_score.add_argument("--survivors", action="store_true", help="list the surviving mutants too")
    p_score.add_argument("--pooled", action="store_true", help="the bar applies to all modules together")
    args = parser.parse_args(argv)
    if args.command == "sample":
        print("\n".join(sample(args.n, args.seed)))
        return 0
    names = args.names.read_text(encoding="utf-8").split() if args.names else None
    table = score(names)
    low = []
    if args.markdown:
        print("| module | killed | survived | no tests | score |\n|---|---|---|---|---|")
    for module, c in table.items():
        pct = percent(c)
        shown = "–" if pct is None else f"{pct:.1f} %"
        if args.markdown:
            print(f"| `{module}` | {c['killed']} | {c['survived']} | {c['no tests']} | {shown} |")
        else:
            print(f"{module:28} killed {c['killed']:4}  survived {c['survived']:4}  no tests {c['no tests']:4}  "
                  f"not run {c['not run']:4}  score {shown}")
        if pct is not None and pct < args.bar:
            low.append(module)
    total: Counter[str] = sum(table.values(), Counter())
    pooled = percent(total)
    print(f"all modules: killed {total['killed']}, survived {total['survived']}, no tests {total['no tests']}: "
          + ("–" if pooled is None else f"{pooled:.1f} %"))
    if args.pooled:
        low = ["all modules"] if pooled is not None and pooled < args.bar else []
    if args.survivors:
        for name, code in sorted(results().items()):
            if code in SURVIVED | NO_TESTS and (names is None or name in names):
                print(name)
    if low:
        print(f"under {args.bar:.0f} %: {', '.join(low)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
