//! Trace parsing (spec 1.1–1.2), the Python-compatible JSON reader
//! ([`json`]), and flattening of event content to searchable text
//! ([`flatten()`], spec 1.4).
//!
//! [`parse_trace`] turns the bytes of a trace file into a typed [`Trace`],
//! accepting exactly what the reference accepts: `json.load`, then its
//! `from_dict` (defaults, auto event ids, Python `dict()` over each event),
//! then pydantic's lax-mode validation (`lax.rs` holds the coercions). It
//! leaves detection, scoring and report building to the modules that own
//! them; the only derived value it computes is each event's flattened text.
//!
//! Deliberate differences from the reference: a UTF-8 byte order mark is
//! skipped (more permissive), and nesting deeper than [`MAX_NESTING`] levels,
//! where the reference crashes with a `RecursionError`, is refused with its
//! place (see [`json`]).

pub mod flatten;
pub mod json;
mod lax;

pub use flatten::{flatten, humanise_key};
pub use json::{parse_json, utf16_hint, utf8_text, JsonError, PyValue, LONE_SURROGATE, MAX_INT_DIGITS, MAX_NESTING};
pub use lax::is_valid_timestamp;

use crate::model::Channel;
use std::borrow::Cow;
use std::sync::Arc;

/// One agent run, as the reference reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    pub run_id: String,
    pub agent_name: String,
    pub scenario_id: Option<String>,
    pub subject: String,
    pub task_success: Option<bool>,
    pub events: Vec<Event>,
    /// The top-level `metadata` object, when there is one. The reference
    /// ignores it; batches read red-team data from it (`batch` docs).
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
}

/// One observable event of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// As written, or `evt_NNN` (1-based position) when absent or falsy;
    /// not necessarily unique. Shared: findings and report entries refer
    /// to it without copying it.
    pub event_id: Arc<str>,
    pub channel: Channel,
    /// Kept verbatim (untrimmed). A trace names few agents and tools over
    /// many events, so equal names are one shared allocation.
    pub source: Arc<str>,
    pub target: Arc<str>,
    /// Boxed rather than `Vec`/`String`: held for every event of a trace
    /// for the whole analysis, never grown (16 bytes an event less).
    pub metadata: Box<[(String, PyValue)]>,
    /// `content` flattened to the text detectors scan (spec 1.4).
    pub text: Box<str>,
}

impl Event {
    /// A key of the metadata (keys are unique after parsing).
    pub fn meta(&self, key: &str) -> Option<&PyValue> {
        self.metadata.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The metadata's `transform` when truthy, in Python `str()` spelling:
    /// the findings read from this event's own text carry it.
    pub fn metadata_transform(&self) -> Option<String> {
        self.meta("transform").filter(|v| v.is_truthy()).map(python_str)
    }
}

/// Python `str()` of a metadata value.
pub fn python_str(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => s.clone(),
        other => flatten(&PyValue::Array(vec![other.clone()])),
    }
}

/// The channel names as the messages list them.
const CHANNEL_NAMES: &str =
    "user_input, final_output, inter_agent_message, shared_memory, tool_call, tool_response, log, generated_file";
const TIMESTAMP_FORMS: &str = "an ISO-8601 date-time such as 2024-01-31T12:00:00Z, a date such as 2024-01-31, \
                               or Unix seconds";

/// Why a trace file cannot be read. `place` is where in the document the
/// problem is: a top-level key (`run_id`) or an event field
/// (`events[3].channel`, 0-based like the array it indexes).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TraceError {
    #[error("line {line}, column {column}: invalid JSON: {message}")]
    Json { line: usize, column: usize, message: String },
    #[error("top level: a trace must be a JSON object with an \"events\" array, but the file holds {found}")]
    NotAnObject { found: String },
    #[error("{place}: expected {expected}, found {found}")]
    WrongType { place: String, expected: &'static str, found: String },
    #[error("{place}: missing; every event needs a channel, one of {CHANNEL_NAMES}")]
    MissingChannel { place: String },
    #[error("{place}: unknown channel {found} (expected one of {CHANNEL_NAMES}, spelled exactly)")]
    UnknownChannel { place: String, found: String },
    #[error("{place}: {found} is not a boolean (use true, false, null, 0, 1, or \"yes\"/\"no\")")]
    NotABool { place: String, found: String },
    #[error("{place}: {found} is not a valid timestamp (use {TIMESTAMP_FORMS}, or leave it out)")]
    BadTimestamp { place: String, found: String },
    #[error("{place}: cannot be read as an event: {reason}")]
    BadEvent { place: String, reason: String },
}

impl From<JsonError> for TraceError {
    fn from(e: JsonError) -> Self {
        TraceError::Json { line: e.line, column: e.column, message: e.message }
    }
}

/// Parses and validates a trace file.
///
/// Events are validated as the parser reads them, so no event is ever held
/// both as a JSON tree and as an [`Event`]. The errors still come out in the
/// reference's order: JSON syntax first, then the first event that is not a
/// dict (the reference converts every element before validating any field),
/// then the top-level fields, then the first event with a bad field.
pub fn parse_trace(bytes: &[u8]) -> Result<Trace, TraceError> {
    parse_trace_with_progress(bytes, &|_| {})
}

/// [`parse_trace`], telling `progress` the share of the bytes read (0 to 1)
/// about a hundred times over a large file.
pub fn parse_trace_with_progress(bytes: &[u8], progress: &dyn Fn(f64)) -> Result<Trace, TraceError> {
    let mut read = ReadEvents::default();
    let mut names = Names::default();
    let step = (bytes.len() / 100).max(1 << 16);
    let mut next_report = step;
    let mut on_event = |index: usize, element: PyValue, at: usize| {
        read.add(index, element, &mut names);
        if at >= next_report {
            progress(at as f64 / bytes.len() as f64);
            next_report = at + step;
        }
    };
    let document = json::parse_json_with_events(bytes, &mut on_event)?;
    let mut top = into_entries(document).map_err(|other| TraceError::NotAnObject { found: describe(&other) })?;
    let (events, field_error) = match take_field(&mut top, "events") {
        None => (Vec::new(), None),
        // Non-empty: its elements went to `read` (a later `events` key
        // restarts `read` at index 0, and the last one is what stays).
        Some(PyValue::Array(ref items)) if !items.is_empty() => {
            if let Some(e) = read.dict_error {
                return Err(e);
            }
            (read.events, read.field_error)
        }
        Some(value) => {
            let mut events = Vec::new();
            let mut field_error = None;
            let mut fields_of = Vec::new();
            for (index, element) in event_sequence(value)?.into_iter().enumerate() {
                fields_of.push(dict_of_event(index, element)?);
            }
            for (index, fields) in fields_of.into_iter().enumerate() {
                match event_from_fields(index, fields, &mut names) {
                    Ok(event) => events.push(event),
                    Err(e) => {
                        field_error = Some(e);
                        break;
                    }
                }
            }
            (events, field_error)
        }
    };

    let run_id = string_field(&mut top, "run_id", "run", || "run_id".to_owned())?;
    let agent_name = string_field(&mut top, "agent_name", "unknown_agent", || "agent_name".to_owned())?;
    let scenario_id = match take_field(&mut top, "scenario_id") {
        None | Some(PyValue::Null) => None,
        Some(value) => Some(into_string(value).map_err(|other| wrong_type("scenario_id", "a string or null", &other))?),
    };
    let subject = string_field(&mut top, "subject", "", || "subject".to_owned())?;
    let task_success = match take_field(&mut top, "task_success") {
        None => None,
        Some(value) => lax::lax_bool(&value)
            .map_err(|()| TraceError::NotABool { place: "task_success".into(), found: describe(&value) })?,
    };
    check_timestamp(take_field(&mut top, "timestamp"), || "timestamp".into())?;
    let metadata = match take_field(&mut top, "metadata").map(|m| m.to_json()) {
        Some(serde_json::Value::Object(map)) => Some(map),
        _ => None,
    };

    if let Some(e) = field_error {
        return Err(e);
    }
    // The list grew by doubling: up to half of it would stay unused.
    let mut events = events;
    events.shrink_to_fit();
    Ok(Trace { run_id, agent_name, scenario_id, subject, task_success, events, metadata })
}

/// The events of a top-level `events` array, validated as the parser hands
/// them over, with the first error of each kind kept for later.
#[derive(Default)]
struct ReadEvents {
    events: Vec<Event>,
    dict_error: Option<TraceError>,
    field_error: Option<TraceError>,
}

impl ReadEvents {
    fn add(&mut self, index: usize, element: PyValue, names: &mut Names) {
        if index == 0 {
            *self = ReadEvents::default();
        }
        // After the first non-dict element only a JSON error can still
        // change the outcome; after the first bad field, only a non-dict.
        if self.dict_error.is_some() {
            return;
        }
        match dict_of_event(index, element) {
            Err(e) => self.dict_error = Some(e),
            Ok(fields) if self.field_error.is_none() => match event_from_fields(index, fields, names) {
                Ok(event) => self.events.push(event),
                Err(e) => {
                    self.field_error = Some(e);
                    self.events = Vec::new();
                }
            },
            Ok(_) => {}
        }
    }
}

/// The elements of the `events` value. The reference iterates it as Python
/// does and turns each element into a dict: an object yields its keys and a
/// string its characters, strings that no `dict()` accepts, so any non-empty
/// one fails (edge_events_not_list) — and an empty object or string is an
/// empty event list. (That last point follows from the iteration; no corpus
/// case pins it.)
fn event_sequence(value: PyValue) -> Result<Vec<PyValue>, TraceError> {
    let mut value = value;
    match &mut value {
        PyValue::Array(items) => Ok(std::mem::take(items)),
        PyValue::Object(entries) if entries.is_empty() => Ok(Vec::new()),
        PyValue::Str(s) if s.is_empty() => Ok(Vec::new()),
        other => Err(TraceError::WrongType {
            place: "events".into(),
            expected: "an array of event objects",
            found: describe(other),
        }),
    }
}

/// Python `dict(element)`: an object is itself; an array is read as
/// `[key, value]` pairs (any two-item iterable: a 2-item array, a 2-character
/// string, a 2-key object). Only string keys can name event fields, so the
/// others are dropped once checked to be hashable.
fn dict_of_event(index: usize, element: PyValue) -> Result<Vec<(String, PyValue)>, TraceError> {
    let place = || format!("events[{index}]");
    let mut element = element;
    let items = match &mut element {
        PyValue::Object(entries) => return Ok(std::mem::take(entries)),
        PyValue::Array(items) => std::mem::take(items),
        PyValue::Str(s) if s.is_empty() => return Ok(Vec::new()),
        PyValue::Str(s) => {
            return Err(TraceError::BadEvent {
                place: place(),
                reason: format!("it is the string {} (an event must be an object)", quoted(s)),
            })
        }
        other => {
            return Err(TraceError::WrongType { place: place(), expected: "an event object", found: describe(other) })
        }
    };
    let mut fields = Vec::with_capacity(items.len());
    for (pair_index, mut item) in items.into_iter().enumerate() {
        let pair_error = |reason: String| TraceError::BadEvent {
            place: place(),
            reason: format!("item {pair_index} of this array is not a [key, value] pair: {reason}"),
        };
        let (key, value) = match &mut item {
            PyValue::Array(pair) if pair.len() == 2 => {
                let mut pair = std::mem::take(pair).into_iter();
                match (pair.next(), pair.next()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(pair_error("it does not have two items".into())),
                }
            }
            PyValue::Str(s) if s.chars().count() == 2 => {
                let mut chars = s.chars().map(|c| PyValue::Str(c.to_string()));
                match (chars.next(), chars.next()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(pair_error("it does not have two items".into())),
                }
            }
            PyValue::Object(keys) if keys.len() == 2 => {
                let mut keys = std::mem::take(keys).into_iter().map(|(k, _)| PyValue::Str(k));
                match (keys.next(), keys.next()) {
                    (Some(k), Some(v)) => (k, v),
                    _ => return Err(pair_error("it does not have two items".into())),
                }
            }
            PyValue::Array(pair) => return Err(pair_error(format!("it has {} items", pair.len()))),
            PyValue::Str(s) => return Err(pair_error(format!("it has {} characters", s.chars().count()))),
            PyValue::Object(keys) => return Err(pair_error(format!("it is an object with {} keys", keys.len()))),
            other => return Err(pair_error(format!("it is {}", describe(other)))),
        };
        match into_string(key) {
            Ok(name) => fields.push((name, value)),
            Err(key) if key.is_container() => {
                return Err(pair_error(format!("its key is {}, which cannot be a key", describe(&key))))
            }
            Err(_) => {}
        }
    }
    Ok(fields)
}

/// The trace's source and target names, each held once.
#[derive(Default)]
struct Names(crate::util::FxSet<Arc<str>>);

impl Names {
    fn get(&mut self, name: String) -> Arc<str> {
        if let Some(known) = self.0.get(name.as_str()) {
            return known.clone();
        }
        let name: Arc<str> = Arc::from(name);
        self.0.insert(name.clone());
        name
    }
}

fn event_from_fields(index: usize, mut fields: Vec<(String, PyValue)>, names: &mut Names) -> Result<Event, TraceError> {
    let place = |field: &str| format!("events[{index}].{field}");

    // Falsy ids ("", 0, false, null, [], {}) are replaced before validation.
    let event_id = match take_field(&mut fields, "event_id") {
        Some(value) if value.is_truthy() => {
            into_string(value).map_err(|other| wrong_type(&place("event_id"), "a string", &other))?
        }
        _ => format!("evt_{:03}", index + 1),
    };
    let event_id = Arc::from(event_id);
    let channel = match take_field(&mut fields, "channel") {
        None => return Err(TraceError::MissingChannel { place: place("channel") }),
        Some(value) => match value.as_str().and_then(Channel::from_name) {
            Some(channel) => channel,
            None => return Err(TraceError::UnknownChannel { place: place("channel"), found: describe(&value) }),
        },
    };
    // Places are formatted only for an error (not twice per event).
    let source = names.get(string_field(&mut fields, "source", "unknown", || place("source"))?);
    let target = names.get(string_field(&mut fields, "target", "unknown", || place("target"))?);
    let content = match take_field(&mut fields, "content") {
        None => PyValue::Str(String::new()),
        Some(value @ (PyValue::Str(_) | PyValue::Array(_) | PyValue::Object(_))) => value,
        Some(other) => return Err(wrong_type(&place("content"), "a string, an object or an array", &other)),
    };
    let metadata = match take_field(&mut fields, "metadata") {
        None => Vec::new(),
        Some(value) => {
            let entries = into_entries(value).map_err(|other| wrong_type(&place("metadata"), "an object", &other))?;
            // The parser's list grew by doubling (4 slots for one key); it
            // is kept for the whole analysis, at its length.
            entries
        }
    };
    check_timestamp(take_field(&mut fields, "timestamp"), || place("timestamp"))?;
    let text = match content {
        // A string is its own text: moved, not copied.
        PyValue::Str(_) => into_string(content).unwrap_or_default(),
        other => flatten(&other),
    };
    Ok(Event { event_id, channel, source, target, metadata: metadata.into_boxed_slice(), text: text.into_boxed_str() })
}

/// Removes and returns the value of `key`; for repeated keys (possible in an
/// event given as pairs) the last one, as a Python dict keeps.
fn take_field(fields: &mut [(String, PyValue)], key: &str) -> Option<PyValue> {
    fields.iter_mut().rev().find(|(k, _)| k == key).map(|(_, v)| std::mem::take(v))
}

/// A string field with a default; present values must be strings (pydantic
/// does not coerce numbers or null to text).
fn string_field(
    fields: &mut [(String, PyValue)],
    key: &str,
    default: &str,
    place: impl FnOnce() -> String,
) -> Result<String, TraceError> {
    match take_field(fields, key) {
        None => Ok(default.to_owned()),
        Some(value) => into_string(value).map_err(|other| wrong_type(&place(), "a string", &other)),
    }
}

// `PyValue` has an iterative `Drop`, so its fields are taken, not moved out.
fn into_string(mut value: PyValue) -> Result<String, PyValue> {
    if let PyValue::Str(s) = &mut value {
        return Ok(std::mem::take(s));
    }
    Err(value)
}

fn into_entries(mut value: PyValue) -> Result<Vec<(String, PyValue)>, PyValue> {
    if let PyValue::Object(entries) = &mut value {
        return Ok(std::mem::take(entries));
    }
    Err(value)
}

fn check_timestamp(value: Option<PyValue>, place: impl FnOnce() -> String) -> Result<(), TraceError> {
    match value {
        Some(value) if !is_valid_timestamp(&value) => {
            Err(TraceError::BadTimestamp { place: place(), found: describe(&value) })
        }
        _ => Ok(()),
    }
}

fn wrong_type(place: &str, expected: &'static str, found: &PyValue) -> TraceError {
    TraceError::WrongType { place: place.to_owned(), expected, found: describe(found) }
}

/// A short description of a value for error messages.
fn describe(value: &PyValue) -> String {
    match value {
        PyValue::Null => "null".into(),
        PyValue::Bool(b) => b.to_string(),
        PyValue::Int(digits) => format!("the number {}", shortened(digits)),
        PyValue::Float(x) => format!("the number {}", crate::util::py_float_repr(*x)),
        PyValue::Str(s) => format!("the string {}", quoted(s)),
        PyValue::Array(items) => format!("an array of {}", counted(items.len(), "item")),
        PyValue::Object(entries) => format!("an object with {}", counted(entries.len(), "key")),
    }
}

fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

fn quoted(s: &str) -> String {
    format!("{:?}", shortened(s))
}

/// Long values are cut in messages (the message must stay readable).
fn shortened(s: &str) -> Cow<'_, str> {
    const LIMIT: usize = 60;
    match s.char_indices().nth(LIMIT) {
        Some((cut, _)) => Cow::Owned(format!("{}…", s.get(..cut).unwrap_or(s))),
        None => Cow::Borrowed(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(doc: &str) -> Result<Trace, TraceError> {
        parse_trace(doc.as_bytes())
    }

    fn error(doc: &str) -> String {
        match parse(doc) {
            Ok(trace) => panic!("expected an error, parsed {trace:?}"),
            Err(e) => e.to_string(),
        }
    }

    /// Fuzzing regression (`trace_pipeline`, `batch_file`): a deeply
    /// nested top-level `metadata` overflowed the stack while it was turned
    /// into JSON; now containers past [`json::MAX_JSON_DEPTH`] levels are null.
    #[test]
    fn deep_top_level_metadata_is_cut_at_the_json_depth_limit() {
        let depth = json::MAX_NESTING - 3;
        let doc = format!(
            r#"{{"metadata": {{"a": {}{}, "attack_class_id": "F1.1"}}, "events": []}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let trace = parse_trace(doc.as_bytes()).unwrap();
        let metadata = trace.metadata.as_ref().unwrap();
        assert_eq!(metadata["attack_class_id"], "F1.1");
        let (mut value, mut levels) = (&metadata["a"], 1);
        while let Some(inner) = value.as_array().and_then(|items| items.first()) {
            value = inner;
            levels += 1;
        }
        assert_eq!((levels, value), (json::MAX_JSON_DEPTH, &serde_json::Value::Null));
    }

    #[test]
    fn defaults_fill_a_minimal_trace() {
        let trace = parse(r#"{"events": [{"channel": "log"}]}"#).unwrap();
        assert_eq!(
            (trace.run_id.as_str(), trace.agent_name.as_str(), trace.scenario_id, trace.subject.as_str()),
            ("run", "unknown_agent", None, "")
        );
        assert_eq!(trace.task_success, None);
        let event = &trace.events[0];
        assert_eq!((&*event.event_id, event.channel), ("evt_001", Channel::Log));
        assert_eq!((&*event.source, &*event.target), ("unknown", "unknown"));
        assert_eq!(&*event.text, "");
        assert!(event.metadata.is_empty());
        assert!(parse("{}").unwrap().events.is_empty());
    }

    #[test]
    fn fields_are_read() {
        let trace = parse(
            r#"{"run_id": "r1", "agent_name": "bot", "scenario_id": "s9", "subject": "p-42",
                "task_success": "yes", "timestamp": 1700000000, "ignored": [1],
                "events": [{"event_id": "e1", "channel": "tool_call", "source": " agent ", "target": "api",
                            "content": {"user_email": "a@b.io"}, "metadata": {"purpose": "billing"},
                            "timestamp": "2026-03-01", "extra": true}]}"#,
        )
        .unwrap();
        assert_eq!((trace.run_id.as_str(), trace.agent_name.as_str()), ("r1", "bot"));
        assert_eq!((trace.scenario_id.as_deref(), trace.subject.as_str()), (Some("s9"), "p-42"));
        assert_eq!(trace.task_success, Some(true));
        let e = &trace.events[0];
        assert_eq!((&*e.event_id, e.channel, &*e.source), ("e1", Channel::ToolCall, " agent "));
        assert_eq!(&*e.text, "user email: a@b.io");
        assert_eq!(&*e.metadata, [("purpose".to_owned(), PyValue::Str("billing".into()))]);
    }

    #[test]
    fn event_ids_are_numbered_by_position_when_absent_or_falsy() {
        let mut doc = String::from(r#"{"events": ["#);
        for i in 0..1000 {
            let id = match i {
                1 => r#""event_id": "", "#,
                2 => r#""event_id": 0, "#,
                3 => r#""event_id": null, "#,
                4 => r#""event_id": false, "#,
                5 => r#""event_id": [], "#,
                6 => r#""event_id": "custom_7", "#,
                7 => r#""event_id": 0.0, "#,
                _ => "",
            };
            doc.push_str(&format!(r#"{}{{{id}"channel": "log"}}"#, if i > 0 { "," } else { "" }));
        }
        doc.push_str("]}");
        let trace = parse(&doc).unwrap();
        let ids: Vec<&str> = trace.events.iter().map(|e| &*e.event_id).collect();
        assert_eq!(
            &ids[..9],
            ["evt_001", "evt_002", "evt_003", "evt_004", "evt_005", "evt_006", "custom_7", "evt_008", "evt_009"]
        );
        assert_eq!(ids[99], "evt_100");
        assert_eq!(ids[999], "evt_1000");
    }

    #[test]
    fn events_given_as_pairs_are_objects() {
        let trace = parse(
            r#"{"events": [[["channel", "log"], ["content", {"a": 1}], ["channel", "final_output"], [1, "x"], "ab"],
                           [{"channel": 0, "log": 0}]]}"#,
        )
        .unwrap();
        assert_eq!(trace.events[0].channel, Channel::FinalOutput, "the last repeated key wins");
        assert_eq!(&*trace.events[0].text, "a: 1");
        // A two-key object is a pair of its keys: {"channel": …, "log": …} sets channel=log.
        assert_eq!(trace.events[1].channel, Channel::Log);
        assert!(error(r#"{"events": [[["channel", "log", 3]]]}"#).contains("events[0]: cannot be read as an event"));
        assert!(error(r#"{"events": [[[["k"], "log"]]]}"#).contains("cannot be a key"));
        assert!(error(r#"{"events": [[5]]}"#).contains("item 0 of this array"));
    }

    #[test]
    fn events_value_is_iterated_like_python() {
        assert!(parse(r#"{"events": {}}"#).unwrap().events.is_empty());
        assert!(parse(r#"{"events": ""}"#).unwrap().events.is_empty());
        assert!(parse(r#"{"events": []}"#).unwrap().events.is_empty());
        assert_eq!(
            error(r#"{"events": {"a": 1}}"#),
            "events: expected an array of event objects, found an object with 1 key"
        );
        assert_eq!(error(r#"{"events": "ab"}"#), "events: expected an array of event objects, found the string \"ab\"");
        assert_eq!(error(r#"{"events": null}"#), "events: expected an array of event objects, found null");
        assert_eq!(error(r#"{"events": 3}"#), "events: expected an array of event objects, found the number 3");
        assert_eq!(error(r#"{"events": [null]}"#), "events[0]: expected an event object, found null");
        assert!(error(r#"{"events": [""]}"#).starts_with("events[0].channel: missing"));
    }

    #[test]
    fn streamed_events_keep_the_reference_error_order_and_last_key_wins() {
        // A non-dict element (events[1]) wins over an earlier bad field.
        assert!(error(r#"{"events": [{"channel": "nope"}, "abc"]}"#).starts_with("events[1]: cannot be read"));
        // Top-level fields are checked before event fields...
        assert!(error(r#"{"run_id": 5, "events": [{"channel": "nope"}]}"#).starts_with("run_id: expected a string"));
        // ...but after every element became a dict.
        assert!(error(r#"{"run_id": 5, "events": ["abc"]}"#).starts_with("events[0]: cannot be read"));
        // JSON syntax errors come first of all.
        assert!(error(r#"{"events": ["abc"], "x": tru}"#).contains("invalid JSON"));
        // A repeated `events` key: the last value is the one read.
        let last = |doc: &str| parse(doc).unwrap().events.iter().map(|e| e.event_id.to_string()).collect::<Vec<_>>();
        assert_eq!(
            last(r#"{"events": [{"channel": "nope"}], "events": [{"channel": "log", "event_id": "b"}]}"#),
            ["b"]
        );
        assert!(last(r#"{"events": [{"channel": "log"}], "events": []}"#).is_empty());
        assert!(last(r#"{"events": [{"channel": "log"}], "events": {}}"#).is_empty());
        assert_eq!(
            last(
                r#"{"events": [{"channel": "log", "event_id": "a"}, {"channel": "log"}], "events": [{"channel": "log"}]}"#
            ),
            ["evt_001"]
        );
    }

    #[test]
    fn validation_errors_name_the_place() {
        assert_eq!(
            error(r#"{"events": [{"channel": "log"}, {"channel": "log"}, {"channel": "log"}, {"channel": "foo"}]}"#),
            "events[3].channel: unknown channel the string \"foo\" (expected one of user_input, final_output, \
             inter_agent_message, shared_memory, tool_call, tool_response, log, generated_file, spelled exactly)"
        );
        assert!(error(r#"{"events": [{"channel": "Tool_Call"}]}"#).starts_with("events[0].channel: unknown channel"));
        assert!(error(r#"{"events": [{"channel": 5}]}"#).starts_with("events[0].channel: unknown channel the number 5"));
        assert!(error(r#"{"events": [{"content": "x"}]}"#).starts_with("events[0].channel: missing"));
        assert_eq!(error(r#"{"run_id": 123}"#), "run_id: expected a string, found the number 123");
        assert_eq!(error(r#"{"run_id": null}"#), "run_id: expected a string, found null");
        assert_eq!(error(r#"{"agent_name": ["x"]}"#), "agent_name: expected a string, found an array of 1 item");
        assert_eq!(error(r#"{"scenario_id": 1.5}"#), "scenario_id: expected a string or null, found the number 1.5");
        assert_eq!(
            error(r#"{"events": [{"channel": "log", "event_id": 5}]}"#),
            "events[0].event_id: expected a string, found the number 5"
        );
        assert_eq!(
            error(r#"{"events": [{"channel": "log", "source": null}]}"#),
            "events[0].source: expected a string, found null"
        );
        assert_eq!(
            error(r#"{"events": [{"channel": "log", "target": 7}]}"#),
            "events[0].target: expected a string, found the number 7"
        );
        for (content, found) in
            [("true", "true"), ("null", "null"), ("4111111111111111", "the number 4111111111111111")]
        {
            assert_eq!(
                error(&format!(r#"{{"events": [{{"channel": "log", "content": {content}}}]}}"#)),
                format!("events[0].content: expected a string, an object or an array, found {found}")
            );
        }
        assert_eq!(
            error(r#"{"events": [{"channel": "log", "metadata": "oops"}]}"#),
            "events[0].metadata: expected an object, found the string \"oops\""
        );
        assert!(error(r#"{"task_success": 2}"#).starts_with("task_success: the number 2 is not a boolean"));
        assert!(error(r#"{"events": [{"channel": "log", "timestamp": "yesterday"}]}"#)
            .starts_with("events[0].timestamp: the string \"yesterday\" is not a valid timestamp"));
        assert!(error(r#"{"timestamp": null}"#).starts_with("timestamp: null is not a valid timestamp"));
    }

    #[test]
    fn top_level_and_json_errors() {
        assert_eq!(
            error("[1, 2]"),
            "top level: a trace must be a JSON object with an \"events\" array, but the file holds an array of 2 items"
        );
        assert!(error("\"x\"").contains("holds the string \"x\""));
        assert_eq!(
            error("{\n  \"events\": [\n    {\"channel\": \"log\",}\n  ]\n}"),
            "line 3, column 23: invalid JSON: expected an object key in double quotes"
        );
        assert_eq!(error(r#"{"run_id": "edge_bad", "events": ["#), "line 1, column 35: invalid JSON: expected a value");
    }

    #[test]
    fn nesting_beyond_the_bound_is_an_error_wherever_it_is() {
        let deep = |depth: usize| format!("{}null{}", "{\"m\": ".repeat(depth), "}".repeat(depth));
        let msg = error(&format!(r#"{{"events": [{{"channel": "log", "content": {}}}]}}"#, deep(100_000)));
        assert!(msg.contains("more than 20000 levels deep"), "{msg}");
        // Content 10 000 levels deep is read (the issue's floor), flattened
        // and dropped without recursion.
        let trace = parse(&format!(r#"{{"events": [{{"channel": "log", "content": {}}}]}}"#, deep(10_000))).unwrap();
        assert!(trace.events[0].text.starts_with("m: m: m: "));
    }

    #[test]
    fn task_success_coercion() {
        for (doc, want) in [("true", Some(true)), ("0", Some(false)), ("\"off\"", Some(false)), ("null", None)] {
            assert_eq!(parse(&format!(r#"{{"task_success": {doc}}}"#)).unwrap().task_success, want, "{doc}");
        }
    }

    #[test]
    fn long_values_are_shortened_in_messages() {
        let long = "x".repeat(500);
        let msg = error(&format!(r#"{{"events": [{{"channel": "{long}"}}]}}"#));
        assert!(msg.len() < 300, "{msg}");
        assert!(msg.contains(&format!("\"{}…\"", "x".repeat(60))));
    }

    #[test]
    fn lone_surrogates_parse_into_the_marker() {
        let trace =
            parse(r#"{"events": [{"channel": "log", "source": "\ud83d", "content": "bad \ud83d mail"}]}"#).unwrap();
        assert_eq!(&*trace.events[0].source, LONE_SURROGATE.to_string());
        assert_eq!(&*trace.events[0].text, format!("bad {LONE_SURROGATE} mail"));
        assert!(error(r#"{"events": [{"channel": "lo\ud83d"}]}"#).contains("unknown channel"));
    }
}
