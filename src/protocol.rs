//! Messages between the page and the analysis worker.
//!
//! Page → worker: a JS object `{id, name, blob}` (a dropped or picked file)
//! or `{id, name, url}` (a bundled sample the worker fetches from the site).
//! Worker → page: a JSON string of [`FromWorker`]. JSON strings cross the
//! boundary faster than structured clones of nested objects, and only
//! finished summaries ever reach the page.

use agentrisk::model::Report;
use agentrisk::{load_report, rescore_report, Rescore, ScoringConfig};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker has installed its message handler; queued files may be sent.
    Ready,
    /// One file is done.
    Done { id: u32, result: FileResult },
}

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FileResult {
    Report(Box<LoadedReport>),
    /// The file could not be used; the message names the place and the problem.
    Error {
        message: String,
    },
}

/// A report as loaded, with its re-scoring. The stored numbers are shown;
/// the re-scoring decides the "inconsistent" flag and explains a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedReport {
    pub report: Report,
    pub rescore: Rescore,
}

/// The worker's whole job for one file's bytes.
pub fn analyze_bytes(bytes: &[u8]) -> FileResult {
    match load_report(bytes) {
        Ok(report) => {
            let rescore = rescore_report(&report, &ScoringConfig::default());
            FileResult::Report(Box::new(LoadedReport { report, rescore }))
        }
        Err(e) => FileResult::Error { message: e.to_string() },
    }
}
