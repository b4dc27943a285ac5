#!/usr/bin/env bash
# A real SMTP server for the mail tests: aiosmtpd (PyPI, pinned) in a venv under .build-mail,
# made on first use. It listens on a free loopback port, prints "ready PORT" once it accepts
# connections, and writes each delivered message as JSON (envelope, raw text and the parts
# Python's own email parser reads) to a numbered file in DIRECTORY before it answers 250.
#
# Usage: scripts/smtp-server.sh DIRECTORY [--starttls CERT KEY] [--tls CERT KEY]
#        [--auth USER PASSWORD] [--fail-first N]
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=$PWD/.build-mail/venv
if [ ! -f "$VENV/.aiosmtpd-1.4.6" ]; then
    # One maker at a time: tests on both engines may start servers at once.
    mkdir -p .build-mail
    exec 9>.build-mail/venv.lock
    flock 9
    if [ ! -f "$VENV/.aiosmtpd-1.4.6" ]; then
        python3 -m venv "$VENV" >&2
        "$VENV/bin/python" -m pip install -q "aiosmtpd==1.4.6" >&2
        touch "$VENV/.aiosmtpd-1.4.6"
    fi
    flock -u 9
fi
exec "$VENV/bin/python" -u scripts/smtp_server.py "$@"
