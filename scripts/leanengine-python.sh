#!/usr/bin/env bash
# Python for LeanEngine apps written with LeanCloud's Python SDK (the engine tests' apps, and an
# app an operator moves here): a venv under .build-engine with the SDK and what its gevent server
# needs on this Python, pinned, made on first use. Runs python with the arguments given, in the
# caller's directory.
#
# Usage: scripts/leanengine-python.sh wsgi.py   (as --engine-command, in the app's directory)
#        scripts/leanengine-python.sh --prepare (make the venv and exit)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV=$ROOT/.build-engine/venv
STAMP=$VENV/.leancloud-3.0.2-2
if [ ! -f "$STAMP" ]; then
    # One maker at a time: tests on both engines may start apps at once.
    mkdir -p "$ROOT/.build-engine"
    exec 9>"$ROOT/.build-engine/venv.lock"
    flock 9
    if [ ! -f "$STAMP" ]; then
        rm -rf "$VENV"
        python3 -m venv "$VENV" >&2
        # gevent 22.10 (the SDK's) finds its plugins through pkg_resources: setuptools 80 reads
        # zope.interface's dist-info name (older ones miss it; 81 drops pkg_resources); greenlet 2
        # is the one it was built against; zope's are versions its monkey.patch_all imports.
        "$VENV/bin/python" -m pip install -q "leancloud==3.0.2" "gevent==22.10.2" "greenlet==2.0.2" \
            "setuptools==80.10.2" "zope.interface==5.5.2" "zope.event==4.6" >&2
        touch "$STAMP"
    fi
    flock -u 9
fi
if [ "${1:-}" = "--prepare" ]; then exit 0; fi
exec "$VENV/bin/python" -u "$@"
