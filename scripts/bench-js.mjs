// analyzeTrace in Node: the report as JavaScript objects (serde-wasm-bindgen)
// against analyzeTraceJson + JSON.parse, on the given trace files.
// Usage: node scripts/bench-js.mjs [--runs N] TRACE.json...   (after bash scripts/package.sh)
import { readFileSync, statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { ready, analyzeTrace, analyzeTraceJson } from "../target/npm/agentrisk/index.js";

const args = process.argv.slice(2);
const at = args.indexOf("--runs");
const runs = at >= 0 ? Number(args.splice(at, 2)[1]) : 3;
await ready;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (fn) => {
  const start = performance.now();
  const value = fn();
  return [performance.now() - start, value];
};
for (const file of args) {
  const bytes = new Uint8Array(readFileSync(file));
  const options = { generatedAt: "2026-12-06T00:00:00+00:00" };
  const objects = [];
  const json = [];
  const jsonOnly = [];
  let findings = 0;
  for (let i = 0; i < runs; i++) {
    const [ms, report] = time(() => analyzeTrace(bytes, options));
    objects.push(ms);
    findings = report.findings.length;
    const [textMs, text] = time(() => analyzeTraceJson(bytes, options));
    const [parseMs] = time(() => JSON.parse(text));
    jsonOnly.push(textMs);
    json.push(textMs + parseMs);
  }
  const mb = (statSync(file).size / 1e6).toFixed(1);
  console.log(
    `${file}: ${mb} MB, ${findings} findings, ${runs} runs (median ms): ` +
      `analyzeTrace ${median(objects).toFixed(0)} · analyzeTraceJson ${median(jsonOnly).toFixed(0)} · ` +
      `analyzeTraceJson + JSON.parse ${median(json).toFixed(0)}`,
  );
}
