#!/usr/bin/env bash
# Runs the MaxLeap JavaScript SDK (MaxLeap/SDK-Javascript, its lib/*.js, given by path: never part
# of this project) against the debug build over the MaxLeap dialect. Its npm dependencies are
# replaced by small stand-ins (scripts/maxleap-js-sdk/shims), XMLHttpRequest by one over Node's http.
# Not part of `make test`: the SDK is not on a fresh machine.
#   bash scripts/maxleap-js-sdk.sh /path/to/SDK-Javascript      (a checkout, or a git dir: its HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
sdk=${1:?usage: maxleap-js-sdk.sh <path to MaxLeap/SDK-Javascript>}
work=$(mktemp -d)
trap 'kill "${server:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -d "$sdk/lib" ]; then
    cp -r "$sdk/lib" "$work/lib"
else
    # A bare git directory (what the mirror holds): its HEAD's lib/.
    mkdir -p "$work/lib" && git --git-dir="$sdk" archive HEAD lib | tar -x -C "$work"
fi
mkdir -p "$work/node_modules"
cp -r scripts/maxleap-js-sdk/shims/* "$work/node_modules/"
port=$((20000 + RANDOM % 20000))
LEANCLOUD_APP_ID=mlapp LEANCLOUD_APP_KEY=mlkey LEANCLOUD_APP_MASTER_KEY=mlmaster \
    .build/debug/functionhost serve --host 127.0.0.1 --port "$port" --data-dir "$work/data" \
    --functions scripts/maxleap-js-sdk/functions >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/__engine/1/ping" >/dev/null && break; sleep 0.1; done
NODE_PATH="$work/node_modules" ML_SERVER="http://127.0.0.1:$port/" ML_SDK="$work/lib/ml.js" \
    node scripts/maxleap-js-sdk/run.js
