#!/usr/bin/env bash
# A real S3-compatible server for the file tests: moto's server mode (PyPI, pinned) in a venv
# under .build-s3, made on first use. It listens on a free loopback port, creates the bucket it
# is given, prints "ready URL ACCESS_KEY SECRET_KEY" once it accepts connections, and runs until
# its standard input closes. With --auth it checks every request's signature against an IAM
# user of its own (the printed keys); without, it takes any.
#
# Usage: scripts/s3-server.sh BUCKET [--auth]
#        scripts/s3-server.sh --prepare (make the venv and exit)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV=$ROOT/.build-s3/venv
STAMP=$VENV/.moto-5.2.5
if [ ! -f "$STAMP" ]; then
    # One maker at a time: tests on both engines may start servers at once.
    mkdir -p "$ROOT/.build-s3"
    exec 9>"$ROOT/.build-s3/venv.lock"
    flock 9
    if [ ! -f "$STAMP" ]; then
        rm -rf "$VENV"
        python3 -m venv "$VENV" >&2
        "$VENV/bin/python" -m pip install -q "moto[server]==5.2.5" >&2
        touch "$STAMP"
    fi
    flock -u 9
fi
if [ "${1:-}" = "--prepare" ]; then exit 0; fi
exec "$VENV/bin/python" -u "$ROOT/scripts/s3_server.py" "$@"
