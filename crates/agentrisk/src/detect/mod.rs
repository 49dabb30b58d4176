//! The fast ("regex") tier detectors of the reference (spec 2.3), one file
//! per detector family, plus user-defined custom rules.
//!
//! A detector takes one event's text and returns raw matches, in pattern
//! order and, within a pattern, in text order. Everything per event and per
//! trace that comes after — de-duplication, credential suppression, decoded
//! views, numbering, coalescing — belongs to `analyze`.

mod custom;
mod finance;
mod healthcare;
mod hr;
mod keyname;
mod pii;
pub mod pyregex;
mod secrets;
pub(crate) mod tables;

pub use custom::{CustomDetector, CustomRuleSpec};

use crate::model::Severity;

/// One raw match of a detector.
#[derive(Debug, Clone, PartialEq)]
pub struct RawMatch {
    pub data_type: String,
    pub value: String,
    pub severity: Severity,
    pub confidence: f64,
    pub detector: String,
    pub recommendation: String,
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

    /// Appends this detector's raw matches on `text` to `out`.
    pub fn scan(self, text: &str, out: &mut Vec<RawMatch>) {
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
            data_type: self.data_type.to_owned(),
            value: value.to_owned(),
            severity: self.severity,
            confidence: self.confidence,
            detector: detector.name().to_owned(),
            recommendation: self.recommendation.to_owned(),
        }
    }
}

/// Every leftmost-first, non-overlapping match of `re` in `text`.
pub(crate) fn captures<'r, 't: 'r>(
    re: &'r pyregex::PyRegex,
    text: &'t str,
) -> impl Iterator<Item = fancy_regex::Captures<'t, str>> + 'r {
    re.captures(text)
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
    out.into_iter().map(|m| (m.data_type, m.value)).collect()
}
