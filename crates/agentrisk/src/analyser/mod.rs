//! The one way into analysis for every shell: an [`Analyser`] holds the
//! settings a shell has gathered — the config (checked, with its detection
//! settings), the canary set, the what-if config for stored reports, the
//! gate overrides, the environment lookup and the clock value — and offers
//! the few calls every shell needs:
//!
//! * [`Analyser::analyse_trace`]: trace bytes → report (with an optional
//!   progress observer, and [`Keep`] to let go of the trace early);
//! * [`Analyser::score_report`]: a stored report re-scored (what
//!   `agentrisk score` prints);
//! * [`Analyser::read_batch_file`]: any batch file (trace, report,
//!   scorecard, red-team results) → run facts, and [`Analyser::summarise`]
//!   over many ([`BatchRuns`] for a shell that reads files one by one);
//! * `Analyser::analyse_file` (in [`crate::workspace`], beside the view types
//!   it returns): any file → what a viewer lists.
//!
//! With a review ([`Analyser::with_review`], the files read by
//! [`review_from_files`]), each of these also gives every run's reviewed
//! numbers beside its detected ones: the analyser picks each kind of run's
//! gate ([`Analyser::trace_secrets`], [`Analyser::report_secrets`]) and
//! [`Analyser::reviewed`] applies the review (`crate::review`).
//!
//! The CLI, the viewer's worker (through [`crate::workspace::Workspace`]),
//! publishing and the JavaScript package all build an `Analyser` and call
//! these; none of them reaches into the pipeline. Errors a user can cause
//! are an [`ApiError`]: the file, the place and the problem.
//!
//! It does no I/O: the caller reads files, reads the clock and passes an
//! environment lookup.

mod options;

pub use options::{generated_at_from_unix, group_by_from_name, interval_method, wilson_rate};

use crate::analyze::{Canaries, CanariesUsed, CanaryError, CanarySource};
use crate::batch::{
    load_batch_file, summarize, BatchFile, BatchSummary, GroupBy, RunFacts, RunResult, Scorecard, SecretsOf,
};
use crate::config::{config_from_bytes, AnalysisConfig};
use crate::model::{Report, SpanMapping};
use crate::pipeline::{self, AnalysisInput, Loaded};
use crate::report::{load_report, report_what_if, rescore_report_with_gate, GateSettings, Rescore};
use crate::review::{Date, Review, RunReview, RunSecrets};
use crate::stats::IntervalMethod;
use crate::{ScoreRecord, ScoringConfig};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::Arc;

pub use crate::pipeline::{
    compile_patterns, warm_up, AnalysisError, Keep, LoadFileError, Progress, Stage, TraceAnalysis,
};

/// An input a user can get wrong, named: the file, where in it, and what
/// is wrong. `Display` is `file: where: what`, the CLI's words after its
/// `agentrisk: ` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[error("{file}: {}", self.message())]
pub struct ApiError {
    /// The file's name as the caller gave it (or the option, e.g. `confidence`).
    pub file: String,
    /// Where in the file: a line and column, a key path (`events[3].channel`,
    /// `scoring.weights`, `top level`), or empty when the problem is with the
    /// whole file (e.g. an unsupported report version).
    #[serde(rename = "where")]
    pub place: String,
    /// What is wrong, and often how to fix it.
    #[serde(rename = "what")]
    pub problem: String,
}

impl ApiError {
    /// Splits a core error's message into its place and its problem. The
    /// core's messages start with the place followed by `": "`; a message
    /// without one is about the whole file (an empty place).
    pub fn new(file: &str, message: &str) -> ApiError {
        let (place, problem) = match message.split_once(": ") {
            Some((place, problem)) => (place, problem),
            None => ("", message),
        };
        ApiError { file: file.to_owned(), place: place.to_owned(), problem: problem.to_owned() }
    }

    /// The place and the problem without the file (`where: what`), as a
    /// viewer shows it in the file's own row.
    pub fn message(&self) -> String {
        if self.place.is_empty() {
            self.problem.clone()
        } else {
            format!("{}: {}", self.place, self.problem)
        }
    }
}

/// A file's name and bytes.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// A config loaded under its file name.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedConfig {
    pub name: String,
    pub config: AnalysisConfig,
}

impl NamedConfig {
    /// The one config loader: `agentleak.yaml` bytes, loaded and checked as
    /// the reference's runner checks them when it starts (detection mode,
    /// custom rules' severities and patterns), so a bad config is named
    /// before any trace, whatever the shell.
    pub fn load(file: Named<'_>) -> Result<NamedConfig, ApiError> {
        let config = config_from_bytes(file.bytes).map_err(|e| ApiError::new(file.name, &e.to_string()))?;
        pipeline::detection_settings(&config).map_err(|e| ApiError::new(file.name, &e.to_string()))?;
        Ok(NamedConfig { name: file.name.to_owned(), config })
    }
}

/// A canary set a caller gives: the set, and the name of the file it came
/// from (shown with the runs analysed with it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CanarySetting {
    pub name: String,
    pub canaries: Canaries,
}

impl CanarySetting {
    /// A canary-set file's setting; errors name the place in the file
    /// (callers add the file name).
    pub fn from_file(name: &str, bytes: &[u8]) -> Result<CanarySetting, CanaryError> {
        Ok(CanarySetting { name: name.to_owned(), canaries: Canaries::from_json_bytes(bytes)? })
    }

    /// Its name and tier sizes.
    pub fn used(&self) -> CanariesUsed {
        CanariesUsed::new(CanarySource::Explicit { name: self.name.clone() }, &self.canaries)
    }
}

/// Gate settings a shell pins by flag or option. For traces, each replaces
/// the config's own value (`run --fail-under N`, as the reference does).
/// For stored reports, either one names the gate the runs were scored with
/// (`score --fail-below N --no-block-on-critical`): the stored decision is
/// then checked against it alone; with neither, the gate is unknown and a
/// decision some setting gives is consistent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GateOverrides {
    pub fail_below: Option<i64>,
    pub block_on_critical: Option<bool>,
}

impl GateOverrides {
    fn is_set(self) -> bool {
        self.fail_below.is_some() || self.block_on_critical.is_some()
    }

    fn apply(self, scoring: &mut ScoringConfig) {
        if let Some(n) = self.fail_below {
            scoring.fail_below = n;
        }
        if let Some(on) = self.block_on_critical {
            scoring.block_on_critical = on;
        }
    }
}

/// A lookup of an environment variable by name.
type Lookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// An environment lookup (only `detection.llm_judge.api_key_env` is read).
#[derive(Clone)]
struct Env(Arc<Lookup>);

impl Default for Env {
    /// No environment: a browser, a test, or a caller that never calls out.
    fn default() -> Env {
        Env(Arc::new(|_| None))
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Env")
    }
}

/// One report re-scored: the record `score --json` prints (with a what-if
/// config, the numbers it gives; with a review, its reviewed numbers), the
/// re-scoring of the stored numbers, what the what-if config asks for that
/// a report cannot show, and the run's leaked secrets as a review names them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub record: ScoreRecord,
    pub rescore: Rescore,
    pub notes: Vec<String>,
    pub secrets: RunSecrets,
}

/// Review files read and combined into one review, in the order given (a
/// later file's sign-off is a run's status); the error names the file, the
/// place in it and the problem (two files that decide one secret
/// differently name the later one).
pub fn review_from_files(files: &[Named<'_>]) -> Result<Review, ApiError> {
    let mut reviews = Vec::with_capacity(files.len());
    for file in files {
        let review = Review::from_json(file.bytes).map_err(|e| ApiError::new(file.name, &e.to_string()))?;
        reviews.push((file.name, review));
    }
    Review::combined(reviews).map_err(|(name, e)| ApiError::new(&name, &e.to_string()))
}

/// A review and the date its acceptances are judged at.
#[derive(Debug, Clone, PartialEq)]
struct ReviewInForce {
    review: Review,
    today: Date,
}

/// A file of a batch, with the folder it counts under for `group_by: folder`
/// ([`crate::batch::folder_of`] gives it from the file's path).
#[derive(Debug, Clone, Copy)]
pub struct BatchInput<'a> {
    pub name: &'a str,
    pub folder: &'a str,
    pub bytes: &'a [u8],
}

/// A batch summarised: the summary `batch --json` prints, and the files
/// that could not be read (left out of it, as the CLI skips them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchOutcome {
    pub summary: BatchSummary,
    pub errors: Vec<ApiError>,
}

/// The settings of every analysis a shell makes. Cheap to clone; built
/// with the `with_*` calls:
///
/// ```
/// use agentrisk::analyser::{Analyser, Named};
/// let analyser = Analyser::new().with_generated_at("2026-12-07T00:00:00+00:00");
/// let trace = br#"{"events": [{"channel": "final_output", "content": "SSN 123-45-6789"}]}"#;
/// let report = analyser.trace_report(Named { name: "t.json", bytes: trace }).unwrap();
/// assert_eq!(report.verdict, "Fail");
/// ```
#[derive(Debug, Clone, Default)]
pub struct Analyser {
    config: Option<NamedConfig>,
    what_if: Option<NamedConfig>,
    canaries: Option<CanarySetting>,
    gate: GateOverrides,
    env: Env,
    generated_at: String,
    span_mapping: SpanMapping,
    review: Option<ReviewInForce>,
}

impl Analyser {
    /// The reference's defaults: every built-in detector, no canaries, no
    /// environment, an empty `generated_at`.
    pub fn new() -> Analyser {
        Analyser::default()
    }

    /// The config traces are analysed with (`None`: the reference's defaults).
    pub fn with_config(mut self, config: Option<NamedConfig>) -> Analyser {
        self.config = config;
        self
    }

    /// The what-if config stored reports are re-scored with: the numbers
    /// each run would have had with its weights, vault and gate.
    pub fn with_what_if(mut self, what_if: Option<NamedConfig>) -> Analyser {
        self.what_if = what_if;
        self
    }

    /// An explicit canary set; it wins over a trace's own `metadata.canaries`.
    pub fn with_canaries(mut self, canaries: Option<CanarySetting>) -> Analyser {
        self.canaries = canaries;
        self
    }

    /// Gate settings pinned by flag or option ([`GateOverrides`]).
    pub fn with_gate(mut self, gate: GateOverrides) -> Analyser {
        self.gate = gate;
        self
    }

    /// The environment lookup (only `detection.llm_judge.api_key_env` is read).
    pub fn with_env(mut self, env: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Analyser {
        self.env = Env(Arc::new(env));
        self
    }

    /// A trace report's `generated_at`, from the caller's clock
    /// ([`generated_at_from_unix`]).
    pub fn with_generated_at(mut self, generated_at: impl Into<String>) -> Analyser {
        self.generated_at = generated_at.into();
        self
    }

    /// How span exports become traces (`--span-mapping`; the default is
    /// [`SpanMapping::Structural`]).
    pub fn with_span_mapping(mut self, mapping: SpanMapping) -> Analyser {
        self.span_mapping = mapping;
        self
    }

    pub fn span_mapping(&self) -> SpanMapping {
        self.span_mapping
    }

    /// The review runs are reviewed with (`None`: none), and `today`, the
    /// date its acceptances are judged at (the caller's clock: the core
    /// reads none). With a review, every call that gives a run's numbers
    /// gives its reviewed numbers beside them ([`Analyser::reviewed`]).
    pub fn with_review(mut self, review: Option<Review>, today: Date) -> Analyser {
        self.review = review.map(|review| ReviewInForce { review, today });
        self
    }

    /// The review in force and its date.
    pub fn review(&self) -> Option<(&Review, Date)> {
        self.review.as_ref().map(|r| (&r.review, r.today))
    }

    /// A trace's run as a review sees it: its report's leaked secrets and
    /// scoring inputs, gated as the trace config gates it.
    pub fn trace_secrets(&self, report: &Report) -> RunSecrets {
        RunSecrets::of_report(report, &self.trace_config().scoring)
    }

    /// A stored report's run as a review sees it, `shown` as
    /// [`Analyser::score_report`] shows it (re-scored with the what-if
    /// config when one is set): gated by the what-if config, else by the
    /// gate overrides, else (the gate unknown) by the reference's gate
    /// changed as little as gives the stored decision.
    pub fn report_secrets(&self, shown: &Report) -> RunSecrets {
        self.stored_secrets(shown, self.what_if.is_some())
    }

    /// [`Analyser::report_secrets`], saying whether `report` was re-scored
    /// with the what-if config (a batch reads reports as stored).
    fn stored_secrets(&self, report: &Report, what_if_applied: bool) -> RunSecrets {
        if let (true, Some(named)) = (what_if_applied, &self.what_if) {
            return RunSecrets::of_report(report, &named.config.scoring);
        }
        let mut scoring = ScoringConfig::default();
        self.gate.apply(&mut scoring);
        if self.gate.is_set() {
            RunSecrets::of_report(report, &scoring)
        } else {
            RunSecrets::of_stored_report(report, &scoring)
        }
    }

    /// A run's reviewed numbers under the review in force; `None` without one.
    pub fn reviewed(&self, secrets: &RunSecrets) -> Option<RunReview> {
        self.review.as_ref().map(|r| secrets.review(&r.review, r.today))
    }

    pub fn config(&self) -> Option<&NamedConfig> {
        self.config.as_ref()
    }

    pub fn what_if(&self) -> Option<&NamedConfig> {
        self.what_if.as_ref()
    }

    pub fn canaries(&self) -> Option<&CanarySetting> {
        self.canaries.as_ref()
    }

    /// The config a trace is analysed with: the one given (or the
    /// defaults), with the gate overrides in force.
    pub fn trace_config(&self) -> Cow<'_, AnalysisConfig> {
        let mut config = match &self.config {
            Some(named) => Cow::Borrowed(&named.config),
            None => Cow::Owned(AnalysisConfig::default()),
        };
        if self.gate.is_set() {
            self.gate.apply(&mut config.to_mut().scoring);
        }
        config
    }

    /// The report of one trace and why its gate blocks. `progress` hears
    /// how far parsing and analysis have come; `keep` says whether the
    /// trace comes back. Owned `bytes` are let go as soon as they are parsed.
    pub fn analyse_trace(
        &self,
        name: &str,
        bytes: Cow<'_, [u8]>,
        progress: Option<&dyn Fn(Progress)>,
        keep: Keep,
    ) -> Result<TraceAnalysis, ApiError> {
        if crate::spans::sniff(&bytes).is_some() {
            let mut runs = self.analyse_runs(name, bytes, progress, keep)?;
            return match runs.len() {
                1 => Ok(runs.remove(0)),
                n => Err(ApiError::new(
                    name,
                    &format!(
                        "the span export holds {n} conversations, and one report was asked for; analyse it as a \
                         batch (or with agentrisk run, which writes a report per conversation)"
                    ),
                )),
            };
        }
        let config = self.trace_config();
        pipeline::analyse_bytes(bytes, &self.input(&config), progress.unwrap_or(&|_| {}), keep)
            .map_err(|e| self.trace_error(name, e))
    }

    /// Every run of a file: one for an AgentLeak trace; for an OpenTelemetry
    /// span export, one per conversation under the span mapping (each
    /// report's `span_source` says which). Errors as [`Analyser::analyse_trace`].
    pub fn analyse_runs(
        &self,
        name: &str,
        bytes: Cow<'_, [u8]>,
        progress: Option<&dyn Fn(Progress)>,
        keep: Keep,
    ) -> Result<Vec<TraceAnalysis>, ApiError> {
        let config = self.trace_config();
        let input = self.input(&config);
        let progress = progress.unwrap_or(&|_| {});
        if crate::spans::sniff(&bytes).is_some() {
            return pipeline::analyse_span_bytes(name, &bytes, &input, progress, keep)
                .map_err(|e| self.trace_error(name, e));
        }
        pipeline::analyse_bytes(bytes, &input, progress, keep).map(|a| vec![a]).map_err(|e| self.trace_error(name, e))
    }

    /// The report `agentrisk run -o - -f json` writes for one trace.
    pub fn trace_report(&self, trace: Named<'_>) -> Result<Report, ApiError> {
        self.analyse_trace(trace.name, Cow::Borrowed(trace.bytes), None, Keep::ReportOnly).map(|a| a.report)
    }

    /// A trace's error in the caller's words: a vault too small for what
    /// the trace leaks names the config (its vault is what to fix).
    fn trace_error(&self, trace: &str, error: LoadFileError) -> ApiError {
        match (&error, &self.config) {
            (LoadFileError::Analysis(AnalysisError::Scoring(_)), Some(named)) => {
                let mut api = ApiError::new(&named.name, &error.to_string());
                api.problem.push_str(&format!(" (for the trace {trace})"));
                api
            }
            _ => ApiError::new(trace, &error.to_string()),
        }
    }

    /// A stored report re-scored, as `agentrisk score` does: checked
    /// against the gate overrides (or an unknown gate), and shown with the
    /// what-if config's numbers when one is set.
    pub fn score_report(&self, report: Named<'_>) -> Result<Scored, ApiError> {
        let loaded = load_report(report.bytes).map_err(|e| ApiError::new(report.name, &e.to_string()))?;
        let rescore = self.rescore(&loaded);
        let (shown, notes) = match &self.what_if {
            None => (loaded, Vec::new()),
            Some(named) => match report_what_if(&loaded, &named.config) {
                Ok(what_if) => (what_if.report, what_if.notes),
                Err(e) => {
                    let mut error = ApiError::new(&named.name, &e.to_string());
                    error.problem.push_str(&format!(" (for the report {})", report.name));
                    return Err(error);
                }
            },
        };
        let secrets = self.report_secrets(&shown);
        let mut record = ScoreRecord::new(report.name, &shown, &rescore);
        record.reviewed = self.reviewed(&secrets);
        Ok(Scored { record, rescore, notes, secrets })
    }

    /// A stored report's numbers recomputed from its own inputs, under the
    /// reference's scoring and the gate overrides (a report does not say
    /// which gate it was made with).
    pub(crate) fn rescore(&self, report: &Report) -> Rescore {
        let mut scoring = ScoringConfig::default();
        self.gate.apply(&mut scoring);
        let gate = if self.gate.is_set() { GateSettings::Pinned } else { GateSettings::Unknown };
        rescore_report_with_gate(report, &scoring, gate)
    }

    /// A report (`report`, as `batch::detect_kind` tells) or else a trace,
    /// loaded with `config` (for a trace) and the analyser's canaries.
    pub(crate) fn load(
        &self,
        bytes: &[u8],
        report: bool,
        config: &AnalysisConfig,
        progress: &dyn Fn(Progress),
    ) -> Result<Loaded, LoadFileError> {
        pipeline::load_any(bytes, report, &self.input(config), progress)
    }

    /// A trace's report (under the trace config) with the trace kept, and
    /// the pipeline's own error: publishing takes both the report it
    /// publishes and the numbers a viewer lists from this one analysis,
    /// and records an error in the words a viewer shows.
    pub(crate) fn analyse_trace_kept(&self, bytes: &[u8]) -> Result<(Report, crate::trace::Trace), LoadFileError> {
        let config = self.trace_config();
        pipeline::analyse_keeping_trace(bytes, &self.input(&config))
    }

    /// A span export's runs analysed with `config` (kept, for a viewer).
    pub(crate) fn load_spans(
        &self,
        name: &str,
        bytes: &[u8],
        config: &AnalysisConfig,
        progress: &dyn Fn(Progress),
    ) -> Result<Vec<TraceAnalysis>, LoadFileError> {
        pipeline::analyse_span_bytes(name, bytes, &self.input(config), progress, Keep::Trace)
    }

    /// One batch file read into run facts: a trace analysed (with the
    /// config and canaries), a report as stored, a scorecard's rows,
    /// red-team records; a canary-set or review file holds no run. With a
    /// review, each run made from a trace or a report gets its reviewed
    /// numbers ([`RunFacts::reviewed`]) and [`BatchFile::secrets`] its
    /// secrets (a scorecard's rows keep the reviewed numbers they hold).
    pub fn read_batch_file(&self, file: BatchInput<'_>) -> Result<BatchFile, ApiError> {
        let config = self.trace_config();
        let secrets_of = |report: &Report, from_trace: bool| {
            if from_trace {
                self.trace_secrets(report)
            } else {
                self.stored_secrets(report, false)
            }
        };
        let wanted: SecretsOf<'_> = self.review.is_some().then_some(&secrets_of);
        let mut read = load_batch_file(file.name, file.folder, file.bytes, &self.input(&config), wanted)
            .map_err(|e| ApiError::new(file.name, &e.to_string()))?;
        if let Some(r) = &self.review {
            for (run, secrets) in read.runs.iter_mut().zip(&read.secrets) {
                run.reviewed = Some(secrets.review(&r.review, r.today).numbers());
            }
        }
        Ok(read)
    }

    /// The batch summary of `files`, as `agentrisk batch --json` prints it.
    pub fn summarise(
        &self,
        files: &[BatchInput<'_>],
        method: IntervalMethod,
        group_by: Option<GroupBy>,
    ) -> BatchOutcome {
        let mut batch = BatchRuns::default();
        for file in files {
            batch.read(self, *file);
        }
        BatchOutcome { summary: batch.summary(method, group_by), errors: batch.errors }
    }

    /// The detectors, custom rules and channels the trace config runs
    /// (what the per-event findings are made with).
    pub fn detection_settings(&self) -> Result<crate::analyze::DetectionSettings, ApiError> {
        let name = self.config.as_ref().map_or("config", |c| c.name.as_str());
        pipeline::detection_settings(&self.trace_config()).map_err(|e| ApiError::new(name, &e.to_string()))
    }

    fn input<'a>(&'a self, config: &'a AnalysisConfig) -> AnalysisInput<'a> {
        AnalysisInput {
            config,
            canaries: self.canaries.as_ref().map(|c| &c.canaries),
            env: &*self.env.0,
            generated_at: self.generated_at.clone(),
            span_mapping: self.span_mapping,
        }
    }
}

/// The runs of a batch, gathered file by file (a shell that reads files
/// one at a time, to show progress or to hold one file at a time, adds
/// each as it comes), and the files that could not be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchRuns {
    pub runs: Vec<RunFacts>,
    pub redteam: Vec<RunResult>,
    /// With a review, the secrets of each run made from a trace or a
    /// report (for [`Review::unmatched`]).
    pub secrets: Vec<RunSecrets>,
    pub errors: Vec<ApiError>,
    /// Files read into runs or records (a canary-set file counts: it was read).
    pub files_read: usize,
    /// The `generated_at` of the last scorecard read, if it had one.
    pub scorecard_generated_at: Option<String>,
}

impl BatchRuns {
    /// Reads one file with `analyser`'s settings; an unreadable file is
    /// kept as an error, the rest of the batch is unaffected.
    pub fn read(&mut self, analyser: &Analyser, file: BatchInput<'_>) {
        self.add(analyser.read_batch_file(file));
    }

    /// Adds a file read by [`Analyser::read_batch_file`] (a shell that reads
    /// files on several threads adds them in its files' order), or the
    /// error that it could not be read.
    pub fn add(&mut self, read: Result<BatchFile, ApiError>) {
        match read {
            Ok(read) => {
                if read.generated_at.is_some() {
                    self.scorecard_generated_at = read.generated_at;
                }
                self.runs.extend(read.runs);
                self.redteam.extend(read.redteam);
                self.secrets.extend(read.secrets);
                self.files_read += 1;
            }
            Err(e) => self.errors.push(e),
        }
    }

    /// When this batch was made, for ordering batches over time
    /// ([`crate::compare::history`]): a batch that is one scorecard file has
    /// that scorecard's `generated_at`; any other batch has none (it goes by
    /// its name).
    pub fn generated_at(&self) -> Option<&str> {
        let one_file = self.files_read == 1 && self.errors.is_empty();
        one_file.then_some(self.scorecard_generated_at.as_deref()).flatten()
    }

    pub fn summary(&self, method: IntervalMethod, group_by: Option<GroupBy>) -> BatchSummary {
        summarize(&self.runs, &self.redteam, method, group_by)
    }

    /// The scorecard file of these runs.
    pub fn into_scorecard(self, method: IntervalMethod, group_by: Option<GroupBy>) -> Scorecard {
        Scorecard::new(self.runs, self.redteam, method, group_by)
    }
}

#[cfg(test)]
mod tests;
