//! A JSON reader that sees a document the way Python's `json.load` does,
//! because the reference parses traces with it and the differences show up in
//! reports:
//!
//! * object keys stay in document order; a repeated key keeps the place of its
//!   *first* occurrence and the value of its *last* (a Python `dict`);
//! * `NaN`, `Infinity` and `-Infinity` are accepted, and float literals too
//!   large for a double become infinities;
//! * integers keep every digit (Python `int` has no size limit) up to Python
//!   3.11's 4300-digit string conversion limit, beyond which the document is
//!   rejected;
//! * unpaired UTF-16 surrogate escapes are accepted (see [`LONE_SURROGATE`]);
//! * raw control characters inside strings are rejected (`strict=True`).
//!
//! Deliberate differences: a leading UTF-8 byte order mark is skipped (the
//! reference rejects it; edge_json_bom); nesting deeper than [`MAX_NESTING`]
//! levels is refused with its place, where Python's `json` hits its recursion
//! limit near the same depth and crashes (`RecursionError`); and a UTF-16
//! file is named as such instead of failing on its first byte.
//!
//! The reader is iterative, so depth costs heap, not stack; [`PyValue`]'s
//! `Drop`, `Clone`, `PartialEq` and `Debug` are iterative for the same reason.
//! The nesting bound still matters: it keeps every recursive consumer of a
//! tree (serde's `Value`, its drop, report metadata) on a bounded stack,
//! which is small in the browser's worker. It owns no trace rules: those live
//! in the parent module.

use std::fmt;

/// The character that stands for an unpaired UTF-16 surrogate escape.
///
/// Python strings can hold a lone surrogate (`"\ud83d"` parses), Rust strings
/// cannot. U+10FFFE is a noncharacter that real text does not use, and it
/// behaves like a surrogate for detection: Python's `isalnum`, `isspace` and
/// `isprintable` are all false for both, and both count as one character. Its
/// second job is to let report writing find such strings and refuse them,
/// because the reference crashes when it has to encode one into the report
/// (edge_lone_surrogate). A genuine U+10FFFE in the input is read as the same
/// marker; no trace in the corpus has one.
pub const LONE_SURROGATE: char = '\u{10FFFE}';

/// Python 3.11's default limit on the digits of an integer literal
/// (`sys.get_int_max_str_digits()`); a longer literal fails to parse.
pub const MAX_INT_DIGITS: usize = 4300;

/// Deepest nesting of arrays and objects accepted (the top-level value is
/// level 1). Python's `json` recurses once per level and crashes at its
/// recursion limit near 1000 levels (edge_deep_nesting has 200), so every
/// document the reference reads is well within this bound. We read deeper
/// documents (parsing, flattening and dropping are iterative), up to this
/// bound, which keeps the work per byte of brackets fixed.
pub const MAX_NESTING: usize = 20_000;
/// The deepest nesting [`PyValue::to_json`] keeps (serde_json's own reader
/// stops at 128 too). serde_json values are built and dropped recursively,
/// so a deeper one could overflow the stack: a trace whose top-level
/// `metadata` nested 20 000 arrays did (found with the fuzz target
/// `trace_pipeline`). Only shallow metadata fields are ever read.
pub const MAX_JSON_DEPTH: usize = 128;

/// A parsed JSON value, with Python's reading of numbers and objects.
#[derive(Default)]
pub enum PyValue {
    #[default]
    Null,
    Bool(bool),
    /// Every digit as written, with a leading `-` for negatives; `-0` is
    /// normalised to `0` as Python's `int` would print it.
    Int(String),
    Float(f64),
    Str(String),
    Array(Vec<PyValue>),
    /// Entries in document order, keys unique (see the module notes).
    Object(Vec<(String, PyValue)>),
}

impl PyValue {
    /// A short English name of the value's JSON type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            PyValue::Null => "null",
            PyValue::Bool(_) => "a boolean",
            PyValue::Int(_) | PyValue::Float(_) => "a number",
            PyValue::Str(_) => "a string",
            PyValue::Array(_) => "an array",
            PyValue::Object(_) => "an object",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            PyValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value stored under `key`, when this is an object.
    pub fn get(&self, key: &str) -> Option<&PyValue> {
        match self {
            PyValue::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Python's `bool(value)`: false for `None`, `False`, zero, and empty
    /// strings, lists and dicts (NaN is true).
    pub fn is_truthy(&self) -> bool {
        match self {
            PyValue::Null => false,
            PyValue::Bool(b) => *b,
            PyValue::Int(digits) => digits != "0",
            PyValue::Float(x) => *x != 0.0,
            PyValue::Str(s) => !s.is_empty(),
            PyValue::Array(items) => !items.is_empty(),
            PyValue::Object(entries) => !entries.is_empty(),
        }
    }

    /// The value as serde JSON, for data we only pass on: NaN and the
    /// infinities become null, an integer too large for 64 bits a float, and
    /// containers nested deeper than [`MAX_JSON_DEPTH`] null.
    pub fn to_json(&self) -> serde_json::Value {
        self.to_json_within(MAX_JSON_DEPTH)
    }

    fn to_json_within(&self, depth: usize) -> serde_json::Value {
        use serde_json::Value;
        if depth == 0 && self.is_container() {
            return Value::Null;
        }
        let inner = depth.saturating_sub(1);
        match self {
            PyValue::Null => Value::Null,
            PyValue::Bool(b) => Value::Bool(*b),
            PyValue::Int(digits) => match (digits.parse::<i64>(), digits.parse::<u64>()) {
                (Ok(i), _) => Value::from(i),
                (_, Ok(u)) => Value::from(u),
                _ => {
                    digits.parse::<f64>().ok().and_then(serde_json::Number::from_f64).map_or(Value::Null, Value::Number)
                }
            },
            PyValue::Float(x) => serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number),
            PyValue::Str(s) => Value::String(s.clone()),
            PyValue::Array(items) => Value::Array(items.iter().map(|v| v.to_json_within(inner)).collect()),
            PyValue::Object(entries) => {
                // Inserted one by one: collecting would sort with a copy of the sort of its own.
                let mut object = serde_json::Map::new();
                for (k, v) in entries {
                    object.insert(k.clone(), v.to_json_within(inner));
                }
                Value::Object(object)
            }
        }
    }

    pub fn is_container(&self) -> bool {
        matches!(self, PyValue::Array(_) | PyValue::Object(_))
    }

    /// A copy of a scalar, or `None` for a container.
    fn scalar_clone(&self) -> Option<PyValue> {
        Some(match self {
            PyValue::Null => PyValue::Null,
            PyValue::Bool(b) => PyValue::Bool(*b),
            PyValue::Int(d) => PyValue::Int(d.clone()),
            PyValue::Float(x) => PyValue::Float(*x),
            PyValue::Str(s) => PyValue::Str(s.clone()),
            PyValue::Array(_) | PyValue::Object(_) => return None,
        })
    }
}

impl Drop for PyValue {
    // The derived drop would recurse once per nesting level and overflow the
    // stack on deep documents; children with children are moved to a heap
    // stack first, so every drop below is shallow.
    fn drop(&mut self) {
        let has_nested = match self {
            PyValue::Array(items) => items.iter().any(PyValue::is_container),
            PyValue::Object(entries) => entries.iter().any(|(_, v)| v.is_container()),
            _ => false,
        };
        if !has_nested {
            return;
        }
        let mut pending: Vec<PyValue> = Vec::new();
        drain_children(self, &mut pending);
        while let Some(mut value) = pending.pop() {
            drain_children(&mut value, &mut pending);
        }
    }
}

fn drain_children(value: &mut PyValue, into: &mut Vec<PyValue>) {
    match value {
        PyValue::Array(items) => into.extend(items.drain(..).filter(PyValue::is_container)),
        PyValue::Object(entries) => into.extend(entries.drain(..).map(|(_, v)| v).filter(PyValue::is_container)),
        _ => {}
    }
}

impl Clone for PyValue {
    fn clone(&self) -> Self {
        enum Copying<'a> {
            Array(std::slice::Iter<'a, PyValue>, Vec<PyValue>),
            Object(std::slice::Iter<'a, (String, PyValue)>, Vec<(String, PyValue)>, String),
        }
        fn start(value: &PyValue) -> Result<PyValue, Copying<'_>> {
            match value {
                PyValue::Array(items) => Err(Copying::Array(items.iter(), Vec::with_capacity(items.len()))),
                PyValue::Object(entries) => {
                    Err(Copying::Object(entries.iter(), Vec::with_capacity(entries.len()), String::new()))
                }
                scalar => Ok(scalar.scalar_clone().unwrap_or_default()),
            }
        }
        let mut stack = match start(self) {
            Ok(scalar) => return scalar,
            Err(frame) => vec![frame],
        };
        loop {
            let next = match stack.last_mut() {
                None => return PyValue::Null,
                Some(Copying::Array(iter, _)) => iter.next(),
                Some(Copying::Object(iter, _, key)) => iter.next().map(|(k, v)| {
                    key.clone_from(k);
                    v
                }),
            };
            let finished = match next {
                Some(child) => match start(child) {
                    Ok(scalar) => scalar,
                    Err(frame) => {
                        stack.push(frame);
                        continue;
                    }
                },
                None => match stack.pop() {
                    Some(Copying::Array(_, items)) => PyValue::Array(items),
                    Some(Copying::Object(_, entries, _)) => PyValue::Object(entries),
                    None => return PyValue::Null,
                },
            };
            match stack.last_mut() {
                None => return finished,
                Some(Copying::Array(_, items)) => items.push(finished),
                Some(Copying::Object(_, entries, key)) => entries.push((std::mem::take(key), finished)),
            }
        }
    }
}

impl PartialEq for PyValue {
    /// Structural equality; NaN equals NaN here (the tree is data, not
    /// arithmetic) so that a parsed document equals its own copy.
    fn eq(&self, other: &Self) -> bool {
        let mut pending: Vec<(&PyValue, &PyValue)> = vec![(self, other)];
        while let Some((a, b)) = pending.pop() {
            let same = match (a, b) {
                (PyValue::Null, PyValue::Null) => true,
                (PyValue::Bool(x), PyValue::Bool(y)) => x == y,
                (PyValue::Int(x), PyValue::Int(y)) => x == y,
                (PyValue::Float(x), PyValue::Float(y)) => x == y || (x.is_nan() && y.is_nan()),
                (PyValue::Str(x), PyValue::Str(y)) => x == y,
                (PyValue::Array(x), PyValue::Array(y)) => {
                    x.len() == y.len() && {
                        pending.extend(x.iter().zip(y));
                        true
                    }
                }
                (PyValue::Object(x), PyValue::Object(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|((kx, _), (ky, _))| kx == ky) && {
                        pending.extend(x.iter().zip(y).map(|((_, vx), (_, vy))| (vx, vy)));
                        true
                    }
                }
                _ => false,
            };
            if !same {
                return false;
            }
        }
        true
    }
}

impl fmt::Debug for PyValue {
    /// A compact JSON-like rendering (floats in Python spelling), written
    /// without recursion.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct DebugWriter<'f, 'g> {
            f: &'f mut fmt::Formatter<'g>,
            result: fmt::Result,
        }
        impl Visitor for DebugWriter<'_, '_> {
            fn scalar(&mut self, value: &PyValue) {
                self.result = self.result.and_then(|()| match value {
                    PyValue::Null => self.f.write_str("null"),
                    PyValue::Bool(b) => write!(self.f, "{b}"),
                    PyValue::Int(d) => self.f.write_str(d),
                    PyValue::Float(x) => self.f.write_str(&crate::util::py_float_repr(*x)),
                    PyValue::Str(s) => write!(self.f, "{s:?}"),
                    PyValue::Array(_) | PyValue::Object(_) => Ok(()),
                });
            }
            fn open(&mut self, is_object: bool) {
                self.result = self.result.and_then(|()| self.f.write_str(if is_object { "{" } else { "[" }));
            }
            fn item(&mut self, index: usize, key: Option<&str>) {
                self.result = self.result.and_then(|()| {
                    if index > 0 {
                        self.f.write_str(", ")?;
                    }
                    match key {
                        Some(k) => write!(self.f, "{k:?}: "),
                        None => Ok(()),
                    }
                });
            }
            fn close(&mut self, is_object: bool) {
                self.result = self.result.and_then(|()| self.f.write_str(if is_object { "}" } else { "]" }));
            }
        }
        let mut writer = DebugWriter { f, result: Ok(()) };
        walk(self, &mut writer);
        writer.result
    }
}

/// Callbacks of [`walk`], in document order.
pub(crate) trait Visitor {
    /// A non-container value.
    fn scalar(&mut self, value: &PyValue);
    /// A container starts.
    fn open(&mut self, is_object: bool);
    /// Item `index` of the innermost open container starts; `key` for objects.
    fn item(&mut self, index: usize, key: Option<&str>);
    /// The innermost open container ends.
    fn close(&mut self, is_object: bool);
}

/// Visits a value tree depth-first without recursion.
pub(crate) fn walk(root: &PyValue, visitor: &mut impl Visitor) {
    enum Cursor<'a> {
        Array(std::slice::Iter<'a, PyValue>, usize),
        Object(std::slice::Iter<'a, (String, PyValue)>, usize),
    }
    fn enter<'a>(value: &'a PyValue, visitor: &mut impl Visitor, stack: &mut Vec<Cursor<'a>>) {
        match value {
            PyValue::Array(items) => {
                visitor.open(false);
                stack.push(Cursor::Array(items.iter(), 0));
            }
            PyValue::Object(entries) => {
                visitor.open(true);
                stack.push(Cursor::Object(entries.iter(), 0));
            }
            scalar => visitor.scalar(scalar),
        }
    }
    let mut stack = Vec::new();
    enter(root, visitor, &mut stack);
    while let Some(top) = stack.last_mut() {
        let next = match top {
            Cursor::Array(iter, index) => iter.next().map(|v| {
                *index += 1;
                (*index - 1, None, v)
            }),
            Cursor::Object(iter, index) => iter.next().map(|(k, v)| {
                *index += 1;
                (*index - 1, Some(k.as_str()), v)
            }),
        };
        match next {
            Some((index, key, child)) => {
                visitor.item(index, key);
                enter(child, visitor, &mut stack);
            }
            None => {
                let is_object = matches!(stack.pop(), Some(Cursor::Object(..)));
                visitor.close(is_object);
            }
        }
    }
}

/// Why a document is not JSON, and where (1-based; the column counts
/// characters, as Python's `json` errors do).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct JsonError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// Parses a whole document (UTF-8, optionally with a BOM) into a value tree.
pub fn parse_json(input: &[u8]) -> Result<PyValue, JsonError> {
    parse_document(input, None)
}

/// Like [`parse_json`], but each element of the top-level object's `events`
/// array is handed to `on_event` (with its index) as soon as it is read, and
/// the tree keeps a `null` in its place. A trace is then never held twice —
/// once as a tree and once as events — which halves peak memory on large
/// files. When `events` repeats, every occurrence's elements are handed
/// over in document order, each array's from index 0. The third argument is
/// the byte offset the parser has reached.
pub fn parse_json_with_events(
    input: &[u8],
    on_event: &mut dyn FnMut(usize, PyValue, usize),
) -> Result<PyValue, JsonError> {
    parse_document(input, Some(on_event))
}

fn parse_document(input: &[u8], on_event: Option<&mut dyn FnMut(usize, PyValue, usize)>) -> Result<PyValue, JsonError> {
    let body = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    let text = utf8_text(body)?;
    Parser { text, bytes: text.as_bytes(), pos: 0, on_event }.document()
}

/// Why `bytes` look like UTF-16 text, if they do: a UTF-16 byte order mark,
/// or a zero byte among the first two (the high byte of an ASCII character
/// in UTF-16; a zero byte can start no JSON or YAML text).
pub fn utf16_hint(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, ..] => Some("it starts with a UTF-16 little-endian byte order mark"),
        [0xFE, 0xFF, ..] => Some("it starts with a UTF-16 big-endian byte order mark"),
        [0, ..] | [_, 0, ..] => Some("every other byte is zero"),
        _ => None,
    }
}

/// `bytes` as text, or where they stop being UTF-8 (a UTF-16 file is named
/// as such, at line 1, column 1).
pub fn utf8_text(bytes: &[u8]) -> Result<&str, JsonError> {
    if let Some(hint) = utf16_hint(bytes) {
        return Err(JsonError {
            line: 1,
            column: 1,
            message: format!("the file is UTF-16 text, not UTF-8 ({hint}); save it as UTF-8"),
        });
    }
    std::str::from_utf8(bytes)
        .map_err(|e| error_at(bytes, e.valid_up_to(), "the file is not valid UTF-8 text (save it as UTF-8)".into()))
}

fn error_at(bytes: &[u8], pos: usize, message: String) -> JsonError {
    let before = bytes.get(..pos).unwrap_or(bytes);
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let column = 1 + before.get(line_start..).unwrap_or_default().iter().filter(|&&b| (b & 0xC0) != 0x80).count();
    JsonError { line, column, message }
}

/// A container being filled; an object frame also holds the key whose value
/// is being read.
enum Frame {
    Array(Vec<PyValue>),
    Object(Vec<(String, PyValue)>, String),
}

struct Parser<'a, 'h> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    on_event: Option<&'h mut dyn FnMut(usize, PyValue, usize)>,
}

impl Parser<'_, '_> {
    fn fail<T>(&self, pos: usize, message: impl Into<String>) -> Result<T, JsonError> {
        Err(error_at(self.bytes, pos, message.into()))
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    fn document(mut self) -> Result<PyValue, JsonError> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.skip_whitespace();
            if matches!(self.peek(), Some(b'{' | b'[')) && stack.len() >= MAX_NESTING {
                return self.fail(
                    self.pos,
                    format!(
                        "the document nests arrays and objects more than {MAX_NESTING} levels deep \
                         (Python's json stops near this depth too); flatten the data"
                    ),
                );
            }
            let mut value = match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        PyValue::Object(Vec::new())
                    } else {
                        let key = self.object_key()?;
                        stack.push(Frame::Object(Vec::new(), key));
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        PyValue::Array(Vec::new())
                    } else {
                        stack.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'"') => PyValue::Str(self.string()?),
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(b't') => self.literal("true", PyValue::Bool(true))?,
                Some(b'f') => self.literal("false", PyValue::Bool(false))?,
                Some(b'n') => self.literal("null", PyValue::Null)?,
                Some(b'N') => self.literal("NaN", PyValue::Float(f64::NAN))?,
                Some(b'I') => self.literal("Infinity", PyValue::Float(f64::INFINITY))?,
                None if stack.is_empty() && self.pos == 0 => return self.fail(self.pos, "the file is empty"),
                _ => return self.fail(self.pos, "expected a value"),
            };
            // `value` is complete: hand it to its container, closing every
            // container that ends right after it.
            loop {
                match stack.pop() {
                    None => {
                        self.skip_whitespace();
                        if self.pos < self.bytes.len() {
                            return self.fail(self.pos, "unexpected text after the end of the JSON value");
                        }
                        return Ok(value);
                    }
                    Some(Frame::Array(mut items)) => {
                        if let (Some(on_event), [Frame::Object(_, key)]) = (self.on_event.as_mut(), stack.as_slice()) {
                            if key == "events" {
                                on_event(items.len(), std::mem::take(&mut value), self.pos);
                            }
                        }
                        items.push(value);
                        self.skip_whitespace();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                stack.push(Frame::Array(items));
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                value = PyValue::Array(items);
                            }
                            _ => return self.fail(self.pos, "expected ',' or ']' after an array item"),
                        }
                    }
                    Some(Frame::Object(mut entries, key)) => {
                        entries.push((key, value));
                        self.skip_whitespace();
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_whitespace();
                                let key = self.object_key()?;
                                stack.push(Frame::Object(entries, key));
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                value = PyValue::Object(merge_duplicate_keys(entries));
                            }
                            _ => return self.fail(self.pos, "expected ',' or '}' after an object member"),
                        }
                    }
                }
            }
        }
    }

    /// A key and its colon; `pos` is at the key's opening quote (if any).
    fn object_key(&mut self) -> Result<String, JsonError> {
        if self.peek() != Some(b'"') {
            return self.fail(self.pos, "expected an object key in double quotes");
        }
        let key = self.string()?;
        self.skip_whitespace();
        if self.peek() != Some(b':') {
            return self.fail(self.pos, "expected ':' after an object key");
        }
        self.pos += 1;
        Ok(key)
    }

    fn literal(&mut self, word: &str, value: PyValue) -> Result<PyValue, JsonError> {
        if self.bytes.get(self.pos..).is_some_and(|rest| rest.starts_with(word.as_bytes())) {
            self.pos += word.len();
            Ok(value)
        } else {
            self.fail(self.pos, "expected a value")
        }
    }

    fn digits_from(&self, mut p: usize) -> usize {
        while self.bytes.get(p).is_some_and(u8::is_ascii_digit) {
            p += 1;
        }
        p
    }

    /// Python's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
    /// A `.` or exponent marker without digits is left unread (the caller
    /// then reports the stray character), as Python does.
    fn number(&mut self) -> Result<PyValue, JsonError> {
        let start = self.pos;
        let mut p = start;
        let negative = self.bytes.get(p) == Some(&b'-');
        if negative {
            p += 1;
            if self.bytes.get(p..).is_some_and(|rest| rest.starts_with(b"Infinity")) {
                self.pos = p + "Infinity".len();
                return Ok(PyValue::Float(f64::NEG_INFINITY));
            }
        }
        match self.bytes.get(p) {
            Some(b'0') => p += 1,
            Some(b'1'..=b'9') => p = self.digits_from(p + 1),
            _ => return self.fail(start, "expected a value"),
        }
        let int_end = p;
        let mut is_float = false;
        if self.bytes.get(p) == Some(&b'.') && self.bytes.get(p + 1).is_some_and(u8::is_ascii_digit) {
            p = self.digits_from(p + 1);
            is_float = true;
        }
        if let Some(b'e' | b'E') = self.bytes.get(p) {
            let mut q = p + 1;
            if let Some(b'+' | b'-') = self.bytes.get(q) {
                q += 1;
            }
            if self.bytes.get(q).is_some_and(u8::is_ascii_digit) {
                p = self.digits_from(q);
                is_float = true;
            }
        }
        self.pos = p;
        let Some(literal) = self.text.get(start..p) else {
            return self.fail(start, "expected a value");
        };
        if is_float {
            // Rust's parser rounds correctly and turns overflow into ±inf,
            // exactly like Python's float().
            return match literal.parse::<f64>() {
                Ok(x) => Ok(PyValue::Float(x)),
                Err(_) => self.fail(start, "malformed number"),
            };
        }
        let digits = int_end - start - usize::from(negative);
        if digits > MAX_INT_DIGITS {
            return self.fail(
                start,
                format!(
                    "an integer with {digits} digits is longer than the {MAX_INT_DIGITS} digits Python accepts \
                     (write it as a string)"
                ),
            );
        }
        Ok(PyValue::Int(if literal == "-0" { "0".to_owned() } else { literal.to_owned() }))
    }

    /// A string literal; `pos` is at the opening quote.
    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        let mut p = scan_plain(self.bytes, open + 1);
        if self.bytes.get(p) == Some(&b'"') {
            self.pos = p + 1;
            return self.slice(open + 1, p).map(str::to_owned);
        }
        let mut out = String::with_capacity(p - open + 16);
        out.push_str(self.slice(open + 1, p)?);
        loop {
            match self.bytes.get(p) {
                Some(b'"') => {
                    self.pos = p + 1;
                    return Ok(out);
                }
                Some(b'\\') => p = self.escape(open, p, &mut out)?,
                Some(&c) if c < 0x20 => {
                    return self.fail(p, format!("control character U+{c:04X} must be escaped inside a string"))
                }
                _ => return self.fail(open, "this string is never closed (missing '\"')"),
            }
            let run_end = scan_plain(self.bytes, p);
            out.push_str(self.slice(p, run_end)?);
            p = run_end;
        }
    }

    fn slice(&self, from: usize, to: usize) -> Result<&str, JsonError> {
        match self.text.get(from..to) {
            Some(s) => Ok(s),
            None => self.fail(from, "malformed string"),
        }
    }

    /// Decodes the escape at `p` (a backslash) into `out`; returns the
    /// position after it.
    fn escape(&self, open: usize, p: usize, out: &mut String) -> Result<usize, JsonError> {
        let simple = match self.bytes.get(p + 1) {
            None => return self.fail(open, "this string is never closed (missing '\"')"),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                let Some(unit) = self.hex4(p + 2) else {
                    return self.fail(p, "a \\u escape needs exactly four hex digits");
                };
                if (0xD800..0xDC00).contains(&unit) && self.bytes.get(p + 6..p + 8) == Some(b"\\u") {
                    if let Some(low @ 0xDC00..=0xDFFF) = self.hex4(p + 8) {
                        let combined = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                        out.push(char::from_u32(combined).unwrap_or(LONE_SURROGATE));
                        return Ok(p + 12);
                    }
                }
                // Any other surrogate is unpaired; the next escape, if any, is
                // read on its own, as Python does.
                out.push(char::from_u32(unit).unwrap_or(LONE_SURROGATE));
                return Ok(p + 6);
            }
            Some(_) => {
                let shown = self.text.get(p..).and_then(|rest| rest.chars().nth(1)).unwrap_or('?');
                return self.fail(p, format!("invalid escape '\\{shown}' in a string"));
            }
        };
        out.push(simple);
        Ok(p + 2)
    }

    fn hex4(&self, at: usize) -> Option<u32> {
        let digits = self.bytes.get(at..at + 4)?;
        digits.iter().try_fold(0u32, |acc, &d| Some(acc * 16 + (d as char).to_digit(16)?))
    }
}

/// The end of the run of bytes from `p` that need no decoding: the first
/// `"`, `\` or control character, or the end of input. Eight bytes at a time.
fn scan_plain(bytes: &[u8], mut p: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // Non-zero when some byte of `x` is below `n` (n <= 128).
    let has_below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    while let Some(chunk) = bytes.get(p..p + 8).and_then(|c| <[u8; 8]>::try_from(c).ok()) {
        let x = u64::from_le_bytes(chunk);
        let special = has_below(x ^ (ONES * u64::from(b'"')), 1)
            | has_below(x ^ (ONES * u64::from(b'\\')), 1)
            | has_below(x, 0x20);
        if special != 0 {
            break;
        }
        p += 8;
    }
    while let Some(&c) = bytes.get(p) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        p += 1;
    }
    p
}

/// Python `dict` semantics for repeated keys: one entry per key, at the
/// position of its first occurrence, holding the value of its last
/// (edge_json_duplicate_keys).
fn merge_duplicate_keys(mut entries: Vec<(String, PyValue)>) -> Vec<(String, PyValue)> {
    let n = entries.len();
    if n < 2 {
        return entries;
    }
    // Most objects are small and have no repeats: check those cheaply.
    if n <= 16 {
        let repeated = entries.iter().enumerate().any(|(i, (k, _))| entries.iter().take(i).any(|(j, _)| j == k));
        if !repeated {
            return entries;
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    crate::util::sort_by(&mut order, |&a, &b| {
        let ka = entries.get(a).map(|e| e.0.as_str());
        let kb = entries.get(b).map(|e| e.0.as_str());
        ka.cmp(&kb).then(a.cmp(&b))
    });
    let mut keep = vec![true; n];
    let mut group_start = 0;
    while group_start < n {
        let key_at = |i: usize| order.get(i).and_then(|&e| entries.get(e)).map(|e| e.0.as_str());
        let mut group_end = group_start + 1;
        while group_end < n && key_at(group_end) == key_at(group_start) {
            group_end += 1;
        }
        if group_end - group_start > 1 {
            if let (Some(&first), Some(&last)) = (order.get(group_start), order.get(group_end - 1)) {
                let value = entries.get_mut(last).map(|e| std::mem::take(&mut e.1)).unwrap_or_default();
                if let Some(entry) = entries.get_mut(first) {
                    entry.1 = value;
                }
                for &dropped in order.get(group_start + 1..group_end).unwrap_or_default() {
                    if let Some(flag) = keep.get_mut(dropped) {
                        *flag = false;
                    }
                }
            }
        }
        group_start = group_end;
    }
    let mut flags = keep.into_iter();
    entries.retain(|_| flags.next().unwrap_or(true));
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<PyValue, JsonError> {
        parse_json(s.as_bytes())
    }

    fn int(s: &str) -> PyValue {
        PyValue::Int(s.into())
    }

    fn string(s: &str) -> PyValue {
        PyValue::Str(s.into())
    }

    fn obj(entries: &[(&str, PyValue)]) -> PyValue {
        PyValue::Object(entries.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect())
    }

    #[test]
    fn scalars_and_containers() {
        assert_eq!(parse(" null ").unwrap(), PyValue::Null);
        assert_eq!(parse("true").unwrap(), PyValue::Bool(true));
        assert_eq!(parse("false").unwrap(), PyValue::Bool(false));
        assert_eq!(parse("[1, \"a\", [], {}]").unwrap(), {
            PyValue::Array(vec![int("1"), string("a"), PyValue::Array(vec![]), PyValue::Object(vec![])])
        });
        assert_eq!(parse("{\"b\": 1, \"a\": {\"c\": null}}").unwrap(), {
            obj(&[("b", int("1")), ("a", obj(&[("c", PyValue::Null)]))])
        });
    }

    #[test]
    fn duplicate_keys_keep_first_position_and_last_value() {
        let v = parse(r#"{"a": 1, "a": 2, "b": 3, "a": 4}"#).unwrap();
        assert_eq!(v, obj(&[("a", int("4")), ("b", int("3"))]));
        // The large-object path (more than 16 keys) gives the same answer.
        let mut doc = String::from("{");
        for i in 0..40 {
            doc.push_str(&format!("\"k{}\": {i},", i % 20));
        }
        doc.push_str("\"k0\": \"last\"}");
        let v = parse(&doc).unwrap();
        let PyValue::Object(entries) = &v else { panic!("object expected") };
        assert_eq!(entries.len(), 20);
        assert_eq!(entries[0], ("k0".to_owned(), string("last")));
        assert_eq!(entries[1], ("k1".to_owned(), int("21")));
        assert_eq!(entries[19], ("k19".to_owned(), int("39")));
    }

    #[test]
    fn python_number_quirks() {
        assert_eq!(parse("-0").unwrap(), int("0"));
        assert_eq!(parse("-12").unwrap(), int("-12"));
        assert_eq!(parse("123456789012345678901234567890").unwrap(), int("123456789012345678901234567890"));
        let float = |s: &str| match parse(s).unwrap() {
            PyValue::Float(x) => x,
            other => panic!("{s} gave {other:?}"),
        };
        assert_eq!(float("1E2"), 100.0);
        assert_eq!(float("-0.0").to_bits(), (-0.0f64).to_bits());
        assert_eq!(float("1e400"), f64::INFINITY);
        assert_eq!(float("-1e400"), f64::NEG_INFINITY);
        assert_eq!(float("1.5e-400"), 0.0);
        assert!(float("NaN").is_nan());
        assert_eq!(float("Infinity"), f64::INFINITY);
        assert_eq!(
            parse("[-Infinity, NaN]").unwrap(),
            PyValue::Array(vec![PyValue::Float(f64::NEG_INFINITY), PyValue::Float(f64::NAN)])
        );
        for bad in ["01", "1.", "1e", "-", "+1", ".5", "-NaN", "nan", "inf", "Infinit", "0x10", "1.e5"] {
            assert!(parse(bad).is_err(), "{bad} must be rejected");
        }
    }

    #[test]
    fn integer_digit_limit_is_pythons() {
        assert!(parse(&"7".repeat(4300)).is_ok());
        assert!(parse(&format!("-{}", "7".repeat(4300))).is_ok());
        let err = parse(&format!("[{}]", "7".repeat(4301))).unwrap_err();
        assert_eq!((err.line, err.column), (1, 2));
        assert!(err.message.contains("4301 digits"), "{}", err.message);
        // Floats have no such limit.
        assert!(matches!(parse(&format!("{}.0", "7".repeat(4301))).unwrap(), PyValue::Float(_)));
    }

    #[test]
    fn strings_escapes_and_surrogates() {
        assert_eq!(parse(r#""a\"b\\c\/d\b\f\n\r\t""#).unwrap(), string("a\"b\\c/d\u{8}\u{c}\n\r\t"));
        assert_eq!(parse(r#""\u00e9\u0000""#).unwrap(), string("é\0"));
        assert_eq!(parse(r#""\ud83d\ude00""#).unwrap(), string("😀"));
        let lone = LONE_SURROGATE.to_string();
        assert_eq!(parse(r#""bad \ud83d mail""#).unwrap(), string(&format!("bad {lone} mail")));
        assert_eq!(parse(r#""\udc00\ud83d""#).unwrap(), string(&format!("{lone}{lone}")));
        // A high surrogate followed by another high one: the first is lone,
        // the second pairs with what follows.
        assert_eq!(parse(r#""\ud83d\ud83d\ude00""#).unwrap(), string(&format!("{lone}😀")));
        assert_eq!(parse(r#""\ud83d\u00e9""#).unwrap(), string(&format!("{lone}é")));
        assert_eq!(parse("\"\u{7f} ünï\"").unwrap(), string("\u{7f} ünï"));
        for bad in [r#""\x""#, r#""\u00""#, r#""\ud83d\uzzzz""#, r#""\ud83d\""#, "\"a\tb\"", "\"a\nb\"", "\"abc"] {
            assert!(parse(bad).is_err(), "{bad:?} must be rejected");
        }
    }

    #[test]
    fn the_surrogate_marker_has_a_surrogates_character_classes() {
        use crate::pyunicode::{is_alnum, is_printable, is_space, is_word};
        let c = LONE_SURROGATE;
        assert!(!is_alnum(c) && !is_word(c) && !is_space(c) && !is_printable(c));
        assert_eq!(format!("a{c}b").chars().count(), 3, "one character, as in Python");
    }

    #[test]
    fn long_strings_use_the_fast_path_correctly() {
        let plain = "x".repeat(1000) + "é" + &"y".repeat(13);
        assert_eq!(parse(&format!("\"{plain}\"")).unwrap(), string(&plain));
        let with_escape = format!("\"{}\\n{}\"", "a".repeat(17), "b".repeat(9));
        assert_eq!(parse(&with_escape).unwrap(), string(&format!("{}\n{}", "a".repeat(17), "b".repeat(9))));
        let control = format!("\"{}\u{1}{}\"", "a".repeat(20), "b".repeat(20));
        assert_eq!(parse(&control).unwrap_err().column, 22);
    }

    #[test]
    fn bom_is_skipped_and_bad_utf8_rejected() {
        assert_eq!(parse_json(b"\xEF\xBB\xBF{\"a\": 1}").unwrap(), obj(&[("a", int("1"))]));
        let err = parse_json(b"{\"a\":\n \"\xff\"}").unwrap_err();
        assert_eq!((err.line, err.column), (2, 3));
        assert!(err.message.contains("UTF-8"));
        assert!(parse_json("\u{feff}\u{feff}1".as_bytes()).is_err(), "only one BOM is skipped");
    }

    #[test]
    fn errors_name_line_column_and_expectation() {
        let err = parse("{\n  \"a\": 1,\n  \"b\": ]\n}").unwrap_err();
        assert_eq!(err, JsonError { line: 3, column: 8, message: "expected a value".into() });
        let err = parse(r#"{"run_id": "edge_bad", "events": ["#).unwrap_err();
        assert_eq!((err.line, err.column, err.message.as_str()), (1, 35, "expected a value"));
        assert_eq!(parse("[1,]").unwrap_err().message, "expected a value");
        assert_eq!(parse(r#"{"a":1,}"#).unwrap_err().message, "expected an object key in double quotes");
        assert_eq!(parse(r#"{"a" 1}"#).unwrap_err().message, "expected ':' after an object key");
        assert_eq!(parse("[1 2]").unwrap_err().message, "expected ',' or ']' after an array item");
        assert_eq!(parse(r#"{"a":1 "b":2}"#).unwrap_err().message, "expected ',' or '}' after an object member");
        assert_eq!(parse("{} x").unwrap_err().column, 4);
        assert_eq!(parse("").unwrap_err().message, "the file is empty");
        assert_eq!(parse("  ").unwrap_err().message, "expected a value");
        // Columns count characters, not bytes.
        assert_eq!(parse("[\"ééé\" x]").unwrap_err().column, 8);
        // Only JSON whitespace separates tokens.
        assert!(parse("\u{a0}1").is_err());
        assert!(parse("[1,\u{b}2]").is_err());
    }

    #[test]
    fn truthiness_is_pythons() {
        for falsy in ["null", "false", "0", "-0", "0.0", "-0.0", "\"\"", "[]", "{}"] {
            assert!(!parse(falsy).unwrap().is_truthy(), "{falsy}");
        }
        for truthy in ["true", "5", "NaN", "\" \"", "[0]", "{\"a\": null}", "0.5"] {
            assert!(parse(truthy).unwrap().is_truthy(), "{truthy}");
        }
    }

    #[test]
    fn deep_trees_clone_compare_render_and_drop_without_recursion() {
        // Built by hand: the parser refuses this depth (next test), but a
        // tree can be built in code, and none of these may recurse.
        let depth = 200_000;
        let mut v = int("1");
        for _ in 0..depth {
            v = PyValue::Array(vec![PyValue::Object(vec![("k".to_owned(), v)])]);
        }
        let copy = v.clone();
        assert!(copy == v);
        // Debug renders compact JSON.
        let doc = format!("{}1{}", "[{\"k\": ".repeat(depth), "}]".repeat(depth));
        assert!(format!("{copy:?}") == doc);
        drop(v);
        drop(copy);
    }

    #[test]
    fn nesting_is_bounded_where_python_stops() {
        let doc = |depth: usize| format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(parse(&doc(MAX_NESTING)).is_ok());
        let err = parse(&doc(MAX_NESTING + 1)).unwrap_err();
        assert_eq!((err.line, err.column), (1, MAX_NESTING + 1), "the first bracket too deep");
        assert!(err.message.contains("more than 20000 levels deep"), "{}", err.message);
        // Objects count too, and an unclosed 100 000-level document fails
        // at the same place, in time linear in the bound, not the input.
        let err = parse(&format!("{}1", "{\"a\": ".repeat(100_000))).unwrap_err();
        assert_eq!(err.column, 6 * MAX_NESTING + 1);
        assert!(err.message.contains("levels deep"));
    }

    #[test]
    fn utf16_is_named() {
        let le: Vec<u8> = "{\"a\": 1}".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = "{\"a\": 1}".encode_utf16().flat_map(u16::to_be_bytes).collect();
        for (bytes, hint) in [
            ([&[0xFF, 0xFE][..], &le].concat(), "little-endian byte order mark"),
            ([&[0xFE, 0xFF][..], &be].concat(), "big-endian byte order mark"),
            (le.clone(), "every other byte is zero"),
            (be.clone(), "every other byte is zero"),
        ] {
            let err = parse_json(&bytes).unwrap_err();
            assert_eq!((err.line, err.column), (1, 1));
            assert!(err.message.starts_with("the file is UTF-16 text, not UTF-8"), "{}", err.message);
            assert!(err.message.contains(hint), "{}", err.message);
        }
        assert!(utf16_hint(b"{}").is_none() && utf16_hint(b"").is_none() && utf16_hint(b"1").is_none());
    }

    #[test]
    fn debug_rendering_is_compact_json() {
        let v = parse(r#"{"a": [1, 2.5, true, null, "x\"y"], "b": {}, "c": 1e16}"#).unwrap();
        assert_eq!(format!("{v:?}"), r#"{"a": [1, 2.5, true, null, "x\"y"], "b": {}, "c": 1e+16}"#);
    }
}
