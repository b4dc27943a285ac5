# FunctionHost: `make run` serves on the embedded SQLite storage, `make test` runs every test.
PORT ?= 3000
DATA ?= ./data

.PHONY: run test bench build setup

setup:
	@bash scripts/setup.sh

build: setup
	swift build -c release --product functionhost

run: build
	.build/release/functionhost serve --port $(PORT) --data-dir $(DATA) --functions ./functions

# The executable is built with the tests: the CLI tests run it against a live server.
# Serial: every end-to-end test starts its own server, and dozens of them at once on two cores
# starve each other past the HTTP client's timeouts.
test: setup
	swift build --build-tests
	swift test --skip-build --no-parallel

bench: setup
	@bash scripts/setup.sh wrk
	@bash scripts/bench.sh
