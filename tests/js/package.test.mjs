// The npm package against the reference and the CLI: every conformance
// trace × stored config gives the reference's report fields (as
// crates/agentrisk/tests/parity.rs compares them), every stored report
// re-scores as stored, summarizeBatch equals `agentrisk batch --json`,
// errors carry file/where/what, and hostile input throws without harming
// the process. Run after `bash scripts/package.sh` and a CLI build.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { installed, root } from "./package.mjs";

const corpus = join(root, "tests/fixtures/conformance");
const cases = readdirSync(join(corpus, "cases")).sort();
let agentrisk;

before(async () => {
  ({ agentrisk } = await installed());
});

/** What `config_for` in parity.rs gives each variant, as options. */
function optionsFor(variant, caseDir) {
  switch (variant) {
    case "default":
      return {};
    case "pack": {
      const file = join(caseDir, "canaries.json");
      return existsSync(file) ? { canaries: JSON.parse(readFileSync(file, "utf8")) } : {};
    }
    case "cli_fail_under_95":
      return { failUnder: 95 };
    default:
      return { config: readFileSync(join(corpus, "configs", `${variant}.yaml`), "utf8"), configName: `${variant}.yaml` };
  }
}

/** parity.rs's `normalize`: drops our own wording, keeps every number and structure. */
function normalize(report) {
  const r = structuredClone(report);
  for (const fw of r.compliance?.frameworks ?? []) {
    for (const control of fw.controls ?? []) delete control.rationale;
  }
  if (r.compliance?.integrity) delete r.compliance.integrity.note;
  if (r.compliance?.disclaimer) {
    delete r.compliance.disclaimer.text;
    delete r.compliance.disclaimer.scope;
  }
  r.recommendations = r.recommendations?.length ?? 0;
  r.warnings = r.warnings?.length ?? 0;
  for (const f of r.findings ?? []) delete f.recommendation;
  for (const h of r.remediation_hints ?? []) {
    delete h.advice;
    delete h.code_fix;
  }
  for (const v of r.privacy_policy?.violations ?? []) delete v.message;
  for (const v of r.privacy_policy?.flows?.violations ?? []) delete v.reason;
  return r;
}

/** Every (case, variant, has a report) of the corpus. */
function variants() {
  const out = [];
  for (const name of cases) {
    const dir = join(corpus, "cases", name);
    for (const file of readdirSync(dir).sort()) {
      const report = /^report\.(.+)\.json$/.exec(file);
      const error = /^error\.(.+)\.txt$/.exec(file);
      if (report) out.push({ name, dir, variant: report[1], hasReport: true });
      if (error) out.push({ name, dir, variant: error[1], hasReport: false });
    }
  }
  return out;
}

test("every conformance trace × config gives the reference's report", () => {
  let compared = 0;
  let rejected = 0;
  const failures = [];
  for (const { name, dir, variant, hasReport } of variants()) {
    const trace = readFileSync(join(dir, "trace.json"));
    const options = { ...optionsFor(variant, dir), name: `${name}/trace.json` };
    if (hasReport) {
      const theirs = JSON.parse(readFileSync(join(dir, `report.${variant}.json`), "utf8"));
      let ours;
      try {
        ours = agentrisk.analyzeTrace(new Uint8Array(trace), { ...options, generatedAt: theirs.generated_at });
      } catch (e) {
        failures.push(`${name} [${variant}]: threw ${e.message}`);
        continue;
      }
      try {
        assert.deepStrictEqual(normalize(ours), normalize(theirs));
        compared += 1;
      } catch (e) {
        failures.push(`${name} [${variant}]: report differs\n${e.message.slice(0, 1500)}`);
      }
    } else if (name === "edge_json_bom") {
      // parity.rs: we accept a BOM that Python's json rejects.
    } else {
      assert.throws(() => agentrisk.analyzeTrace(trace, options), (e) => e instanceof Error && e.what.length > 0);
      rejected += 1;
    }
  }
  assert.deepEqual(failures, []);
  assert.equal(compared + rejected > 600, true, `${compared} compared, ${rejected} rejected`);
});

test("a string and bytes give the same report; analyzeTraceJson is the same report as text", () => {
  const text = readFileSync(join(corpus, "cases/ex_hr_trace/trace.json"), "utf8");
  const options = { generatedAt: "2026-01-01T00:00:00+00:00" };
  const fromText = agentrisk.analyzeTrace(text, options);
  assert.deepStrictEqual(agentrisk.analyzeTrace(new TextEncoder().encode(text), options), fromText);
  assert.deepStrictEqual(JSON.parse(agentrisk.analyzeTraceJson(text, options)), fromText);
  // Without generatedAt: now, as Python's isoformat() writes UTC.
  assert.match(agentrisk.analyzeTrace(text).generated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
});

const NOTES_WITH_UNKNOWN_GATE = [
  "ex_customer_support_trace/report.cli_fail_under_95.json: gate consistent with fail_below ≥ 61",
  "ex_hr_trace/report.cli_fail_under_95.json: gate consistent with fail_below ≥ 43",
  "ex_hr_trace/report.no_block_on_critical.json: gate consistent with fail_below ≥ 43",
];

test("every stored report re-scores as stored", () => {
  const notes = [];
  let reports = 0;
  for (const name of cases) {
    const dir = join(corpus, "cases", name);
    for (const file of readdirSync(dir).filter((f) => /^report\..+\.json$/.test(f)).sort()) {
      const text = readFileSync(join(dir, file), "utf8");
      const stored = JSON.parse(text);
      const label = `${name}/${file}`;
      const result = agentrisk.rescoreReport(text, { name: label });
      assert.deepEqual(
        [result.file, result.run_id, result.risk_index, result.privacy_score, result.verdict, result.blocked],
        [label, stored.run_id, stored.risk_index, stored.privacy_score, stored.verdict, stored.blocked],
      );
      assert.equal(result.consistent, true, `${label}: ${JSON.stringify(result.mismatches)}`);
      assert.deepEqual(result.mismatches, []);
      if (result.gate_note !== null) notes.push(`${label}: ${result.gate_note}`);
      // An object gives the same record as its text.
      if (reports % 50 === 0) assert.deepStrictEqual(agentrisk.rescoreReport(stored, { name: label }), result);
      reports += 1;
    }
  }
  assert.equal(reports, 654);
  assert.deepEqual(notes, NOTES_WITH_UNKNOWN_GATE);
  // The gate pinned as the run was made (score --fail-below 95): consistent, no note.
  const pinned = agentrisk.rescoreReport(
    readFileSync(join(corpus, "cases/ex_hr_trace/report.cli_fail_under_95.json")),
    { failBelow: 95 },
  );
  assert.equal(pinned.consistent, true);
  assert.equal(pinned.gate_note, null);
  // Pinned to the wrong gate: the stored decision is a mismatch.
  const wrong = agentrisk.rescoreReport(readFileSync(join(corpus, "cases/ex_hr_trace/report.cli_fail_under_95.json")), {
    failBelow: 40,
  });
  assert.equal(wrong.consistent, false);
  assert.deepEqual(wrong.mismatches.map((m) => m.field), ["blocked"]);
});

/** The newest agentrisk built: scripts/test.sh runs these tests after the
 * debug build and before the release one, so a release binary left from an
 * earlier run may lack what this tree added. */
function cli() {
  const built = ["release", "debug"]
    .map((profile) => join(root, "target", profile, "agentrisk"))
    .filter((bin) => existsSync(bin))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (built.length === 0) throw new Error("no agentrisk binary: run cargo build -p agentrisk-cli");
  return built[0];
}

test("summarizeBatch equals agentrisk batch --json on the fixture traces", () => {
  const paths = cases.map((name) => relative(root, join(corpus, "cases", name, "trace.json")));
  // Files named on their own count under no folder, in the CLI as here.
  const files = paths.map((path) => ({ name: path, folder: "", data: readFileSync(join(root, path)) }));
  for (const args of [[], ["--group-by", "folder", "--confidence", "0.9", "--continuity-correction"]]) {
    let stdout;
    try {
      stdout = execFileSync(cli(), ["batch", "--json", "-q", ...args, ...paths], { cwd: root, maxBuffer: 1 << 28 });
    } catch (e) {
      // Exit 2: some fixture traces are rejected; the summary is still printed.
      assert.equal(e.status, 2);
      stdout = e.stdout;
    }
    const theirs = JSON.parse(stdout.toString());
    const options = args.length
      ? { groupBy: "folder", confidence: 0.9, continuityCorrection: true, skipUnreadable: true }
      : { skipUnreadable: true };
    const ours = agentrisk.summarizeBatch(files, options);
    assert.deepStrictEqual(ours, theirs);
    assert.equal(ours.runs > 200, true, `${ours.runs} runs`);
  }
  // Without skipUnreadable the first unreadable file throws, naming them all.
  const error = (() => {
    try {
      agentrisk.summarizeBatch(files);
    } catch (e) {
      return e;
    }
  })();
  assert.ok(error instanceof Error);
  assert.equal(error.errors.length > 0, true);
  assert.deepEqual([error.file, error.where, error.what], [error.errors[0].file, error.errors[0].where, error.errors[0].what]);
});

// The fixture the CLI and the workspace are checked against too
// (crates/agentrisk-cli/tests/cli_batch.rs): the same folder gives the same
// batch JSON in all three shells.
test("summarizeBatch gives the batch JSON the CLI and the workspace give (tests/fixtures/batch-shells)", () => {
  const fixture = join(root, "tests/fixtures/batch-shells");
  const walk = (dir) =>
    readdirSync(join(fixture, dir), { withFileTypes: true })
      .map((entry) => entry.name)
      .sort()
      .flatMap((name) => {
        const path = `${dir}/${name}`;
        if (statSync(join(fixture, path)).isDirectory()) return walk(path);
        return path.endsWith(".json") ? [path] : [];
      });
  // Named by their path from the folder named, as a dropped folder names
  // them; `folder` left out, so the package takes it from the name.
  const files = walk("runs").map((name) => ({ name, data: readFileSync(join(fixture, name)) }));
  const canaries = JSON.parse(readFileSync(join(fixture, "canaries.json"), "utf8"));
  const expected = JSON.parse(readFileSync(join(fixture, "expected.json"), "utf8"));
  const options = { groupBy: "folder", confidence: 0.9, skipUnreadable: true };
  assert.deepStrictEqual(agentrisk.summarizeBatch(files, { ...options, canaries }), expected);
  assert.deepStrictEqual(Object.keys(expected.groups), ["runs", "runs/bank", "runs/bank/week2", "runs/clinic"]);
  // Without the canary set the clean HR run is not blocked.
  assert.equal(agentrisk.summarizeBatch(files, options).block_rate.k, expected.block_rate.k - 1);
});

/** The CLI's stdout, whatever its exit status (diff exits 1 when a rule fires). */
function cliOutput(args, cwd) {
  try {
    return { status: 0, stdout: execFileSync(cli(), args, { cwd, maxBuffer: 1 << 28 }).toString() };
  } catch (e) {
    return { status: e.status, stdout: e.stdout.toString() };
  }
}

test("diffBatches and batchHistory equal agentrisk diff --format json and history --json", () => {
  const dir = mkdtempSync(join(tmpdir(), "agentrisk-js-diff-"));
  const examples = cases.filter((name) => name.startsWith("ex_"));
  const files = { base: [], new: [] };
  for (const side of ["base", "new"]) {
    mkdirSync(join(dir, side));
    for (const name of examples) {
      const trace = JSON.parse(readFileSync(join(corpus, "cases", name, "trace.json"), "utf8"));
      if (side === "new" && name === "ex_hr_clean_trace") {
        trace.events.find((e) => e.channel === "final_output").content = "The employee's SSN is 123-45-6789.";
      }
      const text = JSON.stringify(trace);
      writeFileSync(join(dir, side, `${name}.json`), text);
      files[side].push({ name: `${side}/${name}.json`, data: text });
    }
  }
  const cliDiff = cliOutput(["diff", "base", "new", "--format", "json", "--fail-on", "new-leak:L3", "--fail-on", "verdict", "-q"], dir);
  assert.equal(cliDiff.status, 1);
  const ours = agentrisk.diffBatches(files.base, files.new, { failOn: ["new-leak:L3", "verdict"], baseName: "base", newName: "new" });
  assert.deepStrictEqual(ours, JSON.parse(cliDiff.stdout));
  assert.deepEqual(ours.fail_on.map((r) => [r.rule, r.fired]), [["new-leak:L3", true], ["verdict", true]]);
  assert.equal(ours.runs.find((r) => r.key === "run_hr_clean_001").new_leaks[0].data_type, "ssn");

  const cliHistory = cliOutput(["history", "new", "base", "--json", "-q"], dir);
  assert.equal(cliHistory.status, 0);
  const history = agentrisk.batchHistory([{ name: "new", files: files.new }, { name: "base", files: files.base }]);
  assert.deepStrictEqual(history, JSON.parse(cliHistory.stdout));
  // No generated_at: by name, so base comes first.
  assert.deepEqual(history.batches.map((b) => [b.name, b.leak_rate.k]), [["base", 5], ["new", 6]]);

  // A bad rule, a side without runs: thrown in the CLI's words.
  assert.throws(() => agentrisk.diffBatches(files.base, files.new, { failOn: ["verdict:worse"] }), (e) => e.file === "options" && e.where === "failOn[0]" && /takes no argument/.test(e.what));
  assert.throws(() => agentrisk.diffBatches(files.base, [], { newName: "empty" }), (e) => e.file === "empty" && /no runs found/.test(e.what));
});

test("errors carry file, where and what in the CLI's words", () => {
  const thrown = (fn) => {
    try {
      fn();
    } catch (e) {
      return e;
    }
    assert.fail("expected a throw");
  };
  const json = thrown(() => agentrisk.analyzeTrace('{"events": [', { name: "bad.json" }));
  assert.ok(json instanceof Error);
  assert.deepEqual([json.file, json.where], ["bad.json", "line 1, column 13"]);
  assert.match(json.what, /^invalid JSON/);
  assert.equal(json.message, `bad.json: line 1, column 13: ${json.what}`);

  const channel = thrown(() =>
    agentrisk.analyzeTrace('{"run_id": "r", "events": [{"event_id": "e", "channel": "fax", "content": "x"}]}'),
  );
  assert.deepEqual([channel.file, channel.where], ["trace", "events[0].channel"]);
  assert.match(channel.what, /unknown channel/);

  const config = thrown(() => agentrisk.analyzeTrace("{}", { config: "scoring:\n  fail_below: [1]\n" }));
  assert.deepEqual([config.file, config.where], ["agentleak.yaml", "scoring.fail_below"]);

  const report = thrown(() => agentrisk.rescoreReport('{"report": "agentleak", "version": 3}', { name: "r.json" }));
  assert.equal(report.file, "r.json");
  assert.ok(report.what.length > 0);

  const option = thrown(() => agentrisk.analyzeTrace("{}", { confg: "typo" }));
  assert.deepEqual([option.file, option.where], ["options", "confg"]);
  assert.match(option.what, /^unknown option "confg"; the options are config, /);

  const input = thrown(() => agentrisk.analyzeTrace(42));
  assert.deepEqual([input.file, input.where], ["trace", ""]);
  assert.match(input.what, /string, a Uint8Array or an ArrayBuffer/);

  const group = thrown(() => agentrisk.summarizeBatch([], { groupBy: "team" }));
  assert.deepEqual([group.file, group.where], ["options", "groupBy"]);
});

test("a 100 000-level nested input throws and the process lives on", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  const deepObject = '{"a":'.repeat(100_000) + "1" + "}".repeat(100_000);
  for (const input of [deep, deepObject, `{"run_id": "r", "events": [], "metadata": ${deep}}`]) {
    assert.throws(() => agentrisk.analyzeTrace(input, { name: "deep.json" }), (e) => e.file === "deep.json" && /nest/.test(e.what));
  }
  assert.throws(() => agentrisk.rescoreReport(`{"report": "agentleak", "x": ${deep}}`), (e) => e.file === "report");
  assert.throws(() => agentrisk.analyzeTrace("{}", { config: "[".repeat(100_000) }), (e) => e.file === "agentleak.yaml");
  assert.throws(() => agentrisk.summarizeBatch([{ name: "deep.json", data: deep }]), (e) => e.file === "deep.json");
  // The module still works afterwards.
  assert.equal(agentrisk.analyzeTrace('{"run_id": "after", "events": []}').run_id, "after");
});

test("wilson gives R's prop.test intervals", () => {
  const close = (a, b) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);
  const w = agentrisk.wilson(3, 10);
  assert.deepEqual([w.k, w.n, w.rate], [3, 10, 0.3]);
  close(w.lower, 0.10779126740630104);
  close(w.upper, 0.6032218525388545);
  assert.deepEqual(agentrisk.wilson(0, 0), { k: 0, n: 0, rate: null, lower: null, upper: null });
  const all = agentrisk.wilson(10, 10, { confidence: 0.9, continuityCorrection: true });
  assert.equal(all.upper, 1);
  assert.throws(() => agentrisk.wilson(4, 3), (e) => e.where === "k");
  assert.throws(() => agentrisk.wilson(1.5, 3), (e) => e.where === "k");
  assert.throws(() => agentrisk.wilson(1, 3, { confidence: 1 }), (e) => e.where === "confidence");
});

test("version is the crate's", () => {
  const cargo = readFileSync(join(root, "crates/agentrisk-wasm/Cargo.toml"), "utf8");
  assert.equal(agentrisk.version, /^version = "(.*)"/m.exec(cargo)[1]);
});

test("span exports: analyzeRuns gives a report per conversation as the CLI does; the reference mapping gives the reference's report", () => {
  const spans = join(root, "tests/fixtures/spans");
  const file = join(spans, "lc_two_sessions.otlp.jsonl");
  const options = { name: "lc_two_sessions.otlp.jsonl", generatedAt: "2026-12-07T00:00:00+00:00" };
  const reports = agentrisk.analyzeRuns(readFileSync(file), options);
  assert.deepEqual(
    reports.map((r) => [r.run_id, r.privacy_score, r.verdict, r.span_source.mapping, r.span_source.conversation]),
    [
      ["lc_two_sessions.otlp#s-1", 100, "Pass", "structural", "s-1"],
      ["lc_two_sessions.otlp#s-2", 0, "Fail", "structural", "s-2"],
    ],
  );
  // Exit 1: the second conversation's gate blocks.
  const run = spawnSync(cli(), ["run", "-t", file, "-o", "-", "-q"], { encoding: "utf8" });
  assert.equal(run.status, 1, run.stderr);
  const lines = run.stdout;
  const fromCli = JSON.parse(`[${lines.trim().replace(/\n}\n{/g, "\n},\n{")}]`);
  assert.deepEqual(
    fromCli.map((r) => [r.run_id, r.risk_index, r.findings.length]),
    reports.map((r) => [r.run_id, r.risk_index, r.findings.length]),
  );
  // One report was asked for, and the file holds two conversations.
  assert.throws(() => agentrisk.analyzeTrace(readFileSync(file), options), (e) => /2 conversations/.test(e.what));
  const theirs = JSON.parse(readFileSync(join(spans, "reference/lc_two_sessions.otlp.jsonl.report.json"), "utf8"));
  const ours = agentrisk.analyzeTrace(readFileSync(file), { ...options, spanMapping: "reference", generatedAt: theirs.generated_at });
  assert.equal(ours.span_source.mapping, "reference");
  delete ours.span_source;
  assert.deepEqual(normalize(ours), normalize(theirs));
  assert.throws(() => agentrisk.analyzeTrace(readFileSync(file), { spanMapping: "nested" }), (e) => e instanceof Error);
});

// Review files (docs/review.md): the `review` and `today` options of
// analyzeTrace, rescoreReport and summarizeBatch, and applyReview, give the
// reviewed numbers `agentrisk run/score/batch --review` give.
test("a review gives the CLI's reviewed numbers, and an expired acceptance blocks again", () => {
  const tracePath = join(root, "www/samples/traces/healthcare_trace.json");
  const trace = readFileSync(tracePath);
  const review = {
    format: "agentrisk-review",
    version: 1,
    decisions: [
      { run_id: "run_healthcare_001", data_type: "health_condition", channel: "*", value: "di****es",
        decision: "false_positive", rationale: "a leaflet's text", reviewer: "Dana", decided_at: "2026-05-20", expires: null },
      { run_id: "run_healthcare_001", data_type: "health_identifier", channel: "*", value: "TR********78",
        decision: "accepted_risk", rationale: "test patient", reviewer: "Dana", decided_at: "2026-05-20", expires: "2026-07-01" },
    ],
    runs: [{ run_id: "run_healthcare_001", status: "approved", reviewer: "Dana", note: "", at: "2026-05-21" }],
  };
  const reviewText = JSON.stringify(review);
  const reviewPath = join(mkdtempSync(join(tmpdir(), "agentrisk-review-")), "review.json");
  writeFileSync(reviewPath, reviewText);
  for (const [today, blocked] of [["2026-06-30", false], ["2026-07-01", true]]) {
    const report = agentrisk.analyzeTrace(trace, { review, today });
    // The detected numbers stay; the reviewed ones sit beside them.
    assert.deepEqual([report.privacy_score, report.blocked], [56, true]);
    assert.deepEqual(
      [report.reviewed.risk_index, report.reviewed.privacy_score, report.reviewed.verdict, report.reviewed.blocked],
      [0.3333, 67, "High risk", blocked],
    );
    assert.equal(report.reviewed.expired.length, blocked ? 1 : 0);
    // The CLI writes the same object.
    const ran = spawnSync(cli(), ["run", "-q", "-t", tracePath, "-o", "-", "--review", reviewPath, "--today", today]);
    assert.equal(ran.status, blocked ? 1 : 0);
    assert.deepStrictEqual(JSON.parse(ran.stdout.toString()).reviewed, report.reviewed);
    // Its stored report, re-scored with the review as text, bytes or an object, gives them too.
    const { reviewed, ...stored } = report;
    for (const given of [reviewText, new TextEncoder().encode(reviewText), review, [review]]) {
      assert.deepStrictEqual(agentrisk.rescoreReport(stored, { review: given, today }).reviewed, reviewed);
      assert.deepStrictEqual(agentrisk.applyReview(JSON.stringify(stored), given, { today }), reviewed);
    }
    assert.deepStrictEqual(JSON.parse(agentrisk.analyzeTraceJson(trace, { review, today })).reviewed, reviewed);
    assert.deepStrictEqual(agentrisk.analyzeRuns(trace, { review, today })[0].reviewed, reviewed);
  }
  // Without a review: no `reviewed`.
  assert.equal("reviewed" in agentrisk.analyzeTrace(trace), false);
  assert.equal("reviewed" in agentrisk.rescoreReport(agentrisk.analyzeTrace(trace)), false);

  // The batch's rates as reviewed, as `agentrisk batch --review --json` gives them.
  const financePath = join(root, "www/samples/traces/finance_trace.json");
  const files = [tracePath, financePath].map((path) => ({ name: path, folder: "", data: readFileSync(path) }));
  const summary = agentrisk.summarizeBatch(files, { review, today: "2026-06-01" });
  assert.deepEqual([summary.block_rate.k, summary.reviewed.block_rate.k, summary.reviewed.runs_reviewed], [2, 1, 2]);
  const batch = execFileSync(cli(), ["batch", "--json", "-q", "--review", reviewPath, "--today", "2026-06-01", tracePath, financePath]);
  assert.deepStrictEqual(summary, JSON.parse(batch.toString()));

  // A bad review is named as the CLI names it.
  const bad = structuredClone(review);
  bad.decisions[0].decision = "fp";
  for (const call of [() => agentrisk.analyzeTrace(trace, { review: bad }), () => agentrisk.applyReview(trace, [review, bad])]) {
    assert.throws(call, (e) => {
      assert.match(e.file, /^review/);
      assert.equal(e.where, "decisions[0].decision");
      assert.match(e.what, /^unknown decision "fp"/);
      return true;
    });
  }
  assert.throws(() => agentrisk.analyzeTrace(trace, { review, today: "1 June" }), (e) => e.where === "today" && /YYYY-MM-DD/.test(e.what));
  assert.throws(() => agentrisk.applyReview(trace, undefined), (e) => e.file === "review");
});
