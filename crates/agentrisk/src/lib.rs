//! AgentRisk core: the whole domain of AgentRisk Viewer, with no I/O.
//!
//! Bytes go in, values come out. The CLI and the web app read files and show
//! results; every number they show is computed here and tested natively.
//!
//! * [`model`] — channels, levels, verdicts and the AgentLeak v2 report.
//! * [`score`] — the AgentRisk numbers (WSL, ρ_S, RI, privacy score, verdict,
//!   gate) from a set of secrets or from a report's stored aggregates.
//! * [`report`] — loading a report from bytes and re-scoring it to check that
//!   its stored numbers agree with the recomputation.
//! * [`util`] — the leaf every module may import (hash maps, Python's float
//!   spelling, a byte-counting writer); `tables` holds the reference's rule
//!   data read crate-wide. The top-level modules import each other without
//!   cycles (`tests/module_graph.rs`).

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
pub mod score;
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
