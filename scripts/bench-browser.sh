#!/usr/bin/env bash
# The browser benchmark: builds the release site and the CLI, generates
# synthetic traces of about 1, 21 and 100 MB (agentrisk-bench), and times
# each in headless Chromium (scripts/bench-browser.mjs). EVENTS=... picks
# other event counts (comma-separated).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh

step "trunk build --release"
trunk build --release --offline

step "cargo build --release (agentrisk, agentrisk-bench)"
cargo build --offline --release -p agentrisk-cli --bins

step "generate traces"
dir=target/bench-traces
./target/release/agentrisk-bench --write "$dir" --generate-only --sizes "${EVENTS:-5000,105000,502000}"

step "time them in Chromium"
files=()
IFS=, read -ra counts <<< "${EVENTS:-5000,105000,502000}"
for n in "${counts[@]}"; do files+=("$dir/bench_${n}.json"); done
node scripts/bench-browser.mjs "${files[@]}"
