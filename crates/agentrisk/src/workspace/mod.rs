//! What a viewer holds and lists: a set of files under what-if settings,
//! and what each file gives.
//!
//! A [`Workspace`] keeps files as bytes with a name and a folder, so that
//! new what-if settings or a new canary set can analyse them again, and
//! analyses each through the [`Analyser`] of its settings
//! ([`what_if_analyser`]). [`Analyser::analyse_file`] (defined here, beside
//! the view types it returns) answers each file with a [`FileResult`]: the run's
//! report with its gate and the gate's reasons, its batch facts, and for a
//! trace the event rows a viewer lists (text masked, findings linked) and
//! the full values a reviewer may reveal. A canary-set file is no run: it
//! becomes the workspace's canary set ([`Workspace::set_canaries`]), which
//! traces are analysed with; a trace's own `metadata.canaries` is used when
//! no set is given (an explicit set wins, as the CLI's `--canaries` does),
//! and each analysed trace says which set it used
//! ([`AnalyzedTrace::canaries`]). The batch summary and comparisons
//! are computed from those facts by [`crate::batch::summarize`] and
//! [`crate::compare`].
//!
//! A review file is no run either: it becomes the workspace's review
//! ([`Workspace::open`], [`Workspace::set_review`]), and every run's result
//! carries its leaked secrets as a review names them ([`AnalyzedTrace::secrets`],
//! [`LoadedReport::secrets`]: what a viewer draws its decision controls
//! for) and, with a review, its reviewed numbers beside the detected ones
//! ([`AnalyzedTrace::review`], [`crate::batch::RunFacts::reviewed`]). A
//! change of decisions needs no analysis again: [`Workspace::set_review`]
//! answers every held run's reviewed numbers at once.
//!
//! The viewer's worker and publishing use this module; it does no I/O (the
//! caller reads the files and gives the clock) and leaves transport
//! (messages, chunking) to the shells.

mod view;

pub use view::listed_compliance;

use crate::analyser::{Analyser, GateOverrides, NamedConfig};
use crate::analyze::{canaries_in_force, redact};
use crate::batch::{
    detect_kind, facts_of_loaded, parse_redteam_results, read_scorecard, FileKind, RunFacts, RunResult,
};
use crate::config::{AnalysisConfig, WhatIf};
use crate::model::{Report, SpanMapping};
use crate::pipeline::{AnalysisError, LoadFileError, Loaded};
use crate::report::report_what_if;
use crate::review::{Date, Review, RunReview, RunSecrets, UnmatchedDecision};
use crate::{Channel, Rescore, ScoringConfig};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

pub use crate::analyser::{warm_up, CanarySetting, Progress, Stage};
pub use crate::analyze::{CanariesUsed, CanarySource};
pub use crate::score::BlockReason;

/// At most this many events of a trace are listed: a viewer shows them all
/// as table rows, and tens of thousands of rows would make a page slow to
/// render and to scroll. The rest are counted, not listed.
pub const EVENT_LIMIT: usize = 5_000;

/// At most this many findings of a run are listed, in report order (most
/// severe first): like events, tens of thousands of table rows would make
/// a page slow. The run's numbers always cover every finding.
pub const FINDING_LIMIT: usize = 5_000;

/// At most this many leak paths of a run, and steps of each, are listed.
pub const LEAK_PATH_LIMIT: usize = 1_000;
pub const LEAK_STEP_LIMIT: usize = 20;

/// At most this many characters of an event's text are listed. A trace can
/// hold whole documents in one event; a viewer needs the start of each.
pub const TEXT_LIMIT: usize = 2_000;

/// The largest file one browser tab takes, in bytes. WebAssembly memory is
/// capped at 4 GB, and analysing a trace takes several times its size
/// (docs/limits.md), so a bigger file would end in an out-of-memory abort;
/// it gets an error naming the CLI instead.
pub const MAX_FILE_BYTES: u64 = 200_000_000;

/// The most bytes of files one browser tab holds at once: the workspace
/// keeps every trace and report for what-if scoring, and the sum must leave
/// room for analysing.
pub const MAX_TAB_BYTES: u64 = 1_000_000_000;

/// Why a file of `size` bytes is refused, when it is: over the per-file
/// limit, or over what the tab still has room for besides `held` bytes.
pub fn size_refusal(size: u64, held: u64) -> Option<String> {
    let mb = |bytes: u64| format!("{:.1} MB", bytes as f64 / 1e6);
    if size > MAX_FILE_BYTES {
        Some(format!(
            "the file is {}, more than the {} one browser tab can analyse; analyse it with the agentrisk command instead",
            mb(size),
            mb(MAX_FILE_BYTES)
        ))
    } else if held.saturating_add(size) > MAX_TAB_BYTES {
        Some(format!(
            "the file is {} and this tab already holds {} of files (at most {} in all); remove some files, or open it in another tab",
            mb(size),
            mb(held),
            mb(MAX_TAB_BYTES)
        ))
    } else {
        None
    }
}

/// What became of one file.
///
/// Externally tagged (`{"trace": {...}}`): an internally tagged enum is read
/// through a buffer, which in the viewer's page means a second copy of the
/// whole report's decoding code in its wasm (about 20 kB gzipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileResult {
    Report(Box<LoadedReport>),
    Trace(Box<AnalyzedTrace>),
    /// A scorecard or red-team results: runs and records for the batch,
    /// with no run view of their own.
    Batch(Box<BatchOnly>),
    /// A canary-set file: not a run. [`Workspace::open`] makes it the
    /// canary set in force; this says its name and tier sizes.
    CanarySet(Box<CanariesUsed>),
    /// An OpenTelemetry span export: a run per conversation, each listed
    /// as a trace is (its report's `span_source` says how it was made).
    Spans(Box<SpanRuns>),
    /// A review file: not a run. [`Workspace::open`] makes it (combined
    /// with the review already in force) the review in force.
    Review(Box<ReviewFile>),
    /// The file could not be used; the message names the place and the problem.
    Error {
        message: String,
    },
}

impl FileResult {
    /// The report of a run (a loaded report, or the one computed for a trace).
    pub fn report_mut(&mut self) -> Option<&mut Report> {
        match self {
            FileResult::Report(loaded) => Some(&mut loaded.report),
            FileResult::Trace(trace) => Some(&mut trace.report),
            FileResult::Spans(_)
            | FileResult::Batch(_)
            | FileResult::CanarySet(_)
            | FileResult::Review(_)
            | FileResult::Error { .. } => None,
        }
    }

    /// The leaked secrets of each run of the file, in run order (one for a
    /// trace or a report, one per conversation of a span export, none for
    /// any other file).
    pub fn run_secrets(&self) -> Vec<&RunSecrets> {
        match self {
            FileResult::Report(loaded) => vec![&loaded.secrets],
            FileResult::Trace(trace) => vec![&trace.secrets],
            FileResult::Spans(spans) => spans.runs.iter().map(|run| &run.secrets).collect(),
            FileResult::Batch(_) | FileResult::CanarySet(_) | FileResult::Review(_) | FileResult::Error { .. } => {
                Vec::new()
            }
        }
    }
}

/// A review file as read (see [`FileResult::Review`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewFile {
    /// Decisions and sign-offs in this file.
    pub decisions: usize,
    pub sign_offs: usize,
    /// The review in force once it is taken: this file's, combined with the
    /// one already in force (from [`Workspace::open`]; from
    /// `Analyser::analyse_file`, this file's alone).
    pub review: Review,
}

/// The reviewed numbers of the runs of one held file, in run order (see
/// [`Workspace::set_review`]); empty without a review.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewedFile {
    pub id: FileId,
    pub runs: Vec<RunReview>,
}

/// A file that only feeds the batch: a scorecard's runs, or red-team
/// result records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchOnly {
    /// `"scorecard"` or `"red-team results"`.
    pub kind: String,
    pub runs: Vec<RunFacts>,
    pub redteam: Vec<RunResult>,
    /// When a scorecard was written, if it says (the Trend view's order).
    #[serde(default)]
    pub generated_at: Option<String>,
}

/// A report as loaded, with its re-scoring. The stored numbers are shown
/// (or, with what-if settings, the numbers they give); the re-scoring of
/// the stored numbers decides the "inconsistent" flag and explains a block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadedReport {
    /// The report, its findings cut to the first [`FINDING_LIMIT`]; with
    /// what-if settings, its numbers are the ones they give.
    pub report: Report,
    pub rescore: Rescore,
    /// Set when what-if settings re-scored the report.
    pub what_if: Option<ReportWhatIfShown>,
    /// How many findings the report has.
    pub findings_total: usize,
    /// How many findings each compliance control cites (by control id).
    pub control_findings: BTreeMap<String, usize>,
    /// The run's key numbers for the batch (over all findings); with a
    /// review, `facts.reviewed` holds the reviewed ones.
    pub facts: RunFacts,
    /// The run's leaked secrets grouped as a review names them (over all
    /// findings), and what its reviewed numbers are computed from.
    #[serde(default)]
    pub secrets: RunSecrets,
    /// With a review in force: the run's reviewed numbers.
    #[serde(default)]
    pub review: Option<RunReview>,
}

/// What what-if settings did to a report: the numbers it stores, why the
/// new gate blocks, and what the settings ask for that a report cannot show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportWhatIfShown {
    pub stored: StoredNumbers,
    pub block_reasons: Vec<BlockReason>,
    pub notes: Vec<String>,
}

/// A report's headline numbers as its file stores them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredNumbers {
    pub risk_index: f64,
    pub privacy_score: i64,
    pub verdict: String,
    pub blocked: bool,
}

/// A trace analysed here: the report the core computed for it (what the
/// reference writes for the same config) and what a viewer lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalyzedTrace {
    /// The report, its findings cut to the first [`FINDING_LIMIT`].
    pub report: Report,
    /// How many findings the report has.
    pub findings_total: usize,
    /// How many findings each compliance control cites (by control id).
    pub control_findings: BTreeMap<String, usize>,
    /// The run's key numbers for the batch (over all findings).
    pub facts: RunFacts,
    /// Why the gate blocked, as the pipeline's gate decided it.
    pub block_reasons: Vec<BlockReason>,
    /// The first [`EVENT_LIMIT`] events, in trace order.
    pub events: Vec<EventRow>,
    /// How many events the trace has (`events` may hold fewer).
    pub events_total: usize,
    /// True when the values to redact could not be known or searched for,
    /// so no event text is listed at all rather than text that might show them.
    pub text_withheld: bool,
    /// The full matched value of each listed finding, by finding id: shown
    /// only when the reviewer asks for one finding's value.
    pub values: HashMap<String, String>,
    /// The canary set the trace was analysed with, if any: its own
    /// `metadata.canaries`, or the workspace's set.
    #[serde(default)]
    pub canaries: Option<CanariesUsed>,
    /// The run's leaked secrets grouped as a review names them (over all
    /// findings), and what its reviewed numbers are computed from.
    #[serde(default)]
    pub secrets: RunSecrets,
    /// With a review in force: the run's reviewed numbers (also in
    /// `facts.reviewed`, in brief).
    #[serde(default)]
    pub review: Option<RunReview>,
}

impl AnalyzedTrace {
    /// Whether [`AnalyzedTrace::report`] lists every finding (none were cut
    /// at [`FINDING_LIMIT`]); then sections computed from the report's
    /// findings can be computed again from it ([`listed_compliance`]).
    pub fn lists_every_finding(&self) -> bool {
        self.report.findings.len() == self.findings_total
    }

    /// Events of the trace that are not in [`AnalyzedTrace::events`].
    pub fn events_left_out(&self) -> usize {
        self.events_total.saturating_sub(self.events.len())
    }

    /// The position in [`AnalyzedTrace::events`] of the first listed event
    /// each finding was found in, by finding id.
    pub fn event_of_finding(&self) -> HashMap<String, usize> {
        let mut positions = HashMap::new();
        for (i, event) in self.events.iter().enumerate() {
            for id in &event.finding_ids {
                positions.entry(id.clone()).or_insert(i);
            }
        }
        positions
    }
}

/// One event as a viewer lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventRow {
    pub event_id: String,
    pub channel: Channel,
    pub source: String,
    pub target: String,
    /// The start of the event's flattened text (at most [`TEXT_LIMIT`]
    /// characters), with every value a detector finds there, and every
    /// leaked value, replaced by its redacted form.
    pub text: Vec<TextPart>,
    /// Characters in the whole flattened text.
    pub text_chars: usize,
    /// The report's findings on this event (same event id and channel).
    pub finding_ids: Vec<String>,
    /// The span the event was made from (a span export's events only), so
    /// a reviewer can find it in their tracing tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<SpanRef>,
}

/// Where in a span export an event came from; empty strings where the
/// mapping does not say (the reference mapping keeps only the kind).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpanRef {
    pub name: String,
    pub kind: String,
    pub span_id: String,
    pub trace_id: String,
}

impl EventRow {
    /// True when `text` is only the start of the event's text.
    pub fn text_truncated(&self) -> bool {
        let shown: usize = self.text.iter().map(|p| p.as_str().chars().count()).sum();
        shown < self.text_chars
    }
}

/// A piece of an event's text. Redacted values keep their number of
/// characters, so the pieces add up to the length of the text shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TextPart {
    Plain(String),
    /// A leaked value (a finding's), as the report redacts it.
    Leaked(String),
    /// A value a built-in detector finds here that is no finding: a secret
    /// the agent was given (a baseline channel) or a match the pipeline set
    /// aside. Redacted the same way; the report never shows it either.
    Detected(String),
}

impl TextPart {
    pub fn as_str(&self) -> &str {
        match self {
            TextPart::Plain(s) | TextPart::Leaked(s) | TextPart::Detected(s) => s,
        }
    }
}

/// Why what-if settings were refused: the message of [`NamedConfig::load`],
/// naming the key or rule and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SettingsError(pub String);

/// The name what-if settings go by in errors.
const SETTINGS_NAME: &str = "what-if settings";

/// What-if settings from `agentleak.yaml` text: `None` for `""` (the
/// reference's defaults, no config file). Refused as the CLI refuses the
/// file ([`NamedConfig::load`]): a bad key, value, custom pattern or
/// detection mode.
pub fn settings_from_yaml(yaml: &str) -> Result<Option<AnalysisConfig>, SettingsError> {
    if yaml.is_empty() {
        return Ok(None);
    }
    Ok(Some(checked_config(yaml.as_bytes())?))
}

/// [`what_if_analyser`] for what-if settings as `agentleak.yaml` text
/// (`""`: the reference's defaults).
pub fn analyser_from_settings(yaml: &str) -> Result<Analyser, SettingsError> {
    let settings = settings_from_yaml(yaml)?;
    Ok(what_if_analyser(settings.map(|config| NamedConfig { name: SETTINGS_NAME.to_owned(), config })))
}

/// The what-if form's values from an imported `agentleak.yaml` file's
/// bytes; only its scoring and detector sections are taken, but the whole
/// file is checked as the CLI checks it.
pub fn what_if_from_file(bytes: &[u8]) -> Result<WhatIf, SettingsError> {
    Ok(WhatIf::from_config(&checked_config(bytes)?))
}

/// [`NamedConfig::load`], with its message (place and problem) kept whole.
fn checked_config(bytes: &[u8]) -> Result<AnalysisConfig, SettingsError> {
    NamedConfig::load(crate::analyser::Named { name: SETTINGS_NAME, bytes })
        .map(|named| named.config)
        .map_err(|e| SettingsError(e.message()))
}

/// The analyser for what-if `settings`, as the viewer applies them: traces
/// are analysed with them, stored reports re-scored with them, and a gate
/// they set is the runs' gate as far as the reviewer knows (a stored
/// decision is checked against it alone, as the CLI's `score --fail-below`
/// / `--no-block-on-critical` do).
pub fn what_if_analyser(settings: Option<NamedConfig>) -> Analyser {
    let defaults = ScoringConfig::default();
    let gate = match &settings {
        Some(named)
            if (named.config.scoring.fail_below, named.config.scoring.block_on_critical)
                != (defaults.fail_below, defaults.block_on_critical) =>
        {
            GateOverrides {
                fail_below: Some(named.config.scoring.fail_below),
                block_on_critical: Some(named.config.scoring.block_on_critical),
            }
        }
        _ => GateOverrides::default(),
    };
    Analyser::new().with_config(settings.clone()).with_what_if(settings).with_gate(gate)
}

impl Analyser {
    /// One file's whole analysis, as a viewer lists it: `bytes` named
    /// `name`, picked from `folder` (see [`crate::batch::folder_of`]),
    /// telling `progress` how a trace's analysis goes. A trace is analysed
    /// with the config and canaries; a report is checked against the
    /// reference's gate (or the gate overrides) and, with a what-if config,
    /// shown with the numbers it gives. A canary-set file is read and
    /// described, not applied (see [`Workspace::open`]).
    pub fn analyse_file(&self, bytes: &[u8], name: &str, folder: &str, progress: &dyn Fn(Progress)) -> FileResult {
        let kind = detect_kind(bytes);
        match kind {
            FileKind::Scorecard => {
                return match read_scorecard(bytes) {
                    Ok(rows) => FileResult::Batch(Box::new(BatchOnly {
                        kind: kind.as_str().to_owned(),
                        runs: rows.runs,
                        redteam: rows.redteam_results,
                        generated_at: rows.generated_at,
                    })),
                    Err(e) => FileResult::Error { message: e.to_string() },
                }
            }
            FileKind::RedTeam => {
                return match parse_redteam_results(bytes) {
                    Ok(redteam) => FileResult::Batch(Box::new(BatchOnly {
                        kind: kind.as_str().to_owned(),
                        runs: Vec::new(),
                        redteam,
                        generated_at: None,
                    })),
                    Err(e) => FileResult::Error { message: e.to_string() },
                }
            }
            FileKind::CanarySet => {
                return match CanarySetting::from_file(name, bytes) {
                    Ok(setting) => FileResult::CanarySet(Box::new(setting.used())),
                    Err(e) => FileResult::Error { message: e.to_string() },
                }
            }
            FileKind::Spans => return self.analyse_span_file(bytes, name, folder, progress),
            FileKind::Review => {
                return match Review::from_json(bytes) {
                    Ok(review) => FileResult::Review(Box::new(ReviewFile {
                        decisions: review.decisions.len(),
                        sign_offs: review.runs.len(),
                        review,
                    })),
                    Err(e) => FileResult::Error { message: e.to_string() },
                }
            }
            FileKind::Trace | FileKind::Report => {}
        }
        // A report's consistency check assumes the reference's gate (its
        // thresholds are not stored); what-if settings re-score it afterwards.
        let config = match kind {
            FileKind::Trace => self.trace_config().into_owned(),
            _ => AnalysisConfig::default(),
        };
        // The same run with raw values kept in the findings: the only thing
        // `redact_values` changes is whether findings carry `matched_value`.
        // The values mask the event text, then leave the report, so the caller
        // gets exactly the report the config gives.
        let unredacted = AnalysisConfig { redact_values: false, ..config.clone() };
        let report = kind == FileKind::Report;
        let (loaded, raw) = match self.load(bytes, report, &unredacted, progress) {
            // Raw values can hold text (a lone surrogate) that their redacted
            // form hides, which only the run with raw values refuses.
            Err(LoadFileError::Analysis(AnalysisError::LoneSurrogate(_))) => {
                (self.load(bytes, report, &config, progress), false)
            }
            other => (other, kind == FileKind::Trace),
        };
        let mut loaded = match loaded {
            Ok(loaded) => loaded,
            Err(e) => return FileResult::Error { message: e.to_string() },
        };
        if let (true, Loaded::Trace { report, .. }) = (raw, &mut loaded) {
            // The other place raw values go with redaction off: each leak
            // path's value, which the default report holds redacted.
            for path in report.leak_paths.iter_mut().flatten() {
                path.value = redact(&path.value);
            }
        }
        let mut what_if = None;
        if let Loaded::Report { report, rescore } = &mut loaded {
            *rescore = self.rescore(report);
            if let Some(settings) = self.what_if() {
                match report_what_if(report, &settings.config) {
                    Ok(rescored) => {
                        let stored = StoredNumbers {
                            risk_index: report.risk_index,
                            privacy_score: report.privacy_score,
                            verdict: report.verdict.clone(),
                            blocked: report.blocked,
                        };
                        **report = rescored.report;
                        what_if = Some(ReportWhatIfShown {
                            stored,
                            block_reasons: rescored.block_reasons,
                            notes: rescored.notes,
                        });
                    }
                    Err(e) => return FileResult::Error { message: format!("with the what-if settings: {e}") },
                }
            }
        }
        let mut facts = match facts_of_loaded(name, folder, &loaded) {
            Ok(facts) => facts,
            Err(e) => return FileResult::Error { message: e.to_string() },
        };
        match loaded {
            Loaded::Report { report, rescore } => {
                let mut report = *report;
                let secrets = self.report_secrets(&report);
                let review = self.reviewed(&secrets);
                facts.reviewed = review.as_ref().map(RunReview::numbers);
                let (findings_total, control_findings) = view::list_findings(&mut report);
                FileResult::Report(Box::new(LoadedReport {
                    report,
                    rescore,
                    what_if,
                    findings_total,
                    control_findings,
                    facts,
                    secrets,
                    review,
                }))
            }
            Loaded::Trace { report, trace, block_reasons } => {
                let mut analyzed = view::analyzed_trace(*report, &trace, &config, facts, block_reasons);
                self.add_review(&mut analyzed);
                // The pipeline read the same metadata without error.
                analyzed.canaries =
                    canaries_in_force(trace.metadata.as_ref(), self.canaries().map(|c| (&c.canaries, &*c.name)))
                        .ok()
                        .flatten()
                        .map(|(_, used)| used);
                FileResult::Trace(Box::new(analyzed))
            }
        }
    }
}

impl Analyser {
    /// A span export's runs, each listed as a trace is; raw values are kept
    /// for revealing, as for a trace.
    fn analyse_span_file(&self, bytes: &[u8], name: &str, folder: &str, progress: &dyn Fn(Progress)) -> FileResult {
        let config = self.trace_config().into_owned();
        let unredacted = AnalysisConfig { redact_values: false, ..config.clone() };
        let runs = match self.load_spans(name, bytes, &unredacted, progress) {
            Ok(runs) => runs,
            Err(e) => return FileResult::Error { message: e.to_string() },
        };
        let mut out = Vec::with_capacity(runs.len());
        for run in runs {
            let (mut report, Some(trace)) = (run.report, run.trace) else { continue };
            for path in report.leak_paths.iter_mut().flatten() {
                path.value = redact(&path.value);
            }
            let channels = crate::util::btree_set(trace.events.iter().map(|e| e.channel));
            let facts = match RunFacts::from_report(name, folder, &report, Some(channels), None) {
                Ok(facts) => facts,
                Err(e) => return FileResult::Error { message: e.to_string() },
            };
            let mut analyzed = view::analyzed_trace(report, &trace, &config, facts, run.block_reasons);
            self.add_review(&mut analyzed);
            analyzed.canaries = self.canaries().map(|c| c.used());
            out.push(analyzed);
        }
        FileResult::Spans(Box::new(SpanRuns { runs: out }))
    }
}

impl Analyser {
    /// A trace's reviewed numbers under the review in force, if any.
    fn add_review(&self, analyzed: &mut AnalyzedTrace) {
        analyzed.review = self.reviewed(&analyzed.secrets);
        analyzed.facts.reviewed = analyzed.review.as_ref().map(RunReview::numbers);
    }
}

/// The runs of a span export, in conversation order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SpanRuns {
    pub runs: Vec<AnalyzedTrace>,
}

/// A file a workspace holds: kept so that new settings can analyse it again.
#[derive(Debug, Clone)]
struct Held {
    id: FileId,
    name: String,
    folder: String,
    bytes: Vec<u8>,
    /// The secrets of its runs, from its latest analysis (for reviews).
    secrets: Vec<RunSecrets>,
}

/// The review in force: what it is, the name it is saved under, and the
/// file it is saved as.
#[derive(Debug, Clone)]
struct HeldReview {
    review: Review,
    name: String,
    json: Vec<u8>,
}

/// The name a review made in the viewer is saved under.
pub const REVIEW_FILE_NAME: &str = "review.json";

/// A file's handle in a [`Workspace`], chosen by the caller.
pub type FileId = u32;

/// Files and what-if settings. Traces and reports are kept (their bytes)
/// so that new settings analyse and re-score them again; readable
/// scorecards and red-team results are kept too (settings do not change
/// them), so that everything loaded can be saved again ([`Workspace::held`]).
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    /// The what-if settings (as both the trace config and the report
    /// what-if) and the canary set in force.
    analyser: Analyser,
    held: Vec<Held>,
    review: Option<HeldReview>,
    /// The date reviews are judged at, once set ([`Workspace::set_review`],
    /// [`Workspace::set_review_date`], or the clock of the first review file
    /// opened).
    review_date: Option<Date>,
}

impl Workspace {
    /// An empty workspace with the reference's defaults.
    pub fn new() -> Workspace {
        Workspace::default()
    }

    /// The what-if settings in force (`None`: the reference's defaults).
    pub fn settings(&self) -> Option<&AnalysisConfig> {
        self.analyser.config().map(|named| &named.config)
    }

    /// Takes what-if settings as `agentleak.yaml` text (`""`: the
    /// reference's defaults). Refused settings change nothing. Returns the
    /// files to analyse again ([`Workspace::reanalyze`]), in the order they came.
    pub fn set_settings(&mut self, yaml: &str) -> Result<Vec<FileId>, SettingsError> {
        let canaries = self.analyser.canaries().cloned();
        let mapping = self.analyser.span_mapping();
        self.analyser = analyser_from_settings(yaml)?.with_canaries(canaries).with_span_mapping(mapping);
        // Scorecards and red-team results do not change with settings.
        let scored = |h: &&Held| matches!(detect_kind(&h.bytes), FileKind::Trace | FileKind::Report | FileKind::Spans);
        Ok(self.held.iter().filter(scored).map(|h| h.id).collect())
    }

    /// The span mapping in force.
    pub fn span_mapping(&self) -> SpanMapping {
        self.analyser.span_mapping()
    }

    /// Takes a span mapping; returns the span exports to analyse again
    /// ([`Workspace::reanalyze`]), in the order they came.
    pub fn set_span_mapping(&mut self, mapping: SpanMapping) -> Vec<FileId> {
        self.analyser = std::mem::take(&mut self.analyser).with_span_mapping(mapping);
        self.held.iter().filter(|h| detect_kind(&h.bytes) == FileKind::Spans).map(|h| h.id).collect()
    }

    /// Span export `id` as AgentLeak traces under the mapping in force
    /// (one per run: a file name and the trace's JSON), for running the
    /// reference on it; `None` when `id` is no span export held.
    pub fn export_traces(&self, id: FileId) -> Option<Result<Vec<(String, String)>, String>> {
        let held = self.held.iter().find(|h| h.id == id && detect_kind(&h.bytes) == FileKind::Spans)?;
        let stem = crate::spans::file_stem(&held.name);
        Some(
            crate::spans::runs_from_spans(&held.bytes, stem, self.analyser.span_mapping())
                .map(|runs| {
                    runs.iter()
                        .map(|run| {
                            let name = format!("{}.trace.json", crate::spans::safe_file_stem(&run.trace.run_id));
                            (name, crate::spans::trace_json(&run.trace))
                        })
                        .collect()
                })
                .map_err(|e| format!("{}: {e}", held.name)),
        )
    }

    /// The canary set in force (`None`: each trace's own, if any).
    pub fn canaries(&self) -> Option<&CanarySetting> {
        self.analyser.canaries()
    }

    /// Takes a canary set (`None`: none, so each trace's own
    /// `metadata.canaries` applies); it wins over a trace's own. Returns
    /// the traces to analyse again ([`Workspace::reanalyze`]), in the order
    /// they came.
    pub fn set_canaries(&mut self, canaries: Option<CanarySetting>) -> Vec<FileId> {
        self.analyser = std::mem::take(&mut self.analyser).with_canaries(canaries);
        self.held_traces()
    }

    /// The traces held, in the order they came.
    pub fn held_traces(&self) -> Vec<FileId> {
        self.held
            .iter()
            .filter(|h| matches!(detect_kind(&h.bytes), FileKind::Trace | FileKind::Spans))
            .map(|h| h.id)
            .collect()
    }

    /// Adds file `id` and analyses it with the settings in force. A file
    /// already held under `id` is replaced. A canary-set file is not held:
    /// it becomes the canary set in force ([`FileResult::CanarySet`]), and
    /// the held traces need analysing again ([`Workspace::held_traces`]).
    pub fn open(
        &mut self,
        id: FileId,
        name: &str,
        folder: &str,
        bytes: Vec<u8>,
        generated_at: &str,
        progress: &dyn Fn(Progress),
    ) -> FileResult {
        let kind = detect_kind(&bytes);
        if kind == FileKind::Review {
            return self.open_review(name, &bytes, generated_at);
        }
        if kind == FileKind::CanarySet {
            return match CanarySetting::from_file(name, &bytes) {
                Ok(setting) => {
                    let used = setting.used();
                    self.analyser = std::mem::take(&mut self.analyser).with_canaries(Some(setting));
                    FileResult::CanarySet(Box::new(used))
                }
                Err(e) => FileResult::Error { message: e.to_string() },
            };
        }
        let result = self.analyser_at(generated_at).analyse_file(&bytes, name, folder, progress);
        self.forget(id);
        if matches!(kind, FileKind::Trace | FileKind::Report | FileKind::Spans)
            || !matches!(result, FileResult::Error { .. })
        {
            let secrets = result.run_secrets().into_iter().cloned().collect();
            self.held.push(Held { id, name: name.to_owned(), folder: folder.to_owned(), bytes, secrets });
        }
        result
    }

    /// File `id` analysed again with the settings in force; `None` when the
    /// workspace does not hold it.
    pub fn reanalyze(&mut self, id: FileId, generated_at: &str, progress: &dyn Fn(Progress)) -> Option<FileResult> {
        let analyser = self.analyser_at(generated_at);
        let held = self.held.iter_mut().find(|h| h.id == id)?;
        let result = analyser.analyse_file(&held.bytes, &held.name, &held.folder, progress);
        held.secrets = result.run_secrets().into_iter().cloned().collect();
        Some(result)
    }

    /// The analyser in force, with a trace report's time and, with a
    /// review, the date it is judged at (else the clock's).
    fn analyser_at(&self, generated_at: &str) -> Analyser {
        let analyser = self.analyser.clone().with_generated_at(generated_at);
        match &self.review {
            Some(held) => analyser.with_review(Some(held.review.clone()), self.date_at(generated_at)),
            None => analyser,
        }
    }

    /// The review date set, else the date of the clock's `now`.
    fn date_at(&self, now: &str) -> Date {
        self.review_date.or_else(|| Date::of_timestamp(now)).unwrap_or_else(|| Date::from_unix_seconds(0))
    }

    /// A review file: combined with the review in force (a conflict leaves
    /// that as it was), and the date set from the clock if none is.
    fn open_review(&mut self, name: &str, bytes: &[u8], generated_at: &str) -> FileResult {
        let review = match Review::from_json(bytes) {
            Ok(review) => review,
            Err(e) => return FileResult::Error { message: e.to_string() },
        };
        let (decisions, sign_offs) = (review.decisions.len(), review.runs.len());
        let (combined, saved_as) = match &self.review {
            None => (review, name.to_owned()),
            Some(held) => match Review::combined([(held.name.as_str(), held.review.clone()), (name, review)]) {
                Ok(combined) => (combined, held.name.clone()),
                Err((_, e)) => return FileResult::Error { message: e.to_string() },
            },
        };
        self.review_date = Some(self.date_at(generated_at));
        self.review =
            Some(HeldReview { json: combined.to_json().into_bytes(), review: combined.clone(), name: saved_as });
        FileResult::Review(Box::new(ReviewFile { decisions, sign_offs, review: combined }))
    }

    /// The review in force (`None`: none): what a viewer shows, edits and exports.
    pub fn review(&self) -> Option<&Review> {
        self.review.as_ref().map(|held| &held.review)
    }

    /// The date the review's acceptances are judged at, once set.
    pub fn review_date(&self) -> Option<Date> {
        self.review_date
    }

    /// Takes a review (a viewer's edits, or `None` for none) and the date
    /// to judge its acceptances at (a viewer's today), and answers every
    /// held run's reviewed numbers with it, file by file in the order they
    /// came — no file is analysed again. Later results ([`Workspace::open`],
    /// [`Workspace::reanalyze`]) carry them too.
    pub fn set_review(&mut self, review: Option<Review>, today: Date) -> Vec<ReviewedFile> {
        self.review_date = Some(today);
        self.review = review.map(|review| HeldReview {
            json: review.to_json().into_bytes(),
            name: self.review.as_ref().map_or_else(|| REVIEW_FILE_NAME.to_owned(), |held| held.name.clone()),
            review,
        });
        self.reviewed_files()
    }

    /// Pins the date reviews are judged at (a publication's, when checking
    /// it), or unpins it (`None`: the clock's on the next file opened).
    pub fn set_review_date(&mut self, today: Option<Date>) {
        self.review_date = today;
    }

    /// Every held run's reviewed numbers under the review in force (each
    /// file's list is empty without one), with no analysis again.
    pub fn reviewed_files(&self) -> Vec<ReviewedFile> {
        let today = self.review_date.unwrap_or_else(|| Date::from_unix_seconds(0));
        self.held
            .iter()
            .filter(|h| !h.secrets.is_empty())
            .map(|h| ReviewedFile {
                id: h.id,
                runs: match &self.review {
                    Some(held) => h.secrets.iter().map(|s| s.review(&held.review, today)).collect(),
                    None => Vec::new(),
                },
            })
            .collect()
    }

    /// The review's decisions that match no leaked secret of any run held,
    /// with why (a viewer lists them rather than drop them).
    pub fn unmatched_decisions(&self) -> Vec<UnmatchedDecision> {
        let Some(held) = &self.review else { return Vec::new() };
        let runs: Vec<&RunSecrets> = self.held.iter().flat_map(|h| &h.secrets).collect();
        held.review.unmatched(&runs)
    }

    /// Drops file `id` (nothing happens if it is not held).
    pub fn forget(&mut self, id: FileId) {
        self.held.retain(|h| h.id != id);
    }

    /// The bytes of file `id`, when it is held.
    pub fn held_bytes(&self, id: FileId) -> Option<&[u8]> {
        self.held.iter().find(|h| h.id == id).map(|h| h.bytes.as_slice())
    }

    /// Every file held, in the order they came: name, folder and bytes;
    /// first the review in force as a review file (so that a publication
    /// made of them carries the record, and a viewer opening it applies the
    /// review before the runs).
    pub fn held(&self) -> impl Iterator<Item = (&str, &str, &[u8])> {
        let review = self.review.iter().map(|r| (r.name.as_str(), "", r.json.as_slice()));
        review.chain(self.held.iter().map(|h| (h.name.as_str(), h.folder.as_str(), h.bytes.as_slice())))
    }

    /// The size in bytes of file `id`, when it is held.
    pub fn held_size(&self, id: FileId) -> Option<u64> {
        self.held.iter().find(|h| h.id == id).map(|h| h.bytes.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_limits_are_refused_with_the_sizes_named() {
        assert_eq!(size_refusal(MAX_FILE_BYTES, 0), None);
        let over = size_refusal(MAX_FILE_BYTES + 1, 0).expect("one byte over is refused");
        assert!(over.contains("200.0 MB, more than the 200.0 MB") && over.contains("agentrisk command"), "{over}");
        assert_eq!(size_refusal(1_000, MAX_TAB_BYTES - 1_000), None);
        let full = size_refusal(2_000_000, MAX_TAB_BYTES - 1_000_000).expect("a full tab refuses");
        assert!(full.contains("2.0 MB and this tab already holds 999.0 MB"), "{full}");
    }
}
