// Embedding: a page on another local port opens the built viewer in an
// <iframe> and hands it files by postMessage. The port is allowed by an
// embed.json written into a copy of dist/ (never into www/); a page on a
// port not listed is ignored. Also: the npm package's ES module in a plain
// page. Numbers are checked against the CLI's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cases, cli, context, root, startChromium, traceOf } from "./fixture.mjs";
import { serve } from "./serve.mjs";

/** What `agentrisk run -o -` says for a trace: the fields agentrisk:loaded carries. */
function cliRun(name) {
  let stdout;
  try {
    stdout = execFileSync(cli(), ["run", "-q", "-o", "-", "-t", join(cases, name, "trace.json")]);
  } catch (e) {
    stdout = e.stdout; // exit 1: the run is blocked
  }
  const r = JSON.parse(stdout.toString());
  return { run_id: r.run_id, risk_index: r.risk_index, privacy_score: r.privacy_score, verdict: r.verdict, blocked: r.blocked };
}

/** A parent page that records every message it gets, then frames `viewer`. */
function parentPage(viewer) {
  return `<!doctype html><meta charset="utf-8"><title>parent</title>
<script>window.messages = []; addEventListener("message", (e) => messages.push({ origin: e.origin, data: e.data }));</script>
<iframe id="viewer" src="${viewer}" width="1000" height="700"></iframe>`;
}

startChromium("agentrisk-embed-");

let viewerSite, allowedSite, otherSite, packageSite;
before(async () => {
  const parentDir = mkdtempSync(join(tmpdir(), "agentrisk-parent-"));
  allowedSite = await serve(parentDir);
  otherSite = await serve(parentDir);
  const copy = mkdtempSync(join(tmpdir(), "agentrisk-dist-"));
  cpSync(join(root, "dist"), copy, { recursive: true });
  writeFileSync(join(copy, "embed.json"), JSON.stringify({ allowed_origins: [allowedSite.url.replace(/\/$/, "")] }));
  viewerSite = await serve(copy);
  writeFileSync(join(parentDir, "index.html"), parentPage(viewerSite.url));

  const pkg = mkdtempSync(join(tmpdir(), "agentrisk-esm-"));
  cpSync(join(root, "target", "npm", "agentrisk"), pkg, { recursive: true });
  writeFileSync(
    join(pkg, "page.html"),
    `<!doctype html><meta charset="utf-8"><title>esm</title>
<script type="module">
import { ready, analyzeTrace, version } from "./index.js";
await ready;
const r = analyzeTrace(await (await fetch("trace.json")).text());
window.result = { version, run_id: r.run_id, risk_index: r.risk_index, privacy_score: r.privacy_score, verdict: r.verdict, blocked: r.blocked };
</script>`,
  );
  writeFileSync(join(pkg, "trace.json"), traceOf("ex_healthcare_trace"));
  packageSite = await serve(pkg);
});
after(() => {
  for (const site of [viewerSite, allowedSite, otherSite, packageSite]) site?.server.close();
});

async function openParent(site) {
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(site.url);
  await page.waitForFunction(() => messages.some((m) => m.data?.type === "agentrisk:ready"), null, { timeout: 30_000 });
  return { page, consoleLines };
}

/** Posts `message` to the framed viewer (ArrayBuffers for files given as `bytes`). */
async function post(page, message) {
  await page.evaluate((message) => {
    for (const file of message.files ?? []) {
      if (file.bytes !== undefined) {
        file.data = new TextEncoder().encode(file.bytes).buffer;
        delete file.bytes;
      }
    }
    document.getElementById("viewer").contentWindow.postMessage(message, "*");
  }, message);
}

test("an allowed parent gets ready, sends two traces and a broken file, and gets the CLI's numbers and one error", async () => {
  const { page } = await openParent(allowedSite);
  const ready = await page.evaluate(() => messages.find((m) => m.data.type === "agentrisk:ready"));
  assert.equal(ready.origin, viewerSite.url.replace(/\/$/, ""));
  assert.match(ready.data.version, /^\d+\.\d+\.\d+/);

  await post(page, { type: "agentrisk:ping" });
  await page.waitForFunction(() => messages.filter((m) => m.data.type === "agentrisk:ready").length >= 2);

  await post(page, {
    type: "agentrisk:open",
    view: "batch",
    title: "Embedded runs",
    files: [
      { name: "healthcare.json", bytes: traceOf("ex_healthcare_trace") },
      { name: "broken.json", data: '{"run_id": "x", "events": [' },
      { name: "finance.json", data: traceOf("ex_finance_trace"), folder: "team-a" },
    ],
  });
  await page.waitForFunction(() => messages.some((m) => m.data.type === "agentrisk:loaded"), null, { timeout: 60_000 });
  const loaded = (await page.evaluate(() => messages.find((m) => m.data.type === "agentrisk:loaded"))).data;
  assert.deepEqual(
    loaded.runs.sort((a, b) => a.file.localeCompare(b.file)),
    [
      { file: "finance.json", ...cliRun("ex_finance_trace") },
      { file: "healthcare.json", ...cliRun("ex_healthcare_trace") },
    ],
  );
  assert.equal(loaded.errors.length, 1);
  assert.equal(loaded.errors[0].file, "broken.json");
  assert.match(loaded.errors[0].message, /line 1/);
  // The view switched to the Batch tab, and the title is the parent's.
  const frame = page.frame({ url: (u) => u.href.startsWith(viewerSite.url) });
  assert.equal(await frame.title(), "Embedded runs");
  await frame.waitForSelector("#tab-batch[aria-selected=true]", { timeout: 10_000 });
  await page.close();
});

test("a parent on a port not listed in embed.json is ignored, with a console note", async () => {
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(otherSite.url);
  // The ready message on load goes to any parent (it tells nothing but the version).
  await page.waitForFunction(() => messages.some((m) => m.data?.type === "agentrisk:ready"), null, { timeout: 30_000 });
  await post(page, { type: "agentrisk:ping" });
  await post(page, { type: "agentrisk:open", files: [{ name: "t.json", data: traceOf("ex_hr_trace") }] });
  await page.waitForTimeout(2_000);
  const types = await page.evaluate(() => messages.map((m) => m.data.type));
  assert.deepEqual(types, ["agentrisk:ready"]);
  const origin = otherSite.url.replace(/\/$/, "");
  assert.ok(
    consoleLines.some((l) => l.includes(`ignored a agentrisk:open message from ${origin}`)),
    consoleLines.join("\n"),
  );
  await page.close();
});

test("the npm package's ES module runs analyzeTrace in a plain page", async () => {
  const page = await context.newPage();
  await page.goto(`${packageSite.url}page.html`);
  await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 });
  const result = await page.evaluate(() => window.result);
  const { version, ...numbers } = result;
  assert.deepEqual(numbers, cliRun("ex_healthcare_trace"));
  assert.match(version, /^\d+\.\d+\.\d+$/);
  await page.close();
});
