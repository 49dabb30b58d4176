//! `healthcare_detector`: health identifiers (Québec NAM shapes and MRNs),
//! conditions and medications (spec 2.3, 5 patterns).

use super::pyregex::builtin;
use super::{alternation, captures, Builtin, Emit, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity::{Critical, Medium};
use crate::tables::tables;
use std::sync::OnceLock;

const D: Builtin = Builtin::Healthcare;

const NAM_TIGHT: Emit = Emit {
    data_type: "health_identifier",
    severity: Critical,
    confidence: 0.85,
    recommendation: "Health-insurance numbers identify a patient; replace them with an internal pseudonym.",
};
const NAM_SPACED: Emit = Emit {
    data_type: "health_identifier",
    severity: Critical,
    confidence: 0.8,
    recommendation: "Health-insurance numbers identify a patient; replace them with an internal pseudonym.",
};
const MRN: Emit = Emit {
    data_type: "health_identifier",
    severity: Critical,
    confidence: 0.8,
    recommendation: "Medical record numbers must stay inside the clinical system.",
};
const CONDITION: Emit = Emit {
    data_type: "health_condition",
    severity: Medium,
    confidence: 0.7,
    recommendation:
        "Diagnoses are special-category data; share them only with the care team, never with tools or logs.",
};
const MEDICATION: Emit = Emit {
    data_type: "medication",
    severity: Medium,
    confidence: 0.65,
    recommendation: "Medication details reveal health status; keep them out of non-clinical channels.",
};

struct Patterns {
    nam_tight: Regex,
    nam_spaced: Regex,
    mrn: Regex,
    condition: Regex,
    medication: Regex,
}

/// A whole-word, case-insensitive dictionary pattern, longest term first.
fn dictionary(terms: &[String]) -> Regex {
    let mut sorted: Vec<&str> = terms.iter().map(String::as_str).collect();
    crate::util::sort_by_key(&mut sorted, |t| std::cmp::Reverse(t.chars().count()));
    builtin(&format!(r"(?i)\b(?:{})\b", alternation(sorted)))
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        nam_tight: builtin(r"\b[A-Z]{4}\d{8}\b"),
        nam_spaced: builtin(r"\b(?:NAM\s+)?[A-Z]{4}(?:[\s\-]\d{2,4}){2,4}\b"),
        mrn: builtin(
            r"(?i)\b(?:mrn|medical record|medical record number|health[ _]?id)\b[:\s#]*((?:NAM\s*)?[A-Z0-9][A-Z0-9 \-]{4,})",
        ),
        condition: dictionary(&tables().healthcare_conditions),
        medication: dictionary(&tables().healthcare_medications),
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    let p = patterns();
    vec![&p.nam_tight, &p.nam_spaced, &p.mrn, &p.condition, &p.medication]
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let p = patterns();
    let mut tight: Vec<&str> = Vec::new();
    for c in captures(&p.nam_tight, screened) {
        if let Some(m) = c.get(0) {
            tight.push(m.as_str());
            out.push(NAM_TIGHT.raw(D, m.as_str()));
        }
    }
    for c in captures(&p.nam_spaced, screened) {
        let Some(value) = c.get(0).map(|m| m.as_str()) else { continue };
        // Only U+0020 and `-` are removed before comparing with the tight
        // ids (a tab-separated copy stays a second identifier, as in the reference).
        let squeezed: String = value.chars().filter(|&ch| ch != ' ' && ch != '-').collect();
        let squeezed = squeezed.strip_prefix("NAM").unwrap_or(&squeezed);
        if !tight.contains(&value) && !tight.contains(&squeezed) {
            out.push(NAM_SPACED.raw(D, value));
        }
    }
    for c in captures(&p.mrn, screened) {
        // Reference quirk: the whole pattern is case-insensitive, so the
        // capture runs greedily over following words; not trimmed.
        if let Some(m) = c.get(1) {
            out.push(MRN.raw(D, m.as_str()));
        }
    }
    for (re, emit) in [(&p.condition, &CONDITION), (&p.medication, &MEDICATION)] {
        for c in captures(re, screened) {
            if let Some(m) = c.get(0) {
                out.push(emit.raw(D, m.as_str()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan_one;
    use super::*;

    fn found(text: &str) -> Vec<(String, String)> {
        scan_one(Builtin::Healthcare, text)
    }

    #[test]
    fn nam_shapes_and_their_false_positives() {
        assert_eq!(found("TREM12345678 / TREM 1234 5678"), vec![("health_identifier".into(), "TREM12345678".into())]);
        // Reference quirk (edge_nam_false_positive): a log level and a date look like a NAM.
        assert_eq!(found("INFO 2024-01-15 started"), vec![("health_identifier".into(), "INFO 2024-01-15".into())]);
    }

    #[test]
    fn mrn_runs_greedily_over_words() {
        assert_eq!(
            found("MRN: ab12345 for patient Jean Tremblay. Next"),
            vec![("health_identifier".into(), "ab12345 for patient Jean Tremblay".into())]
        );
        assert_eq!(found("MRN: ab12345\tx"), vec![("health_identifier".into(), "ab12345".into())]);
    }

    #[test]
    fn dictionary_terms_keep_their_spelling() {
        assert_eq!(
            found("Diabetes and insulin"),
            vec![("health_condition".into(), "Diabetes".into()), ("medication".into(), "insulin".into())]
        );
    }
}
