// End-to-end hardening: files written by someone else are data, never code;
// nothing read from them is stored or sent; a dying worker is replaced and
// the other files keep their results; files over the size limit are refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropFiles } from "./chromium.mjs";
import { assertOnlyOwnRequests, cases, context, dist, openViewer, outDir, serveViewer, site, traceOf, WORKER_READY } from "./fixture.mjs";
import { cases as malformed, configTrace, writeCases } from "../malformed/cases.mjs";

serveViewer("agentrisk-hardening-");

const loadedRows = (page) => page.$$eval("tr.run-row", (rows) => rows.map((r) => ({ ...r.dataset })));
async function waitForRows(page, n) {
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row, tr.error-row, tr.batch-row").length >= n
    && !document.querySelector("tr.reading-row"), n, { timeout: 60_000 });
}

// Every way a string could try to become markup, script or a request, and
// the characters that hide or reorder text.
const hostile = {
  img: `<img src=x onerror="window.__pwned='img'">`,
  script: `<script>window.__pwned='script'</script>`,
  js: `javascript:window.__pwned='href'`,
  svg: `<svg onload="window.__pwned='svg'"><script>window.__pwned='svg-script'</script></svg>`,
  css: `<style>body{display:none}</style><link rel=stylesheet href="http://evil.example/x.css">`,
  rtl: "report\u202Egnp.exe",
  zeroWidth: "ali\u200Bce",
  control: "bell\u0007esc\u001b[31m",
};

function hostileTrace() {
  return JSON.stringify({
    run_id: `run ${hostile.img}`,
    agent_name: `agent ${hostile.script}`,
    scenario_id: hostile.js,
    events: [
      { channel: "user_input", source: hostile.svg, target: "orchestrator",
        content: `Email ${hostile.zeroWidth}@example.com about SSN 123-45-6789 ${hostile.css}` },
      { channel: "tool_call", source: "orchestrator", target: hostile.rtl,
        content: { [hostile.img]: `<a href="${hostile.js}">card 4111 1111 1111 1111</a>`, note: hostile.control } },
      { channel: "final_output", source: hostile.rtl, target: "user",
        content: `Done: 123-45-6789 ${hostile.script} ${hostile.control}` },
    ],
  });
}

function hostileReport() {
  const report = JSON.parse(readFileSync(join(cases, "ex_healthcare_trace", "report.default.json"), "utf8"));
  report.run_id = `report ${hostile.svg}`;
  report.agent_name = hostile.img;
  for (const f of report.findings) {
    f.source = hostile.rtl;
    f.target = hostile.script;
  }
  return JSON.stringify(report);
}

test("markup, scripts, javascript: URLs and SVG in files stay inert text; hidden characters are shown by code point", async () => {
  const { page, requests, errors, dialogs } = await openViewer({ until: WORKER_READY });
  const before = await page.evaluate(() => ({ scripts: document.scripts.length, links: document.querySelectorAll("link").length }));
  await dropFiles(page, [
    { name: `${hostile.img}.json`, text: hostileTrace() },
    { name: `${hostile.rtl}.json`, text: hostileReport() },
    { name: "clean.json", text: traceOf("ex_healthcare_clean_trace") },
  ]);
  await waitForRows(page, 3);
  const rows = await loadedRows(page);
  assert.equal(rows.length, 3, JSON.stringify(rows));
  const trace = rows.find((r) => r.kind === "trace" && r.runId.startsWith("run "));
  assert.equal(trace.runId, `run ${hostile.img}`, "the run id is kept exactly, as data");

  // Every view that shows file strings: the table, the run view (header,
  // findings, events, flow graph), the Batch and Compare tabs.
  const tableText = await page.textContent("section.runs");
  assert.ok(tableText.includes(`run ${hostile.img}`) && tableText.includes(`agent ${hostile.script}`), tableText);
  assert.ok(tableText.includes("report⟨U+202E⟩gnp.exe.json"), "the RTL override is shown by code point");
  await page.click(`tr.run-row[data-run-id^="run "]`);
  await page.waitForSelector("#run-title");
  const detail = await page.textContent(".run-detail");
  assert.ok(detail.includes(hostile.svg), "an SVG source is shown as text");
  assert.ok(detail.includes("report⟨U+202E⟩gnp.exe"), "an RTL target is shown by code point");
  assert.ok(detail.includes("bell⟨U+0007⟩esc⟨U+001B⟩[31m"), "control characters are shown by code point");
  assert.ok(detail.includes("ali⟨U+200B⟩ce"), "a zero-width space is shown by code point");
  assert.ok((await page.$$(".run-detail .hidden-char")).length >= 4);
  await page.screenshot({ path: join(outDir, "hostile.png"), fullPage: true });
  await page.click(`tr.run-row[data-run-id^="report "]`);
  await page.waitForSelector(`.run-detail[data-run-id^="report "]`);
  assert.ok((await page.textContent(".run-detail")).includes(`report ${hostile.svg}`));
  await page.click("#tab-batch");
  await page.waitForSelector("#heat-run");
  assert.ok((await page.textContent(".batch")).includes(`run ${hostile.img}`), "the batch's run table shows the run id as text");
  await page.click("#tab-compare");
  const option = (name) => page.$eval("#compare-a", (s, name) => [...s.options].find((o) => o.textContent.includes(name)).value, name);
  await page.selectOption("#compare-a", await option("onerror"));
  await page.selectOption("#compare-b", await option("clean.json"));
  await page.waitForSelector("#resolved-leaks tbody tr");

  const after = await page.evaluate(() => ({
    pwned: window.__pwned,
    scripts: document.scripts.length,
    links: document.querySelectorAll("link").length,
    injected: document.querySelectorAll("img, iframe, object, embed, style, body script, a[href^='javascript:' i]").length,
    handlers: [...document.querySelectorAll("*")].flatMap((e) => [...e.attributes].map((a) => a.name))
      .filter((n) => n.startsWith("on")),
    hidden: getComputedStyle(document.body).display,
  }));
  assert.deepEqual(after, { pwned: undefined, scripts: before.scripts, links: before.links, injected: 0, handlers: [], hidden: "block" });
  assert.deepEqual(dialogs, []);
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("nothing read from a file is kept in localStorage, sessionStorage, IndexedDB, cookies, caches or the URL", async () => {
  const { page, errors } = await openViewer({ until: WORKER_READY });
  const trace = traceOf("ex_healthcare_trace");
  await dropFiles(page, [{ name: "session.json", text: trace }, { name: "hostile.json", text: hostileTrace() }]);
  await waitForRows(page, 2);
  await page.click(`tr.run-row[data-run-id="run_healthcare_001"]`);
  await page.waitForSelector("#run-title");
  await page.fill("#finding-search", "Tremblay");
  await page.click("#theme-toggle");
  await page.click("#tab-batch");
  await page.waitForSelector("#heat-run");
  // Strings of the files: run ids, agent names, secrets, event texts.
  const needles = ["run_healthcare_001", "patient_summary_agent", "Tremblay", "123-456-789", "TREM12345678",
    "diabetes", "123-45-6789", "__pwned", "4111"];
  const stored = await page.evaluate(async () => {
    const dump = (s) => Object.fromEntries(Object.keys(s).map((k) => [k, s.getItem(k)]));
    const databases = indexedDB.databases ? (await indexedDB.databases()).map((d) => d.name) : [];
    const cached = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) cached.push(request.url);
    }
    return { local: dump(localStorage), session: dump(sessionStorage), databases, cookie: document.cookie,
      url: location.href, cached, history: history.state };
  });
  assert.deepEqual(Object.keys(stored.local), ["agentrisk-theme"], JSON.stringify(stored.local));
  assert.ok(["light", "dark"].includes(stored.local["agentrisk-theme"]));
  assert.deepEqual(stored.session, {});
  assert.deepEqual(stored.databases, []);
  assert.equal(stored.cookie, "");
  assert.deepEqual(await context.cookies(), []);
  assert.ok(stored.cached.every((u) => u.startsWith(site.url)), stored.cached.join("\n"));
  assert.ok(!stored.cached.some((u) => /session\.json|hostile\.json/.test(u)), "dropped files never reach the cache");
  const everything = JSON.stringify(stored);
  for (const needle of needles) assert.ok(!everything.includes(needle), `${needle} was stored: ${everything}`);
  assert.ok(stored.url.includes("tab=batch"), "the hash holds the view, and only the view");
  assert.deepEqual(errors, []);
  await page.close();
});

test("a worker that dies or panics is replaced: the file it had fails, every other file keeps its result, new files load", async () => {
  const { page, errors } = await openViewer({ until: WORKER_READY });
  await dropFiles(page, [
    { name: "a.json", text: traceOf("ex_healthcare_trace") },
    { name: "b.json", text: traceOf("ex_healthcare_clean_trace") },
  ]);
  await waitForRows(page, 2);
  const first = await loadedRows(page);
  assert.equal(first.length, 2);
  // The one live analysis worker, other than `old`: a replaced one stays
  // listed until its close event, and the page may not have seen the crash
  // yet when the check runs, so wait until only a new one is left.
  const analysisWorker = async (old = null) => {
    for (let tries = 0; tries < 400; tries++) {
      const live = page.workers().filter((w) => w.url().includes("worker"));
      if (live.length === 1 && live[0] !== old) return live[0];
      await page.waitForTimeout(50);
    }
    throw new Error(old ? "no new analysis worker replaced the dead one" : "no single analysis worker");
  };

  // An uncaught error kills the worker: nothing was in flight, so nothing fails.
  const dead = await analysisWorker();
  await dead.evaluate(() => setTimeout(() => { throw new Error("simulated crash"); }, 0));
  const replacement = await analysisWorker(dead);
  assert.notEqual(replacement, dead, "a new worker runs");
  await page.waitForFunction(() => document.querySelector("#dropzone")?.dataset.worker === "ready"
    && document.querySelectorAll("tr.run-row").length === 2, null, { timeout: 30_000 });
  assert.deepEqual(await loadedRows(page), first, "the loaded files keep their results");

  // A panic report names the file being analysed: that file fails, the rest stay.
  await dropFiles(page, [{ name: "c.json", text: traceOf("ex_finance_trace") }]);
  await waitForRows(page, 3);
  await (await analysisWorker()).evaluate(() => postMessage(JSON.stringify({ crashed: { id: 3, message: "simulated panic" } })));
  await page.waitForSelector(`tr.error-row[data-file="c.json"]`);
  assert.match(await page.textContent(`tr.error-row[data-file="c.json"]`), /the analysis worker failed: simulated panic/);
  await page.waitForFunction(() => document.querySelector("#dropzone")?.dataset.worker === "ready");
  assert.deepEqual(await loadedRows(page), first);

  // The replacement analyses new files, and what-if settings reach the re-sent traces.
  await dropFiles(page, [{ name: "d.json", text: traceOf("ex_finance_trace") }]);
  await page.waitForSelector(`tr.run-row[data-file="d.json"]`, { timeout: 30_000 });
  assert.equal((await loadedRows(page)).length, 3);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a file over the per-tab size limit gets an error row naming the limit and the CLI; the others load", async () => {
  const { page, errors } = await openViewer({ until: WORKER_READY });
  await page.evaluate(() => {
    const chunk = new Uint8Array(1_000_000).fill(32);
    window.__huge = new File([...Array(200).fill(chunk), new Uint8Array(1)], "huge.json");
  });
  const dataTransfer = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(window.__huge);
    dt.items.add(new File([text], "small.json"));
    return dt;
  }, traceOf("ex_healthcare_trace"));
  await page.dispatchEvent("#dropzone", "drop", { dataTransfer });
  await page.waitForSelector(`tr.error-row[data-file="huge.json"]`);
  assert.match(await page.textContent(`tr.error-row[data-file="huge.json"]`),
    /the file is 200\.0 MB, more than the 200\.0 MB one browser tab can analyse; analyse it with the agentrisk command/);
  await page.waitForSelector(`tr.run-row[data-file="small.json"]`);
  assert.deepEqual(errors, []);
  await page.close();
});

test("the CSP's script hashes are exactly those of index.html's inline scripts", () => {
  const html = readFileSync(join(dist, "index.html"), "utf8");
  const csp = html.match(/http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? "";
  const allowed = csp.split(";").map((d) => d.trim().split(/\s+/)).find(([k]) => k === "script-src").slice(3).sort();
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)]
    .map((m) => `'sha256-${createHash("sha256").update(m[1]).digest("base64")}'`).sort();
  assert.ok(inline.length >= 1, "Trunk's bootstrap is inline");
  assert.deepEqual(allowed, inline, "each allowed hash is an inline script of the page, and each inline script is allowed");
  assert.doesNotMatch(html, /\son[a-z]+=/i, "no inline event handler attribute");
});

test("every file of the malformed-input set gets an error row naming the place and the problem, or its run; the others keep theirs", async () => {
  const dir = writeCases(mkdtempSync(join(tmpdir(), "agentrisk-malformed-")), { only: (c) => c.kind !== "config" });
  writeFileSync(join(dir, "good.json"), traceOf("ex_healthcare_trace"));
  const chosen = malformed.filter((c) => c.kind !== "config");
  const { page, requests, errors } = await openViewer({ until: WORKER_READY });
  await page.setInputFiles("#file-input", [...chosen.map((c) => join(dir, c.file)), join(dir, "good.json")]);
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row, tr.error-row").length === n,
    chosen.length + 1, { timeout: 300_000 });
  const rows = await page.$$eval("tr.run-row, tr.error-row", (rows) =>
    Object.fromEntries(rows.map((r) => [r.dataset.file, { ok: r.classList.contains("run-row"), text: r.textContent, events: r.dataset.runId }])));
  const wrong = [];
  for (const c of chosen) {
    const row = rows[c.file];
    const expect = c.viewer ?? c.expect;
    if (!row) wrong.push(`${c.name}: no row`);
    else if (expect.valid && !row.ok) wrong.push(`${c.name}: expected a run, got ${row.text}`);
    else if (!expect.valid && (row.ok || !row.text.includes(expect.where) || !row.text.includes(expect.what))) {
      wrong.push(`${c.name}: expected ${expect.where} … ${expect.what}, got ${row.ok ? "a run" : row.text}`);
    }
  }
  assert.deepEqual(wrong, []);
  const good = await page.$eval(`tr.run-row[data-file="good.json"]`, (r) => ({ ...r.dataset }));
  assert.equal(good.riskIndex, "0.44");
  assert.equal(await page.$("#internal-error"), null, "no panic");
  assertOnlyOwnRequests(requests);
  assert.deepEqual(errors, []);
  await page.close();
});

test("every config of the malformed-input set, imported as what-if settings, is refused inline with its place, or applied", async () => {
  const dir = writeCases(mkdtempSync(join(tmpdir(), "agentrisk-configs-")), { only: (c) => c.kind === "config" });
  const { page, errors } = await openViewer({ until: WORKER_READY });
  await dropFiles(page, [{ name: configTrace.name, text: configTrace.bytes().toString("utf8") }]);
  await waitForRows(page, 1);
  await page.click("#tab-scoring");
  const wrong = [];
  for (const c of malformed.filter((c) => c.kind === "config")) {
    await page.click("#reset-scoring");
    await page.setInputFiles("#import-config", join(dir, c.file));
    await page.waitForTimeout(300);
    const error = await page.$eval("#scoring-error", (e) => e.textContent).catch(() => null);
    const { valid, where, what } = c.expect;
    if (valid && error) wrong.push(`${c.name}: refused: ${error}`);
    if (!valid && where === "vault") {
      // Only a trace can be too big for a vault: the settings apply, and
      // that trace gets the error, as it does in the CLI.
      if (error) wrong.push(`${c.name}: refused on import: ${error}`);
      await page.click("#tab-runs");
      const row = await page.waitForSelector(`tr.error-row[data-file="${configTrace.name}"]`, { timeout: 10_000 }).then((r) => r.textContent()).catch(() => "");
      if (!row.includes(what)) wrong.push(`${c.name}: the trace's row says ${row}`);
      await page.click("#tab-scoring");
    } else if (!valid && !(error?.includes(`${c.file}: `) && error.includes(where) && error.includes(what))) {
      wrong.push(`${c.name}: expected ${c.file}: ${where} … ${what}, got ${error}`);
    }
  }
  // Back to the defaults, the trace has its run again.
  await page.click("#reset-scoring");
  await page.click("#tab-runs");
  await page.waitForSelector(`tr.run-row[data-file="${configTrace.name}"]`);
  assert.deepEqual(wrong, []);
  assert.equal(await page.$("#internal-error"), null, "no panic");
  assert.deepEqual(errors, []);
  await page.close();
});
