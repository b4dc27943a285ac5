#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests and the benchmark: installs PostgreSQL from
# Debian's packages when missing, creates a cluster in a temp directory owned by the `postgres`
# user (the server refuses to run as root), and starts it on a free loopback port.
#
#   scripts/postgres.sh start DIR   prints the URL (postgres://postgres@127.0.0.1:PORT/functionhost)
#   scripts/postgres.sh stop DIR    stops it and removes DIR
set -euo pipefail
action=${1:?start|stop}
dir=${2:?directory}

bindir() {
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    echo "$found"
}

case "$action" in
start)
    if [ -z "$(bindir)" ]; then
        bash "$(dirname "$0")/setup.sh" postgresql >&2
    fi
    bin=$(bindir)
    # The Debian package creates the user; a bare machine without it gets one here.
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql postgres
    mkdir -p "$dir"
    chown postgres "$dir"
    # The server's user must reach the directory (a mktemp parent is private to root).
    chmod o+x "$(dirname "$dir")"
    run() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
    run "$bin/initdb" -D "$dir/cluster" -U postgres --auth=trust --locale=C.UTF-8 -E UTF8 >"$dir/initdb.log" 2>&1
    # A free port: the kernel picks one for a socket we close at once.
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
    run "$bin/pg_ctl" -D "$dir/cluster" -l "$dir/server.log" -w -t 60 start \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=on" >/dev/null
    run "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres functionhost
    echo "postgres://postgres@127.0.0.1:$port/functionhost"
    ;;
stop)
    bin=$(bindir)
    # Immediate: the cluster is removed next, so the shutdown checkpoint's writes would be wasted.
    if [ -d "$dir/cluster" ]; then
        if [ "$(id -u)" -eq 0 ]; then
            runuser -u postgres -- "$bin/pg_ctl" -D "$dir/cluster" -m immediate -w stop >/dev/null 2>&1 || true
        else
            "$bin/pg_ctl" -D "$dir/cluster" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: $0 start|stop DIR" >&2
    exit 2
    ;;
esac
