//! Reading AgentLeak reports and re-scoring them.
//!
//! [`load_report`] turns bytes into a typed [`Report`] or a [`LoadError`]
//! that says where and what is wrong. [`rescore_report`] rebuilds the run
//! from the report's own inputs — its findings, level profiles, weights,
//! ρ_S and policy result — recomputes every headline number with `score`,
//! and lists each stored number that disagrees ("inconsistent report").
//! Stored numbers are never changed: callers show them, plus the flag.
//! [`report_what_if`] gives a report the numbers other scoring settings
//! (weights, vault, gate) would have given its run.

mod build;
pub mod compliance;
pub mod flow;
mod load;
mod plain;
pub mod policy;
mod rescore;
mod whatif;

pub use build::{build_report, ReportDraft, ReportOptions, RunFacts};
pub use compliance::assess_compliance;
pub use flow::{AsFlowEvent, FlowEvent};
pub(crate) use load::json_message;
pub use load::{load_report, LoadError};
pub use plain::{channel_phrase, markdown_run, plain_summary};
pub use rescore::{rescore_report, rescore_report_with_gate, GateSettings, Mismatch, Recomputed, Rescore};
pub use whatif::{report_what_if, ReportWhatIf};

use crate::model::Report;

/// One line of a score listing: the report's own numbers, plus whether the
/// recomputation agrees with them. This is the record `agentrisk score
/// --json` prints and the run table shows.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ScoreRecord {
    pub file: String,
    pub run_id: String,
    pub risk_index: f64,
    pub privacy_score: i64,
    pub verdict: String,
    pub blocked: bool,
    pub consistent: bool,
    /// Which gate setting explains the stored `blocked` when the run's
    /// settings are unknown and the gate given does not give it
    /// ([`Rescore::gate_note`]); `null` otherwise.
    pub gate_note: Option<String>,
    /// With a review: the run's reviewed numbers, beside the stored ones
    /// above (which they never replace). Left out without a review.
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<crate::review::RunReview>,
}

impl ScoreRecord {
    pub fn new(file: &str, report: &Report, rescore: &Rescore) -> ScoreRecord {
        ScoreRecord {
            file: file.to_owned(),
            run_id: report.run_id.clone(),
            risk_index: report.risk_index,
            privacy_score: report.privacy_score,
            verdict: report.verdict.clone(),
            blocked: report.blocked,
            consistent: rescore.consistent,
            gate_note: rescore.gate_note.clone(),
            reviewed: None,
        }
    }
}
