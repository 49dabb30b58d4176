//! The files of a batch: traces, reports, scorecards and red-team result
//! records may be mixed, and each file's kind is told from its content.
//!
//! * a JSON object whose first key is `"format": "agentrisk-scorecard"` is a
//!   scorecard;
//! * a JSON object whose first key is `"report": "agentleak"` is a report;
//! * a JSON array that names an `attack_class_id` near its start, or text
//!   whose first line is an object with both `attack_class_id` and
//!   `detected_on_primary`, is red-team results (a JSON array or JSON
//!   Lines);
//! * a JSON object whose first key is `"format": "agentrisk-review"` is a
//!   review file (no run: a batch skips it, `--review FILE` applies one;
//!   a viewer applies it to the runs; `crate::review`);
//! * a JSON object whose first key is `"obvious"`, `"realistic"` or
//!   `"semantic"` is a canary set (no run: a batch skips it, a viewer applies
//!   it to the traces; `analyze::Canaries::from_json_bytes`);
//! * an OpenTelemetry span export (OTLP JSON or JSON Lines, a list of span
//!   objects, or binary OTLP, which is refused with advice) is spans
//!   ([`crate::spans::sniff`]): one run per conversation;
//! * anything else is read as a trace, so other JSON gets a trace's errors.

use super::facts::{MetadataError, RunFacts};
use super::redteam::{parse_redteam_results, RedTeamError, RunResult};
use super::scorecard::{looks_like_scorecard, read_scorecard, ScorecardError, ScorecardSettings};
use crate::model::Report;
use crate::pipeline::{analyse_span_bytes, load_any, AnalysisInput, Keep, LoadFileError, Loaded};
use crate::review::RunSecrets;
use std::collections::BTreeSet;

/// The folder a run counts under for `group_by: folder`, from its file's
/// path within the input the user named: the path up to its last `/`. A
/// folder named (picked, dropped, or given to the CLI) starts the path with
/// its own name, so `runs/model-a/x.json` counts under `runs/model-a` and a
/// file right in `runs/` under `runs`; a file named on its own counts
/// under none (`""`, shown as [`super::NO_GROUP_KEY`]). Every shell — the
/// CLI's `batch`, `site` and `pack`, the viewer and the JavaScript package —
/// uses this rule.
pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(folder, _)| folder)
}

/// What a batch file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Trace,
    Report,
    Scorecard,
    RedTeam,
    /// A canary-set file: no run.
    CanarySet,
    /// An OpenTelemetry span export: a run per conversation.
    Spans,
    /// A review file (`crate::review`): no run; decisions about runs.
    Review,
}

impl FileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Trace => "trace",
            FileKind::Report => "report",
            FileKind::Scorecard => "scorecard",
            FileKind::RedTeam => "red-team results",
            FileKind::CanarySet => "canary set",
            FileKind::Spans => "span export",
            FileKind::Review => "review",
        }
    }
}

/// One batch file, read: its runs and its red-team records.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchFile {
    pub kind: FileKind,
    pub runs: Vec<RunFacts>,
    pub redteam: Vec<RunResult>,
    /// A scorecard's own settings.
    pub settings: Option<ScorecardSettings>,
    /// When asked for, the leaked secrets of each run made from a trace or
    /// a report, in `runs` order (empty for a scorecard's rows).
    pub secrets: Vec<RunSecrets>,
    /// When a scorecard was written, if it says.
    pub generated_at: Option<String>,
}

/// Why a batch file could not be read; `Display` names the place and the
/// problem (callers add the file name).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BatchFileError {
    #[error("{0}")]
    Load(#[from] LoadFileError),
    #[error("{0}")]
    Scorecard(#[from] ScorecardError),
    #[error("{0}")]
    RedTeam(#[from] RedTeamError),
    #[error("{0}")]
    Metadata(#[from] MetadataError),
}

/// The kind of a batch file, from a look at its first bytes.
pub fn detect_kind(bytes: &[u8]) -> FileKind {
    if looks_like_scorecard(bytes) {
        return FileKind::Scorecard;
    }
    if crate::review::looks_like_review(bytes) {
        return FileKind::Review;
    }
    if crate::pipeline::looks_like_report(bytes) {
        return FileKind::Report;
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    let text = &text[start..];
    let head = &text[..text.len().min(1 << 16)];
    let first_line = &head[..memchr::memchr(b'\n', head).unwrap_or(head.len())];
    let has = |within: &[u8], needle: &[u8]| memchr::memmem::find(within, needle).is_some();
    if looks_like_canary_set(text) {
        return FileKind::CanarySet;
    }
    if crate::spans::sniff(bytes).is_some() {
        return FileKind::Spans;
    }
    let records = match text.first() {
        Some(b'[') => has(head, b"\"attack_class_id\""),
        Some(b'{') => has(first_line, b"\"attack_class_id\"") && has(first_line, b"\"detected_on_primary\""),
        _ => false,
    };
    if records {
        FileKind::RedTeam
    } else {
        FileKind::Trace
    }
}

/// An object whose first key is a canary tier (traces, reports and
/// scorecards never start so).
fn looks_like_canary_set(text: &[u8]) -> bool {
    let Some(rest) = text.strip_prefix(b"{") else {
        return false;
    };
    let start = rest.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(rest.len());
    let rest = &rest[start..];
    [&b"\"obvious\""[..], b"\"realistic\"", b"\"semantic\""].iter().any(|key| rest.starts_with(key))
}

/// A run's secrets for a review, from its report and whether it was
/// analysed from its trace (the analyser picks the gate).
pub(crate) type SecretsOf<'a> = Option<&'a dyn Fn(&Report, bool) -> RunSecrets>;

/// Reads one batch file: analyses a trace, loads a report, reads a
/// scorecard's rows or red-team records; with `secrets_of`, also each
/// run's secrets ([`BatchFile::secrets`]).
pub(crate) fn load_batch_file(
    file: &str,
    folder: &str,
    bytes: &[u8],
    input: &AnalysisInput<'_>,
    secrets_of: SecretsOf<'_>,
) -> Result<BatchFile, BatchFileError> {
    let kind = detect_kind(bytes);
    let mut out = BatchFile {
        kind,
        runs: Vec::new(),
        redteam: Vec::new(),
        settings: None,
        secrets: Vec::new(),
        generated_at: None,
    };
    match kind {
        FileKind::Scorecard => {
            let rows = read_scorecard(bytes)?;
            out.runs = rows.runs;
            out.redteam = rows.redteam_results;
            out.settings = rows.settings;
            out.generated_at = rows.generated_at;
        }
        FileKind::RedTeam => out.redteam = parse_redteam_results(bytes)?,
        // A canary set is no run; `--canaries FILE` applies one. Nor is a
        // review; `--review FILE` applies one.
        FileKind::CanarySet | FileKind::Review => {}
        FileKind::Spans => {
            for run in analyse_span_bytes(file, bytes, input, &|_| {}, Keep::Trace)? {
                if let Some(trace) = &run.trace {
                    let channels: BTreeSet<_> = crate::util::btree_set(trace.events.iter().map(|e| e.channel));
                    out.runs.push(RunFacts::from_report(file, folder, &run.report, Some(channels), None)?);
                    out.secrets.extend(secrets_of.map(|of| of(&run.report, true)));
                }
            }
        }
        FileKind::Trace | FileKind::Report => {
            let loaded = load_any(bytes, kind == FileKind::Report, input, &|_| {})?;
            out.kind = match loaded {
                Loaded::Trace { .. } => FileKind::Trace,
                Loaded::Report { .. } => FileKind::Report,
            };
            out.runs.push(facts_of_loaded(file, folder, &loaded)?);
            out.secrets.extend(secrets_of.map(|of| match &loaded {
                Loaded::Trace { report, .. } => of(report, true),
                Loaded::Report { report, .. } => of(report, false),
            }));
        }
    }
    Ok(out)
}

/// The facts of a loaded trace or report.
pub(crate) fn facts_of_loaded(file: &str, folder: &str, loaded: &Loaded) -> Result<RunFacts, MetadataError> {
    match loaded {
        Loaded::Trace { report, trace, .. } => facts_of_trace(file, folder, report, trace),
        Loaded::Report { report, .. } => RunFacts::from_report(file, folder, report, None, report.metadata.as_ref()),
    }
}

/// The facts of a trace analysed into `report`.
pub(crate) fn facts_of_trace(
    file: &str,
    folder: &str,
    report: &Report,
    trace: &crate::trace::Trace,
) -> Result<RunFacts, MetadataError> {
    let channels: BTreeSet<_> = crate::util::btree_set(trace.events.iter().map(|e| e.channel));
    RunFacts::from_report(file, folder, report, Some(channels), trace.metadata.as_ref())
}
