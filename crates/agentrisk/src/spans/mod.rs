//! OpenTelemetry span exports read as AgentLeak traces: OTLP/JSON
//! (`ExportTraceServiceRequest`), OTLP JSON Lines (the collector's `file`
//! exporter) and JSON lists of span dicts (OpenInference, Phoenix, the OTel
//! SDK's `ReadableSpan.to_json()`), told apart by content ([`sniff`]).
//!
//! Reading ([`read_spans`]) turns a file into raw spans, in file order. Two
//! mappings turn spans into traces:
//!
//! * [`SpanMapping::Structural`] (the default, [`structural`]): one trace per
//!   conversation, channels chosen from the span tree, the time order and
//!   each span's role — what the agent really disclosed, and to whom
//!   (`docs/spans.md` has the rules).
//! * [`SpanMapping::Reference`] ([`mod@reference`]): exactly what the reference's
//!   `trace_from_spans` makes of the file, quirks included, for parity.

mod read;
pub mod reference;
mod repr;
pub mod structural;
mod time;

pub use crate::model::{SpanFormat, SpanMapping, SpanSource};
pub use read::{read_spans, sniff, SpanInput};
pub use repr::py_str;

use crate::trace::{PyValue, Trace};

/// One span, normalised from any of the shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    /// Lower-case hex when the export gave hex (OTLP/JSON), base64 (the
    /// plain proto3 JSON mapping) or `0x…` (the SDK's `to_json`); as
    /// written otherwise.
    pub trace_id: String,
    pub span_id: String,
    /// `None` for a root (no parent id, or an empty one).
    pub parent_id: Option<String>,
    pub name: String,
    /// Nanoseconds since the Unix epoch; 0 when the export gives none that
    /// can be read (file order then decides).
    pub start: u64,
    pub end: u64,
    /// Flattened attributes in export order, keys unique (a repeated key
    /// keeps its first place and its last value, as a Python dict does).
    pub attributes: Vec<(String, PyValue)>,
    pub events: Vec<SpanEvent>,
    /// Position in the file.
    pub order: usize,
}

impl Span {
    pub fn attr(&self, key: &str) -> Option<&PyValue> {
        self.attributes.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A string attribute that is not empty.
    pub fn text(&self, key: &str) -> Option<&str> {
        self.attr(key).and_then(PyValue::as_str).filter(|s| !s.is_empty())
    }
}

/// An event inside a span (an exception, a log line).
#[derive(Debug, Clone, PartialEq)]
pub struct SpanEvent {
    pub name: String,
    pub time: u64,
    pub attributes: Vec<(String, PyValue)>,
}

/// A trace made from spans, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SpanRun {
    pub trace: Trace,
    pub source: SpanSource,
}

/// Why a span file cannot be read. `Display` names the place and the
/// problem; callers add the file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpanError {
    #[error("{place}line {line}, column {column}: invalid JSON: {message}")]
    Json { place: String, line: usize, column: usize, message: String },
    #[error(
        "this is binary OTLP (protobuf), which cannot be read here; export OTLP JSON instead (the OpenTelemetry \
         Collector's file exporter with format: json, or OTEL_EXPORTER_OTLP_PROTOCOL=http/json)"
    )]
    Protobuf,
    #[error("{place}: {problem}")]
    Shape { place: String, problem: String },
    #[error("no spans: nothing was analysed (the export holds no span)")]
    NoSpans,
}

/// Reads a span file and maps it to runs. `stem` names the runs (the file
/// name without its last extension, as Python's `Path.stem`).
pub fn runs_from_spans(bytes: &[u8], stem: &str, mapping: SpanMapping) -> Result<Vec<SpanRun>, SpanError> {
    let input = read_spans(bytes)?;
    if input.raw.is_empty() {
        return Err(SpanError::NoSpans);
    }
    Ok(match mapping {
        SpanMapping::Reference => {
            let spans = input.raw.len() as u64;
            let trace = reference::trace_from_spans(&input.raw, stem);
            let source = SpanSource { format: input.format, mapping, spans, conversation: None };
            vec![SpanRun { trace, source }]
        }
        SpanMapping::Structural => structural::traces(&read::normalise(input.raw)?, stem)
            .into_iter()
            .map(|(trace, spans, conversation)| SpanRun {
                trace,
                source: SpanSource { format: input.format, mapping, spans, conversation },
            })
            .collect(),
    })
}

/// Python's `Path(name).stem`: the last path part without its last
/// extension (`runs/a.otlp.json` → `a.otlp`; `.hidden` stays).
pub fn file_stem(name: &str) -> &str {
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.rfind('.') {
        Some(dot) if dot > 0 && dot + 1 < base.len() => &base[..dot],
        _ => base,
    }
}

/// A run id made safe as a file name: anything but letters, digits, `.`,
/// `_` and `-` becomes `_`.
pub fn safe_file_stem(run_id: &str) -> String {
    let safe: String =
        run_id.chars().map(|c| if c.is_alphanumeric() || matches!(c, '.' | '_' | '-') { c } else { '_' }).collect();
    if safe.is_empty() || safe == "." || safe == ".." {
        "run".to_owned()
    } else {
        safe
    }
}

/// A trace as an AgentLeak trace file (indented JSON): what the reference
/// reads with `agentleak run -t`. Event content is the event's text; each
/// event keeps its metadata (the span it came from).
pub fn trace_json(trace: &Trace) -> String {
    use serde_json::{json, Map, Value};
    let events: Vec<Value> = trace
        .events
        .iter()
        .map(|e| {
            // Inserted one by one: collecting would sort with a copy of the sort of its own.
            let mut metadata = Map::new();
            for (k, v) in &e.metadata {
                metadata.insert(k.clone(), v.to_json());
            }
            json!({
                "event_id": &*e.event_id,
                "channel": e.channel.as_str(),
                "source": &*e.source,
                "target": &*e.target,
                "content": &*e.text,
                "metadata": metadata,
            })
        })
        .collect();
    let mut top = Map::new();
    top.insert("run_id".into(), Value::from(trace.run_id.clone()));
    top.insert("agent_name".into(), Value::from(trace.agent_name.clone()));
    if let Some(scenario) = &trace.scenario_id {
        top.insert("scenario_id".into(), Value::from(scenario.clone()));
    }
    top.insert("events".into(), Value::Array(events));
    serde_json::to_string_pretty(&Value::Object(top)).unwrap_or_default()
}

#[cfg(test)]
mod tests;
