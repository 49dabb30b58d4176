//! The one way from a trace to its report: parse → analyse → score →
//! report, for [`crate::analyser::Analyser`], the one caller: shells and
//! tests go through it.

use crate::analyze::{canaries_in_force, findings_from_events_observed, Canaries, DetectionSettings, Finding};
use crate::config::AnalysisConfig;
use crate::detect::{CustomDetector, CustomRuleSpec};
use crate::model::{Detection, Report};
use crate::pyunicode::{canonical, strip};
use crate::report::policy::{evaluate_policy, FlowContext};
use crate::report::{build_report, ReportDraft, ReportOptions, RunFacts};
use crate::score::BlockReason;
use crate::trace::{python_str, PyValue, Trace, LONE_SURROGATE};
use std::borrow::Cow;
use std::collections::HashMap;

/// Why a trace could not be turned into a report (after it parsed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    #[error("{0}")]
    Startup(#[from] crate::config::StartupError),
    #[error("{0}")]
    CustomRule(#[from] crate::detect::CustomRuleError),
    #[error("{0}")]
    Scoring(#[from] crate::score::ScoringError),
    /// The trace's own `metadata.canaries` is not a canary set.
    #[error("{0}")]
    Canaries(#[from] crate::analyze::CanaryError),
    /// The place is the event and field the text came from, or `the report`.
    #[error(
        "{0}: the report would contain an unpaired UTF-16 surrogate (from a \\uD800–\\uDFFF escape in the \
         trace); such text cannot be written as UTF-8 — fix the escape in the trace"
    )]
    LoneSurrogate(String),
}

/// Everything besides the trace that decides its report.
pub(crate) struct AnalysisInput<'a> {
    pub config: &'a AnalysisConfig,
    /// An explicit canary set (`--canaries FILE`, the viewer's setting). It
    /// wins over a trace's own `metadata.canaries`, which is used otherwise
    /// ([`canaries_in_force`]).
    pub canaries: Option<&'a Canaries>,
    /// Environment lookup (only `detection.llm_judge.api_key_env` is read).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `generated_at`, from the caller's clock.
    pub generated_at: String,
    /// How a span export becomes traces.
    pub span_mapping: crate::spans::SpanMapping,
}

impl<'a> AnalysisInput<'a> {
    /// `config` alone: no canary set, no environment, no clock (an empty
    /// `generated_at`) and the default span mapping.
    pub(crate) fn config_only(config: &'a AnalysisConfig) -> AnalysisInput<'a> {
        AnalysisInput {
            config,
            canaries: None,
            env: &|_| None,
            generated_at: String::new(),
            span_mapping: Default::default(),
        }
    }
}

/// The stages of turning a trace file into a report, for progress displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Reading the JSON into events.
    Parsing,
    /// Running the detectors event by event.
    Detecting,
    /// The whole-trace passes: obscured copies, coalescing, ordering.
    Linking,
    /// Scoring and building the report.
    Reporting,
}

impl Stage {
    pub fn label(self) -> &'static str {
        match self {
            Stage::Parsing => "Parsing",
            Stage::Detecting => "Detecting",
            Stage::Linking => "Linking copies",
            Stage::Reporting => "Scoring",
        }
    }

    /// The share of a whole analysis before this stage and in it, from the
    /// benchmark's phase times (100 000 events: parse 8%, detection 55%,
    /// whole-trace passes 30%, report 7%).
    fn span(self) -> (f64, f64) {
        match self {
            Stage::Parsing => (0.0, 0.08),
            Stage::Detecting => (0.08, 0.55),
            Stage::Linking => (0.63, 0.30),
            Stage::Reporting => (0.93, 0.07),
        }
    }
}

/// How far an analysis has come: a stage and the share of it done.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub stage: Stage,
    /// 0 to 1, within the stage.
    pub done: f64,
}

impl Progress {
    /// The share of the whole analysis done, 0 to 1.
    pub fn overall(self) -> f64 {
        let (before, share) = self.stage.span();
        (before + share * self.done.clamp(0.0, 1.0)).min(1.0)
    }
}

/// Detection settings a config asks for.
pub(crate) fn detection_settings(config: &AnalysisConfig) -> Result<DetectionSettings, AnalysisError> {
    let mode = config.check_runnable()?;
    let builtins = if mode.runs_regex() {
        config.detectors.iter().filter_map(|(b, on)| on.then_some(b)).collect()
    } else {
        Vec::new()
    };
    let specs: Vec<CustomRuleSpec> = config
        .custom_detectors
        .iter()
        .map(|r| {
            Ok(CustomRuleSpec {
                name: r.name.clone(),
                pattern: r.pattern.clone(),
                severity: r.severity()?,
                data_type: r.data_type.clone(),
                confidence: r.confidence,
                recommendation: r.recommendation.clone(),
            })
        })
        .collect::<Result<_, crate::config::StartupError>>()?;
    let custom = if specs.is_empty() || !mode.runs_regex() { None } else { Some(CustomDetector::new(&specs)?) };
    Ok(DetectionSettings { builtins, custom, channels: config.channels.clone() })
}

/// Whether [`crate::analyser::Analyser::analyse_trace`] gives the parsed trace back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Keep it (a viewer lists its events).
    Trace,
    /// Let it go as soon as the report stops reading it, before the
    /// findings are converted and compliance is assessed, so the trace and
    /// the finished report (27 and 45 MB for 100 000 events) are never held
    /// together.
    ReportOnly,
}

/// One trace analysed: its report, why its gate blocks (the report stores
/// the decision, not its reasons), and the trace when [`Keep::Trace`].
#[derive(Debug, Clone, PartialEq)]
pub struct TraceAnalysis {
    pub report: Report,
    pub block_reasons: Vec<BlockReason>,
    pub trace: Option<Trace>,
}

/// The size of trace from which the patterns are compiled while it is
/// parsed (where the build has threads): for a folder of small traces,
/// the shells compile them once first ([`compile_patterns`]).
const COMPILE_WHILE_PARSING: usize = 1 << 20;

/// Parses trace bytes and builds the trace's report, telling `progress`
/// how far parsing and analysis have come. Owned `bytes` are let go once
/// parsed; `keep` says whether the trace comes back.
pub(crate) fn analyse_bytes(
    bytes: Cow<'_, [u8]>,
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
    keep: Keep,
) -> Result<TraceAnalysis, LoadFileError> {
    if bytes.len() >= COMPILE_WHILE_PARSING {
        // Parsing a long trace takes longer than compiling the detectors'
        // patterns (0.1 s against 0.05 s for 20 MB): done side by side, the
        // first events need not wait for them.
        crate::detect::compile_patterns_meanwhile();
    }
    let trace = parse(bytes, progress)?;
    let ((report, block_reasons), trace) = match keep {
        Keep::Trace => (report_from_trace(&trace, input, progress)?, Some(trace)),
        Keep::ReportOnly => (report_from_owned_trace(trace, input, progress)?, None),
    };
    Ok(TraceAnalysis { report, block_reasons, trace })
}

/// A trace's report with the trace kept, as [`load_any`] analyses a trace.
pub(crate) fn analyse_keeping_trace(bytes: &[u8], input: &AnalysisInput<'_>) -> Result<(Report, Trace), LoadFileError> {
    let trace = parse(Cow::Borrowed(bytes), &|_| {})?;
    let (report, _) = report_from_trace(&trace, input, &|_| {})?;
    Ok((report, trace))
}

/// Reads a span export (`name` names its runs) and builds each run's
/// report, with the report's `span_source` saying where it came from.
pub(crate) fn analyse_span_bytes(
    name: &str,
    bytes: &[u8],
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
    keep: Keep,
) -> Result<Vec<TraceAnalysis>, LoadFileError> {
    progress(Progress { stage: Stage::Parsing, done: 0.0 });
    let runs = crate::spans::runs_from_spans(bytes, crate::spans::file_stem(name), input.span_mapping)?;
    let mut out = Vec::with_capacity(runs.len());
    for run in runs {
        let ((mut report, block_reasons), trace) = match keep {
            Keep::Trace => (report_from_trace(&run.trace, input, progress)?, Some(run.trace)),
            Keep::ReportOnly => (report_from_owned_trace(run.trace, input, progress)?, None),
        };
        report.span_source = Some(run.source);
        out.push(TraceAnalysis { report, block_reasons, trace });
    }
    Ok(out)
}

/// Parses trace bytes, telling `progress` how far it has come; owned
/// `bytes` are let go once parsed.
fn parse(bytes: Cow<'_, [u8]>, progress: &dyn Fn(Progress)) -> Result<Trace, crate::trace::TraceError> {
    progress(Progress { stage: Stage::Parsing, done: 0.0 });
    crate::trace::parse_trace_with_progress(&bytes, &|done| progress(Progress { stage: Stage::Parsing, done }))
}

/// Analyses a parsed trace and builds its report, telling `progress` how
/// far it has come; returns the report and why its gate blocks.
fn report_from_trace(
    trace: &Trace,
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
) -> Result<(Report, Vec<BlockReason>), AnalysisError> {
    draft_from_trace(trace, input, progress)?.finish_gated()
}

/// [`report_from_trace`] for a caller with no more use for the trace: it
/// is let go as soon as the report stops reading it ([`Keep::ReportOnly`]).
fn report_from_owned_trace(
    trace: Trace,
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
) -> Result<(Report, Vec<BlockReason>), AnalysisError> {
    let draft = draft_from_trace(&trace, input, progress)?;
    drop(trace);
    draft.finish_gated()
}

/// A report draft, and whether the finished report must be checked for
/// lone surrogates (see [`check_encodable`]).
struct Draft {
    draft: ReportDraft,
    check_encodable: bool,
}

impl Draft {
    /// The finished report and why its gate blocks.
    fn finish_gated(self) -> Result<(Report, Vec<BlockReason>), AnalysisError> {
        let block_reasons = self.draft.block_reasons().to_vec();
        let report = self.draft.finish();
        if self.check_encodable {
            check_encodable(&report)?;
        }
        Ok((report, block_reasons))
    }
}

#[cfg(test)]
thread_local! {
    /// How many traces this thread has analysed: every analysis of a trace
    /// passes through [`draft_from_trace`] once, so tests can show that a
    /// caller (publishing) analyses each trace only once.
    pub(crate) static TRACES_ANALYSED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Everything of the report that reads the trace.
fn draft_from_trace(
    trace: &Trace,
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
) -> Result<Draft, AnalysisError> {
    #[cfg(test)]
    TRACES_ANALYSED.with(|count| count.set(count.get() + 1));
    let config = input.config;
    let detection = detection_settings(config)?;
    let in_force = canaries_in_force(trace.metadata.as_ref(), input.canaries.map(|set| (set, "")))?;
    let canaries = in_force.as_ref().map(|(set, _)| set.as_ref());
    let events = &trace.events;
    let n = events.len();
    let on_events = |done: usize| {
        progress(if done > n {
            Progress { stage: Stage::Linking, done: 0.0 }
        } else {
            Progress { stage: Stage::Detecting, done: done as f64 / n.max(1) as f64 }
        })
    };
    progress(Progress { stage: Stage::Detecting, done: 0.0 });
    let findings = findings_from_events_observed(events, &detection, &config.scoring, canaries, &on_events);
    progress(Progress { stage: Stage::Reporting, done: 0.0 });

    let status = config.detection_status(input.env)?;
    let options = ReportOptions {
        project: config.project_name.clone(),
        scoring: config.scoring.clone(),
        redact_values: config.redact_values,
        detection: Detection {
            mode: status.mode.as_str().to_owned(),
            tiers: status.tiers.iter().map(|t| (*t).to_owned()).collect(),
            degraded: status.degraded,
        },
        warnings: status.warnings.clone(),
        generated_at: input.generated_at.clone(),
    };
    let facts = RunFacts {
        run_id: trace.run_id.clone(),
        agent_name: trace.agent_name.clone(),
        scenario_id: trace.scenario_id.clone(),
        task_success: trace.task_success,
        event_count: trace.events.len(),
    };
    let provenance = if config.privacy_policy.flows.is_empty() { HashMap::new() } else { provenance(trace, &findings) };
    let explicit_vault = config.scoring.vault.is_some();
    let draft = build_report(&facts, &trace.events, findings, &options, |risk_index, leaked| {
        let context = |f: &Finding| {
            let event = trace.events.get(f.event_index);
            let from_meta = |key: &str| event.and_then(|e| e.meta(key));
            let purpose = from_meta("purpose").map(|v| strip(&python_str(v)).to_owned()).unwrap_or_default();
            let (mut origin, mut path) =
                provenance.get(&canonical(&f.matched_value)).cloned().unwrap_or_else(|| (String::new(), Vec::new()));
            // Event metadata `origin`/`path` win over the computed provenance.
            if let Some(v) = from_meta("origin") {
                origin = python_str(v);
            }
            if let Some(PyValue::Array(items)) = from_meta("path") {
                path = items.iter().map(python_str).collect();
            }
            FlowContext { purpose, origin, path }
        };
        evaluate_policy(&config.privacy_policy, risk_index, leaked, explicit_vault, &context)
    })?;
    Ok(Draft { draft, check_encodable: holds_marker(trace, canaries) })
}

/// Provenance (spec 2.7a) per canonical finding value: the sources and
/// targets of every event (channel filter ignored) whose canonical text
/// contains the value, consecutive repeats dropped.
fn provenance(trace: &Trace, findings: &[Finding]) -> HashMap<String, (String, Vec<String>)> {
    let mut values: Vec<String> =
        findings.iter().map(|f| canonical(&f.matched_value)).filter(|v| !v.is_empty()).collect();
    crate::util::sort(&mut values);
    values.dedup();
    let mut paths: Vec<Vec<String>> = vec![Vec::new(); values.len()];
    // A contiguous NFA, not the DFA the automatic choice takes for few
    // values: building that DFA grew faster than linearly with a value's
    // length (one 60 000-character token took 9 s; found with the fuzz
    // target `trace_text`), the NFA builds in linear time.
    let automaton =
        aho_corasick::AhoCorasick::builder().kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA)).build(&values);
    if let Ok(ac) = automaton {
        for event in trace.events.iter().filter(|e| !e.text.is_empty()) {
            let text = canonical(&event.text);
            let mut hit: Vec<usize> = ac.find_overlapping_iter(&text).map(|m| m.pattern().as_usize()).collect();
            hit.sort_unstable();
            hit.dedup();
            for i in hit {
                for node in [&event.source, &event.target] {
                    if !node.is_empty() && paths[i].last().map(String::as_str) != Some(node) {
                        paths[i].push(node.to_string());
                    }
                }
            }
        }
    }
    values
        .into_iter()
        .zip(paths)
        .map(|(v, path)| {
            let origin = path.first().cloned().unwrap_or_default();
            (v, (origin, path))
        })
        .collect()
}

/// Whether any text of the trace or the canaries holds [`LONE_SURROGATE`]:
/// only those come from JSON, where a lone surrogate escape can be written,
/// so a report can only hold one when they do.
fn holds_marker(trace: &Trace, canaries: Option<&Canaries>) -> bool {
    // The marker's first UTF-8 byte (0xF4) leads only characters past
    // U+FFFFF: a quick SIMD search rules out almost every text.
    let has = |s: &str| memchr::memchr(0xF4, s.as_bytes()).is_some() && s.contains(LONE_SURROGATE);
    let value_has = |value: &PyValue| {
        let mut stack = vec![value];
        while let Some(value) = stack.pop() {
            match value {
                PyValue::Str(s) if has(s) => return true,
                PyValue::Array(items) => stack.extend(items),
                PyValue::Object(entries) => {
                    for (key, value) in entries {
                        if has(key) {
                            return true;
                        }
                        stack.push(value);
                    }
                }
                _ => {}
            }
        }
        false
    };
    let event_has = |e: &crate::trace::Event| {
        [&*e.event_id, &*e.source, &*e.target, &e.text].into_iter().any(&has)
            || e.metadata.iter().any(|(key, value)| has(key) || value_has(value))
    };
    [&trace.run_id, &trace.agent_name, &trace.subject].into_iter().any(|s| has(s))
        || trace.scenario_id.as_deref().is_some_and(has)
        || canaries.is_some_and(|c| c.obvious.iter().chain(&c.realistic).chain(&c.semantic).any(|t| has(t)))
        || trace.events.iter().any(event_has)
}

/// Compiles the built-in detectors' patterns now, several at once where the
/// build has threads (they are compiled on first use otherwise, by one
/// thread while the others wait). A caller about to analyse many traces on
/// a pool calls this on the pool first.
pub fn compile_patterns() {
    crate::detect::compile_patterns();
}

/// Compiles every built-in detector's patterns now, with the forms kept for
/// non-ASCII texts (they are compiled on first use otherwise), then analyses
/// a small trace that exercises them. A viewer calls this while it waits for
/// its first file. Returns the detectors that found something (all six,
/// unless a pattern broke).
pub fn warm_up() -> Vec<String> {
    crate::detect::compile_all();
    const TRACE: &[u8] = br#"{"events": [
        {"channel": "tool_call", "content": {"email": "ana.lima@example.org", "ssn": "123-45-6789",
         "card": "4111 1111 1111 1111", "iban": "DE44500105175407324931", "api_key": "sk-proj-abcdefghijklmnopqrstuv",
         "diagnosis": "type 2 diabetes", "salary": "$85,000", "note": "Ym9iQGV4YW1wbGUuY29t"}},
        {"channel": "log", "content": "moc.elpmaxe@amil.ana nan.yvzn@rknzcyr.bet 123 45 6789"}]}"#;
    let config = AnalysisConfig::default();
    let input = AnalysisInput::config_only(&config);
    let mut detectors: Vec<String> = match load_any(TRACE, false, &input, &|_| {}) {
        Ok(Loaded::Trace { report, .. }) => report.findings.iter().map(|f| f.detector.to_string()).collect(),
        _ => Vec::new(),
    };
    crate::util::sort(&mut detectors);
    detectors.dedup();
    detectors
}

/// The reference crashes writing a report that holds a lone surrogate; we
/// refuse it with a message instead. The report is serialised into a probe
/// that only looks for the marker, so no copy of it is held.
fn check_encodable(report: &Report) -> Result<(), AnalysisError> {
    let mut probe = MarkerProbe::default();
    if serde_json::to_writer(&mut probe, report).is_ok() && !probe.found {
        return Ok(());
    }
    let place = report
        .findings
        .iter()
        .find_map(|f| {
            [("source", &*f.source), ("target", &*f.target), ("redacted value", f.redacted_value.as_str())]
                .into_iter()
                .find(|(_, v)| v.contains(LONE_SURROGATE))
                .map(|(what, _)| format!("event {}, {what} (finding {})", f.event_id, f.finding_id))
        })
        .unwrap_or_else(|| "the report".to_owned());
    Err(AnalysisError::LoneSurrogate(place))
}

/// An `io::Write` that notes whether [`LONE_SURROGATE`]'s UTF-8 bytes were
/// written, also across the boundary of two writes.
#[derive(Default)]
struct MarkerProbe {
    found: bool,
    /// The last bytes written (at most the marker's length less one).
    tail: [u8; 3],
    tail_len: usize,
}

impl std::io::Write for MarkerProbe {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        const MARKER: &[u8] = "\u{10FFFE}".as_bytes();
        const KEEP: usize = MARKER.len() - 1;
        if self.found {
            return Ok(buf.len());
        }
        let mut seam = [0; 2 * KEEP];
        let head = buf.len().min(KEEP);
        seam[..self.tail_len].copy_from_slice(&self.tail[..self.tail_len]);
        seam[self.tail_len..self.tail_len + head].copy_from_slice(&buf[..head]);
        let seam = &seam[..self.tail_len + head];
        self.found = memchr::memmem::find(seam, MARKER).is_some() || memchr::memmem::find(buf, MARKER).is_some();
        let last = if buf.len() >= KEEP { &buf[buf.len() - KEEP..] } else { &seam[seam.len().saturating_sub(KEEP)..] };
        self.tail_len = last.len();
        self.tail[..last.len()].copy_from_slice(last);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What a dropped or named file turned out to be, once loaded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Loaded {
    /// An AgentLeak report, with its re-scoring (its gate settings unknown).
    Report { report: Box<Report>, rescore: crate::report::Rescore },
    /// A trace, analysed here: the report we computed for it, and why its
    /// gate blocks (the report stores the decision, not its reasons).
    Trace { report: Box<Report>, trace: Box<Trace>, block_reasons: Vec<BlockReason> },
}

/// Why a file could not be loaded; `Display` names the place and the problem.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadFileError {
    #[error("{0}")]
    Report(#[from] crate::report::LoadError),
    #[error("{0}")]
    Trace(#[from] crate::trace::TraceError),
    #[error("{0}")]
    Analysis(#[from] AnalysisError),
    #[error("{0}")]
    Spans(#[from] crate::spans::SpanError),
}

/// Loads a report (`report`: [`crate::batch::detect_kind`] said so, a JSON
/// object whose `report` member is `"agentleak"`) or else a trace (so a
/// trace's own errors are what the user sees for other JSON). `progress`
/// hears how far a trace's analysis has come (a report is read at once and
/// reports nothing).
pub(crate) fn load_any(
    bytes: &[u8],
    report: bool,
    input: &AnalysisInput<'_>,
    progress: &dyn Fn(Progress),
) -> Result<Loaded, LoadFileError> {
    if report {
        let report = crate::report::load_report(bytes)?;
        // A report file does not say which gate it was made with.
        let rescore = crate::report::rescore_report_with_gate(
            &report,
            &input.config.scoring,
            crate::report::GateSettings::Unknown,
        );
        return Ok(Loaded::Report { report: Box::new(report), rescore });
    }
    let trace = parse(Cow::Borrowed(bytes), progress)?;
    let (report, block_reasons) = report_from_trace(&trace, input, progress)?;
    Ok(Loaded::Trace { report: Box::new(report), trace: Box::new(trace), block_reasons })
}

/// A cheap look at the top level: the member `"report": "agentleak"`
/// (reports write it first; a report re-saved with sorted keys has it
/// further in). Deciding costs no full parse.
pub(crate) fn looks_like_report(bytes: &[u8]) -> bool {
    crate::util::has_top_level(bytes, "report", "agentleak")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn warming_up_runs_every_builtin_detector() {
        let mut names = crate::detect::Builtin::ALL.map(crate::detect::Builtin::name);
        names.sort_unstable();
        assert_eq!(warm_up(), names);
    }

    #[test]
    fn progress_rises_through_the_stages_to_one() {
        let mut doc = String::from(r#"{"events": ["#);
        for i in 0..5000 {
            if i > 0 {
                doc.push(',');
            }
            doc.push_str(&format!(
                r#"{{"channel": "log", "content": "user{i}@example.com padding {}"}}"#,
                "x".repeat(40)
            ));
        }
        doc.push_str("]}");
        let seen = std::cell::RefCell::new(Vec::new());
        let config = AnalysisConfig::default();
        let input = AnalysisInput::config_only(&config);
        let loaded = load_any(doc.as_bytes(), false, &input, &|p| seen.borrow_mut().push(p)).unwrap();
        let seen = seen.into_inner();
        let stages: Vec<Stage> = seen.iter().map(|p| p.stage).collect();
        for stage in [Stage::Parsing, Stage::Detecting, Stage::Linking, Stage::Reporting] {
            assert!(stages.contains(&stage), "{stage:?} never reported");
        }
        // Several reports within detection, and the overall share never falls.
        assert!(stages.iter().filter(|s| **s == Stage::Detecting).count() >= 5);
        assert!(seen.windows(2).all(|w| w[0].overall() <= w[1].overall()), "{seen:?}");
        assert!(seen.iter().all(|p| (0.0..=1.0).contains(&p.overall())));
        assert_eq!(Progress { stage: Stage::Reporting, done: 1.0 }.overall(), 1.0);
        let Loaded::Trace { report, trace, .. } = loaded else { panic!("not read as a trace") };
        assert_eq!(report.event_count, 5000);

        // The CLI's variant, which lets the trace go early, reports the
        // same stages after parsing and gives the same report.
        let owned_seen = std::cell::RefCell::new(Vec::new());
        let (owned, _) = report_from_owned_trace(*trace, &input, &|p| owned_seen.borrow_mut().push(p)).unwrap();
        assert_eq!(owned, *report);
        let after_parsing: Vec<Progress> = seen.into_iter().filter(|p| p.stage != Stage::Parsing).collect();
        assert_eq!(owned_seen.into_inner(), after_parsing);
    }

    /// Fuzzing regression (`trace_text`): provenance for a flow rule built
    /// an Aho–Corasick DFA over the leaked values, which took seconds for
    /// one long token (60 000 characters: 9 s, and far more at 200 000).
    /// The provenance is still right, and comes at once.
    #[test]
    fn provenance_of_a_very_long_token_is_quick() {
        let token = "a".repeat(200_000);
        let doc = serde_json::json!({"events": [
            {"channel": "user_input", "source": "patient", "target": "agent", "content": format!("bearer {token}")},
            {"channel": "log", "source": "agent", "target": "stdout", "content": format!("auth: Bearer {token}")},
        ]});
        let trace = crate::trace::parse_trace(&serde_json::to_vec(&doc).unwrap()).unwrap();
        let yaml = "privacy_policy:\n  flows:\n    - data_type: \"*\"\n      to: stdout\n      deny: true\n";
        let config = crate::config::config_from_yaml(yaml).unwrap();
        let input = AnalysisInput::config_only(&config);
        let started = std::time::Instant::now();
        let (report, _) = report_from_trace(&trace, &input, &|_| {}).unwrap();
        // Linear work takes well under a second even in a debug build; the
        // bound is loose for a busy machine.
        assert!(started.elapsed().as_secs() < 10, "took {:?}", started.elapsed());
        let flows = report.privacy_policy.and_then(|p| p.flows).unwrap();
        let violation = flows.violations.iter().find(|v| v.data_type == "bearer_token").unwrap();
        assert_eq!((violation.sender.as_str(), violation.recipient.as_str()), ("agent", "stdout"));
        assert_eq!(violation.origin, "patient");
        assert_eq!(violation.path, ["patient", "agent", "stdout"]);
    }

    /// An obscured copy belongs to its own event, also when events before
    /// it were skipped (empty, or on an unscanned channel): a flow rule
    /// reads that event's `purpose` (spec 2.6 step 5: the copy carries its
    /// event's metadata). It once read the event at the copy's position
    /// among the scanned events instead.
    #[test]
    fn an_obscured_copy_reads_its_own_events_purpose() {
        let doc = serde_json::json!({"events": [
            {"channel": "log", "content": ""},
            {"channel": "final_output", "source": "agent", "target": "user",
             "content": "Reach me at alice.walker@example.org"},
            {"channel": "final_output", "source": "agent", "target": "user",
             "content": "gro.elpmaxe@reklaw.ecila", "metadata": {"purpose": "marketing"}},
        ]});
        let trace = crate::trace::parse_trace(&serde_json::to_vec(&doc).unwrap()).unwrap();
        let yaml = "privacy_policy:\n  flows:\n    - data_type: \"*\"\n      for: marketing\n      deny: true\n";
        let config = crate::config::config_from_yaml(yaml).unwrap();
        let input = AnalysisInput::config_only(&config);
        let (report, _) = report_from_trace(&trace, &input, &|_| {}).unwrap();
        let copy = report.findings.iter().find(|f| f.event_id.as_ref() == "evt_003").unwrap();
        assert!(copy.recommendation.contains("reversed"), "{}", copy.recommendation);
        let flows = report.privacy_policy.and_then(|p| p.flows).unwrap();
        let denied: Vec<(&str, &str)> =
            flows.violations.iter().map(|v| (v.finding_id.as_str(), v.purpose.as_str())).collect();
        assert_eq!(denied, [(copy.finding_id.as_str(), "marketing")]);
    }

    /// The obscured-copy pass searches stretches of events apart (on
    /// several threads natively) and target groups apart: copies whose
    /// value was seen in clear one stretch or more before, and split
    /// copies in two groups, are found on their own events.
    #[test]
    fn obscured_copies_are_found_across_stretches_and_groups() {
        let filler = |n: usize| (0..n).map(|i| serde_json::json!({"channel": "log", "content": format!("step {i}")}));
        fn say(target: &str, content: &str) -> serde_json::Value {
            serde_json::json!({
                "channel": "inter_agent_message", "source": "agent", "target": target, "content": content,
            })
        }
        let mut events =
            vec![say("user", "Reach me at alice.walker@example.org, account 12345678901, account 98765432109")];
        events.extend(filler(5000));
        events.push(say("user", "gro.elpmaxe@reklaw.ecila"));
        events.extend(filler(5000));
        events.push(say("user", "nyvpr.jnyxre@rknzcyr.bet"));
        events.extend([say("bank", "part one 123456"), say("bank", "part two 78901")]);
        events.extend([say("shop", "part one 987654"), say("shop", "part two 32109")]);
        let doc = serde_json::json!({ "events": events });
        let trace = crate::trace::parse_trace(&serde_json::to_vec(&doc).unwrap()).unwrap();
        let config = AnalysisConfig::default();
        let input = AnalysisInput::config_only(&config);
        let (report, _) = report_from_trace(&trace, &input, &|_| {}).unwrap();
        let mut copies: Vec<(&str, &str)> = report
            .findings
            .iter()
            .filter_map(|f| {
                Some((f.event_id.as_ref(), f.recommendation.split_once(" reappears ")?.1.split_once(';')?.0))
            })
            .collect();
        copies.sort();
        assert_eq!(
            copies,
            [
                ("evt_10003", "ROT13-rotated"),
                ("evt_10005", "split across messages (evt_10004, evt_10005)"),
                ("evt_10007", "split across messages (evt_10006, evt_10007)"),
                ("evt_5002", "reversed"),
            ]
        );
    }

    #[test]
    fn the_marker_probe_sees_the_marker_split_over_writes() {
        let marker = LONE_SURROGATE.to_string();
        let bytes = format!("ab{marker}cd");
        let bytes = bytes.as_bytes();
        for cuts in [vec![], vec![3], vec![2, 3, 4, 5], vec![1, 4]] {
            let mut probe = MarkerProbe::default();
            let mut from = 0;
            for cut in cuts.into_iter().chain([bytes.len()]) {
                probe.write_all(&bytes[from..cut]).unwrap();
                from = cut;
            }
            assert!(probe.found);
        }
        let mut probe = MarkerProbe::default();
        probe.write_all("\u{10FFFD}\u{10FFFF}x".as_bytes()).unwrap();
        assert!(!probe.found);
    }
}
