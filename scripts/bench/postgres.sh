# Sourced by scripts/bench.sh (uses its run_wrk, serve, port_free, BIN, WORK and HOST_PORT): object create, an
# indexed query and a function call on PostgreSQL, as ratios to the same on SQLite measured in the
# same run; then two hosts on one PostgreSQL against one.
PG_DIR="$WORK/pg"
PG_URL=$(bash scripts/postgres.sh start "$PG_DIR")
trap 'kill $(jobs -p) 2>/dev/null || true; bash scripts/postgres.sh stop "$PG_DIR"; rm -rf "$WORK"' EXIT
PG_A=18183
PG_B=18184
for port in $PG_A $PG_B; do
    port_free $port
    serve $port --data-dir "$WORK/pg-data-$port" --database "$PG_URL" >"$WORK/pg-host-$port.log" 2>&1 &
    wait_for "http://127.0.0.1:$port/__engine/1/ping"
done

echo
echo "PostgreSQL ($(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1 | cut -d/ -f5)) vs SQLite, one host each:"
echo "seeding the same $BIG objects..."
python3 scripts/bench/seed_big.py "http://127.0.0.1:$PG_A" "$BIG" >/dev/null
Q_SMALL=$Q_EQ
curl -s -H "X-LC-Id: benchapp" -H "X-LC-Key: benchkey" "http://127.0.0.1:$PG_A/1.1/classes/Big?$Q_SMALL" >/dev/null
run_wrk "SQLite: object create" "http://127.0.0.1:$HOST_PORT/1.1/classes/Bench" scripts/bench/create.lua; S_CREATE=$RPS
run_wrk "PostgreSQL: object create" "http://127.0.0.1:$PG_A/1.1/classes/Bench" scripts/bench/create.lua; P_CREATE=$RPS
run_wrk "SQLite: indexed equality" "http://127.0.0.1:$HOST_PORT/1.1/classes/Big?$Q_EQ" scripts/bench/auth.lua; S_QUERY=$RPS
run_wrk "PostgreSQL: indexed equality" "http://127.0.0.1:$PG_A/1.1/classes/Big?$Q_SMALL" scripts/bench/auth.lua; P_QUERY=$RPS
CONNECTIONS=1 run_wrk "PostgreSQL: equality (c=1)" "http://127.0.0.1:$PG_A/1.1/classes/Big?$Q_SMALL" scripts/bench/auth.lua
run_wrk "SQLite: Swift function" "http://127.0.0.1:$HOST_PORT/1.1/functions/swiftHello" scripts/bench/hello.lua; S_HELLO=$RPS
run_wrk "PostgreSQL: Swift function" "http://127.0.0.1:$PG_A/1.1/functions/swiftHello" scripts/bench/hello.lua; P_HELLO=$RPS

if [ "$QUEUE_TASKS" -gt 0 ]; then
    python3 scripts/bench/queue.py "http://127.0.0.1:$PG_A" "PostgreSQL, two hosts running tasks" "$QUEUE_TASKS"
fi

# Two hosts: two wrk processes at once, half the connections each, requests/s summed.
both() {
    local path=$1 script=$2 half=$((CONNECTIONS / 2))
    wrk -t1 -c$half -d"${DURATION}s" -s "$script" "http://127.0.0.1:$PG_A$path" >"$WORK/wrk-a" &
    wrk -t1 -c$half -d"${DURATION}s" -s "$script" "http://127.0.0.1:$PG_B$path" >"$WORK/wrk-b"
    wait %%
    BOTH=$(cat "$WORK/wrk-a" "$WORK/wrk-b" | awk '/Requests\/sec/ {s += $2} END {print s}')
    printf "%-28s %10.0f req/s\n" "  two hosts: $path" "$BOTH"
}
echo "two hosts on one PostgreSQL (the same $(nproc) cores) vs one:"
both /1.1/classes/Bench scripts/bench/create.lua; TWO_CREATE=$BOTH
both "/1.1/classes/Big?$Q_SMALL" scripts/bench/auth.lua; TWO_QUERY=$BOTH

# LiveQuery across two hosts: two more hosts on the database, with --livequery-across-hosts (the
# default; the hosts above have it too, and announce none of their writes: no host watches Bench).
if [ "$LQ_SUBSCRIBERS" -gt 0 ]; then
    LQ_A=18185
    LQ_B=18186
    for port in $LQ_A $LQ_B; do
        port_free $port
        serve $port --data-dir "$WORK/pg-lq-$port" --database "$PG_URL?schema=bench_livequery" --livequery-across-hosts \
            >"$WORK/pg-lq-$port.log" 2>&1 &
        wait_for "http://127.0.0.1:$port/__engine/1/ping"
    done
    echo "LiveQuery, two hosts on one PostgreSQL: $LQ_SUBSCRIBERS subscribers on one, $LQ_WRITES writes on the other:"
    livequery_load "http://127.0.0.1:$LQ_B" "http://127.0.0.1:$LQ_A"
fi

echo
echo "PostgreSQL ratios (same run):"
awk -v sc="$S_CREATE" -v pc="$P_CREATE" -v sq="$S_QUERY" -v pq="$P_QUERY" -v sh="$S_HELLO" -v ph="$P_HELLO" \
    -v tc="$TWO_CREATE" -v tq="$TWO_QUERY" 'BEGIN {
    printf "  object create:    PostgreSQL / SQLite  %.2f\n", pc / sc
    printf "  indexed equality: PostgreSQL / SQLite  %.2f\n", pq / sq
    printf "  Swift function:   PostgreSQL / SQLite  %.2f\n", ph / sh
    printf "  object create:    two hosts / one      %.2f\n", tc / pc
    printf "  indexed equality: two hosts / one      %.2f\n", tq / pq
}'

if [ "$SEARCH_DOCS" -gt 0 ]; then
    echo
    python3 scripts/bench/search.py "http://127.0.0.1:$PG_A" PostgreSQL "$SEARCH_DOCS"
fi

if [ "$IMPORT_OBJECTS" -gt 0 ]; then
    echo
    echo "import (PostgreSQL):"
    python3 scripts/bench/import.py "$BIN/functionhost" "$IMPORT_OBJECTS" "$WORK/pg-import" \
        --database "$PG_URL?schema=bench_import"
fi
