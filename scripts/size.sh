#!/usr/bin/env bash
# Prints the size of the viewer's wasm in dist/ (raw and gzip -9; the page
# and its worker run the same binary), and the time to an interactive empty page
# served locally (median of 5 runs in headless Chromium); exits 1 when the
# gzipped total exceeds 1.2 MB. Uses the dist/ already built unless --build
# is given first, which runs `trunk build --release --offline` before.
# Every other argument goes to scripts/size.mjs (--runs N, --mbps N,
# --budget BYTES, --no-time, --dist DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

if [ "${1:-}" = "--build" ]; then
  shift
  step "trunk build --release"
  trunk build --release --offline
fi

step "wasm sizes and time to interactive"
node scripts/size.mjs "$@"
