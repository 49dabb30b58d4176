// Types of the npm package `agentrisk`, written beside the Rust types they
// describe (crates/agentrisk/src/model/report.rs, batch/mod.rs, stats.rs,
// report/mod.rs) and checked by tests/js/types.test.mjs with tsc.

/** A file's content: text (read as UTF-8) or bytes. */
export type FileData = string | Uint8Array | ArrayBuffer;

/** Thrown by every function: the CLI's `agentrisk: FILE: where: what`, split. */
export interface AgentRiskError extends Error {
  /** The file's name as given (`name` option), or `options` / `arguments`. */
  file: string;
  /** Where in it: `line 3, column 7`, `events[2].channel`, `scoring.fail_below`; empty for the whole file. */
  where: string;
  /** What is wrong, and often how to fix it. */
  what: string;
  /** summarizeBatch only: every unreadable file. */
  errors?: { file: string; where: string; what: string }[];
}

export interface Canaries {
  obvious?: string[];
  realistic?: string[];
  semantic?: string[];
}

export interface AnalyzeOptions {
  /** agentleak.yaml text (as `agentrisk run -c`). */
  config?: string;
  /** The config's name in errors (default "agentleak.yaml"). */
  configName?: string;
  /** Canary values (as `agentrisk run --canaries`). */
  canaries?: Canaries;
  /** Block a run whose privacy score is below N (as `--fail-under`). */
  failUnder?: number;
  /** The trace's name in errors (default "trace"). */
  name?: string;
  /** The report's generated_at (default: now, in Python's isoformat). */
  generatedAt?: string;
}

export type Channel =
  | "user_input"
  | "final_output"
  | "inter_agent_message"
  | "shared_memory"
  | "tool_call"
  | "tool_response"
  | "log"
  | "generated_file";

export type LevelKey = "L1" | "L2" | "L3" | "L4";
export type LevelProfile = Partial<Record<LevelKey, number>> & Record<string, number>;

export interface Finding {
  finding_id: string;
  run_id: string;
  event_id: string;
  channel: Channel;
  data_type: string;
  severity: string;
  level: number;
  confidence: number;
  redacted_value: string;
  detector: string;
  recommendation: string;
  source: string;
  target: string;
  matched_value?: string;
  level_label: string;
  badge: string;
}

export interface ChannelRisk {
  channel: Channel;
  level: string;
  level_label: string;
  ri: number;
  risk_contribution: number;
  finding_count: number;
}

export interface ReportSummary {
  total_findings: number;
  detected_total: number;
  leaked_secrets: number;
  vault_secrets: number;
  level_profile: LevelProfile;
  vault_level_profile: LevelProfile;
  has_critical: boolean;
}

export interface AgentRiskBlock {
  ri_global: number;
  ri_by_channel: Partial<Record<Channel, number>>;
  ri_by_domain: Record<string, unknown>;
  wsl: number;
  rho_s: number;
  level_profile: LevelProfile;
  vault_level_profile: LevelProfile;
  leaked_count: number;
  vault_count: number;
  rank_robust: boolean;
  detectors: string[];
  scope_def: string;
  weights: number[] | null;
}

/** An AgentLeak v2 report, as `agentrisk run -o - -f json` writes it. */
export interface Report {
  report: "agentleak";
  version: number;
  scoring: string;
  project: string;
  run_id: string;
  agent_name: string;
  scenario_id: string | null;
  generated_at: string;
  event_count: number;
  privacy_score: number;
  verdict: string;
  risk_index: number;
  wsl: number;
  rho_s: number;
  scope_def: string;
  blocked: boolean;
  degraded: boolean;
  detection: Record<string, unknown> | null;
  warnings: string[];
  privacy_policy: Record<string, unknown> | null;
  utility?: Record<string, unknown>;
  cross_session: Record<string, unknown> | null;
  summary: ReportSummary;
  channel_risks: ChannelRisk[];
  findings: Finding[];
  recommendations: string[];
  remediation_hints: { channel: Channel; data_types: string[]; priority: string; [key: string]: unknown }[];
  agentrisk: AgentRiskBlock | null;
  compliance?: Record<string, unknown>;
  flow?: Record<string, unknown>;
  leak_paths?: Record<string, unknown>[];
  metadata?: Record<string, unknown>;
}

export interface RescoreOptions {
  /** What if: agentleak.yaml text whose weights, vault and gate apply (as `score -c`). */
  config?: string;
  configName?: string;
  /** The gate threshold the run was scored with; pins the gate (as `--fail-below`). */
  failBelow?: number;
  /** false = the run was scored with block_on_critical off; pins the gate (as `--no-block-on-critical`). */
  blockOnCritical?: boolean;
  /** The report's name in errors and in `file` (default "report"). */
  name?: string;
}

/** A stored value the recomputation does not reproduce. */
export interface Mismatch {
  field: string;
  stored: string;
  recomputed: string;
}

/** `agentrisk score --json`'s record, with the mismatches and what-if notes. */
export interface RescoreResult {
  file: string;
  run_id: string;
  risk_index: number;
  privacy_score: number;
  verdict: string;
  blocked: boolean;
  consistent: boolean;
  gate_note: string | null;
  mismatches: Mismatch[];
  notes: string[];
}

export interface BatchFile {
  name: string;
  data: FileData;
  /** The folder it counts under for groupBy "folder" (default "."). */
  folder?: string;
}

export interface BatchOptions {
  /** Interval confidence level, 0 < C < 1 (default 0.95). */
  confidence?: number;
  continuityCorrection?: boolean;
  groupBy?: "agent" | "scenario" | "scenario_family" | "folder";
  /** agentleak.yaml text for analysing traces. */
  config?: string;
  configName?: string;
  /** Leave unreadable files out, as the CLI does, instead of throwing. */
  skipUnreadable?: boolean;
}

/** k of n with its interval; rate, lower and upper are null when n = 0. */
export interface Rate {
  k: number;
  n: number;
  rate: number | null;
  lower: number | null;
  upper: number | null;
}

export interface ValueStats {
  mean: number | null;
  median: number | null;
  min: number | null;
  max: number | null;
}

/** The summary `agentrisk batch --json` prints. */
export interface BatchSummary {
  runs: number;
  confidence: number;
  continuity_correction: boolean;
  leak_rate: Rate;
  block_rate: Rate;
  verdicts: Record<string, { count: number; share: Rate }>;
  channel_leak_rates: Record<string, Rate & { n_from_reports: boolean }>;
  level_leak_rates: Record<string, Rate>;
  risk_index: ValueStats;
  privacy_score: ValueStats;
  redteam?: Record<string, unknown>;
  groups?: Record<string, BatchSummary>;
}

export interface WilsonOptions {
  confidence?: number;
  continuityCorrection?: boolean;
}

/** Resolves when the functions can be called. */
export const ready: Promise<void>;
/** Loads the module from bytes, a compiled module, a URL or a Response (default: the file beside index.js). */
export function initialize(
  source?: BufferSource | WebAssembly.Module | URL | string | Response | Promise<Response>,
): Promise<void>;
export function analyzeTrace(input: FileData, options?: AnalyzeOptions): Report;
/** analyzeTrace as unindented JSON text. */
export function analyzeTraceJson(input: FileData, options?: AnalyzeOptions): string;
export function rescoreReport(report: FileData | Report | object, options?: RescoreOptions): RescoreResult;
export function summarizeBatch(files: BatchFile[], options?: BatchOptions): BatchSummary;
export function wilson(k: number, n: number, options?: WilsonOptions): Rate;
export const version: string;
