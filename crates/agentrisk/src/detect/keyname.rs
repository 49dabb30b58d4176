//! `keyname_detector`: values of sensitive field names (`"ssn": …`,
//! `diagnosis = …`), 16 stems in table order (spec 2.3).
//!
//! Flattened keys are humanised, so `email_address` reads `email address`
//! and fires the `address` stem — a reference quirk (edge_email_address_key).

use super::pyregex::builtin;
use super::{captures, Builtin, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity;
use crate::pyunicode::{is_space, strip};
use crate::tables::tables;
use std::borrow::Cow;
use std::sync::OnceLock;

const CONFIDENCE: f64 = 0.6;

struct Stem {
    re: Regex,
    data_type: String,
    severity: Severity,
    recommendation: String,
}

struct Patterns {
    stems: Vec<Stem>,
    placeholder: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        stems: tables()
            .keyname_stems_in_order
            .iter()
            .map(|stem| Stem {
                re: builtin(&format!(
                    r#"(?i)["']?\b(?:{})\b["']?\s*[:=]\s*["']?((?:[^"'|,;}}\n.]|\.(?!\s|$))+)"#,
                    stem.stem_regex
                )),
                data_type: stem.data_type.clone(),
                severity: Severity::from_name(&stem.severity).unwrap_or(Severity::Medium),
                recommendation: format!(
                    "A field named like {} carries personal data; drop or mask the field before it leaves the agent.",
                    stem.data_type.replace('_', " ")
                ),
            })
            .collect(),
        placeholder: builtin(
            r"(?i)^(?:none|null|n/a|na|true|false|redacted|unknown|\?+|-+|x{3,}|\*{2,}|<.*>|\{\{.*|\$\{.*)\Z",
        ),
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    patterns().stems.iter().map(|s| &s.re).collect()
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let p = patterns();
    for stem in &p.stems {
        for c in captures(&stem.re, screened) {
            let Some(raw) = c.get(1).map(|m| m.as_str()) else { continue };
            let value = clean(raw);
            let len = value.chars().count();
            if !(2..=120).contains(&len) || p.placeholder.is_match(value) {
                continue;
            }
            out.push(RawMatch {
                data_type: Cow::Borrowed(stem.data_type.as_str()),
                value: value.to_owned(),
                severity: stem.severity,
                confidence: CONFIDENCE,
                detector: Cow::Borrowed(Builtin::Keyname.name()),
                recommendation: Cow::Borrowed(stem.recommendation.as_str()),
            });
        }
    }
}

/// Trim whitespace, then quotes at both ends, then trailing punctuation and space.
fn clean(raw: &str) -> &str {
    let v = strip(raw).trim_matches(|c| c == '"' || c == '\'');
    v.trim_end_matches(|c: char| is_space(c) || matches!(c, '.' | ';' | ':' | '!' | '?' | ')' | ']'))
}

#[cfg(test)]
mod tests {
    use super::super::scan_one;
    use super::*;

    #[test]
    fn field_values_end_at_delimiters_and_sentence_dots() {
        assert_eq!(
            scan_one(Builtin::Keyname, "patient name: Jean Tremblay | ssn: 123.45.678. Next"),
            vec![("ssn".into(), "123.45.678".into()), ("person_name".into(), "Jean Tremblay".into())]
        );
        assert_eq!(
            scan_one(Builtin::Keyname, "email address: a@b.example"),
            vec![("address".into(), "a@b.example".into())]
        );
        assert!(scan_one(Builtin::Keyname, "ssn: N/A").is_empty());
        assert!(scan_one(Builtin::Keyname, "my_ssn: 123456789").is_empty());
        assert!(scan_one(Builtin::Keyname, "diagnosis: <redacted>").is_empty());
    }
}
