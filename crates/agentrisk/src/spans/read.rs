//! A span file's bytes → its spans: which export shape it is ([`sniff`]),
//! the raw span values in file order (what the reference mapping reads)
//! and, for the structural mapping, [`Span`]s normalised from any shape.

use super::{time, Span, SpanError, SpanEvent, SpanFormat};
use crate::trace::{parse_json, JsonError, PyValue};

/// A span file read: its shape and its spans as raw values, in file order
/// (OTLP: resource by resource, scope by scope).
#[derive(Debug, Clone, PartialEq)]
pub struct SpanInput {
    pub format: SpanFormat,
    pub raw: Vec<PyValue>,
}

/// Whether `bytes` are a span export, and which shape, from their first
/// bytes (no full parse):
///
/// * a JSON object whose first key is `resourceSpans` is OTLP JSON (JSON
///   Lines when its first line is a whole request and more follow);
/// * a JSON array whose first element is an object with a span's keys
///   (`context`, `span_id`/`spanId`, `parent_id`, `trace_id`/`traceId`)
///   or `attributes` is a span list;
/// * bytes that start as an OTLP protobuf message does (field 1,
///   length-delimited) and are not text are binary OTLP.
pub fn sniff(bytes: &[u8]) -> Option<SpanFormat> {
    if looks_like_protobuf(bytes) {
        return Some(SpanFormat::Protobuf);
    }
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = skip_space(text);
    match text.first() {
        Some(b'{') => {
            let rest = skip_space(&text[1..]);
            rest.starts_with(b"\"resourceSpans\"").then_some(SpanFormat::OtlpJson)
        }
        Some(b'[') => {
            let rest = skip_space(&text[1..]);
            if !rest.starts_with(b"{") {
                return None;
            }
            let head = &rest[..rest.len().min(4096)];
            let has = |needle: &[u8]| memchr::memmem::find(head, needle).is_some();
            let span_keys = [&b"\"span_id\""[..], b"\"spanId\"", b"\"parent_id\"", b"\"context\""];
            let trace_keys = [&b"\"trace_id\""[..], b"\"traceId\"", b"\"context\""];
            let spanlike = span_keys.iter().any(|k| has(k)) && trace_keys.iter().any(|k| has(k));
            ((spanlike || has(b"\"attributes\"")) && !has(b"\"attack_class_id\"")).then_some(SpanFormat::SpanList)
        }
        _ => None,
    }
}

fn skip_space(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(bytes.len());
    &bytes[start..]
}

/// An object's entries, or the value back (a `PyValue` cannot be
/// destructured by move: it has its own `Drop`).
fn entries(mut value: PyValue) -> Result<Vec<(String, PyValue)>, PyValue> {
    match &mut value {
        PyValue::Object(entries) => Ok(std::mem::take(entries)),
        _ => Err(value),
    }
}

/// An array's items, or the value back.
fn items(mut value: PyValue) -> Result<Vec<PyValue>, PyValue> {
    match &mut value {
        PyValue::Array(items) => Ok(std::mem::take(items)),
        _ => Err(value),
    }
}

/// An OTLP `ExportTraceServiceRequest` in protobuf starts with field 1
/// (`resource_spans`, tag byte 0x0A) and a varint length; text files never
/// start with a line feed followed by binary.
fn looks_like_protobuf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(256)];
    head.first() == Some(&0x0A)
        && head.len() > 2
        && head.iter().any(|&b| b < 0x09 || (0x0E..0x20).contains(&b) || std::str::from_utf8(head).is_err())
}

/// Reads a span file's spans, in file order.
pub fn read_spans(bytes: &[u8]) -> Result<SpanInput, SpanError> {
    match sniff(bytes) {
        Some(SpanFormat::Protobuf) => Err(SpanError::Protobuf),
        Some(SpanFormat::SpanList) => {
            let document = parse_json(bytes).map_err(|e| json_error("", e))?;
            match items(document) {
                Ok(raw) => Ok(SpanInput { format: SpanFormat::SpanList, raw }),
                Err(other) => Err(shape("top level", format!("expected a list of spans, found {}", other.type_name()))),
            }
        }
        Some(SpanFormat::OtlpJson | SpanFormat::OtlpJsonLines) => read_otlp(bytes),
        None => Err(shape(
            "top level",
            "not a span export (expected an OTLP JSON object with resourceSpans, OTLP JSON Lines, or a list of spans)"
                .into(),
        )),
    }
}

/// OTLP JSON, or JSON Lines when the first line is a whole request and
/// something follows it. Lines are parsed one at a time, so a large
/// export is never held as one tree.
fn read_otlp(bytes: &[u8]) -> Result<SpanInput, SpanError> {
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let first_end = memchr::memchr(b'\n', body).unwrap_or(body.len());
    let lines =
        first_end < body.len() && !skip_space(&body[first_end..]).is_empty() && parse_json(&body[..first_end]).is_ok();
    let mut raw = Vec::new();
    if !lines {
        let document = parse_json(bytes).map_err(|e| json_error("", e))?;
        spans_of_request(document, "", &mut raw)?;
        return Ok(SpanInput { format: SpanFormat::OtlpJson, raw });
    }
    for (index, line) in body.split(|&b| b == b'\n').enumerate() {
        if skip_space(line).is_empty() {
            continue;
        }
        let place = format!("line {}: ", index + 1);
        let document = parse_json(line).map_err(|e| SpanError::Json {
            place: String::new(),
            line: index + 1,
            column: e.column,
            message: e.message,
        })?;
        spans_of_request(document, &place, &mut raw)?;
    }
    Ok(SpanInput { format: SpanFormat::OtlpJsonLines, raw })
}

fn json_error(place: &str, e: JsonError) -> SpanError {
    SpanError::Json { place: place.to_owned(), line: e.line, column: e.column, message: e.message }
}

fn shape(place: &str, problem: String) -> SpanError {
    SpanError::Shape { place: place.to_owned(), problem }
}

/// The spans of one request, moved out of its tree: `resourceSpans[]` →
/// `scopeSpans[]` (or, when that is missing or empty, the legacy
/// `instrumentationLibrarySpans[]`) → `spans[]`, as the reference walks them.
fn spans_of_request(document: PyValue, place: &str, out: &mut Vec<PyValue>) -> Result<(), SpanError> {
    let top = entries(document).map_err(|other| {
        shape(&format!("{place}top level"), format!("expected an object, found {}", other.type_name()))
    })?;
    let resources = match take(top, "resourceSpans") {
        None => return Ok(()),
        Some(value) => list(value, &format!("{place}resourceSpans"))?,
    };
    for (r, resource) in resources.into_iter().enumerate() {
        let at = format!("{place}resourceSpans[{r}]");
        let resource = entries(resource)
            .map_err(|other| shape(&at, format!("expected an object, found {}", other.type_name())))?;
        let mut scope_spans = Vec::new();
        let mut legacy = Vec::new();
        for (key, value) in resource {
            match key.as_str() {
                "scopeSpans" => scope_spans = list(value, &format!("{at}.scopeSpans"))?,
                "instrumentationLibrarySpans" => legacy = list(value, &format!("{at}.instrumentationLibrarySpans"))?,
                _ => {}
            }
        }
        let (scopes, key) =
            if scope_spans.is_empty() { (legacy, "instrumentationLibrarySpans") } else { (scope_spans, "scopeSpans") };
        for (s, scope) in scopes.into_iter().enumerate() {
            let at = format!("{at}.{key}[{s}]");
            let scope = entries(scope)
                .map_err(|other| shape(&at, format!("expected an object, found {}", other.type_name())))?;
            if let Some(spans) = take(scope, "spans") {
                out.extend(list(spans, &format!("{at}.spans"))?);
            }
        }
    }
    Ok(())
}

fn take(entries: Vec<(String, PyValue)>, key: &str) -> Option<PyValue> {
    entries.into_iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

/// A list, or nothing for null.
fn list(value: PyValue, place: &str) -> Result<Vec<PyValue>, SpanError> {
    match items(value) {
        Ok(items) => Ok(items),
        Err(PyValue::Null) => Ok(Vec::new()),
        Err(other) => Err(shape(place, format!("expected a list, found {}", other.type_name()))),
    }
}

/// The spans normalised, for the structural mapping; a span that is not
/// an object is an error naming its place.
pub fn normalise(raw: Vec<PyValue>) -> Result<Vec<Span>, SpanError> {
    raw.into_iter().enumerate().map(|(order, value)| normalise_span(order, value)).collect()
}

fn normalise_span(order: usize, value: PyValue) -> Result<Span, SpanError> {
    let fields = entries(value)
        .map_err(|other| shape(&format!("span {order}"), format!("expected an object, found {}", other.type_name())))?;
    let mut span = Span {
        trace_id: String::new(),
        span_id: String::new(),
        parent_id: None,
        name: String::new(),
        start: 0,
        end: 0,
        attributes: Vec::new(),
        events: Vec::new(),
        order,
    };
    for (key, value) in fields {
        match key.as_str() {
            "traceId" | "trace_id" => span.trace_id = id(&value),
            "spanId" | "span_id" => span.span_id = id(&value),
            "parentSpanId" | "parent_id" | "parent_span_id" | "parentId" => {
                span.parent_id = Some(id(&value)).filter(|p| !p.is_empty());
            }
            "context" => {
                if let Some(v) = value.get("trace_id").or_else(|| value.get("traceId")) {
                    span.trace_id = id(v);
                }
                if let Some(v) = value.get("span_id").or_else(|| value.get("spanId")) {
                    span.span_id = id(v);
                }
            }
            "name" => span.name = value.as_str().map(str::to_owned).unwrap_or_else(|| super::py_str(&value)),
            "startTimeUnixNano" | "start_time" => span.start = time::nanos(&value),
            "endTimeUnixNano" | "end_time" => span.end = time::nanos(&value),
            "attributes" => span.attributes = attributes(value),
            "events" => {
                if let Ok(events) = items(value) {
                    span.events = events.into_iter().filter_map(event).collect();
                }
            }
            _ => {}
        }
    }
    Ok(span)
}

fn event(value: PyValue) -> Option<SpanEvent> {
    let fields = entries(value).ok()?;
    let mut event = SpanEvent { name: String::new(), time: 0, attributes: Vec::new() };
    for (key, value) in fields {
        match key.as_str() {
            "name" => event.name = value.as_str().unwrap_or_default().to_owned(),
            "timeUnixNano" | "timestamp" | "time" => event.time = time::nanos(&value),
            "attributes" => event.attributes = attributes(value),
            _ => {}
        }
    }
    Some(event)
}

/// Attributes as a flat list: an OTLP key/value list with its `AnyValue`s
/// unwrapped, or an object (nested objects, as some exports write them,
/// flattened to dotted keys). A repeated key keeps its first place and its
/// last value.
pub(super) fn attributes(value: PyValue) -> Vec<(String, PyValue)> {
    let mut out: Vec<(String, PyValue)> = Vec::new();
    let mut put = |key: String, value: PyValue| match out.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = value,
        None => out.push((key, value)),
    };
    match items(value).map_err(entries) {
        Ok(list) => {
            for item in list {
                if let Ok(fields) = entries(item) {
                    let mut key = None;
                    let mut value = PyValue::Null;
                    for (k, v) in fields {
                        match k.as_str() {
                            "key" => key = Some(v),
                            "value" => value = otlp_value(v),
                            _ => {}
                        }
                    }
                    if let Some(PyValue::Str(key)) = &key {
                        put(key.clone(), value);
                    }
                }
            }
        }
        Err(Ok(fields)) => {
            let mut stack: Vec<(String, PyValue)> = fields.into_iter().rev().collect();
            while let Some((key, value)) = stack.pop() {
                match entries(value) {
                    Ok(inner) if !inner.is_empty() => {
                        stack.extend(inner.into_iter().rev().map(|(k, v)| (format!("{key}.{k}"), v)));
                    }
                    Ok(_) => put(key, PyValue::Object(Vec::new())),
                    Err(value) => put(key, value),
                }
            }
        }
        Err(Err(_)) => {}
    }
    out
}

/// An OTLP `AnyValue` unwrapped as the reference does: string, bool and
/// double as they are, `intValue` as Python's `int()` reads it (kept as
/// written when it cannot), arrays and key/value lists recursively; any
/// other value (`bytesValue`, an empty value) stays the object it is.
pub(super) fn otlp_value(value: PyValue) -> PyValue {
    let fields = match entries(value) {
        Ok(fields) => fields,
        Err(value) => return value,
    };
    let find = |key: &str| fields.iter().position(|(k, _)| k == key);
    for key in ["stringValue", "boolValue", "doubleValue"] {
        if let Some(i) = find(key) {
            return fields.into_iter().nth(i).map(|(_, v)| v).unwrap_or_default();
        }
    }
    if let Some(i) = find("intValue") {
        let raw = fields.into_iter().nth(i).map(|(_, v)| v).unwrap_or_default();
        return python_int(&raw).map(PyValue::Int).unwrap_or(raw);
    }
    if let Some(i) = find("arrayValue") {
        let inner = fields.into_iter().nth(i).map(|(_, v)| v).unwrap_or_default();
        return PyValue::Array(values_of(inner).into_iter().map(otlp_value).collect());
    }
    if let Some(i) = find("kvlistValue") {
        let inner = fields.into_iter().nth(i).map(|(_, v)| v).unwrap_or_default();
        let mut out: Vec<(String, PyValue)> = Vec::new();
        for kv in values_of(inner) {
            let key = kv.get("key").map(|k| k.as_str().map_or_else(|| super::py_str(k), str::to_owned));
            let value = kv.get("value").cloned().map(otlp_value).unwrap_or_default();
            let key = key.unwrap_or_else(|| "None".to_owned());
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => out.push((key, value)),
            }
        }
        return PyValue::Object(out);
    }
    PyValue::Object(fields)
}

/// `{"values": [...]}` → the list (missing: empty).
fn values_of(value: PyValue) -> Vec<PyValue> {
    entries(value).ok().and_then(|fields| take(fields, "values")).and_then(|v| items(v).ok()).unwrap_or_default()
}

/// Python `int(x)` for what an `intValue` holds: a JSON integer, a string
/// of digits (surrounding whitespace, a sign and single `_` between digits
/// allowed), a float (truncated), a bool; `None` where `int()` raises.
fn python_int(value: &PyValue) -> Option<String> {
    let canonical = |negative: bool, digits: &str| {
        let digits = digits.trim_start_matches('0');
        match (digits.is_empty(), negative) {
            (true, _) => "0".to_owned(),
            (false, true) => format!("-{digits}"),
            (false, false) => digits.to_owned(),
        }
    };
    match value {
        PyValue::Int(digits) => Some(digits.clone()),
        PyValue::Bool(b) => Some(if *b { "1" } else { "0" }.to_owned()),
        PyValue::Float(x) if x.is_finite() => {
            let t = x.trunc();
            if t.abs() < 1e18 {
                Some(format!("{}", t as i64))
            } else {
                Some(format!("{t:.0}"))
            }
        }
        PyValue::Str(s) => {
            let s = s.trim_matches(crate::pyunicode::is_space);
            let (negative, body) = match s.as_bytes().first() {
                Some(b'-') => (true, &s[1..]),
                Some(b'+') => (false, &s[1..]),
                _ => (false, s),
            };
            let parts: Vec<&str> = body.split('_').collect();
            let ok = !body.is_empty() && parts.iter().all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
            ok.then(|| canonical(negative, &parts.concat()))
        }
        _ => None,
    }
}

/// A trace or span id as lower-case hex: `0x…` and hex as they are, base64
/// (16 or 8 bytes) decoded; anything else as written.
fn id(value: &PyValue) -> String {
    let text = match value {
        PyValue::Str(s) => s.as_str(),
        PyValue::Null => return String::new(),
        other => return super::py_str(other),
    };
    let text = text.strip_prefix("0x").unwrap_or(text);
    if text.len() % 2 == 0 && !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return text.to_ascii_lowercase();
    }
    use base64::Engine;
    match base64::engine::general_purpose::STANDARD.decode(text) {
        Ok(bytes) if bytes.len() == 16 || bytes.len() == 8 => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_every_spelling_come_out_as_hex() {
        let s = |t: &str| id(&PyValue::Str(t.into()));
        assert_eq!(s("5B8EFFF798038103D269B633813FC60C"), "5b8efff798038103d269b633813fc60c");
        assert_eq!(s("0x5b8efff798038103d269b633813fc60c"), "5b8efff798038103d269b633813fc60c");
        // The proto3 JSON mapping writes bytes as base64.
        assert_eq!(s("W47/95gDgQPSabYzgT/GDA=="), "5b8efff798038103d269b633813fc60c");
        assert_eq!(s("7rb/0tEs+lk="), "eeb6ffd2d12cfa59");
        assert_eq!(s("not-an-id"), "not-an-id");
    }

    #[test]
    fn int_values_read_as_python_int_reads_them() {
        let i = |v: PyValue| python_int(&v);
        assert_eq!(i(PyValue::Str(" 0042 ".into())).as_deref(), Some("42"));
        assert_eq!(i(PyValue::Str("-1_000".into())).as_deref(), Some("-1000"));
        assert_eq!(i(PyValue::Str("1__0".into())), None);
        assert_eq!(i(PyValue::Str("-0".into())).as_deref(), Some("0"));
        assert_eq!(i(PyValue::Float(2.9)).as_deref(), Some("2"));
        assert_eq!(i(PyValue::Str("12x".into())), None);
    }

    #[test]
    fn shapes_are_told_apart_by_content() {
        assert_eq!(sniff(br#" {"resourceSpans": []}"#), Some(SpanFormat::OtlpJson));
        assert_eq!(
            sniff(br#"[{"name": "x", "context": {"trace_id": "0x1", "span_id": "0x2"}}]"#),
            Some(SpanFormat::SpanList)
        );
        assert_eq!(sniff(br#"{"events": [], "resourceSpans": []}"#), None);
        assert_eq!(sniff(br#"[{"attack_class_id": 1, "trace_id": 2, "span_id": 3}]"#), None);
        assert_eq!(sniff(b"\x0a\x8f\x02\x0a\x12\x00\x01"), Some(SpanFormat::Protobuf));
        assert_eq!(sniff(b"\n{\"resourceSpans\": []}"), Some(SpanFormat::OtlpJson));
    }

    #[test]
    fn json_lines_are_read_line_by_line_and_errors_name_the_line() {
        let two = b"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"}]}]}]}\n\
                    {\"resourceSpans\":[{\"instrumentationLibrarySpans\":[{\"spans\":[{\"name\":\"b\"}]}]}]}\n";
        let input = read_spans(two).unwrap();
        assert_eq!(input.format, SpanFormat::OtlpJsonLines);
        let names: Vec<_> = input.raw.iter().map(|s| s.get("name").and_then(PyValue::as_str).unwrap()).collect();
        assert_eq!(names, ["a", "b"]);
        let broken = b"{\"resourceSpans\":[]}\n{\"resourceSpans\": [}\n";
        let message = read_spans(broken).unwrap_err().to_string();
        assert_eq!(message, "line 2, column 20: invalid JSON: expected a value");
    }

    #[test]
    fn otlp_attributes_are_unwrapped_and_flattened_dicts_kept() {
        let doc = parse_json(
            br#"[{"key": "a", "value": {"intValue": "7"}}, {"key": "b", "value": {"arrayValue": {"values": [{"stringValue": "x"}, {"boolValue": true}]}}},
                 {"key": "c", "value": {"kvlistValue": {"values": [{"key": "k", "value": {"doubleValue": 1.5}}]}}},
                 {"key": "d", "value": {"bytesValue": "AAE="}}, {"key": "a", "value": {"stringValue": "last"}}]"#,
        )
        .unwrap();
        let attrs = attributes(doc);
        let shown: Vec<String> = attrs.iter().map(|(k, v)| format!("{k}={}", super::super::py_str(v))).collect();
        assert_eq!(shown, ["a=last", "b=['x', True]", "c={'k': 1.5}", "d={'bytesValue': 'AAE='}"]);
        let nested =
            parse_json(br#"{"input": {"value": "hi", "mime_type": "text/plain"}, "llm.model_name": "m"}"#).unwrap();
        let keys: Vec<String> = attributes(nested).into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["input.value", "input.mime_type", "llm.model_name"]);
    }
}
