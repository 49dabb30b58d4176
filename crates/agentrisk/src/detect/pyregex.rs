//! Python `re` semantics on top of `fancy-regex`.
//!
//! Patterns are written in Python syntax; [`compile`] rewrites the escapes
//! whose meaning differs between the engines so that the Rust engine sees
//! Python's classes (spec 2.11): `\w` = `str.isalnum` or `_`, `\b` built on
//! that `\w`, `\s` = Python whitespace (adds U+001C–U+001F), and `$` = end
//! of text or before a final newline. `\d` is Unicode Nd in both engines.

use crate::pyunicode::tables::ALNUM;
use std::sync::OnceLock;

/// The members of Python's `\w`, written for use inside a character class.
fn word_members() -> &'static str {
    static MEMBERS: OnceLock<String> = OnceLock::new();
    MEMBERS.get_or_init(|| {
        let mut out = String::from("_");
        for &(lo, hi) in ALNUM {
            if lo == hi {
                out.push_str(&format!("\\x{{{:X}}}", lo as u32));
            } else {
                out.push_str(&format!("\\x{{{:X}}}-\\x{{{:X}}}", lo as u32, hi as u32));
            }
        }
        out
    })
}

const SPACE_MEMBERS: &str = "\\s\\x{1C}-\\x{1F}";

/// Rewrites a Python pattern into an equivalent fancy-regex pattern.
pub fn translate(pattern: &str) -> String {
    let w = word_members();
    let mut out = String::with_capacity(pattern.len() * 2);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    let mut class_start = false;
    while let Some(c) = chars.next() {
        let at_class_start = std::mem::take(&mut class_start);
        match c {
            '\\' => {
                let Some(e) = chars.next() else {
                    out.push('\\');
                    break;
                };
                match (e, in_class) {
                    ('w', true) => out.push_str(w),
                    ('w', false) => out.push_str(&format!("[{w}]")),
                    ('W', false) => out.push_str(&format!("[^{w}]")),
                    ('s', true) => out.push_str(SPACE_MEMBERS),
                    ('s', false) => out.push_str(&format!("[{SPACE_MEMBERS}]")),
                    ('S', false) => out.push_str(&format!("[^{SPACE_MEMBERS}]")),
                    ('b', false) => out.push_str(&format!("(?:(?<=[{w}])(?![{w}])|(?<![{w}])(?=[{w}]))")),
                    ('B', false) => out.push_str(&format!("(?:(?<=[{w}])(?=[{w}])|(?<![{w}])(?![{w}]))")),
                    ('Z', false) => out.push_str("\\z"),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                class_start = true;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    chars.next();
                    out.push('^');
                    class_start = true;
                }
            }
            ']' if in_class && !at_class_start => {
                in_class = false;
                out.push(']');
            }
            '[' if in_class => out.push_str("\\["),
            '$' if !in_class => out.push_str("(?=\\n?\\z)"),
            _ => out.push(c),
        }
    }
    out
}

/// Compiles a Python-syntax pattern; the error text is the engine's.
pub fn compile(pattern: &str) -> Result<fancy_regex::Regex, String> {
    fancy_regex::RegexBuilder::new(&translate(pattern)).backtrack_limit(10_000_000).build().map_err(|e| e.to_string())
}

/// Compiles one of our own built-in patterns. They are fixed strings that
/// the tests compile, so a failure here is a programming error.
pub(crate) fn builtin(pattern: &str) -> fancy_regex::Regex {
    match compile(pattern) {
        Ok(re) => re,
        Err(e) => panic!("built-in pattern {pattern:?} does not compile: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(p: &str, t: &str) -> bool {
        compile(p).unwrap().is_match(t).unwrap()
    }

    #[test]
    fn python_word_and_boundary_semantics() {
        assert!(is_match(r"^\w+$", "x²y")); // numeric symbol is \w in Python
        assert!(!is_match(r"^\w+$", "e\u{301}")); // combining mark is not
        assert!(is_match(r"\bab\b", "x ab."));
        assert!(!is_match(r"\bab\b", "xab"));
        assert!(is_match(r"a\sb", "a\u{1C}b"));
        assert!(is_match(r"[\w@]+$", "a@b"));
        assert!(is_match(r"x$", "x\n"));
        assert!(!is_match(r"x$", "x\n\n"));
        assert!(is_match(r"[]a]", "]"));
        assert!(is_match(r"[^]a]", "b"));
    }
}
