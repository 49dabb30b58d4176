#!/usr/bin/env bash
# Profiles the page's analysis worker on one file (scripts/profile-worker.mjs)
# against a release site built with the wasm's function names kept (wasm-opt
# -g; otherwise the same build as `trunk build --release`), in
# target/profile-dist. The profile is written to target/worker.cpuprofile.
#
#   bash scripts/profile-worker.sh FILE.json
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: bash scripts/profile-worker.sh FILE.json" >&2; exit 2; }
bash scripts/setup.sh
source scripts/env.sh

step "trunk build --release, wasm names kept"
# Trunk reads the wasm-opt flags from the page's link, and resolves the
# page's paths from its folder: a copy beside index.html, removed after.
page=index.profile.html
trap 'rm -f "$page"' EXIT
sed 's|data-wasm-opt-params="|data-wasm-opt-params="-g |' index.html > "$page"
grep -q 'data-wasm-opt-params="-g ' "$page" || { echo "index.html's rust link changed; update this script" >&2; exit 1; }
trunk build --release --offline --dist target/profile-dist "$page"

step "profile the worker"
node scripts/profile-worker.mjs target/profile-dist "$1" target/worker.cpuprofile
