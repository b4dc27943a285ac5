#!/usr/bin/env bash
# The whole test suite: every test on the embedded SQLite storage, then the tests that reach a
# database (and the PostgreSQL engine's own) again on PostgreSQL. A PostgreSQL server is started
# for the second pass unless FUNCTIONHOST_TEST_DATABASE_URL names one already.
set -euo pipefail
cd "$(dirname "$0")/.."
# The sandbox's own JavaScript is embedded in the binary: a syntax error in it fails the run here,
# before anything is built (Debian's nodejs, installed when missing).
echo "== node --check on the sandbox's JavaScript"
bash scripts/setup.sh nodejs
for file in Sources/Sandbox/JavaScript/*.js; do node --check "$file"; done
swift build --build-tests
# libvips sets VIPSHOME in the environment when it starts (at a test's first thumbnail) unless it
# is set already, while other tests spawn processes, whose spawn reads the environment: a crash
# in Foundation's Process.run. Set to what libvips would find, it is only read. (The server
# starts libvips before it spawns anything.)
export VIPSHOME=${VIPSHOME:-$(pkg-config --variable=prefix vips 2>/dev/null || echo /usr)}
# The engine tests' LeanEngine apps run on LeanCloud's Python SDK (PyPI, pinned): its venv is made
# once here, so no test waits on pip.
echo "== The Python LeanEngine apps' venv (scripts/leanengine-python.sh)"
bash scripts/leanengine-python.sh --prepare
# The file tests' S3-compatible server is moto's server mode (PyPI, pinned): its venv too.
echo "== The S3 test server's venv (scripts/s3-server.sh)"
bash scripts/s3-server.sh --prepare

# Tests run in parallel: HTTP-level tests reach their server in process (no port, no socket), each
# on its own data directory or PostgreSQL schema. How many at once: more than the cores, since
# most of a test is waiting on storage, JavaScript workers or child processes; bounded, so the
# tests with deadlines inside (hooks, scripts, outbound calls) keep their margins on two cores.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=${FUNCTIONHOST_TEST_WIDTH:-8}
# Measured on the whole process's memory, so alone (see FileMemoryTests; ThumbnailMemoryTests reads
# libvips' process-wide high-water mark).
alone="FileMemoryTests|ThumbnailMemoryTests"

echo "== Every test, on SQLite"
env -u FUNCTIONHOST_TEST_DATABASE_URL swift test --skip-build --skip "$alone"
echo "== A 200 MB file through the server and an 8000×8000 thumbnail, their memory measured with no other test running"
env -u FUNCTIONHOST_TEST_DATABASE_URL swift test --skip-build --filter "$alone"

# A real client: the official LeanCloud JavaScript SDK's own suite, every in-scope test.
echo "== The official LeanCloud JavaScript SDK's test suite, on SQLite"
bash scripts/conformance.sh
# LiveQuery with a real client: the JS SDK's LiveQuery build, each event kind, login, and a
# reconnect after the server restarts.
echo "== LiveQuery with LeanCloud's JS SDK, on SQLite"
bash scripts/livequery/run.sh

# Crash safety: writes under load, kill -9 at random moments, every acknowledged write found.
echo "== kill -9 under load, on SQLite"
python3 scripts/reliability/crash.py .build/debug/functionhost --rounds 5
# The Cloud Queue across a crash: the task of a host killed mid-run completes after its restart.
echo "== kill -9 mid-task, the Cloud Queue, on SQLite"
python3 scripts/reliability/queue_crash.py .build/debug/functionhost
echo "== hostile scripts under load and CPU contention, and a soak (memory and open files), on SQLite"
# The soak keeps every CPU busy with stress-ng while scripts loop: installed when missing.
bash scripts/setup.sh stress-ng
python3 scripts/reliability/soak.py .build/debug/functionhost --seconds 10 --phase-seconds 3
echo "== fuzzing every operation of /openapi.json (schemathesis), on SQLite"
bash scripts/reliability/fuzz.sh .build/debug/functionhost 10 120

url=${FUNCTIONHOST_TEST_DATABASE_URL:-}
if [ -z "$url" ]; then
    dir=$(mktemp -d)
    trap 'bash scripts/postgres.sh stop "$dir/pg"; rm -rf "$dir"' EXIT
    url=$(bash scripts/postgres.sh start "$dir/pg")
fi
# The suites left out never open the tests' database, so they would only run again on SQLite:
# unit tests of byte ranges and the console log, JavaScript data operations on a SQLite file of
# their own, child `functionhost serve` processes (their database is their --data-dir's), and the
# memory of streaming a file, which the storage doesn't change.
sqlite_only="ByteRangeTests|ConsoleLogHandlerTests|ScriptDataOperationsTests|EdgeServeTests|StartupBannerTests|ShutdownTests|$alone"
echo "== End-to-end and storage tests, on PostgreSQL ($url)"
FUNCTIONHOST_TEST_DATABASE_URL=$url swift test --skip-build \
    --filter "FunctionHostTests|StorageEngineTests|AccessPropertyTests|SearchEngine|PostgresSearch|CloudQueueTests|LeaderboardsTests" --skip "$sqlite_only"
echo "== kill -9 under load, on PostgreSQL"
separator="?"; [[ "$url" == *"?"* ]] && separator="&"
# A schema of its own each run: the checks read every object of their classes, and a database
# kept from an earlier run (FUNCTIONHOST_TEST_DATABASE_URL) would hold that run's objects too.
python3 scripts/reliability/crash.py .build/debug/functionhost --rounds 3 --database "${url}${separator}schema=crash_$$"
echo "== kill -9 mid-task, the Cloud Queue, two hosts on PostgreSQL"
python3 scripts/reliability/queue_crash.py .build/debug/functionhost --database "${url}${separator}schema=queue_crash_$$"
