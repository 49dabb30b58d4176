//! Publishing runs for readers: a report site (a folder any static server
//! can host) or a review pack (one HTML file that opens from disk), both
//! described by a [`Manifest`] that lets the viewer show whether what it
//! displays is what was published.
//!
//! Flow: source files → [`publish`] (each analysed as the viewer would,
//! its data file chosen, its numbers recorded) → [`Publication`] → written
//! out by [`site_files`] or [`pack_html`]. On opening, the viewer analyses
//! each data file again and [`check_file`] compares it with its entry.
//!
//! By default a trace is published as its report (redacted values only);
//! the raw trace, which holds the very secrets being audited, goes out only
//! when the publisher asks for it ([`PublishOptions::include_traces`]).
//!
//! "Verified" means the files and numbers agree with the manifest: it
//! shows accidental or naive edits. It is not a signature: whoever can
//! edit the files can also write a new manifest.

mod encode;
mod pack;

pub use encode::{base64, base85_decode, base85_encode, deflate, sha256, sha256_hex};
pub use pack::{pack_html, site_files, ViewerAssets, DIST_MARKER, PACK_BOOT_MARKER};

use crate::analyser::{Analyser, Keep, NamedConfig};
use crate::batch::{detect_kind, facts_of_trace, FileKind, RunFacts, RunResult};
use crate::model::SpanMapping;
use crate::review::{Date, Review, ReviewedNumbers};
use crate::workspace::{settings_from_yaml, what_if_analyser, FileResult};
use serde::{Deserialize, Serialize};

/// The manifest's format name.
pub const FORMAT: &str = "agentrisk-publication";
/// The manifest format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// What a site or pack holds, and the numbers computed when it was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub format_version: u32,
    pub title: String,
    /// When it was published (UTC, ISO 8601).
    pub generated_at: String,
    /// The version of the `agentrisk` that published it.
    pub tool_version: String,
    pub config: ConfigUsed,
    /// True when the raw traces are published (their secrets included).
    pub include_traces: bool,
    /// How span exports became runs, when any source is one (the viewer
    /// opens the publication with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_mapping: Option<SpanMapping>,
    /// When review files are published (each a file of kind `review`, its
    /// data the file itself): the review the runs' `reviewed` numbers were
    /// computed with. A viewer opening the publication applies the review
    /// files before the runs and judges acceptances at `date` (not its own
    /// today), so that the reviewed numbers it checks are the manifest's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewUsed>,
    pub files: Vec<PublishedFile>,
}

/// The review a publication's reviewed numbers were computed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewUsed {
    /// The date acceptances were judged at: the day it was published (UTC).
    pub date: Date,
    /// The review files, by name, in the order applied.
    pub files: Vec<String>,
    /// Decisions and sign-offs in all of them.
    pub decisions: usize,
    pub sign_offs: usize,
}

/// The scoring settings the numbers were computed with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfigUsed {
    /// The config file's name; `None` for the reference's defaults.
    pub name: Option<String>,
    /// In a few words: "reference defaults", or what differs from them.
    pub summary: String,
    /// The config's text, which the viewer applies before analysing.
    pub yaml: Option<String>,
    /// The config as the viewer's What-if tab shows it.
    #[serde(default)]
    pub what_if: Option<crate::config::WhatIf>,
}

/// One source file as published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PublishedFile {
    pub name: String,
    pub folder: String,
    /// `trace`, `report`, `scorecard`, `red-team results`, `span export`,
    /// `canary set` or `review`.
    pub kind: String,
    /// The source file's size in bytes.
    pub size: u64,
    /// SHA-256 of the source file (hex).
    pub sha256: String,
    /// The file the reader gets; `None` when the source could not be published.
    pub data: Option<DataFile>,
    /// The numbers the source gave when published.
    pub numbers: Numbers,
    /// Why the source could not be published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The published file of a source: its report, or the source itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataFile {
    /// Relative to the manifest: `data/<name>`.
    pub path: String,
    /// `report` (a trace published as its report) or the source's kind.
    pub kind: String,
    pub size: u64,
    /// SHA-256 of the data file (hex).
    pub sha256: String,
}

/// A file's numbers: every run it holds, and its red-team records.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Numbers {
    pub runs: Vec<RunNumbers>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redteam: Vec<RunResult>,
}

/// A run's headline numbers: the same whether read from its trace or from
/// its report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunNumbers {
    pub run_id: String,
    pub privacy_score: i64,
    pub risk_index: f64,
    pub verdict: String,
    pub blocked: bool,
    pub leaked_secrets: u64,
    pub vault_secrets: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redteam: Option<RunResult>,
    /// The run had no events: nothing was analysed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_events: bool,
    /// For a run made from spans, the mapping that made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_mapping: Option<SpanMapping>,
    /// With a review: the run's reviewed numbers (beside, never instead of,
    /// the detected ones above).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<ReviewedNumbers>,
}

impl RunNumbers {
    fn of(facts: &RunFacts) -> RunNumbers {
        RunNumbers {
            run_id: facts.run_id.clone(),
            privacy_score: facts.privacy_score,
            risk_index: facts.risk_index,
            verdict: facts.verdict.clone(),
            blocked: facts.blocked,
            leaked_secrets: facts.leaked_secrets,
            vault_secrets: facts.vault_secrets,
            redteam: facts.redteam.clone(),
            no_events: facts.no_events,
            span_mapping: facts.span_mapping,
            reviewed: facts.reviewed.clone(),
        }
    }
}

impl Numbers {
    /// The numbers of an analysed file (none for an error or a canary set).
    pub fn of(result: &FileResult) -> Numbers {
        match result {
            FileResult::Trace(trace) => Numbers { runs: vec![RunNumbers::of(&trace.facts)], redteam: Vec::new() },
            FileResult::Report(report) => Numbers { runs: vec![RunNumbers::of(&report.facts)], redteam: Vec::new() },
            FileResult::Spans(spans) => {
                Numbers { runs: spans.runs.iter().map(|run| RunNumbers::of(&run.facts)).collect(), redteam: Vec::new() }
            }
            FileResult::Batch(batch) => {
                Numbers { runs: batch.runs.iter().map(RunNumbers::of).collect(), redteam: batch.redteam.clone() }
            }
            FileResult::CanarySet(_) | FileResult::Review(_) | FileResult::Error { .. } => Numbers::default(),
        }
    }

    /// The first difference from `expected`, in words; `None` when equal.
    fn difference(&self, expected: &Numbers) -> Option<String> {
        if self.runs.len() != expected.runs.len() {
            return Some(format!("{} runs here, {} in the manifest", self.runs.len(), expected.runs.len()));
        }
        for (here, there) in self.runs.iter().zip(&expected.runs) {
            let differs = |what: &str, a: String, b: String| {
                Some(format!("run {}: {what} {a} here, {b} in the manifest", there.run_id))
            };
            if here.run_id != there.run_id {
                return differs("run id", here.run_id.clone(), there.run_id.clone());
            }
            if here.privacy_score != there.privacy_score {
                return differs("privacy score", here.privacy_score.to_string(), there.privacy_score.to_string());
            }
            if here.risk_index != there.risk_index {
                return differs("risk index", here.risk_index.to_string(), there.risk_index.to_string());
            }
            if here.verdict != there.verdict {
                return differs("verdict", here.verdict.clone(), there.verdict.clone());
            }
            if here.blocked != there.blocked {
                return differs("gate blocked", here.blocked.to_string(), there.blocked.to_string());
            }
            if (here.leaked_secrets, here.vault_secrets) != (there.leaked_secrets, there.vault_secrets) {
                return differs(
                    "leaked / vault secrets",
                    format!("{} / {}", here.leaked_secrets, here.vault_secrets),
                    format!("{} / {}", there.leaked_secrets, there.vault_secrets),
                );
            }
            if here.redteam != there.redteam {
                return Some(format!("run {}: its red-team record differs from the manifest's", there.run_id));
            }
            match (&here.reviewed, &there.reviewed) {
                (Some(a), Some(b)) if a != b => {
                    let text = |r: &ReviewedNumbers| {
                        format!(
                            "RI {} · privacy score {} · {} · {} · {} false positives, {} accepted, {} expired",
                            r.risk_index,
                            r.privacy_score,
                            r.verdict,
                            if r.blocked { "blocked" } else { "not blocked" },
                            r.false_positives,
                            r.accepted,
                            r.expired
                        )
                    };
                    return differs("reviewed numbers", text(a), text(b));
                }
                (None, Some(_)) => {
                    return Some(format!(
                        "run {}: the manifest has reviewed numbers, and no review was applied here",
                        there.run_id
                    ))
                }
                (Some(_), None) => {
                    return Some(format!(
                        "run {}: reviewed here, and the manifest has no reviewed numbers",
                        there.run_id
                    ))
                }
                _ => {}
            }
        }
        if self.redteam != expected.redteam {
            return Some("its red-team records differ from the manifest's".to_owned());
        }
        None
    }
}

/// How to publish.
#[derive(Debug, Clone)]
pub struct PublishOptions {
    pub title: String,
    pub generated_at: String,
    pub tool_version: String,
    /// The config file (name and text); `None` for the reference's defaults.
    pub config: Option<(String, String)>,
    /// Publish the raw traces too (they hold the secrets), not only their reports.
    pub include_traces: bool,
    /// How span exports become runs.
    pub span_mapping: SpanMapping,
}

/// One file to publish, as the caller read it.
#[derive(Debug, Clone, Copy)]
pub struct Source<'a> {
    pub name: &'a str,
    /// The folder it was found in (relative, `/`-separated; empty if none).
    pub folder: &'a str,
    pub bytes: &'a [u8],
}

/// A manifest and its data files (in the order of `manifest.files`; `None`
/// for a file that could not be published).
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    pub manifest: Manifest,
    pub data: Vec<Option<Vec<u8>>>,
}

impl Publication {
    /// The manifest as pretty JSON.
    pub fn manifest_json(&self) -> String {
        serde_json::to_string_pretty(&self.manifest).unwrap_or_default()
    }

    /// Files whose source could not be published, with why.
    pub fn errors(&self) -> impl Iterator<Item = (&str, &str)> {
        self.manifest.files.iter().filter_map(|f| Some((f.name.as_str(), f.error.as_deref()?)))
    }
}

/// Why nothing could be published.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PublishError {
    #[error("{name}: {problem}")]
    Config { name: String, problem: String },
}

/// Analyses every source as the viewer will and builds the publication.
/// A source that cannot be read is listed with its error (and no data);
/// the others are published. A report made from a trace is read back
/// before it is accepted (other data files are the sources just analysed),
/// so a fresh publication always verifies. Each trace is analysed once.
pub fn publish(sources: &[Source<'_>], options: &PublishOptions) -> Result<Publication, PublishError> {
    let publisher = Publisher::new(sources, options)?;
    let parts = sources.iter().enumerate().map(|(index, source)| publisher.source(index, source)).collect();
    Ok(publisher.finish(parts))
}

/// A publication under way: the settings, the config and the review every
/// source is published with. [`publish`] publishes the sources one after
/// another; a caller with threads may call [`Publisher::source`] on several
/// at once (a `Publisher` is `Sync`) and hand the parts to
/// [`Publisher::finish`] in the sources' order, for the same publication.
#[derive(Debug, Clone)]
pub struct Publisher {
    options: PublishOptions,
    config: ConfigUsed,
    /// The viewer's analyser: the viewer opens the publication with these
    /// settings (and the review, judged at the publication's date) and must
    /// see the same numbers.
    analyser: Analyser,
    /// Review files that could not be read or combined, by source index.
    review_errors: Vec<(usize, String)>,
    review_used: Option<ReviewUsed>,
}

/// One source published: its entries (a span export published as reports
/// has one per conversation) with their data, whose paths [`Publisher::finish`]
/// picks in the sources' order.
#[derive(Debug, Clone)]
pub struct Part(Vec<PartEntry>);

#[derive(Debug, Clone)]
struct PartEntry {
    /// Its `data` is set by [`Publisher::finish`].
    entry: PublishedFile,
    data: Option<PendingData>,
}

/// A data file before its path is picked (paths are unique across the
/// publication, numbered in the sources' order).
#[derive(Debug, Clone)]
struct PendingData {
    file_name: String,
    kind: String,
    sha256: String,
    bytes: Vec<u8>,
}

impl Part {
    /// Why its entries could not be published (none when all were).
    pub fn errors(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|part| part.entry.error.as_deref())
    }

    fn failed(mut entry: PublishedFile, problem: String) -> Part {
        entry.error = Some(problem);
        Part(vec![PartEntry { entry, data: None }])
    }
}

impl Publisher {
    /// The config checked and the review files among `sources` combined (a
    /// review file that cannot be read, or conflicts with an earlier one,
    /// is not published); an unusable config publishes nothing.
    pub fn new(sources: &[Source<'_>], options: &PublishOptions) -> Result<Publisher, PublishError> {
        let config_error = |name: &str, problem: String| PublishError::Config { name: name.to_owned(), problem };
        let (named, config) = match &options.config {
            None => {
                (None, ConfigUsed { name: None, summary: "reference defaults".to_owned(), yaml: None, what_if: None })
            }
            Some((name, yaml)) => {
                let settings = settings_from_yaml(yaml).map_err(|e| config_error(name, e.to_string()))?;
                let named = settings.clone().map(|config| NamedConfig { name: name.clone(), config });
                let what_if = settings.as_ref().map(crate::config::WhatIf::from_config);
                let summary = match &what_if {
                    Some(what_if) => what_if.describe(),
                    None => "reference defaults".to_owned(),
                };
                (named, ConfigUsed { name: Some(name.clone()), summary, yaml: Some(yaml.clone()), what_if })
            }
        };
        let mut review_errors: Vec<(usize, String)> = Vec::new();
        let mut reviews: Vec<(&str, Review)> = Vec::new();
        for (i, source) in sources.iter().enumerate().filter(|(_, s)| detect_kind(s.bytes) == FileKind::Review) {
            match Review::from_json(source.bytes) {
                Ok(review) => {
                    let mut with_it = reviews.clone();
                    with_it.push((source.name, review));
                    match Review::combined(with_it.clone()) {
                        Ok(_) => reviews = with_it,
                        Err((_, e)) => review_errors.push((i, e.to_string())),
                    }
                }
                Err(e) => review_errors.push((i, e.to_string())),
            }
        }
        let review_date = Date::of_timestamp(&options.generated_at).unwrap_or_else(|| Date::from_unix_seconds(0));
        let review_used = (!reviews.is_empty()).then(|| ReviewUsed {
            date: review_date,
            files: reviews.iter().map(|(name, _)| (*name).to_owned()).collect(),
            decisions: reviews.iter().map(|(_, r)| r.decisions.len()).sum(),
            sign_offs: reviews.iter().map(|(_, r)| r.runs.len()).sum(),
        });
        let review = match reviews.is_empty() {
            true => None,
            // Each was combined with the ones before it above.
            false => Review::combined(reviews).ok(),
        };
        let analyser = what_if_analyser(named)
            .with_span_mapping(options.span_mapping)
            .with_generated_at(options.generated_at.clone())
            .with_review(review, review_date);
        Ok(Publisher { options: options.clone(), config, analyser, review_errors, review_used })
    }

    /// The source at `index` of the sources given to [`Publisher::new`],
    /// analysed and published.
    pub fn source(&self, index: usize, source: &Source<'_>) -> Part {
        if let Some((_, problem)) = self.review_errors.iter().find(|(at, _)| *at == index) {
            return Part::failed(unpublished(source), problem.clone());
        }
        let kind = detect_kind(source.bytes);
        match kind {
            FileKind::Spans if !self.options.include_traces => self.span_reports(source),
            FileKind::CanarySet => Part::failed(
                unpublished(source),
                "a canary set is not a run, and its values are the secrets: not published".to_owned(),
            ),
            FileKind::Trace if !self.options.include_traces => self.trace_as_report(source),
            _ => self.as_it_is(source, kind),
        }
    }

    /// The publication of the sources' parts, given in the sources' order.
    pub fn finish(self, parts: Vec<Part>) -> Publication {
        let mut files = Vec::with_capacity(parts.len());
        let mut data = Vec::with_capacity(parts.len());
        let mut used_paths = std::collections::BTreeSet::new();
        for PartEntry { mut entry, data: pending } in parts.into_iter().flat_map(|part| part.0) {
            data.push(pending.map(|pending| {
                entry.data = Some(DataFile {
                    path: data_path(&pending.file_name, &mut used_paths),
                    kind: pending.kind,
                    size: pending.bytes.len() as u64,
                    sha256: pending.sha256,
                });
                pending.bytes
            }));
            files.push(entry);
        }
        let any_spans = files.iter().any(|f| f.kind == FileKind::Spans.as_str());
        let manifest = Manifest {
            format: FORMAT.to_owned(),
            format_version: FORMAT_VERSION,
            title: self.options.title,
            generated_at: self.options.generated_at,
            tool_version: self.options.tool_version,
            config: self.config,
            include_traces: self.options.include_traces,
            span_mapping: any_spans.then_some(self.options.span_mapping),
            review: self.review_used,
            files,
        };
        Publication { manifest, data }
    }

    /// A source published as it is: the viewer reads what was just analysed.
    fn as_it_is(&self, source: &Source<'_>, kind: FileKind) -> Part {
        let mut entry = unpublished(source);
        let result = self.analyser.analyse_file(source.bytes, source.name, source.folder, &|_| {});
        if let FileResult::Error { message } = &result {
            return Part::failed(entry, message.clone());
        }
        entry.numbers = Numbers::of(&result);
        let data = PendingData {
            file_name: source.name.to_owned(),
            kind: kind.as_str().to_owned(),
            sha256: sha256_hex(source.bytes),
            bytes: source.bytes.to_vec(),
        };
        Part(vec![PartEntry { entry, data: Some(data) }])
    }

    /// A trace published as its report: its numbers, as a viewer lists the
    /// trace, and the report come from one analysis; the viewer reads the
    /// report, which must give the same numbers back (a failure here is a
    /// bug, never shipped as "modified").
    fn trace_as_report(&self, source: &Source<'_>) -> Part {
        let mut entry = unpublished(source);
        let (report, trace) = match self.analyser.analyse_trace_kept(source.bytes) {
            Ok(analysed) => analysed,
            Err(e) => return Part::failed(entry, e.to_string()),
        };
        let mut facts = match facts_of_trace(source.name, source.folder, &report, &trace) {
            Ok(facts) => facts,
            Err(e) => return Part::failed(entry, e.to_string()),
        };
        drop(trace);
        facts.reviewed = self.analyser.reviewed(&self.analyser.trace_secrets(&report)).map(|r| r.numbers());
        entry.numbers = Numbers { runs: vec![RunNumbers::of(&facts)], redteam: Vec::new() };
        let bytes = match report_bytes(source, report) {
            Ok(bytes) => bytes,
            Err(problem) => return Part::failed(entry, problem),
        };
        let read_back = self.analyser.analyse_file(&bytes, source.name, source.folder, &|_| {});
        if let Some(difference) = Numbers::of(&read_back).difference(&entry.numbers) {
            return Part::failed(entry, format!("its published report does not give its numbers back ({difference})"));
        }
        let data = PendingData {
            file_name: format!("{}.report.json", stem(source.name)),
            kind: "report".to_owned(),
            sha256: sha256_hex(&bytes),
            bytes,
        };
        Part(vec![PartEntry { entry, data: Some(data) }])
    }

    /// A span export published without its spans: an entry per run (named
    /// `<file>#<conversation>` when it holds several), each with its run's
    /// report as data, checked as a trace's report is.
    fn span_reports(&self, source: &Source<'_>) -> Part {
        let entry = |name: String| PublishedFile {
            name,
            folder: source.folder.to_owned(),
            kind: FileKind::Spans.as_str().to_owned(),
            size: source.bytes.len() as u64,
            sha256: sha256_hex(source.bytes),
            data: None,
            numbers: Numbers::default(),
            error: None,
        };
        let analysed = self.analyser.analyse_runs(source.name, source.bytes.into(), None, Keep::ReportOnly);
        let runs = match analysed {
            Ok(runs) => runs,
            Err(e) => return Part::failed(entry(source.name.to_owned()), e.problem),
        };
        let entries = runs
            .into_iter()
            .map(|run| {
                let conversation = run.report.span_source.as_ref().and_then(|s| s.conversation.clone());
                let mut published = entry(match &conversation {
                    Some(key) => format!("{}#{key}", source.name),
                    None => source.name.to_owned(),
                });
                let bytes = match serde_json::to_vec(&run.report) {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        published.error = Some(e.to_string());
                        return PartEntry { entry: published, data: None };
                    }
                };
                let result = self.analyser.analyse_file(&bytes, &published.name, source.folder, &|_| {});
                let numbers = Numbers::of(&result);
                if let FileResult::Error { message } = &result {
                    published.error = Some(format!("its published report cannot be read back: {message}"));
                    return PartEntry { entry: published, data: None };
                }
                published.numbers = numbers;
                let stem = crate::spans::safe_file_stem(&run.report.run_id);
                let data = PendingData {
                    file_name: format!("{stem}.report.json"),
                    kind: "report".to_owned(),
                    sha256: sha256_hex(&bytes),
                    bytes,
                };
                PartEntry { entry: published, data: Some(data) }
            })
            .collect();
        Part(entries)
    }
}

/// A source's entry before it is published: no data, no numbers.
fn unpublished(source: &Source<'_>) -> PublishedFile {
    PublishedFile {
        name: source.name.to_owned(),
        folder: source.folder.to_owned(),
        kind: detect_kind(source.bytes).as_str().to_owned(),
        size: source.bytes.len() as u64,
        sha256: sha256_hex(source.bytes),
        data: None,
        numbers: Numbers::default(),
        error: None,
    }
}

/// The report `agentrisk run` writes for a trace, with the trace's
/// `metadata` (its red-team fields) but never its canaries, which are
/// secret values.
fn report_bytes(source: &Source<'_>, mut report: crate::model::Report) -> Result<Vec<u8>, String> {
    report.metadata = serde_json::from_slice::<serde_json::Value>(source.bytes)
        .ok()
        .and_then(|trace| match trace.get("metadata") {
            Some(serde_json::Value::Object(map)) => Some(map.clone()),
            _ => None,
        })
        .map(|mut map| {
            map.remove("canaries");
            map
        })
        .filter(|map| !map.is_empty());
    // Compact: pretty printing makes a report about twice as big.
    serde_json::to_vec(&report).map_err(|e| e.to_string())
}

/// A file name without its last extension.
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// `data/<name>` with the name reduced to letters, digits, `.`, `_` and
/// `-` (a safe URL and file name anywhere), made unique with a number.
fn data_path(name: &str, used: &mut std::collections::BTreeSet<String>) -> String {
    let safe: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    let safe = safe.trim_start_matches('.');
    let safe = if safe.is_empty() { "file" } else { safe };
    let mut path = format!("data/{safe}");
    let mut n = 2;
    while !used.insert(path.clone()) {
        path = format!("data/{n}-{safe}");
        n += 1;
    }
    path
}

/// True when `path` is one [`publish`] writes: `data/` and a safe name.
/// The viewer fetches nothing else a manifest names.
pub fn is_data_path(path: &str) -> bool {
    match path.strip_prefix("data/") {
        Some(name) => {
            !name.is_empty()
                && !name.starts_with('.')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
        }
        None => false,
    }
}

impl Manifest {
    /// Reads a manifest; the error says why it cannot be used (which makes
    /// the publication unverifiable).
    pub fn from_json(bytes: &[u8]) -> Result<Manifest, String> {
        let value: serde_json::Value =
            serde_json::from_slice(bytes).map_err(|e| format!("manifest.json is not JSON: {e}"))?;
        match (value.get("format").and_then(|v| v.as_str()), value.get("format_version").and_then(|v| v.as_u64())) {
            (Some(FORMAT), Some(v)) if v == u64::from(FORMAT_VERSION) => {}
            (Some(FORMAT), Some(v)) => {
                return Err(format!("manifest.json has format version {v}; this viewer reads version {FORMAT_VERSION}"))
            }
            _ => return Err(format!("manifest.json is not an {FORMAT} manifest")),
        }
        let manifest: Manifest =
            serde_json::from_value(value).map_err(|e| format!("manifest.json cannot be read: {e}"))?;
        if let Some(bad) = manifest.files.iter().filter_map(|f| f.data.as_ref()).find(|d| !is_data_path(&d.path)) {
            return Err(format!("manifest.json names a data file outside data/: {:?}", bad.path));
        }
        Ok(manifest)
    }
}

/// What opening one published file showed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileCheck {
    /// Its data matches its SHA-256 and gives the manifest's numbers.
    Verified,
    /// It does not: why.
    Modified { problem: String },
}

/// Checks a published file: `data` as read, `result` its analysis with the
/// manifest's config.
pub fn check_file(entry: &PublishedFile, data: &[u8], result: &FileResult) -> FileCheck {
    let modified = |problem: String| FileCheck::Modified { problem };
    let Some(expected) = &entry.data else {
        return modified("the manifest lists no data for it".to_owned());
    };
    if sha256_hex(data) != expected.sha256 {
        return modified(format!("{} does not match its SHA-256 in the manifest", expected.path));
    }
    if let FileResult::Error { message } = result {
        return modified(format!("{} cannot be read: {message}", expected.path));
    }
    match Numbers::of(result).difference(&entry.numbers) {
        Some(difference) => modified(difference),
        None => FileCheck::Verified,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_paths_are_safe_and_unique() {
        let mut used = std::collections::BTreeSet::new();
        assert_eq!(data_path("run 1.report.json", &mut used), "data/run_1.report.json");
        assert_eq!(data_path("run 1.report.json", &mut used), "data/2-run_1.report.json");
        assert_eq!(data_path("../../etc/passwd", &mut used), "data/_.._etc_passwd");
        assert_eq!(data_path("..", &mut used), "data/file");
        assert!(is_data_path("data/2-run_1.report.json"));
        assert!(!is_data_path("data/../x"));
        assert!(!is_data_path("https://example.com/x"));
        assert!(!is_data_path("data/"));
    }

    /// Publishing analyses each trace once: a trace published as its
    /// report (its numbers and its report come from one analysis), a trace
    /// published as itself, and each conversation of a span export.
    #[test]
    fn each_trace_is_analysed_once() {
        let sources = [
            Source {
                name: "healthcare_trace.json",
                folder: "",
                bytes: include_bytes!("../../../../www/samples/traces/healthcare_trace.json"),
            },
            Source {
                name: "finance_clean_trace.json",
                folder: "",
                bytes: include_bytes!("../../../../www/samples/traces/finance_clean_trace.json"),
            },
            Source {
                name: "lc_two_sessions.otlp.json",
                folder: "",
                bytes: include_bytes!("../../../../tests/fixtures/spans/lc_two_sessions.otlp.json"),
            },
        ];
        for include_traces in [false, true] {
            let options = PublishOptions {
                title: "runs".to_owned(),
                generated_at: "2026-12-07T10:00:00.000000".to_owned(),
                tool_version: "0.1.0".to_owned(),
                config: None,
                include_traces,
                span_mapping: SpanMapping::default(),
            };
            let analysed = || crate::pipeline::TRACES_ANALYSED.with(std::cell::Cell::get);
            let before = analysed();
            let publication = publish(&sources, &options).unwrap();
            assert_eq!(analysed() - before, 4, "two traces and two conversations, include_traces {include_traces}");
            assert_eq!(publication.errors().count(), 0);
            // Published as reports, the span export is a file per conversation.
            let files = if include_traces { 3 } else { 4 };
            assert_eq!(publication.manifest.files.len(), files);
            assert!(publication.manifest.files.iter().all(|f| !f.numbers.runs.is_empty()));
        }
    }

    #[test]
    fn stems() {
        assert_eq!(stem("trace.json"), "trace");
        assert_eq!(stem("a.b.json"), "a.b");
        assert_eq!(stem(".hidden"), ".hidden");
    }
}
