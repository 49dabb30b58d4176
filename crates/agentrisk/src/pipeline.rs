//! The one way from a trace to its report: parse → analyse → score →
//! report. The CLI, the worker and the tests all call [`report_from_trace`].

use crate::analyze::{findings_from_events, Canaries, DetectionSettings, EventText, Finding};
use crate::config::AnalysisConfig;
use crate::detect::{Builtin, CustomDetector, CustomRuleSpec};
use crate::model::{Detection, Report};
use crate::pyunicode::{canonical, strip};
use crate::report::policy::{evaluate_policy, FlowContext};
use crate::report::{build_report, ReportOptions, RunFacts};
use crate::trace::{PyValue, Trace, LONE_SURROGATE};
use std::collections::HashMap;

/// Why a trace could not be turned into a report (after it parsed).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    #[error("{0}")]
    Startup(#[from] crate::config::StartupError),
    #[error("{0}")]
    CustomRule(String),
    #[error("{0}")]
    Scoring(#[from] crate::score::ScoringError),
    #[error(
        "the report would contain an unpaired UTF-16 surrogate (from a \\uD800–\\uDFFF escape in the trace) \
         in {0}; such text cannot be written as UTF-8 — fix the escape in the trace"
    )]
    LoneSurrogate(String),
}

/// Everything besides the trace that decides its report.
pub struct AnalysisInput<'a> {
    pub config: &'a AnalysisConfig,
    pub canaries: Option<&'a Canaries>,
    /// Environment lookup (only `detection.llm_judge.api_key_env` is read).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `generated_at`, from the caller's clock.
    pub generated_at: String,
}

/// Detection settings a config asks for.
pub fn detection_settings(config: &AnalysisConfig) -> Result<DetectionSettings, AnalysisError> {
    let mode = config.check_runnable()?;
    let t = &config.detectors;
    let toggles = [t.pii, t.secrets, t.healthcare, t.finance, t.hr, t.keyname];
    let builtins = if mode.runs_regex() {
        Builtin::ALL.into_iter().zip(toggles).filter_map(|(b, on)| on.then_some(b)).collect()
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
    let custom = if specs.is_empty() || !mode.runs_regex() {
        None
    } else {
        Some(CustomDetector::new(&specs).map_err(AnalysisError::CustomRule)?)
    };
    Ok(DetectionSettings { builtins, custom, channels: config.channels.clone() })
}

/// Python `str()` of a metadata value, for the truthy-`transform` rule.
fn python_str(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => s.clone(),
        other => crate::trace::flatten(&PyValue::Array(vec![other.clone()])),
    }
}

/// A key of an event's metadata (keys are unique after parsing).
fn meta<'e>(event: &'e crate::trace::Event, key: &str) -> Option<&'e PyValue> {
    event.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Analyses a parsed trace and builds its report.
pub fn report_from_trace(trace: &Trace, input: &AnalysisInput<'_>) -> Result<Report, AnalysisError> {
    let config = input.config;
    let detection = detection_settings(config)?;
    let events: Vec<EventText<'_>> = trace
        .events
        .iter()
        .map(|e| EventText {
            event_id: &e.event_id,
            channel: e.channel,
            source: &e.source,
            target: &e.target,
            text: &e.text,
            metadata_transform: meta(e, "transform").filter(|v| v.is_truthy()).map(python_str),
        })
        .collect();
    let findings = findings_from_events(&events, &detection, &config.scoring, input.canaries);

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
    let report = build_report(&facts, &findings, &options, |risk_index, leaked| {
        let context = |f: &Finding| {
            let event = trace.events.get(f.event_index);
            let from_meta = |key: &str| event.and_then(|e| meta(e, key));
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
    if holds_marker(trace, input.canaries) {
        check_encodable(&report)?;
    }
    Ok(report)
}

/// Provenance (spec 2.7a) per canonical finding value: the sources and
/// targets of every event (channel filter ignored) whose canonical text
/// contains the value, consecutive repeats dropped.
fn provenance(trace: &Trace, findings: &[Finding]) -> HashMap<String, (String, Vec<String>)> {
    let mut values: Vec<String> =
        findings.iter().map(|f| canonical(&f.matched_value)).filter(|v| !v.is_empty()).collect();
    values.sort();
    values.dedup();
    let mut paths: Vec<Vec<String>> = vec![Vec::new(); values.len()];
    if let Ok(ac) = aho_corasick::AhoCorasick::new(&values) {
        for event in trace.events.iter().filter(|e| !e.text.is_empty()) {
            let text = canonical(&event.text);
            let mut hit: Vec<usize> = ac.find_overlapping_iter(&text).map(|m| m.pattern().as_usize()).collect();
            hit.sort_unstable();
            hit.dedup();
            for i in hit {
                for node in [&event.source, &event.target] {
                    if !node.is_empty() && paths[i].last() != Some(node) {
                        paths[i].push(node.clone());
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
    let has = |s: &str| s.contains(LONE_SURROGATE);
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
        [&e.event_id, &e.source, &e.target, &e.text].into_iter().any(|s| has(s))
            || e.metadata.iter().any(|(key, value)| has(key) || value_has(value))
    };
    [&trace.run_id, &trace.agent_name, &trace.subject].into_iter().any(|s| has(s))
        || trace.scenario_id.as_deref().is_some_and(has)
        || canaries.is_some_and(|c| c.obvious.iter().chain(&c.realistic).chain(&c.semantic).any(|t| has(t)))
        || trace.events.iter().any(event_has)
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
            [("source", &f.source), ("target", &f.target), ("redacted value", &f.redacted_value)]
                .into_iter()
                .find(|(_, v)| v.contains(LONE_SURROGATE))
                .map(|(what, _)| format!("the {what} of {} ({})", f.finding_id, f.event_id))
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
pub enum Loaded {
    /// An AgentLeak report, with its re-scoring.
    Report { report: Box<Report>, rescore: crate::report::Rescore },
    /// A trace, analysed here: the report we computed for it.
    Trace { report: Box<Report>, trace: Box<Trace> },
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
}

/// Loads a report or a trace, told apart by content: a JSON object whose
/// `report` key is `"agentleak"` is a report; anything else is read as a
/// trace (so a trace's own errors are what the user sees for other JSON).
pub fn load_any(bytes: &[u8], input: &AnalysisInput<'_>) -> Result<Loaded, LoadFileError> {
    if looks_like_report(bytes) {
        let report = crate::report::load_report(bytes)?;
        let rescore = crate::report::rescore_report(&report, &input.config.scoring);
        return Ok(Loaded::Report { report: Box::new(report), rescore });
    }
    let trace = crate::trace::parse_trace(bytes)?;
    let report = report_from_trace(&trace, input)?;
    Ok(Loaded::Trace { report: Box::new(report), trace: Box::new(trace) })
}

/// A cheap look at the top level: `"report": "agentleak"` among the first
/// keys (reports write it first). Deciding costs no full parse.
fn looks_like_report(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(4096)];
    let text = String::from_utf8_lossy(head);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact.trim_start_matches('\u{FEFF}').starts_with("{\"report\":\"agentleak\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

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
