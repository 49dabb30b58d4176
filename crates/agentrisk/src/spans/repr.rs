//! Python's `str()` of a JSON value: strings as they are, numbers and
//! constants as Python prints them, lists and dicts as their `repr()`
//! (`{'a': [1, True, None]}`), which is what the reference writes when it
//! turns a non-string attribute into event content.

use crate::pyunicode::is_printable;
use crate::trace::{PyValue, LONE_SURROGATE};
use crate::util::py_float_repr;

/// `str(value)`.
pub fn py_str(value: &PyValue) -> String {
    match value {
        PyValue::Str(s) => s.clone(),
        other => {
            let mut out = String::new();
            push_repr(&mut out, other);
            out
        }
    }
}

/// `repr(value)`, written without recursion.
fn push_repr(out: &mut String, value: &PyValue) {
    enum Step<'a> {
        Value(&'a PyValue),
        Text(&'static str),
        Key(&'a str),
    }
    let mut stack = vec![Step::Value(value)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Key(k) => {
                push_str_repr(out, k);
                out.push_str(": ");
            }
            Step::Value(value) => match value {
                PyValue::Null => out.push_str("None"),
                PyValue::Bool(true) => out.push_str("True"),
                PyValue::Bool(false) => out.push_str("False"),
                PyValue::Int(digits) => out.push_str(digits),
                PyValue::Float(x) => out.push_str(&py_float_repr(*x)),
                PyValue::Str(s) => push_str_repr(out, s),
                PyValue::Array(items) => {
                    out.push('[');
                    stack.push(Step::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        if i > 0 {
                            stack.push(Step::Text(", "));
                        }
                    }
                }
                PyValue::Object(entries) => {
                    out.push('{');
                    stack.push(Step::Text("}"));
                    for (i, (key, item)) in entries.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        stack.push(Step::Key(key));
                        if i > 0 {
                            stack.push(Step::Text(", "));
                        }
                    }
                }
            },
        }
    }
}

/// `repr()` of a string: single quotes unless it holds `'` and no `"`;
/// backslash escapes for the quote, `\\`, `\t`, `\n`, `\r`; other
/// characters Python does not print as they are, as `\xhh`, `\uhhhh` or
/// `\Uhhhhhhhh`. A lone surrogate from the trace (our marker) is the
/// `\udXXX` Python would show.
fn push_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c == LONE_SURROGATE => out.push_str("\\ud800"),
            c if (c as u32) < 0x20 || c as u32 == 0x7F => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_ascii() || is_printable(c) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse_json;

    /// Each expected string is what CPython 3.11 prints for `str(json.loads(doc))`.
    #[test]
    fn containers_print_as_python_prints_them() {
        let s = |doc: &str| py_str(&parse_json(doc.as_bytes()).unwrap());
        assert_eq!(s(r#"{"a": [1, true, null, 1.0, 1e21], "b": {}}"#), "{'a': [1, True, None, 1.0, 1e+21], 'b': {}}");
        assert_eq!(
            s(r#"["it's", "say \"hi\"", "both ' \"", "tab\tnl\n\\"]"#),
            r#"["it's", 'say "hi"', 'both \' "', 'tab\tnl\n\\']"#
        );
        assert_eq!(
            s(r#"["é ü 中", "\u0007", "\u00a0", "\u200b", "\ud83d\ude00"]"#),
            "['é ü 中', '\\x07', '\\xa0', '\\u200b', '😀']"
        );
        assert_eq!(s(r#""plain""#), "plain");
        assert_eq!(s("12345678901234567890123"), "12345678901234567890123");
        assert_eq!(s("false"), "False");
    }
}
