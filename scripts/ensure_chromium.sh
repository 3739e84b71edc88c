#!/usr/bin/env bash
# Make sure Debian's Chromium is at /usr/bin/chromium for the browser tests (tests/test_browser.py):
# Playwright cannot download a browser of its own here, so it drives this one. Also installs a
# Chinese font when none is present, so screenshots show the table's
# Chinese labels, and Debian's nginx for the cluster tests (scripts/cluster.sh). Installs only what
# is missing; safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
updated=0

install() {
    if [ "$updated" -eq 0 ]; then
        $SUDO apt-get update -qq
        updated=1
    fi
    $SUDO apt-get install -y -qq --no-install-recommends "$@"
}

if [ ! -x /usr/bin/chromium ]; then
    install chromium
fi
if ! fc-list :lang=zh 2>/dev/null | grep -q .; then
    install fonts-wqy-microhei || echo "ensure_chromium: no Chinese font installed (screenshots only)" >&2
fi
if [ ! -x /usr/sbin/nginx ]; then
    install nginx-light
fi
if [ ! -x /usr/bin/chromium ]; then
    echo "ensure_chromium: /usr/bin/chromium is still missing" >&2
    exit 1
fi
