// End-to-end: a red-team batch made with the reference's seeded generator
// (tests/fixtures/redteam, see its NOTICE.md) dropped on the page as
// traces alone. Each trace carries its canary set in metadata.canaries, so
// the Batch tab gives the reference's compute_metrics (expected.json); a
// dropped canary-set file is the set in force, shown in the What-if tab.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dropFiles } from "./chromium.mjs";
import { openViewer, root, serveViewer } from "./fixture.mjs";

const batch = join(root, "tests", "fixtures", "redteam", "public_health_a1");
const expected = JSON.parse(readFileSync(join(batch, "expected.json"), "utf8"));
const traces = readdirSync(join(batch, "traces"))
  .sort()
  .map((name) => ({ name, text: readFileSync(join(batch, "traces", name), "utf8") }));
const TOLERANCE = 1e-9;

serveViewer("agentrisk-e2e-redteam-");

async function openWithTraces() {
  const { page, errors } = await openViewer();
  await dropFiles(page, traces);
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row").length === n, traces.length);
  return { page, errors };
}

const close = (ours, theirs, what) =>
  assert.ok(Math.abs(Number(ours) - theirs) <= TOLERANCE, `${what}: ours ${ours}, the reference's ${theirs}`);

test("the Batch tab gives the reference's red-team metrics from the traces alone", async () => {
  const { page, errors } = await openWithTraces();
  await page.click("#tab-batch");
  await page.waitForSelector("section.redteam");
  const rt = await page.$eval("section.redteam", (s) => ({ ...s.dataset }));
  assert.equal(Number(rt.runs), expected.total_runs);
  assert.equal(Number(rt.scenarios), expected.total_scenarios);
  close(rt.asr, expected.overall_asr, "ASR");
  close(rt.elrMean, expected.mean_elr, "mean ELR");
  close(rt.elrMedian, expected.median_elr, "median ELR");
  close(rt.riMean, expected.mean_risk_index, "mean RI");

  const rates = await page.$$eval("tr[data-metric]", (rows) =>
    rows.map((r) => ({ metric: r.dataset.metric, k: Number(r.dataset.k), n: Number(r.dataset.n) })),
  );
  const rate = (metric) => {
    const row = rates.find((r) => r.metric === metric);
    assert.ok(row, `no row ${metric}`);
    return row;
  };
  const overall = rate("Attack success rate (ASR)");
  assert.equal(overall.n, expected.total_runs);
  close(overall.k / overall.n, expected.overall_asr, "ASR from k/n");
  for (const c of expected.asr_by_class) {
    const row = rate(`ASR, class ${c.id} ${c.name}`);
    assert.deepEqual([row.k, row.n], [c.successful, c.total], c.id);
  }
  for (const f of expected.asr_by_family) {
    const row = rate(`ASR, family ${f.id} ${f.name}`);
    assert.deepEqual([row.k, row.n], [f.successful, f.total], f.id);
  }
  const clr = rates.filter((r) => r.metric.startsWith("Channel leak rate (CLR) on "));
  assert.deepEqual(
    clr.map((r) => r.metric.slice("Channel leak rate (CLR) on ".length)),
    expected.clr_per_channel.map((c) => c.channel),
  );
  for (const [i, c] of expected.clr_per_channel.entries()) {
    assert.equal(clr[i].n, c.run_count, c.channel);
    close(clr[i].k / clr[i].n, c.leak_rate, `CLR ${c.channel}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("a dropped canary-set file is the set in force, shown in the What-if tab and in the run view, and can be cleared", async () => {
  const { page, errors } = await openWithTraces();
  // Each trace says it used its own set.
  await page.click("tr.run-row >> nth=0");
  await page.waitForSelector("#run-canaries");
  assert.equal(await page.textContent("#run-canaries"), "canaries: from the trace (1 obvious, 1 realistic, 1 semantic)");

  const canaries = readFileSync(join(batch, "canaries", "002.json"), "utf8");
  await dropFiles(page, [{ name: "002.json", text: canaries }]);
  await page.click("#tab-scoring");
  await page.waitForFunction(() => document.querySelector("#canaries-in-force")?.textContent.includes("002.json"));
  assert.equal(
    await page.textContent("#canaries-in-force"),
    "In force: from 002.json (1 obvious, 1 realistic, 1 semantic)",
  );
  // The traces are analysed again with it: the run view says so. It is no
  // run: the run table still lists the ten traces.
  await page.click("#tab-runs");
  assert.equal(await page.$$eval("tr.run-row, tr.error-row", (rows) => rows.length), traces.length);
  await page.click("tr.run-row >> nth=0");
  await page.waitForFunction(() => document.querySelector("#run-canaries")?.textContent.includes("002.json"));
  assert.equal(await page.textContent("#run-canaries"), "canaries: from 002.json (1 obvious, 1 realistic, 1 semantic)");

  // Cleared: each trace's own set again.
  await page.click("#tab-scoring");
  await page.click("#canary-clear");
  await page.waitForFunction(() => document.querySelector("#canaries-in-force")?.textContent.includes("none set here"));
  await page.click("#tab-runs");
  await page.click("tr.run-row >> nth=0");
  await page.waitForFunction(() => document.querySelector("#run-canaries")?.textContent.includes("from the trace"));
  assert.deepEqual(errors, []);
  await page.close();
});
