#!/usr/bin/env bash
# Fuzzing: schemathesis (from PyPI) generates requests for every operation of the server's own
# /openapi.json, valid and invalid, and checks that none is answered with a 5xx. Then the
# server's own count of 5xx answers must be 0, and it must still answer.
#
# Usage: scripts/reliability/fuzz.sh FUNCTIONHOST [EXAMPLES_PER_OPERATION] [MAX_SECONDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
BINARY=${1:-.build/debug/functionhost}
EXAMPLES=${2:-20}
MAX_SECONDS=${3:-240}
VENV=$PWD/.build-fuzz/venv
if [ ! -x "$VENV/bin/st" ]; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "schemathesis==4.32.5"
fi
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
LEANCLOUD_APP_ID=fuzzapp LEANCLOUD_APP_KEY=fuzzkey LEANCLOUD_APP_MASTER_KEY=fuzzmaster LEANCLOUD_APP_HOOK_KEY=fuzzhook \
LOG_LEVEL=error "$BINARY" serve --host 127.0.0.1 --port "$PORT" --data-dir "$WORK/data" --functions ./functions \
    >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 1 200); do curl -sf "http://127.0.0.1:$PORT/__engine/1/ping" >/dev/null && break; sleep 0.1; done
# Some data for the generated requests to find.
curl -sf -X POST -H "X-LC-Id: fuzzapp" -H "X-LC-Key: fuzzmaster,master" -H "Content-Type: application/json" \
    -d '{"title": "seed", "n": 1}' "http://127.0.0.1:$PORT/1.1/classes/Todo" >/dev/null

set +e
# Run from the temporary folder: schemathesis keeps a cache in its working directory.
cd "$WORK"
"$VENV/bin/st" run "http://127.0.0.1:$PORT/openapi.json" --checks not_a_server_error \
    --max-examples "$EXAMPLES" --max-time "$MAX_SECONDS" --seed 20261124 --workers 2 --no-shrink \
    --request-timeout 20 --suppress-health-check all --warnings off \
    -H "X-LC-Id: fuzzapp" -H "X-LC-Key: fuzzmaster,master" \
    --report ndjson --report-dir "$WORK/report" >"$WORK/st.log" 2>&1
STATUS=$?
cd - >/dev/null
set -e
tail -25 "$WORK/st.log"
CASES=$(grep -c '"ScenarioFinished"' "$WORK/report/"*.ndjson 2>/dev/null || echo "?")
ERRORS=$(curl -sf -H "X-LC-Id: fuzzapp" -H "X-LC-Key: fuzzmaster,master" "http://127.0.0.1:$PORT/metrics" \
    | awk '/^functionhost_http_server_errors_total/ {s += $NF} END {print s + 0}')
ALIVE=$(curl -sf "http://127.0.0.1:$PORT/__engine/1/ping" >/dev/null && echo yes || echo no)
# schemathesis exits 1 both for a failed check and for an error of its own (its generator once
# gave up on "inconsistent results" while making a body): only a failed check, a 5xx the server
# counted, or a server that stopped answering fails the run; the tool's own errors are shown.
FAILED_CHECKS=$(grep -cE '^_+ .* _+$' <(sed -n '/^=* FAILURES =*$/,/^=* \(ERRORS\|SUMMARY\) =*$/p' "$WORK/st.log") || true)
echo "fuzz: $CASES scenarios, failed checks: $FAILED_CHECKS, 5xx answers counted by the server: $ERRORS, still answering: $ALIVE"
if [ "$STATUS" -ne 0 ] && [ "$FAILED_CHECKS" = "0" ]; then
    grep -A3 '^Errors:' "$WORK/st.log" || true
    echo "fuzz: schemathesis exit $STATUS without a failed check: its own errors, above"
fi
if [ "$FAILED_CHECKS" != "0" ] || [ "$ERRORS" != "0" ] || [ "$ALIVE" != "yes" ]; then
    echo "fuzz: FAILED (schemathesis exit $STATUS)"
    exit 1
fi
