//! One member of a JSON document's top-level object, found without parsing
//! the document: the other members' values are skipped over, bracket by
//! bracket, up to a trace's events. What recognises a file by a marker member (`"format"`,
//! `"report"`) when a tool has re-saved it with its keys sorted, which
//! moves the marker away from the start.

/// A top-level member that ends the search: a trace's list of events, most
/// of a trace's bytes, which no marked file (report, scorecard, review
/// file) has. A trace is then told in the time it takes to skip the
/// members before its events, not to read them all.
const TRACE_EVENTS: &[u8] = b"events";

/// Whether the JSON object in `bytes` has the top-level member `"key":
/// "value"` before any member named `events` ([`top_level_str`]).
pub fn has_top_level(bytes: &[u8], key: &str, value: &str) -> bool {
    top_level_str(bytes, key) == Some(value.as_bytes())
}

/// The text of the top-level member `key` of the JSON object in `bytes`
/// when that member is a string without escapes; `None` when `bytes` is
/// not an object, has no such member before one named `events`, or stops
/// being JSON before it.
pub fn top_level_str<'a>(bytes: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut at = skip_space(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return None; // `}` (no such member) or not JSON
        }
        let name_end = string_end(bytes, at)?;
        let name = &bytes[at + 1..name_end - 1];
        if name == TRACE_EVENTS {
            return None;
        }
        at = skip_space(bytes, name_end);
        if bytes.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(bytes, at + 1);
        if name == key.as_bytes() {
            if bytes.get(at) != Some(&b'"') {
                return None;
            }
            let end = string_end(bytes, at)?;
            let text = &bytes[at + 1..end - 1];
            return (!text.contains(&b'\\')).then_some(text);
        }
        at = skip_space(bytes, value_end(bytes, at)?);
        match bytes.get(at) {
            Some(b',') => at += 1,
            _ => return None,
        }
    }
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// Just past the string whose opening quote is at `at`.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', &bytes[i..])?;
        if bytes[i] == b'\\' {
            i += 2;
        } else {
            return Some(i + 1);
        }
    }
}

/// Just past the value starting at `at`: a string, an object or array
/// (brackets counted, strings inside skipped), or a number or literal.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = bytes[at..].iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'));
            Some(at + len.unwrap_or(bytes.len() - at))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_marker_after_members_of_every_kind() {
        let doc = br#"{"a": {"x": [1, {"y": "}]\"{"}], "z": null}, "b": [[], "]"], "c": -1.5e3, "d": true,
            "format" : "agentrisk-scorecard", "runs": []}"#;
        assert_eq!(top_level_str(doc, "format"), Some(&b"agentrisk-scorecard"[..]));
        assert_eq!(top_level_str(doc, "c"), None, "not a string");
        assert_eq!(top_level_str(doc, "runs"), None, "not a string");
        assert_eq!(top_level_str(doc, "missing"), None);
        // A member of a nested object is not a top-level member.
        assert_eq!(top_level_str(br#"{"a": {"format": "x"}}"#, "format"), None);
        assert_eq!(top_level_str(b"\xEF\xBB\xBF {\"report\":\"agentleak\"}", "report"), Some(&b"agentleak"[..]));
    }

    #[test]
    fn tells_a_marked_object_by_its_member_not_by_the_text() {
        assert!(has_top_level(br#"{"a": 1, "report": "agentleak"}"#, "report", "agentleak"));
        // The search ends at a trace's events, unread.
        assert!(!has_top_level(br#"{"events": [], "report": "agentleak"}"#, "report", "agentleak"));
        assert!(!has_top_level(br#"{"a": 1, "events": [{"x": 1"#, "report", "agentleak"));
        assert!(!has_top_level(br#"{"a": "agentleak", "report": "other"}"#, "report", "agentleak"));
        assert!(!has_top_level(br#"{"a": {"report": "agentleak"}}"#, "report", "agentleak"));
    }

    #[test]
    fn gives_up_on_what_is_not_an_object_or_not_json() {
        for doc in [&br#"["format", "x"]"#[..], b"", b"{", br#"{"a" 1, "format": "x"}"#, br#"{"a": [1, "format": "x""#]
        {
            assert_eq!(top_level_str(doc, "format"), None, "{}", String::from_utf8_lossy(doc));
        }
        assert_eq!(top_level_str(br#"{"format": "a\"b"}"#, "format"), None, "escaped text is not compared");
    }
}
