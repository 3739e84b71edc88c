#!/usr/bin/env bash
# A local cluster of the web table, for a try and for the tests (docs/deploy.md):
#   scripts/cluster.sh up --nodes N --port P --dir D [--db URL] [--config FILE.toml]
#   scripts/cluster.sh down --dir D
# `up` starts a PostgreSQL (the project's test PostgreSQL, unless --db names one), N nodes
# (`xuezhan serve --node nI`) on ports P+1..P+N and nginx (Debian's: scripts/ensure_chromium.sh
# installs it) on port P balancing over them; writes D/nodes.json and returns when every node answers.
# `down` stops it all. The work is scripts/cluster.py's, run by $PYTHON (default python3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "${PYTHON:-python3}" "$here/cluster.py" "$@"
