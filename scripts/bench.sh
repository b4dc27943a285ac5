#!/usr/bin/env bash
# Benchmark: every figure is a ratio to a ceiling measured in the same run on this machine.
#   bare route   = a bare Hummingbird "hello" route (Benchmarks/BareServer), sent the same request
#                  as the route it is compared with (function calls are POSTs with a JSON body)
#   sqlite loop  = a plain in-process SQLite insert loop, one row per transaction
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
BARE_PORT=18181
HOST_PORT=18182
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

swift build -c release --product functionhost >/dev/null
swift build -c release --product BareServer >/dev/null

.build/release/BareServer $BARE_PORT >"$WORK/bare.log" 2>&1 &
LEANCLOUD_APP_ID=benchapp LEANCLOUD_APP_KEY=benchkey LEANCLOUD_APP_MASTER_KEY=benchmaster LEANCLOUD_APP_HOOK_KEY=benchhook \
LOG_LEVEL=warning .build/release/functionhost serve --host 127.0.0.1 --port $HOST_PORT --data-dir "$WORK/data" \
    --functions ./functions >"$WORK/host.log" 2>&1 &

wait_for() { for _ in $(seq 1 100); do curl -sf "$1" >/dev/null 2>&1 && return 0; sleep 0.1; done; echo "not ready: $1"; exit 1; }
wait_for "http://127.0.0.1:$BARE_PORT/hello"
wait_for "http://127.0.0.1:$HOST_PORT/__engine/1/ping"

# rps LABEL URL [LUA]: runs wrk, prints a line, returns requests/s in $RPS.
run_wrk() {
    local label=$1 url=$2 script=${3:-}
    local threads=2
    [ "$CONNECTIONS" -lt 2 ] && threads=1
    local args=(-t$threads -c"$CONNECTIONS" -d"${DURATION}s" --latency)
    [ -n "$script" ] && args+=(-s "$script")
    local out
    out=$(wrk "${args[@]}" "$url")
    RPS=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    local p50 p99 non2xx
    p50=$(echo "$out" | awk '$1=="50%" {print $2}')
    p99=$(echo "$out" | awk '$1=="99%" {print $2}')
    non2xx=$(echo "$out" | awk '/Non-2xx/ {print $NF}')
    printf "%-28s %10.0f req/s   p50 %-9s p99 %-9s %s\n" "$label" "$RPS" "$p50" "$p99" "${non2xx:+non-2xx: $non2xx}"
    P50_US=$(to_us "$p50"); P99_US=$(to_us "$p99")
}

# to_us 1.23ms -> 1230: wrk prints latencies with their own unit.
to_us() { echo "$1" | awk '/us$/ {print $1+0} /ms$/ {print $1*1000} /[0-9]s$/ && !/ms$/ && !/us$/ {print $1*1000000}'; }

# paired LABEL URL SCRIPT: ROUNDS alternating runs of the bare route and URL; RATIO is the
# median of the rounds' ratios. Throughput on this shared 2-core machine drifts by +-15% between
# runs seconds apart, so a ratio of two runs next to each other is what stays comparable.
ROUNDS=${ROUNDS:-3}
paired() {
    local label=$1 url=$2 script=$3 ratios=()
    for round in $(seq 1 "$ROUNDS"); do
        run_wrk "  bare hello route" "http://127.0.0.1:$BARE_PORT/hello" "$script"; local bare=$RPS
        run_wrk "  $label" "$url" "$script"
        ratios+=("$(awk -v a="$RPS" -v b="$bare" 'BEGIN {printf "%.3f", a / b}')")
    done
    RATIO=$(printf "%s\n" "${ratios[@]}" | sort -n | awk '{r[NR] = $1} END {print r[int((NR + 1) / 2)]}')
    printf "%-28s %10s   (rounds: %s)\n" "$label / bare, median" "$RATIO" "${ratios[*]}"
}

echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s on loopback, $(nproc) cores"
run_wrk "bare hello route" "http://127.0.0.1:$BARE_PORT/hello"; BARE=$RPS
paired "Swift function swiftHello" "http://127.0.0.1:$HOST_PORT/1.1/functions/swiftHello" scripts/bench/hello.lua; HELLO_RATIO=$RATIO
paired "JS function helloJS" "http://127.0.0.1:$HOST_PORT/1.1/functions/helloJS" scripts/bench/hello.lua; JS_RATIO=$RATIO
CONNECTIONS=1 run_wrk "Swift function swiftHello (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/functions/swiftHello" scripts/bench/hello.lua
SWIFT_P50=$P50_US; SWIFT_P99=$P99_US
CONNECTIONS=1 run_wrk "JS function helloJS (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/functions/helloJS" scripts/bench/hello.lua
JS_P50=$P50_US; JS_P99=$P99_US
run_wrk "object create (no hooks)" "http://127.0.0.1:$HOST_PORT/1.1/classes/Bench" scripts/bench/create.lua; CREATE=$RPS
# functions/js/hooks.js gives Todo a JS beforeSave and afterSave.
run_wrk "create, JS before+afterSave" "http://127.0.0.1:$HOST_PORT/1.1/classes/Todo" scripts/bench/create.lua; HOOKED=$RPS
ID=$(curl -s -X POST -H "X-LC-Id: benchapp" -H "X-LC-Key: benchkey" -H "Content-Type: application/json" \
    -d '{"title":"fetch me"}' "http://127.0.0.1:$HOST_PORT/1.1/classes/Bench" | sed 's/.*"objectId":"\([^"]*\)".*/\1/')
run_wrk "object fetch by id" "http://127.0.0.1:$HOST_PORT/1.1/classes/Bench/$ID" scripts/bench/auth.lua; FETCH=$RPS
SQLITE=$(python3 scripts/bench/sqlite_baseline.py 5)
gcc -O2 -o "$WORK/ipc" scripts/bench/ipc_roundtrip.c
IPC_US=$("$WORK/ipc")
printf "%-28s %10s us (what a worker-process sandbox would add per call, at least)\n" "process hop round trip" "$IPC_US"
printf "%-28s %10.0f inserts/s\n" "plain SQLite insert loop" "$SQLITE"
FIRST_MS=$(python3 scripts/bench/first_call_after_deploy.py "http://127.0.0.1:$HOST_PORT" benchapp benchmaster 10)
printf "%-28s %10s ms (median of 10 deploys, target < 5 ms)\n" "first call after a deploy" "+$FIRST_MS"

BIG=${BIG:-100000}
echo
echo "seeding $BIG objects for the query benchmark..."
python3 scripts/bench/seed_big.py "http://127.0.0.1:$HOST_PORT" "$BIG"
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
Q_EQ="where=$(urlencode '{"k":31337}')"
Q_RANGE="where=$(urlencode '{"score":{"$gte":500,"$lt":510}}')&order=-score,k&limit=20"
Q_IN="where=$(urlencode '{"owner":{"$inQuery":{"className":"Owner","where":{"tier":3}}}}')&limit=20"
for q in "$Q_EQ" "$Q_RANGE" "$Q_IN"; do  # first use creates the expression indexes
    curl -s -H "X-LC-Id: benchapp" -H "X-LC-Key: benchkey" "http://127.0.0.1:$HOST_PORT/1.1/classes/Big?$q" >/dev/null
done
CONNECTIONS=1 run_wrk "equality, indexed (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/classes/Big?$Q_EQ" scripts/bench/auth.lua
CONNECTIONS=1 run_wrk "range+order+limit (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/classes/Big?$Q_RANGE" scripts/bench/auth.lua
CONNECTIONS=1 run_wrk "\$inQuery join (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/classes/Big?$Q_IN" scripts/bench/auth.lua

echo
echo "ratios (same run):"
awk -v c="$CREATE" -v f="$FETCH" -v b="$BARE" -v s="$SQLITE" -v h="$HELLO_RATIO" -v j="$JS_RATIO" -v k="$HOOKED" 'BEGIN {
    printf "  Swift function / bare route  %.2f   (target >= 0.8; median of paired rounds)\n", h
    printf "  JS function    / bare route  %.2f   (target >= 0.5; median of paired rounds)\n", j
    printf "  object create / bare route   %.2f\n", c / b
    printf "  object fetch  / bare route   %.2f\n", f / b
    printf "  object create / SQLite loop  %.2f   (target >= 0.7)\n", c / s
    printf "  create with JS hooks / without  %.2f   (target >= 0.5)\n", k / c
}'
awk -v sp="$SWIFT_P50" -v s9="$SWIFT_P99" -v jp="$JS_P50" -v j9="$JS_P99" 'BEGIN {
    printf "  latency a JS call adds to a Swift call (c=1): p50 %+.0f us, p99 %+.0f us\n", jp - sp, j9 - s9
}'

# Import: a console export of IMPORT_OBJECTS small objects (default 1 000 000), streamed into a
# fresh SQLite database; rate and peak memory (IMPORT_OBJECTS=0 leaves it out).
IMPORT_OBJECTS=${IMPORT_OBJECTS:-1000000}
if [ "$IMPORT_OBJECTS" -gt 0 ]; then
    echo
    echo "import (SQLite):"
    python3 scripts/bench/import.py .build/release/functionhost "$IMPORT_OBJECTS" "$WORK/import"
fi

# PostgreSQL: the same work on the scale-out engine, and two hosts against one (SKIP_POSTGRES=1
# leaves it out).
if [ -z "${SKIP_POSTGRES:-}" ]; then
    source scripts/bench/postgres.sh
fi
