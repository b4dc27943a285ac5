#!/usr/bin/env bash
# Builds and runs the bridge micro-benchmark (release, with the JSON module's own sources), by hand.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${TMPDIR:-/tmp}/bridge-bench
flags=$(pkg-config --cflags-only-I javascriptcoregtk-4.1 | sed 's/-I/-Xcc -I/g')
# shellcheck disable=SC2086
swiftc -O -module-name BridgeBench Sources/JSON/*.swift Benchmarks/Bridge/main.swift \
    -I Sources/CJavaScriptCore $flags -o "$out"
"$out"
