//! `finance_detector`: IBANs, account numbers, credit scores, amounts and
//! internal notes (spec 2.3, 7 patterns). Off by default once any config
//! file is given — a reference quirk kept for parity.

use super::pyregex::builtin;
use super::{captures, Builtin, Emit, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity::{High, Medium};
use std::sync::OnceLock;

const D: Builtin = Builtin::Finance;

/// A separator run between a label and its value: quotes, whitespace, `:`, `=`, `#`, `-`.
pub(super) const SEP: &str = r#"["'\s:=#\-]*"#;

const IBAN: Emit = Emit {
    data_type: "iban",
    severity: High,
    confidence: 0.75,
    recommendation: "Mask IBANs except for the last four characters.",
};
const ACCOUNT: Emit = Emit {
    data_type: "account_number",
    severity: High,
    confidence: 0.8,
    recommendation: "Mask account numbers except for the last four digits.",
};
const SCORE: Emit = Emit {
    data_type: "credit_score",
    severity: Medium,
    confidence: 0.8,
    recommendation: "Credit scores are regulated data; share a decision, not the score.",
};
const INCOME: Emit = Emit {
    data_type: "income",
    severity: Medium,
    confidence: 0.7,
    recommendation: "Share an income band instead of the exact figure.",
};
const LOAN: Emit = Emit {
    data_type: "loan_amount",
    severity: Medium,
    confidence: 0.65,
    recommendation: "Keep loan amounts inside the lending system.",
};
const BALANCE: Emit = Emit {
    data_type: "account_balance",
    severity: Medium,
    confidence: 0.6,
    recommendation: "Account balances should not appear in agent messages or logs.",
};
const NOTE: Emit = Emit {
    data_type: "internal_note",
    severity: High,
    confidence: 0.7,
    recommendation: "Internal assessments must not reach customers or external tools.",
};

struct Patterns {
    iban: Regex,
    account: Regex,
    score: Regex,
    income: Regex,
    loan: Regex,
    balance: Regex,
    note: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        iban: builtin(r"\b[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)\b"),
        account: builtin(&format!(r"(?i)\b(?:account|acct|compte)(?:\s*(?:number|no|num|#))?{SEP}([0-9]{{6,}})")),
        score: builtin(&format!(r"(?i)\bcredit\s*score{SEP}([0-9]{{3}})\b")),
        income: builtin(&format!(
            r"(?i)\b(?:income|revenue|revenu|salary income|gross income){SEP}\$?([0-9][0-9,]{{3,}})"
        )),
        loan: builtin(&format!(
            r"(?i)\b(?:loan|mortgage|prêt|pret)(?:\s*(?:amount|montant))?{SEP}\$?([0-9][0-9,]{{3,}})"
        )),
        balance: builtin(&format!(r"(?i)\b(?:balance|solde){SEP}\$?([0-9][0-9,]{{2,}})")),
        note: builtin(r"(?i)\b(?:internal note|internal risk note|risk note|underwriter note|internal assessment)\b"),
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    let p = patterns();
    vec![&p.iban, &p.account, &p.score, &p.income, &p.loan, &p.balance, &p.note]
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let p = patterns();
    for c in captures(&p.iban, screened) {
        if let Some(value) = c.get(0).map(|m| m.as_str()) {
            if value.chars().skip(4).any(|ch| ch.is_ascii_digit()) {
                out.push(IBAN.raw(D, value));
            }
        }
    }
    // Reference quirk: amounts keep a trailing comma (`income 125000,`).
    for (re, emit) in
        [(&p.account, &ACCOUNT), (&p.score, &SCORE), (&p.income, &INCOME), (&p.loan, &LOAN), (&p.balance, &BALANCE)]
    {
        for c in captures(re, screened) {
            if let Some(m) = c.get(1) {
                out.push(emit.raw(D, m.as_str()));
            }
        }
    }
    for c in captures(&p.note, screened) {
        if let Some(m) = c.get(0) {
            out.push(NOTE.raw(D, m.as_str()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan_one;
    use super::*;

    #[test]
    fn amounts_keep_trailing_commas_and_ibans_need_a_digit() {
        assert_eq!(scan_one(Builtin::Finance, "income: 125000, ok"), vec![("income".into(), "125000,".into())]);
        assert_eq!(
            scan_one(Builtin::Finance, "GB82 WEST 1234 5698 7654 32"),
            vec![("iban".into(), "GB82 WEST 1234 5698 7654 32".into())]
        );
        assert!(scan_one(Builtin::Finance, "DE00ABCDEFGHIJKLMNOP").is_empty());
        assert_eq!(
            scan_one(Builtin::Finance, "account number 99887766"),
            vec![("account_number".into(), "99887766".into())]
        );
    }
}
