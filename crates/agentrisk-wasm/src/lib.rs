//! The AgentRisk core for JavaScript: the npm package `agentrisk`.
//!
//! A thin adapter over `agentrisk::analyser`: each export turns its
//! JavaScript arguments into an `Analyser` and one call of it, and the
//! core's value into a JavaScript object (through `serde-wasm-bindgen`, not JSON text). It
//! holds no rule of its own. Errors are thrown as `Error` objects with
//! `file`, `where` and `what` fields, the CLI's words.
//!
//! The package's `index.js` (written by `scripts/package.sh`) loads this
//! module and re-exports these functions; `index.d.ts` types them.

use agentrisk::analyser::{
    generated_at_from_unix, group_by_from_name, interval_method, review_from_files, wilson_rate, Analyser, ApiError,
    BatchInput, BatchRuns, CanarySetting, GateOverrides, Named, NamedConfig,
};
use agentrisk::analyze::Canaries;
use agentrisk::compare::history::{history, HistoryInput};
use agentrisk::compare::{diff, FailRule, Side};
use agentrisk::review::{Date, ReviewedReport};
use js_sys::{Array, ArrayBuffer, Reflect, Uint8Array};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[cfg(test)]
mod typescript;

/// The package's version (the crate's, from Cargo).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// The options of `analyzeTrace` and `analyzeTraceJson`.
#[derive(Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
struct AnalyzeOptions {
    /// `agentleak.yaml` text (as `agentrisk run -c`).
    config: Option<String>,
    /// The config's name in errors (default `agentleak.yaml`).
    config_name: Option<String>,
    /// Canary values (as `agentrisk run --canaries`).
    canaries: Option<Canaries>,
    /// Block a run whose privacy score is below N (as `run --fail-under N`).
    fail_under: Option<i64>,
    /// The trace's name in errors (default `trace`).
    name: Option<String>,
    /// `generated_at` (default: now, as Python's `isoformat()` writes it).
    generated_at: Option<String>,
    /// How an OpenTelemetry span export becomes runs (as `--span-mapping`;
    /// default `structural`).
    span_mapping: Option<agentrisk::spans::SpanMapping>,
    /// A review file (as `--review FILE`): its text or bytes, a review
    /// object, or a list of them (combined). The report then has a
    /// `reviewed` object with its reviewed numbers.
    #[cfg_attr(test, ts(type = "ReviewInput", optional))]
    #[allow(dead_code)] // read from the options object (`review_of`)
    review: Option<Ignored>,
    /// The date accepted risks are judged at, `YYYY-MM-DD` (as `--today`;
    /// default: today's date, UTC).
    today: Option<String>,
}

/// An option read from the options object itself (`review_of`), which
/// serde only steps over: a review may be bytes, which serde's data model
/// does not carry into a struct.
#[derive(Default)]
struct Ignored;

impl<'de> Deserialize<'de> for Ignored {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Ignored, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| Ignored)
    }
}

/// The `review` and `today` options: the review (`None` without one) and
/// its date; errors name the option or the review's place.
fn review_of(options: &JsValue, today: Option<&str>) -> Result<Option<(agentrisk::review::Review, Date)>, JsValue> {
    let value = field(options, "review");
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let items: Vec<(String, JsValue)> = match value.dyn_ref::<Array>() {
        Some(list) => list.iter().enumerate().map(|(i, item)| (format!("review[{i}]"), item)).collect(),
        None => vec![("review".to_owned(), value)],
    };
    let mut files = Vec::with_capacity(items.len());
    for (name, item) in items {
        let bytes = if item.is_object() && !item.is_instance_of::<Uint8Array>() && !item.is_instance_of::<ArrayBuffer>()
        {
            let text = js_sys::JSON::stringify(&item)
                .map_err(|_| js_error(&fixed_error(&name, "", "the review object cannot be written as JSON")))?;
            String::from(text).into_bytes()
        } else {
            bytes_of(&item, &name)?
        };
        files.push((name, bytes));
    }
    let named: Vec<Named<'_>> = files.iter().map(|(name, bytes)| Named { name, bytes }).collect();
    let review = review_from_files(&named).map_err(|e| js_error(&e))?;
    let today = match today {
        Some(text) => Date::parse(text).map_err(|problem| js_error(&fixed_error("options", "today", &problem)))?,
        None => today_utc(),
    };
    Ok(Some((review, today)))
}

/// Today's date (UTC) by the JavaScript clock.
fn today_utc() -> Date {
    Date::from_unix_seconds((js_sys::Date::now() / 1000.0).floor() as i64)
}

/// Canary values given as an option, as the set in force (named as the
/// CLI names a `--canaries` file).
fn canary_setting(canaries: Canaries) -> CanarySetting {
    CanarySetting { name: "canaries".to_owned(), canaries }
}

/// The report `agentrisk run -o - -f json` writes for a trace (with a
/// review, as `run --review` writes it: a `reviewed` object added).
#[wasm_bindgen(js_name = analyzeTrace)]
pub fn analyze_trace(input: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (analyser, report) = report_of(&input, options)?;
    let reviewed = reviewed_of(&analyser, &report);
    to_js(&ReviewedReport { report: &report, reviewed: reviewed.as_ref() })
}

/// [`analyze_trace`] as JSON text (the CLI's bytes, unindented), for callers
/// that store or send the report rather than read it.
#[wasm_bindgen(js_name = analyzeTraceJson)]
pub fn analyze_trace_json(input: JsValue, options: JsValue) -> Result<String, JsValue> {
    let (analyser, report) = report_of(&input, options)?;
    let reviewed = reviewed_of(&analyser, &report);
    serde_json::to_string(&ReviewedReport { report: &report, reviewed: reviewed.as_ref() })
        .map_err(|e| js_error(&ApiError::new("result", &e.to_string())))
}

fn report_of(input: &JsValue, options: JsValue) -> Result<(Analyser, agentrisk::model::Report), JsValue> {
    let (analyser, name, bytes) = analysis_of(input, options)?;
    let report = analyser.trace_report(Named { name: &name, bytes: &bytes }).map_err(|e| js_error(&e))?;
    Ok((analyser, report))
}

/// A trace's reviewed numbers under the analyser's review, if any.
fn reviewed_of(analyser: &Analyser, report: &agentrisk::model::Report) -> Option<agentrisk::review::RunReview> {
    analyser.review().and_then(|_| analyser.reviewed(&analyser.trace_secrets(report)))
}

/// Every run of a file, as `agentrisk run` writes them: one report for an
/// AgentLeak trace, one per conversation for an OpenTelemetry span export
/// (each report's `span_source` says how it was made; with a review, each
/// has its `reviewed` object).
#[wasm_bindgen(js_name = analyzeRuns)]
pub fn analyze_runs(input: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let (analyser, name, bytes) = analysis_of(&input, options)?;
    let runs = analyser
        .analyse_runs(&name, bytes.into(), None, agentrisk::analyser::Keep::ReportOnly)
        .map_err(|e| js_error(&e))?;
    let reviewed: Vec<_> = runs.iter().map(|run| reviewed_of(&analyser, &run.report)).collect();
    let reports: Vec<ReviewedReport<'_>> = runs
        .iter()
        .zip(&reviewed)
        .map(|(run, reviewed)| ReviewedReport { report: &run.report, reviewed: reviewed.as_ref() })
        .collect();
    to_js(&reports)
}

/// The analyser, the file's name and its bytes of `analyzeTrace`'s arguments.
fn analysis_of(input: &JsValue, options: JsValue) -> Result<(Analyser, String, Vec<u8>), JsValue> {
    let raw = options.clone();
    let options: AnalyzeOptions = options_of(
        options,
        &["config", "configName", "canaries", "failUnder", "name", "generatedAt", "spanMapping", "review", "today"],
    )?;
    let name = options.name.unwrap_or_else(|| "trace".to_owned());
    let bytes = bytes_of(input, &name)?;
    let mut analyser = Analyser::new()
        .with_config(config_of(options.config.as_deref(), options.config_name.as_deref())?)
        .with_canaries(options.canaries.map(canary_setting))
        .with_gate(GateOverrides { fail_below: options.fail_under, block_on_critical: None })
        .with_span_mapping(options.span_mapping.unwrap_or_default())
        .with_generated_at(options.generated_at.unwrap_or_else(now_isoformat));
    if let Some((review, today)) = review_of(&raw, options.today.as_deref())? {
        analyser = analyser.with_review(Some(review), today);
    }
    Ok((analyser, name, bytes))
}

/// The options of `rescoreReport`.
#[derive(Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
struct RescoreOptions {
    /// What if: an `agentleak.yaml` whose weights, vault and gate apply (as `score -c`).
    config: Option<String>,
    /// The config's name in errors (default `agentleak.yaml`).
    config_name: Option<String>,
    /// `score --fail-below N`: pins the runs' gate.
    fail_below: Option<i64>,
    /// `false` is `score --no-block-on-critical`: pins the runs' gate.
    block_on_critical: Option<bool>,
    /// The report's name in errors and in the record (default `report`).
    name: Option<String>,
    /// A review file (as `score --review FILE`): its text or bytes, a
    /// review object, or a list of them. The record then has `reviewed`.
    #[cfg_attr(test, ts(type = "ReviewInput", optional))]
    #[allow(dead_code)] // read from the options object (`review_of`)
    review: Option<Ignored>,
    /// The date accepted risks are judged at, `YYYY-MM-DD` (default: today, UTC).
    today: Option<String>,
}

/// What `rescoreReport` returns: `agentrisk score --json`'s record, with
/// the stored values the recomputation does not reproduce and the what-if
/// notes.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
struct RescoreResult<'a> {
    #[serde(flatten)]
    record: &'a agentrisk::ScoreRecord,
    /// The stored values the recomputation does not reproduce.
    mismatches: &'a [agentrisk::report::Mismatch],
    /// What the what-if config asks for that a report cannot show, in plain words.
    notes: &'a [String],
}

/// A stored report re-scored, as `agentrisk score --json` prints it.
#[wasm_bindgen(js_name = rescoreReport)]
pub fn rescore_report(report: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let scored = scored_of(&report, options)?;
    to_js(&RescoreResult { record: &scored.record, mismatches: &scored.rescore.mismatches, notes: &scored.notes })
}

/// A stored report's reviewed numbers, as `agentrisk score --review` gives
/// them (its `reviewed`): `review` is the review file (text, bytes, an
/// object or a list), `options` the gate (`failBelow`, `blockOnCritical`),
/// a what-if `config`, `today` and the report's `name`.
#[wasm_bindgen(js_name = applyReview)]
pub fn apply_review(report: JsValue, review: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let with_review = js_sys::Object::new();
    if let Some(object) = options.dyn_ref::<js_sys::Object>() {
        js_sys::Object::assign(&with_review, object);
    }
    if !field(&with_review, "review").is_undefined() {
        return Err(js_error(&fixed_error("options", "review", "give the review as applyReview's second argument")));
    }
    if review.is_undefined() || review.is_null() {
        return Err(js_error(&fixed_error(
            "review",
            "",
            "expected a review file's text or bytes, a review object or a list of them",
        )));
    }
    set(&with_review, "review", review);
    let scored = scored_of(&report, with_review.into())?;
    to_js(&scored.record.reviewed)
}

/// `rescoreReport`'s scoring of `report` under `options`.
fn scored_of(report: &JsValue, options: JsValue) -> Result<agentrisk::analyser::Scored, JsValue> {
    let raw = options.clone();
    let options: RescoreOptions =
        options_of(options, &["config", "configName", "failBelow", "blockOnCritical", "name", "review", "today"])?;
    let name = options.name.as_deref().unwrap_or("report");
    let bytes =
        if report.is_object() && !report.is_instance_of::<Uint8Array>() && !report.is_instance_of::<ArrayBuffer>() {
            let text = js_sys::JSON::stringify(report)
                .map_err(|_| js_error(&fixed_error(name, "", "the report object cannot be written as JSON")))?;
            String::from(text).into_bytes()
        } else {
            bytes_of(report, name)?
        };
    let mut analyser = Analyser::new()
        .with_what_if(config_of(options.config.as_deref(), options.config_name.as_deref())?)
        .with_gate(GateOverrides { fail_below: options.fail_below, block_on_critical: options.block_on_critical });
    if let Some((review, today)) = review_of(&raw, options.today.as_deref())? {
        analyser = analyser.with_review(Some(review), today);
    }
    analyser.score_report(Named { name, bytes: &bytes }).map_err(|e| js_error(&e))
}

/// The options of `summarizeBatch`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "BatchOptions", optional_fields))]
#[serde(rename_all = "camelCase", default)]
struct BatchOptionsIn {
    /// Interval confidence level, 0 < C < 1 (default 0.95).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    confidence: f64,
    /// Wilson intervals with continuity correction (default false).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    continuity_correction: bool,
    /// How runs are grouped.
    // The names `group_by_from_name` takes, which no Rust type lists.
    #[cfg_attr(test, ts(type = r#""agent" | "scenario" | "scenario_family" | "folder""#, optional))]
    group_by: Option<String>,
    /// `agentleak.yaml` text for analysing traces.
    config: Option<String>,
    /// The config's name in errors (default `agentleak.yaml`).
    config_name: Option<String>,
    /// Canary values for every trace (as `agentrisk batch --canaries`).
    canaries: Option<Canaries>,
    /// Leave unreadable files out (as the CLI does) instead of throwing.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    skip_unreadable: bool,
    /// How OpenTelemetry span exports become runs (default `structural`).
    span_mapping: Option<agentrisk::spans::SpanMapping>,
    /// A review file (as `batch --review FILE`): its text or bytes, a review
    /// object, or a list of them. The summary then has `reviewed` (the rates
    /// as reviewed).
    #[cfg_attr(test, ts(type = "ReviewInput", optional))]
    review: Option<Ignored>,
    /// The date accepted risks are judged at, `YYYY-MM-DD` (default: today, UTC).
    today: Option<String>,
}

impl Default for BatchOptionsIn {
    fn default() -> BatchOptionsIn {
        BatchOptionsIn {
            confidence: 0.95,
            continuity_correction: false,
            group_by: None,
            config: None,
            config_name: None,
            canaries: None,
            skip_unreadable: false,
            span_mapping: None,
            review: None,
            today: None,
        }
    }
}

/// The batch summary of files, as `agentrisk batch --json` prints it. A
/// file's `folder` defaults to its `name` up to the last `/` (the CLI's
/// rule, `agentrisk::batch::folder_of`). An unreadable file throws (its error also lists every other unreadable
/// file in `errors`) unless `skipUnreadable` is set.
#[wasm_bindgen(js_name = summarizeBatch)]
pub fn summarize_batch(files: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let raw = options.clone();
    let options: BatchOptionsIn = options_of(
        options,
        &[
            "confidence",
            "continuityCorrection",
            "groupBy",
            "config",
            "configName",
            "canaries",
            "skipUnreadable",
            "spanMapping",
            "review",
            "today",
        ],
    )?;
    let method = interval_method(options.confidence, options.continuity_correction).map_err(|e| js_error(&e))?;
    let group_by = options.group_by.as_deref().map(group_by_from_name).transpose().map_err(|e| js_error(&e))?;
    let mut analyser = Analyser::new()
        .with_config(config_of(options.config.as_deref(), options.config_name.as_deref())?)
        .with_canaries(options.canaries.map(canary_setting))
        .with_span_mapping(options.span_mapping.unwrap_or_default());
    if let Some((review, today)) = review_of(&raw, options.today.as_deref())? {
        analyser = analyser.with_review(Some(review), today);
    }
    let owned = files_of(files, "files")?;
    let inputs: Vec<BatchInput<'_>> =
        owned.iter().map(|(name, folder, bytes)| BatchInput { name, folder, bytes }).collect();
    let outcome = analyser.summarise(&inputs, method, group_by);
    if let (Some(first), false) = (outcome.errors.first(), options.skip_unreadable) {
        let error = js_error(first);
        set(&error, "errors", to_js(&outcome.errors)?);
        return Err(error);
    }
    to_js(&outcome.summary)
}

/// Files given as `[{ name, data, folder? }]`: each one's name, folder
/// (default: its name up to the last `/`, the CLI's rule
/// `agentrisk::batch::folder_of`) and bytes. `what` names the list in errors.
fn files_of(files: JsValue, what: &str) -> Result<Vec<(String, String, Vec<u8>)>, JsValue> {
    let list = files
        .dyn_into::<Array>()
        .map_err(|_| js_error(&fixed_error(what, "", "expected an array of { name, data, folder? }")))?;
    let mut owned: Vec<(String, String, Vec<u8>)> = Vec::with_capacity(list.length() as usize);
    for (i, item) in list.iter().enumerate() {
        let place = format!("{what}[{i}]");
        let name = field(&item, "name")
            .as_string()
            .ok_or_else(|| js_error(&fixed_error(what, &format!("{place}.name"), "expected a string")))?;
        let folder =
            field(&item, "folder").as_string().unwrap_or_else(|| agentrisk::batch::folder_of(&name).to_owned());
        let bytes = bytes_of(&field(&item, "data"), &name)?;
        owned.push((name, folder, bytes));
    }
    Ok(owned)
}

/// One batch's runs, read as `agentrisk diff` and `history` read an input:
/// every file must be readable and the batch must hold a run.
fn batch_runs(analyser: &Analyser, files: JsValue, name: &str) -> Result<BatchRuns, JsValue> {
    let owned = files_of(files, name)?;
    let mut batch = BatchRuns::default();
    for (file, folder, bytes) in &owned {
        batch.read(analyser, BatchInput { name: file, folder, bytes });
    }
    if let Some(first) = batch.errors.first() {
        let error = js_error(first);
        set(&error, "errors", to_js(&batch.errors)?);
        return Err(error);
    }
    if batch.runs.is_empty() {
        return Err(js_error(&fixed_error(name, "", "no runs found (traces, reports or scorecards)")));
    }
    Ok(batch)
}

/// The options of `diffBatches`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "DiffOptions", optional_fields))]
#[serde(rename_all = "camelCase", default)]
struct DiffOptionsIn {
    /// Interval confidence level, 0 < C < 1 (default 0.95).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    confidence: f64,
    /// Wilson intervals with continuity correction, and Newcombe's method 11 (default false).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    continuity_correction: bool,
    /// Rules to check, as `agentrisk diff --fail-on` takes them: `new-leak[:L1..L4]`, `verdict`, `score-drop:N`, `leak-rate`.
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    fail_on: Vec<String>,
    /// BASE's name in the result (default `base`).
    base_name: Option<String>,
    /// NEW's name in the result (default `new`).
    new_name: Option<String>,
    /// `agentleak.yaml` text for analysing traces.
    config: Option<String>,
    /// The config's name in errors (default `agentleak.yaml`).
    config_name: Option<String>,
    /// Canary values for every trace (as `agentrisk diff --canaries`).
    canaries: Option<Canaries>,
}

impl Default for DiffOptionsIn {
    fn default() -> DiffOptionsIn {
        DiffOptionsIn {
            confidence: 0.95,
            continuity_correction: false,
            fail_on: Vec::new(),
            base_name: None,
            new_name: None,
            config: None,
            config_name: None,
            canaries: None,
        }
    }
}

/// What changed from `base` to `new` (each a list of files), as `agentrisk
/// diff --format json` prints it: `fail_on` holds the rules checked. A
/// file that cannot be read, or a side without runs, throws.
#[wasm_bindgen(js_name = diffBatches)]
pub fn diff_batches(base_files: JsValue, new_files: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let options: DiffOptionsIn = options_of(
        options,
        &["confidence", "continuityCorrection", "failOn", "baseName", "newName", "config", "configName", "canaries"],
    )?;
    let method = interval_method(options.confidence, options.continuity_correction).map_err(|e| js_error(&e))?;
    let rules = options
        .fail_on
        .iter()
        .enumerate()
        .map(|(i, text)| {
            FailRule::from_text(text)
                .map_err(|e| js_error(&fixed_error("options", &format!("failOn[{i}]"), &e.to_string())))
        })
        .collect::<Result<Vec<FailRule>, JsValue>>()?;
    let analyser = Analyser::new()
        .with_config(config_of(options.config.as_deref(), options.config_name.as_deref())?)
        .with_canaries(options.canaries.map(canary_setting));
    let (base_name, new_name) =
        (options.base_name.as_deref().unwrap_or("base"), options.new_name.as_deref().unwrap_or("new"));
    let base = batch_runs(&analyser, base_files, base_name)?;
    let new = batch_runs(&analyser, new_files, new_name)?;
    let d = diff(Side { name: base_name, runs: &base.runs }, Side { name: new_name, runs: &new.runs }, method, &rules);
    to_js(&d)
}

/// The options of `batchHistory`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "HistoryOptions", optional_fields))]
#[serde(rename_all = "camelCase", default)]
struct HistoryOptionsIn {
    /// Interval confidence level, 0 < C < 1 (default 0.95).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    confidence: f64,
    /// Wilson intervals with continuity correction (default false).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    continuity_correction: bool,
    /// `agentleak.yaml` text for analysing traces.
    config: Option<String>,
    /// The config's name in errors (default `agentleak.yaml`).
    config_name: Option<String>,
    /// Canary values for every trace.
    canaries: Option<Canaries>,
}

impl Default for HistoryOptionsIn {
    fn default() -> HistoryOptionsIn {
        HistoryOptionsIn {
            confidence: 0.95,
            continuity_correction: false,
            config: None,
            config_name: None,
            canaries: None,
        }
    }
}

/// Batches over time, as `agentrisk history --json` prints it: each batch
/// `{ name, files }` (a batch that is one scorecard file goes by its
/// `generated_at`, any other by its name). A file that cannot be read, or
/// a batch without runs, throws.
#[wasm_bindgen(js_name = batchHistory)]
pub fn batch_history(batches: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let options: HistoryOptionsIn =
        options_of(options, &["confidence", "continuityCorrection", "config", "configName", "canaries"])?;
    let method = interval_method(options.confidence, options.continuity_correction).map_err(|e| js_error(&e))?;
    let analyser = Analyser::new()
        .with_config(config_of(options.config.as_deref(), options.config_name.as_deref())?)
        .with_canaries(options.canaries.map(canary_setting));
    let list = batches
        .dyn_into::<Array>()
        .map_err(|_| js_error(&fixed_error("batches", "", "expected an array of { name, files }")))?;
    let mut read = Vec::with_capacity(list.length() as usize);
    for (i, item) in list.iter().enumerate() {
        let name = field(&item, "name")
            .as_string()
            .ok_or_else(|| js_error(&fixed_error("batches", &format!("batches[{i}].name"), "expected a string")))?;
        let runs = batch_runs(&analyser, field(&item, "files"), &name)?;
        read.push((name, runs));
    }
    let inputs: Vec<HistoryInput<'_>> = read
        .iter()
        .map(|(name, batch)| HistoryInput { name, generated_at: batch.generated_at(), runs: &batch.runs })
        .collect();
    to_js(&history(&inputs, method))
}

/// The options of `wilson`.
#[derive(Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
struct WilsonOptions {
    /// Interval confidence level, 0 < C < 1 (default 0.95).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    confidence: f64,
    /// Wilson intervals with continuity correction (default false).
    #[cfg_attr(test, ts(as = "Option<_>", optional))]
    continuity_correction: bool,
}

impl Default for WilsonOptions {
    fn default() -> WilsonOptions {
        WilsonOptions { confidence: 0.95, continuity_correction: false }
    }
}

/// `k` of `n` with its Wilson score interval: `{ k, n, rate, lower, upper }`.
#[wasm_bindgen]
pub fn wilson(k: f64, n: f64, options: JsValue) -> Result<JsValue, JsValue> {
    let options: WilsonOptions = options_of(options, &["confidence", "continuityCorrection"])?;
    let count = |value: f64, place: &str| {
        // Whole numbers JavaScript holds exactly.
        if value >= 0.0 && value.fract() == 0.0 && value <= 9_007_199_254_740_991.0 {
            Ok(value as u64)
        } else {
            Err(js_error(&fixed_error("arguments", place, &format!("expected a whole number 0 or more, got {value}"))))
        }
    };
    let method = interval_method(options.confidence, options.continuity_correction).map_err(|e| js_error(&e))?;
    let rate = wilson_rate(count(k, "k")?, count(n, "n")?, &method).map_err(|e| js_error(&e))?;
    to_js(&rate)
}

/// The config from its text, loaded and checked, under its name.
fn config_of(text: Option<&str>, name: Option<&str>) -> Result<Option<NamedConfig>, JsValue> {
    let Some(text) = text else { return Ok(None) };
    let name = name.unwrap_or("agentleak.yaml");
    NamedConfig::load(Named { name, bytes: text.as_bytes() }).map(Some).map_err(|e| js_error(&e))
}

/// Options from a JavaScript object; `undefined` and `null` are the
/// defaults. A key not in `known` is refused, so that a misspelt option
/// is not silently ignored (serde-wasm-bindgen reads only the keys a
/// struct names).
fn options_of<T: Default + for<'de> Deserialize<'de>>(options: JsValue, known: &[&str]) -> Result<T, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(T::default());
    }
    if let Some(object) = options.dyn_ref::<js_sys::Object>() {
        for key in js_sys::Object::keys(object).iter().filter_map(|k| k.as_string()) {
            if !known.contains(&key.as_str()) {
                let problem = format!("unknown option {key:?}; the options are {}", known.join(", "));
                return Err(js_error(&fixed_error("options", &key, &problem)));
            }
        }
    }
    serde_wasm_bindgen::from_value(options).map_err(|e| js_error(&fixed_error("options", "", &e.to_string())))
}

/// A file's bytes from a string (as UTF-8), a `Uint8Array` or an `ArrayBuffer`.
fn bytes_of(value: &JsValue, file: &str) -> Result<Vec<u8>, JsValue> {
    if let Some(text) = value.as_string() {
        Ok(text.into_bytes())
    } else if let Some(array) = value.dyn_ref::<Uint8Array>() {
        Ok(array.to_vec())
    } else if let Some(buffer) = value.dyn_ref::<ArrayBuffer>() {
        Ok(Uint8Array::new(buffer).to_vec())
    } else {
        Err(js_error(&fixed_error(file, "", "expected the file as a string, a Uint8Array or an ArrayBuffer")))
    }
}

fn field(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn set(object: &JsValue, key: &str, value: JsValue) {
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(object, &JsValue::from_str(key), &value);
}

fn fixed_error(file: &str, place: &str, problem: &str) -> ApiError {
    ApiError { file: file.to_owned(), place: place.to_owned(), problem: problem.to_owned() }
}

/// An `Error` whose message is the CLI's words, with `file`, `where` and `what`.
fn js_error(error: &ApiError) -> JsValue {
    let js: JsValue = js_sys::Error::new(&error.to_string()).into();
    set(&js, "file", JsValue::from_str(&error.file));
    set(&js, "where", JsValue::from_str(&error.place));
    set(&js, "what", JsValue::from_str(&error.problem));
    js
}

/// A value as plain JavaScript objects and numbers (maps as objects), as
/// `JSON.parse` of the CLI's output would give.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| js_error(&fixed_error("result", "", &e.to_string())))
}

/// Now, as Python's `datetime.isoformat()` writes a UTC time (millisecond
/// clock, so the microseconds end in 000).
fn now_isoformat() -> String {
    let millis = js_sys::Date::now();
    let secs = (millis / 1000.0).floor();
    let micros = ((millis - secs * 1000.0) * 1000.0).round() as u32;
    generated_at_from_unix(secs as i64, micros.min(999_999))
}
