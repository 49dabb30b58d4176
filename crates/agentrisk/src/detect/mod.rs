//! The fast ("regex") tier detectors of the reference (spec 2.3), one file
//! per detector family, plus user-defined custom rules.
//!
//! A detector takes one event's text and returns raw matches, in pattern
//! order and, within a pattern, in text order. Everything per event and per
//! trace that comes after — de-duplication, credential suppression, decoded
//! views, numbering, coalescing — belongs to `analyze`.

mod custom;
mod edge;
mod finance;
mod healthcare;
mod hr;
mod keyname;
pub mod luhn;
mod pii;
pub mod pyregex;
mod secrets;

pub use custom::{CustomDetector, CustomRuleError, CustomRuleSpec};

use crate::model::Severity;
use std::borrow::Cow;
use std::sync::OnceLock;

/// One raw match of a detector. The texts a built-in detector emits are
/// fixed, so they are borrowed, not copied per match.
#[derive(Debug, Clone, PartialEq)]
pub struct RawMatch {
    pub data_type: Cow<'static, str>,
    pub value: String,
    pub severity: Severity,
    pub confidence: f64,
    pub detector: Cow<'static, str>,
    pub recommendation: Cow<'static, str>,
}

/// The built-in detector families, in the reference's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    Pii,
    Secrets,
    Healthcare,
    Finance,
    Hr,
    Keyname,
}

impl Builtin {
    pub const ALL: [Builtin; 6] =
        [Builtin::Pii, Builtin::Secrets, Builtin::Healthcare, Builtin::Finance, Builtin::Hr, Builtin::Keyname];

    /// The name findings carry in their `detector` field, e.g.
    /// `pii_detector`.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Pii => "pii_detector",
            Builtin::Secrets => "secrets_detector",
            Builtin::Healthcare => "healthcare_detector",
            Builtin::Finance => "finance_detector",
            Builtin::Hr => "hr_detector",
            Builtin::Keyname => "keyname_detector",
        }
    }

    /// The detector's key in a config file's `detectors:` section (and in
    /// the viewer's settings): its [name](Builtin::name) without
    /// `_detector`, e.g. `pii`.
    pub fn key(self) -> &'static str {
        let name = self.name();
        name.strip_suffix("_detector").unwrap_or(name)
    }

    /// The detector with this [key](Builtin::key), if any.
    pub fn from_key(key: &str) -> Option<Builtin> {
        Builtin::ALL.into_iter().find(|b| b.key() == key)
    }

    /// Appends this detector's raw matches on `text` to `out`.
    pub fn scan(self, text: &str, out: &mut Vec<RawMatch>) {
        self.scan_screened(&ScreenedText::new(text), out);
    }

    /// [`Builtin::scan`] on a text already screened (one screen serves
    /// every detector).
    pub fn scan_screened(self, text: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
        match self {
            Builtin::Pii => pii::scan(text, out),
            Builtin::Secrets => secrets::scan(text, out),
            Builtin::Healthcare => healthcare::scan(text, out),
            Builtin::Finance => finance::scan(text, out),
            Builtin::Hr => hr::scan(text, out),
            Builtin::Keyname => keyname::scan(text, out),
        }
    }
}

/// A text with the built-in patterns that can match it at all, found in one
/// pass per detector; each detector then runs only those (most texts hold a few kinds of
/// data, and a pattern's own scan costs about as much as the whole screen).
pub struct ScreenedText<'t> {
    pub text: &'t str,
    screen: pyregex::Screen<'static, 't>,
}

impl<'t> ScreenedText<'t> {
    pub fn new(text: &'t str) -> ScreenedText<'t> {
        ScreenedText { text, screen: prefilter().screen(text) }
    }

    /// The text with nothing ruled out (every pattern runs).
    #[cfg(test)]
    fn unscreened(text: &'t str) -> ScreenedText<'t> {
        ScreenedText { text, screen: pyregex::Screen::everything(text) }
    }
}

/// The patterns each built-in detector family runs on whole texts; the
/// names gazetteer's family (pii) first.
const FAMILIES: [fn() -> Vec<&'static pyregex::PyRegex>; 6] = [
    pii::text_patterns,
    secrets::text_patterns,
    healthcare::text_patterns,
    finance::text_patterns,
    hr::text_patterns,
    keyname::text_patterns,
];

/// Compiles every built-in pattern and every form of it that is otherwise
/// compiled on first need (for non-ASCII texts, say), and the screen: what a
/// long-lived process (the page's worker) does once, before its first file.
pub(crate) fn compile_all() {
    for family in FAMILIES {
        for re in family() {
            re.compile_lazy_forms();
        }
    }
    prefilter().compile_lazy_forms();
}

/// Compiles the built-in detectors' patterns and the screen now, the
/// families side by side on the threads the build allows
/// ([`crate::util::map_in_order`]), instead of on the first text's thread
/// while the others wait for it.
pub(crate) fn compile_patterns() {
    crate::util::map_in_order(&FAMILIES, |_, family| family().len());
    if PREFILTER.get().is_none() {
        // Side by side, and outside the lock (see `prefilter`); a thread
        // that built it meanwhile wins, with the same screen.
        let _ = PREFILTER.set(build_prefilter(true));
    }
}

/// [`compile_patterns`] on another thread while this one goes on (reading
/// a long trace, say), unless the screen, compiled last, is there already.
/// Without threads the patterns are compiled on first use, as before.
pub(crate) fn compile_patterns_meanwhile() {
    if PREFILTER.get().is_none() {
        crate::util::meanwhile(compile_patterns);
    }
}

static PREFILTER: OnceLock<pyregex::Prefilter> = OnceLock::new();

/// The screen over every pattern the built-in detectors run on whole texts.
fn prefilter() -> &'static pyregex::Prefilter {
    // Built on this thread alone: built with the pool's threads inside the
    // lock, a thread outside the pool waited on the pool while the pool's
    // threads, analysing another trace, waited on the lock (a deadlock;
    // tests/concurrent_start.rs).
    PREFILTER.get_or_init(|| build_prefilter(false))
}

/// Lets go of the idle search caches of the screen and of the built-in
/// patterns on automata. Nothing to do before the screen is built (which
/// compiles every built-in pattern).
pub(crate) fn release_search_caches() {
    if let Some(p) = PREFILTER.get() {
        p.release_caches();
        for family in FAMILIES {
            for re in family() {
                re.release_caches();
            }
        }
    }
}

/// The pii patterns (a long list of given names among them) make a large
/// automaton of their own; the other detectors' patterns share one set, so
/// a text takes two scans, not six (one per detector was 8% slower end to
/// end at 100 000 events). A disabled detector's patterns are then screened
/// along with the others: time, not results.
fn build_prefilter(side_by_side: bool) -> pyregex::Prefilter {
    let [pii, others @ ..] = FAMILIES;
    pyregex::Prefilter::new(&[pii(), others.iter().flat_map(|family| family()).collect()], side_by_side)
}

/// A fixed pattern of a built-in detector: what it emits and its own advice.
pub(crate) struct Emit {
    pub data_type: &'static str,
    pub severity: Severity,
    pub confidence: f64,
    pub recommendation: &'static str,
}

impl Emit {
    pub(crate) fn raw(&self, detector: Builtin, value: &str) -> RawMatch {
        RawMatch {
            data_type: Cow::Borrowed(self.data_type),
            value: value.to_owned(),
            severity: self.severity,
            confidence: self.confidence,
            detector: Cow::Borrowed(detector.name()),
            recommendation: Cow::Borrowed(self.recommendation),
        }
    }
}

/// Every leftmost-first, non-overlapping match of `re` in the text.
pub(crate) fn captures<'r, 't: 'r>(
    re: &'r pyregex::PyRegex,
    text: &ScreenedText<'t>,
) -> Box<dyn Iterator<Item = pyregex::Captures<'t>> + 'r> {
    if text.screen.may_match(re) {
        re.captures_classified(text.text, text.screen.python_classes())
    } else {
        Box::new(std::iter::empty())
    }
}

/// Escapes a literal for use in a Python-syntax pattern.
pub(crate) fn escape(literal: &str) -> String {
    fancy_regex::escape(literal).into_owned()
}

/// `a|b|c` of escaped literals, in the given order.
pub(crate) fn alternation<'a>(items: impl IntoIterator<Item = &'a str>) -> String {
    items.into_iter().map(escape).collect::<Vec<_>>().join("|")
}

#[cfg(test)]
pub(crate) fn scan_one(detector: Builtin, text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    detector.scan(text, &mut out);
    out.into_iter().map(|m| (m.data_type.into_owned(), m.value)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &ScreenedText<'_>) -> Vec<RawMatch> {
        let mut out = Vec::new();
        for b in Builtin::ALL {
            b.scan_screened(text, &mut out);
        }
        out
    }

    #[test]
    fn every_builtin_pattern_compiles() {
        // A detector's first scan compiles all its patterns (`pyregex::builtin`
        // panics on one that does not compile); the screen compiles the rest.
        let mut out = Vec::new();
        for b in Builtin::ALL {
            b.scan("salary: $95,000, card 4111 1111 1111 1111", &mut out);
        }
        let found: Vec<(&str, &str)> = out.iter().map(|m| (&*m.detector, &*m.data_type)).collect();
        assert_eq!(found, [("pii_detector", "credit_card"), ("hr_detector", "salary"), ("keyname_detector", "salary")]);
    }

    #[test]
    fn keys_are_the_names_without_their_suffix() {
        assert_eq!(Builtin::ALL.map(Builtin::key), ["pii", "secrets", "healthcare", "finance", "hr", "keyname"]);
        for b in Builtin::ALL {
            assert_eq!(format!("{}_detector", b.key()), b.name());
            assert_eq!(Builtin::from_key(b.key()), Some(b));
        }
        assert_eq!(Builtin::from_key("pii_detector"), None);
        assert_eq!(Builtin::from_key("PII"), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Screening only skips patterns that find nothing.
        #[test]
        fn the_screen_changes_no_result(parts in proptest::collection::vec(proptest::sample::select(vec![
            "ssn: 123-45-6789", "SIN 046 454 286", "(514) 555-0199", "4111 1111 1111 1111", "10.0.0.1", "::1",
            "dob: 1980-02-29", "ACC-12345", "AB123456C", "Jean Tremblay", "patient: Marie Curie",
            "42 Wallaby Way", "85 Rue Sherbrooke", "H2X 1Y4", "x@example.com", "AKIAIOSFODNN7EXAMPLE",
            "Bearer abcdefghijklmnop1234", "postgres://u:p@h/db", "password=hunter2xyz", "TREM12345678",
            "MRN: ab12345", "diabetes", "insulin", "IBAN FR76 3000 6000 0112 3456 7890 189", "account number 12345678",
            "credit score 712", "income: 125000", "salary: $95,000", "sick leave", "terminated", "diagnosis: asthma",
            "email address: a@b.example", " ", ", ", "\n", "é", "²", "\u{1c}", "version ", "x", "12", "-", ":",
        ]), 0..10)) {
            let text = parts.concat();
            proptest::prop_assert_eq!(all(&ScreenedText::new(&text)), all(&ScreenedText::unscreened(&text)));
        }
    }

    #[test]
    fn the_screen_rules_out_patterns() {
        let screened = ScreenedText::new("nothing sensitive here");
        assert!(!screened.screen.may_match(pii::text_patterns()[0]));
        assert!(ScreenedText::new("x@example.com").screen.may_match(pii::text_patterns()[0]));
    }
}
