#!/usr/bin/env bash
# Mutation testing (mutmut 3; configuration in pyproject.toml [tool.mutmut]) of scoring.py,
# hand.py, rules.py and the engine's claims, kongs, wins (call transfer) and settlement.
# docs/mutation.md has the scores and the surviving mutants with their reasons.
#
#   scripts/mutation.sh                   every mutant (long: run it on a quiet machine)
#   scripts/mutation.sh --sample 20 --pooled   20 mutants per module, seeded (CI: a few minutes)
#
# Options: --sample N, --seed S (default 1), --bar PCT (default 85: exit 1 when a module scores
# less; with --pooled, when the sample as a whole does), --jobs K (parallel mutants, default 1).
# CPU-heavy: it runs under nice.
set -euo pipefail
cd "$(dirname "$0")/.."

SAMPLE="" SEED=1 BAR=85 JOBS=1 POOLED=""
while [ $# -gt 0 ]; do
    case "$1" in
        --sample) SAMPLE="$2"; shift 2 ;;
        --seed) SEED="$2"; shift 2 ;;
        --bar) BAR="$2"; shift 2 ;;
        --jobs) JOBS="$2"; shift 2 ;;
        --pooled) POOLED="--pooled"; shift ;;
        *) echo "usage: $0 [--sample N] [--seed S] [--bar PCT] [--jobs K] [--pooled]" >&2; exit 2 ;;
    esac
done

PY="${PYTHON:-}"  # the interpreter: $PYTHON, else the checkout's .venv, else python3
[ -z "$PY" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
PY="${PY:-python3}"
export PYTHONPATH=  # the tests must import the mutated copy in mutants/, not src/
mutmut() { nice -n 15 "$PY" -m mutmut "$@"; }

if [ -z "$SAMPLE" ]; then
    mutmut run --max-children "$JOBS"
    exec "$PY" tools/mutation_score.py score --bar "$BAR"
fi

# Generate the mutants and map the tests to the functions (running one cheap mutant), then
# run a seeded sample of each module's mutants (named explicitly: run again even if known).
mutmut run --max-children "$JOBS" "xuezhan.rules.x_option_names__mutmut_1" > mutants-setup.log 2>&1 \
    || { cat mutants-setup.log; exit 1; }
rm -f mutants-setup.log
"$PY" tools/mutation_score.py sample "$SAMPLE" "$SEED" > mutants/sample.txt
# shellcheck disable=SC2046
mutmut run --max-children "$JOBS" $(cat mutants/sample.txt) | tail -n 3
exec "$PY" tools/mutation_score.py score --bar "$BAR" --names mutants/sample.txt --survivors $POOLED
