//! Credential-overlap suppression (spec 2.2 step 4): a value found only
//! inside a credential (the email inside a connection string, digits inside
//! a key) is part of the credential, not a secret of its own.

use super::Finding;

/// Data types whose values are credentials. `secret_assignment` is not one:
/// the reference's list leaves it out.
const CREDENTIAL_TYPES: [&str; 10] = [
    "private_key",
    "connection_string",
    "jwt",
    "bearer_token",
    "aws_access_key",
    "github_token",
    "slack_token",
    "stripe_key",
    "llm_api_key",
    "google_api_key",
];

pub(super) fn is_credential(data_type: &str) -> bool {
    CREDENTIAL_TYPES.contains(&data_type)
}

/// Every occurrence of `needle` in `text` (overlapping), as byte spans.
pub(super) fn occurrences(text: &str, needle: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    if needle.is_empty() {
        return spans;
    }
    let mut from = 0;
    while let Some(pos) = text[from..].find(needle) {
        let start = from + pos;
        spans.push((start, start + needle.len()));
        from = start + text[start..].chars().next().map_or(1, char::len_utf8);
    }
    spans
}

/// Credential spans of the event: every occurrence of every credential value.
pub(super) fn credential_spans(text: &str, findings: &[Finding]) -> Vec<(usize, usize)> {
    findings.iter().filter(|f| is_credential(&f.data_type)).flat_map(|f| occurrences(text, &f.matched_value)).collect()
}

pub(super) fn inside_one(spans: &[(usize, usize)], (start, end): (usize, usize)) -> bool {
    spans.iter().any(|&(s, e)| s <= start && end <= e)
}

/// Drops every non-credential finding whose value occurs in the text only
/// inside credential spans. A value that also occurs elsewhere, or that does
/// not occur verbatim at all, stays.
pub(super) fn drop_values_inside_credentials(
    text: &str,
    spans: &[(usize, usize)],
    findings: Vec<Finding>,
) -> Vec<Finding> {
    if spans.is_empty() {
        return findings;
    }
    findings
        .into_iter()
        .filter(|f| {
            if is_credential(&f.data_type) {
                return true;
            }
            let found = occurrences(text, &f.matched_value);
            found.is_empty() || !found.iter().all(|&span| inside_one(spans, span))
        })
        .collect()
}
