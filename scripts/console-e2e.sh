#!/usr/bin/env bash
# The console's end-to-end run in headless Chromium (Debian's chromium and chromium-driver, which
# scripts/setup.sh installs), driven by Selenium from PyPI (pinned, in a venv under .build-console
# made on first use). See console_e2e.py for what it does.
#
# Usage: scripts/console-e2e.sh BASE_URL MASTER_KEY SCREENSHOT_DIRECTORY
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.build-console/venv
if [ ! -f "$VENV/.selenium-4.27.1" ]; then
    mkdir -p .build-console
    exec 9>.build-console/venv.lock
    flock 9
    if [ ! -f "$VENV/.selenium-4.27.1" ]; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/python" -m pip install -q "selenium==4.27.1" >&2
        touch "$VENV/.selenium-4.27.1"
    fi
    flock -u 9
fi
exec "$VENV/bin/python" -u scripts/console_e2e.py "$@"
