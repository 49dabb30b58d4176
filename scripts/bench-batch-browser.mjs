// Browser benchmark for many runs: picks N small traces at once (copies of
// the reference's example traces, each with its own run id) in the built
// dist/, and prints how long until every run is in the table, how long the
// Batch tab takes to draw, the longest main-thread task, and the
// renderer's memory.
//
//   node scripts/bench-batch-browser.mjs [N ...]     (default: 100 1000 5000)
//   DIST=other/dist node scripts/bench-batch-browser.mjs 1000   (another build)
//
// Run after `trunk build --release` (or `bash scripts/serve.sh`).
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, rendererRss } from "../tests/e2e/chromium.mjs";
import { serve } from "../tests/e2e/serve.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cases = join(root, "tests", "fixtures", "conformance", "cases");
const examples = readdirSync(cases).filter((n) => /^ex_.*_trace$/.test(n)).sort()
  .map((n) => JSON.parse(readFileSync(join(cases, n, "trace.json"), "utf8")));
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);

const site = await serve(process.env.DIST ?? join(root, "dist"));
const context = await launchChromium("agentrisk-batch-bench-");
console.log("| runs | files MB | all rows shown | Batch tab drawn | longest main-thread task | renderer MB |");
console.log("|---:|---:|---:|---:|---:|---:|");
for (const n of sizes.length ? sizes : [100, 1000, 5000]) {
  const dir = mkdtempSync(join(tmpdir(), `agentrisk-runs-${n}-`));
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  const paths = [];
  for (let i = 0; i < n; i++) {
    const trace = { ...examples[i % examples.length], run_id: `run_${String(i).padStart(6, "0")}` };
    const text = JSON.stringify(trace);
    bytes += text.length;
    const path = join(dir, `run_${i}.json`);
    writeFileSync(path, text);
    paths.push(path);
  }
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForSelector("#dropzone[data-worker=ready]");
  await page.evaluate(() => {
    window.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
    }).observe({ type: "longtask", buffered: true });
  });
  const started = Date.now();
  await page.setInputFiles("#file-input", paths);
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row").length === n, n, { timeout: 600_000, polling: 250 });
  const rows = (Date.now() - started) / 1000;
  const batchStarted = Date.now();
  await page.click("#tab-batch");
  await page.waitForSelector("#heat-run", { timeout: 600_000 });
  const batch = (Date.now() - batchStarted) / 1000;
  const longest = await page.evaluate(() => window.__longest);
  console.log(`| ${n} | ${(bytes / 1e6).toFixed(1)} | ${rows.toFixed(1)} s | ${batch.toFixed(1)} s | ${Math.round(longest)} ms | ${Math.round(rendererRss() / 1e6)} |`);
  await page.close();
}
await context.close();
site.server.close();
