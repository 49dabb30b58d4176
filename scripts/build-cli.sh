#!/usr/bin/env bash
# Builds the release viewer into dist/, then the release `agentrisk` with
# the viewer inside it (feature `viewer`), so `agentrisk site` and
# `agentrisk pack` need no other file: target/release/agentrisk.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

step "trunk build --release"
trunk build --release --offline

step "cargo build --release -p agentrisk-cli --features viewer"
cargo build --offline --release -p agentrisk-cli --features viewer
echo "Built target/release/agentrisk (with the viewer)."
