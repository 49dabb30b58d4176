//! Messages between the page and the analysis worker.
//!
//! Page → worker: a [`ToWorker`] as a plain JS object, through
//! serde-wasm-bindgen (a file travels as its `Blob`, which JSON cannot
//! carry, and bytes as a `Uint8Array`); both sides convert only through
//! [`ToWorker::to_js`] and [`ToWorker::from_js`].
//! Worker → page: the UTF-8 bytes of [`FromWorker`]'s JSON, their buffer
//! transferred. JSON crosses the boundary faster than structured clones of
//! nested objects, bytes faster than a string (no decoding and encoding
//! again on either side), and only finished summaries ever reach the page:
//! for a trace, its computed report and a bounded list of its events
//! ([`EventRow`]), never the trace itself.
//! A result's long lists come first, in parts of about [`PART_BYTES`]
//! ([`split_result`]), so that the page reads them in short tasks.

use agentrisk::config::WhatIf;
use agentrisk::model::{Finding, LeakPath, Report, SpanMapping};
use agentrisk::publish::FileCheck;
use agentrisk::review::{ChannelScope, Date, Decision, Review, SecretGroup, SignOff};
use agentrisk::util::json_len;
use agentrisk::workspace::{AnalyzedTrace, CanariesUsed, EventRow, FileResult, ReviewedFile, Stage};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

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
    /// A piece of file `id`'s result, posted before its `Done`: a list of
    /// its run `run` (a span export's runs count from 0; other results have
    /// only run 0, left out of the message). The bridge puts the pieces back
    /// ([`join_result`]); the views never see one.
    Part {
        id: u32,
        #[serde(default, skip_serializing_if = "is_zero")]
        run: u32,
        part: ResultPart,
    },
    /// One file is done (its long lists in the `Part`s before this).
    Done { id: u32, result: FileResult },
    /// New what-if settings were taken; every file is being analysed again.
    SettingsApplied,
    /// What-if settings the core refused, and why (naming the key).
    SettingsRejected { message: String },
    /// An imported `agentleak.yaml`, read and checked: the form's values,
    /// which the worker applies next (answered by `SettingsApplied`).
    SettingsRead { what_if: WhatIf },
    /// An imported `agentleak.yaml` that cannot be used (naming the file,
    /// the key and the problem).
    SettingsUnreadable { message: String },
    /// The canary set in force changed (a dropped or picked canary-set file,
    /// or cleared: `None`); every trace is being analysed again.
    Canaries { in_force: Option<CanariesUsed> },
    /// A picked canary-set file that cannot be used (naming the file and
    /// the place); the set in force stays.
    CanariesUnreadable { message: String },
    /// A published file, analysed for the first time, checked against its
    /// manifest entry.
    Checked { name: String, folder: String, check: FileCheck },
    /// The span mapping now in force; every span export is being analysed
    /// again with it.
    SpanMapping { mapping: SpanMapping },
    /// A span run converted to an AgentLeak trace: a file name and the
    /// trace's JSON, for the page to save.
    Exported { name: String, json: String },
    /// Why a span run could not be converted (naming the file).
    ExportFailed { message: String },
    /// A review pack's HTML, written from what the worker holds.
    Packed { html: String },
    /// Why no review pack could be written.
    PackFailed { message: String },
    /// The review in force changed, or what it matches: the review itself
    /// (`None`: unchanged), the date its acceptances are judged at (`None`:
    /// unchanged), the reviewed numbers of the held runs it changed (each
    /// file's list empty without a review), and the decisions that match no
    /// held run, each in words (`UnmatchedDecision::describe`).
    Reviewed { review: Option<Review>, today: Option<Date>, files: Vec<ReviewedFile>, unmatched: Vec<String> },
    /// A review edit the core refused (naming the field and the problem);
    /// the review in force stays.
    ReviewRefused { message: String },
    /// The worker panicked, while working on file `id` if it knows; it
    /// cannot be trusted after that and is replaced.
    Crashed { id: Option<u32>, message: String },
}

/// A piece of one of a result's long lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResultPart {
    Findings(Vec<Finding>),
    LeakPaths(Vec<LeakPath>),
    Events(Vec<EventRow>),
    /// (finding id, matched value) pairs of [`AnalyzedTrace::values`].
    Values(Vec<(String, String)>),
    /// The run's leaked secrets as a review names them (a run with
    /// thousands of distinct values has as many).
    SecretGroups(Vec<SecretGroup>),
}

/// About how many bytes of JSON one [`ResultPart`] holds (one long item
/// may make a part longer). The page reads JSON at some 40 MB/s, so a part
/// takes it about 10 ms: a 21 MB trace's 4 MB result is read in short tasks
/// rather than one that holds up the page for 150 ms.
pub const PART_BYTES: usize = 256 * 1024;

/// Takes the long lists (findings, leak paths, events, values, secret groups) out of
/// `result` and returns them in parts of about [`PART_BYTES`], in list
/// order, each with the run it belongs to (a span export's runs are
/// numbered from 0; any other result is run 0); [`join_result`] puts them back.
pub fn split_result(result: &mut FileResult) -> Vec<(u32, ResultPart)> {
    let mut parts = Vec::new();
    match result {
        FileResult::Trace(trace) => split_trace(trace, 0, &mut parts),
        FileResult::Spans(spans) => {
            for (run, trace) in (0u32..).zip(spans.runs.iter_mut()) {
                split_trace(trace, run, &mut parts);
            }
        }
        FileResult::Report(loaded) => {
            cut(std::mem::take(&mut loaded.secrets.groups), 0, ResultPart::SecretGroups, &mut parts);
            split_report(&mut loaded.report, 0, &mut parts);
        }
        FileResult::Batch(_) | FileResult::CanarySet(_) | FileResult::Review(_) | FileResult::Error { .. } => {}
    }
    parts
}

fn split_trace(trace: &mut AnalyzedTrace, run: u32, parts: &mut Vec<(u32, ResultPart)>) {
    // Not sent when the page can compute it again, when the run is opened
    // (`agentrisk::workspace::listed_compliance`): most of a small trace's
    // result (22 of 31 kB for the healthcare sample), and decoding it was a
    // tenth of the page's time on a drop of a thousand traces.
    if trace.lists_every_finding() {
        trace.report.compliance = None;
    }
    cut(std::mem::take(&mut trace.events), run, ResultPart::Events, parts);
    cut(std::mem::take(&mut trace.values).into_iter().collect(), run, ResultPart::Values, parts);
    cut(std::mem::take(&mut trace.secrets.groups), run, ResultPart::SecretGroups, parts);
    split_report(&mut trace.report, run, parts);
}

fn split_report(report: &mut Report, run: u32, parts: &mut Vec<(u32, ResultPart)>) {
    cut(std::mem::take(&mut report.findings), run, ResultPart::Findings, parts);
    if let Some(paths) = report.leak_paths.as_mut() {
        cut(std::mem::take(paths), run, ResultPart::LeakPaths, parts);
    }
}

/// Appends `parts` (from [`split_result`], in order) to `result`'s lists.
pub fn join_result(result: &mut FileResult, parts: Vec<(u32, ResultPart)>) {
    for (run, part) in parts {
        let trace = match &mut *result {
            FileResult::Trace(trace) if run == 0 => Some(&mut **trace),
            FileResult::Spans(spans) => spans.runs.get_mut(run as usize),
            _ => None,
        };
        let (lists, report, groups) = match trace {
            Some(trace) => (Some((&mut trace.events, &mut trace.values)), &mut trace.report, &mut trace.secrets.groups),
            None => match &mut *result {
                FileResult::Report(loaded) if run == 0 => (None, &mut loaded.report, &mut loaded.secrets.groups),
                // Parts for a run the result does not have: none are sent.
                _ => continue,
            },
        };
        match (part, lists) {
            (ResultPart::Events(events), Some((listed, _))) => listed.extend(events),
            (ResultPart::Values(values), Some((_, listed))) => listed.extend(values),
            (ResultPart::Findings(findings), _) => report.findings.extend(findings),
            (ResultPart::LeakPaths(paths), _) => report.leak_paths.get_or_insert_with(Vec::new).extend(paths),
            (ResultPart::SecretGroups(listed), _) => groups.extend(listed),
            // Parts of a trace's lists for a report: none are sent.
            (ResultPart::Events(_) | ResultPart::Values(_), None) => {}
        }
    }
}

/// `items` cut into pieces of about [`PART_BYTES`] of JSON, each made a part of run `run` by `part`.
fn cut<T: Serialize>(items: Vec<T>, run: u32, part: fn(Vec<T>) -> ResultPart, parts: &mut Vec<(u32, ResultPart)>) {
    let mut piece = Vec::new();
    let mut bytes = 0;
    for item in items {
        let len = json_len(&item);
        if !piece.is_empty() && bytes + len > PART_BYTES {
            parts.push((run, part(std::mem::take(&mut piece))));
            bytes = 0;
        }
        bytes += len;
        piece.push(item);
    }
    if !piece.is_empty() {
        parts.push((run, part(piece)));
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

/// What the page can send for reading: a file's blob, or a same-origin URL
/// (a bundled sample or a `#src=` link) the worker fetches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Kept a JS value: `postMessage` hands the worker the same file,
    /// never a copy of its bytes (only serde-wasm-bindgen can carry it).
    Blob(#[serde(with = "serde_wasm_bindgen::preserve")] web_sys::Blob),
    Url(String),
}

/// A message from the page to the worker. Externally tagged
/// (`{"open": {...}}`, `"clear_canaries"`), like [`FromWorker`]: an
/// internally tagged enum is read through serde's buffer, which would lose
/// the blob.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToWorker {
    /// Read, analyse and keep file `id`; `folder` is where it was picked
    /// from (empty when not known).
    Open { id: u32, name: String, folder: String, source: Source },
    /// New what-if settings as `agentleak.yaml` text (`""`: the reference's defaults).
    Settings { yaml: String },
    /// Read an imported `agentleak.yaml` file into the form's values.
    /// (Bytes cross as a `Uint8Array`, not an array of numbers.)
    ReadSettings {
        name: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// Drop file `id`.
    Forget { id: u32 },
    /// Read a picked canary-set file and analyse every trace with it.
    ReadCanaries {
        name: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// Drop the canary set: each trace's own `metadata.canaries` applies.
    ClearCanaries,
    /// How span exports become runs; every span export is analysed again.
    SpanMapping { mapping: SpanMapping },
    /// Convert run `run_id` of span export `id` to an AgentLeak trace with
    /// the mapping in force (answered by `Exported` or `ExportFailed`).
    ExportTrace { id: u32, run_id: String },
    /// The files that come next are a publication's: check each one, when
    /// first analysed, against this manifest (its JSON text).
    Publication { manifest: String },
    /// Change the review in force: a [`ReviewEdit`] as JSON text. The
    /// worker reads it with the same JSON code that reads its answers, so
    /// the review types need no second decoder (for JS objects) in the wasm.
    Review { edit: String },
    /// Write what is loaded as a single-file review pack.
    SavePack {
        request: PackRequest,
        #[serde(with = "serde_bytes")]
        wasm: Vec<u8>,
    },
}

/// A change of the review in force, applied by the worker with the core's
/// rules (`Review::set_decision`, `clear_decision`, `add_sign_off`) and
/// answered with [`FromWorker::Reviewed`] or [`FromWorker::ReviewRefused`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewEdit {
    /// Sets a decision (replacing the one for the same secret and channel).
    Decide(Decision),
    /// Removes the decision for a secret of a run on `channel`.
    Clear { run_id: String, data_type: String, value: String, channel: ChannelScope },
    /// Adds a sign-off entry: the run's status from now on.
    SignOff(SignOff),
    /// The date acceptances are judged at (the page's "today").
    Today(Date),
    /// The whole review and its date, for a worker that replaces a crashed one.
    Restore { review: Review, today: Date },
}

impl ReviewEdit {
    /// The message that sends it.
    pub fn to_message(&self) -> ToWorker {
        // Plain data (strings, dates, enums) always serialises.
        ToWorker::Review { edit: serde_json::to_string(self).unwrap_or_default() }
    }
}

/// What a review pack is made of, besides the files the worker holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackRequest {
    pub title: String,
    pub include_traces: bool,
    /// The scoring settings to record: a name and `agentleak.yaml` text.
    pub settings: Option<(String, String)>,
    /// The viewer's stylesheet and wasm-bindgen glue.
    pub css: String,
    pub glue: String,
    /// The icon as SVG text, or already a `data:` URL (from a pack).
    pub favicon: String,
    /// The wasm as a pack already carries it (`SavePack::wasm` then empty).
    pub wasm_deflated: Option<(usize, String)>,
}

impl ToWorker {
    /// The message as a JS object for `postMessage`.
    pub fn to_js(&self) -> JsValue {
        // Cannot fail: a message's numbers are `u32`s and wasm32 `usize`s,
        // all safe JavaScript integers, and its blob passes as it is. Were
        // it to fail, the worker gets the reason in place of the message
        // and reports it as unreadable, rather than nothing being sent.
        serde_wasm_bindgen::to_value(self).unwrap_or_else(|e| JsValue::from_str(&format!("unsendable message: {e}")))
    }

    /// The message a JS object holds, or what is wrong with it.
    pub fn from_js(message: &JsValue) -> Result<ToWorker, String> {
        serde_wasm_bindgen::from_value(message.clone()).map_err(|e| format!("unreadable message: {e}"))
    }
}
