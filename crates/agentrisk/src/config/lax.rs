//! Reading typed values out of [`Node`]s with the reference's lax coercions
//! (pydantic 2 in lax mode), each failure naming its key path.
//!
//! The rules follow pydantic-core's and were checked against pydantic 2.13
//! on some 30 000 generated strings:
//! * int: ints; bools (as 0/1); floats only when integral and finite; strings
//!   that are JSON integers, or become one once trimmed, stripped of one `+`,
//!   of leading zeros, of an all-zero fraction and of single underscores
//!   (`" 2 "`, `"+3"`, `"1_000"`, `"2.00"`, `"0023"` are accepted; `"2.5"`,
//!   `"0x10"`, `"1e3"` are not). Integers beyond i64 are refused as out of
//!   range, where pydantic would keep a big int: no config value needs one.
//! * float: floats, ints, bools; strings Rust's float syntax accepts once
//!   trimmed (`"1e-1"`, `"inf"`, `"nan"`), else with single underscores
//!   dropped from the untrimmed text.
//! * bool: bools; the ints 0 and 1 and the floats 0.0 and 1.0; the strings
//!   `0/1/f/t/n/y/no/yes/on/off/false/true` in any case (untrimmed).
//! * str: strings only — a number is not accepted where text is expected.
//! * list: YAML sequences only; mapping: YAML mappings only; `null` is neither.

use super::yaml::Node;
use super::ConfigError;
use crate::util::py_float_repr;

pub(crate) fn invalid(path: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { path: path.to_owned(), message: message.into() }
}

/// A short description of a value for error messages, e.g. `"high"`, `2.5`,
/// `a list`.
pub(crate) fn describe(node: &Node) -> String {
    match node {
        Node::Null => "null".to_owned(),
        Node::Bool(b) => b.to_string(),
        Node::Int(n) => n.to_string(),
        Node::BigInt(s) => s.clone(),
        Node::Float(f) => py_float_repr(*f),
        Node::Str(s) => {
            let short: String = s.chars().take(60).collect();
            if short.len() < s.len() {
                format!("{short:?}…")
            } else {
                format!("{s:?}")
            }
        }
        Node::Timestamp(s) => format!("the date/time {s}"),
        Node::Seq(_) => "a list".to_owned(),
        Node::Map(_) => "a mapping".to_owned(),
    }
}

/// Python's `str()` of the value PyYAML would produce, for scalars.
/// (Timestamps keep their YAML spelling, which is what `str()` gives for a
/// plain date.)
pub(crate) fn py_str(node: &Node) -> Option<String> {
    Some(match node {
        Node::Null => "None".to_owned(),
        Node::Bool(true) => "True".to_owned(),
        Node::Bool(false) => "False".to_owned(),
        Node::Int(n) => n.to_string(),
        Node::BigInt(s) | Node::Str(s) | Node::Timestamp(s) => s.clone(),
        Node::Float(f) => py_float_repr(*f),
        Node::Seq(_) | Node::Map(_) => return None,
    })
}

/// Python truthiness of the value (`None`, `False`, `0`, `""`, `[]`, `{}`
/// are false).
pub(crate) fn is_truthy(node: &Node) -> bool {
    match node {
        Node::Null => false,
        Node::Bool(b) => *b,
        Node::Int(n) => *n != 0,
        Node::BigInt(_) | Node::Timestamp(_) => true,
        Node::Float(f) => *f != 0.0,
        Node::Str(s) => !s.is_empty(),
        Node::Seq(items) => !items.is_empty(),
        Node::Map(pairs) => !pairs.is_empty(),
    }
}

/// Python's underscore rule for numbers: `None` unless there are
/// underscores, none leading, trailing or doubled; those are dropped.
fn strip_underscores(s: &str) -> Option<String> {
    if !s.contains('_') || s.starts_with('_') || s.ends_with('_') || s.contains("__") {
        None
    } else {
        Some(s.replace('_', ""))
    }
}

/// pydantic's leading-zero stripping: zeros (and underscores among them)
/// before the first other digit or `-` go; an all-zero run keeps its last
/// character, a `.` keeps the zero before it. It is why `"0__3"` is 3 and,
/// oddly, `"0-3"` is -3 — both accepted by the reference, so by us.
fn strip_leading_zeros(s: &str) -> Option<&str> {
    let mut chars = s.char_indices();
    match chars.next() {
        Some((_, '0')) => {}
        Some((_, '1'..='9' | '-')) => return Some(s),
        _ => return None,
    }
    for (i, c) in chars {
        match c {
            '0' | '_' => {}
            '1'..='9' | '-' => return s.get(i..),
            '.' => return s.get(i - 1..),
            _ => return None,
        }
    }
    s.get(s.len() - 1..)
}

/// A JSON integer (`-?(0|[1-9][0-9]*)`, nothing else); `Err(())` when it
/// does not fit in i64.
fn json_int(t: &str) -> Option<Result<i64, ()>> {
    let digits = t.strip_prefix('-').unwrap_or(t);
    let well_formed = match digits.as_bytes() {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => rest.iter().all(u8::is_ascii_digit),
        _ => false,
    };
    well_formed.then(|| t.parse::<i64>().map_err(|_| ()))
}

/// pydantic's string → int: the text as a JSON integer; else a cleaned
/// copy (trimmed, one leading `+` dropped, leading zeros stripped, an
/// all-zero fraction dropped, single underscores dropped) as one — provided
/// cleaning changed something.
fn int_from_text(text: &str) -> Option<Result<i64, ()>> {
    if let Some(n) = json_int(text) {
        return Some(n);
    }
    let mut t = text.trim();
    if let Some(rest) = t.strip_prefix('+') {
        if rest.starts_with('-') {
            return None;
        }
        t = rest;
    }
    let negative = match t.strip_prefix('-') {
        Some(rest) if rest.starts_with(['-', '+']) => return None,
        Some(rest) => {
            t = rest;
            true
        }
        None => false,
    };
    t = strip_leading_zeros(t)?;
    if let Some((whole, fraction)) = t.split_once('.') {
        if !fraction.is_empty() && fraction.bytes().all(|b| b == b'0') {
            t = whole;
        }
    }
    let sign = if negative { "-" } else { "" };
    let cleaned = match strip_underscores(t) {
        Some(without) => format!("{sign}{without}"),
        None if t.len() == text.len() => return None,
        None => format!("{sign}{t}"),
    };
    json_int(&cleaned)
}

/// pydantic's string → float: trimmed float syntax (with `inf`, `nan`), else
/// the untrimmed text with single underscores dropped.
fn float_from_text(text: &str) -> Option<f64> {
    text.trim().parse::<f64>().ok().or_else(|| strip_underscores(text)?.parse::<f64>().ok())
}

pub(crate) fn int(node: &Node, path: &str) -> Result<i64, ConfigError> {
    let too_big = || invalid(path, format!("the integer {} is out of range", describe(node)));
    match node {
        Node::Int(n) => Ok(*n),
        Node::Bool(b) => Ok(i64::from(*b)),
        Node::BigInt(_) => Err(too_big()),
        Node::Float(f) if !f.is_finite() => {
            Err(invalid(path, format!("expected a whole number, got {}", describe(node))))
        }
        Node::Float(f) if f.fract() != 0.0 => Err(invalid(
            path,
            format!("expected a whole number, got {} (a number with a fractional part)", describe(node)),
        )),
        // 2^63 is the first float out of range; every float below is exact.
        Node::Float(f) if f.abs() >= 9_223_372_036_854_775_808.0 => Err(too_big()),
        Node::Float(f) => Ok(*f as i64),
        Node::Str(s) => match int_from_text(s) {
            Some(Ok(n)) => Ok(n),
            Some(Err(())) => Err(too_big()),
            None => Err(invalid(path, format!("expected a whole number, got {}", describe(node)))),
        },
        _ => Err(invalid(path, format!("expected a whole number, got {}", describe(node)))),
    }
}

pub(crate) fn float(node: &Node, path: &str) -> Result<f64, ConfigError> {
    match node {
        Node::Float(f) => Ok(*f),
        Node::Int(n) => Ok(*n as f64),
        Node::Bool(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Node::BigInt(s) => s.parse::<f64>().map_err(|_| invalid(path, format!("expected a number, got {s}"))),
        Node::Str(s) => {
            float_from_text(s).ok_or_else(|| invalid(path, format!("expected a number, got {}", describe(node))))
        }
        _ => Err(invalid(path, format!("expected a number, got {}", describe(node)))),
    }
}

pub(crate) fn boolean(node: &Node, path: &str) -> Result<bool, ConfigError> {
    let wrong = || invalid(path, format!("expected true or false (or yes/no, on/off, 1/0), got {}", describe(node)));
    match node {
        Node::Bool(b) => Ok(*b),
        Node::Int(0) => Ok(false),
        Node::Int(1) => Ok(true),
        Node::Float(f) if *f == 0.0 => Ok(false),
        Node::Float(f) if *f == 1.0 => Ok(true),
        Node::Str(s) => match s.to_ascii_lowercase().as_str() {
            "0" | "off" | "f" | "false" | "n" | "no" => Ok(false),
            "1" | "on" | "t" | "true" | "y" | "yes" => Ok(true),
            _ => Err(wrong()),
        },
        _ => Err(wrong()),
    }
}

pub(crate) fn string(node: &Node, path: &str) -> Result<String, ConfigError> {
    match node {
        Node::Str(s) => Ok(s.clone()),
        _ => Err(invalid(path, format!("expected text, got {} (quote it to make it text)", describe(node)))),
    }
}

pub(crate) fn optional<T>(
    node: Option<&Node>,
    read: impl FnOnce(&Node) -> Result<T, ConfigError>,
) -> Result<Option<T>, ConfigError> {
    match node {
        None | Some(Node::Null) => Ok(None),
        Some(n) => read(n).map(Some),
    }
}

pub(crate) fn list<'a>(node: &'a Node, path: &str) -> Result<&'a [Node], ConfigError> {
    match node {
        Node::Seq(items) => Ok(items),
        _ => Err(invalid(path, format!("expected a list, got {}", describe(node)))),
    }
}

pub(crate) fn strings(node: &Node, path: &str) -> Result<Vec<String>, ConfigError> {
    list(node, path)?.iter().enumerate().map(|(i, item)| string(item, &format!("{path}[{i}]"))).collect()
}

/// Python's `==` between two mapping keys (1 == 1.0 == True).
fn same_key(a: &Node, b: &Node) -> bool {
    fn number(n: &Node) -> Option<f64> {
        match n {
            Node::Int(i) => Some(*i as f64),
            Node::Float(f) => Some(*f),
            Node::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
            _ => None,
        }
    }
    match (a, b) {
        (Node::Int(x), Node::Int(y)) => x == y,
        _ => match (number(a), number(b)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a == b,
            _ => false,
        },
    }
}

/// Dict semantics of a Python mapping built from YAML: a repeated key keeps
/// the position of its first occurrence and the value of its last.
pub(crate) fn dict_pairs(pairs: &[(Node, Node)]) -> Vec<(&Node, &Node)> {
    let mut out: Vec<(&Node, &Node)> = Vec::new();
    for (k, v) in pairs {
        match out.iter_mut().find(|(seen, _)| same_key(seen, k)) {
            Some(slot) => slot.1 = v,
            None => out.push((k, v)),
        }
    }
    out
}

/// A mapping with string keys looked up by name (a repeated key: the last
/// value wins, as in a Python dict). Other keys are invisible to lookups.
#[derive(Clone, Copy)]
pub(crate) struct Section<'a> {
    pub pairs: &'a [(Node, Node)],
}

impl<'a> Section<'a> {
    pub(crate) fn of(node: &'a Node, path: &str) -> Result<Section<'a>, ConfigError> {
        match node {
            Node::Map(pairs) => Ok(Section { pairs }),
            _ => Err(invalid(path, format!("expected a mapping of settings, got {}", describe(node)))),
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Node> {
        self.pairs.iter().rev().find(|(k, _)| matches!(k, Node::Str(s) if s == key)).map(|(_, v)| v)
    }

    /// A nested section; absent → `None`; present but not a mapping
    /// (`null` included, as pydantic refuses `None` for a sub-model) → error.
    pub(crate) fn section(&self, key: &str, path: &str) -> Result<Option<Section<'a>>, ConfigError> {
        self.get(key).map(|n| Section::of(n, path)).transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Node {
        Node::Str(text.to_owned())
    }

    #[test]
    fn ints_follow_pydantic_lax_mode() {
        let ok = [
            (s("2"), 2),
            (s(" 2 "), 2),
            (s("\t2\n"), 2),
            (s("\u{a0}2"), 2),
            (s("2.0"), 2),
            (s("-2.00"), -2),
            (s("+3"), 3),
            (s("1_000"), 1000),
            (s("0023"), 23),
            (s("-0"), 0),
            (s("0_0"), 0),
            (s("0__3"), 3),
            // pydantic quirk kept: leading zeros are dropped before a sign.
            (s("0-3"), -3),
            (s("+0-3"), -3),
            (s("0-3.0"), -3),
            (s("+00-3"), -3),
            (Node::Float(2.0), 2),
            (Node::Bool(true), 1),
            (Node::Int(-7), -7),
        ];
        for (node, want) in ok {
            assert_eq!(int(&node, "k").ok(), Some(want), "{node:?}");
        }
        for node in [
            s("2.5"),
            s("2."),
            s(".0"),
            s("0x10"),
            s("1e3"),
            s(""),
            s("_1"),
            s("1_"),
            s("1__0"),
            s("1 000"),
            s("- 2"),
            s("٣"),
            s("２"),
            s("0+3"),
            s("-0-3"),
            s("0_"),
            s("_03"),
            s("+-1"),
            s("++1"),
            s("-_5"),
            s("0-01"),
            s("-0-3"),
            s("+00-0_3"),
        ] {
            assert!(int(&node, "k").is_err(), "{node:?} must be refused");
        }
        let err = int(&Node::Float(2.5), "scoring.fail_below").unwrap_err();
        assert_eq!(
            err.to_string(),
            "scoring.fail_below: expected a whole number, got 2.5 (a number with a fractional part)"
        );
        assert!(int(&Node::Float(f64::INFINITY), "k").is_err());
        assert!(int(&Node::Float(1e20), "k").unwrap_err().to_string().contains("out of range"));
        assert!(int(&s("99999999999999999999"), "k").unwrap_err().to_string().contains("out of range"));
        assert!(int(&Node::Null, "k").is_err());
        assert!(int(&Node::Seq(vec![]), "k").is_err());
    }

    #[test]
    fn bools_follow_pydantic_lax_mode() {
        for word in ["yes", "Yes", "YES", "YeS", "y", "Y", "on", "ON", "t", "true", "True", "1"] {
            assert_eq!(boolean(&s(word), "k").ok(), Some(true), "{word}");
        }
        for word in ["no", "n", "N", "off", "OFF", "f", "F", "false", "0"] {
            assert_eq!(boolean(&s(word), "k").ok(), Some(false), "{word}");
        }
        assert_eq!(boolean(&Node::Int(1), "k").ok(), Some(true));
        assert_eq!(boolean(&Node::Int(0), "k").ok(), Some(false));
        assert_eq!(boolean(&Node::Float(1.0), "k").ok(), Some(true));
        for node in
            [s(" true"), s("on "), s("2"), s(""), s("None"), Node::Int(2), Node::Int(-1), Node::Float(0.5), Node::Null]
        {
            assert!(boolean(&node, "k").is_err(), "{node:?} must be refused");
        }
        let err = boolean(&s("maybe"), "detectors.pii").unwrap_err();
        assert_eq!(err.to_string(), "detectors.pii: expected true or false (or yes/no, on/off, 1/0), got \"maybe\"");
    }

    #[test]
    fn floats_follow_pydantic_lax_mode() {
        let ok = [
            (s("0.3"), 0.3),
            (s(" 0.3"), 0.3),
            (s("1e-1"), 0.1),
            (s("1_0"), 10.0),
            (s("1_0.5"), 10.5),
            (s("1_e5"), 1e5),
            (s("-_1"), -1.0),
            (s("5."), 5.0),
            (s("+.5"), 0.5),
            (Node::Int(3), 3.0),
            (Node::Bool(true), 1.0),
        ];
        for (node, want) in ok {
            assert_eq!(float(&node, "k").ok(), Some(want), "{node:?}");
        }
        assert_eq!(float(&s("-inf"), "k").ok(), Some(f64::NEG_INFINITY));
        assert!(float(&s("nan"), "k").is_ok_and(f64::is_nan));
        for node in
            [s("abc"), s("  "), s("1,5"), s("0x1"), s("1e"), s("_1.0"), s("1__0"), s(" 3_7"), s("1.5_"), Node::Null]
        {
            assert!(float(&node, "k").is_err(), "{node:?} must be refused");
        }
    }

    #[test]
    fn strings_are_not_coerced_from_numbers() {
        assert_eq!(string(&s("x"), "k").ok(), Some("x".to_owned()));
        for node in [Node::Int(1), Node::Float(1.5), Node::Bool(true), Node::Null, Node::Timestamp("2024-01-01".into())]
        {
            assert!(string(&node, "project.name").unwrap_err().to_string().starts_with("project.name: expected text"));
        }
    }

    #[test]
    fn python_spellings() {
        assert_eq!(py_str(&Node::Float(1e16)).as_deref(), Some("1e+16"));
        assert_eq!(py_str(&Node::Bool(true)).as_deref(), Some("True"));
        assert_eq!(py_str(&Node::Null).as_deref(), Some("None"));
        assert_eq!(py_str(&Node::Seq(vec![])), None);
    }

    #[test]
    fn dict_pairs_keep_first_position_and_last_value() {
        let pairs = vec![
            (Node::Int(1), Node::Int(10)),
            (s("1"), Node::Int(7)),
            (Node::Bool(true), Node::Int(5)),
            (Node::Float(2.0), Node::Int(1)),
            (Node::Int(2), Node::Int(2)),
        ];
        let got: Vec<(Node, Node)> = dict_pairs(&pairs).into_iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        assert_eq!(got, vec![(Node::Int(1), Node::Int(5)), (s("1"), Node::Int(7)), (Node::Float(2.0), Node::Int(2))]);
    }
}
