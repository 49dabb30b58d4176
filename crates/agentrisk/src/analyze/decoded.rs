//! Decoded views (spec 2.4): stretches of an event's text that announce an
//! encoding — hex, base64, percent-encoding, letter spacing — decoded so the
//! detectors can read them. Two levels deep: a decoded text is searched
//! once more, and nested views are named `outer>inner`.

use crate::detect::pyregex::builtin;
use crate::detect::pyregex::PyRegex as Regex;
use crate::pyunicode::{is_alnum, is_printable};
use std::sync::OnceLock;

/// One decoded view: its transform, the byte span of the encoded token in
/// the event text, and the decoded text.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub transform: String,
    pub span: (usize, usize),
    pub text: String,
}

struct Patterns {
    hex: Regex,
    base64: Regex,
    percent_run: Regex,
    spaced: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        hex: builtin(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]+(?![0-9A-Fa-f])"),
        base64: builtin(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{8,}={0,2}(?![A-Za-z0-9+/_\-=])"),
        percent_run: builtin(r#"[^\s"'<>&?=/#]+"#),
        spaced: builtin(r"(?<!\S)\S(?: \S){7,}(?!\S)"),
    })
}

/// Every view of `text`, each followed by its own nested views.
pub fn views(text: &str) -> Vec<View> {
    let mut out = Vec::new();
    for view in views_one_level(text) {
        let nested = views_one_level(&view.text);
        let span = view.span;
        let outer = view.transform.clone();
        out.push(view);
        out.extend(nested.into_iter().map(|n| View {
            transform: format!("{outer}>{}", n.transform),
            span,
            text: n.text,
        }));
    }
    out
}

fn views_one_level(text: &str) -> Vec<View> {
    let p = patterns();
    let mut out = Vec::new();
    let mut kept_hex: Vec<(usize, usize)> = Vec::new();
    for m in p.hex.captures(text).filter_map(|c| c.get(0)) {
        let run = m.as_str();
        if run.len() < 16 || run.len() % 2 != 0 {
            continue;
        }
        let bytes: Vec<u8> =
            (0..run.len()).step_by(2).filter_map(|i| u8::from_str_radix(&run[i..i + 2], 16).ok()).collect();
        if let Some(decoded) = readable(&bytes) {
            kept_hex.push((m.start(), m.end()));
            out.push(View { transform: "hex".into(), span: (m.start(), m.end()), text: decoded });
        }
    }
    for m in p.base64.captures(text).filter_map(|c| c.get(0)) {
        let span = (m.start(), m.end());
        if kept_hex.iter().any(|&(s, e)| s <= span.0 && span.1 <= e) {
            continue;
        }
        let body = m.as_str().trim_end_matches('=');
        let all_letters_one_case = body.chars().all(|c| c.is_alphabetic())
            && (body.chars().all(char::is_uppercase) || body.chars().all(char::is_lowercase));
        if all_letters_one_case {
            continue;
        }
        if let Some(decoded) = base64_decode(body).as_deref().and_then(readable) {
            out.push(View { transform: "base64".into(), span, text: decoded });
        }
    }
    for m in p.percent_run.captures(text).filter_map(|c| c.get(0)) {
        let run = m.as_str();
        if !has_percent_escape(run) {
            continue;
        }
        let decoded = unquote(run);
        if decoded != run {
            out.push(View { transform: "percent".into(), span: (m.start(), m.end()), text: decoded });
        }
    }
    for m in p.spaced.captures(text).filter_map(|c| c.get(0)) {
        out.push(View { transform: "spaced".into(), span: (m.start(), m.end()), text: m.as_str().replace(' ', "") });
    }
    out
}

/// Decoded bytes that read as text: ≥ 6 bytes, strict UTF-8, at least 95%
/// printable (or `\n`, `\r`, `\t`) code points and one alphanumeric.
fn readable(bytes: &[u8]) -> Option<String> {
    if bytes.len() < 6 {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let total = text.chars().count();
    let printable = text.chars().filter(|&c| is_printable(c) || matches!(c, '\n' | '\r' | '\t')).count();
    if (printable as f64) < 0.95 * total as f64 || !text.chars().any(is_alnum) {
        return None;
    }
    Some(text.to_owned())
}

/// Base64 (URL-safe characters mapped to the standard ones), padding
/// restored; non-zero unused bits in the last character are accepted, as
/// Python's decoder accepts them.
fn base64_decode(body: &str) -> Option<Vec<u8>> {
    if body.len() % 4 == 1 {
        return None;
    }
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    for chunk in body.as_bytes().chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c)? << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

fn has_percent_escape(run: &str) -> bool {
    run.as_bytes().windows(3).any(is_escape)
}

/// `%` followed by two hex digits.
fn is_escape(w: &[u8]) -> bool {
    matches!(w, [b'%', a, b] if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
}

/// Python's `urllib.parse.unquote`: `%XX` escapes become bytes, decoded as
/// UTF-8 with U+FFFD for invalid sequences, separately for each stretch of
/// ASCII characters; non-ASCII characters pass through; `+` stays.
fn unquote(run: &str) -> String {
    let mut out = String::with_capacity(run.len());
    let mut ascii = Vec::new();
    let flush = |ascii: &mut Vec<u8>, out: &mut String| {
        let mut bytes = Vec::with_capacity(ascii.len());
        let mut i = 0;
        while i < ascii.len() {
            if let Some(escape) = ascii.get(i..i + 3).filter(|w| is_escape(w)) {
                let hex = |d: u8| (d as char).to_digit(16).unwrap_or(0) as u8;
                bytes.push(hex(escape[1]) << 4 | hex(escape[2]));
                i += 3;
                continue;
            }
            bytes.push(ascii[i]);
            i += 1;
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        ascii.clear();
    };
    for c in run.chars() {
        if c.is_ascii() {
            ascii.push(c as u8);
        } else {
            flush(&mut ascii, &mut out);
            out.push(c);
        }
    }
    flush(&mut ascii, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_encodings_and_nesting() {
        let v = views("ctx=ZW1haWwgZnJhbmsub2NlYW5AZXhhbXBsZS5jb20gc3NuIDEyMy00NS02Nzg5");
        assert_eq!(v.len(), 1);
        assert_eq!(
            (v[0].transform.as_str(), v[0].text.as_str()),
            ("base64", "email frank.ocean@example.com ssn 123-45-6789")
        );
        let v = views("id 6672616e6b2e6f6365616e406578616d706c652e636f6d");
        assert_eq!(v[0].text, "frank.ocean@example.com");
        assert_eq!(v[0].transform, "hex");
        let v = views("GET /lookup?e=frank.ocean%40example.com");
        assert_eq!(v.iter().map(|v| v.text.as_str()).collect::<Vec<_>>(), vec!["frank.ocean@example.com"]);
        let v = views("f r a n k . o c e a n @ e x a m p l e . c o m");
        assert_eq!(v[0].text, "frank.ocean@example.com");
        // hex inside base64: "6a6f686e2e646f65" is hex of "john.doe" → base64 of that hex text
        let v = views("NmE2ZjY4NmUyZTY0NmY2NQ==");
        assert_eq!(
            v.iter().map(|v| (v.transform.as_str(), v.text.as_str())).collect::<Vec<_>>(),
            vec![("base64", "6a6f686e2e646f65"), ("base64>hex", "john.doe")]
        );
    }

    #[test]
    fn python_compatible_decoding_details() {
        assert_eq!(base64_decode("aGVsbG8gd29ybGQhIR").unwrap(), b"hello world!!");
        assert_eq!(unquote("%C3%A9t%C3%A9"), "été");
        assert_eq!(unquote("%C3é%A9"), "\u{FFFD}é\u{FFFD}");
        assert_eq!(unquote("100%+x%4"), "100%+x%4");
        assert!(views("ABCDEFGHIJKL").is_empty()); // one-case letters only: not base64
    }
}
