//! The batch scorecard: a versioned JSON file holding each run's key
//! numbers and the batch summary, which the CLI writes and the viewer (or
//! the CLI) loads back to show the same batch.
//!
//! # Format (version 1)
//!
//! ```json
//! {
//!   "format": "agentrisk-scorecard",
//!   "version": 1,
//!   "generator": "agentrisk 0.1.0",
//!   "generated_at": "2026-12-07T09:30:00.123456+00:00",
//!   "settings": {"confidence": 0.95, "continuity_correction": false, "group_by": null},
//!   "analysis_config": null,
//!   "runs": [ { "file": "...", "folder": "...", "source": "trace", "run_id": "...", ... } ],
//!   "redteam_results": [ ... ],
//!   "summary": { "runs": 3, "confidence": 0.95, ... }
//! }
//! ```
//!
//! * `generated_at`: when the scorecard was written (UTC, as a report's
//!   `generated_at` is written), from the writer's clock; left out by
//!   writers that do not know it. `agentrisk history` orders batches by it.
//! * `runs`: one [`RunFacts`] object per run, in input order: `file`,
//!   `folder`, `source` (`trace` or `report`), `run_id`, `agent_name`,
//!   `scenario_id`, `risk_index`, `privacy_score`, `verdict`, `blocked`,
//!   `leaked_secrets`, `vault_secrets`, `level_profile` and
//!   `vault_level_profile` (`{"L1".."L4"}`), `channel_ri` (channel → RI),
//!   `channel_leaks` (channel → distinct leaked secrets by level),
//!   `event_channels` (array, or null for a run from a report), `leaks`
//!   (the run's distinct leaked secrets: `data_type`, `level`, `channel`,
//!   `redacted_value`; the redacted value only, as the report has it) and,
//!   for red-team runs, `redteam` (a spec 5.1 record). Scorecards written
//!   before `leaks` existed lack it; their runs' secrets are unknown, and a
//!   diff says so rather than guess.
//! * `analysis_config`: the `agentleak.yaml` text the traces were analysed
//!   with (the CLI's `-c` file, the viewer's what-if settings), or null for
//!   the reference's defaults.
//! * `redteam_results`: records that came from red-team result files
//!   rather than from runs.
//! * `summary`: the [`BatchSummary`] at `settings`, as `agentrisk batch
//!   --json` prints it.
//!
//! Reading a scorecard takes its runs and red-team records; the summary is
//! recomputed from them at the reader's settings, so it cannot disagree
//! with the rows. A version above 1 is refused with a message that says so.

use super::{summarize, BatchSummary, GroupBy, RunFacts, RunResult};
use crate::stats::IntervalMethod;
use serde::{Deserialize, Serialize};

pub const SCORECARD_FORMAT: &str = "agentrisk-scorecard";
pub const SCORECARD_VERSION: u32 = 1;

/// The statistics settings a scorecard's summary was made with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScorecardSettings {
    pub confidence: f64,
    pub continuity_correction: bool,
    pub group_by: Option<GroupBy>,
}

/// A batch scorecard (see the module doc for the format).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scorecard {
    pub format: &'static str,
    pub version: u32,
    pub generator: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generated_at: Option<String>,
    pub settings: ScorecardSettings,
    /// The `agentleak.yaml` the traces were analysed with, or `None` for
    /// the reference's defaults (no config file).
    pub analysis_config: Option<String>,
    pub runs: Vec<RunFacts>,
    pub redteam_results: Vec<RunResult>,
    pub summary: BatchSummary,
}

impl Scorecard {
    /// The scorecard of `runs` and `redteam_results`, summarised at `method`.
    pub fn new(
        runs: Vec<RunFacts>,
        redteam_results: Vec<RunResult>,
        method: IntervalMethod,
        group_by: Option<GroupBy>,
    ) -> Scorecard {
        let summary = summarize(&runs, &redteam_results, method, group_by);
        Scorecard {
            format: SCORECARD_FORMAT,
            version: SCORECARD_VERSION,
            generator: format!("agentrisk {}", env!("CARGO_PKG_VERSION")),
            generated_at: None,
            settings: ScorecardSettings {
                confidence: method.confidence(),
                continuity_correction: method.continuity_correction(),
                group_by,
            },
            analysis_config: None,
            runs,
            redteam_results,
            summary,
        }
    }

    /// Records the config the traces were analysed with.
    pub fn with_analysis_config(mut self, yaml: Option<String>) -> Scorecard {
        self.analysis_config = yaml;
        self
    }

    /// Records when the scorecard was written (the caller's clock, e.g.
    /// [`crate::analyser::generated_at_from_unix`]).
    pub fn with_generated_at(mut self, generated_at: impl Into<String>) -> Scorecard {
        self.generated_at = Some(generated_at.into());
        self
    }

    /// Pretty JSON with a final newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// What a scorecard file holds once read: its rows, not its summary.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ScorecardRows {
    #[serde(default)]
    pub generated_at: Option<String>,
    pub settings: Option<ScorecardSettings>,
    pub runs: Vec<RunFacts>,
    #[serde(default)]
    pub redteam_results: Vec<RunResult>,
}

/// Why bytes are not a readable scorecard; `Display` names the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScorecardError {
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json { line: usize, column: usize, message: String },
    #[error(
        "scorecard version {found} is newer than this viewer reads (version {SCORECARD_VERSION}); update agentrisk"
    )]
    NewerVersion { found: u64 },
    #[error("`version` must be a whole number, found {found}")]
    BadVersion { found: String },
    #[error("scorecard {message}")]
    Shape { message: String },
}

/// True when `bytes` look like a scorecard: an object whose `format` is
/// [`SCORECARD_FORMAT`] (written first, so a look at the head decides; or
/// anywhere among the top-level members, for a file re-saved with sorted keys).
pub fn looks_like_scorecard(bytes: &[u8]) -> bool {
    crate::util::has_top_level(bytes, "format", SCORECARD_FORMAT)
}

/// Reads a scorecard's rows. A row of the wrong shape is named by its line
/// and column (a scorecard is written one member per line).
pub fn read_scorecard(bytes: &[u8]) -> Result<ScorecardRows, ScorecardError> {
    /// Only the version, read first: a newer scorecard is refused as newer,
    /// whatever else it holds.
    #[derive(Deserialize)]
    struct Head {
        version: Option<serde_json::Value>,
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let at = |e: &serde_json::Error| (e.line(), e.column(), crate::report::json_message(e));
    let head: Head = serde_json::from_slice(bytes).map_err(|e| {
        let (line, column, message) = at(&e);
        ScorecardError::Json { line, column, message }
    })?;
    match head.version {
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(v) if v > u64::from(SCORECARD_VERSION) => return Err(ScorecardError::NewerVersion { found: v }),
            Some(_) => {}
            None => return Err(ScorecardError::BadVersion { found: n.to_string() }),
        },
        Some(other) => return Err(ScorecardError::BadVersion { found: other.to_string() }),
        None => return Err(ScorecardError::Shape { message: "has no `version`".to_owned() }),
    }
    // Not through a path-tracking reader: that wraps every row's decoder a
    // second time (some 45 kB of the viewer's wasm); the rows' own decoder
    // from bytes is the one the page already has for the worker's answers.
    serde_json::from_slice(bytes).map_err(|e| {
        let (line, column, message) = at(&e);
        ScorecardError::Shape { message: format!("at line {line}, column {column}: {message}") }
    })
}
