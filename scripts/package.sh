#!/usr/bin/env bash
# Builds the npm package `agentrisk` (the core for JavaScript) from
# crates/agentrisk-wasm: target/npm/agentrisk/ and its tarball
# target/npm/agentrisk-<version>.tgz.
#
# Profile: `release` (opt-level 3, LTO, one codegen unit, panic = abort);
# docs/performance.md has the figures behind that choice. wasm-opt (npm
# binaryen 132, after `npm ci`) runs when it is on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

step "cargo build (wasm32, release) -p agentrisk-wasm"
cargo build --offline --release --target wasm32-unknown-unknown -p agentrisk-wasm

out=target/npm/agentrisk
rm -rf "$out"
mkdir -p "$out"

step "wasm-bindgen --target web"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name agentrisk_wasm \
  target/wasm32-unknown-unknown/release/agentrisk_wasm.wasm

if command -v wasm-opt >/dev/null && wasm-opt --version | grep -q 'version 132'; then
  step "wasm-opt -O3"
  wasm-opt -O3 "$out/agentrisk_wasm_bg.wasm" -o "$out/agentrisk_wasm_bg.wasm.opt"
  mv "$out/agentrisk_wasm_bg.wasm.opt" "$out/agentrisk_wasm_bg.wasm"
else
  echo "wasm-opt 132 not on PATH (run npm ci): the module is left as wasm-bindgen wrote it"
fi

step "package files"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' crates/agentrisk-wasm/Cargo.toml | head -n 1)
sed "s/@VERSION@/$version/" crates/agentrisk-wasm/js/index.js > "$out/index.js"
cp crates/agentrisk-wasm/js/index.d.ts crates/agentrisk-wasm/js/README.md LICENSE "$out/"
cat > "$out/package.json" <<JSON
{
  "name": "agentrisk",
  "version": "$version",
  "description": "The AgentRisk scoring core (AgentLeak traces and reports) as WebAssembly, for Node and browsers",
  "license": "MIT",
  "type": "module",
  "main": "./index.js",
  "types": "./index.d.ts",
  "exports": {
    ".": {
      "types": "./index.d.ts",
      "default": "./index.js"
    },
    "./agentrisk_wasm_bg.wasm": "./agentrisk_wasm_bg.wasm",
    "./package.json": "./package.json"
  },
  "files": ["index.js", "index.d.ts", "agentrisk_wasm.js", "agentrisk_wasm_bg.wasm", "README.md", "LICENSE"],
  "sideEffects": true,
  "engines": { "node": ">=18" }
}
JSON

step "npm pack"
(cd target/npm && npm pack --silent ./agentrisk >/dev/null)
ls -l target/npm/agentrisk-"$version".tgz "$out"/agentrisk_wasm_bg.wasm
