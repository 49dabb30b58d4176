// What the viewer's end-to-end test files share: where things are, one
// fixture that starts Chromium (and serves dist/) for a file's tests, one
// way to open the viewer, and one way to read what it downloads. Launching
// Chromium and opening a page are chromium.mjs's; serving is serve.mjs's.
import { before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { launchChromium, openPage } from "./chromium.mjs";
import { serve } from "./serve.mjs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const dist = join(root, "dist");
export const cases = join(root, "tests", "fixtures", "conformance", "cases");
export const outDir = join(root, "tests", "e2e", "out");
/** A conformance case's trace, as text. */
export const traceOf = (name) => readFileSync(join(cases, name, "trace.json"), "utf8");

/** The newest `agentrisk` built (release or debug), to check the page's
 * numbers against. */
export function cli() {
  const built = ["release", "debug"]
    .map((profile) => join(root, "target", profile, "agentrisk"))
    .filter((bin) => existsSync(bin))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (built.length === 0) throw new Error("no agentrisk binary: run cargo build -p agentrisk-cli");
  return built[0];
}

/** What the page shows once its worker has said it is ready. */
export const WORKER_READY = '#dropzone[data-worker="ready"]';

// Set by the before hooks below; node runs each test file in its own
// process, so each file has its own.
export let site;
export let context;

/** Starts Chromium on a fresh profile named `prefix…` (`context`) before
 * the file's tests, and closes it after. */
export function startChromium(prefix) {
  before(async () => {
    context = await launchChromium(prefix);
  });
  after(async () => {
    await context?.close();
  });
}

/** Chromium as `startChromium` starts it, and dist/ served (`site`) for
 * the file's tests. */
export function serveViewer(prefix) {
  startChromium(prefix);
  before(async () => {
    site = await serve(dist);
  });
  after(() => {
    site?.server.close();
  });
}

/** A fresh page of the viewer at `url` (the served dist/), once `until`
 * shows: by default the Load example button, the page's first render.
 * Its requests, console errors and dialogs collect as `openPage` says. */
export async function openViewer({ url = site.url, until = "#load-example" } = {}) {
  const opened = await openPage(context, url);
  await opened.page.waitForSelector(until);
  return opened;
}

/** Clicks `selector` and returns the download it starts: its suggested name and its text. */
export async function exported(page, selector) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click(selector)]);
  return { name: download.suggestedFilename(), text: readFileSync(await download.path(), "utf8") };
}

/** Every request went to the served site, and there were some. */
export function assertOnlyOwnRequests(requests) {
  const foreign = requests.filter((u) => !u.startsWith(site.url));
  assert.deepEqual(foreign, [], "every request stays on the site's own origin");
  assert.ok(requests.length > 0);
}
