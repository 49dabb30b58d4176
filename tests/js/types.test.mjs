// index.d.ts (generated from the Rust types, crates/agentrisk-wasm/src/typescript.rs)
// against use: a TypeScript file that calls every export and reads nested
// values, and one that misuses them, compiled by tsc against the installed package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { installed, root } from "./package.mjs";

const tsc = join(root, "node_modules/.bin/tsc");
const flags = ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--lib", "es2022,dom"];

function compile(dir, file, source) {
  writeFileSync(join(dir, file), source);
  try {
    execFileSync(tsc, [...flags, file], { cwd: dir, encoding: "utf8" });
    return "";
  } catch (e) {
    return e.stdout || String(e);
  }
}

test("the declarations type every export, and reject misuse", async () => {
  const { dir } = await installed();
  const good = `
import { ready, analyzeTrace, analyzeTraceJson, rescoreReport, summarizeBatch, diffBatches, batchHistory, wilson, version, initialize,
  applyReview, type Report, type RescoreResult, type BatchSummary, type Diff, type History, type Rate, type AgentRiskError,
  type Channel, type Review, type RunReview } from "agentrisk";
await ready;
await initialize();
const report: Report = analyzeTrace("{}", { config: "scoring: {}", canaries: { obvious: ["x"] }, failUnder: 60 });
const ri: number = report.risk_index;
const channel: string = report.findings[0].channel;
const json: string = analyzeTraceJson(new Uint8Array(2));
const scored: RescoreResult = rescoreReport(report, { config: "", failBelow: 40, blockOnCritical: false });
const ok: boolean = scored.consistent && scored.mismatches.every((m) => m.field.length > 0);
const summary: BatchSummary = summarizeBatch([{ name: "a.json", data: json, folder: "x" }], { groupBy: "scenario", confidence: 0.9 });
const leak: number | null = summary.leak_rate.rate;
const grouped = summarizeBatch([], { canaries: { semantic: ["s"] }, skipUnreadable: true });
const l4: number = grouped.level_leak_rates.L4.k + (grouped.channel_leak_rates.tool_call?.n ?? 0);
const fromReports: boolean | undefined = grouped.groups?.["x"]?.channel_leak_rates.log?.n_from_reports;
const passed: number | undefined = grouped.verdicts.Pass?.count;
const status: string | undefined = report.compliance?.frameworks[0]?.status;
const firstChannel: Channel | undefined = report.leak_paths?.[0]?.channels[0];
const level: number = report.findings[0].level;
const rate: Rate = wilson(1, 2, { continuityCorrection: true });
const d: Diff = diffBatches([{ name: "a.json", data: json }], [{ name: "b.json", data: json }], { failOn: ["new-leak:L3"], confidence: 0.9 });
const newSsn: boolean = d.runs.some((r) => (r.new_leaks ?? []).some((s) => s.level >= 3 && s.channel === "final_output"));
const lower: number | null = d.rates[0].lower;
const p: number | undefined = d.paired?.mcnemar_exact_p;
const fired: boolean = d.fail_on.some((r) => r.fired);
const h: History = batchHistory([{ name: "week1", files: [{ name: "a.json", data: json }] }]);
const meanRi: number | null = h.batches[0].mean_risk_index;
const failShare: number | undefined = h.batches[0].verdicts.Fail?.count;
const v: string = version;
const review: Review = { decisions: [{ run_id: "r", data_type: "email", channel: "*", value: "ab****cd", decision: "false_positive",
  rationale: "x", reviewer: "D", decided_at: "2026-01-01", expires: null }], runs: [] };
const reviewed: RunReview | undefined = analyzeTrace("{}", { review, today: "2026-06-01" }).reviewed;
const fromText: RunReview = applyReview(report, [JSON.stringify(review), review], { today: "2026-06-01", failBelow: 40 });
const expired: string | null = fromText.expired[0]?.decision.expires ?? null;
const reviewedRate: number | null | undefined = summarizeBatch([], { review: new Uint8Array(1) }).reviewed?.block_rate.rate;
try { analyzeTrace(""); } catch (e) { const err = e as AgentRiskError; const parts: string[] = [err.file, err.where, err.what]; }
export { ri, channel, ok, leak, rate, v, l4, fromReports, passed, status, firstChannel, level, reviewed, expired, reviewedRate, newSsn, lower, p, fired, meanRi, failShare };
`;
  assert.equal(compile(dir, "good.mts", good), "");
  const bad = `
import { analyzeTrace, summarizeBatch, diffBatches, batchHistory, wilson, applyReview, type Channel } from "agentrisk";
analyzeTrace(42);
summarizeBatch([{ name: "a", data: "" }], { groupBy: "team" });
const s: string = wilson(1, 2).rate;
const c: Channel = "email";
summarizeBatch([], { canaries: { obvious: "x" } });
applyReview("{}", { decisions: [], runs: [] }, { today: 20260601 });
diffBatches([], [], { failOn: "verdict" });
const k: string = batchHistory([]).batches[0].leak_rate.k;
`;
  const errors = compile(dir, "bad.mts", bad);
  assert.equal((errors.match(/error TS/g) ?? []).length, 8, errors);
});
