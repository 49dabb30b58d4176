//! Where a run made from OpenTelemetry spans came from: the export's shape
//! and the mapping that made its events (`crate::spans` does the reading).
//! A report carries it as `span_source`; the reference has no such field,
//! so a report of an AgentLeak trace never has it.

use serde::{Deserialize, Serialize};

/// How spans become trace events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SpanMapping {
    /// By the span tree and each span's role (the default).
    #[default]
    Structural,
    /// As the reference's `trace_from_spans` does, for parity.
    Reference,
}

impl SpanMapping {
    pub fn as_str(self) -> &'static str {
        match self {
            SpanMapping::Structural => "structural",
            SpanMapping::Reference => "reference",
        }
    }

    /// `structural` or `reference`, as a flag or option names it.
    pub fn from_name(name: &str) -> Option<SpanMapping> {
        match name {
            "structural" => Some(SpanMapping::Structural),
            "reference" => Some(SpanMapping::Reference),
            _ => None,
        }
    }
}

/// What a run made from spans says about where it came from; the report
/// carries it (`span_source`), so every shell can say which mapping made
/// the numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SpanSource {
    /// The export's shape: `otlp_json`, `otlp_json_lines` or `span_list`.
    pub format: SpanFormat,
    pub mapping: SpanMapping,
    /// The spans this run was made from.
    pub spans: u64,
    /// The conversation (session id, or the first 8 digits of the trace
    /// id) when the file holds several; `None` when it is the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
}

/// The shape of a span export.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SpanFormat {
    /// One OTLP/JSON `ExportTraceServiceRequest`.
    OtlpJson,
    /// OTLP JSON Lines: one request per line.
    OtlpJsonLines,
    /// A JSON list of span objects with flattened attributes.
    SpanList,
    /// Binary OTLP (protobuf): recognised, to be refused with advice.
    Protobuf,
}

impl SpanFormat {
    pub fn label(self) -> &'static str {
        match self {
            SpanFormat::OtlpJson => "OTLP JSON",
            SpanFormat::OtlpJsonLines => "OTLP JSON Lines",
            SpanFormat::SpanList => "span list",
            SpanFormat::Protobuf => "binary OTLP",
        }
    }
}
