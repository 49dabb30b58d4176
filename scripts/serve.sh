#!/usr/bin/env bash
# Sets up what is missing, builds the release site into dist/ and the release
# `agentrisk` with the viewer inside (target/release/agentrisk, for
# `agentrisk site` and `agentrisk pack`; scripts/build-cli.sh), and serves
# dist/ on http://127.0.0.1:8080 (PORT=... to change). Ctrl-C stops the server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-cli.sh
source scripts/env.sh

step "serve dist/"
echo "Open http://127.0.0.1:${PORT:-8080}/ and click \"Load example\"."
exec node tests/e2e/serve.mjs dist "${PORT:-8080}"
