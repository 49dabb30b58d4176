// What the end-to-end tests and the browser benchmarks share: Debian's
// Chromium started the way these machines need it (no sandbox, no GPU, no
// background connections to Google's hosts), a drop of files on the page as
// a browser delivers it, and the renderer processes' memory.
import { readdirSync, readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

/** A persistent context on a fresh profile named `prefix…` in the temp folder. */
export function launchChromium(prefix, extraArgs = []) {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), prefix)), {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run", "--disable-quic", ...extraArgs],
  });
}

/** A new page of `context`, gone to `url`, whose console errors and uncaught
 * errors collect in `errors` (its worker's too, and every request it or its
 * worker makes in `requests`); each dialog it opens is dismissed, its
 * message kept in `dialogs`. */
export async function openPage(context, url) {
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  const dialogs = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  page.on("worker", (w) => w.on("console", (m) => m.type() === "error" && errors.push(`worker: ${m.text()}`)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(url);
  return { page, requests, errors, dialogs };
}

/** Drops `files` (`{ name, text }`, or `{ name, bytes }` with `bytes` an
 * array of byte values) on the page: a DataTransfer on a drop event. */
export async function dropFiles(page, files) {
  const dataTransfer = await page.evaluateHandle((files) => {
    const dt = new DataTransfer();
    for (const { name, text, bytes } of files) {
      dt.items.add(new File([bytes ? new Uint8Array(bytes) : text], name, { type: "application/json" }));
    }
    return dt;
  }, files);
  await page.dispatchEvent("#dropzone", "drop", { dataTransfer });
}

/** Resident memory (bytes) of Chromium's renderer processes, summed. */
export function rendererRss() {
  let total = 0;
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("--type=renderer")) continue;
      const line = readFileSync(`/proc/${pid}/status`, "latin1").split("\n").find((l) => l.startsWith("VmRSS:"));
      total += Number(line.split(/\s+/)[1]) * 1024;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}
