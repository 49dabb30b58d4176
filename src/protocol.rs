//! Messages between the page and the analysis worker.
//!
//! Page → worker: a JS object `{id, name, blob}` (a dropped or picked file)
//! or `{id, name, url}` (a bundled sample the worker fetches from the site).
//! Worker → page: a JSON string of [`FromWorker`]. JSON strings cross the
//! boundary faster than structured clones of nested objects, and only
//! finished summaries ever reach the page: for a trace, its computed report
//! and a bounded list of its events ([`EventRow`]), never the trace itself.
//! A result's long lists come first, in parts of about [`PART_BYTES`]
//! ([`split_result`]), so that the page reads them in short tasks.

use agentrisk::analyze::redact;
use agentrisk::batch::{
    detect_kind, facts_of_loaded, parse_redteam_results, read_scorecard, FileKind, RunFacts, RunResult,
};
use agentrisk::config::AnalysisConfig;
use agentrisk::model::{Finding, LeakPath, Report};
use agentrisk::pipeline::{
    detection_settings, load_any_observed, AnalysisError, AnalysisInput, LoadFileError, Loaded, Stage,
};
use agentrisk::report::report_what_if;
use agentrisk::score::BlockReason;
use agentrisk::trace::Trace;
use agentrisk::{Channel, Rescore, ScoringConfig};
use aho_corasick::{AhoCorasick, MatchKind};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// At most this many events of a trace are sent to the page: the run view
/// lists them all as table rows, and tens of thousands of rows would make
/// the page slow to render and to scroll. The rest are counted, not sent.
pub const EVENT_LIMIT: usize = 5_000;

/// At most this many findings of a run are sent to the page, in report
/// order (most severe first): like events, tens of thousands of table rows
/// would make the page slow, and decoding them would hold up the page's
/// thread. The run's numbers always cover every finding.
pub const FINDING_LIMIT: usize = 5_000;

/// At most this many leak paths of a run, and steps of each, are sent to the page.
pub const LEAK_PATH_LIMIT: usize = 1_000;
pub const LEAK_STEP_LIMIT: usize = 20;

/// At most this many characters of an event's text are sent. A trace can
/// hold whole documents in one event; the run view needs the start of each.
pub const TEXT_LIMIT: usize = 2_000;

/// The largest file one tab takes, in bytes. The worker's WebAssembly
/// memory is capped at 4 GB, and analysing a trace takes several times its
/// size (see the README's limits), so a bigger file would end in an
/// out-of-memory abort; it gets an error row naming the CLI instead.
pub const MAX_FILE_BYTES: u64 = 200_000_000;

/// The most bytes of files one tab holds at once: the worker keeps every
/// trace and report for what-if scoring, and the sum must leave room for analysing.
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

/// Files larger than this get progress lines in their row while they are
/// read and analysed; smaller ones are done before a status would be seen.
pub const PROGRESS_FROM_BYTES: u64 = 5_000_000;

/// Externally tagged (`{"done": {...}}`): an internally tagged enum is
/// read into a buffer before its fields, more work for the page on every message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker has installed its message handler; queued files may be sent.
    Ready,
    /// How far the worker has come with a large file.
    Progress { id: u32, progress: Progress },
    /// A piece of file `id`'s result, posted before its `Done`. The bridge
    /// puts the pieces back ([`join_result`]); the views never see one.
    Part { id: u32, part: ResultPart },
    /// One file is done (its long lists in the `Part`s before this).
    Done { id: u32, result: FileResult },
    /// New what-if settings were taken; every file is being analysed again.
    SettingsApplied,
    /// What-if settings the core refused, and why (naming the key).
    SettingsRejected { message: String },
    /// The worker panicked, while working on file `id` if it knows; it
    /// cannot be trusted after that and is replaced.
    Crashed { id: Option<u32>, message: String },
}

/// A run of one of a result's long lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultPart {
    Findings(Vec<Finding>),
    LeakPaths(Vec<LeakPath>),
    Events(Vec<EventRow>),
    /// (finding id, matched value) pairs of [`AnalysedTrace::values`].
    Values(Vec<(String, String)>),
}

/// About how many bytes of JSON one [`ResultPart`] holds (one long item
/// may make a part longer). The page reads JSON at some 40 MB/s, so a part
/// takes it about 10 ms: a 21 MB trace's 4 MB result is read in short tasks
/// rather than one that holds up the page for 150 ms.
pub const PART_BYTES: usize = 256 * 1024;

/// Takes the long lists (findings, leak paths, events, values) out of
/// `result` and returns them in parts of about [`PART_BYTES`], in list
/// order; [`join_result`] puts them back.
pub fn split_result(result: &mut FileResult) -> Vec<ResultPart> {
    let mut parts = Vec::new();
    if let FileResult::Trace(trace) = result {
        cut(std::mem::take(&mut trace.events), ResultPart::Events, &mut parts);
        cut(std::mem::take(&mut trace.values).into_iter().collect(), ResultPart::Values, &mut parts);
    }
    if let Some(report) = report_mut(result) {
        cut(std::mem::take(&mut report.findings), ResultPart::Findings, &mut parts);
        if let Some(paths) = report.leak_paths.as_mut() {
            cut(std::mem::take(paths), ResultPart::LeakPaths, &mut parts);
        }
    }
    parts
}

/// Appends `parts` (from [`split_result`], in order) to `result`'s lists.
pub fn join_result(result: &mut FileResult, parts: Vec<ResultPart>) {
    for part in parts {
        match (part, &mut *result) {
            (ResultPart::Events(events), FileResult::Trace(trace)) => trace.events.extend(events),
            (ResultPart::Values(values), FileResult::Trace(trace)) => trace.values.extend(values),
            (ResultPart::Findings(findings), result) => {
                if let Some(report) = report_mut(result) {
                    report.findings.extend(findings);
                }
            }
            (ResultPart::LeakPaths(paths), result) => {
                if let Some(report) = report_mut(result) {
                    report.leak_paths.get_or_insert_with(Vec::new).extend(paths);
                }
            }
            // Parts of a trace's lists for a result that is no trace: none are sent.
            (ResultPart::Events(_) | ResultPart::Values(_), _) => {}
        }
    }
}

fn report_mut(result: &mut FileResult) -> Option<&mut Report> {
    match result {
        FileResult::Report(loaded) => Some(&mut loaded.report),
        FileResult::Trace(trace) => Some(&mut trace.report),
        FileResult::Batch(_) | FileResult::Error { .. } => None,
    }
}

/// `items` cut into runs of about [`PART_BYTES`] of JSON, each made a part by `part`.
fn cut<T: Serialize>(items: Vec<T>, part: fn(Vec<T>) -> ResultPart, parts: &mut Vec<ResultPart>) {
    let mut run = Vec::new();
    let mut bytes = 0;
    for item in items {
        let len = json_len(&item);
        if !run.is_empty() && bytes + len > PART_BYTES {
            parts.push(part(std::mem::take(&mut run)));
            bytes = 0;
        }
        bytes += len;
        run.push(item);
    }
    if !run.is_empty() {
        parts.push(part(run));
    }
}

/// How many bytes `value` takes as JSON, counted without writing them.
fn json_len<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail, and the types here all serialise.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// What the worker is doing with a large file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Reading the file's bytes into the worker.
    Reading,
    /// The analysis stages of the core.
    Parsing,
    Detecting,
    Linking,
    Scoring,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Reading => "Reading",
            Phase::Parsing => Stage::Parsing.label(),
            Phase::Detecting => Stage::Detecting.label(),
            Phase::Linking => Stage::Linking.label(),
            Phase::Scoring => Stage::Reporting.label(),
        }
    }
}

impl From<Stage> for Phase {
    fn from(stage: Stage) -> Phase {
        match stage {
            Stage::Parsing => Phase::Parsing,
            Stage::Detecting => Phase::Detecting,
            Stage::Linking => Phase::Linking,
            Stage::Reporting => Phase::Scoring,
        }
    }
}

/// The latest progress of a large file: its phase, its size, and once the
/// analysis runs, the share done and the speed so far.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub phase: Phase,
    pub bytes: u64,
    /// Whole percent of the analysis done.
    pub percent: Option<u8>,
    /// Megabytes of the file analysed per second so far.
    pub mb_per_s: Option<f64>,
}

impl Progress {
    /// The status line of the file's row, e.g. `Detecting · 42% · 14.1 MB/s · 21.0 MB`.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("{}…", self.phase.label())];
        if let Some(p) = self.percent {
            parts.push(format!("{p}%"));
        }
        if let Some(speed) = self.mb_per_s.filter(|s| s.is_finite() && *s > 0.0) {
            parts.push(format!("{speed:.1} MB/s"));
        }
        parts.push(format!("{:.1} MB", self.bytes as f64 / 1e6));
        parts.join(" · ")
    }
}

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum FileResult {
    Report(Box<LoadedReport>),
    Trace(Box<AnalysedTrace>),
    /// A scorecard or red-team results: runs and records for the batch,
    /// with no run view of their own.
    Batch(Box<BatchOnly>),
    /// The file could not be used; the message names the place and the problem.
    Error {
        message: String,
    },
}

/// A file that only feeds the batch: a scorecard's runs, or red-team
/// result records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchOnly {
    /// `"scorecard"` or `"red-team results"`.
    pub kind: String,
    pub runs: Vec<RunFacts>,
    pub redteam: Vec<RunResult>,
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
    /// The run's key numbers for the batch (over all findings).
    pub facts: RunFacts,
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
/// reference would write with no config file) and what the run view lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysedTrace {
    /// The report, its findings cut to the first [`FINDING_LIMIT`].
    pub report: Report,
    /// How many findings the report has.
    pub findings_total: usize,
    /// How many findings each compliance control cites (by control id).
    pub control_findings: BTreeMap<String, usize>,
    /// The run's key numbers for the batch (over all findings).
    pub facts: RunFacts,
    /// Why the gate blocked, read from the report's own fields.
    pub block_reasons: Vec<BlockReason>,
    /// The first [`EVENT_LIMIT`] events, in trace order.
    pub events: Vec<EventRow>,
    /// How many events the trace has (`events` may hold fewer).
    pub events_total: usize,
    /// True when the values to redact could not be known or searched for,
    /// so no event text is sent at all rather than text that might show them.
    pub text_withheld: bool,
    /// The full matched value of each listed finding, by finding id: shown
    /// only when the reviewer asks for one finding's value. Kept in the
    /// page's memory, never in storage or the URL.
    pub values: HashMap<String, String>,
}

impl AnalysedTrace {
    /// Events of the trace that are not in [`AnalysedTrace::events`].
    pub fn events_left_out(&self) -> usize {
        self.events_total.saturating_sub(self.events.len())
    }
}

/// One event as the run view lists it.
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

/// The worker's whole job for one file's bytes. `name` is the file's name
/// and `folder` the folder it was picked from (empty if none);
/// `generated_at` is the report time for a trace, from the caller's clock.
pub fn analyze_bytes(bytes: &[u8], name: &str, folder: &str, generated_at: String) -> FileResult {
    analyze_bytes_observed(bytes, name, folder, None, generated_at, &|_| {})
}

/// [`analyze_bytes`] with a config (`None`: no config file, the
/// reference's defaults), telling `progress` how far a trace's analysis has
/// come.
pub fn analyze_bytes_observed(
    bytes: &[u8],
    name: &str,
    folder: &str,
    config: Option<&AnalysisConfig>,
    generated_at: String,
    progress: &dyn Fn(agentrisk::pipeline::Progress),
) -> FileResult {
    let kind = detect_kind(bytes);
    match kind {
        FileKind::Scorecard => {
            return match read_scorecard(bytes) {
                Ok(rows) => FileResult::Batch(Box::new(BatchOnly {
                    kind: FileKind::Scorecard.as_str().to_owned(),
                    runs: rows.runs,
                    redteam: rows.redteam_results,
                })),
                Err(e) => FileResult::Error { message: e.to_string() },
            }
        }
        FileKind::RedTeam => {
            return match parse_redteam_results(bytes) {
                Ok(redteam) => FileResult::Batch(Box::new(BatchOnly {
                    kind: FileKind::RedTeam.as_str().to_owned(),
                    runs: Vec::new(),
                    redteam,
                })),
                Err(e) => FileResult::Error { message: e.to_string() },
            }
        }
        FileKind::Trace | FileKind::Report => {}
    }
    // A report's consistency check assumes the reference's gate (its
    // thresholds are not stored); what-if settings re-score it afterwards.
    let what_if_config = config;
    let config = match kind {
        FileKind::Trace => config.cloned().unwrap_or_default(),
        _ => AnalysisConfig::default(),
    };
    // The same run with raw values kept in the findings: the only thing
    // `redact_values` changes is whether findings carry `matched_value`.
    // The worker uses the values to mask them in the event text, then
    // drops them from the report, so the page gets exactly the report the
    // config gives.
    let unredacted = AnalysisConfig { redact_values: false, ..config.clone() };
    let (loaded, raw) = match load(bytes, &unredacted, &generated_at, progress) {
        // Raw values can hold text (a lone surrogate) that their redacted
        // form hides, which only the run with raw values refuses.
        Err(LoadFileError::Analysis(AnalysisError::LoneSurrogate(_))) => {
            (load(bytes, &config, &generated_at, progress), false)
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
    if let (Loaded::Report { report, .. }, Some(settings)) = (&mut loaded, what_if_config) {
        match report_what_if(report, settings) {
            Ok(rescored) => {
                let stored = StoredNumbers {
                    risk_index: report.risk_index,
                    privacy_score: report.privacy_score,
                    verdict: report.verdict.clone(),
                    blocked: report.blocked,
                };
                **report = rescored.report;
                what_if =
                    Some(ReportWhatIfShown { stored, block_reasons: rescored.block_reasons, notes: rescored.notes });
            }
            Err(e) => return FileResult::Error { message: format!("with the what-if settings: {e}") },
        }
    }
    let facts = match facts_of_loaded(name, folder, &loaded) {
        Ok(facts) => facts,
        Err(e) => return FileResult::Error { message: e.to_string() },
    };
    match loaded {
        Loaded::Report { report, rescore } => {
            let mut report = *report;
            let (findings_total, control_findings) = list_findings(&mut report);
            FileResult::Report(Box::new(LoadedReport {
                report,
                rescore,
                what_if,
                findings_total,
                control_findings,
                facts,
            }))
        }
        Loaded::Trace { report, trace } => FileResult::Trace(Box::new(analysed_trace(*report, &trace, &config, facts))),
    }
}

fn load(
    bytes: &[u8],
    config: &AnalysisConfig,
    generated_at: &str,
    progress: &dyn Fn(agentrisk::pipeline::Progress),
) -> Result<Loaded, LoadFileError> {
    // No environment: only the LLM judge reads it, and the viewer never calls out.
    let input = AnalysisInput { config, canaries: None, env: &|_| None, generated_at: generated_at.to_owned() };
    load_any_observed(bytes, &input, progress)
}

/// The page's view of an analysed trace; strips the raw values from the findings.
fn analysed_trace(mut report: Report, trace: &Trace, config: &AnalysisConfig, facts: RunFacts) -> AnalysedTrace {
    let mut leaked: Vec<(String, String)> = Vec::new();
    let mut values = HashMap::new();
    let mut every_value_known = true;
    for (i, finding) in report.findings.iter_mut().enumerate() {
        match finding.matched_value.take() {
            Some(value) if !value.is_empty() => {
                if i < FINDING_LIMIT {
                    values.insert(finding.finding_id.clone(), value.clone());
                }
                leaked.push((value, finding.redacted_value.clone()))
            }
            Some(_) => {}
            None => every_value_known = false,
        }
    }
    let listed = &trace.events[..trace.events.len().min(EVENT_LIMIT)];
    let masks = if every_value_known { Masks::new(leaked, detected_values(listed, config)) } else { None };
    let text_withheld = masks.is_none();
    let mut findings_by_event: HashMap<(&str, Channel), Vec<String>> = HashMap::new();
    for f in &report.findings {
        findings_by_event.entry((&*f.event_id, f.channel)).or_default().push(f.finding_id.clone());
    }
    let events = listed
        .iter()
        .map(|event| EventRow {
            event_id: event.event_id.to_string(),
            channel: event.channel,
            source: event.source.to_string(),
            target: event.target.to_string(),
            text: masks.as_ref().map(|m| m.shown_text(&event.text)).unwrap_or_default(),
            text_chars: event.text.chars().count(),
            finding_ids: findings_by_event.get(&(&*event.event_id, event.channel)).cloned().unwrap_or_default(),
        })
        .collect();
    let block_reasons = block_reasons_from_report(&report, &config.scoring);
    let (findings_total, control_findings) = list_findings(&mut report);
    AnalysedTrace {
        control_findings,
        block_reasons,
        events,
        events_total: trace.events.len(),
        text_withheld,
        values,
        report,
        findings_total,
        facts,
    }
}

/// Cuts the report's findings to the listed ones; returns how many it had,
/// and how many each compliance control cites.
fn list_findings(report: &mut Report) -> (usize, BTreeMap<String, usize>) {
    let total = report.findings.len();
    report.findings.truncate(FINDING_LIMIT);
    // Leak paths grow with the secrets and their copies; the page lists a
    // bounded number, each with its first steps.
    if let Some(paths) = report.leak_paths.as_mut() {
        paths.truncate(LEAK_PATH_LIMIT);
        for path in paths {
            path.steps.truncate(LEAK_STEP_LIMIT);
        }
    }
    // Compliance evidence names every finding per control and per evidence
    // row: about half of a large report (32 MB for 100 000 events). The
    // page shows a count per control, so counts go instead of the lists.
    let mut control_findings = BTreeMap::new();
    if let Some(compliance) = report.compliance.as_mut() {
        compliance.evidence_matrix = Vec::new();
        for control in compliance.frameworks.iter_mut().flat_map(|f| f.controls.iter_mut()) {
            control_findings.insert(control.id.clone(), control.evidence_details.finding_ids.len());
            control.evidence_details.finding_ids = Default::default();
        }
    }
    (total, control_findings)
}

/// How far past [`TEXT_LIMIT`] the detectors look, so that a value
/// straddling the cut is found whole.
const SCAN_MARGIN: usize = 200;

/// The values the config's built-in detectors find in the shown part of
/// the listed events' text: every secret of the run's vault, not only the
/// leaked ones. Only the shown part is scanned, so the cost stays bounded
/// by what the page lists.
fn detected_values(events: &[agentrisk::trace::Event], config: &AnalysisConfig) -> Vec<String> {
    // The default config always has runnable detection; a config that does
    // not would have failed the analysis before this point.
    let builtins = detection_settings(config).map(|d| d.builtins).unwrap_or_default();
    let mut values = Vec::new();
    let mut matches = Vec::new();
    for event in events {
        let window = prefix(&event.text, TEXT_LIMIT + SCAN_MARGIN);
        for detector in &builtins {
            detector.scan(window, &mut matches);
        }
        values.extend(matches.drain(..).map(|m| m.value).filter(|v| !v.is_empty()));
    }
    values.sort_unstable();
    values.dedup();
    values
}

/// The first `chars` characters of `text`.
fn prefix(text: &str, chars: usize) -> &str {
    let end = text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i);
    text.get(..end).unwrap_or(text)
}

/// Why a computed report is blocked: its stored score, `has_critical` and
/// policy result under `scoring`'s gate (`fail_below`, `block_on_critical`),
/// in the order the core's gate lists them. (The report stores the decision,
/// not its reasons.)
pub fn block_reasons_from_report(report: &Report, scoring: &ScoringConfig) -> Vec<BlockReason> {
    let mut reasons = Vec::new();
    if report.privacy_policy.as_ref().is_some_and(|p| !p.passed) {
        reasons.push(BlockReason::PolicyFailed);
    }
    if report.privacy_score < scoring.fail_below {
        let privacy_score = u8::try_from(report.privacy_score.clamp(0, 100)).unwrap_or(0);
        reasons.push(BlockReason::ScoreBelowThreshold { privacy_score, fail_below: scoring.fail_below });
    }
    if scoring.block_on_critical && report.summary.has_critical {
        reasons.push(BlockReason::CriticalLeak);
    }
    reasons
}

/// The values to mask in event text.
struct Masks {
    leaked: Finder,
    detected: Finder,
    longest_chars: usize,
}

/// Finds values ignoring ASCII case (a value seen as "Jean" is also masked
/// as "JEAN"), longest first so that a value inside a longer one is covered
/// by the longer one's mask.
struct Finder {
    finder: AhoCorasick,
    /// What replaces each value, by pattern index.
    replacements: Vec<TextPart>,
}

impl Finder {
    /// `None` when the values are too many for the automaton's size limit.
    fn new(values: Vec<(String, TextPart)>) -> Option<Finder> {
        let (values, replacements): (Vec<String>, Vec<TextPart>) = values.into_iter().unzip();
        let finder = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&values)
            .ok()?;
        Some(Finder { finder, replacements })
    }

    /// `text` cut into plain pieces and replaced values; plain pieces go
    /// through `then` for a second finder.
    fn split(&self, text: &str, out: &mut Vec<TextPart>, then: &dyn Fn(&str, &mut Vec<TextPart>)) {
        let mut at = 0;
        for found in self.finder.find_iter(text) {
            then(text.get(at..found.start()).unwrap_or(""), out);
            out.extend(self.replacements.get(found.pattern().as_usize()).cloned());
            at = found.end();
        }
        then(text.get(at..).unwrap_or(""), out);
    }
}

impl Masks {
    /// `leaked`: (raw value, redacted form) of each finding; `detected`:
    /// raw values the detectors found. `None` when they cannot be searched
    /// for, so that no text is shown rather than text with values in clear.
    fn new(leaked: Vec<(String, String)>, detected: Vec<String>) -> Option<Masks> {
        let longest_chars =
            leaked.iter().map(|(v, _)| v).chain(&detected).map(|v| v.chars().count()).max().unwrap_or(0);
        let leaked: BTreeMap<String, TextPart> = leaked.into_iter().map(|(v, r)| (v, TextPart::Leaked(r))).collect();
        let detected = detected
            .into_iter()
            .filter(|v| !leaked.contains_key(v))
            .map(|v| {
                let redacted = redact(&v);
                (v, TextPart::Detected(redacted))
            })
            .collect();
        Some(Masks {
            leaked: Finder::new(leaked.into_iter().collect())?,
            detected: Finder::new(detected)?,
            longest_chars,
        })
    }

    /// The first [`TEXT_LIMIT`] characters of `text`, masked: leaked values
    /// first (so a leak always shows as one, even inside a longer detected
    /// value), then detected values in the text between them. The search
    /// looks a value's length past the cut so that a value straddling it
    /// is masked too.
    fn shown_text(&self, text: &str) -> Vec<TextPart> {
        let window = prefix(text, TEXT_LIMIT + self.longest_chars);
        let mut pieces = Vec::new();
        let plain = |piece: &str, out: &mut Vec<TextPart>| {
            if !piece.is_empty() {
                out.push(TextPart::Plain(piece.to_owned()));
            }
        };
        self.leaked.split(window, &mut pieces, &|gap, out| self.detected.split(gap, out, &plain));

        let mut budget = TEXT_LIMIT;
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            if budget == 0 {
                break;
            }
            let taken: String = piece.as_str().chars().take(budget).collect();
            budget -= taken.chars().count();
            parts.push(match piece {
                TextPart::Plain(_) => TextPart::Plain(taken),
                TextPart::Leaked(_) => TextPart::Leaked(taken),
                TextPart::Detected(_) => TextPart::Detected(taken),
            });
        }
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masks(leaked: &[(&str, &str)], detected: &[&str]) -> Masks {
        Masks::new(
            leaked.iter().map(|(v, r)| (v.to_string(), r.to_string())).collect(),
            detected.iter().map(|v| v.to_string()).collect(),
        )
        .expect("a small automaton builds")
    }

    #[test]
    fn values_are_masked_in_any_ascii_case_longest_first_and_leaks_before_the_rest() {
        let m = masks(
            &[("Jean", "****"), ("diabetes", "di****es")],
            &["Jean Tremblay", "Jean", "123-456-789", "Type 2 diabetes", "Maple Street"],
        );
        assert_eq!(
            m.shown_text("SIN 123-456-789 of JEAN, type 2 diabetes, 12 maple street"),
            vec![
                TextPart::Plain("SIN ".into()),
                TextPart::Detected("12*******89".into()),
                TextPart::Plain(" of ".into()),
                TextPart::Leaked("****".into()),
                TextPart::Plain(", type 2 ".into()),
                TextPart::Leaked("di****es".into()),
                TextPart::Plain(", 12 ".into()),
                TextPart::Detected("Ma********et".into()),
            ]
        );
        // A longer detected value never hides the leaked one inside it either.
        let m = masks(&[("Jean", "****")], &["Jean Tremblay"]);
        assert_eq!(m.shown_text("Jean Tremblay")[0], TextPart::Leaked("****".into()));
    }

    #[test]
    fn text_is_cut_at_the_limit_and_a_value_across_the_cut_stays_masked() {
        let text = format!("{}SECRET-VALUE tail", "é".repeat(TEXT_LIMIT - 3));
        let parts = masks(&[("SECRET-VALUE", "SE********UE")], &[]).shown_text(&text);
        let shown: String = parts.iter().map(TextPart::as_str).collect();
        assert_eq!(shown.chars().count(), TEXT_LIMIT);
        assert!(shown.ends_with("SE*"), "{shown}");
        assert!(!shown.contains("SEC"));
    }

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
