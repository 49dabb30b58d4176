// A review in the viewer, as issue 32 asks (one test, to keep CI short):
// mark one L4 secret of an example trace a false positive (by keyboard) and
// accept another until a future date, sign the run off, export the review
// file; reload, drop the traces with the review file: the same decisions
// and reviewed numbers, which `agentrisk run --review` gives too (exit
// status included); a decision matching no run is listed; an expired
// acceptance blocks again; the Batch tab reads its rates as reviewed; Save
// as one file carries the review, verified when reopened from disk, and a
// changed review file shows as modified.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dropFiles } from "./chromium.mjs";
import { context, exported, openViewer, outDir, root, serveViewer } from "./fixture.mjs";

serveViewer("agentrisk-review-");

const examples = join(root, "www", "samples", "traces");
const TRACES = ["healthcare_trace.json", "finance_trace.json"];
const traces = TRACES.map((name) => ({ name, text: readFileSync(join(examples, name), "utf8") }));
// "Today" is an input: fixed here, so that the expiry below is in the future.
const TODAY = "2026-06-01";
const UNTIL = "2030-01-01";
const row = (value) => `#review-secrets tr.secret-row[data-value="${value}"]`;
const FALSE_POSITIVE = "di****es"; // health_condition, L4
const ACCEPTED = "TR********78"; // health_identifier, L4
/** The healthcare run's secret groups as decided here. */
const DECIDED = {
  [ACCEPTED]: "accepted_risk", [FALSE_POSITIVE]: "false_positive", "je*********************om": "undecided", "Je*********ay": "undecided",
};

/** `agentrisk run --review` on an example trace: its reviewed numbers and exit status. */
function cliReviewed(trace, review, today) {
  const bin = join(root, "target", "release", "agentrisk");
  assert.ok(existsSync(bin), "no target/release/agentrisk: cargo build --release -p agentrisk-cli");
  const run = spawnSync(bin, ["run", "-q", "-o", "-", "-t", join(examples, trace), "--review", review, "--today", today], { encoding: "utf8" });
  const r = JSON.parse(run.stdout).reviewed;
  return { status: run.status, numbers: { riskIndex: String(r.risk_index), privacyScore: String(r.privacy_score), verdict: r.verdict, blocked: String(r.blocked) } };
}

/** The run view's reviewed numbers, as its attributes say. */
function reviewedNumbers(page) {
  return page.$eval("#review-numbers tr.reviewed-numbers", (tr) => ({
    riskIndex: tr.dataset.riskIndex, privacyScore: tr.dataset.privacyScore, verdict: tr.dataset.verdict, blocked: tr.dataset.blocked,
  }));
}

/** Each secret row's decision, by redacted value. */
function decisions(page) {
  return page.$$eval("#review-secrets tr.secret-row", (trs) => Object.fromEntries(trs.map((tr) => [tr.dataset.value, tr.dataset.decision])));
}

async function setDate(page, date) {
  await page.fill("#review-date", date);
  await page.waitForSelector(`#review-numbers tr.reviewed-numbers th:text-is("As reviewed (${date})")`);
}

async function openRun(page, file) {
  await page.click(`tr.run-row[data-file="${file}"]`);
  await page.waitForSelector("#review");
}

test("a reviewer triages and signs off in the browser, hands the review file to the CLI with the same numbers, and publishes it verified", async () => {
  const work = mkdtempSync(join(tmpdir(), "agentrisk-review-"));
  const { page, errors } = await openViewer();
  await page.setViewportSize({ width: 1366, height: 900 });
  await dropFiles(page, traces);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2);
  await openRun(page, "healthcare_trace.json");
  await page.fill("#reviewer", "Dana");
  await page.fill("#review-date", TODAY);

  // By keyboard: the radio, Space, Tab to the rationale, type, Tab past the
  // expiry (only an accepted risk has one) to Save, Enter.
  await page.focus(`${row(FALSE_POSITIVE)} input[value=false_positive]`);
  await page.keyboard.press("Space");
  await page.keyboard.press("Tab");
  await page.keyboard.type("the text of a drug leaflet, not the patient's record");
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Save");
  await page.keyboard.press("Enter");
  await page.waitForSelector(`${row(FALSE_POSITIVE)}[data-decision=false_positive]`);
  await page.check(`${row(ACCEPTED)} input[value=accepted_risk]`);
  await page.fill(`${row(ACCEPTED)} .rationale`, "a test patient's identifier; the fix ships in June");
  await page.fill(`${row(ACCEPTED)} .expires`, UNTIL);
  await page.click(`${row(ACCEPTED)} .save-decision`);
  await page.waitForSelector(`${row(ACCEPTED)}[data-decision=accepted_risk]`);
  await page.selectOption("#sign-off-choice", "approved");
  await page.fill("#sign-off-note", "checked with the ward");
  await page.click("#sign-off-save");
  await page.waitForSelector("#sign-off[data-status=approved]");

  const reviewed = await reviewedNumbers(page);
  // docs/review.md: WSL 11 − 4 over ρ_S 25 − 4; the accepted L4 does not block.
  assert.deepEqual(reviewed, { riskIndex: "0.3333", privacyScore: "67", verdict: "High risk", blocked: "false" });
  const table = () => page.$$eval("tr.run-row", (trs) => trs.map((tr) => [tr.dataset.file, tr.dataset.review]));
  assert.deepEqual(await table(), [["healthcare_trace.json", "approved"], ["finance_trace.json", "not reviewed"]]);
  await page.screenshot({ path: join(outDir, "review-run-view.png"), fullPage: true });

  const file = await exported(page, "#export-review");
  assert.equal(file.name, "review.json");
  const review = JSON.parse(file.text);
  assert.equal(review.format, "agentrisk-review");
  assert.deepEqual(review.decisions.map((d) => [d.value, d.decision, d.expires, d.reviewer, d.decided_at]),
    [[FALSE_POSITIVE, "false_positive", null, "Dana", TODAY], [ACCEPTED, "accepted_risk", UNTIL, "Dana", TODAY]]);
  assert.deepEqual(review.runs.map((s) => [s.run_id, s.status, s.note]), [["run_healthcare_001", "approved", "checked with the ward"]]);
  assert.ok(!file.text.includes("TREM12345678"), "no raw secret in the review file");

  // The CLI's gate honours it with the same numbers and exit status.
  const reviewPath = join(work, "review.json");
  writeFileSync(reviewPath, file.text);
  const cli = cliReviewed("healthcare_trace.json", reviewPath, TODAY);
  assert.deepEqual(cli, { status: 0, numbers: reviewed });

  // A fresh visit: the traces and the review file (plus a decision for a
  // run not loaded) dropped together.
  const extra = { ...review.decisions[0], run_id: "run_hr_001", data_type: "email", value: "je*********************om" };
  const dropped = JSON.stringify({ ...review, decisions: [...review.decisions, extra] });
  await page.reload();
  await page.waitForSelector("#load-example");
  await dropFiles(page, [...traces, { name: "review.json", text: dropped }]);
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 2 && document.querySelector("#export-review"));
  assert.deepEqual(await table(), [["healthcare_trace.json", "approved"], ["finance_trace.json", "not reviewed"]]);
  const unmatched = await page.$$eval("#review-unmatched li", (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(unmatched, ["decision for run run_hr_001, email je*********************om on *: no run run_hr_001 among the runs given"]);
  await openRun(page, "healthcare_trace.json");
  await setDate(page, TODAY);
  assert.deepEqual(await decisions(page), DECIDED);
  assert.deepEqual(await reviewedNumbers(page), reviewed);
  assert.equal(await page.inputValue(`${row(ACCEPTED)} .expires`), UNTIL);
  assert.match(await page.textContent("#sign-off-status"), /^approved by Dana \(2026-06-01\): checked with the ward$/);

  // From the day the acceptance ends, it counts as confirmed: blocked again, and named.
  await setDate(page, UNTIL);
  const expired = await reviewedNumbers(page);
  assert.equal(expired.blocked, "true");
  assert.match(await page.textContent("#review-notes"), /expired: the accepted risk on health_identifier TR\*{8}78 \(on \*\) ended 2030-01-01/);
  assert.deepEqual(cliReviewed("healthcare_trace.json", reviewPath, UNTIL), { status: 1, numbers: expired });

  // The Batch tab, rates as reviewed: only finance blocks while the acceptance holds.
  await setDate(page, TODAY);
  await page.click("#tab-batch");
  await page.check("#reading-as-reviewed");
  const rate = (metric) => page.$eval(`#rates-table tr[data-group="(all runs)"][data-metric="${metric}"]`, (tr) => `${tr.dataset.k}/${tr.dataset.n}`);
  assert.equal(await rate("Block rate (as reviewed)"), "1/2");
  assert.equal(await rate("Leak rate on log (as detected)"), "2/2");
  assert.match(await page.textContent("#review-progress"), /2 of 2 runs under review: 1 approved.*; 2 of \d+ leaked secrets decided/);
  const markdown = await exported(page, "#export-batch-markdown");
  assert.match(markdown.text, /\| \(all runs\) \| Block rate \(as reviewed\) \| 1 \| 2 \|/);
  const rates = await exported(page, "#export-rates");
  assert.match(rates.text, /\(all runs\),Block rate \(as reviewed\),1,2,/);
  await page.click("#tab-runs");

  // Save as one file carries the review; reopened from disk, it is verified
  // and shows the decisions.
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 60_000 }), page.click("#save-pack")]);
  const pack = join(work, "reviewed.html");
  await download.saveAs(pack);
  assert.deepEqual(errors, []);
  await page.close();
  const opened = async (path) => {
    const { page, errors } = await openViewer({ url: pathToFileURL(path).href, until: "#provenance" });
    await page.waitForFunction(() => ["verified", "modified", "unverifiable"].includes(document.querySelector("#provenance").dataset.verification), null, { timeout: 60_000 });
    return { page, errors, verification: await page.$eval("#provenance", (p) => p.dataset.verification) };
  };
  const reopened = await opened(pack);
  assert.equal(reopened.verification, "verified", await reopened.page.textContent("#provenance"));
  assert.deepEqual(await reopened.page.$$eval("tr.run-row", (trs) => trs.map((tr) => tr.dataset.review)), ["approved", "not reviewed"]);
  await openRun(reopened.page, "healthcare_trace.json");
  assert.deepEqual(await decisions(reopened.page), DECIDED);
  assert.deepEqual(await reviewedNumbers(reopened.page), reviewed);
  assert.deepEqual(reopened.errors, []);
  await reopened.page.close();

  // One character of the review file's data changed: modified, naming it.
  const html = readFileSync(pack, "utf8");
  const manifest = JSON.parse(html.match(/<script type="application\/json" id="agentrisk-manifest">([^<]*)<\/script>/)[1]);
  const index = manifest.files.findIndex((f) => f.kind === "review");
  assert.equal(manifest.files[index].name, "review.json");
  const at = html.indexOf(">", html.indexOf(`data-agentrisk-file="${index}"`)) + 20;
  const tampered = join(work, "tampered.html");
  writeFileSync(tampered, html.slice(0, at) + (html[at] === "a" ? "b" : "a") + html.slice(at + 1));
  const changed = await opened(tampered);
  assert.equal(changed.verification, "modified");
  const named = await changed.page.$$eval(".provenance-modified li", (lis) => lis.map((li) => li.textContent));
  assert.ok(named.some((n) => n.startsWith("review.json: ")), named.join("\n"));
  await changed.page.close();
});
