# FunctionHost: `make run` serves on the embedded SQLite storage (DATABASE_URL=postgres://... for
# PostgreSQL), `make test` runs every test on SQLite and the end-to-end tests on PostgreSQL too.
PORT ?= 3000
DATA ?= ./data

.PHONY: run test bench build setup reliability

setup:
	@bash scripts/setup.sh

build: setup
	swift build -c release --product functionhost

run: build
	.build/release/functionhost serve --port $(PORT) --data-dir $(DATA) --functions ./functions

# The executable is built with the tests: the CLI tests run it against a live server. Every test
# runs on SQLite, in parallel, then the tests that reach a database again on a PostgreSQL server
# the script starts (FUNCTIONHOST_TEST_WIDTH=N: how many tests at once, 8 unless told).
test: setup
	@bash scripts/test.sh

bench: setup
	@bash scripts/setup.sh wrk
	@bash scripts/bench.sh

# The reliability suite at full length (make test runs it shorter): kill -9 under load, hostile
# scripts and a soak, and schemathesis over /openapi.json.
reliability: setup
	swift build --product functionhost
	@bash scripts/setup.sh stress-ng
	python3 scripts/reliability/crash.py .build/debug/functionhost --rounds 10
	python3 scripts/reliability/soak.py .build/debug/functionhost --seconds 60
	bash scripts/reliability/fuzz.sh .build/debug/functionhost 25 300
