// End-to-end: printing. Three traces are loaded, a value is revealed on
// screen, and the run view (summary and expanded), the Batch tab and the
// Compare tab are printed to PDF by Chromium on A4 and US Letter. The PDFs'
// text (poppler's pdftotext) must hold every run id and file name whole, the
// page header and "page 1 of N" footer, the recommendations, and never the
// revealed value. The first pages are kept as PNGs under tests/e2e/out/.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { dropFiles } from "./chromium.mjs";
import { cases, context, exported, openViewer, outDir, serveViewer, site, traceOf, WORKER_READY } from "./fixture.mjs";

const reportOf = (name) => JSON.parse(readFileSync(join(cases, name, "report.default.json"), "utf8"));

// Long file names and run ids, the kind a squeezed table used to cut into pieces.
const RUNS = [
  { name: "ex_hr_trace.json", case: "ex_hr_trace" },
  { name: "dojo_banking__user_task_10__injection_task_3.json", case: "dojo_banking__user_task_10__injection_task_3" },
  { name: "trace_agentleak_cor_00774-long-file-name.json", case: "bench_agentleak_cor_00774" },
];
const FORMATS = ["A4", "Letter"];

before(() => {
  for (const tool of ["pdftotext", "pdftoppm"]) {
    assert.equal(spawnSync(tool, ["-v"]).error, undefined, `${tool} (Debian's poppler-utils, scripts/setup.sh) is needed`);
  }
  mkdirSync(outDir, { recursive: true });
});
serveViewer("agentrisk-print-");

/** The viewer with the three traces loaded, printing stubbed out (the Print buttons still set the mode). */
async function viewerWithRuns() {
  const { page, errors } = await openViewer({ until: WORKER_READY });
  await page.evaluate(() => {
    window.printed = [];
    window.print = () => window.printed.push(document.documentElement.dataset.print);
  });
  await dropFiles(page, RUNS.map((r) => ({ name: r.name, text: traceOf(r.case) })));
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row").length === n, RUNS.length);
  return { page, errors };
}

/** Prints the page to `<name>-<format>.pdf` and returns its text, laid out and in reading order. */
async function printed(page, name, format) {
  const path = join(outDir, `${name}-${format}.pdf`);
  await page.pdf({ path, format, printBackground: true });
  const text = (mode) => {
    const run = spawnSync("pdftotext", [mode, path, "-"], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    return run.stdout;
  };
  const png = spawnSync("pdftoppm", ["-png", "-r", "60", "-f", "1", "-l", "2", path, join(outDir, `${name}-${format}`)]);
  assert.equal(png.status, 0, String(png.stderr));
  const info = spawnSync("pdfinfo", [path], { encoding: "utf8" });
  const pages = Number(/^Pages:\s+(\d+)/m.exec(info.stdout)?.[1]);
  return { layout: text("-layout"), raw: text("-raw"), pages };
}

/**
 * The identifiers that appear whole in `raw` text: a cell may wrap an id
 * only after `_`, `-` or `/` (components/ident.rs), so line ends after a
 * separator are joined; a break anywhere else leaves the id cut.
 */
function whole(raw, ids) {
  const joined = raw.replace(/([_\-/])\n/g, "$1");
  return ids.filter((id) => !joined.includes(id));
}

/**
 * How far the widest element reaches past the printable width of an A4
 * page (210 mm less 2 × 12 mm margins = 703 CSS px; Letter is wider) in
 * print media. Chromium shrinks a whole printout to fit anything wider.
 */
async function overflowOnA4(page) {
  const viewport = page.viewportSize();
  await page.setViewportSize({ width: 703, height: 1000 });
  await page.emulateMedia({ media: "print" });
  const over = await page.evaluate(() => {
    const wide = [...document.querySelectorAll("body *")].filter((e) => e.getBoundingClientRect().right > 703.5 && getComputedStyle(e).display !== "none");
    return wide.slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className?.baseVal ?? e.className} right ${Math.round(e.getBoundingClientRect().right)}`);
  });
  await page.emulateMedia({ media: null });
  await page.setViewportSize(viewport);
  return over;
}

/** What every printed page set must say: header, masking note, page numbers in the margins. */
function assertFrame(pdf, title) {
  assert.ok(pdf.layout.includes(title), `the title "${title}" is printed`);
  assert.match(pdf.layout, /printed \d{4}-\d\d-\d\d \d\d:\d\d UTC[+-]\d\d:\d\d/);
  assert.match(pdf.layout, /AgentRisk Viewer \d+\.\d+\.\d+ · scoring: AgentLeak's reference defaults/);
  assert.match(pdf.layout, /Values are masked/);
  assert.ok(pdf.layout.includes(`page 1 of ${pdf.pages}`), `"page 1 of ${pdf.pages}" in the footer`);
  assert.ok(pdf.layout.includes(`page ${pdf.pages} of ${pdf.pages}`), "the last page is numbered too");
}

test("a run prints as a summary and expanded on A4 and Letter: ids whole, header and page numbers, what to do, no revealed value", async () => {
  const { page, errors } = await viewerWithRuns();
  const report = reportOf("ex_hr_trace");
  await page.click(`tr.run-row[data-run-id="${report.run_id}"]`);
  await page.waitForSelector(".findings-table");
  // On screen: the recommendations and hints of the report built here (our
  // wording; the same channels, priorities and data types as the reference's),
  // and a bar per channel with its number.
  assert.equal(await page.$$eval("#recommendations li", (li) => li.length), report.recommendations.length);
  const hints = await page.$$eval("#remediation-hints .hint", (hs) =>
    hs.map((h) => [h.dataset.channel, h.dataset.priority, [...h.querySelectorAll(".hint-types .mono")].map((t) => t.textContent)]));
  assert.deepEqual(hints, report.remediation_hints.map((h) => [h.channel, h.priority, h.data_types]));
  assert.equal(await page.$$eval("#remediation-hints pre code", (c) => c.filter((e) => e.textContent.includes("\n")).length), hints.length);
  assert.deepEqual(
    await page.$$eval(".channel-table tbody tr", (rows) => rows.map((r) => [r.querySelector(".contribution").textContent,
      Number(r.dataset.contribution), Number(r.querySelector(".contribution rect.share").getAttribute("width"))])),
    report.channel_risks.map((c) => [c.ri.toFixed(4), c.risk_contribution, Math.round(c.risk_contribution * 60)]),
  );
  const recommendations = await page.$$eval("#recommendations li", (li) => li.map((e) => e.textContent));
  // Copy puts the code fix on the clipboard.
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: site.url });
  await page.click("#remediation-hints .hint:first-child button.copy");
  await page.waitForSelector("#remediation-hints .hint:first-child .copy-status:has-text('Copied.')");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.textContent("#remediation-hints .hint:first-child pre code"));

  // Reveal one finding's full value on screen: the e-mail address in the log
  // (a value no other text on the page contains).
  const email = report.findings.find((f) => f.data_type === "email");
  const row = `.findings-table tr[data-finding-id="${email.finding_id}"]`;
  await page.click(`${row} button.reveal`);
  const secret = await page.textContent(`${row} .revealed`);
  assert.match(secret, /^\S+@\S+\.\w+$/);
  assert.equal(secret.length, email.redacted_value.length);

  const ids = RUNS.map((r) => reportOf(r.case).run_id);
  const names = RUNS.map((r) => r.name);
  await page.click("#print-summary");
  assert.deepEqual(await page.evaluate(() => window.printed), ["summary"]);
  assert.deepEqual(await overflowOnA4(page), [], "nothing is wider than an A4 page");
  for (const format of FORMATS) {
    const pdf = await printed(page, "run-summary", format);
    assertFrame(pdf, `Run ${report.run_id} · ex_hr_trace.json`);
    assert.deepEqual(whole(pdf.raw, [...ids, ...names]), [], `${format}: every run id and file name whole`);
    assert.ok(!pdf.raw.includes(secret), `${format}: the revealed value ${JSON.stringify(secret)} is not printed`);
    for (const r of recommendations) assert.ok(pdf.raw.replace(/\s+/g, " ").includes(r), `${format}: ${r}`);
    assert.match(pdf.layout, /Remediation by channel/);
    assert.ok(!pdf.layout.includes("Findings on disclosure channels"), `${format}: the summary leaves the findings out`);
  }

  await page.click("#print-expanded");
  await page.waitForFunction(() => window.printed.length === 2);
  assert.deepEqual(await page.evaluate(() => window.printed), ["summary", "expanded"]);
  assert.deepEqual(await overflowOnA4(page), [], "nothing is wider than an A4 page");
  // The redacted values of the listed findings print; the revealed one does not.
  for (const format of FORMATS) {
    const pdf = await printed(page, "run-expanded", format);
    assertFrame(pdf, `Run ${report.run_id} · ex_hr_trace.json`);
    assert.deepEqual(whole(pdf.raw, [...ids, ...names]), [], `${format}: every run id and file name whole`);
    assert.ok(!pdf.raw.includes(secret), `${format}: the revealed value ${JSON.stringify(secret)} is not printed`);
    assert.match(pdf.layout, /Findings on disclosure channels \(8\)/);
    const firstPage = pdf.layout.split("\f")[0];
    assert.ok(!firstPage.includes("Risk Index"), `${format}: the run starts on a new page, after the run table`);
    for (const f of report.findings) assert.ok(pdf.raw.includes(f.event_id), `${format}: finding event ${f.event_id}`);
  }
  // Still on screen after printing.
  assert.equal(await page.textContent(`${row} .revealed`), secret);

  // A loaded report shows its own texts as stored, and prints them.
  const stored = reportOf("ex_finance_trace");
  await dropFiles(page, [{ name: "finance-report.json", text: JSON.stringify(stored) }]);
  await page.waitForSelector(`tr.run-row[data-run-id="${stored.run_id}"]`);
  await page.click(`tr.run-row[data-run-id="${stored.run_id}"]`);
  await page.waitForSelector(`.run-detail[data-run-id="${stored.run_id}"] #recommendations`);
  assert.deepEqual(await page.$$eval("#recommendations li", (li) => li.map((e) => e.textContent)), stored.recommendations);
  assert.deepEqual(
    await page.$$eval("#remediation-hints .hint", (hs) => hs.map((h) => [h.dataset.channel, h.dataset.priority,
      h.querySelector(".hint-advice").textContent, h.querySelector("pre code").textContent])),
    stored.remediation_hints.map((h) => [h.channel, h.priority, h.advice, h.code_fix]),
  );
  const md = (await exported(page, "#export-markdown")).text;
  assert.ok(md.includes("## Recommendations\n\n" + stored.recommendations.map((r) => `- ${r}\n`).join("")), md);
  for (const h of stored.remediation_hints) assert.ok(md.includes(`\n\`\`\`\n${h.code_fix.trimEnd()}\n\`\`\`\n`), h.channel);
  await page.click("#print-summary");
  const pdf = await printed(page, "report-summary", "A4");
  assertFrame(pdf, `Run ${stored.run_id} · finance-report.json`);
  const flat = pdf.raw.replace(/\s+/g, " ");
  for (const r of stored.recommendations) assert.ok(flat.includes(r), r);
  for (const h of stored.remediation_hints) assert.ok(flat.includes(h.advice), h.advice);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Print batch prints the verdicts, rates and charts with their tables; Compare prints both runs", async () => {
  const { page, errors } = await viewerWithRuns();
  const ids = RUNS.map((r) => reportOf(r.case).run_id);
  const names = RUNS.map((r) => r.name);
  await page.click("#tab-batch");
  await page.waitForSelector("#batch-run-table");
  await page.click("#print-batch");
  assert.deepEqual(await page.evaluate(() => window.printed), ["batch"]);
  assert.deepEqual(await overflowOnA4(page), [], "nothing is wider than an A4 page");
  for (const format of FORMATS) {
    const pdf = await printed(page, "batch", format);
    assertFrame(pdf, `Batch of ${RUNS.length} runs`);
    assert.deepEqual(whole(pdf.raw, [...ids, ...names]), [], `${format}: every run id and file name whole`);
    for (const heading of ["Verdict", "Per-channel leak rates with intervals", "Leaked secrets by channel and level", "Runs of the batch"]) {
      assert.ok(pdf.layout.includes(heading), `${format}: ${heading}`);
    }
    assert.ok(!/Print batch|Scorecard JSON|Confidence/.test(pdf.layout), `${format}: no controls printed`);
  }

  await page.click("#tab-compare");
  await page.selectOption("#compare-a", { label: `run ${RUNS[0].name}` });
  await page.selectOption("#compare-b", { label: `run ${RUNS[2].name}` });
  await page.waitForSelector("#compare-deltas");
  await page.click("#print-compare");
  assert.deepEqual(await overflowOnA4(page), [], "nothing is wider than an A4 page");
  for (const format of FORMATS) {
    const pdf = await printed(page, "compare", format);
    assertFrame(pdf, `Comparison · batch of ${RUNS.length} runs`);
    assert.deepEqual(whole(pdf.raw, [`BASE: ${names[0]}`, `NEW: ${names[2]}`]), [], `${format}: both runs named whole`);
    assert.match(pdf.layout, /New in NEW/);
  }
  assert.deepEqual(errors, []);
  await page.close();
});
