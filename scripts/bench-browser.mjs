// Browser benchmark: opens the built dist/ in headless Chromium, picks each
// trace file given on the command line with the file input, as a person
// does, and prints how long the verdict took to appear in the run table,
// the longest main-thread task meanwhile, the page's peak JS heap and the
// peak memory of the renderer process (page and worker together, where the
// wasm heap lives). It also runs `agentrisk run` on the same file and says
// whether the browser shows the same numbers.
//
//   node scripts/bench-browser.mjs FILE.json...
//   DIST=other/dist node scripts/bench-browser.mjs FILE.json   (another build)
//
// `bash scripts/bench-browser.sh` builds everything, generates the 1, 21
// and 100 MB traces and runs this.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, rendererRss } from "../tests/e2e/chromium.mjs";
import { serve } from "../tests/e2e/serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node scripts/bench-browser.mjs FILE.json...");
  process.exit(2);
}

/** The CLI's numbers for `file` (RI, score, verdict, blocked): what the
 * browser must show. The report is written to a file and read back by
 * `agentrisk score --json`, as a large trace's report is too big for one
 * JavaScript string. */
function cliReport(file) {
  const cli = join(root, "target", "release", "agentrisk");
  const out = mkdtempSync(join(tmpdir(), "agentrisk-bench-report-"));
  // Exit 1 means "blocked", which is a result, not a failure.
  const run = (args) => {
    try {
      return execFileSync(cli, args, { maxBuffer: 1 << 26 }).toString();
    } catch (e) {
      if (e.status === 1) return e.stdout.toString();
      throw e;
    }
  };
  run(["run", "-q", "-t", file, "-o", out]);
  const [written] = readdirSync(out);
  const [record] = JSON.parse(run(["score", "--json", join(out, written)]));
  rmSync(out, { recursive: true });
  return record;
}

const site = await serve(process.env.DIST ?? join(root, "dist"));
const context = await launchChromium("agentrisk-bench-", ["--enable-precise-memory-info"]);

const mb = (bytes) => (bytes / 1e6).toFixed(1);
console.log(["file", "MB", "ready s", "verdict s", "MB/s", "longest task ms", "longest stall ms", "JS heap MB", "renderer MB (+ over idle)", "same as CLI"]
  .join("\t"));
let failed = false;
for (const file of files) {
  const size = statSync(file).size;
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.__longest = 0;
    window.__stall = 0;
    window.__heapPeak = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: "longtask" });
    let tick = performance.now();
    setInterval(() => {
      const now = performance.now();
      window.__stall = Math.max(window.__stall, now - tick);
      tick = now;
    }, 4);
    setInterval(() => {
      if (performance.memory) window.__heapPeak = Math.max(window.__heapPeak, performance.memory.usedJSHeapSize);
    }, 20);
  });
  const opened = performance.now();
  await page.goto(site.url);
  // Timed from a ready worker, as for a person who drops a file on an open
  // page; "ready s" is how long the page took to get there (the worker
  // compiles the detectors' patterns before it says it is ready).
  await page.waitForSelector("#dropzone[data-worker=ready]");
  const ready = (performance.now() - opened) / 1000;
  await page.evaluate(() => {
    window.__longest = 0;
    window.__stall = 0;
  });
  const rssIdle = rendererRss();
  let rssPeak = rssIdle;
  const poll = setInterval(() => {
    rssPeak = Math.max(rssPeak, rendererRss());
  }, 50);
  const started = performance.now();
  await page.setInputFiles("#file-input", file);
  const row = await page.waitForSelector("tr.run-row[data-verdict], tr.error-row", { timeout: 600_000 });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(poll);
  rssPeak = Math.max(rssPeak, rendererRss());
  const shown = {
    risk_index: await row.getAttribute("data-risk-index"),
    privacy_score: await row.getAttribute("data-privacy-score"),
    verdict: await row.getAttribute("data-verdict"),
    blocked: await row.getAttribute("data-blocked"),
  };
  // Long tasks are reported after they end: the one that drew the row too.
  await page.waitForTimeout(500);
  const { longest, stall, heap } = await page.evaluate(() => ({ longest: window.__longest, stall: window.__stall, heap: window.__heapPeak }));
  const report = cliReport(file);
  const same =
    shown.verdict !== null &&
    Number(shown.risk_index) === report.risk_index &&
    Number(shown.privacy_score) === report.privacy_score &&
    shown.verdict === report.verdict &&
    shown.blocked === String(report.blocked);
  failed ||= !same;
  console.log([basename(file), mb(size), ready.toFixed(2), seconds.toFixed(2), (size / 1e6 / seconds).toFixed(1), longest ? longest.toFixed(0) : "<50", stall.toFixed(0),
    mb(heap), `${mb(rssPeak)} (+${mb(rssPeak - rssIdle)})`, same ? "yes" : `NO: browser ${JSON.stringify(shown)}, CLI RI ${report.risk_index}`].join("\t"));
  await page.close();
}
await context.close();
site.server.close();
process.exit(failed ? 1 : 0);
