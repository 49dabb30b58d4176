//! `hr_detector`: salary, leave, reviews, discipline, complaints and
//! employment status (spec 2.3, 6 patterns, all case-insensitive). Off by
//! default once any config file is given — a reference quirk kept for parity.

use super::finance::SEP;
use super::pyregex::builtin;
use super::{captures, Builtin, Emit, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity::{High, Medium};
use std::sync::OnceLock;

const D: Builtin = Builtin::Hr;

const SALARY: Emit = Emit {
    data_type: "salary",
    severity: High,
    confidence: 0.75,
    recommendation: "Salary figures belong in the payroll system, not in agent traffic.",
};
const SICK: Emit = Emit {
    data_type: "sick_leave",
    severity: High,
    confidence: 0.75,
    recommendation: "Leave for health reasons is health data; record only that an absence exists.",
};
const REVIEW: Emit = Emit {
    data_type: "performance_review",
    severity: Medium,
    confidence: 0.7,
    recommendation: "Performance reviews should reach only the employee and their manager.",
};
const DISCIPLINE: Emit = Emit {
    data_type: "disciplinary_action",
    severity: High,
    confidence: 0.8,
    recommendation: "Disciplinary records must stay in the HR case file.",
};
const COMPLAINT: Emit = Emit {
    data_type: "hr_complaint",
    severity: Medium,
    confidence: 0.7,
    recommendation: "Complaints and whistleblowing reports need confidential handling; do not forward them.",
};
const STATUS: Emit = Emit {
    data_type: "employment_status",
    severity: Medium,
    confidence: 0.6,
    recommendation: "Terminations and layoffs are confidential until announced.",
};

struct Patterns {
    salary: Regex,
    phrases: [(Regex, &'static Emit); 5],
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        salary: builtin(&format!(r"(?i)\b(?:salary|salaire|compensation|base pay){SEP}\$?([0-9][0-9,]{{3,}})")),
        phrases: [
            (builtin(r"(?i)\b(?:sick leave|medical leave|congé maladie|stress leave|fmla)\b"), &SICK),
            (
                builtin(r"(?i)\b(?:performance review|performance rating|performance plan|pip|évaluation|underperform\w*)\b"),
                &REVIEW,
            ),
            (
                builtin(
                    r"(?i)\b(?:disciplinary|written warning|final warning|misconduct|reprimand|mesure disciplinaire)\b",
                ),
                &DISCIPLINE,
            ),
            (builtin(r"(?i)\b(?:grievance|harassment complaint|hr complaint|plainte|whistleblow\w*)\b"), &COMPLAINT),
            (builtin(r"(?i)\b(?:terminated|termination|laid off|let go|severance)\b"), &STATUS),
        ],
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    let p = patterns();
    std::iter::once(&p.salary).chain(p.phrases.iter().map(|(re, _)| re)).collect()
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let p = patterns();
    for c in captures(&p.salary, screened) {
        if let Some(m) = c.get(1) {
            out.push(SALARY.raw(D, m.as_str()));
        }
    }
    for (re, emit) in &p.phrases {
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

    #[test]
    fn hr_phrases_and_salary() {
        assert_eq!(
            scan_one(Builtin::Hr, "Salary: $95,000 after the PIP; underperforming"),
            vec![
                ("salary".into(), "95,000".into()),
                ("performance_review".into(), "PIP".into()),
                ("performance_review".into(), "underperforming".into())
            ]
        );
    }
}
