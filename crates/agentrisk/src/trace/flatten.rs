//! Event content to searchable text (spec 1.4): the only form detectors see.
//!
//! Strings stay as they are; objects become `<key>: <value>` entries and
//! arrays their items, both joined with `" | "`; other values inside
//! containers take Python's `str()` spelling (`True`, `None`, `1e+21`), since
//! that is what the reference's regexes ran over. Written without recursion,
//! so nesting depth is bounded by memory only.

use super::json::{walk, PyValue, Visitor};
use crate::pyunicode;
use crate::util::py_float_repr;

/// The searchable text of an event's content.
pub fn flatten(content: &PyValue) -> String {
    if let PyValue::Str(s) = content {
        return s.clone();
    }
    let mut flat = Flattener { out: String::new() };
    walk(content, &mut flat);
    flat.out
}

/// An object key as it appears in flattened text: `_` and `-` become spaces,
/// then surrounding Python whitespace is stripped (`patient_name` →
/// `patient name`, `-x-` → `x`, `a__b` → `a  b`).
pub fn humanise_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    push_humanised_key(&mut out, key);
    out
}

fn push_humanised_key(out: &mut String, key: &str) {
    // Stripping `_`/`-` together with whitespace and then mapping the rest
    // equals mapping first and stripping after, without a temporary string.
    let core = key.trim_matches(|c: char| c == '_' || c == '-' || pyunicode::is_space(c));
    if core.bytes().any(|b| b == b'_' || b == b'-') {
        out.extend(core.chars().map(|c| if c == '_' || c == '-' { ' ' } else { c }));
    } else {
        out.push_str(core);
    }
}

struct Flattener {
    out: String,
}

impl Visitor for Flattener {
    fn scalar(&mut self, value: &PyValue) {
        push_py_str(&mut self.out, value);
    }
    fn open(&mut self, _is_object: bool) {}
    fn item(&mut self, index: usize, key: Option<&str>) {
        if index > 0 {
            self.out.push_str(" | ");
        }
        if let Some(key) = key {
            push_humanised_key(&mut self.out, key);
            self.out.push_str(": ");
        }
    }
    fn close(&mut self, _is_object: bool) {}
}

/// Python `str()` of a scalar.
fn push_py_str(out: &mut String, value: &PyValue) {
    match value {
        PyValue::Null => out.push_str("None"),
        PyValue::Bool(true) => out.push_str("True"),
        PyValue::Bool(false) => out.push_str("False"),
        PyValue::Int(digits) => out.push_str(digits),
        PyValue::Float(x) => out.push_str(&py_float_repr(*x)),
        PyValue::Str(s) => out.push_str(s),
        PyValue::Array(_) | PyValue::Object(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::json::parse_json;

    fn flat(doc: &str) -> String {
        flatten(&parse_json(doc.as_bytes()).unwrap())
    }

    #[test]
    fn keys_are_humanised_with_python_strip() {
        assert_eq!(humanise_key("patient_name"), "patient name");
        assert_eq!(humanise_key("-x-"), "x");
        assert_eq!(humanise_key("a__b"), "a  b");
        assert_eq!(humanise_key("api-key"), "api key");
        // U+001F is whitespace to Python, not to Rust's trim.
        assert_eq!(humanise_key("\u{1f}id_"), "id");
        assert_eq!(humanise_key("__"), "");
    }

    #[test]
    fn spec_examples() {
        assert_eq!(flat(r#""plain text""#), "plain text");
        assert_eq!(flat(r#"{"patient_name": "Ann", "mrn": "123"}"#), "patient name: Ann | mrn: 123");
        assert_eq!(flat(r#"["a", ["b", "c"], {"k": "v"}]"#), "a | b | c | k: v");
        assert_eq!(flat(r#"{"empty": ""}"#), "empty: ");
        assert_eq!(flat("{}"), "");
        assert_eq!(flat("[]"), "");
        assert_eq!(flat(r#"{"a": {}, "b": []}"#), "a:  | b: ");
        // Duplicate keys: the first position, the last value.
        assert_eq!(flat(r#"{"x": 1, "y": 2, "x": 3}"#), "x: 3 | y: 2");
    }

    #[test]
    fn scalars_in_containers_use_python_str() {
        // The corpus case edge_content_scalars_in_object.
        let doc = r#"{"flag": true, "ssn": null, "pi": 3.14, "big_float": 1e+21, "tiny": 1e-07,
            "sin": 123456789, "bigint": 123456789012345678901234567890,
            "nested": {"deep_list": [1, "two", {"card_number": "4111 1111 1111 1111"}]},
            "empty_obj": {}, "empty_list": []}"#;
        assert_eq!(
            flat(doc),
            "flag: True | ssn: None | pi: 3.14 | big float: 1e+21 | tiny: 1e-07 | sin: 123456789 | \
             bigint: 123456789012345678901234567890 | nested: deep list: 1 | two | card number: \
             4111 1111 1111 1111 | empty obj:  | empty list: "
        );
        assert_eq!(
            flat("[false, -0, -0.0, 1E2, NaN, -Infinity, 1e400]"),
            "False | 0 | -0.0 | 100.0 | nan | -inf | inf"
        );
    }

    #[test]
    fn deep_nesting_flattens_without_recursion() {
        // Deeper than the parser accepts (MAX_NESTING), so built in code.
        let depth = 100_000;
        let mut list = PyValue::Array(vec![PyValue::Str("core".into()), PyValue::Int("7".into())]);
        for _ in 1..depth {
            list = PyValue::Array(vec![list]);
        }
        assert_eq!(flatten(&list), "core | 7");
        let mut object = PyValue::Int("1".into());
        for _ in 0..depth {
            object = PyValue::Object(vec![("a_b".to_owned(), object)]);
        }
        let text = flatten(&object);
        assert_eq!(text.len(), depth * "a b: ".len() + 1);
        assert!(text.starts_with("a b: a b: ") && text.ends_with("a b: 1"));
    }
}
