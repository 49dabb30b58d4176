// The npm package `agentrisk`: the AgentRisk core compiled to WebAssembly.
// This file only loads the module; every function is the core's
// (crates/agentrisk-wasm over agentrisk::workspace).
//
// Node ≥ 18 reads agentrisk_wasm_bg.wasm beside this file. A browser
// fetches it beside this file, unless `initialize(bytes)` or
// `initialize(url)` is called first, in the same task as the import.

import init, * as core from "./agentrisk_wasm.js";

const WASM_FILE = "agentrisk_wasm_bg.wasm";

let started = null;
let loaded = false;
let settle;
const settled = new Promise((resolve, reject) => {
  settle = { resolve, reject };
});

// A failed load rejects `ready` for whoever awaits it; it must not end a
// Node process that never did.
settled.catch(() => {});

/** Resolves when the functions below can be called. */
export const ready = settled;

/**
 * Loads the module from `source`: bytes (ArrayBuffer, Uint8Array), a
 * compiled WebAssembly.Module, a URL, or a Response. Called without an
 * argument it loads the file beside this module. Returns `ready`.
 */
export function initialize(source) {
  if (!started) {
    started = (source === undefined ? defaultSource() : Promise.resolve(source))
      .then((module_or_path) => init({ module_or_path }))
      .then(() => {
        loaded = true;
        settle.resolve();
      }, (error) => settle.reject(error));
  }
  return ready;
}

async function defaultSource() {
  const url = new URL(WASM_FILE, import.meta.url);
  if (typeof process !== "undefined" && process.versions && process.versions.node && url.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    return readFile(url);
  }
  return url;
}

// Start loading after the importer's own top-level code has run, so that
// it can call initialize(bytes) first.
setTimeout(() => {
  initialize();
}, 0);

function loadedCore(name) {
  if (!loaded) {
    throw new Error(`agentrisk: ${name} was called before the module loaded; await ready first`);
  }
  return core;
}

/** The report `agentrisk run -o - -f json` writes for this trace. */
export function analyzeTrace(input, options) {
  return loadedCore("analyzeTrace").analyzeTrace(input, options);
}

/** Every run of a file: one report for an AgentLeak trace, one per conversation for an OpenTelemetry span export. */
export function analyzeRuns(input, options) {
  return loadedCore("analyzeRuns").analyzeRuns(input, options);
}

/** analyzeTrace as JSON text (unindented). */
export function analyzeTraceJson(input, options) {
  return loadedCore("analyzeTraceJson").analyzeTraceJson(input, options);
}

/** A stored report re-scored, as `agentrisk score --json` prints it, with its mismatches. */
export function rescoreReport(report, options) {
  return loadedCore("rescoreReport").rescoreReport(report, options);
}

/** A stored report's reviewed numbers, as `agentrisk score --review` gives them. */
export function applyReview(report, review, options) {
  return loadedCore("applyReview").applyReview(report, review, options);
}

/** The batch summary, as `agentrisk batch --json` prints it. */
export function summarizeBatch(files, options) {
  return loadedCore("summarizeBatch").summarizeBatch(files, options);
}

/** What changed from `base` to `next`, as `agentrisk diff --format json` prints it. */
export function diffBatches(base, next, options) {
  return loadedCore("diffBatches").diffBatches(base, next, options);
}

/** Batches over time, oldest first, as `agentrisk history --json` prints it. */
export function batchHistory(batches, options) {
  return loadedCore("batchHistory").batchHistory(batches, options);
}

/** k of n with its Wilson score interval. */
export function wilson(k, n, options) {
  return loadedCore("wilson").wilson(k, n, options);
}

/** The package version. */
export const version = "@VERSION@";
