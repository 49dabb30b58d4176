// End-to-end: OpenTelemetry span exports dropped on the page — a run per
// conversation with the CLI's numbers, each event naming its span, the span
// mapping switched in the What-if tab, and the converted trace exported as
// the reference would read it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { dropFiles } from "./chromium.mjs";
import { assertOnlyOwnRequests, exported, openViewer, root, serveViewer } from "./fixture.mjs";

serveViewer("agentrisk-spans-");

const spans = join(root, "tests", "fixtures", "spans");
const runRows = (page) => page.$$eval("tr.run-row", (rows) => rows.map((r) => ({ ...r.dataset })));

test("a span export is a row per conversation, its events name their spans, and the mapping switch and trace export work", async () => {
  const { page, requests, errors } = await openViewer();
  const twoSessions = readFileSync(join(spans, "lc_two_sessions.otlp.json"), "utf8");
  await dropFiles(page, [
    { name: "lc_two_sessions.otlp.json", text: twoSessions },
    { name: "genai_openai_chat.otlp.json", text: readFileSync(join(spans, "genai_openai_chat.otlp.json"), "utf8") },
    { name: "binary.otlp.pb", bytes: [...readFileSync(join(spans, "binary.otlp.pb"))] },
  ]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row, tr.error-row").length === 4);

  // Two conversations, two rows of one file, with `agentrisk batch`'s numbers.
  const rows = await runRows(page);
  assert.deepEqual(
    rows.map((r) => [r.file, r.runId, r.privacyScore, r.verdict, r.blocked, r.spanFormat, r.spanMapping, r.noEvents]),
    [
      ["lc_two_sessions.otlp.json", "lc_two_sessions.otlp#s-1", "100", "Pass", "false", "OTLP JSON", "structural", undefined],
      ["lc_two_sessions.otlp.json", "lc_two_sessions.otlp#s-2", "0", "Fail", "true", "OTLP JSON", "structural", undefined],
      ["genai_openai_chat.otlp.json", "genai_openai_chat.otlp", rows[2].privacyScore, rows[2].verdict, rows[2].blocked, "OTLP JSON", "structural", undefined],
    ],
  );
  assert.match(await page.textContent('tr.run-row[data-run-id="lc_two_sessions.otlp#s-1"]'), /OTLP JSON · structural/);
  const binary = await page.$eval("tr.error-row", (r) => ({ file: r.dataset.file, text: r.textContent }));
  assert.equal(binary.file, "binary.otlp.pb");
  assert.match(binary.text, /binary OTLP \(protobuf\).*export OTLP JSON instead/);
  assert.match(await page.textContent(".print-header"), /3 files: lc_two_sessions\.otlp\.json, genai_openai_chat\.otlp\.json, binary\.otlp\.pb .*span mapping: structural/);

  // The leaky conversation: each event names the span it came from.
  await page.click('tr.run-row[data-run-id="lc_two_sessions.otlp#s-2"]');
  await page.waitForSelector('.run-detail[data-run-id="lc_two_sessions.otlp#s-2"] .events-table td.span-ref');
  assert.match(await page.textContent("#run-badges"), /^OTLP JSON · structural \d+ spans · conversation s-2/);
  const exported_spans = JSON.parse(twoSessions).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
  const known = new Map(exported_spans.map((s) => [s.spanId, [s.name, s.traceId]]));
  const shown = await page.$$eval(".events-table td.span-ref", (cells) => cells.map((c) => [c.dataset.spanId, c.dataset.spanName, c.dataset.traceId, c.textContent]));
  assert.ok(shown.length > 0);
  for (const [spanId, name, traceId, text] of shown) {
    assert.deepEqual(known.get(spanId), [name, traceId], `span ${spanId}`);
    assert.ok(text.includes(name) && text.includes(spanId), text);
  }
  // Its trace, as the structural mapping made it, named after the run.
  const own = await exported(page, "#export-trace");
  assert.equal(own.name, "lc_two_sessions.otlp_s-2.trace.json");
  assert.equal(JSON.parse(own.text).run_id, "lc_two_sessions.otlp#s-2");

  // The reference mapping: the whole file is one run, and GenAI spans give it no events.
  await page.click("#tab-scoring");
  assert.equal(await page.textContent("#span-mapping-in-force"), "In force: structural");
  await page.check("#span-mapping-reference");
  await page.waitForSelector("#span-mapping-in-force:has-text('In force: reference')");
  await page.click("#tab-runs");
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2
    && [...document.querySelectorAll("tr.run-row")].every((r) => r.dataset.spanMapping === "reference"));
  const reference = JSON.parse(readFileSync(join(spans, "reference", "lc_two_sessions.otlp.json.report.json"), "utf8"));
  assert.deepEqual((await runRows(page)).map((r) => [r.runId, Number(r.riskIndex), Number(r.privacyScore), r.verdict, r.blocked, r.noEvents]), [
    [reference.run_id, reference.risk_index, reference.privacy_score, reference.verdict, String(reference.blocked), undefined],
    ["genai_openai_chat.otlp", 0, 100, "Pass", "false", "true"],
  ]);
  assert.match(await page.textContent('tr.run-row[data-no-events="true"]'), /no events: nothing was analysed/);
  assert.match(await page.textContent(".print-header"), /span mapping: reference/);

  // Export as AgentLeak trace: the reference's own trace_from_spans events
  // (the reference stamps each event with the time it converted it; the
  // export leaves the time out).
  await page.click(`tr.run-row[data-run-id="${reference.run_id}"]`);
  await page.waitForSelector("#export-trace");
  const trace = await exported(page, "#export-trace");
  assert.equal(trace.name, "lc_two_sessions.otlp.trace.json");
  const expected = JSON.parse(readFileSync(join(spans, "reference", "lc_two_sessions.otlp.json.trace.json"), "utf8"));
  assert.deepEqual(JSON.parse(trace.text).events, expected.events.map(({ timestamp, ...event }) => event));
  assert.equal(expected.events.length, 12);

  // Removing the span export's row removes the file.
  await page.click('button[aria-label="Remove lc_two_sessions.otlp.json"]');
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 1);
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});
