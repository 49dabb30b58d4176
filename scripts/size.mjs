// What a first visit costs: the size of the viewer's wasm in dist/ (raw and
// gzip -9; the page and its worker run the same binary), then the time from
// navigation to an interactive empty page, served from this machine, in
// headless Chromium on a fresh profile each run (no HTTP cache, no service
// worker), median of RUNS runs. Exits 1 when the gzipped wasm exceeds the
// budget.
//
//   node scripts/size.mjs [--dist DIR] [--runs N] [--budget BYTES] [--mbps N] [--no-time]
//
// --mbps N throttles the page's network to N megabits per second (with 20 ms
// latency) through Chromium's DevTools protocol; the local server sends
// files uncompressed, so a throttled time is that of a server without gzip.
// `bash scripts/size.sh` is the usual way in (it can build first).
import { readdirSync, readFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { launchChromium } from "../tests/e2e/chromium.mjs";
import { serve } from "../tests/e2e/serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

function options(argv) {
  const o = { dist: join(root, "dist"), runs: 5, budget: 1_200_000, mbps: 0, time: true };
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${argv[i - 1]} needs a value`);
      return v;
    };
    const number = (name) => {
      const n = Number(value());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: ${argv[i]} is not a number ≥ 0`);
      return n;
    };
    switch (argv[i]) {
      case "--dist": o.dist = value(); break;
      case "--runs": o.runs = Math.max(1, Math.round(number("--runs"))); break;
      case "--budget": o.budget = number("--budget"); break;
      case "--mbps": o.mbps = number("--mbps"); break;
      case "--no-time": o.time = false; break;
      default: throw new Error(`unknown argument ${argv[i]} (see the comment at the top of scripts/size.mjs)`);
    }
  }
  return o;
}

/** The one wasm file of `bin` in `dist`: Trunk names it `<bin>-<hash>_bg.wasm`. */
function wasmOf(dist, bin) {
  const name = new RegExp(`^${bin}(-[0-9a-f]+)?_bg\\.wasm$`);
  const found = readdirSync(dist).filter((f) => name.test(f));
  if (found.length !== 1) {
    throw new Error(`${dist}: expected one ${bin}[-hash]_bg.wasm, found ${found.length ? found.join(", ") : "none"} (run with --build?)`);
  }
  return join(dist, found[0]);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const kb = (n) => `${(n / 1000).toFixed(1)} kB`;

/** Milliseconds from navigation to (a) the "Load example" button shown and
 * enabled, (b) the worker's ready mark on the drop zone: one fresh profile. */
async function timeOnce(url, mbps) {
  const context = await launchChromium("agentrisk-size-");
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    if (mbps > 0) {
      const cdp = await context.newCDPSession(page);
      await cdp.send("Network.enable");
      const bytesPerSecond = (mbps * 1e6) / 8;
      await cdp.send("Network.emulateNetworkConditions", {
        offline: false, latency: 20, downloadThroughput: bytesPerSecond, uploadThroughput: bytesPerSecond,
      });
    }
    // Marks the two moments from inside the page, on the navigation's clock.
    await page.addInitScript(() => {
      const marks = (window.__marks = {});
      const look = () => {
        const button = document.getElementById("load-example");
        if (marks.interactive === undefined && button && !button.disabled) marks.interactive = performance.now();
        if (marks.worker === undefined && document.querySelector("#dropzone[data-worker=ready]")) marks.worker = performance.now();
      };
      new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true });
    });
    await page.goto(url);
    await page.waitForFunction(() => window.__marks.interactive !== undefined && window.__marks.worker !== undefined, null, {
      timeout: 120_000,
    });
    return await page.evaluate(() => window.__marks);
  } finally {
    await context.close();
  }
}

const o = options(process.argv.slice(2));
const rows = ["viewer"].map((bin) => {
  const path = wasmOf(o.dist, bin);
  const bytes = readFileSync(path);
  return { bin, path, raw: bytes.length, gz: gzipSync(bytes, { level: 9 }).length };
});
console.log(["wasm", "raw bytes", "gzip -9 bytes", "file"].join("\t"));
for (const r of rows) console.log(["page + worker", r.raw, r.gz, r.path].join("\t"));
const raw = rows.reduce((s, r) => s + r.raw, 0);
const gz = rows.reduce((s, r) => s + r.gz, 0);
console.log(["total", raw, gz].join("\t"));
const within = gz <= o.budget;
console.log(`gzipped total ${kb(gz)}: ${within ? "within" : "OVER"} the budget of ${kb(o.budget)}`);

if (o.time) {
  const site = await serve(o.dist);
  try {
    const runs = [];
    for (let i = 0; i < o.runs; i++) runs.push(await timeOnce(site.url, o.mbps));
    const network = o.mbps > 0 ? `${o.mbps} Mbit/s, 20 ms` : "unthrottled";
    const list = (key) => runs.map((r) => r[key].toFixed(0)).join(", ");
    console.log(`time to an interactive empty page (Load example enabled), median of ${o.runs}, ${network}: ` +
      `${median(runs.map((r) => r.interactive)).toFixed(0)} ms (${list("interactive")})`);
    console.log(`time to the worker's ready mark, median of ${o.runs}, ${network}: ` +
      `${median(runs.map((r) => r.worker)).toFixed(0)} ms (${list("worker")})`);
  } finally {
    site.server.close();
  }
}
process.exit(within ? 0 : 1);
