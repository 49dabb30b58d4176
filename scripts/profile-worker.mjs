// Where the page's analysis worker spends its time on one file: opens a
// built site in headless Chromium, waits for the worker to be ready,
// profiles the worker (the DevTools protocol's sampling profiler, attached
// to the worker's target) while the file is picked and analysed, and prints
// the time until the verdict showed and the worker's busy time by stage.
//
//   node scripts/profile-worker.mjs DIST FILE.json [OUT.cpuprofile]
//
// The wasm must keep its function names: `bash scripts/profile-worker.sh
// FILE.json` builds such a site (wasm-opt -g, otherwise the release build)
// and runs this. OUT.cpuprofile opens in Chromium's DevTools.
import { writeFileSync } from "node:fs";
import { launchChromium } from "../tests/e2e/chromium.mjs";
import { serve } from "../tests/e2e/serve.mjs";

const [dist, file, out] = process.argv.slice(2);
if (!dist || !file) {
  console.error("usage: node scripts/profile-worker.mjs DIST FILE.json [OUT.cpuprofile]");
  process.exit(2);
}

// The stage of a sample. A frame of the first list anywhere in its stack
// names it (the run view, say, runs detectors again, and is counted as the
// run view); otherwise the innermost frame that matches the second list
// does (the size-optimised wasm inlines much of the whole-trace pass into
// draft_from_trace, so its parts are known by their callees).
const OUTER = [
  ["read the file (JSON to events)", /^agentrisk::pipeline::parse\b/],
  ["report (numbers, compliance, digest)", /^agentrisk::pipeline::Draft::finish_gated\b/],
  ["run view for the page", /^agentrisk::workspace::view::analyzed_trace\b/],
  ["result to the page", /^agentrisk_viewer::worker::post(_result)?\b/],
];
const INNER = [
  ["decoded views (base64, hex, URL, ...)", /^agentrisk::analyze::decoded::/],
  ["detectors, per event", /^agentrisk::detect::|^agentrisk::analyze::(read_event|NewFindings::read)\b/],
  ["obscured copies (whole trace)", /^agentrisk::analyze::(obscured|split|token_match|canonical_value)/],
  ["coalescing", /^agentrisk::analyze::coalesce::/],
  ["analysis, other", /^agentrisk::/],
  ["worker, other", /^agentrisk_viewer::worker::/],
];
const STAGES = [...OUTER, ...INNER];

function stages(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const interval = (profile.endTime - profile.startTime) / 1000 / profile.samples.length; // ms
  const ms = new Map();
  for (const id of profile.samples) {
    const names = [];
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      names.push(byId.get(cur).callFrame.functionName.replace(/::h[0-9a-f]{16}$/, ""));
    }
    if (["(idle)", "(program)", "(garbage collector)"].includes(names[0])) continue;
    const named = (list) => list.find(([, re]) => names.some((n) => re.test(n)))?.[0];
    const inner = () => {
      for (const n of names) {
        const hit = INNER.find(([, re]) => re.test(n));
        if (hit) return hit[0];
      }
      return null;
    };
    const stage = named(OUTER) ?? inner();
    if (stage) ms.set(stage, (ms.get(stage) ?? 0) + interval);
  }
  return ms;
}

const site = await serve(dist);
const context = await launchChromium("agentrisk-profile-");
const page = await context.newPage();
const cdp = await context.newCDPSession(page);
let worker = null;
const waiting = new Map();
let next = 1;
cdp.on("Target.attachedToTarget", (e) => {
  if (e.targetInfo.type === "worker") worker = e.sessionId;
});
cdp.on("Target.receivedMessageFromTarget", (e) => {
  const message = JSON.parse(e.message);
  waiting.get(message.id)?.(message);
  waiting.delete(message.id);
});
const inWorker = (method, params = {}) =>
  new Promise((resolve) => {
    const id = next++;
    waiting.set(id, resolve);
    cdp.send("Target.sendMessageToTarget", { sessionId: worker, message: JSON.stringify({ id, method, params }) });
  });
await cdp.send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: false });
await page.goto(site.url);
await page.waitForSelector("#dropzone[data-worker=ready]");
if (!worker) throw new Error("the page's worker was not seen");
await inWorker("Profiler.enable");
await inWorker("Profiler.setSamplingInterval", { interval: 500 });
await inWorker("Profiler.start");
const started = performance.now();
await page.setInputFiles("#file-input", file);
await page.waitForSelector("tr.run-row[data-verdict], tr.error-row", { timeout: 600_000 });
const verdict = (performance.now() - started) / 1000;
// The result is posted before the row is drawn; let the worker go idle.
await page.waitForTimeout(500);
const { result } = await inWorker("Profiler.stop");
if (out) writeFileSync(out, JSON.stringify(result.profile));
await context.close();
site.server.close();

const ms = stages(result.profile);
const busy = [...ms.values()].reduce((a, b) => a + b, 0);
console.log(`verdict shown after ${verdict.toFixed(2)} s; worker busy ${(busy / 1000).toFixed(2)} s (sampled while profiling, which slows it)`);
for (const [stage] of STAGES) {
  const t = ms.get(stage) ?? 0;
  console.log(`  ${stage.padEnd(40)} ${(t / 1000).toFixed(2).padStart(6)} s  ${((100 * t) / busy).toFixed(0).padStart(3)}%`);
}
process.exit(0);
