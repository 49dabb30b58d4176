//! `pii_detector`: contact data, government ids, cards, IPs, dates of
//! birth, client ids, names and postal addresses (spec 2.3, 16 patterns).

use super::luhn;
use super::pyregex::builtin;
use super::{alternation, captures, Builtin, Emit, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity::{High, Low, Medium};
use crate::pyunicode::strip;
use crate::tables::tables;
use std::sync::OnceLock;

const D: Builtin = Builtin::Pii;

const EMAIL: Emit = Emit {
    data_type: "email",
    severity: Medium,
    confidence: 0.95,
    recommendation: "Mask email addresses before they leave the agent; pass a contact reference instead.",
};
const SSN: Emit = Emit {
    data_type: "ssn",
    severity: High,
    confidence: 0.85,
    recommendation: "Never forward Social Security numbers; tokenise them at the source.",
};
const SIN: Emit = Emit {
    data_type: "sin",
    severity: High,
    confidence: 0.8,
    recommendation: "Never forward Social Insurance numbers; tokenise them at the source.",
};
const PHONE: Emit = Emit {
    data_type: "phone_number",
    severity: Medium,
    confidence: 0.65,
    recommendation: "Mask phone numbers unless the recipient needs to call the person.",
};
const CARD: Emit = Emit {
    data_type: "credit_card",
    severity: High,
    confidence: 0.95,
    recommendation: "Card numbers must never appear outside the payment system; use a token.",
};
const IP: Emit = Emit {
    data_type: "ip_address",
    severity: Low,
    confidence: 0.6,
    recommendation: "Drop or truncate IP addresses that identify a user or host.",
};
const DOB: Emit = Emit {
    data_type: "date_of_birth",
    severity: Medium,
    confidence: 0.75,
    recommendation: "Share an age band instead of a full date of birth.",
};
const CLIENT: Emit = Emit {
    data_type: "client_identifier",
    severity: Medium,
    confidence: 0.7,
    recommendation: "Replace client and account identifiers with opaque references.",
};
const NINO: Emit = Emit {
    data_type: "national_insurance_number",
    severity: High,
    confidence: 0.8,
    recommendation: "Never forward National Insurance numbers; tokenise them at the source.",
};
const NAME_LIST: Emit = Emit {
    data_type: "person_name",
    severity: Medium,
    confidence: 0.5,
    recommendation: "Refer to people by role or pseudonym rather than full name.",
};
const NAME_KEYWORD: Emit = Emit {
    data_type: "person_name",
    severity: Medium,
    confidence: 0.55,
    recommendation: "Refer to people by role or pseudonym rather than full name.",
};
const ADDRESS: Emit = Emit {
    data_type: "address",
    severity: High,
    confidence: 0.7,
    recommendation: "Keep street addresses out of messages, logs and tool calls; share a region at most.",
};
const POSTAL: Emit = Emit {
    data_type: "address",
    severity: Medium,
    confidence: 0.6,
    recommendation: "Postal codes narrow a person's location; drop them or keep only the first part.",
};

struct Patterns {
    email: Regex,
    ssn: Regex,
    sin: Regex,
    sin_labelled: Regex,
    phone: Regex,
    card: Regex,
    ipv4: Regex,
    version_window: Regex,
    ipv6: Regex,
    dob: Regex,
    client: Regex,
    nino: Regex,
    name_list: Regex,
    name_keyword: Regex,
    address_en: Regex,
    address_fr: Regex,
    postal: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let t = tables();
        let surname = r"[A-ZÀ-Ý][a-zà-ÿ]+(?:['’\-][A-ZÀ-Ý]?[a-zà-ÿ]+)?";
        let given = alternation(t.names_given_names_titlecased_sorted.iter().map(String::as_str));
        let suffixes = alternation(t.pii_street_suffixes_en.iter().map(String::as_str));
        Patterns {
            email: builtin(r"[A-Za-z0-9_.+\-]+@[A-Za-z0-9\-]+\.[A-Za-z0-9.\-]+"),
            ssn: builtin(r"\b\d{3}-\d{2}-\d{4}\b"),
            sin: builtin(r"\b\d{3}[\- ]\d{3}[\- ]\d{3}\b"),
            sin_labelled: builtin(r"(?i)\b(?:sin|nas|social[ _]?insurance(?:[ _]?number)?)\b[\s:=#]*(\d{9})\b"),
            phone: builtin(r"(?<!\d)(?:\+?\d{1,3}[\-.\s]?)?(?:\(\d{3}\)|\d{3})[\-.\s]\d{3}[\-.\s]\d{4}(?!\d)"),
            card: builtin(r"\b(?:\d[ \-]?){13,16}\b"),
            ipv4: builtin(r"\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b"),
            version_window: builtin(r"(?i)\b(?:version|ver|build|release|rev)[\s:v.]*$"),
            ipv6: builtin(
                r"\b(?:(?:[0-9A-Fa-f]{1,4}:){3,7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4})\b",
            ),
            dob: builtin(
                r"(?i)\b(?:dob|d\.o\.b\.|date of birth|born|birth ?date|n[ée]e? le|date de naissance)(?!\w)[:\s]*(\d{4}-\d{2}-\d{2}|\d{1,2}[/\-]\d{1,2}[/\-]\d{2,4})",
            ),
            client: builtin(r"(?i)\b(?:ACC|ACCT|CUST|CLIENT|USER|MEMBER)[\-_]?\d{3,}\b"),
            nino: builtin(
                r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[ABCEGHJ-PRSTW-Z][ABCEGHJ-NPRSTW-Z](?:\s?\d{2}){3}\s?[A-D]\b",
            ),
            name_list: builtin(&format!(r"(?<![\w@.\-])(?:{given})(?:[ \t]+{surname}){{1,2}}(?![\w@])")),
            name_keyword: builtin(
                r#"(?i:\b(?:patient|client|customer|employee|name|mr|mrs|ms|dr|prof)\b)["'\s:_]+([A-ZÀ-Ý][a-zà-ÿ]+(?:[ \-][A-ZÀ-Ý][a-zà-ÿ]+){1,2})"#,
            ),
            address_en: builtin(&format!(
                r"(?<![:.\d])\b\d{{1,5}}\s+(?:[A-Z][A-Za-z.]+\s){{1,3}}(?i:(?:{suffixes})\b)\.?(?:,?\s+(?:Suite|Ste|Apt|Apartment|Unit|#)\.?\s*[A-Za-z0-9\-]+)?(?:,\s*[A-Z][A-Za-z .'\-]+,\s*[A-Z]{{2}}\s+\d{{5}}(?:-\d{{4}})?)?"
            )),
            address_fr: builtin(
                r"(?i)\b\d{1,5}(?:[\-\s]\d{1,4})?\s+(?:Rue|Avenue|Av|Boulevard|Boul|Bd|Chemin|Ch|Côte|Cote|Place|Allée|Allee|Impasse|Montée|Montee|Rang|Croissant|Promenade|Terrasse|Carré|Carre)\.?\s+[A-ZÀ-Ý][\wÀ-ÿ'’.\-]+(?:[ \-][A-ZÀ-Ý][\wÀ-ÿ'’.\-]+){0,3}",
            ),
            postal: builtin(r"(?i)\b[A-Z]\d[A-Z][ \-]?\d[A-Z]\d\b"),
        }
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    let p = patterns();
    vec![
        &p.email,
        &p.ssn,
        &p.sin,
        &p.sin_labelled,
        &p.phone,
        &p.card,
        &p.ipv4,
        &p.ipv6,
        &p.dob,
        &p.client,
        &p.nino,
        &p.name_list,
        &p.name_keyword,
        &p.address_en,
        &p.address_fr,
        &p.postal,
    ]
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let text = screened.text;
    let p = patterns();
    let whole = |re: &Regex, emit: &Emit, out: &mut Vec<RawMatch>| {
        for c in captures(re, screened) {
            if let Some(m) = c.get(0) {
                out.push(emit.raw(D, m.as_str()));
            }
        }
    };
    let group = |re: &Regex, emit: &Emit, out: &mut Vec<RawMatch>| {
        for c in captures(re, screened) {
            if let Some(m) = c.get(1) {
                out.push(emit.raw(D, m.as_str()));
            }
        }
    };
    whole(&p.email, &EMAIL, out);
    whole(&p.ssn, &SSN, out);
    whole(&p.sin, &SIN, out);
    group(&p.sin_labelled, &SIN, out);
    for c in captures(&p.phone, screened) {
        if let Some(m) = c.get(0) {
            out.push(PHONE.raw(D, strip(m.as_str())));
        }
    }
    for c in captures(&p.card, screened) {
        if let Some(m) = c.get(0) {
            if luhn::is_valid(m.as_str()) {
                out.push(CARD.raw(D, strip(m.as_str())));
            }
        }
    }
    for c in captures(&p.ipv4, screened) {
        if let Some(m) = c.get(0) {
            if !after_version_word(p, &text[..m.start()]) {
                out.push(IP.raw(D, m.as_str()));
            }
        }
    }
    whole(&p.ipv6, &IP, out);
    group(&p.dob, &DOB, out);
    whole(&p.client, &CLIENT, out);
    whole(&p.nino, &NINO, out);
    for c in captures(&p.name_list, screened) {
        if let Some(name) = c.get(0).and_then(|m| clean_listed_name(m.as_str())) {
            out.push(NAME_LIST.raw(D, &name));
        }
    }
    group(&p.name_keyword, &NAME_KEYWORD, out);
    for c in captures(&p.address_en, screened) {
        if let Some(m) = c.get(0) {
            out.push(ADDRESS.raw(D, strip(m.as_str())));
        }
    }
    for c in captures(&p.address_fr, screened) {
        if let Some(m) = c.get(0) {
            out.push(ADDRESS.raw(D, strip(m.as_str())));
        }
    }
    whole(&p.postal, &POSTAL, out);
}

/// The reference suppresses an IPv4 address right after a version word, by
/// looking at the 16 characters before it *on their own*: the window's first
/// character counts as a word start (`prerelease` + 9 spaces is suppressed,
/// + 8 spaces is not). Kept as is for parity.
fn after_version_word(p: &Patterns, before: &str) -> bool {
    let start = before.char_indices().rev().nth(15).map_or(0, |(i, _)| i);
    p.version_window.is_match(&before[start..])
}

/// Post-processing of a gazetteer match: drop possessive `'s`, drop trailing
/// words that are not surnames while more than one word remains, and reject
/// the match unless two words remain and none after the first is a non-surname.
fn clean_listed_name(raw: &str) -> Option<String> {
    let not_surnames = &tables().names_not_surnames;
    let is_not_surname = |w: &str| not_surnames.iter().any(|n| n == w);
    let mut words: Vec<&str> = raw
        .split(crate::pyunicode::is_space)
        .filter(|w| !w.is_empty())
        .map(|w| w.strip_suffix("'s").or_else(|| w.strip_suffix("’s")).unwrap_or(w))
        .collect();
    while words.len() > 1 && words.last().is_some_and(|w| is_not_surname(w)) {
        words.pop();
    }
    if words.len() < 2 || words[1..].iter().any(|w| is_not_surname(w)) {
        return None;
    }
    Some(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::super::scan_one;
    use super::*;

    fn found(text: &str) -> Vec<(String, String)> {
        scan_one(Builtin::Pii, text)
    }

    fn pair(t: &str, v: &str) -> (String, String) {
        (t.to_owned(), v.to_owned())
    }

    #[test]
    fn email_keeps_a_sentence_final_dot() {
        // Reference quirk (edge_email_trailing_dot): the domain run takes dots.
        assert_eq!(found("write to ann.lee@example.com."), vec![pair("email", "ann.lee@example.com.")]);
    }

    #[test]
    fn cards_need_luhn_and_keep_a_trailing_dash() {
        assert_eq!(found("card 4111 1111 1111 1111 ok"), vec![pair("credit_card", "4111 1111 1111 1111")]);
        assert_eq!(found("4111-1111-1111-1111-abc"), vec![pair("credit_card", "4111-1111-1111-1111-")]);
        assert!(found("card 4111 1111 1111 1112").is_empty());
        // Fullwidth digits (edge_unicode_digits).
        assert_eq!(
            found("４１１１１１１１１１１１１１１１"),
            vec![pair("credit_card", "４１１１１１１１１１１１１１１１")]
        );
    }

    #[test]
    fn ip_after_a_version_word_is_suppressed_within_the_window() {
        assert!(found("version 10.0.0.1").is_empty());
        assert_eq!(found("host 10.0.0.1"), vec![pair("ip_address", "10.0.0.1")]);
        assert!(found(&format!("prerelease{}10.1.2.3", " ".repeat(9))).is_empty());
        assert_eq!(found(&format!("prerelease{}10.1.2.3", " ".repeat(8))), vec![pair("ip_address", "10.1.2.3")]);
    }

    #[test]
    fn names_from_the_gazetteer_and_after_keywords() {
        assert_eq!(found("Jean Tremblay Smith3 x"), vec![pair("person_name", "Jean Tremblay")]);
        assert_eq!(found("patient: Jean TremblayX"), vec![pair("person_name", "Jean Tremblay")]);
        assert!(found("Mr. Xavier").is_empty());
    }

    /// The gazetteer, the phone numbers and the English addresses run on
    /// automata (`detect::edge`) and give the backtracking VM's matches,
    /// on plain texts and on texts that need Python's classes (`²`).
    #[test]
    fn edged_patterns_give_the_backtracking_matches() {
        let p = patterns();
        let texts = [
            "Jean Tremblay-Smith3 x, Marie Curie's notes; @Jean Tremblay; Paul O'Neil Smith Jr",
            "x.Jean Tremblay Jean  Tremblay\tJean\tTremblay Dupont Martin José Álvarez",
            "call 514-555-1234, 1514-555-12345 or +1 (514) 555-1234² at 12 Main Street, 3:45 Oak Ave",
            "²Marie Curie² Jean Tremblay-Côté 221 Baker Street Apt 4, Springfield, IL 62704",
        ];
        for re in [&p.name_list, &p.phone, &p.address_en] {
            assert!(re.is_edged());
            for t in texts {
                assert_eq!(re.spans(t), re.backtracking_spans(t), "{t:?}");
            }
        }
        assert_eq!(
            found("Marie Curie's notes and Jean Tremblay-Smith3"),
            vec![pair("person_name", "Marie Curie"), pair("person_name", "Jean Tremblay")]
        );
    }

    #[test]
    fn dates_of_birth_and_labelled_sins() {
        assert_eq!(found("born 1990-01-015"), vec![pair("date_of_birth", "1990-01-01")]);
        assert_eq!(found("SIN: 046454286"), vec![pair("sin", "046454286")]);
    }
}
