#!/usr/bin/env bash
# Installs whatever is missing to build and test AgentRisk Viewer on a
# Debian 12 machine with Rust via rustup (see ../shared/toolchain.md for why
# each tool and version). Idempotent: a second run only checks.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

step "rust target wasm32-unknown-unknown"
if rustup target list --installed | grep -qx wasm32-unknown-unknown; then echo "present"; else
  rustup target add wasm32-unknown-unknown
fi

step "Debian chromium + chromium-driver, poppler-utils (print tests), python3, node + npm"
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
[ -x /usr/bin/pdftotext ] || missing+=(poppler-utils)
# The publishing tests serve a site with Python's plain http.server.
command -v python3 >/dev/null || missing+=(python3)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -eq 0 ]; then echo "present"; else
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

step "trunk $TRUNK_VERSION"
if trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then echo "present"; else
  # Trunk's own release profile is fat LTO with one codegen unit; turning
  # that off saves minutes and changes nothing in what it builds.
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked
fi

step "wasm-bindgen-cli (same version as the wasm-bindgen crate)"
wb_version=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
[ -n "$wb_version" ] || { echo "cannot find the wasm-bindgen version in Cargo.lock" >&2; exit 1; }
if wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wb_version"; then echo "present ($wb_version)"; else
  # Without --locked: its lock file names crate versions this registry lacks.
  cargo install wasm-bindgen-cli --version "$wb_version"
fi

step "cargo-machete $MACHETE_VERSION (unused dependencies, run by test.sh)"
if cargo machete --version 2>/dev/null | grep -qx "$MACHETE_VERSION"; then echo "present"; else
  cargo install cargo-machete --version "$MACHETE_VERSION" --locked
fi

step "npm tools (binaryen wasm-opt, playwright-core, axe-core)"
if [ -x node_modules/.bin/wasm-opt ] && [ -f node_modules/.stamp ] && [ ! package-lock.json -nt node_modules/.stamp ]; then
  echo "present"
else
  npm ci --no-audit --no-fund
  touch node_modules/.stamp
fi
wasm-opt --version | grep -q 'version 132' || { echo "wasm-opt on PATH is not binaryen 132" >&2; exit 1; }

step "cargo fetch (so every later build can run --offline)"
cargo fetch --locked

step "setup done"
