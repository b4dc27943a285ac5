#!/usr/bin/env bash
# The LiveQuery scenario with LeanCloud's JS SDK (scenario.js): run by scripts/test.sh after the
# build. Needs Debian's nodejs and node-ws (installed when missing) and the SDK's LiveQuery build
# in the shared conformance kit; skipped, saying so, when the kit isn't there.
set -euo pipefail
cd "$(dirname "$0")/../.."
sdk=${LIVEQUERY_SDK:-../shared/conformance/livequery-js/av-live-query-core.js}
if [ ! -f "$sdk" ]; then
    echo "The LiveQuery JS SDK is not at $sdk: skipped."
    exit 0
fi
bash scripts/setup.sh nodejs node-ws
NODE_PATH=/usr/share/nodejs:/usr/lib/nodejs node scripts/livequery/scenario.js \
    "$(pwd)/${FUNCTIONHOST_BINARY:-.build/debug/functionhost}" "$(cd "$(dirname "$sdk")" && pwd)/$(basename "$sdk")"
