#!/usr/bin/env bash
# The whole test suite: every test on the embedded SQLite storage, then the end-to-end tests
# (and the PostgreSQL engine's own) again on PostgreSQL. A PostgreSQL server is started for the
# second pass unless FUNCTIONHOST_TEST_DATABASE_URL names one already.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests
# Serial: every end-to-end test starts its own server, and dozens of them at once on two cores
# starve each other past the HTTP client's timeouts.
echo "== Every test, on SQLite"
env -u FUNCTIONHOST_TEST_DATABASE_URL swift test --skip-build --no-parallel

# A real client: the official LeanCloud JavaScript SDK's own suite, every in-scope test.
echo "== The official LeanCloud JavaScript SDK's test suite, on SQLite"
bash scripts/conformance.sh

# Crash safety: writes under load, kill -9 at random moments, every acknowledged write found.
echo "== kill -9 under load, on SQLite"
python3 scripts/reliability/crash.py .build/debug/functionhost --rounds 5
echo "== hostile scripts under load, and a soak (memory and open files), on SQLite"
python3 scripts/reliability/soak.py .build/debug/functionhost --seconds 10 --phase-seconds 3
echo "== fuzzing every operation of /openapi.json (schemathesis), on SQLite"
bash scripts/reliability/fuzz.sh .build/debug/functionhost 10 120

url=${FUNCTIONHOST_TEST_DATABASE_URL:-}
if [ -z "$url" ]; then
    dir=$(mktemp -d)
    trap 'bash scripts/postgres.sh stop "$dir/pg"; rm -rf "$dir"' EXIT
    url=$(bash scripts/postgres.sh start "$dir/pg")
fi
echo "== End-to-end and storage tests, on PostgreSQL ($url)"
FUNCTIONHOST_TEST_DATABASE_URL=$url swift test --skip-build --no-parallel --filter "FunctionHostTests|StorageEngineTests|AccessPropertyTests"
echo "== kill -9 under load, on PostgreSQL"
separator="?"; [[ "$url" == *"?"* ]] && separator="&"
python3 scripts/reliability/crash.py .build/debug/functionhost --rounds 3 --database "${url}${separator}schema=crash"
