//! YAML text → a plain value tree, resolved the way the reference's loader
//! (PyYAML `safe_load`, YAML 1.1) resolves it, with bounds that protect memory.
//!
//! yaml-rust2 only tokenises here: its own loader speaks YAML 1.2 (`yes` is a
//! string there, a bool in YAML 1.1), clones a whole subtree for every alias
//! (so a "billion laughs" document would exhaust memory) and recurses once per
//! nesting level. We drive its event parser ourselves and build [`Node`]s with
//! an explicit stack, counting every node an alias expands to.
//!
//! What PyYAML does and we copy: plain scalars resolve to null, bool
//! (`yes/no/on/off/true/false` in three spellings), int (binary, octal with a
//! leading `0`, hex, sexagesimal `1:30`, underscores), float (needs a `.`, a
//! signed exponent, `.inf`, `.nan`) or timestamp; merge keys `<<` merge
//! mappings; duplicate keys keep the last value; a document that is empty or
//! only comments is null; a second document is an error; the standard tags
//! (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`, `!!seq`, `!!map`,
//! `!!timestamp`) are honoured and other tags refused.
//! What we refuse where PyYAML would not: `!!binary`, `!!set`, `!!omap`,
//! `!!pairs`, recursive aliases, more than [`MAX_NODES`] nodes and nesting
//! deeper than [`MAX_DEPTH`] — none of which a config file needs.

use super::ConfigError;
use std::collections::HashMap;
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};

/// Most nodes a config may hold once every alias is expanded (and every
/// anchored subtree kept for later aliases is counted again). Real configs
/// have a few hundred; the bound turns an alias bomb into an error.
pub const MAX_NODES: usize = 100_000;

/// Deepest nesting of lists and mappings accepted. Real configs nest about
/// five levels; the bound keeps every recursive walk (drop, clone) shallow,
/// which matters on the browser's small stack.
pub const MAX_DEPTH: usize = 64;

/// One YAML value, as Python would hold it after `safe_load`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer beyond i64 (Python keeps it exactly; we keep its spelling).
    BigInt(String),
    Float(f64),
    Str(String),
    /// A YAML 1.1 timestamp (PyYAML makes a date or datetime), as written.
    Timestamp(String),
    Seq(Vec<Node>),
    /// Pairs in document order; duplicates are resolved by the readers.
    Map(Vec<(Node, Node)>),
}

const YAML_TAG: &str = "tag:yaml.org,2002:";

/// A finished node with its size (nodes) and height (nesting levels).
#[derive(Debug, Clone)]
struct Built {
    node: Node,
    nodes: usize,
    height: usize,
}

/// A key slot of a mapping: a value, or PyYAML's merge key `<<`.
enum Key {
    Merge,
    Value(Node),
}

enum Open {
    Seq(Vec<Node>),
    Map { pairs: Vec<(Key, Node)>, key: Option<Key> },
}

struct Frame {
    open: Open,
    anchor: usize,
    nodes: usize,
    height: usize,
}

struct Builder {
    stack: Vec<Frame>,
    anchors: HashMap<usize, Built>,
    total: usize,
    root: Option<Built>,
}

fn at(mark: Marker) -> (usize, usize) {
    (mark.line(), mark.col() + 1)
}

fn unsupported(mark: Marker, message: impl Into<String>) -> ConfigError {
    let (line, column) = at(mark);
    ConfigError::Unsupported { line, column, message: message.into() }
}

fn syntax(error: &ScanError) -> ConfigError {
    let (line, column) = at(*error.marker());
    ConfigError::Syntax { line, column, message: error.info().to_owned() }
}

/// Parses one YAML document. `Ok(None)` for an empty stream, a stream of
/// comments, or a document that is null (PyYAML's `None`).
pub(crate) fn node_from_yaml(text: &str) -> Result<Option<Node>, ConfigError> {
    // PyYAML skips a byte-order mark; yaml-rust2 does not.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut parser = Parser::new_from_str(text);
    let mut builder = Builder { stack: Vec::new(), anchors: HashMap::new(), total: 0, root: None };
    let mut documents = 0usize;
    loop {
        let (event, mark) = parser.next_token().map_err(|e| syntax(&e))?;
        match event {
            Event::StreamEnd => break,
            Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
            Event::DocumentStart => {
                documents += 1;
                if documents > 1 {
                    return Err(ConfigError::MultipleDocuments { line: mark.line() });
                }
                // Anchors do not cross documents (and there is only one).
                builder.anchors.clear();
            }
            Event::Alias(id) => {
                let built = builder.anchors.get(&id).cloned().ok_or_else(|| {
                    unsupported(mark, "this alias refers to a node that contains it (a recursive alias)")
                })?;
                builder.count(built.nodes, mark)?;
                if builder.stack.len() + built.height > MAX_DEPTH {
                    return Err(too_deep(mark));
                }
                builder.insert(built, 0, mark)?;
            }
            Event::Scalar(value, style, anchor, tag) => {
                builder.count(1, mark)?;
                let is_plain = style == TScalarStyle::Plain;
                let key = match scalar_from(value, is_plain, tag.as_ref(), mark)? {
                    Scalar::Merge => Key::Merge,
                    Scalar::Node(node) => Key::Value(node),
                };
                builder.insert_key_or_value(key, anchor, mark)?;
            }
            Event::SequenceStart(anchor, tag) => {
                check_collection_tag(tag.as_ref(), "seq", mark)?;
                builder.open(Open::Seq(Vec::new()), anchor, mark)?;
            }
            Event::MappingStart(anchor, tag) => {
                check_collection_tag(tag.as_ref(), "map", mark)?;
                builder.open(Open::Map { pairs: Vec::new(), key: None }, anchor, mark)?;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let frame = builder.stack.pop().ok_or_else(|| unsupported(mark, "unbalanced end of a collection"))?;
                let node = match frame.open {
                    Open::Seq(items) => Node::Seq(items),
                    Open::Map { pairs, .. } => Node::Map(merge_keys(pairs, mark)?),
                };
                let built = Built { node, nodes: frame.nodes, height: frame.height };
                builder.insert(built, frame.anchor, mark)?;
            }
        }
    }
    Ok(builder.root.map(|b| b.node).filter(|n| *n != Node::Null))
}

fn too_deep(mark: Marker) -> ConfigError {
    let (line, column) = at(mark);
    ConfigError::TooDeep { limit: MAX_DEPTH, line, column }
}

impl Builder {
    fn count(&mut self, nodes: usize, mark: Marker) -> Result<(), ConfigError> {
        self.total = self.total.saturating_add(nodes);
        if self.total > MAX_NODES {
            let (line, column) = at(mark);
            return Err(ConfigError::TooManyNodes { limit: MAX_NODES, line, column });
        }
        Ok(())
    }

    fn open(&mut self, open: Open, anchor: usize, mark: Marker) -> Result<(), ConfigError> {
        self.count(1, mark)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(too_deep(mark));
        }
        if let Some(Frame { open: Open::Map { key: None, .. }, .. }) = self.stack.last() {
            // PyYAML cannot hash a list or mapping used as a key.
            return Err(unsupported(mark, "a mapping key must be a plain value, not a list or mapping"));
        }
        self.stack.push(Frame { open, anchor, nodes: 1, height: 1 });
        Ok(())
    }

    fn insert_key_or_value(&mut self, key: Key, anchor: usize, mark: Marker) -> Result<(), ConfigError> {
        match key {
            Key::Value(node) => self.insert(Built { node, nodes: 1, height: 0 }, anchor, mark),
            Key::Merge => match self.stack.last_mut() {
                Some(Frame { open: Open::Map { key: slot @ None, .. }, .. }) => {
                    *slot = Some(Key::Merge);
                    Ok(())
                }
                // PyYAML has no constructor for `<<` outside a key position.
                _ => Err(unsupported(mark, "`<<` (a merge key) can only be used as a mapping key")),
            },
        }
    }

    /// Places a finished node in its parent (or as the document root).
    fn insert(&mut self, built: Built, anchor: usize, mark: Marker) -> Result<(), ConfigError> {
        if anchor > 0 {
            // The copy kept for later aliases costs memory too.
            self.count(built.nodes, mark)?;
            self.anchors.insert(anchor, built.clone());
        }
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some(built);
            return Ok(());
        };
        parent.nodes = parent.nodes.saturating_add(built.nodes);
        parent.height = parent.height.max(built.height + 1);
        match &mut parent.open {
            Open::Seq(items) => items.push(built.node),
            Open::Map { pairs, key } => match key.take() {
                None => {
                    if matches!(built.node, Node::Seq(_) | Node::Map(_)) {
                        return Err(unsupported(mark, "a mapping key must be a plain value, not a list or mapping"));
                    }
                    *key = Some(Key::Value(built.node));
                }
                Some(k) => pairs.push((k, built.node)),
            },
        }
        Ok(())
    }
}

/// PyYAML's merge: pairs pulled in by `<<` come first (from a list of
/// mappings, the earlier mapping wins), then the mapping's own pairs, so that
/// with "last key wins" the mapping's own keys override merged ones.
fn merge_keys(pairs: Vec<(Key, Node)>, mark: Marker) -> Result<Vec<(Node, Node)>, ConfigError> {
    if !pairs.iter().any(|(k, _)| matches!(k, Key::Merge)) {
        return Ok(pairs
            .into_iter()
            .filter_map(|(k, v)| if let Key::Value(k) = k { Some((k, v)) } else { None })
            .collect());
    }
    let mut merged = Vec::new();
    let mut own = Vec::new();
    for (key, value) in pairs {
        match key {
            Key::Value(k) => own.push((k, value)),
            Key::Merge => match value {
                Node::Map(p) => merged.extend(p),
                Node::Seq(items) => {
                    let mut maps = Vec::new();
                    for item in items {
                        match item {
                            Node::Map(p) => maps.push(p),
                            _ => {
                                return Err(unsupported(
                                    mark,
                                    "`<<` merges only mappings, but its list holds another value",
                                ))
                            }
                        }
                    }
                    for p in maps.into_iter().rev() {
                        merged.extend(p);
                    }
                }
                _ => return Err(unsupported(mark, "`<<` merges only a mapping or a list of mappings")),
            },
        }
    }
    merged.extend(own);
    Ok(merged)
}

enum Scalar {
    Merge,
    Node(Node),
}

fn check_collection_tag(tag: Option<&Tag>, kind: &str, mark: Marker) -> Result<(), ConfigError> {
    let Some(tag) = tag else { return Ok(()) };
    let full = format!("{}{}", tag.handle, tag.suffix);
    if full == "!" || full == format!("{YAML_TAG}{kind}") {
        Ok(())
    } else {
        Err(unsupported(mark, format!("the tag `{full}` is not supported here (only standard YAML types are)")))
    }
}

fn scalar_from(value: String, is_plain: bool, tag: Option<&Tag>, mark: Marker) -> Result<Scalar, ConfigError> {
    let Some(tag) = tag else {
        return Ok(if is_plain { resolve_plain(value) } else { Scalar::Node(Node::Str(value)) });
    };
    let full = format!("{}{}", tag.handle, tag.suffix);
    if full == "!" {
        return Ok(Scalar::Node(Node::Str(value)));
    }
    let bad = |what: &str| unsupported(mark, format!("{value:?} cannot be read as {what}"));
    let node = match full.strip_prefix(YAML_TAG) {
        Some("str") => Node::Str(value),
        Some("null") => Node::Null,
        Some("bool") => match value.to_lowercase().as_str() {
            "yes" | "true" | "on" => Node::Bool(true),
            "no" | "false" | "off" => Node::Bool(false),
            _ => return Err(bad("!!bool")),
        },
        Some("int") => int_from_literal(&value).ok_or_else(|| bad("!!int"))?,
        Some("float") => float_from_literal(&value).map(Node::Float).ok_or_else(|| bad("!!float"))?,
        Some("timestamp") => Node::Timestamp(value),
        _ => {
            return Err(unsupported(mark, format!("the tag `{full}` is not supported (only standard YAML types are)")))
        }
    };
    Ok(Scalar::Node(node))
}

/// YAML 1.1 implicit typing of a plain scalar, as PyYAML's resolver does it.
fn resolve_plain(value: String) -> Scalar {
    let node = match value.as_str() {
        "" | "~" | "null" | "Null" | "NULL" => Node::Null,
        "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Node::Bool(true),
        "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Node::Bool(false),
        "<<" => return Scalar::Merge,
        v if is_yaml11_float(v) => match float_from_literal(v) {
            Some(f) => Node::Float(f),
            None => Node::Str(value),
        },
        v if is_yaml11_int(v) => match int_from_literal(v) {
            Some(n) => n,
            // `0b_` matches the pattern but has no digits; PyYAML fails on it
            // too, we keep it as text rather than refuse the file.
            None => Node::Str(value),
        },
        v if is_yaml11_timestamp(v) => Node::Timestamp(value),
        _ => Node::Str(value),
    };
    Scalar::Node(node)
}

fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

fn all(s: &str, ok: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(ok)
}

fn is_digit_or_underscore(b: u8) -> bool {
    b.is_ascii_digit() || b == b'_'
}

/// `[0-5]?[0-9]` — one sexagesimal part after a colon.
fn is_base60_part(part: &str) -> bool {
    match part.as_bytes() {
        [d] => d.is_ascii_digit(),
        [a, b] => (b'0'..=b'5').contains(a) && b.is_ascii_digit(),
        _ => false,
    }
}

/// `[0-9][0-9_]*`
fn is_digits_start(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_digit) && all(s, is_digit_or_underscore)
}

fn is_yaml11_int(s: &str) -> bool {
    let (_, body) = split_sign(s);
    if let Some(rest) = body.strip_prefix("0b") {
        return !rest.is_empty() && all(rest, |b| matches!(b, b'0' | b'1' | b'_'));
    }
    if let Some(rest) = body.strip_prefix("0x") {
        return !rest.is_empty() && all(rest, |b| b.is_ascii_hexdigit() || b == b'_');
    }
    if body == "0" {
        return true;
    }
    if let Some(rest) = body.strip_prefix('0') {
        return !rest.is_empty() && all(rest, |b| matches!(b, b'0'..=b'7' | b'_'));
    }
    let mut parts = body.split(':');
    let first = parts.next().unwrap_or("");
    let first_ok =
        first.as_bytes().first().is_some_and(|b| (b'1'..=b'9').contains(b)) && all(first, is_digit_or_underscore);
    first_ok && parts.all(is_base60_part)
}

/// `([eE][-+][0-9]+)?` at the end of `s`; returns the part before it.
fn strip_exponent(s: &str) -> Option<&str> {
    match s.find(['e', 'E']) {
        None => Some(s),
        Some(i) => {
            let exp = &s[i + 1..];
            let (sign, digits) = (exp.as_bytes().first(), exp.get(1..).unwrap_or(""));
            let ok = matches!(sign, Some(b'-' | b'+')) && !digits.is_empty() && all(digits, |b| b.is_ascii_digit());
            ok.then_some(&s[..i])
        }
    }
}

fn is_yaml11_float(s: &str) -> bool {
    if matches!(s, ".nan" | ".NaN" | ".NAN") {
        return true;
    }
    let (_, body) = split_sign(s);
    if matches!(body, ".inf" | ".Inf" | ".INF") {
        return true;
    }
    // `\.[0-9][0-9_]*(exp)?` takes no sign.
    if let Some(rest) = s.strip_prefix('.') {
        return strip_exponent(rest).is_some_and(is_digits_start);
    }
    // `[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*`
    if body.contains(':') {
        let Some((whole, fraction)) = body.split_once('.') else { return false };
        let mut parts = whole.split(':');
        let head = parts.next().unwrap_or("");
        let tail: Vec<&str> = parts.collect();
        return is_digits_start(head)
            && !tail.is_empty()
            && tail.iter().all(|p| is_base60_part(p))
            && all(fraction, is_digit_or_underscore);
    }
    // `[-+]?[0-9][0-9_]*\.[0-9_]*(exp)?`
    let Some(mantissa) = strip_exponent(body) else { return false };
    let Some((whole, fraction)) = mantissa.split_once('.') else { return false };
    is_digits_start(whole) && all(fraction, is_digit_or_underscore)
}

/// Value of an int literal the way PyYAML constructs it (underscores
/// dropped; `0b`, `0x`, a leading `0` for octal, `a:b:c` base 60).
fn int_from_literal(s: &str) -> Option<Node> {
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    let (negative, body) = split_sign(&cleaned);
    let (digits, radix) = if let Some(rest) = body.strip_prefix("0b") {
        (rest.to_owned(), 2)
    } else if let Some(rest) = body.strip_prefix("0x") {
        (rest.to_owned(), 16)
    } else if body.len() > 1 && body.starts_with('0') && !body.contains(':') {
        (body[1..].to_owned(), 8)
    } else if body.contains(':') {
        let mut value: i128 = 0;
        for part in body.split(':') {
            let p: i128 = part.parse().ok()?;
            value = value.checked_mul(60)?.checked_add(p)?;
        }
        let value = if negative { -value } else { value };
        return Some(i64::try_from(value).map_or_else(|_| Node::BigInt(value.to_string()), Node::Int));
    } else {
        (body.to_owned(), 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let signed = if negative { format!("-{digits}") } else { digits.clone() };
    Some(match i64::from_str_radix(&signed, radix) {
        Ok(n) => Node::Int(n),
        Err(_) => Node::BigInt(if radix == 10 { signed } else { s.to_owned() }),
    })
}

/// Value of a float literal the way PyYAML constructs it.
fn float_from_literal(s: &str) -> Option<f64> {
    let cleaned: String = s.chars().filter(|&c| c != '_').collect::<String>().to_lowercase();
    let (negative, body) = split_sign(&cleaned);
    let sign = if negative { -1.0 } else { 1.0 };
    let magnitude = match body {
        ".inf" => f64::INFINITY,
        ".nan" => return Some(f64::NAN),
        b if b.contains(':') => {
            let mut value = 0.0f64;
            for part in b.split(':') {
                value = value * 60.0 + part.parse::<f64>().ok()?;
            }
            value
        }
        // Rust would also read `inf`/`nan` words; Python's float() as used by
        // PyYAML does too, but the resolver never hands them over.
        b => b.parse::<f64>().ok()?,
    };
    Some(sign * magnitude)
}

/// PyYAML's timestamp pattern: `YYYY-MM-DD`, or a date and a time with
/// optional fraction and zone.
fn is_yaml11_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |from: usize, n: usize| b.get(from..from + n).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let dash = |at: usize| b.get(at) == Some(&b'-');
    if b.len() == 10 && digits(0, 4) && dash(4) && digits(5, 2) && dash(7) && digits(8, 2) {
        return true;
    }
    // The long form, read left to right.
    let take_digits = |i: &mut usize, min: usize, max: usize| -> bool {
        let start = *i;
        while *i - start < max && b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start >= min
    };
    let expect = |i: &mut usize, c: u8| -> bool {
        let found = b.get(*i) == Some(&c);
        if found {
            *i += 1;
        }
        found
    };
    let mut i = 0;
    let date = take_digits(&mut i, 4, 4)
        && expect(&mut i, b'-')
        && take_digits(&mut i, 1, 2)
        && expect(&mut i, b'-')
        && take_digits(&mut i, 1, 2);
    if !date {
        return false;
    }
    // `[Tt]` or one or more blanks.
    match b.get(i) {
        Some(b'T' | b't') => i += 1,
        Some(b' ' | b'\t') => {
            while matches!(b.get(i), Some(b' ' | b'\t')) {
                i += 1;
            }
        }
        _ => return false,
    }
    let time = take_digits(&mut i, 1, 2)
        && expect(&mut i, b':')
        && take_digits(&mut i, 2, 2)
        && expect(&mut i, b':')
        && take_digits(&mut i, 2, 2);
    if !time {
        return false;
    }
    if expect(&mut i, b'.') {
        take_digits(&mut i, 0, usize::MAX);
    }
    if i == b.len() {
        return true;
    }
    while matches!(b.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    match b.get(i) {
        Some(b'Z') => i += 1,
        Some(b'-' | b'+') => {
            i += 1;
            if !take_digits(&mut i, 1, 2) || (expect(&mut i, b':') && !take_digits(&mut i, 2, 2)) {
                return false;
            }
        }
        _ => return false,
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Node {
        match node_from_yaml(&format!("v: {text}")) {
            Ok(Some(Node::Map(pairs))) => pairs.into_iter().next().map(|(_, v)| v).unwrap_or(Node::Null),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn plain_scalars_resolve_as_yaml_1_1() {
        assert_eq!(one("yes"), Node::Bool(true));
        assert_eq!(one("Off"), Node::Bool(false));
        assert_eq!(one("y"), Node::Str("y".into()));
        assert_eq!(one("~"), Node::Null);
        assert_eq!(one(""), Node::Null);
        assert_eq!(one("010"), Node::Int(8));
        assert_eq!(one("09"), Node::Str("09".into()));
        assert_eq!(one("0x1F"), Node::Int(31));
        assert_eq!(one("-0b11"), Node::Int(-3));
        assert_eq!(one("1_000"), Node::Int(1000));
        assert_eq!(one("1:30"), Node::Int(90));
        assert_eq!(one("1e3"), Node::Str("1e3".into()));
        assert_eq!(one("1.0e+3"), Node::Float(1000.0));
        assert_eq!(one("1.e+5"), Node::Float(100000.0));
        assert_eq!(one(".5"), Node::Float(0.5));
        assert_eq!(one("-.inf"), Node::Float(f64::NEG_INFINITY));
        assert_eq!(one("1:30.5"), Node::Float(90.5));
        assert!(matches!(one(".NaN"), Node::Float(f) if f.is_nan()));
        assert_eq!(one("2024-01-01"), Node::Timestamp("2024-01-01".into()));
        assert_eq!(one("2001-12-14 21:59:43.10 -5"), Node::Timestamp("2001-12-14 21:59:43.10 -5".into()));
        assert_eq!(one("2001-12-14t21:59:43Z"), Node::Timestamp("2001-12-14t21:59:43Z".into()));
        assert_eq!(one("2024-1-1"), Node::Str("2024-1-1".into()));
        assert_eq!(one("99999999999999999999"), Node::BigInt("99999999999999999999".into()));
        assert_eq!(one("'yes'"), Node::Str("yes".into()));
        assert_eq!(one("\"12\""), Node::Str("12".into()));
    }

    #[test]
    fn standard_tags_are_honoured_and_others_refused() {
        assert_eq!(one("!!str 12"), Node::Str("12".into()));
        assert_eq!(one("!!int \"12\""), Node::Int(12));
        assert_eq!(one("!!float 1"), Node::Float(1.0));
        assert_eq!(one("!!bool yes"), Node::Bool(true));
        let err = node_from_yaml("v: !foo 1").unwrap_err();
        assert!(err.to_string().contains("`!foo` is not supported"), "{err}");
        assert!(node_from_yaml("v: !!int abc").unwrap_err().to_string().contains("!!int"));
        assert!(node_from_yaml("v: !!binary aGk=").is_err());
    }

    #[test]
    fn merge_keys_and_duplicates_follow_pyyaml() {
        let doc = "base: &b {p: 1, q: 1}\nother: &o {q: 2, r: 2}\nm:\n  <<: [*b, *o]\n  r: 3\n";
        let Ok(Some(Node::Map(pairs))) = node_from_yaml(doc) else { panic!() };
        let m = &pairs[2].1;
        let expected = Node::Map(vec![
            (Node::Str("q".into()), Node::Int(2)),
            (Node::Str("r".into()), Node::Int(2)),
            (Node::Str("p".into()), Node::Int(1)),
            (Node::Str("q".into()), Node::Int(1)),
            (Node::Str("r".into()), Node::Int(3)),
        ]);
        assert_eq!(*m, expected);
        assert!(node_from_yaml("a: <<").unwrap_err().to_string().contains("merge key"));
    }

    #[test]
    fn documents_and_keys() {
        assert_eq!(node_from_yaml("").unwrap(), None);
        assert_eq!(node_from_yaml("# only a comment\n").unwrap(), None);
        assert_eq!(node_from_yaml("---\n...\n").unwrap(), None);
        assert_eq!(
            node_from_yaml("\u{feff}a: 1").unwrap(),
            Some(Node::Map(vec![(Node::Str("a".into()), Node::Int(1))]))
        );
        assert_eq!(node_from_yaml("--- a\n--- b\n").unwrap_err(), ConfigError::MultipleDocuments { line: 2 });
        assert!(node_from_yaml("? [1]\n: 2\n").unwrap_err().to_string().contains("mapping key"));
        assert!(node_from_yaml("&a [*a]").unwrap_err().to_string().contains("recursive alias"));
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let err = node_from_yaml("a: 1\nb: [1, 2\n").unwrap_err();
        match err {
            ConfigError::Syntax { line, column, .. } => assert_eq!((line, column), (3, 1)),
            other => panic!("{other:?}"),
        }
        let err = node_from_yaml("a:\n  b: 1\n c: 2\n").unwrap_err();
        assert!(matches!(err, ConfigError::Syntax { line: 3, .. }), "{err:?}");
    }

    #[test]
    fn deep_nesting_is_refused() {
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert!(matches!(node_from_yaml(&deep), Err(ConfigError::TooDeep { limit: MAX_DEPTH, .. })));
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(node_from_yaml(&ok).is_ok());
        // Block nesting (one key per level) hits our bound...
        let block: String = (0..100).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        let got = node_from_yaml(&block);
        assert!(matches!(got, Err(ConfigError::TooDeep { limit: MAX_DEPTH, line: 65, .. })), "{got:?}");
        // ...and very deep flow nesting is stopped by the scanner's own limit.
        let got = node_from_yaml(&"[".repeat(200_000));
        assert!(
            matches!(&got, Err(ConfigError::Syntax { message, .. }) if message.contains("recursion limit")),
            "{got:?}"
        );
    }
}
