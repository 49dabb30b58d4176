use super::Report;
use crate::model::REPORT_KIND;
use crate::util::json_kind;
use serde_json::error::Category;

/// Why bytes could not be read as an AgentLeak report. `Display` gives the
/// place (line and column for JSON) and the problem; callers add the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("not UTF-8 text: invalid byte at offset {offset} (save the file as UTF-8)")]
    NotUtf8 { offset: usize },
    #[error("byte 0: the file is UTF-16 text, not UTF-8 ({hint}); save it as UTF-8")]
    Utf16 { hint: &'static str },
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json { line: usize, column: usize, message: String },
    /// The document as a whole is something else.
    #[error("top level: not an AgentLeak report: {reason}")]
    NotAReport { reason: String },
    #[error("not an AgentLeak report: {message} at line {line}, column {column}")]
    Shape { line: usize, column: usize, message: String },
    #[error("unsupported AgentLeak report version {0} (this viewer reads version 2)")]
    UnsupportedVersion(i64),
}

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Parses an AgentLeak v2 report. A UTF-8 byte order mark is accepted.
pub fn load_report(bytes: &[u8]) -> Result<Report, LoadError> {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    if let Some(hint) = crate::trace::utf16_hint(bytes) {
        return Err(LoadError::Utf16 { hint });
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(LoadError::NotUtf8 { offset: e.valid_up_to() });
    }
    let report: Report = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        Category::Data => shape_error(bytes, &e),
        _ => LoadError::Json { line: e.line(), column: e.column(), message: json_message(&e) },
    })?;
    if report.report != REPORT_KIND {
        return Err(LoadError::NotAReport {
            reason: format!("its \"report\" key is {:?}, expected \"{REPORT_KIND}\"", report.report),
        });
    }
    if report.version != 2 {
        return Err(LoadError::UnsupportedVersion(report.version));
    }
    Ok(report)
}

/// serde's message without its trailing " at line L column C" (we add our own).
pub(crate) fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// Valid JSON of the wrong shape: say what the document looks like when we
/// can tell (an array, a trace, another kind of file), else serde's message.
fn shape_error(bytes: &[u8], e: &serde_json::Error) -> LoadError {
    let not_a_report = |reason: &str| LoadError::NotAReport { reason: reason.to_owned() };
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Object(map)) => {
            if map.get("report").and_then(|v| v.as_str()) != Some(REPORT_KIND) {
                if map.contains_key("events") {
                    return not_a_report(
                        "this is an AgentLeak trace (it has \"events\"), not a report; analyse it with \
                         `agentrisk run -t FILE`",
                    );
                }
                return not_a_report("the top-level object has no \"report\": \"agentleak\" key");
            }
            LoadError::Shape { line: e.line(), column: e.column(), message: json_message(e) }
        }
        Ok(other) => not_a_report(&format!("expected a JSON object at the top level, found {}", json_kind(&other))),
        // A type error can be met before a syntax error further on (a
        // truncated file): the broken JSON is the real problem to report.
        Err(syntax) => LoadError::Json { line: syntax.line(), column: syntax.column(), message: json_message(&syntax) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        load_report(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn json_errors_name_line_and_column() {
        assert_eq!(
            err("{\n  \"report\": \"agentleak\",\n  oops\n}"),
            "invalid JSON at line 3, column 3: key must be a string"
        );
        assert!(err("{\"report\": ").starts_with("invalid JSON at line 1, column 11: EOF"), "{}", err("{\"report\": "));
        assert_eq!(err(""), "invalid JSON at line 1, column 0: EOF while parsing a value");
        // The wrong type comes first, but the truncation is what is wrong.
        assert_eq!(err("{\"report\": 1"), "invalid JSON at line 1, column 12: EOF while parsing an object");
    }

    #[test]
    fn wrong_shapes_say_what_they_are() {
        assert_eq!(
            err("[1, 2]"),
            "top level: not an AgentLeak report: expected a JSON object at the top level, found an array"
        );
        assert!(err(r#"{"run_id": "r", "events": []}"#).contains("this is an AgentLeak trace"));
        assert_eq!(
            err(r#"{"a": 1}"#),
            "top level: not an AgentLeak report: the top-level object has no \"report\": \"agentleak\" key"
        );
        let missing = err(r#"{"report": "agentleak", "version": 2, "run_id": "r"}"#);
        assert!(missing.starts_with("not an AgentLeak report: missing field `privacy_score` at line 1"), "{missing}");
        assert_eq!(load_report(b"\xff{").unwrap_err(), LoadError::NotUtf8 { offset: 0 });
        assert_eq!(
            load_report(&"\u{feff}{}".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>())
                .unwrap_err()
                .to_string(),
            "byte 0: the file is UTF-16 text, not UTF-8 (it starts with a UTF-16 little-endian byte order mark); \
             save it as UTF-8"
        );
    }
}
