#!/usr/bin/env bash
# Long fuzzing: every fuzz target (tests/test_fuzz_*.py) with 100,000 examples each (or $1),
# random seeds, failing examples kept in .hypothesis/ and tried first on the next run.
# CI runs the same targets with 2,000 derandomized examples each.
set -euo pipefail
cd "$(dirname "$0")/.."
export XUEZHAN_FUZZ_EXAMPLES="${1:-100000}"
export XUEZHAN_HYPOTHESIS="${XUEZHAN_HYPOTHESIS:-dev}"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-}"  # the interpreter: $PYTHON, else the checkout's .venv, else python3
[ -z "$PY" ] && [ -x .venv/bin/python ] && PY=.venv/bin/python
PY="${PY:-python3}"
exec nice "$PY" -m pytest tests/test_fuzz_parsers.py tests/test_fuzz_cli.py -q --durations=0 "${@:2}"
