// The Compare tab and the Trend view against the CLI: two folders (the
// example traces, and a copy with planted leaks) give the numbers and the
// Markdown of `agentrisk diff`; three scorecards give the table of
// `agentrisk history --json`, in its order, and its Markdown; a row opens
// its batch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cases, cli, exported, openViewer, outDir, serveViewer, WORKER_READY } from "./fixture.mjs";

serveViewer("agentrisk-diff-");

const EXAMPLES = ["ex_customer_support_trace", "ex_education_clean_trace", "ex_finance_trace", "ex_healthcare_clean_trace", "ex_hr_clean_trace", "ex_hr_trace"];

/** `dir/name/` with some example traces; `plant` puts text in a run's answer. */
function folder(dir, name, names, plant = {}) {
  mkdirSync(join(dir, name), { recursive: true });
  for (const n of names) {
    const trace = JSON.parse(readFileSync(join(cases, n, "trace.json"), "utf8"));
    if (plant[n]) trace.events.find((e) => e.channel === "final_output").content = plant[n];
    writeFileSync(join(dir, name, `${n}.json`), JSON.stringify(trace, null, 1));
  }
  return join(dir, name);
}

/** The CLI's stdout, run in `cwd` (exit 1, a fired rule, still prints). */
function agentrisk(args, cwd) {
  try {
    return execFileSync(cli(), [...args, "-q"], { cwd, maxBuffer: 1 << 26 }).toString();
  } catch (e) {
    if (e.status !== 1) throw e;
    return e.stdout.toString();
  }
}

test("two folders in Compare give agentrisk diff's numbers and Markdown", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-diff-folders-"));
  folder(dir, "base", EXAMPLES);
  folder(dir, "new", EXAMPLES, { ex_hr_clean_trace: "The employee's SSN is 123-45-6789.", ex_education_clean_trace: "Write to maria.lopez@example.com." });
  const { page, errors } = await openViewer();
  await page.waitForSelector(WORKER_READY);
  for (const [side, count] of [["base", 6], ["new", 12]]) {
    await page.setInputFiles("#folder-input", join(dir, side));
    await page.waitForFunction((n) => document.querySelectorAll("tr.run-row").length === n, count);
  }
  await page.click("#tab-compare");
  await page.selectOption("#compare-a", "batch:folder:base");
  await page.selectOption("#compare-b", "batch:folder:new");
  await page.waitForSelector("#compare-rates");
  const theirs = JSON.parse(agentrisk(["diff", "base", "new", "--format", "json"], dir));

  // Every rate: both k/n, the difference and its Newcombe interval, to the last digit.
  const rows = await page.$$eval("#compare-rates tbody tr", (rs) => rs.map((r) => ({ ...r.dataset })));
  assert.deepEqual(
    rows.map((r) => [r.metric, r.base, r.new, Number(r.difference), Number(r.lower), Number(r.upper)]),
    theirs.rates.map((r) => [r.metric, `${r.base.k}/${r.base.n}`, `${r.new.k}/${r.new.n}`, r.difference, r.lower, r.upper]),
  );
  const leak = theirs.rates[0];
  assert.deepEqual([leak.base.k, leak.new.k, leak.new.n], [3, 5, 6], "two clean runs leak now");
  const paired = await page.$eval("#compare-paired", (p) => ({ ...p.dataset }));
  assert.deepEqual(
    [paired.pairs, paired.both, paired.baseOnly, paired.newOnly, paired.neither, paired.p].map(Number),
    [theirs.paired.pairs, theirs.paired.both, theirs.paired.base_only, theirs.paired.new_only, theirs.paired.neither, theirs.paired.mcnemar_exact_p],
  );
  const changed = await page.$$eval("#compare-runs tbody tr", (rs) => rs.map((r) => r.dataset.key));
  assert.deepEqual(changed, theirs.runs.filter((r) => r.new_leaks.length > 0).map((r) => r.key));
  assert.equal(await page.$$eval("#compare-regressions li", (l) => l.length), theirs.regressions.length);

  // The export is the CLI's bytes.
  const markdown = await exported(page, "#export-diff-markdown");
  assert.equal(markdown.name, "agentrisk-diff.md");
  assert.equal(markdown.text, agentrisk(["diff", "base", "new", "--format", "markdown"], dir));
  assert.match(markdown.text, /\| `run_hr_clean_001` \| `ssn` \| L4 \(critical\) \| final_output \|/);
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "compare-folders.png"), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("the Trend view of three scorecards is agentrisk history --json, oldest first, and opens a batch", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-trend-"));
  // Three batches of growing size; their dates run against their names.
  const cards = [["c.json", 2, "2026-11-30T09:00:00+00:00"], ["a.json", 4, "2026-12-07T09:00:00+00:00"], ["b.json", 6, "2026-12-14T09:00:00+00:00"]];
  for (const [name, size, at] of cards) {
    const runs = folder(dir, `runs-${name}`, EXAMPLES.slice(0, size));
    agentrisk(["batch", runs, "--scorecard", join(dir, name)], dir);
    const text = readFileSync(join(dir, name), "utf8").replace(/"generated_at": "[^"]*"/, `"generated_at": "${at}"`);
    writeFileSync(join(dir, name), text);
  }
  const theirs = JSON.parse(agentrisk(["history", "a.json", "b.json", "c.json", "--json"], dir));
  assert.deepEqual(theirs.batches.map((b) => b.name), ["c.json", "a.json", "b.json"]);

  const { page, errors } = await openViewer();
  await page.waitForSelector(WORKER_READY);
  await page.setInputFiles("#file-input", ["a.json", "b.json", "c.json"].map((n) => join(dir, n)));
  await page.waitForSelector("#tab-trend");
  await page.click("#tab-trend");
  await page.waitForSelector("#trend-table");
  const rows = await page.$$eval("#trend-table tbody tr", (rs) => rs.map((r) => ({ ...r.dataset })));
  const num = (v) => (v === undefined ? null : Number(v));
  assert.deepEqual(
    rows.map((r) => [r.name, r.generatedAt ?? null, Number(r.runs), r.leak, num(r.leakLower), num(r.leakUpper), r.block, num(r.blockLower), num(r.blockUpper), num(r.meanRi), r.verdicts]),
    theirs.batches.map((b) => [
      b.name, b.generated_at, b.runs, `${b.leak_rate.k}/${b.leak_rate.n}`, b.leak_rate.lower, b.leak_rate.upper,
      `${b.block_rate.k}/${b.block_rate.n}`, b.block_rate.lower, b.block_rate.upper, b.mean_risk_index,
      ["Pass", "Conditional pass", "High risk", "Fail"].map((v) => b.verdicts[v].count).join(","),
    ]),
  );
  // The chart: one dot per batch's leak rate, labelled by number.
  assert.equal(await page.$$eval("#trend-chart svg circle", (c) => c.length), 3);
  assert.equal((await exported(page, "#export-history-markdown")).text, agentrisk(["history", "a.json", "b.json", "c.json", "--format", "markdown"], dir));
  await page.screenshot({ path: join(outDir, "trend.png"), fullPage: true });

  // A batch's name opens its runs in the Batch tab.
  await page.click('#trend-table tr[data-name="a.json"] .open-batch');
  await page.waitForSelector("#batch-scope");
  assert.equal(await page.getAttribute(".batch", "data-runs"), "4");
  await page.click("#batch-scope-clear");
  await page.waitForFunction(() => document.querySelector(".batch").dataset.runs === "12");
  assert.deepEqual(errors, []);
  await page.close();
});
