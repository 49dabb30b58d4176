//! `secrets_detector`: keys, tokens, connection strings and secret
//! assignments (spec 2.3, 13 patterns).

use super::pyregex::builtin;
use super::{captures, Builtin, Emit, RawMatch, ScreenedText};
use crate::detect::pyregex::PyRegex as Regex;
use crate::model::Severity::{Critical, High};
use std::sync::OnceLock;

const D: Builtin = Builtin::Secrets;

const PRIVATE_KEY: Emit = Emit {
    data_type: "private_key",
    severity: Critical,
    confidence: 0.99,
    recommendation: "A private key was exposed: revoke it and load keys from a secret store, never from messages.",
};
const AWS: Emit = Emit {
    data_type: "aws_access_key",
    severity: Critical,
    confidence: 0.97,
    recommendation: "Rotate the AWS access key and give agents short-lived credentials.",
};
const GITHUB: Emit = Emit {
    data_type: "github_token",
    severity: Critical,
    confidence: 0.95,
    recommendation: "Revoke the GitHub token and inject tokens outside the model context.",
};
const GITHUB_PAT: Emit = Emit {
    data_type: "github_token",
    severity: Critical,
    confidence: 0.97,
    recommendation: "Revoke the GitHub token and inject tokens outside the model context.",
};
const SLACK: Emit = Emit {
    data_type: "slack_token",
    severity: Critical,
    confidence: 0.9,
    recommendation: "Revoke the Slack token and keep it out of agent-visible text.",
};
const STRIPE: Emit = Emit {
    data_type: "stripe_key",
    severity: Critical,
    confidence: 0.95,
    recommendation: "Roll the Stripe key and keep payment keys in the server, never in prompts.",
};
const LLM_KEY: Emit = Emit {
    data_type: "llm_api_key",
    severity: Critical,
    confidence: 0.95,
    recommendation: "Rotate the model-provider API key; agents should never see their own keys.",
};
const GOOGLE: Emit = Emit {
    data_type: "google_api_key",
    severity: Critical,
    confidence: 0.93,
    recommendation: "Restrict and rotate the Google API key.",
};
const JWT: Emit = Emit {
    data_type: "jwt",
    severity: High,
    confidence: 0.85,
    recommendation: "Session tokens must not travel through agent channels; pass a handle instead.",
};
const BEARER: Emit = Emit {
    data_type: "bearer_token",
    severity: High,
    confidence: 0.8,
    recommendation: "Strip Authorization headers before logging or forwarding requests.",
};
const CONN_CREDS: Emit = Emit {
    data_type: "connection_string",
    severity: Critical,
    confidence: 0.9,
    recommendation: "Connection strings with passwords must come from configuration, not from text the agent handles.",
};
const CONN_PLAIN: Emit = Emit {
    data_type: "connection_string",
    severity: High,
    confidence: 0.75,
    recommendation: "Keep database locations out of agent-visible text.",
};
const URL_CREDS: Emit = Emit {
    data_type: "connection_string",
    severity: Critical,
    confidence: 0.9,
    recommendation: "URLs with embedded passwords leak credentials; remove the user-info part.",
};
const ASSIGNMENT: Emit = Emit {
    data_type: "secret_assignment",
    severity: High,
    confidence: 0.65,
    recommendation: "A password or token was written in clear; move it to a secret store and rotate it.",
};

struct Patterns {
    private_key: Regex,
    aws: Regex,
    github: Regex,
    github_pat: Regex,
    slack: Regex,
    stripe: Regex,
    llm_key: Regex,
    google: Regex,
    jwt: Regex,
    bearer: Regex,
    conn: Regex,
    url_creds: Regex,
    assignment: Regex,
    all_caps: Regex,
    dotted: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        private_key: builtin(
            r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----|(?:[ \t]*\r?\n[ \t]*[A-Za-z0-9+/=:,\-]{8,})*)",
        ),
        aws: builtin(r"\bAKIA[0-9A-Z]{16}\b"),
        github: builtin(r"\bgh[opsru]_[A-Za-z0-9]{36}\b"),
        github_pat: builtin(r"\bgithub_pat_[A-Za-z0-9_]{50,}\b"),
        slack: builtin(r"\bxox[baprs]-[A-Za-z0-9\-]{10,}\b"),
        stripe: builtin(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
        llm_key: builtin(r"\bsk-(?:proj|svcacct|admin|ant-api\d\d)?-?[A-Za-z0-9_\-]{16,}\b"),
        google: builtin(r"\bAIza[0-9A-Za-z_\-]{35}\b"),
        jwt: builtin(r"\beyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\b"),
        bearer: builtin(r"(?i)\bbearer\s+([A-Za-z0-9._~+/=\-]{16,})"),
        conn: builtin(r#"(?i)\b(?:postgres|postgresql|mysql|mongodb|mongodb\+srv|redis|amqp|amqps)://[^\s'"]+"#),
        url_creds: builtin(r#"(?i)\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@'"]+:[^\s/@'"]+@[^\s'"]+"#),
        assignment: builtin(
            r#"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9]+[_\-])*(?:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key)\b\s*[:=]\s*["']?([^"'\s,}]{6,})"#,
        ),
        all_caps: builtin(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\Z"),
        dotted: builtin(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z"),
    })
}

/// The patterns run on whole texts (for the screen in `detect`).
pub(super) fn text_patterns() -> Vec<&'static Regex> {
    let p = patterns();
    vec![
        &p.private_key,
        &p.aws,
        &p.github,
        &p.github_pat,
        &p.slack,
        &p.stripe,
        &p.llm_key,
        &p.google,
        &p.jwt,
        &p.bearer,
        &p.conn,
        &p.url_creds,
        &p.assignment,
    ]
}

pub(super) fn scan(screened: &ScreenedText<'_>, out: &mut Vec<RawMatch>) {
    let p = patterns();
    for (re, emit) in [
        (&p.private_key, &PRIVATE_KEY),
        (&p.aws, &AWS),
        (&p.github, &GITHUB),
        (&p.github_pat, &GITHUB_PAT),
        (&p.slack, &SLACK),
        (&p.stripe, &STRIPE),
        (&p.llm_key, &LLM_KEY),
        (&p.google, &GOOGLE),
        (&p.jwt, &JWT),
    ] {
        for c in captures(re, screened) {
            if let Some(m) = c.get(0) {
                out.push(emit.raw(D, m.as_str()));
            }
        }
    }
    for c in captures(&p.bearer, screened) {
        if let Some(token) = c.get(1).map(|m| m.as_str()) {
            // A bearer JWT is reported as a JWT already.
            if !token.starts_with("eyJ") {
                out.push(BEARER.raw(D, token));
            }
        }
    }
    let mut conn_values: Vec<&str> = Vec::new();
    for c in captures(&p.conn, screened) {
        if let Some(value) = c.get(0).map(|m| m.as_str()) {
            conn_values.push(value);
            out.push(if has_credentials(value) { &CONN_CREDS } else { &CONN_PLAIN }.raw(D, value));
        }
    }
    for c in captures(&p.url_creds, screened) {
        if let Some(value) = c.get(0).map(|m| m.as_str()) {
            if !conn_values.contains(&value) {
                out.push(URL_CREDS.raw(D, value));
            }
        }
    }
    for c in captures(&p.assignment, screened) {
        if let Some(value) = c.get(1).map(|m| m.as_str()) {
            if !is_placeholder_or_reference(p, value) {
                out.push(ASSIGNMENT.raw(D, value));
            }
        }
    }
}

/// User-info with a password: an `@`, and a `:` between the first `://` and
/// the first `@` after it.
fn has_credentials(value: &str) -> bool {
    let Some(scheme_end) = value.find("://") else { return false };
    let rest = &value[scheme_end + 3..];
    rest.find('@').is_some_and(|at| rest[..at].contains(':'))
}

fn is_placeholder_or_reference(p: &Patterns, value: &str) -> bool {
    let lower = value.to_lowercase();
    const PLACEHOLDERS: [&str; 7] = ["redacted", "xxxxxx", "******", "none", "null", "true", "false"];
    const REFERENCE_PREFIXES: [&str; 12] = [
        "os.environ",
        "os.getenv",
        "getenv",
        "environ",
        "self.",
        "settings.",
        "config.",
        "cfg.",
        "conf.",
        "env.",
        "os.",
        "process.",
    ];
    PLACEHOLDERS.contains(&lower.as_str())
        || REFERENCE_PREFIXES.iter().any(|prefix| lower.starts_with(prefix))
        || value.contains('(')
        || p.all_caps.is_match(value)
        || p.dotted.is_match(value)
}

#[cfg(test)]
mod tests {
    use super::super::scan_one;
    use super::*;

    fn found(text: &str) -> Vec<(String, String)> {
        scan_one(Builtin::Secrets, text)
    }

    #[test]
    fn connection_strings_with_and_without_credentials() {
        let mut out = Vec::new();
        scan(&ScreenedText::new("jdbc:postgresql://u:p@h/db and redis+sentinel://a:b@h"), &mut out);
        let got: Vec<_> = out.iter().map(|m| (m.value.as_str(), m.severity)).collect();
        assert_eq!(got, vec![("postgresql://u:p@h/db", Critical), ("redis+sentinel://a:b@h", Critical)]);
        assert_eq!(
            found("mysql://db.internal/x,"),
            vec![("connection_string".into(), "mysql://db.internal/x,".into())]
        );
    }

    #[test]
    fn secret_assignments_skip_placeholders_and_references() {
        assert_eq!(found("DB_PASSWORD=hunter2xyz"), vec![("secret_assignment".into(), "hunter2xyz".into())]);
        assert!(found("password: REDACTED").is_empty());
        assert!(found("token = os.environ['X']").is_empty());
        assert!(found("api_key=API_TOKEN_VALUE").is_empty());
        assert!(found("token: response.next_page_token").is_empty());
        assert!(found("secret_key=abcdefgh").is_empty()); // `_` is a word char: no boundary after `secret`
        assert_eq!(found("aws_secret_access_key=abcdefgh"), vec![("secret_assignment".into(), "abcdefgh".into())]);
        assert_eq!(found("api_key=APIKEY12"), vec![("secret_assignment".into(), "APIKEY12".into())]);
    }

    #[test]
    fn bearer_jwts_are_left_to_the_jwt_pattern() {
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlMTIz";
        assert_eq!(found(&format!("Authorization: Bearer {jwt}")), vec![("jwt".into(), jwt.into())]);
        assert_eq!(found("Bearer abcdefghijklmnop1234"), vec![("bearer_token".into(), "abcdefghijklmnop1234".into())]);
    }
}
