//! Patterns whose only look-arounds stand at their edges and test one
//! character — `(?<!L)BODY(?!R)`, as in the gazetteer of names and the
//! phone numbers — run without the backtracking VM.
//!
//! fancy-regex runs such a pattern in its VM, which tries the body's
//! alternatives one by one at every candidate start (the names' thousand
//! literals at every capitalised word). The same matches come from the
//! automata of `regex-automata`:
//!
//! * the lookahead becomes one more consumed character: `BODY(?!R)` matches
//!   at a start exactly where `BODY(?:[^R]|\z)` does, and leftmost-first
//!   automata choose, among the body's paths, the one a backtracker would
//!   accept first (it tries the same paths in the same order, and the
//!   lookahead only accepts or rejects each path's end); `(?=R)` becomes
//!   `(R)`. A named group marks where the body ended;
//! * the lookbehind is one character before the start, checked by hand; a
//!   start it rejects sends the search on from the next character, as the
//!   VM would go on.

use super::pyregex::{group_len, pieces, Lent};
use regex_automata::meta::{Cache, Regex};
use regex_automata::{Input, PatternID};
use regex_syntax::hir::{Class, ClassUnicode, ClassUnicodeRange, HirKind};

/// The group that holds the character the lookahead looked at.
const AHEAD: &str = "agentrisk_lookahead";

/// A one-character look-around.
#[derive(Debug, Clone)]
struct Look {
    negated: bool,
    class: ClassUnicode,
}

impl Look {
    fn parse(group: &str) -> Option<Look> {
        let (negated, inner) = if let Some(inner) = group.strip_prefix("(?<!").or_else(|| group.strip_prefix("(?!")) {
            (true, inner)
        } else {
            (false, group.strip_prefix("(?<=").or_else(|| group.strip_prefix("(?="))?)
        };
        let class = match regex_syntax::parse(inner.strip_suffix(')')?).ok()?.into_kind() {
            HirKind::Class(Class::Unicode(class)) => class,
            HirKind::Literal(literal) => {
                let text = std::str::from_utf8(&literal.0).ok()?;
                let mut chars = text.chars();
                let (Some(c), None) = (chars.next(), chars.next()) else { return None };
                ClassUnicode::new([ClassUnicodeRange::new(c, c)])
            }
            _ => return None,
        };
        Some(Look { negated, class })
    }

    /// Whether the look-around holds on `c` (`None`: the text's edge).
    fn holds(&self, c: Option<char>) -> bool {
        let inside = c.is_some_and(|c| {
            let ranges = self.class.ranges();
            let after = ranges.partition_point(|r| r.end() < c);
            ranges.get(after).is_some_and(|r| r.start() <= c)
        });
        inside != self.negated
    }

    /// The lookahead as a consumed group: the character it accepts, or the
    /// end of the text where a negated one holds.
    fn consumed(&self) -> String {
        let mut class = self.class.clone();
        if self.negated {
            class.negate();
        }
        let class = class_text(&class);
        if self.negated {
            format!(r"(?P<{AHEAD}>{class}|\z)")
        } else {
            format!("(?P<{AHEAD}>{class})")
        }
    }
}

/// A class as pattern text: `[\x{..}-\x{..}...]`, or one that matches
/// nothing when it is empty.
fn class_text(class: &ClassUnicode) -> String {
    if class.ranges().is_empty() {
        return r"[^\x{0}-\x{10FFFF}]".to_owned();
    }
    let mut out = String::from("[");
    for r in class.ranges() {
        out.push_str(&format!("\\x{{{:X}}}-\\x{{{:X}}}", r.start() as u32, r.end() as u32));
    }
    out.push(']');
    out
}

/// A pattern of the form `(?<!L)BODY(?!R)` (either edge optional, either
/// look-around positive or negative), compiled for `regex-automata`.
#[derive(Debug, Clone)]
pub(super) struct Edged {
    behind: Option<Look>,
    /// `BODY` followed by the lookahead's group, if any. The meta engine
    /// fancy-regex itself runs on: no second copy of it in the viewer.
    regex: Regex,
    /// Index of the lookahead's group in `regex`.
    ahead: Option<usize>,
    /// Whether `BODY` holds a word boundary (the automata of `regex-automata`
    /// know Unicode word boundaries on ASCII text only).
    bounded: bool,
    /// `regex`'s search caches (a long list of names makes megabytes).
    pub(super) caches: Lent<Cache>,
}

impl Edged {
    /// The edged form of a native pattern, if it has one: a look-around at
    /// one or both edges, on one character each, and none elsewhere.
    pub(super) fn new(pattern: &str) -> Option<Edged> {
        let mut body = pattern;
        let mut behind = None;
        if body.starts_with("(?<") {
            let len = group_len(body);
            behind = Some(Look::parse(&body[..len])?);
            body = &body[len..];
        }
        let ahead = match last_group_start(body) {
            Some(start) if body[start..].starts_with("(?=") || body[start..].starts_with("(?!") => {
                let look = Look::parse(&body[start..])?;
                body = &body[..start];
                Some(look)
            }
            _ => None,
        };
        if behind.is_none() && ahead.is_none() {
            return None;
        }
        // The body must be a plain pattern: no look-around, no back
        // reference (the automata refuse both), no bare flag group (its
        // flags would reach the lookahead's class in the original), and no
        // top-level `|` (in `(?<!x)a|b` the look-around binds to `a` only).
        regex_syntax::parse(body).ok()?;
        if has_bare_flags(body) || has_top_level_bar(body) {
            return None;
        }
        let consumed = ahead.as_ref().map(Look::consumed).unwrap_or_default();
        let regex = Regex::new(&format!("(?:{body}){consumed}")).ok()?;
        let ahead_index = match ahead {
            Some(_) => Some(regex.group_info().to_index(PatternID::ZERO, AHEAD)?),
            None => None,
        };
        Some(Edged {
            behind,
            regex,
            ahead: ahead_index,
            bounded: body.contains("\\b") || body.contains("\\B"),
            caches: Lent::default(),
        })
    }

    /// Whether the automata run this pattern fast on `text`.
    pub(super) fn fast_on(&self, text: &str) -> bool {
        !self.bounded || text.is_ascii()
    }

    /// The leftmost match starting at or after `pos`: the spans of its
    /// groups (group 0 first), as the backtracking VM would give them.
    pub(super) fn captures_at(&self, text: &str, pos: usize) -> Option<Vec<Option<(usize, usize)>>> {
        let mut cache = self.caches.take().unwrap_or_else(|| self.regex.create_cache());
        let found = self.captures_with(&mut cache, text, pos);
        self.caches.give_back(cache);
        found
    }

    fn captures_with(&self, cache: &mut Cache, text: &str, mut pos: usize) -> Option<Vec<Option<(usize, usize)>>> {
        let mut caps = self.regex.create_captures();
        while pos <= text.len() {
            // The span keeps the text before `pos` as context (for `\b`).
            self.regex.search_captures_with(cache, &Input::new(text).span(pos..text.len()), &mut caps);
            let whole = caps.get_match()?;
            let start = whole.start();
            let before = text[..start].chars().next_back();
            if self.behind.as_ref().is_none_or(|look| look.holds(before)) {
                let end = match self.ahead {
                    Some(i) => caps.get_group(i)?.start,
                    None => whole.end(),
                };
                let groups = self.ahead.unwrap_or(caps.group_len());
                let mut spans: Vec<Option<(usize, usize)>> =
                    (0..groups).map(|i| caps.get_group(i).map(|m| (m.start, m.end))).collect();
                spans[0] = Some((start, end));
                return Some(spans);
            }
            pos = start + text[start..].chars().next().map_or(1, char::len_utf8);
        }
        None
    }
}

/// Where the last top-level group of `pattern` starts, if the pattern ends
/// with that group's closing parenthesis.
fn last_group_start(pattern: &str) -> Option<usize> {
    let (mut depth, mut last, mut last_end) = (0usize, None, None);
    for (at, text, in_class) in pieces(pattern) {
        match text {
            "(" if !in_class => {
                if depth == 0 {
                    last = Some(at);
                }
                depth += 1;
            }
            ")" if !in_class => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    last_end = Some(at + 1);
                }
            }
            _ => {}
        }
    }
    (last_end == Some(pattern.len())).then_some(last?)
}

/// Whether `pattern` has a `|` outside every group and class.
fn has_top_level_bar(pattern: &str) -> bool {
    let mut depth = 0usize;
    for (_, text, in_class) in pieces(pattern) {
        match text {
            "(" if !in_class => depth += 1,
            ")" if !in_class => depth = depth.saturating_sub(1),
            "|" if !in_class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

/// Whether `pattern` holds a flag group without a body, like `(?i)`.
fn has_bare_flags(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    pieces(pattern).any(|(at, text, in_class)| {
        if in_class || text != "(" || b.get(at + 1) != Some(&b'?') {
            return false;
        }
        let flags = b[at + 2..].iter().take_while(|c| c.is_ascii_alphabetic() || **c == b'-').count();
        flags > 0 && b.get(at + 2 + flags) == Some(&b')')
    })
}
