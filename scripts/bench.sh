#!/usr/bin/env bash
# Benchmark: every figure is a ratio to a ceiling measured in the same run on this machine.
#   bare route   = a bare Hummingbird "hello" route (Benchmarks/BareServer), sent the same request
#                  as the route it is compared with (function calls are POSTs with a JSON body)
#   sqlite loop  = a plain in-process SQLite insert loop, one row per transaction
#   floor        = each target's least work on the same stack (Benchmarks/FloorServer: keys
#                  checked, a log line, the body parsed, the call or the insert, a JSON answer,
#                  nothing else), measured beside the host in the same rounds: what any server
#                  built on Hummingbird, GRDB and JavaScriptCore reaches on this machine
# It ends with issue 32's targets, each with its figure and whether it is met; latency is compared
# with scripts/bench/baseline.txt (ratios to the bare route, so another machine can use them).
#   BENCH_BIN=DIR        run the functionhost, BareServer, FloorServer and LiveQueryLoad binaries
#                        in DIR, unbuilt
#   RECORD_BASELINE=1    write this run's latency ratios to the baseline file (BASELINE_COMMIT
#                        names what was measured; the checkout's HEAD unless told)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-32}
BARE_PORT=18181
HOST_PORT=18182
FLOOR_PORT=18183
BASELINE_FILE=scripts/bench/baseline.txt
WORK=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$WORK"' EXIT

if [ -n "${BENCH_BIN:-}" ]; then
    BIN=$BENCH_BIN
else
    BIN=.build/release
    swift build -c release --product functionhost >/dev/null
    swift build -c release --product BareServer >/dev/null
    swift build -c release --product FloorServer >/dev/null
    swift build -c release --product LiveQueryLoad >/dev/null
fi

# The host runs at its default log level (info: one line per request), as it is deployed: the
# Swift function's target is stated with the request log on. LOG_LEVEL from the caller's
# environment is not passed on.
serve() {
    local port=$1; shift
    # exec: the background job is the server itself, so the exit trap's kill reaches it.
    exec env -u LOG_LEVEL LEANCLOUD_APP_ID=benchapp LEANCLOUD_APP_KEY=benchkey LEANCLOUD_APP_MASTER_KEY=benchmaster \
        LEANCLOUD_APP_HOOK_KEY=benchhook "$BIN/functionhost" serve --host 127.0.0.1 --port "$port" \
        --functions ./functions --connections-per-address 4096 "$@"
}

# A server left on a port (an interrupted run's) would answer in place of this run's.
port_free() { ! curl -s -o /dev/null "http://127.0.0.1:$1/" || { echo "port $1 is in use: stop what listens there first"; exit 1; }; }
port_free $BARE_PORT; port_free $HOST_PORT; port_free $FLOOR_PORT
"$BIN/BareServer" $BARE_PORT >"$WORK/bare.log" 2>&1 &
mkdir -p "$WORK/floor"
"$BIN/FloorServer" $FLOOR_PORT "$WORK/floor" >"$WORK/floor.log" 2>&1 &
serve $HOST_PORT --data-dir "$WORK/data" >"$WORK/host.log" 2>&1 &

# wait_for URL [CURL ARGUMENTS...]: until URL answers 2xx to the request the arguments make.
wait_for() {
    local url=$1; shift
    for _ in $(seq 1 100); do curl -sf "$@" "$url" >/dev/null 2>&1 && return 0; sleep 0.1; done
    echo "not ready: $url"; exit 1
}
wait_for "http://127.0.0.1:$BARE_PORT/hello"
wait_for "http://127.0.0.1:$FLOOR_PORT/1.1/functions/swiftHello" -X POST -H "X-LC-Id: benchapp" -H "X-LC-Key: benchkey" -d '{}'
wait_for "http://127.0.0.1:$HOST_PORT/__engine/1/ping"

# rps LABEL URL [LUA]: runs wrk, prints a line, returns requests/s in $RPS and the latency
# percentiles in $P50_US and $P99_US.
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

median() { printf "%s\n" "$@" | sort -g | awk '{r[NR] = $1} END {print r[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# paired SCRIPT KEY LABEL URL [KEY LABEL URL ...]: ROUNDS rounds, each a run of the bare route
# then one of every target, all sent the same request (SCRIPT). Throughput on this shared 2-core
# machine drifts by +-15% between runs seconds apart, so ratios of runs next to each other are
# what stays comparable. For each KEY: RATIO[KEY] is the median of the rounds' throughput ratios
# to the bare route, L50[KEY] and L99[KEY] the medians of their p50 and p99 latency ratios,
# MEDIAN_RPS[KEY] the median requests/s.
ROUNDS=${ROUNDS:-3}
declare -A RATIO L50 L99 MEDIAN_RPS ROUND_RATIOS
paired() {
    local script=$1; shift
    local -A rounds l50s l99s rpss
    local round key bare bare50 bare99
    for round in $(seq 1 "$ROUNDS"); do
        run_wrk "  bare hello route" "http://127.0.0.1:$BARE_PORT/hello" "$script"
        bare=$RPS; bare50=$P50_US; bare99=$P99_US
        local args=("$@") i
        for ((i = 0; i < ${#args[@]}; i += 3)); do
            key=${args[i]}
            run_wrk "  ${args[i + 1]}" "${args[i + 2]}" "$script"
            rounds[$key]+="$(ratio "$RPS" "$bare") "
            l50s[$key]+="$(ratio "$P50_US" "$bare50") "
            l99s[$key]+="$(ratio "$P99_US" "$bare99") "
            rpss[$key]+="$RPS "
        done
    done
    local args=("$@") i
    for ((i = 0; i < ${#args[@]}; i += 3)); do
        key=${args[i]}
        # shellcheck disable=SC2086 # the lists are space-separated numbers
        RATIO[$key]=$(median ${rounds[$key]}); L50[$key]=$(median ${l50s[$key]}); L99[$key]=$(median ${l99s[$key]})
        # shellcheck disable=SC2086
        MEDIAN_RPS[$key]=$(median ${rpss[$key]})
        ROUND_RATIOS[$key]=${rounds[$key]% }
        printf "%-28s %10s   (rounds: %s)\n" "${args[i + 1]} / bare, median" "${RATIO[$key]}" "${rounds[$key]% }"
    done
}

echo "wrk -t2 -c$CONNECTIONS -d${DURATION}s on loopback, $(nproc) cores; the host logs at its default level (info, one line per request)"
run_wrk "bare hello route" "http://127.0.0.1:$BARE_PORT/hello"; BARE=$RPS
paired scripts/bench/hello.lua swift "Swift function swiftHello" "http://127.0.0.1:$HOST_PORT/1.1/functions/swiftHello" \
    floor_swift "floor: Swift function" "http://127.0.0.1:$FLOOR_PORT/1.1/functions/swiftHello"
# The host's edge alone: an authenticated GET /1.1/date (router, keys, CORS, request log and
# metrics, the answer) and no other work: the most any authenticated route reaches here.
paired scripts/bench/auth.lua edge "authenticated GET /1.1/date" "http://127.0.0.1:$HOST_PORT/1.1/date"
EDGE_RATIO=${RATIO[edge]}
paired scripts/bench/hello.lua js "JS function helloJS" "http://127.0.0.1:$HOST_PORT/1.1/functions/helloJS" \
    floor_js "floor: JS function" "http://127.0.0.1:$FLOOR_PORT/1.1/functions/helloJS"
HELLO_RATIO=${RATIO[swift]}; JS_RATIO=${RATIO[js]}
CONNECTIONS=1 run_wrk "Swift function swiftHello (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/functions/swiftHello" scripts/bench/hello.lua
SWIFT_P50=$P50_US; SWIFT_P99=$P99_US
CONNECTIONS=1 run_wrk "JS function helloJS (c=1)" "http://127.0.0.1:$HOST_PORT/1.1/functions/helloJS" scripts/bench/hello.lua
JS_P50=$P50_US; JS_P99=$P99_US
# functions/js/hooks.js gives Todo a JS beforeSave and afterSave; each round sends the same
# object to the bare route, to a class without hooks and to Todo.
paired scripts/bench/create.lua create "object create (no hooks)" "http://127.0.0.1:$HOST_PORT/1.1/classes/Bench" \
    hooked "create, JS before+afterSave" "http://127.0.0.1:$HOST_PORT/1.1/classes/Todo" \
    floor_create "floor: create" "http://127.0.0.1:$FLOOR_PORT/1.1/classes/Bench" \
    floor_hooked "floor: create, JS hooks" "http://127.0.0.1:$FLOOR_PORT/1.1/classes/Todo"
CREATE=${MEDIAN_RPS[create]}; HOOKED=${MEDIAN_RPS[hooked]}
# per_round A B: the median over the rounds of A's throughput over B's in the same round.
per_round() {
    median $(paste -d' ' <(tr ' ' '\n' <<<"${ROUND_RATIOS[$1]}") <(tr ' ' '\n' <<<"${ROUND_RATIOS[$2]}") \
        | awk '{printf "%.3f\n", $1 / $2}')
}
# The hooks' cost: in each round, the hooked create's throughput over the plain create's.
HOOK_RATIO=$(per_round hooked create)
FLOOR_HOOK_RATIO=$(per_round floor_hooked floor_create)
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

# Full-text search: the indexing rate with search on and off, and query p50/p99 over
# SEARCH_DOCS documents of Chinese and English text (default 100 000; SEARCH_DOCS=0 leaves it out).
SEARCH_DOCS=${SEARCH_DOCS:-100000}
if [ "$SEARCH_DOCS" -gt 0 ]; then
    echo
    python3 scripts/bench/search.py "http://127.0.0.1:$HOST_PORT" SQLite "$SEARCH_DOCS"
fi

# The Cloud Queue: tasks/s through it and due-to-start p50/p99 (QUEUE_TASKS=0 leaves it out).
QUEUE_TASKS=${QUEUE_TASKS:-2000}
if [ "$QUEUE_TASKS" -gt 0 ]; then
    echo
    python3 scripts/bench/queue.py "http://127.0.0.1:$HOST_PORT" SQLite "$QUEUE_TASKS"
fi

echo
echo "ratios (same run):"
awk -v c="$CREATE" -v f="$FETCH" -v b="$BARE" -v s="$SQLITE" -v h="$HELLO_RATIO" -v j="$JS_RATIO" -v hr="$HOOK_RATIO" 'BEGIN {
    printf "  Swift function / bare route  %.2f   (median of paired rounds)\n", h
    printf "  JS function    / bare route  %.2f   (median of paired rounds)\n", j
    printf "  object create / bare route   %.2f\n", c / b
    printf "  object fetch  / bare route   %.2f\n", f / b
    printf "  object create / SQLite loop  %.2f\n", c / s
    printf "  create with JS hooks / without  %.2f   (median of paired rounds)\n", hr
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
    python3 scripts/bench/import.py "$BIN/functionhost" "$IMPORT_OBJECTS" "$WORK/import"
fi

# LiveQuery: LQ_SUBSCRIBERS realtime clients (a socket each, logged in and subscribed to one
# query) hear LQ_WRITES creates made over REST one after another. Events/s is every event delivered
# over the time from the first write sent to the last event heard; the delay is from a write's
# send to an event's arrival, beside the create's own round trip (what delivery adds is the
# difference). LQ_SUBSCRIBERS=0 leaves it out.
LQ_SUBSCRIBERS=${LQ_SUBSCRIBERS:-1000}
LQ_WRITES=${LQ_WRITES:-50}
livequery_load() {
    # Back to back: events/s. Then 20 writes 200 ms apart: the delay on a host that isn't behind.
    # With the master key: one client address holds at most 1 000 app-key subscriptions, and the
    # first run's stay for an hour.
    "$BIN/LiveQueryLoad" "$1" "$2" benchapp benchmaster,master "$LQ_SUBSCRIBERS" "$LQ_WRITES" 0 | sed 's/^/  /' || echo "  (LiveQuery load failed)"
    "$BIN/LiveQueryLoad" "$1" "$2" benchapp benchmaster,master "$LQ_SUBSCRIBERS" 20 200 | sed 's/^/  /' || echo "  (LiveQuery load failed)"
}
if [ "$LQ_SUBSCRIBERS" -gt 0 ]; then
    echo
    echo "LiveQuery, one host (SQLite), $LQ_SUBSCRIBERS subscribers, $LQ_WRITES writes:"
    livequery_load "http://127.0.0.1:$HOST_PORT" "http://127.0.0.1:$HOST_PORT"
fi

# PostgreSQL: the same work on the scale-out engine, and two hosts against one (SKIP_POSTGRES=1
# leaves it out).
if [ -z "${SKIP_POSTGRES:-}" ]; then
    source scripts/bench/postgres.sh
fi

# Issue 32's targets, each with its figure and whether it is met. Throughput: medians of the
# paired rounds above. Latency at $CONNECTIONS connections: each target's p50 and p99 over the bare
# route's in the same round (machines differ; the ratio travels), no worse than the baseline's.
echo
echo "targets (issue 32), same run:"
verdict() { awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { met = (op == ">=") ? a >= b : a <= b; print (met ? "met" : "NOT met") }'; }
# target LABEL FIGURE OP TARGET [FLOOR]: with FLOOR, the same figure of the floor server, and
# whether the target is within what the floor reaches.
target() {
    local floor=""
    if [ -n "${5:-}" ]; then
        floor=$(awk -v f="$5" -v op="$3" -v b="$4" \
            'BEGIN { ok = (op == ">=") ? f >= b : f <= b; printf "   floor %5.2f (%s)", f, ok ? "within reach" : "beyond the floor" }')
    fi
    awk -v l="$1" -v a="$2" -v op="$3" -v b="$4" -v v="$(verdict "$2" "$3" "$4")" -v f="$floor" \
        'BEGIN {printf "  %-44s %6.2f   target %s %5.2f   %-7s%s\n", l, a, op, b, v, f}'
}
target "Swift function / bare route (log: info)" "$HELLO_RATIO" ">=" 0.85 "${RATIO[floor_swift]}"
target "JS function / bare route" "$JS_RATIO" ">=" 0.6 "${RATIO[floor_js]}"
target "create with JS before+afterSave / create" "$HOOK_RATIO" ">=" 0.75 "$FLOOR_HOOK_RATIO"
target "object create / SQLite insert loop" "$(ratio "$CREATE" "$SQLITE")" ">=" 0.7 "$(ratio "${MEDIAN_RPS[floor_create]}" "$SQLITE")"
printf "  %-44s %6.2f   (no target: the ceiling of any authenticated route in this run)\n" "authenticated GET /1.1/date / bare route" "$EDGE_RATIO"
baseline() { [ -f "$BASELINE_FILE" ] && awk -v k="$1" '$1 == k {print $2}' "$BASELINE_FILE"; }
if [ -f "$BASELINE_FILE" ]; then
    echo "  latency at c=$CONNECTIONS / the bare route's, no worse than $BASELINE_FILE ($(awk -F': ' '/^# commit:/ {c=$2} /^# machine:/ {m=$2} END {print "commit " c ", " m}' "$BASELINE_FILE")):"
fi
for key in swift js create hooked; do
    case $key in
        swift) label="Swift function" ;; js) label="JS function" ;; create) label="object create" ;; hooked) label="create with JS hooks" ;;
    esac
    for p in 50 99; do
        if [ "$p" = 50 ]; then figure=${L50[$key]}; else figure=${L99[$key]}; fi
        before=$(baseline "${key}_p$p" || true)
        if [ -n "$before" ]; then
            target "  $label p$p" "$figure" "<=" "$before"
        else
            printf "  %-44s %6.2f   (no baseline)\n" "  $label p$p" "$figure"
        fi
    done
done

if [ -n "${RECORD_BASELINE:-}" ]; then
    {
        echo "# Latency at $CONNECTIONS connections of each of issue 32's targets, as a ratio to the bare route's p50"
        echo "# and p99 in the same round (median of paired rounds): what scripts/bench.sh compares a run with."
        echo "# Written by RECORD_BASELINE=1 scripts/bench.sh; the host logged at its default level (info)."
        echo "# commit: ${BASELINE_COMMIT:-$(git rev-parse --short HEAD)}"
        echo "# machine: $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(nproc) cores, $(uname -sr)"
        echo "# date: $(date -u +%Y-%m-%dT%H:%MZ)"
        echo "# run: DURATION=$DURATION ROUNDS=$ROUNDS CONNECTIONS=$CONNECTIONS"
        echo "# throughput in that run (for reference): swift $HELLO_RATIO, js $JS_RATIO of the bare route; hooked create $HOOK_RATIO of create; create $(ratio "$CREATE" "$SQLITE") of the SQLite loop"
        for key in swift js create hooked; do
            echo "${key}_p50 ${L50[$key]}"
            echo "${key}_p99 ${L99[$key]}"
        done
    } >"$BASELINE_FILE"
    echo "baseline written to $BASELINE_FILE"
fi
