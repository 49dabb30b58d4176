//! Python `re` semantics on top of `fancy-regex`, fast.
//!
//! Patterns are written in Python syntax. Where Python and Rust disagree on
//! `\w`, `\b`, `\s` or `\d` (combining marks, numeric symbols like `²`,
//! U+001C–U+001F, characters newer than Unicode 14 …), [`translate`]
//! rewrites the escapes into explicit Python classes (spec 2.11). That
//! exact form is slow — the boundary classes turn every pattern into
//! look-arounds — so each pattern is also compiled natively, and a text is
//! run through the exact form only when it contains one of the characters
//! on which the two engines disagree. For every other text the native form
//! gives the same matches, because the classes agree on every character of it.
//!
//! A second speed-up: look-arounds force fancy-regex's backtracking VM, so a
//! relaxed copy of the pattern without them (a superset of its matches, run
//! by the automata of `regex-automata`, the engine under fancy-regex) finds where a match can start at all.

use super::edge::Edged;
use crate::pyunicode::tables::{ALNUM, SPACE};
use fancy_regex::Regex;
use regex_automata::meta::Regex as Automata;
use regex_automata::nfa::thompson;
use regex_automata::{hybrid, Input, PatternID, PatternSet};
use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

/// The members of Python's `\w`, written for use inside a character class.
fn word_members() -> &'static str {
    static MEMBERS: OnceLock<String> = OnceLock::new();
    MEMBERS.get_or_init(|| {
        let mut out = String::from("_");
        for &(lo, hi) in ALNUM {
            out.push_str(&format!("\\x{{{:X}}}-\\x{{{:X}}}", lo as u32, hi as u32));
        }
        out
    })
}

const SPACE_MEMBERS: &str = "\\s\\x{1C}-\\x{1F}";

/// Rewrites a Python pattern into an equivalent fancy-regex pattern with
/// Python's classes spelled out.
pub fn translate(pattern: &str) -> String {
    rewrite(pattern, true)
}

/// Rewrites only what differs in syntax, keeping the native classes: `$`
/// becomes "end or before a final newline" as in Python.
fn native(pattern: &str) -> String {
    rewrite(pattern, false)
}

fn rewrite(pattern: &str, python_classes: bool) -> String {
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
                match (e, in_class, python_classes) {
                    ('w', true, true) => out.push_str(w),
                    ('w', false, true) => out.push_str(&format!("[{w}]")),
                    ('W', false, true) => out.push_str(&format!("[^{w}]")),
                    ('s', true, true) => out.push_str(SPACE_MEMBERS),
                    ('s', false, true) => out.push_str(&format!("[{SPACE_MEMBERS}]")),
                    ('S', false, true) => out.push_str(&format!("[^{SPACE_MEMBERS}]")),
                    ('b', false, true) => out.push_str(&format!("(?:(?<=[{w}])(?![{w}])|(?<![{w}])(?=[{w}]))")),
                    ('B', false, true) => out.push_str(&format!("(?:(?<=[{w}])(?=[{w}])|(?<![{w}])(?![{w}]))")),
                    ('Z', false, _) => out.push_str("\\z"),
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

/// A pattern's text in pieces, as the rewrites and checks here read it:
/// `(offset, text, in_class)`. A piece is an escape (`\` and the character
/// after it), the opening of a class (`[`, or `[]` / `[^]`, whose `]` is a
/// literal), or one character; `in_class` is true for a class's opening,
/// its members and its closing `]`. So an unescaped `(`, `)` or `|` outside
/// every class is a piece `"("`, `")"` or `"|"` with `in_class` false.
pub(super) fn pieces(pattern: &str) -> impl Iterator<Item = (usize, &str, bool)> {
    let (mut i, mut in_class) = (0, false);
    std::iter::from_fn(move || {
        let rest = pattern.get(i..).filter(|rest| !rest.is_empty())?;
        let one = rest.chars().next().map_or(1, char::len_utf8);
        let (len, class) = match rest.as_bytes()[0] {
            b'\\' => (1 + rest[1..].chars().next().map_or(0, char::len_utf8), in_class),
            b'[' if !in_class => {
                in_class = true;
                (
                    if rest.starts_with("[^]") {
                        3
                    } else if rest.starts_with("[]") {
                        2
                    } else {
                        1
                    },
                    true,
                )
            }
            b']' if in_class => {
                in_class = false;
                (one, true)
            }
            _ => (one, in_class),
        };
        let piece = (i, &rest[..len], class);
        i += len;
        Some(piece)
    })
}

/// The pattern with every look-around group removed: it matches wherever
/// the pattern matches (and more), and needs no backtracking engine.
fn relaxed(native_pattern: &str) -> String {
    let mut out = String::with_capacity(native_pattern.len());
    let mut skip_to = 0;
    for (at, text, in_class) in pieces(native_pattern) {
        if at < skip_to {
            continue;
        }
        let rest = &native_pattern[at..];
        if !in_class && ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|p| rest.starts_with(p)) {
            skip_to = at + group_len(rest);
            continue;
        }
        out.push_str(text);
    }
    out
}

/// A relaxed pattern without its word-boundary assertions (`\b`, `\B`):
/// a superset again. The automata's fast engines know Unicode word
/// boundaries only on ASCII text; on any other text a pattern with one
/// falls back to its slowest engine (the PikeVM), several times slower.
/// Screens and gates of non-ASCII texts use this form.
fn unbounded(relaxed_pattern: &str) -> String {
    pieces(relaxed_pattern)
        .filter(|&(_, text, in_class)| in_class || !matches!(text, "\\b" | "\\B"))
        .map(|(_, text, _)| text)
        .collect()
}

/// Byte length of the parenthesised group at the start of `s`.
pub(super) fn group_len(s: &str) -> usize {
    let mut depth = 0usize;
    for (at, text, in_class) in pieces(s) {
        match text {
            "(" if !in_class => depth += 1,
            ")" if !in_class => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}

/// The characters on which Python's and Rust's `\w`, `\s` or `\d` disagree,
/// as sorted ranges, computed once from both engines' own tables.
fn disagreements() -> &'static [(char, char)] {
    static RANGES: OnceLock<Vec<(char, char)>> = OnceLock::new();
    RANGES.get_or_init(|| {
        let rust = |class: &str| -> Vec<(char, char)> {
            match regex_syntax::parse(class).map(|h| h.into_kind()) {
                Ok(regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(c))) => {
                    c.ranges().iter().map(|r| (r.start(), r.end())).collect()
                }
                _ => Vec::new(),
            }
        };
        let mut py_word: Vec<(char, char)> = ALNUM.to_vec();
        py_word.push(('_', '_'));
        let py_digit: Vec<(char, char)> = crate::pyunicode::tables::DECIMAL_ZEROS
            .iter()
            .map(|&z| (z, char::from_u32(z as u32 + 9).unwrap_or(z)))
            .collect();
        let mut out = Vec::new();
        for (ours, theirs) in [(py_word, rust(r"\w")), (SPACE.to_vec(), rust(r"\s")), (py_digit, rust(r"\d"))] {
            out.extend(symmetric_difference(&ours, &theirs));
        }
        crate::util::sort(&mut out);
        out
    })
}

fn symmetric_difference(a: &[(char, char)], b: &[(char, char)]) -> Vec<(char, char)> {
    let mut ca =
        regex_syntax::hir::ClassUnicode::new(a.iter().map(|&(x, y)| regex_syntax::hir::ClassUnicodeRange::new(x, y)));
    let cb =
        regex_syntax::hir::ClassUnicode::new(b.iter().map(|&(x, y)| regex_syntax::hir::ClassUnicodeRange::new(x, y)));
    ca.symmetric_difference(&cb);
    ca.ranges().iter().map(|r| (r.start(), r.end())).collect()
}

/// Whether the native engine could read `text` differently from Python.
pub fn needs_python_classes(text: &str) -> bool {
    if text.is_ascii() {
        // The only ASCII disagreement: Python's \s includes U+001C–U+001F.
        return text.bytes().any(|b| (0x1C..=0x1F).contains(&b));
    }
    let table = disagreements();
    text.chars().any(|c| crate::pyunicode::in_ranges(table, c))
}

/// A Python-syntax pattern, compiled for both paths.
#[derive(Debug, Clone)]
pub struct PyRegex {
    native: Regex,
    /// The Python-class form, compiled on first need (its classes are large).
    exact: OnceLock<Regex>,
    pattern: String,
    /// The pattern without look-arounds (see [`relaxed`]), for screening.
    relaxed: String,
    /// Where a match can start; `None` when the native pattern is already
    /// free of look-arounds (fancy-regex then runs it on automata itself).
    gate: Option<Automata>,
    /// The gate for non-ASCII texts ([`unbounded`]), compiled on first need.
    unicode_gate: OnceLock<Option<Automata>>,
    /// The pattern run on automata when its only look-arounds are at its
    /// edges (see [`super::edge`]); the exact form's, compiled on first need.
    edged: Option<Edged>,
    exact_edged: OnceLock<Option<Edged>>,
    /// The Python-class form's gate ([`exact_gate`]), compiled on first need.
    exact_gate: OnceLock<Option<Automata>>,
    /// Distinct per compiled pattern: its place in a [`Prefilter`].
    id: usize,
}

/// One match of a pattern: the spans of its groups (group 0 first).
#[derive(Debug, Clone)]
pub struct Captures<'t> {
    text: &'t str,
    spans: Vec<Option<(usize, usize)>>,
}

/// One group of a [`Captures`].
#[derive(Debug, Clone, Copy)]
pub struct Match<'t> {
    text: &'t str,
    start: usize,
    end: usize,
}

impl<'t> Captures<'t> {
    fn of_fancy(text: &'t str, caps: &fancy_regex::Captures<'t, str>) -> Captures<'t> {
        Captures { text, spans: caps.iter().map(|m| m.map(|m| (m.start(), m.end()))).collect() }
    }

    /// Group `i`, if it took part in the match.
    pub fn get(&self, i: usize) -> Option<Match<'t>> {
        let (start, end) = (*self.spans.get(i)?)?;
        Some(Match { text: self.text, start, end })
    }
}

impl<'t> Match<'t> {
    pub fn as_str(&self) -> &'t str {
        &self.text[self.start..self.end]
    }
    pub fn start(&self) -> usize {
        self.start
    }
    pub fn end(&self) -> usize {
        self.end
    }
}

/// The gate of a pattern's Python-class form: its look-arounds (the word
/// boundaries among them, which that form spells as look-arounds) dropped.
/// `None` when the form has none (fancy-regex then runs it on automata).
fn exact_gate(pattern: &str) -> Option<Automata> {
    let exact = translate(pattern);
    let relaxed_exact = relaxed(&exact);
    if relaxed_exact == exact {
        return None;
    }
    Automata::new(&unbounded(&relaxed_exact)).ok()
}

/// Every match of the VM `vm()` gives in `text`, started only where `gate` (a
/// superset of the pattern) finds a match can start.
fn gated<'r, 't: 'r>(
    gate: &'r Automata,
    vm: impl Fn() -> &'r Regex + 'r,
    text: &'t str,
) -> Box<dyn Iterator<Item = Captures<'t>> + 'r> {
    let mut pos = 0;
    Box::new(std::iter::from_fn(move || {
        if pos > text.len() {
            return None;
        }
        // No match of the pattern can start before the gate's next match.
        let start = gate.search(&Input::new(text).span(pos..text.len()))?.start();
        let caps = vm().captures_from_pos(text, start).ok().flatten()?;
        let m = caps.get(0)?;
        pos = next_start(text, (m.start(), m.end()));
        Some(Captures::of_fancy(text, &caps))
    }))
}

/// Where the next scan starts after a match: its end, or one character on
/// when it was empty.
fn next_start(text: &str, (start, end): (usize, usize)) -> usize {
    if end == start {
        end + text[end..].chars().next().map_or(1, char::len_utf8)
    } else {
        end
    }
}

/// Numbers the compiled patterns.
static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// Why a Python-syntax pattern does not compile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// The regex engine refused the pattern; its message, unchanged.
    #[error("{message}")]
    Rejected { message: String },
}

impl PyRegex {
    pub fn new(pattern: &str) -> Result<PyRegex, PatternError> {
        let build = |p: &str| {
            fancy_regex::RegexBuilder::new(p)
                .backtrack_limit(1_000_000)
                .build()
                .map_err(|e| PatternError::Rejected { message: e.to_string() })
        };
        let native_pattern = native(pattern);
        let relaxed_pattern = relaxed(&native_pattern);
        let gate = if relaxed_pattern == native_pattern { None } else { Automata::new(&relaxed_pattern).ok() };
        Ok(PyRegex {
            native: build(&native_pattern)?,
            exact: OnceLock::new(),
            pattern: pattern.to_owned(),
            relaxed: relaxed_pattern,
            gate,
            unicode_gate: OnceLock::new(),
            edged: Edged::new(&native_pattern),
            exact_edged: OnceLock::new(),
            exact_gate: OnceLock::new(),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// Every leftmost-first, non-overlapping match, as capture sets. A match
    /// the engine gives up on (backtrack limit) ends the scan: the limit
    /// protects the page, and what was found so far is kept.
    pub fn captures<'r, 't>(&'r self, text: &'t str) -> Box<dyn Iterator<Item = Captures<'t>> + 'r>
    where
        't: 'r,
    {
        self.captures_classified(text, needs_python_classes(text))
    }

    /// [`PyRegex::captures`] on a text whose [`needs_python_classes`] is
    /// known (a screened text's detectors would otherwise each ask again).
    pub fn captures_classified<'r, 't>(
        &'r self,
        text: &'t str,
        python_classes: bool,
    ) -> Box<dyn Iterator<Item = Captures<'t>> + 'r>
    where
        't: 'r,
    {
        let edged = if python_classes { self.exact_edged() } else { self.edged.as_ref() };
        if let Some(edged) = edged.filter(|e| e.fast_on(text)) {
            let mut pos = 0;
            return Box::new(std::iter::from_fn(move || {
                let spans = edged.captures_at(text, pos)?;
                pos = next_start(text, spans[0]?);
                Some(Captures { text, spans })
            }));
        }
        if python_classes {
            return match self.exact_gate() {
                // The Python-class form compiles slowly (its classes are
                // large): only once a gate lets a text through.
                Some(gate) => gated(gate, move || self.exact(), text),
                None => Box::new(
                    self.exact().captures_iter(text).map_while(Result::ok).map(move |c| Captures::of_fancy(text, &c)),
                ),
            };
        }
        let Some(ascii_gate) = &self.gate else {
            return Box::new(
                self.native.captures_iter(text).map_while(Result::ok).map(move |c| Captures::of_fancy(text, &c)),
            );
        };
        let gate = if text.is_ascii() { ascii_gate } else { self.unicode_gate().unwrap_or(ascii_gate) };
        gated(gate, move || &self.native, text)
    }

    /// The gate for non-ASCII texts, compiled on first need.
    fn unicode_gate(&self) -> Option<&Automata> {
        self.unicode_gate.get_or_init(|| Automata::new(&unbounded(&self.relaxed)).ok()).as_ref()
    }

    /// The Python-class form's edged form, compiled on first need.
    fn exact_edged(&self) -> Option<&Edged> {
        self.exact_edged.get_or_init(|| Edged::new(&translate(&self.pattern))).as_ref()
    }

    /// The Python-class form's gate, compiled on first need.
    fn exact_gate(&self) -> Option<&Automata> {
        self.exact_gate.get_or_init(|| exact_gate(&self.pattern)).as_ref()
    }

    /// Drops the idle search caches of its forms on automata.
    pub(crate) fn release_caches(&self) {
        if let Some(edged) = &self.edged {
            edged.caches.release();
        }
        if let Some(Some(edged)) = self.exact_edged.get() {
            edged.caches.release();
        }
    }

    /// Compiles now every form otherwise compiled on first need (a page
    /// worker does this while it waits for its first file, so that a
    /// non-ASCII text does not pay for it then). Results do not change.
    pub(crate) fn compile_lazy_forms(&self) {
        if self.gate.is_some() {
            self.unicode_gate();
        }
        self.exact_edged();
        self.exact_gate();
        self.exact();
    }

    /// The Python-class form, compiled on first need.
    fn exact(&self) -> &Regex {
        self.exact.get_or_init(|| {
            fancy_regex::RegexBuilder::new(&translate(&self.pattern))
                .backtrack_limit(1_000_000)
                .build()
                // Same syntax as the native form, which compiled; keep it if not.
                .unwrap_or_else(|_| self.native.clone())
        })
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.captures(text).next().is_some()
    }

    /// Every match's group spans, from fancy-regex's backtracking VM on the
    /// native (or, for texts that need them, the Python-class) form, taken
    /// one after the other as the gated scan and Python take them (an empty
    /// match may follow a non-empty one): what the fast paths must reproduce.
    #[cfg(test)]
    pub(crate) fn backtracking_spans(&self, text: &str) -> Vec<Vec<Option<(usize, usize)>>> {
        let re = if needs_python_classes(text) {
            Regex::new(&translate(&self.pattern)).unwrap_or_else(|_| self.native.clone())
        } else {
            self.native.clone()
        };
        let mut out = Vec::new();
        let mut pos = 0;
        while pos <= text.len() {
            let Some(c) = re.captures_from_pos(text, pos).ok().flatten() else { break };
            let spans = Captures::of_fancy(text, &c).spans;
            pos = next_start(text, spans[0].unwrap());
            out.push(spans);
        }
        out
    }

    /// Every match's group spans, as [`PyRegex::captures`] gives them.
    #[cfg(test)]
    pub(crate) fn spans(&self, text: &str) -> Vec<Vec<Option<(usize, usize)>>> {
        self.captures(text).map(|c| c.spans).collect()
    }

    /// Whether the pattern runs on automata ([`super::edge`]).
    #[cfg(test)]
    pub(crate) fn is_edged(&self) -> bool {
        self.edged.is_some()
    }
}

/// Many patterns screened together: which of them can match a text at all.
/// Each pattern's relaxed form (look-arounds dropped: a superset of its
/// native matches) goes into a `RegexSet` of its group, so a pattern the set
/// rules out has no native match, and its own scan can be skipped. A group
/// is screened the first time one of its patterns is asked about (a group
/// no enabled detector uses costs nothing). Each group is one more scan of
/// every text, but one set of every pattern was twice as slow (its lazy DFA
/// grows large), so the caller picks the groups (see `detect::prefilter`).
/// Texts that need Python's classes are not screened (the native form is
/// not what runs on them).
pub struct Prefilter {
    sets: Vec<SetDfa>,
    /// Each group's forms without word boundaries ([`unbounded`]), for
    /// non-ASCII texts; compiled the first time such a text comes.
    unicode_forms: Vec<Vec<String>>,
    unicode_sets: Vec<OnceLock<Option<SetDfa>>>,
    /// (group, index in its set) of each screened pattern, by pattern id.
    slot_of: Vec<Option<(u32, u32)>>,
    /// The sets' search caches, lent to one text at a time (see [`Lent`]).
    caches: Lent<SetCaches>,
}

/// Search caches, lent to one search at a time. An automaton's own pool
/// keeps a cache per thread for as long as the program runs (a large one's
/// grow to megabytes); these can be let go of after a long trace
/// ([`Lent::release`]). A copy starts empty.
pub(super) struct Lent<T>(Mutex<Vec<T>>);

impl<T> Lent<T> {
    /// An idle cache, if there is one.
    pub(super) fn take(&self) -> Option<T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    pub(super) fn give_back(&self, cache: T) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).push(cache);
    }

    /// Drops the caches not lent out.
    pub(super) fn release(&self) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    #[cfg(test)]
    pub(super) fn idle(&self) -> usize {
        self.0.lock().map(|c| c.len()).unwrap_or(usize::MAX)
    }
}

impl<T> Default for Lent<T> {
    fn default() -> Lent<T> {
        Lent(Mutex::new(Vec::new()))
    }
}

impl<T> Clone for Lent<T> {
    fn clone(&self) -> Lent<T> {
        Lent::default()
    }
}

impl<T> std::fmt::Debug for Lent<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lent")
    }
}

/// Search caches for every set a text may use, each made on first use:
/// per group, for its set with word boundaries and its boundary-free one.
#[derive(Default)]
struct SetCaches(Vec<[Option<hybrid::dfa::Cache>; 2]>);

impl SetCaches {
    fn of(&mut self, group: usize, form: usize, set: &SetDfa) -> &mut hybrid::dfa::Cache {
        if self.0.len() <= group {
            self.0.resize_with(group + 1, Default::default);
        }
        self.0[group][form].get_or_insert_with(|| set.create_cache())
    }
}

/// What a [`Prefilter`] learnt about one text, group by group.
pub struct Screen<'p, 't> {
    prefilter: Option<&'p Prefilter>,
    text: &'t str,
    /// [`needs_python_classes`] of the text.
    python_classes: bool,
    ascii: bool,
    matched: Vec<OnceLock<Vec<bool>>>,
    /// Borrowed from the prefilter on the first search, given back on drop.
    caches: RefCell<Option<SetCaches>>,
}

impl Drop for Screen<'_, '_> {
    fn drop(&mut self) {
        if let (Some(p), Some(caches)) = (self.prefilter, self.caches.get_mut().take()) {
            p.caches.give_back(caches);
        }
    }
}

impl Prefilter {
    pub fn new(groups: &[Vec<&PyRegex>], side_by_side: bool) -> Prefilter {
        let mut slot_of: Vec<Option<(u32, u32)>> = Vec::new();
        let mut screened: Vec<(Vec<String>, Vec<usize>)> = Vec::new();
        for group in groups {
            let mut forms: Vec<String> = Vec::new();
            let mut ids: Vec<usize> = Vec::new();
            for re in group {
                // Only forms the automata accept can be screened (a
                // pattern with a gate has had its form compiled already).
                // Parsing says so without compiling every form a second
                // time (a fifth of the start-up); a form that parses but
                // still fails in the set only leaves its group unscreened,
                // which costs time, never a match.
                if re.gate.is_some() || regex_syntax::parse(&re.relaxed).is_ok() {
                    forms.push(re.relaxed.clone());
                    ids.push(re.id);
                }
            }
            screened.push((forms, ids));
        }
        // Each group's set compiles on a thread of its own where the build
        // has threads and the caller allows it.
        let built: Vec<_> = if side_by_side {
            crate::util::map_in_order(&screened, |_, (forms, _)| set_of(forms))
        } else {
            screened.iter().map(|(forms, _)| set_of(forms)).collect()
        };
        let mut sets = Vec::new();
        let mut unicode_forms = Vec::new();
        for ((forms, ids), set) in screened.into_iter().zip(built) {
            let Some(set) = set else { continue };
            for (i, id) in ids.into_iter().enumerate() {
                if slot_of.len() <= id {
                    slot_of.resize(id + 1, None);
                }
                slot_of[id] = Some((sets.len() as u32, i as u32));
            }
            sets.push(set);
            unicode_forms.push(forms.iter().map(|f| unbounded(f)).collect());
        }
        let unicode_sets = sets.iter().map(|_| OnceLock::new()).collect();
        Prefilter { sets, unicode_forms, unicode_sets, slot_of, caches: Lent::default() }
    }

    pub fn screen<'t>(&self, text: &'t str) -> Screen<'_, 't> {
        if needs_python_classes(text) {
            return Screen {
                prefilter: None,
                text,
                python_classes: true,
                ascii: false,
                matched: Vec::new(),
                caches: RefCell::new(None),
            };
        }
        Screen {
            prefilter: Some(self),
            text,
            python_classes: false,
            ascii: text.is_ascii(),
            matched: (0..self.sets.len()).map(|_| OnceLock::new()).collect(),
            caches: RefCell::new(None),
        }
    }

    /// Drops the search caches not lent out: after a long trace they hold
    /// megabytes that the passes after detection could use.
    pub(crate) fn release_caches(&self) {
        self.caches.release();
    }

    /// Compiles now the sets otherwise compiled for the first non-ASCII text.
    pub(crate) fn compile_lazy_forms(&self) {
        for group in 0..self.sets.len() {
            self.set(group, false);
        }
    }

    /// Group `group`'s set for a text and which of the two it is (0 with
    /// boundaries, 1 without): the boundary-free one for non-ASCII texts
    /// (the one with boundaries if that did not compile).
    fn set(&self, group: usize, ascii: bool) -> (&SetDfa, usize) {
        if !ascii {
            if let Some(set) = self.unicode_sets[group].get_or_init(|| set_of(&self.unicode_forms[group])) {
                return (set, 1);
            }
        }
        (&self.sets[group], 0)
    }
}

/// One automaton of many patterns (a set: it says which of them match):
/// a lazy DFA alone, searched forwards only. The general engine would also
/// compile the patterns reversed and keep, per thread, caches for engines a
/// screen never uses (megabytes for the larger set).
type SetDfa = hybrid::dfa::DFA;

/// `None` when it does not build (its size limits), which leaves the group
/// unscreened.
fn set_of(forms: &[String]) -> Option<SetDfa> {
    let nfa = thompson::Compiler::new()
        .configure(thompson::Config::new().which_captures(thompson::WhichCaptures::None).nfa_size_limit(Some(64 << 20)))
        .build_many(forms)
        .ok()?;
    let config = SetDfa::config()
        .match_kind(regex_automata::MatchKind::All)
        // Unicode word boundaries on ASCII text; the search gives up on
        // other text (sets with boundaries are for ASCII text).
        .unicode_word_boundary(true)
        .cache_capacity(8 << 20)
        // Give up rather than rebuild states without end; the text is
        // then not screened (see `Screen::may_match`).
        .minimum_cache_clear_count(Some(3))
        .minimum_bytes_per_state(Some(10));
    hybrid::dfa::Builder::new().configure(config).build_from_nfa(nfa).ok()
}

impl<'t> Screen<'_, 't> {
    /// A screen that rules nothing out.
    pub fn everything(text: &'t str) -> Screen<'static, 't> {
        Screen {
            prefilter: None,
            text,
            python_classes: needs_python_classes(text),
            ascii: true,
            matched: Vec::new(),
            caches: RefCell::new(None),
        }
    }

    /// Whether the text needs Python's classes ([`needs_python_classes`]).
    pub fn python_classes(&self) -> bool {
        self.python_classes
    }

    /// Whether `re` can match the screened text (`false` only when it cannot).
    pub fn may_match(&self, re: &PyRegex) -> bool {
        let Some(p) = self.prefilter else { return true };
        let Some(Some((group, index))) = p.slot_of.get(re.id) else { return true };
        let (group, index) = (*group as usize, *index as usize);
        let matched = self.matched[group].get_or_init(|| {
            let (set, form) = p.set(group, self.ascii);
            let mut lent = self.caches.borrow_mut();
            let cache = lent.get_or_insert_with(|| p.caches.take().unwrap_or_default()).of(group, form, set);
            let input = Input::new(self.text);
            // Most texts match nothing of a group: a plain search says so
            // several times faster than the overlapping one that names
            // the patterns.
            match set.try_search_fwd(cache, &input.clone().earliest(true)) {
                Ok(None) => return Vec::new(),
                Ok(Some(_)) => {}
                // The search gave up: nothing of the group is ruled out.
                Err(_) => return vec![true; set.pattern_len()],
            }
            let mut found = PatternSet::new(set.pattern_len());
            if set.try_which_overlapping_matches(cache, &input, &mut found).is_err() {
                return vec![true; set.pattern_len()];
            }
            (0..set.pattern_len()).map(|i| found.contains(PatternID::new_unchecked(i))).collect()
        });
        matched.get(index).copied().unwrap_or(false)
    }
}

/// Compiles a Python-syntax pattern; the error text is the engine's.
pub fn compile(pattern: &str) -> Result<PyRegex, PatternError> {
    PyRegex::new(pattern)
}

/// Compiles one of our own built-in patterns. They are fixed strings
/// compiled in, so a failure here is a programming error that the test
/// `detect::tests::every_builtin_pattern_compiles` (which runs every
/// detector, and so compiles every pattern) catches before any release.
#[allow(clippy::panic)]
pub(crate) fn builtin(pattern: &str) -> PyRegex {
    match compile(pattern) {
        Ok(re) => re,
        Err(e) => panic!("built-in pattern {pattern:?} does not compile: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_match(p: &str, t: &str) -> bool {
        compile(p).unwrap().is_match(t)
    }

    #[test]
    fn search_caches_are_lent_given_back_and_let_go_of_without_changing_a_match() {
        let digits = compile(r"(?<!\d)\d{3}-\d{4}(?!\d)").unwrap();
        let word = compile(r"\bsecret\b").unwrap();
        let name = compile(r"(?<![A-Za-z])(?:Ann|Bob)(?![a-z])").unwrap();
        let prefilter = Prefilter::new(&[vec![&digits], vec![&word, &name]], false);
        let idle = |p: &Prefilter| p.caches.idle();
        let texts = ["call 555-0100 now", "a secret for Bob", "Zoë keeps 555-0199 secret", "nothing here"];
        let screened = |p: &Prefilter| -> Vec<[bool; 3]> {
            texts
                .iter()
                .map(|t| {
                    let screen = p.screen(t);
                    [screen.may_match(&digits), screen.may_match(&word), screen.may_match(&name)]
                })
                .collect()
        };
        let expected = vec![[true, false, false], [false, true, true], [true, true, false], [false, false, false]];
        assert_eq!(idle(&prefilter), 0);
        assert_eq!(screened(&prefilter), expected);
        // One text at a time: one set of caches, back in the pool.
        assert_eq!(idle(&prefilter), 1);
        let (first, second) = (prefilter.screen(texts[0]), prefilter.screen(texts[1]));
        assert!(first.may_match(&digits) && second.may_match(&word));
        drop((first, second));
        assert_eq!(idle(&prefilter), 2);
        prefilter.release_caches();
        assert_eq!(idle(&prefilter), 0);
        assert_eq!(screened(&prefilter), expected);

        // A set with word boundaries gives up on non-ASCII text (its lazy
        // DFA knows Unicode boundaries on ASCII only): nothing of its group
        // is ruled out then, while the other group still screens.
        let mut forced = prefilter.screen("Zoë: no names");
        forced.ascii = true;
        assert_eq!([forced.may_match(&digits), forced.may_match(&word), forced.may_match(&name)], [false, true, true]);
        let honest = prefilter.screen("Zoë: no names");
        assert_eq!(
            [honest.may_match(&digits), honest.may_match(&word), honest.may_match(&name)],
            [false, false, false]
        );

        let edged = name.edged.as_ref().unwrap();
        assert_eq!(name.spans("Bob, Ann and Bobby"), vec![vec![Some((0, 3))], vec![Some((5, 8))]]);
        assert_eq!(edged.caches.idle(), 1);
        name.release_caches();
        assert_eq!(edged.caches.idle(), 0);
        assert_eq!(name.spans("Bob, Ann and Bobby"), vec![vec![Some((0, 3))], vec![Some((5, 8))]]);
    }

    #[test]
    fn compiling_the_lazy_forms_ahead_fills_them_and_changes_no_match() {
        let re = compile(r"(?<!\d)\b\w+ \d{3}\b").unwrap();
        let texts = ["Zoë 123 and x²y 456", "a 123", "Straße 1234 9 876"];
        let lazily: Vec<_> = texts.iter().map(|t| re.spans(t)).collect();
        let ahead = compile(r"(?<!\d)\b\w+ \d{3}\b").unwrap();
        assert!(ahead.exact.get().is_none() && ahead.unicode_gate.get().is_none());
        ahead.compile_lazy_forms();
        assert!(ahead.exact.get().is_some());
        assert!(ahead.unicode_gate.get().is_some_and(Option::is_some));
        assert!(ahead.exact_gate.get().is_some_and(Option::is_some));
        assert!(ahead.exact_edged.get().is_some());
        assert_eq!(texts.iter().map(|t| ahead.spans(t)).collect::<Vec<_>>(), lazily);
        // Python: ë and ² are word characters (bytes 0..8 and 13..21).
        assert_eq!(lazily[0], vec![vec![Some((0, 8))], vec![Some((13, 21))]]);
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
        // ² is alphanumeric to Python, so no boundary between it and `ab`.
        assert!(!is_match(r"\bab\b", "²ab"));
        assert!(needs_python_classes("x²") && needs_python_classes("a\u{1C}") && !needs_python_classes("plain é text"));
    }

    #[test]
    fn pieces_mark_escapes_and_classes() {
        let found: Vec<_> = pieces(r"a\(é[]x(](|)").collect();
        assert_eq!(
            found,
            vec![
                (0, "a", false),
                (1, r"\(", false),
                (3, "é", false),
                (5, "[]", true),
                (7, "x", true),
                (8, "(", true),
                (9, "]", true),
                (10, "(", false),
                (11, "|", false),
                (12, ")", false),
            ]
        );
        assert_eq!(group_len("(a[)](b))c"), 9);
    }

    #[test]
    fn unbounded_patterns_drop_word_boundaries_only() {
        assert_eq!(unbounded(r"\b\d{3}\B-x\b"), r"\d{3}-x");
        assert_eq!(unbounded(r"[\b]\\b[]\b]"), r"[\b]\\b[]\b]");
        // Gated on a non-ASCII text, the boundaries still hold (the pattern
        // itself checks them).
        let re = compile(r"(?<!-)\b\d{3}\b").unwrap();
        assert!(re.gate.is_some());
        let found: Vec<_> = re.captures("é 1234 -567 567 é89").map(|c| c.get(0).unwrap().as_str().to_owned()).collect();
        assert_eq!(found, vec!["567"]);
    }

    /// Patterns with look-arounds at their edges, run on automata, give
    /// the backtracking VM's matches: the lookahead may send a repetition
    /// or an optional part back to a shorter match (`Tremblay-Smith3` ends
    /// the name before the dash), the lookbehind skips a start.
    #[test]
    fn edged_patterns_match_as_the_backtracking_vm() {
        let name = r"(?<![\w@.\-])(?:Jean|Ann|Anne)(?:[ \t]+[A-Z][a-z]+(?:['\-][A-Z]?[a-z]+)?){1,2}(?![\w@])";
        let patterns = [
            name,
            r"(?<!\d)(?:\+?\d{1,3}[\-.\s]?)?(?:\(\d{3}\)|\d{3})[\-.\s]\d{3}[\-.\s]\d{4}(?!\d)",
            r"(?<![:.\d])\b\d{1,5}\s+(?:[A-Z][a-z]+\s){1,3}St",
            r"(?<=a)(b+)(c?)(?=c)",
            r"x*(?!y)",
            r"(?<!é)é+",
        ];
        let texts = [
            "Jean Tremblay-Smith3 x",
            "Anne Lee Ray@ Ann Lee Ray Bo, x.Jean Lee; Jean Lee-Ro Ann Lee'",
            "call 514-555-1234 or 1514-555-12345 or +1 (514) 555-1234.",
            "at 12 Main Rd St, 3:12 Main St, é 7 Elm St",
            "abbcc abc ab bc xxy xy y",
            "éé aé é",
            "",
        ];
        for p in patterns {
            let re = compile(p).unwrap();
            assert!(re.is_edged(), "{p}");
            for t in texts {
                assert_eq!(re.spans(t), re.backtracking_spans(t), "{p} on {t:?}");
            }
        }
        let re = compile(name).unwrap();
        let found: Vec<_> =
            re.captures("Jean Tremblay-Smith3 x").map(|c| c.get(0).unwrap().as_str().to_owned()).collect();
        assert_eq!(found, vec!["Jean Tremblay"]);
        let re = compile(r"(?<=a)(b+)(c?)(?=c)").unwrap();
        let groups: Vec<_> =
            re.captures("abbcc").flat_map(|c| [c.get(1), c.get(2)]).flatten().map(|m| m.as_str()).collect();
        assert_eq!(groups, vec!["bb", "c"]);
        // Not edged: a look-around inside, a bare flag group, a class that is
        // more than one character, a top-level alternation (the look-around
        // binds to one branch only). They still match as the VM does.
        for p in [r"\b(?!BG)[A-Z]{2}", r"(?<!x)a(?i)b(?!c)", r"(?<!ab)c", r"x(?=\n?\z)", r"(?<!x)a|b", r"a|b(?!c)"] {
            let re = compile(p).unwrap();
            assert!(!re.is_edged(), "{p}");
            for t in ["xa xb a b bc ac", "ABG AB"] {
                assert_eq!(re.spans(t), re.backtracking_spans(t), "{p} on {t:?}");
            }
        }
    }

    proptest::proptest! {
        /// On any text over the characters that matter to them, edged
        /// patterns give the backtracking VM's matches.
        #[test]
        fn edged_patterns_agree_on_any_text(text in "(Jean|Ann|Lee|Ray|-Ro|'s|[ \t.@3é²x]|5|55|555|\\(|\\)){0,24}") {
            for p in [
                r"(?<![\w@.\-])(?:Jean|Ann)(?:[ \t]+[A-Z][a-z]+(?:['\-][A-Z]?[a-z]+)?){1,2}(?![\w@])",
                r"(?<!\d)(?:\(\d{3}\)|\d{3})[\-.\s]?\d{3}(?!\d)",
                r"(?<!\w)\w+(?=\W)",
            ] {
                let re = compile(p).unwrap();
                proptest::prop_assert_eq!(re.spans(&text), re.backtracking_spans(&text), "{} on {:?}", p, text);
            }
        }
    }

    #[test]
    fn relaxed_patterns_drop_lookarounds_only() {
        assert_eq!(relaxed(r"(?<!\d)\d{3}(?!\d)"), r"\d{3}");
        assert_eq!(relaxed(r"(?<![:.\d])x(?=[)])y"), "xy");
        assert_eq!(relaxed(r"[(?!]a"), r"[(?!]a");
        // The gated scan finds the same matches as a plain scan.
        let re = compile(r"(?<!\d)\d{3}(?!\d)").unwrap();
        let found: Vec<_> = re.captures("1234 567 89 012").map(|c| c.get(0).unwrap().as_str().to_owned()).collect();
        assert_eq!(found, vec!["567", "012"]);
    }
}
