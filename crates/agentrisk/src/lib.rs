//! AgentRisk core: the whole domain of AgentRisk Viewer, with no I/O.
//!
//! Bytes go in, values come out. The CLI, the web app's worker, publishing
//! and the JavaScript package read files and show results; every number
//! they show is computed here and tested natively. They all go through one
//! [`analyser::Analyser`].
//!
//! * [`analyser`] — the one way into analysis: settings in, a trace's
//!   report, a report's re-scoring, a batch file's run facts and summary out.
//! * [`analyze`] — one trace's findings: detectors per event, de-duplication,
//!   decoded and obscured copies, coalescing, the final order.
//! * [`batch`] — many runs: run facts, file kinds, the batch summary with
//!   Wilson intervals, red-team metrics, scorecards, tables.
//! * [`compare`] — what changed between two batches (the diff, its
//!   Newcombe intervals, McNemar test and regression rules), and batches over
//!   time (`compare::history`).
//! * [`config`] — `agentleak.yaml` read as the reference reads it, and the
//!   what-if settings to and from YAML.
//! * [`detect`] — the fast-tier detectors, one file per family, and custom rules.
//! * [`model`] — channels, levels, verdicts and the AgentLeak v2 report.
//! * `pipeline` (private) — parse → analyse → score → report, for the analyser.
//! * [`publish`] — report sites and review packs with a verifiable manifest.
//! * [`pyunicode`] — Python 3.11's character classes and case folding.
//! * [`report`] — building, loading, re-scoring and summarising a report.
//! * [`review`] — review files (decisions about each leaked secret, run
//!   sign-offs) and the reviewed numbers they give, beside the detected ones.
//! * [`score`] — WSL, ρ_S, RI, privacy score, verdict and gate.
//! * [`spans`] — OpenTelemetry span exports (OTLP JSON, JSON Lines, span
//!   lists) read as traces, by the structural or the reference mapping.
//! * [`stats`] — the normal quantile, Wilson intervals, rates, value statistics.
//! * `tables` (private) — the reference's data tables, read crate-wide.
//! * [`trace`] — trace bytes → typed `Trace`, read as Python's `json.load` reads them.
//! * [`util`] — the leaf every module may import: hash maps, Python's float
//!   spelling, a byte-counting writer.
//! * [`workspace`] — what a viewer holds: files kept for re-analysis under
//!   what-if settings, and what each file gives a viewer.
//!
//! The top-level modules import each other without cycles
//! (`tests/module_graph.rs`).

pub mod analyser;
pub mod analyze;
pub mod batch;
pub mod compare;
pub mod config;
pub mod detect;
pub mod model;
mod pipeline;
pub mod publish;
pub mod pyunicode;
pub mod report;
pub mod review;
pub mod score;
pub mod spans;
pub mod stats;
pub(crate) mod tables;
pub mod trace;
pub mod util;
pub mod workspace;

pub use model::{Channel, Level, Verdict};
pub use report::{
    load_report, rescore_report, rescore_report_with_gate, GateSettings, LoadError, Rescore, ScoreRecord,
};
pub use score::{ScoringConfig, ScoringError};
