// End-to-end: the built dist/ in Debian's Chromium, driven by Playwright,
// doing what a person does — drop reports and traces, pick files, load the
// examples, click a run, follow a finding to its event — and checking the
// numbers against the reference's reports.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropFiles, openPage } from "./chromium.mjs";
import {
  assertOnlyOwnRequests, cases, context, dist, exported, openViewer, outDir, root, serveViewer, site, traceOf, WORKER_READY,
} from "./fixture.mjs";
import { serve } from "./serve.mjs";

const fixture = (name, variant = "default") => readFileSync(join(cases, name, `report.${variant}.json`), "utf8");
/** The reference's example traces: ex_healthcare_trace, ex_healthcare_clean_trace, … */
const exampleCases = readdirSync(cases).filter((n) => /^ex_.*_trace$/.test(n)).sort();

serveViewer("agentrisk-e2e-");

async function runRows(page) {
  return page.$$eval("tr.run-row", (rows) => rows.map((r) => ({ ...r.dataset })));
}

test("dropping two reports and a broken file gives two runs with the reference's numbers and one error row", async () => {
  const { page, requests, errors } = await openViewer();
  const healthcare = JSON.parse(fixture("ex_healthcare_trace"));
  const finance = JSON.parse(fixture("ex_finance_trace"));
  await dropFiles(page, [
    { name: "healthcare.json", text: fixture("ex_healthcare_trace") },
    { name: "broken.json", text: '{"report": "agentleak", "version": 2,' },
    { name: "finance.json", text: fixture("ex_finance_trace") },
  ]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 3);

  const rows = await runRows(page);
  assert.deepEqual(
    rows.map((r) => [r.runId, Number(r.riskIndex), Number(r.privacyScore), r.verdict, r.blocked, r.consistent]),
    [healthcare, finance].map((r) => [r.run_id, r.risk_index, r.privacy_score, r.verdict, String(r.blocked), "true"]),
  );
  // The reference's own figures, spelled out: INDEX.md rows for the two cases.
  assert.deepEqual(rows.map((r) => [r.riskIndex, r.privacyScore, r.verdict, r.blocked]), [
    ["0.44", "56", "High risk", "true"],
    ["0.6957", "30", "Fail", "true"],
  ]);

  const errorRow = await page.$eval("tr.error-row", (r) => ({ file: r.dataset.file, text: r.textContent }));
  assert.equal(errorRow.file, "broken.json");
  assert.match(errorRow.text, /broken\.json.*invalid JSON at line 1, column 37: EOF while parsing a value/);

  // Click a run: the channel table shows the reference's channel RIs, in its order.
  await page.click('tr.run-row[data-run-id="run_healthcare_001"]');
  await page.waitForSelector(".channel-table");
  const channels = await page.$$eval(".channel-table tbody tr", (rows) => rows.map((r) => [r.dataset.channel, Number(r.dataset.ri)]));
  assert.deepEqual(channels, healthcare.channel_risks.map((c) => [c.channel, c.ri]));
  assert.deepEqual(channels, [["shared_memory", 0.36], ["inter_agent_message", 0.16], ["log", 0.08], ["tool_call", 0.04]]);
  const findings = await page.$$eval(".findings-table tbody tr", (rows) => rows.length);
  assert.equal(findings, healthcare.findings.length);
  assert.match(await page.textContent(".run-detail .headline"), /a critical \(L4\) secret leaked/);

  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "viewer.png"), fullPage: true });

  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Open files takes many files through the real file input, a trace loads beside its report, and a removed file is gone", async () => {
  const { page } = await openViewer();
  await page.setInputFiles("#file-input", [
    { name: "hr.json", mimeType: "application/json", buffer: Buffer.from(fixture("ex_hr_trace")) },
    { name: "trace.json", mimeType: "application/json", buffer: Buffer.from(traceOf("ex_hr_trace")) },
    { name: "list.json", mimeType: "application/json", buffer: Buffer.from("[1, 2, 3]") },
  ]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 3);
  // The stored report and our analysis of its trace agree.
  assert.deepEqual((await runRows(page)).map((r) => [r.kind, r.runId, r.privacyScore, r.verdict, r.blocked, r.consistent]), [
    ["report", "run_hr_001", "42", "High risk", "false", "true"],
    ["trace", "run_hr_001", "42", "High risk", "false", "true"],
  ]);
  const errors = await page.$$eval("tr.error-row", (rows) => rows.map((r) => [r.dataset.file, r.textContent]));
  assert.equal(errors.length, 1);
  assert.equal(errors[0][0], "list.json");
  assert.match(errors[0][1], /top level: a trace must be a JSON object with an "events" array, but the file holds an array of 3 items/);
  await page.click('button[aria-label="Remove list.json"]');
  await page.waitForFunction(() => document.querySelectorAll("tr.error-row").length === 0);
  assert.equal((await runRows(page)).length, 2);
  await page.close();
});

test("the ten example traces are analysed in the page with the reference's numbers, and a finding leads to its event", async () => {
  const { page, requests, errors } = await openViewer();
  assert.equal(exampleCases.length, 10);
  await dropFiles(page, exampleCases.map((name) => ({ name: `${name}.json`, text: traceOf(name) })));
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 10);

  const rows = await runRows(page);
  assert.deepEqual(
    rows.map((r) => [r.kind, r.runId, Number(r.riskIndex), Number(r.privacyScore), r.verdict, r.blocked, r.consistent]),
    exampleCases.map((name) => {
      const r = JSON.parse(fixture(name));
      return ["trace", r.run_id, r.risk_index, r.privacy_score, r.verdict, String(r.blocked), "true"];
    }),
  );
  assert.deepEqual(await page.$$eval("tr.run-row td .check", (cells) => [...new Set(cells.map((c) => c.textContent))]), ["analysed here"]);
  assert.equal(await page.$$eval("tr.error-row", (r) => r.length), 0);

  // The healthcare run: its events, in order, with the events that have findings marked.
  const report = JSON.parse(fixture("ex_healthcare_trace"));
  const trace = JSON.parse(traceOf("ex_healthcare_trace"));
  await page.setViewportSize({ width: 1280, height: 600 });
  await page.click('tr.run-row[data-run-id="run_healthcare_001"]');
  await page.waitForSelector(".run-detail[data-kind=trace] .events-table");
  const events = await page.$$eval(".events-table tbody tr.event-row", (rows) => rows.map((r) => [r.dataset.eventId, r.classList.contains("has-finding")]));
  const withFindings = new Set(report.findings.map((f) => f.event_id));
  assert.deepEqual(events, trace.events.map((e) => [e.event_id, withFindings.has(e.event_id)]));
  assert.equal(events.length, 7);
  assert.equal(await page.$$eval(".findings-table tbody tr", (r) => r.length), report.findings.length);
  assert.deepEqual(
    await page.$$eval(".channel-table tbody tr", (rows) => rows.map((r) => [r.dataset.channel, Number(r.dataset.ri)])),
    report.channel_risks.map((c) => [c.channel, c.ri]),
  );
  assert.match(await page.textContent(".run-detail .gate-reasons"), /^a critical \(L4\) secret leaked$/);
  // Values stay redacted, in the findings and in the event text: the leaked
  // ones, and those the agent was given that did not leak (SIN, address, birth date).
  const text = await page.textContent(".run-detail");
  for (const secret of ["TREM12345678", "jean.tremblay@example.com", "Jean Tremblay", "123-456-789", "120 Maple Street", "1979-03-12"]) {
    assert.ok(!text.includes(secret), secret);
  }
  assert.deepEqual(await page.$$eval("#event-3 mark", (m) => m.map((e) => [e.className, e.textContent])), [
    ["redacted leaked", "Je*********ay"], ["redacted leaked", "di****es"], ["redacted leaked", "TR********78"],
  ]);
  assert.match(await page.textContent("#event-2"), /sin: 12\*{7}89/);

  // Follow finding_015 (the e-mail in the log) to its event: evt_006, below the fold until then.
  const inView = (sel) => page.$eval(sel, (e) => { const r = e.getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.$eval('tr[data-finding-id="finding_015"] a.event-link', (a) => a.scrollIntoView({ block: "end" }));
  assert.equal(await inView("#event-5"), false);
  await page.click('tr[data-finding-id="finding_015"] a.event-link');
  await page.waitForSelector("tr.event-row.highlighted");
  assert.deepEqual(await page.$$eval("tr.event-row.highlighted", (rows) => rows.map((r) => r.dataset.eventId)), ["evt_006"]);
  await page.waitForFunction(() => { const r = document.getElementById("event-5").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
  assert.equal(await page.evaluate(() => document.activeElement?.id), "event-5");

  mkdirSync(outDir, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(outDir, "trace-view.png"), fullPage: true });
  await page.locator(".run-detail .events").screenshot({ path: join(outDir, "trace-events.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.locator(".run-detail .events").screenshot({ path: join(outDir, "trace-events-dark.png") });
  await page.screenshot({ path: join(outDir, "trace-view-dark.png"), fullPage: true });

  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a large trace shows what the worker is doing, then lists a bounded number of events with long texts cut", async () => {
  const { page, requests, errors } = await openViewer();
  const events = Array.from({ length: 6000 }, (_, i) => ({
    event_id: `e${i}`, channel: "log", source: "app", target: "stdout", content: `step ${i}: ${"lorem ipsum dolor sit amet ".repeat(40)}`,
  }));
  const longText = `contact jean.tremblay@example.com ${"x".repeat(3000)}`;
  events[3] = { event_id: "e3", channel: "tool_call", source: "agent", target: "crm", content: longText };
  events[4321] = { event_id: "e4321", channel: "tool_call", source: "agent", target: "crm", content: "ssn 123-45-6789" };
  const text = JSON.stringify({ run_id: "run_big", agent_name: "big_agent", events });
  assert.ok(text.length > 5_000_000);
  const mb = `${(text.length / 1e6).toFixed(1)} MB`;

  // Every status line the row shows, in order.
  await page.evaluate(() => {
    window.statusLines = [];
    new MutationObserver(() => {
      const line = document.querySelector("tr.reading-row .status")?.textContent;
      if (line && window.statusLines.at(-1) !== line) window.statusLines.push(line);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  await dropFiles(page, [{ name: "big.json", text }]);
  await page.waitForSelector("tr.run-row", { timeout: 120_000 });
  // Reading, then each stage with the share done and, once measurable,
  // the speed: "Detecting… · 26% · 9.6 MB/s · 7.0 MB".
  const lines = await page.evaluate(() => window.statusLines);
  assert.deepEqual(lines.slice(0, 2), ["Reading…", `Reading… · ${mb}`]);
  const stages = lines.slice(2).map((l) => l.match(/^(Parsing|Detecting|Linking copies|Scoring)… · (\d+)%(?: · ([\d.]+) MB\/s)? · (.*)$/));
  assert.ok(stages.every((m) => m && m[4] === mb), lines.join("\n"));
  const percents = stages.map((m) => Number(m[2]));
  assert.ok(percents.every((p, i) => i === 0 || p >= percents[i - 1]) && percents.at(-1) >= 90, lines.join("\n"));
  const named = new Set(stages.map((m) => m[1]));
  assert.ok(["Parsing", "Detecting", "Linking copies", "Scoring"].every((s) => named.has(s)), lines.join("\n"));
  assert.ok(stages.some((m) => Number(m[3]) > 0), "no speed shown");

  const [row] = await runRows(page);
  assert.deepEqual([row.kind, row.runId, row.consistent], ["trace", "run_big", "true"]);
  await page.click("tr.run-row");
  await page.waitForSelector(".events-table");
  // A page of 200 events at a time.
  const eventPage = () => page.$$eval("tr.event-row", (r) => [r.length, r[0].dataset.eventId, r.at(-1).dataset.eventId]);
  assert.deepEqual(await eventPage(), [200, "e0", "e199"]);
  assert.equal(await page.textContent("#events-pager .pager-status"), "Rows 1–200 of 5 000 · page 1 of 25");
  assert.equal(await page.$eval(".events-left-out", (p) => p.dataset.leftOut), "1000");
  assert.match(await page.textContent("#events-title"), /Events \(6\u202F000\)/);
  const long = await page.textContent("#event-3 .event-text");
  assert.match(long, new RegExp(`first 2\u202F000 of 3\u202F${String(longText.length).slice(1)} characters`));
  assert.ok(!long.includes("jean.tremblay@example.com"));
  assert.equal(await page.$eval("#event-3", (r) => r.classList.contains("has-finding")), true);
  assert.deepEqual((await page.$$eval("a.event-link", (a) => a.map((e) => e.dataset.eventIndex))).sort(), ["3", "4321"]);
  // Next and last page; a finding's link turns to its event's page and focuses it.
  await page.click("#events-pager .next");
  assert.deepEqual(await eventPage(), [200, "e200", "e399"]);
  await page.click("#events-pager-bottom .last");
  assert.deepEqual(await eventPage(), [200, "e4800", "e4999"]);
  assert.equal(await page.$eval("#events-pager .next", (b) => b.disabled), true);
  await page.click('a.event-link[data-event-index="4321"]');
  await page.waitForFunction(() => document.activeElement?.id === "event-4321");
  assert.deepEqual(await eventPage(), [200, "e4200", "e4399"]);
  assert.equal(await page.$eval("#events-pager", (p) => p.dataset.page), "21");
  assert.deepEqual(await page.$$eval("tr.event-row.highlighted", (r) => r.map((e) => e.dataset.eventId)), ["e4321"]);
  await page.click("#events-pager .first");
  assert.deepEqual(await eventPage(), [200, "e0", "e199"]);
  mkdirSync(outDir, { recursive: true });
  await page.$eval("#event-3", (e) => e.scrollIntoView({ block: "center" }));
  await page.screenshot({ path: join(outDir, "trace-large.png") });

  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

/** The rates table as its cells, trailing empty cells dropped (as the CLI's text table prints them). */
async function ratesTable(page) {
  return page.$$eval("#rates-table tbody tr", (rows) => rows.map((r) => {
    const cells = [...r.cells].map((c) => c.textContent.trim());
    while (cells.length && cells[cells.length - 1] === "") cells.pop();
    return cells;
  }));
}

/** `agentrisk batch ARGS…` (built by cargo if needed): the rows of its text table. */
function cliRates(args) {
  const cli = spawnSync("cargo", ["run", "--offline", "-q", "-p", "agentrisk-cli", "--bin", "agentrisk", "--", "batch", ...args],
    { cwd: root, encoding: "utf8" });
  // 2: some files were skipped (the traces the reference rejects too).
  assert.ok([0, 2].includes(cli.status), cli.stderr);
  // Line 1 names the batch and the method, notes may follow (runs from span
  // exports, runs with no events), then the column heads and the rows.
  const lines = cli.stdout.split("\n");
  const heads = lines.findIndex((l) => l.startsWith("Group "));
  return lines.slice(heads + 1).filter((l) => l.trim()).map((l) => l.trim().split(/ {2,}/));
}

test("the Batch tab shows the CLI's rates for every fixture trace, exports them, and its scorecard loads back the same batch", async () => {
  const { page, requests, errors } = await openViewer();
  const names = readdirSync(cases).filter((n) => existsSync(join(cases, n, "trace.json"))).sort();
  assert.ok(names.length > 200, `${names.length} cases`);
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-batch-"));
  const files = names.map((n) => ({ name: `${n}.json`, text: traceOf(n) }));
  for (const f of files) writeFileSync(join(dir, f.name), f.text);
  await dropFiles(page, files);
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row, tr.error-row").length === n, names.length, { timeout: 120_000 });
  const loaded = await page.$$eval("tr.run-row", (r) => r.length);
  await page.click("#tab-batch");
  await page.waitForSelector("#rates-table");
  assert.equal(await page.getAttribute(".batch", "data-runs"), String(loaded));

  // Same rows, same cells as `agentrisk batch` on the same files (the
  // rejected traces are skipped by both).
  const shown = await ratesTable(page);
  assert.equal(shown.length, 16);
  assert.deepEqual(shown, cliRates([dir]));
  assert.equal(shown[0][1], "Leak rate");
  assert.equal(shown[0][3], String(loaded));
  assert.match(await page.textContent(".batch .method"), /Wilson score interval, 95%, no continuity correction/);
  // Two fixture traces have no events: the CLI's note, in the page.
  assert.equal(await page.textContent("#batch-notes"), "2 runs had no events: nothing was analysed in them");

  // Many cells: the run heatmap is a canvas; the arrow keys read its cells.
  assert.equal(await page.getAttribute("#heat-run", "data-render"), "canvas");
  await page.focus("#heat-run canvas");
  await page.keyboard.press("ArrowRight");
  assert.match(await page.textContent("#heat-run .chart-status"), /^Run #2 \S+ \(\S+\.json\) · final_output · (RI \d\.\d{4}|no events on this channel)$/);

  // The rates CSV holds exactly the rows on screen.
  const rates = await exported(page, "#export-rates");
  assert.equal(rates.name, "agentrisk-rates.csv");
  const lines = rates.text.trimEnd().split("\r\n");
  assert.equal(lines[0], "Group,Metric,k,n,Rate,95% interval,Note");
  // (No cell of this batch holds a comma, so a plain split reads the CSV.)
  assert.deepEqual(lines.slice(1).map((l) => l.split(",")), shown.map((r) => [...r, ...Array(7 - r.length).fill("")]));

  // Settings change every interval, to what the CLI gives for them.
  await page.fill("#confidence", "90");
  await page.dispatchEvent("#confidence", "change");
  await page.check("#continuity");
  await page.waitForFunction(() => document.querySelector(".batch .method").textContent.includes("90%, with continuity correction"));
  const at90 = await ratesTable(page);
  assert.deepEqual(at90, cliRates([dir, "--confidence", "0.9", "--continuity-correction"]));
  assert.notDeepEqual(at90.map((r) => r[5]), shown.map((r) => r[5]));
  // An invalid level says so and changes nothing.
  await page.fill("#confidence", "120");
  await page.dispatchEvent("#confidence", "change");
  assert.match(await page.textContent(".controls [role=alert]"), /not a percentage above 50 and below 100/);
  assert.deepEqual(await ratesTable(page), at90);

  // The scorecard, dropped on a fresh page, is the same batch.
  const card = await exported(page, "#export-scorecard");
  const parsed = JSON.parse(card.text);
  assert.equal(parsed.format, "agentrisk-scorecard");
  assert.equal(parsed.version, 1);
  assert.equal(parsed.runs.length, loaded);
  // When it was written, in UTC, as the CLI's batch --scorecard writes it.
  assert.match(parsed.generated_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
  assert.ok(Math.abs(Date.parse(parsed.generated_at) - Date.now()) < 600_000, parsed.generated_at);
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "batch-all-fixtures.png"), fullPage: true });
  const again = await openViewer();
  await dropFiles(again.page, [{ name: "scorecard.json", text: card.text }]);
  await again.page.waitForSelector('tr.batch-row[data-kind="scorecard"]');
  await again.page.click("#tab-batch");
  await again.page.waitForSelector("#rates-table");
  assert.deepEqual(await ratesTable(again.page), shown);
  assert.deepEqual(again.errors, []);
  await again.page.close();

  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("in the Batch tab a heatmap cell names its run, channel and value, and a click opens that run", async () => {
  const { page, requests, errors } = await openViewer();
  await dropFiles(page, exampleCases.map((name) => ({ name: `${name}.json`, text: traceOf(name) })));
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 10);
  await page.click("#tab-batch");
  await page.waitForSelector("#heat-run rect.cell");
  assert.equal(await page.getAttribute("#heat-run", "data-render"), "svg");
  // Column 7 is the 8th example in name order, ex_healthcare_trace; row 3 is tool_call.
  const report = JSON.parse(fixture("ex_healthcare_trace"));
  const ri = report.agentrisk.ri_by_channel.tool_call;
  const cell = '#heat-run rect.cell[data-column="7"][data-row="3"]';
  await page.hover(cell);
  assert.equal(await page.textContent("#heat-run .chart-status"),
    `Run #8 ${report.run_id} (ex_healthcare_trace.json) · tool_call · RI ${ri.toFixed(4)}`);
  assert.equal(Number(await page.getAttribute(cell, "data-value")), ri);
  // The level heatmap and its table agree.
  const levelTable = await page.$$eval("#level-table tbody tr", (rows) => rows.map((r) => [...r.cells].slice(1).map((c) => Number(c.textContent))));
  const levelCells = await page.$$eval("#heat-level rect.cell", (cells) => cells.map((c) => [Number(c.dataset.row), Number(c.dataset.column), Number(c.dataset.value)]));
  for (const [row, column, value] of levelCells) assert.equal(value, levelTable[row][column]);
  // The forest plot's table has n in the labels' place.
  const forest = await page.$$eval("#forest-table tbody tr", (rows) => rows.map((r) => [r.dataset.channel, r.cells[2].textContent]));
  for (const [channel, n] of forest) assert.ok((await page.textContent("#forest")).includes(`${channel} (n=${n})`), channel);

  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "batch.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(outDir, "batch-dark.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "light" });

  // Removing a run is one click, and every number follows: 9 runs, 4 leaky.
  await page.click('#batch-run-table tr[data-run-id="run_hr_001"] button[aria-label^="Remove"]');
  await page.waitForFunction(() => document.querySelector(".batch").dataset.runs === "9");
  assert.deepEqual((await ratesTable(page))[0], ["(all runs)", "Leak rate", "4", "9", "44.4%", "18.9–73.3%"]);
  assert.equal(await page.$$eval("#heat-run rect.cell", (c) => c.length), 9 * 6);

  await page.click(cell);
  await page.waitForSelector(`.run-detail[data-run-id="${report.run_id}"]`);
  assert.equal(await page.getAttribute("#tab-runs", "aria-selected"), "true");
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("Open folder loads a folder's JSON files with their sub-folders, and the Batch tab groups by them", async () => {
  const { page, errors } = await openViewer();
  const dir = join(mkdtempSync(join(tmpdir(), "agentrisk-folder-")), "nightly");
  for (const [sub, names] of [["clean", exampleCases.filter((n) => n.includes("clean"))], ["leaky", exampleCases.filter((n) => !n.includes("clean"))]]) {
    mkdirSync(join(dir, sub), { recursive: true });
    for (const n of names) writeFileSync(join(dir, sub, `${n}.json`), traceOf(n));
  }
  writeFileSync(join(dir, "notes.txt"), "not a run");
  await page.setInputFiles("#folder-input", dir);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 10);
  assert.equal(await page.$$eval("tr.error-row", (r) => r.length), 0, "notes.txt is not loaded");
  await page.click("#tab-batch");
  await page.selectOption("#group-by", "folder");
  await page.waitForSelector("#batch-focus");
  const groups = await page.$$eval("#rates-table tbody tr", (rows) => [...new Set(rows.map((r) => r.dataset.group))]);
  assert.deepEqual(groups, ["(all runs)", "nightly/clean", "nightly/leaky"]);
  const leak = await page.$$eval('#rates-table tr[data-metric="Leak rate"]', (rows) => rows.map((r) => [r.dataset.group, r.dataset.k, r.dataset.n]));
  assert.deepEqual(leak, [["(all runs)", "5", "10"], ["nightly/clean", "0", "5"], ["nightly/leaky", "5", "5"]]);
  // The charts and verdicts of one group.
  await page.selectOption("#batch-focus", "nightly/leaky");
  await page.waitForFunction(() => document.querySelector('.verdict-table tr[data-verdict="Pass"]').dataset.count === "0");
  assert.equal(await page.$$eval("#heat-run rect.cell", (c) => c.length), 5 * 6);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a folder dropped on the page loads like Open folder: its JSON files with their paths, grouped by sub-folder", async () => {
  const { page, errors } = await openViewer();
  const dir = join(mkdtempSync(join(tmpdir(), "agentrisk-drop-")), "weekly");
  for (const [sub, names] of [["clean", exampleCases.filter((n) => n.includes("clean")).slice(0, 2)], ["leaky", exampleCases.filter((n) => !n.includes("clean")).slice(0, 3)]]) {
    mkdirSync(join(dir, sub), { recursive: true });
    for (const n of names) writeFileSync(join(dir, sub, `${n}.json`), traceOf(n));
  }
  writeFileSync(join(dir, "notes.txt"), "not a run");
  // A real drag from outside the page, as the operating system delivers it.
  const cdp = await context.newCDPSession(page);
  const box = await page.locator("#dropzone").boundingBox();
  const at = { x: box.x + 50, y: box.y + 50 };
  const data = { items: [], files: [dir], dragOperationsMask: 1 };
  for (const type of ["dragEnter", "dragOver", "drop"]) await cdp.send("Input.dispatchDragEvent", { type, ...at, data });
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 5, null, { timeout: 30_000 });
  const files = await page.$$eval("tr.run-row", (rows) => rows.map((r) => r.dataset.file).sort());
  assert.ok(files.every((f) => /^weekly\/(clean|leaky)\/ex_.*_trace\.json$/.test(f)), files.join(", "));
  await page.click("#tab-batch");
  await page.selectOption("#group-by", "folder");
  const groups = await page.$$eval("#rates-table tbody tr", (rows) => [...new Set(rows.map((r) => r.dataset.group))]);
  assert.deepEqual(groups, ["(all runs)", "weekly/clean", "weekly/leaky"]);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the run view's findings filter, search, sort and export exactly the rows shown; a value is revealed only on request", async () => {
  const { page, requests, errors } = await openViewer();
  await dropFiles(page, [{ name: "hr.json", text: traceOf("ex_hr_trace") }, { name: "fin.json", text: traceOf("ex_finance_trace") }]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2);
  const report = JSON.parse(fixture("ex_hr_trace"));
  await page.click(`tr.run-row[data-run-id="${report.run_id}"]`);
  await page.waitForSelector(".findings-table");
  // INDEX.md: 6 of 9 secrets leaked; the final answer has no finding.
  assert.match(await page.textContent("#plain-summary"), /^The final answer is clean, but 6 of 9 secrets( \(\d critical\))? leaked through .+\.$/);
  const ids = () => page.$$eval(".findings-table tbody tr", (rows) => rows.map((r) => r.dataset.findingId));
  assert.deepEqual(await ids(), report.findings.map((f) => f.finding_id));

  // Channel filter.
  await page.selectOption("#filter-channel", "log");
  const onLog = report.findings.filter((f) => f.channel === "log");
  assert.ok(onLog.length > 0);
  assert.deepEqual(await ids(), onLog.map((f) => f.finding_id));
  await page.selectOption("#filter-channel", "");
  // Text search (case-insensitive, over every column), then a regex.
  const type = report.findings[0].data_type;
  await page.fill("#finding-search", type.toUpperCase());
  assert.deepEqual(await ids(), report.findings.filter((f) => Object.values(f).some((v) => String(v).toLowerCase().includes(type))).map((f) => f.finding_id));
  await page.check("#finding-regex");
  await page.fill("#finding-search", "^(log|tool_call)$");
  const logOrTool = report.findings.filter((f) => ["log", "tool_call"].includes(f.channel));
  assert.deepEqual(await ids(), logOrTool.map((f) => f.finding_id));
  await page.fill("#finding-search", "([");
  assert.match(await page.textContent(".findings-filters [role=alert]"), /Not a valid regular expression/);
  await page.fill("#finding-search", "^(log|tool_call)$");
  // Sort by level, highest first: click twice.
  await page.click('.findings-table th:nth-child(3) button');
  await page.click('.findings-table th:nth-child(3) button');
  const levels = await page.$$eval(".findings-table tbody tr td:nth-child(3)", (c) => c.map((e) => e.textContent));
  assert.deepEqual(levels, [...levels].sort().reverse());
  assert.equal(levels.length, logOrTool.length);
  // The CSV export holds exactly these rows, in this order.
  const csv = await exported(page, "#export-findings-csv");
  assert.equal(csv.name, `${report.run_id}-findings.csv`);
  const lines = csv.text.trimEnd().split("\r\n");
  assert.equal(lines[0], "Channel,Data type,Level,Value (redacted),Detector,Event,Source,Target");
  assert.deepEqual(lines.slice(1).map((l) => l.split(",")[2]), levels);
  const json = JSON.parse((await exported(page, "#export-findings-json")).text);
  assert.equal(json.length, logOrTool.length);
  assert.ok(json.every((f) => !("matched_value" in f)));

  // The full value appears only after "reveal" on that one finding.
  const first = await page.$eval(".findings-table tbody tr", (r) => r.dataset.findingId);
  const row = `.findings-table tr[data-finding-id="${first}"]`;
  assert.equal(await page.$$eval(".revealed", (e) => e.length), 0);
  await page.click(`${row} button.reveal`);
  const full = await page.textContent(`${row} .revealed`);
  const redacted = report.findings.find((f) => f.finding_id === first).redacted_value;
  assert.equal(full.length, redacted.length);
  assert.notEqual(full, redacted);
  assert.equal(await page.$$eval(".revealed", (e) => e.length), 1);

  // From an event to its finding, and the event list filtered by channel.
  await page.fill("#finding-search", "");
  await page.uncheck("#finding-regex");
  const chip = await page.$eval(".event-row.has-finding .finding-chip", (c) => c.dataset.findingId);
  await page.click(`.finding-chip[data-finding-id="${chip}"] a`);
  await page.waitForFunction((id) => document.activeElement?.dataset.findingId === id, chip);
  await page.selectOption("#event-channel", "log");
  const channels = await page.$$eval(".event-row", (rows) => rows.map((r) => r.querySelector("td:nth-child(3)").textContent.trim()));
  assert.ok(channels.length > 0 && channels.every((c) => c === "log"), channels.join(","));
  assert.match(await page.getAttribute(".run-detail .gauge", "aria-label"), /^Risk Index gauge at 58% of the scale$/);
  await page.selectOption("#event-channel", "");

  // Shortcuts: next run, help, theme.
  await page.click("body", { position: { x: 5, y: 5 } });
  await page.keyboard.press("j");
  await page.waitForFunction(() => document.querySelector(".run-detail")?.dataset.runId === "run_finance_001");
  await page.keyboard.press("k");
  await page.waitForFunction((id) => document.querySelector(".run-detail")?.dataset.runId === id, report.run_id);
  await page.keyboard.press("?");
  assert.equal(await page.$eval("#help", (d) => d.open), true);
  assert.match(await page.textContent("#help"), /next run/);
  await page.click("#help-close");
  await page.keyboard.press("t");
  const theme = await page.$eval("html", (h) => h.dataset.theme);
  assert.ok(["light", "dark"].includes(theme));
  await page.keyboard.press("t");
  assert.notEqual(await page.$eval("html", (h) => h.dataset.theme), theme);
  // The choice is kept for the next visit; later tests follow the system again.
  await page.evaluate(() => localStorage.removeItem("agentrisk-theme"));

  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a run's findings and events show 200 rows a page; a link turns to its row's page, filters start again at page 1, printing lists every row", async () => {
  const { page, errors } = await openViewer();
  // One distinct e-mail address per event (and what else the detectors see in it): over 450 findings.
  const events = Array.from({ length: 450 }, (_, i) => ({ event_id: `m${i}`, channel: "tool_call", source: "agent", target: "crm", content: `mail user${i}@example.com` }));
  await dropFiles(page, [{ name: "mails.json", text: JSON.stringify({ run_id: "run_mails", events }) }]);
  await page.click("tr.run-row[data-verdict]");
  await page.waitForSelector(".findings-table");
  const findingPage = () => page.$$eval(".findings-table tbody tr", (r) => r.map((e) => e.dataset.findingId));
  const status = (pager) => page.textContent(`${pager} .pager-status`);
  const total = await page.$eval(".findings-count", (p) => Number(p.dataset.shown));
  const pages = Math.ceil(total / 200);
  assert.ok(total > 450 && total < 1000, `${total} findings`);
  assert.equal((await findingPage()).length, 200);
  assert.equal(await status("#findings-pager"), `Rows 1\u2013200 of ${total} \u00B7 page 1 of ${pages}`);
  assert.equal(await page.$eval("#findings-pager .previous", (b) => b.disabled), true);
  await page.click("#findings-pager .last");
  const last = await findingPage();
  assert.equal(last.length, total - 200 * (pages - 1));
  assert.equal(await status("#findings-pager-bottom"), `Rows ${200 * (pages - 1) + 1}\u2013${total} of ${total} \u00B7 page ${pages} of ${pages}`);

  // The last page's first finding, from its event: the link turns the event list to that event's page.
  const target = last[0];
  const eventIndex = await page.$eval(`tr[data-finding-id="${target}"] a.event-link`, (a) => Number(a.dataset.eventIndex));
  await page.click(`tr[data-finding-id="${target}"] a.event-link`);
  await page.waitForFunction((id) => document.activeElement?.id === id, `event-${eventIndex}`);
  assert.equal(await page.$eval("#events-pager", (p) => Number(p.dataset.page)), Math.floor(eventIndex / 200));
  // Back to the findings' first page; the event's chip turns it to the finding's page again.
  await page.click("#findings-pager .first");
  assert.ok(!(await findingPage()).includes(target));
  await page.click(`#event-${eventIndex} .finding-chip[data-finding-id="${target}"] a`);
  await page.waitForFunction((id) => document.activeElement?.dataset.findingId === id, target);
  assert.equal(await page.$eval("#findings-pager", (p) => Number(p.dataset.page)), pages - 1);

  // A filter starts again at page 1, and a table that fits one page has no pager.
  await page.fill("#finding-search", "crm");
  assert.deepEqual([await page.$eval(".findings-count", (p) => Number(p.dataset.shown)), await page.$eval("#findings-pager", (p) => p.dataset.page)], [total, "0"]);
  await page.fill("#finding-search", "m44");
  const few = await page.$eval(".findings-count", (p) => Number(p.dataset.shown));
  assert.ok(few >= 11 && few <= 200, `${few} findings`);
  assert.deepEqual([(await findingPage()).length, await page.$$eval("#findings-pager", (p) => p.length)], [few, 0]);
  await page.fill("#finding-search", "");

  // Leak paths (one per address) are paged too.
  const [, paths, pathPages] = (await status("#paths-pager")).match(/^Rows 1\u2013200 of (\d+) \u00B7 page 1 of (\d+)$/).map(Number);
  assert.ok(paths >= 450 && pathPages === Math.ceil(paths / 200), `${paths} leak paths on ${pathPages} pages`);
  assert.equal(await page.$$eval("#paths-table tbody tr", (r) => r.length), 200);

  // Printing every finding draws every row, then goes back to pages.
  await page.evaluate(() => {
    window.print = () => {
      window.printed = [".findings-table tbody tr", "tr.event-row", "#paths-table tbody tr", ".pager"].map((s) => document.querySelectorAll(s).length);
    };
  });
  await page.click("#print-expanded");
  await page.waitForFunction(() => window.printed);
  assert.deepEqual(await page.evaluate(() => window.printed), [total, 450, paths, 0]);
  await page.waitForFunction(() => document.querySelectorAll("tr.event-row").length === 200);
  assert.deepEqual(errors, []);
  await page.close();
});

test("what-if scoring analyses the traces again and re-scores the reports: the numbers shown are the CLI's for the exported agentleak.yaml", async () => {
  const { page, requests, errors } = await openViewer();
  const files = [
    { name: "hr.json", text: traceOf("ex_hr_trace") },
    { name: "fin.json", text: traceOf("ex_finance_trace") },
    { name: "hc.json", text: traceOf("ex_healthcare_trace") },
    { name: "hc.report.json", text: fixture("ex_healthcare_trace") },
  ];
  await dropFiles(page, files);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 4);
  const before = await runRows(page);
  await page.click("#tab-scoring");
  // An invalid weight names the field and changes nothing.
  await page.fill("#weight-1", "0");
  await page.click("#apply-scoring");
  assert.match(await page.textContent("#scoring-error"), /^scoring\.weights/);
  assert.equal(await page.$$eval("#whatif-banner", (b) => b.length), 0);
  // Weights 1, 3, 9, 27 and a gate at 60.
  for (const [i, w] of [[1, "1"], [2, "3"], [3, "9"], [4, "27"]]) await page.fill(`#weight-${i}`, w);
  await page.fill("#fail-below", "60");
  await page.click("#apply-scoring");
  await page.waitForSelector("#whatif-banner");
  const yaml = (await exported(page, "#export-config")).text;
  assert.match(yaml, /weights: \[1, 3, 9, 27\]/);
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-whatif-"));
  writeFileSync(join(dir, "agentleak.yaml"), yaml);
  const cli = (args) => spawnSync("cargo", ["run", "--offline", "-q", "-p", "agentrisk-cli", "--bin", "agentrisk", "--", ...args],
    { cwd: root, encoding: "utf8" }).stdout;
  const expected = {};
  for (const { name, text } of files) {
    writeFileSync(join(dir, name), text);
    const r = name.endsWith(".report.json")
      ? JSON.parse(cli(["score", "--json", "-c", join(dir, "agentleak.yaml"), join(dir, name)]))[0]
      : JSON.parse(cli(["run", "-q", "-c", join(dir, "agentleak.yaml"), "-t", join(dir, name), "-o", "-"]));
    expected[name] = [r.risk_index, r.privacy_score, r.verdict, String(r.blocked)];
  }
  // The report, re-scored, has the numbers its own trace gets.
  assert.deepEqual(expected["hc.report.json"], expected["hc.json"]);
  await page.click("#tab-runs");
  await page.waitForFunction((want) => [...document.querySelectorAll("tr.run-row")].every((r) => Number(r.dataset.riskIndex) === want[r.dataset.file][0]), expected);
  const after = await runRows(page);
  assert.deepEqual(Object.fromEntries(after.map((r) => [r.file, [Number(r.riskIndex), Number(r.privacyScore), r.verdict, r.blocked]])), expected);
  assert.notDeepEqual(after.map((r) => r.riskIndex), before.map((r) => r.riskIndex));
  assert.deepEqual(after.map((r) => r.rescored), ["false", "false", "false", "true"]);
  // The report's run view says it was re-scored, with the numbers its file stores.
  await page.click('tr.run-row[data-file="hc.report.json"]');
  await page.waitForSelector("#report-rescored");
  assert.equal(await page.textContent("#stored-numbers"), "RI 0.4400 · privacy score 56 · High risk · blocked");
  await page.$eval("#report-rescored", (e) => e.scrollIntoView({ block: "center" }));
  await page.screenshot({ path: join(outDir, "report-rescored.png") });
  // A scorecard's rows cannot be re-scored (it stores no weights); the banner says so.
  const scorecard = cli(["batch", "--scorecard", "-", join(dir, "hr.json")]);
  await dropFiles(page, [{ name: "card.json", text: scorecard }]);
  await page.waitForSelector("#whatif-scorecards");
  assert.match(await page.textContent("#whatif-scorecards"), /^1 run from scorecards keeps its stored numbers/);
  // Reset is one click and brings back the reference's numbers.
  await page.click("#whatif-banner button");
  await page.waitForFunction(() => !document.querySelector("#whatif-banner"));
  await page.waitForFunction((want) => [...document.querySelectorAll("tr.run-row")].every((r, i) => r.dataset.riskIndex === want[i]), before.map((r) => r.riskIndex));
  assert.equal(await page.$("#report-rescored"), null, "back to the stored numbers");
  // An imported config fills the panel and applies it.
  await page.click("#tab-scoring");
  await page.setInputFiles("#import-config", { name: "agentleak.yaml", mimeType: "text/yaml", buffer: Buffer.from("scoring:\n  weights: [2, 2, 2, 2]\n") });
  await page.waitForSelector("#whatif-banner");
  assert.equal(await page.inputValue("#weight-3"), "2");
  assert.equal(await page.isChecked("#detector-finance"), false, "a config file switches finance off, as the reference does");
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the view lives in the URL hash: a reload with it reopens the same tab, settings and run once the files are loaded", async () => {
  const { page, requests, errors } = await openViewer();
  const files = ["ex_hr_trace", "ex_finance_trace"].map((n) => ({ name: `${n}.json`, text: traceOf(n) }));
  await dropFiles(page, files);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2);
  await page.click('tr.run-row[data-run-id="run_finance_001"]');
  await page.selectOption("#filter-channel", "tool_call");
  await page.click("#tab-batch");
  await page.selectOption("#group-by", "agent");
  await page.check("#continuity");
  await page.waitForFunction(() => location.hash.includes("cc=1"));
  const hash = await page.evaluate(() => location.hash);
  assert.equal(hash, "#tab=batch&run=ex_finance_trace.json&cc=1&group=agent&fch=tool_call");
  // Nothing read from a file is in it: no run id, no value.
  assert.ok(!hash.includes("run_finance_001"));

  await page.reload();
  await page.waitForSelector(WORKER_READY);
  await dropFiles(page, files);
  await page.waitForSelector("#rates-table");
  assert.equal(await page.getAttribute("#tab-batch", "aria-selected"), "true");
  assert.equal(await page.inputValue("#group-by"), "agent");
  assert.equal(await page.isChecked("#continuity"), true);
  await page.click("#tab-runs");
  await page.waitForSelector('.run-detail[data-run-id="run_finance_001"]');
  assert.equal(await page.inputValue("#filter-channel"), "tool_call");
  assert.ok((await page.$$eval(".findings-table tbody tr", (r) => r.map((e) => e.dataset.channel))).every((c) => c === "tool_call"));

  // What-if settings in a link are applied too.
  await page.evaluate(() => { location.hash = "#w=1,3,9,27"; });
  await page.reload();
  await page.waitForSelector(WORKER_READY);
  await dropFiles(page, files.slice(0, 1));
  await page.waitForSelector("tr.run-row");
  assert.match(await page.textContent("#whatif-banner"), /weights \[1, 3, 9, 27\]/);
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("comparing a leaky and a clean run lists the leaky run's secrets as resolved; comparing groups shows the difference's interval", async () => {
  const { page, requests, errors } = await openViewer();
  const names = ["ex_hr_trace", "ex_hr_clean_trace", "ex_finance_trace", "ex_finance_clean_trace"];
  await dropFiles(page, names.map((n) => ({ name: `${n}.json`, text: traceOf(n) })));
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 4);
  await page.click("#tab-compare");
  const value = (name) => page.$eval("#compare-a", (s, name) => [...s.options].find((o) => o.textContent === `run ${name}.json`).value, name);
  await page.selectOption("#compare-a", await value("ex_hr_trace"));
  await page.selectOption("#compare-b", await value("ex_hr_clean_trace"));
  await page.waitForSelector("#compare-deltas");
  const leaky = JSON.parse(fixture("ex_hr_trace"));
  const expected = [...new Set(leaky.findings.map((f) => `${f.data_type}|${f.redacted_value}|${f.channel}`))].sort();
  const resolved = await page.$$eval("#resolved-leaks tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(resolved.map(([type, , channel, value]) => `${type}|${value}|${channel}`).sort(), expected);
  assert.equal(await page.$$eval("#new-leaks tbody tr", (r) => r.length), 0);
  assert.equal(await page.textContent('#compare-deltas tr[data-field="Risk Index"] td:nth-child(4)'), `${(-leaky.risk_index).toFixed(4)}`);
  assert.deepEqual([...new Set(await page.$$eval("#compare-channels tbody tr", (r) => r.map((e) => e.dataset.direction)))], ["better"]);

  // Groups: by scenario family, then the leaky pair against the clean pair.
  await page.click("#tab-batch");
  await page.selectOption("#group-by", "agent");
  await page.click("#tab-compare");
  await page.selectOption("#compare-a", "group:hr_case_agent");
  await page.selectOption("#compare-b", "group:loan_review_agent");
  await page.waitForSelector("#compare-rates");
  const leak = await page.$$eval('#compare-rates tr[data-metric="leak_rate"] td', (c) => c.map((e) => e.textContent));
  // NEW − BASE with Newcombe's interval: statsmodels'
  // confint_proportions_2indep(1, 2, 1, 2, method="newcomb") = (−0.5734, 0.5734).
  assert.deepEqual(leak, ["1/2 · 50.0% (9.5–90.5%)", "1/2 · 50.0% (9.5–90.5%)", "0.0 pts", "−57.3 to +57.3 pts", "interval holds 0"]);
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, "compare.png"), fullPage: true });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: join(outDir, "compare-dark.png"), fullPage: true });
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

/** axe-core's serious and critical violations on the page as it is (run through the devtools protocol, outside the page's CSP). */
async function accessibilityProblems(page) {
  const source = readFileSync(join(root, "node_modules", "axe-core", "axe.min.js"), "utf8");
  const results = await page.evaluate(async (source) => {
    if (!window.axe) (0, eval)(source);
    return window.axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } });
  }, source);
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
}

test("axe-core finds no serious or critical accessibility problem on the main views, light and dark", async () => {
  const { page, errors } = await openViewer();
  const views = {};
  views.empty = await accessibilityProblems(page);
  await dropFiles(page, ["ex_hr_trace", "ex_hr_clean_trace", "ex_finance_trace"].map((n) => ({ name: `${n}.json`, text: traceOf(n) })));
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 3);
  await page.click('tr.run-row[data-run-id="run_hr_001"]');
  await page.waitForSelector(".events-table");
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.click("#tab-runs");
    views[`run view ${scheme}`] = await accessibilityProblems(page);
    await page.click("#tab-batch");
    await page.waitForSelector("#rates-table");
    views[`batch ${scheme}`] = await accessibilityProblems(page);
    await page.click("#tab-compare");
    views[`compare ${scheme}`] = await accessibilityProblems(page);
    await page.click("#tab-scoring");
    views[`scoring ${scheme}`] = await accessibilityProblems(page);
  }
  await page.click("#help-button");
  views.help = await accessibilityProblems(page);
  for (const [view, problems] of Object.entries(views)) assert.deepEqual(problems, [], view);
  assert.deepEqual(errors, []);
  await page.close();
});

test("print: a summary mode and an expanded mode with a page header, saved as PDFs; Markdown and run-table exports", async () => {
  const { page, errors } = await openViewer();
  await dropFiles(page, [{ name: "hr.json", text: traceOf("ex_hr_trace") }, { name: "bad.json", text: "{" }]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 2);
  const table = (await exported(page, "#export-run-table")).text.trimEnd().split("\r\n");
  assert.equal(table.length, 3);
  assert.match(table[1], /^hr\.json,run_hr_001,hr_case_agent,0\.5833,42,High risk,Not blocked,analysed here,not reviewed$/);
  assert.match(table[2], /^bad\.json,,,,,,,"not loaded: line 1, column 2: invalid JSON/);
  await page.click('tr.run-row[data-run-id="run_hr_001"]');
  await page.waitForSelector(".events-table");
  const md = (await exported(page, "#export-markdown")).text;
  assert.ok(md.startsWith("# Run `run_hr_001`\n"), md);
  assert.match(md, /\| 0\.5833 \| 42 \| High risk \| not blocked \|/);

  await page.emulateMedia({ media: "print" });
  const shown = (sel) => page.$$eval(sel, (els) => els.filter((e) => getComputedStyle(e).display !== "none").length);
  assert.equal(await shown(".print-header"), 1);
  assert.match(await page.textContent(".print-header"), /printed .* · 2 files: hr\.json, bad\.json · scoring: AgentLeak's reference defaults/);
  assert.equal(await shown(".tabs, header.top .actions"), 0);
  await page.evaluate(() => document.documentElement.setAttribute("data-print", "summary"));
  assert.equal(await shown(".run-detail .findings-section"), 0);
  mkdirSync(outDir, { recursive: true });
  await page.pdf({ path: join(outDir, "run-summary.pdf"), format: "A4", printBackground: true });
  await page.evaluate(() => document.documentElement.setAttribute("data-print", "expanded"));
  assert.equal(await shown(".run-detail .findings-section"), 1);
  const events = await page.$$eval(".event-row", (rows) => rows.map((r) => [r.classList.contains("has-finding"), getComputedStyle(r).display !== "none"]));
  assert.ok(events.some(([f]) => !f) && events.every(([f, visible]) => f === visible), "only events with findings print");
  await page.pdf({ path: join(outDir, "run-expanded.pdf"), format: "A4", printBackground: true });
  assert.deepEqual(errors, []);
  await page.close();
});

test("dist/ works under a sub-path, opens same-origin files named by #src= after a prompt, and works offline after the first visit", async () => {
  const hostRoot = mkdtempSync(join(tmpdir(), "agentrisk-host-"));
  cpSync(dist, join(hostRoot, "tools", "viewer"), { recursive: true });
  mkdirSync(join(hostRoot, "reports"));
  writeFileSync(join(hostRoot, "reports", "hr.json"), fixture("ex_hr_trace"));
  const host = await serve(hostRoot);
  const link = `${host.url}tools/viewer/#src=../../reports/hr.json&src=https://example.com/x.json`;
  const { page, requests, errors } = await openPage(context, link).catch((e) => {
    host.server.close();
    throw e;
  });
  try {
    await page.waitForSelector("#src-prompt");
    assert.match(await page.textContent("#src-prompt"), /https:\/\/example\.com\/x\.json: not a file of this site, so it is not opened/);
    await page.waitForSelector(WORKER_READY);
    assert.ok(!requests.some((u) => u.includes("reports/hr.json")), "nothing is fetched before the reviewer agrees");
    await page.click("#src-open");
    await page.waitForSelector("tr.run-row");
    const report = JSON.parse(fixture("ex_hr_trace"));
    const [row] = await runRows(page);
    assert.deepEqual([row.runId, Number(row.riskIndex), row.verdict], [report.run_id, report.risk_index, report.verdict]);
    assert.equal(await page.textContent("tr.run-row td.run-id .file"), "../../reports/hr.json");
    assert.ok(requests.every((u) => u.startsWith(host.url)), requests.filter((u) => !u.startsWith(host.url)).join(", "));

    // Offline: the service worker has this build's files.
    await page.evaluate(() => navigator.serviceWorker.ready);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    await context.setOffline(true);
    await page.goto(`${host.url}tools/viewer/`);
    await page.waitForSelector(WORKER_READY);
    await page.click("#load-example");
    await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 6);
    assert.equal(await page.$$eval("tr.error-row", (r) => r.length), 0);
    const cached = await page.evaluate(async () => (await Promise.all((await caches.keys()).map(async (k) => (await (await caches.open(k)).keys()).map((r) => r.url)))).flat());
    assert.ok(cached.length > 5 && cached.every((u) => u.startsWith(`${host.url}tools/viewer/`)), cached.join(", "));
  } finally {
    await context.setOffline(false);
    await page.close();
    host.server.close();
  }
  assert.deepEqual(errors.filter((e) => !e.includes("ERR_INTERNET_DISCONNECTED")), []);
});

test("the run view draws the reference's flow graph and leak paths, and lists the compliance controls at risk with a no-legal-advice note", async () => {
  const { page, requests, errors } = await openViewer();
  await dropFiles(page, [{ name: "hr.json", text: traceOf("ex_hr_trace") }]);
  await page.click('tr.run-row[data-run-id="run_hr_001"]');
  await page.waitForSelector("#flow-table");
  const report = JSON.parse(fixture("ex_hr_trace"));
  const edges = await page.$$eval("#flow-table tbody tr", (rows) => rows.map((r) => [...r.cells].map((c) => c.textContent)));
  assert.deepEqual(edges, report.flow.edges.map((e) => [e.source, e.target, e.channel, String(e.count), e.leaked ? e.level_label : "—"]));
  assert.equal(await page.$$eval(".flow-graph .edge", (g) => g.length), report.flow.edges.length);
  assert.equal(await page.$$eval('.flow-graph .edge[data-leaked="true"]', (g) => g.length), report.flow.edges.filter((e) => e.leaked).length);
  assert.deepEqual(await page.$$eval(".flow-graph .node", (g) => g.map((n) => n.dataset.node)), report.flow.nodes.map((n) => n.id));
  assert.deepEqual(await page.$$eval("#paths-table tbody tr", (r) => r.map((e) => [e.dataset.type, e.querySelector(".value").textContent])),
    report.leak_paths.map((p) => [p.data_type, p.value]), "leak paths with the reference's redacted values");
  assert.match(await page.textContent("#compliance-disclaimer"), /^Not legal advice\./);
  const atRisk = report.compliance.frameworks.flatMap((f) => f.controls.filter((c) => c.status === "at_risk").map((c) => c.id));
  assert.deepEqual(await page.$$eval("#controls-table tbody tr", (r) => r.map((e) => e.dataset.control)), atRisk);
  mkdirSync(outDir, { recursive: true });
  await page.locator(".run-detail .flow").screenshot({ path: join(outDir, "flow.png") });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.locator(".run-detail .flow").screenshot({ path: join(outDir, "flow-dark.png") });
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a report whose stored numbers were edited is flagged inconsistent, with the stored numbers shown", async () => {
  const { page } = await openViewer();
  const tampered = JSON.parse(fixture("ex_education_trace"));
  tampered.privacy_score = 95;
  tampered.verdict = "Pass";
  await dropFiles(page, [{ name: "tampered.json", text: JSON.stringify(tampered) }]);
  await page.waitForSelector("tr.run-row");
  const [row] = await runRows(page);
  assert.deepEqual([row.privacyScore, row.verdict, row.consistent], ["95", "Pass", "false"]);
  await page.click("tr.run-row");
  const box = await page.textContent(".inconsistent");
  assert.match(box, /privacy_score.*95.*33/s);
  await page.close();
});

test("Load example loads the bundled sample reports, and Load example traces the example traces, from the site itself", async () => {
  const { page, requests, errors } = await openViewer();
  await page.click("#load-example");
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 6);
  const rows = await runRows(page);
  assert.deepEqual(rows.map((r) => [r.runId, r.privacyScore, r.verdict]), [
    ["run_healthcare_001", "56", "High risk"],
    ["run_finance_001", "30", "Fail"],
    ["run_hr_001", "42", "High risk"],
    ["run_support_001", "60", "High risk"],
    ["run_education_001", "33", "Fail"],
    ["run_healthcare_clean_001", "100", "Pass"],
  ]);
  assert.ok(rows.every((r) => r.consistent === "true"));
  assertOnlyOwnRequests(requests);
  assert.ok(site.requests.some((u) => u.endsWith("samples/healthcare_trace.report.json")));
  // One more click: the ten example traces themselves, analysed here.
  await page.click("#load-example-traces");
  await page.waitForFunction(() => document.querySelectorAll('tr.run-row[data-kind="trace"]').length === 10);
  const traces = (await runRows(page)).filter((r) => r.kind === "trace");
  assert.deepEqual(traces.map((r) => [r.runId, Number(r.riskIndex)]), exampleCases.map((n) => {
    const r = JSON.parse(fixture(n));
    return [r.run_id, r.risk_index];
  }));
  assert.deepEqual(errors, []);
  await page.close();
});

test("the built index.html carries a strict Content-Security-Policy", () => {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1];
  assert.ok(csp, "CSP meta tag present");
  const directives = Object.fromEntries(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
  assert.deepEqual(directives["default-src"], ["'none'"]);
  assert.deepEqual(directives["connect-src"], ["'self'"]);
  assert.deepEqual(directives["style-src"], ["'self'"]);
  const scripts = directives["script-src"];
  assert.deepEqual(scripts.slice(0, 2), ["'self'", "'wasm-unsafe-eval'"]);
  assert.ok(scripts.slice(2).length >= 1 && scripts.slice(2).every((s) => /^'sha256-[A-Za-z0-9+/=]+'$/.test(s)), scripts.join(" "));
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("'unsafe-eval'") && !csp.includes("*"));
  assert.doesNotMatch(html, /https?:\/\//, "no absolute URL anywhere in index.html");
});
