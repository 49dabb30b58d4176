#!/usr/bin/env bash
# Sets up what is missing, then runs every check: formatting, clippy (native
# and wasm32), unused dependencies (cargo machete), native tests, the npm
# package built and tested in Node, wasm-bindgen tests in headless Chromium,
# the release build, the malformed-input set against the release CLI (built
# with the viewer inside), and the end-to-end browser tests against dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/env.sh

step "cargo fmt --check"
cargo fmt --all --check

step "cargo doc for the core, warnings denied (every intra-doc link resolves)"
RUSTDOCFLAGS="-D warnings" cargo doc --offline --no-deps -p agentrisk

step "cargo clippy (native, all targets)"
cargo clippy --offline --workspace --all-targets -- -D warnings

step "cargo clippy (wasm32 viewer)"
cargo clippy --offline --target wasm32-unknown-unknown -p agentrisk-viewer --all-targets -- -D warnings

# Text search over each crate's sources (fast, offline); a dependency it
# cannot see used is listed, with the reason, under its Cargo.toml's
# [package.metadata.cargo-machete] ignored.
step "cargo machete (unused dependencies)"
cargo machete

step "cargo test --workspace (native)"
cargo test --offline --workspace

step "npm package (scripts/package.sh) and its Node tests (tests/js/)"
bash scripts/package.sh
node --test tests/js/

step "wasm-bindgen-test in headless Chromium"
cargo test --offline --target wasm32-unknown-unknown -p agentrisk-viewer --test browser

step "trunk build --release"
trunk build --release --offline

# After the trunk build: the release agentrisk carries the viewer (dist/).
step "malformed-input tests (release agentrisk with the viewer, tests/malformed/)"
cargo build --offline --release -p agentrisk-cli --features viewer
node --test tests/malformed/

step "agentrisk site and pack with the viewer inside (clippy, tests/cli_publish.rs)"
cargo clippy --offline -p agentrisk-cli --features viewer --all-targets -- -D warnings
cargo test --offline -p agentrisk-cli --features viewer --test cli_publish

step "download size: the viewer's wasm (page and worker) within 1.2 MB gzipped (scripts/size.mjs)"
node scripts/size.mjs --no-time

step "end-to-end tests (Playwright + Chromium) against dist/"
node --test tests/e2e/

step "all tests passed"
