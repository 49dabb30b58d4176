//! Decoded views (spec 2.4): stretches of an event's text that announce an
//! encoding — hex, base64, percent-encoding, letter spacing — decoded so the
//! detectors can read them. Two levels deep: a decoded text is searched
//! once more, and nested views are named `outer>inner`.

use crate::pyunicode::{is_alnum, is_printable, is_space};

/// One decoded view: its transform, the byte span of the encoded token in
/// the event text, and the decoded text.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    pub transform: String,
    pub span: (usize, usize),
    pub text: String,
}

// The reference finds the encoded tokens with four regexes (kept in the
// tests as the definition these scanners are checked against):
//
//   hex      (?<![0-9A-Fa-f])[0-9A-Fa-f]+(?![0-9A-Fa-f])
//   base64   (?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{8,}={0,2}(?![A-Za-z0-9+/_\-=])
//   percent  [^\s"'<>&?=/#]+
//   spaced   (?<!\S)\S(?: \S){7,}(?!\S)
//
// Every event text and every decoded text goes through all four, so they
// are scanned by hand here, in one pass each and without a regex engine.

/// Python `\s` (`str.isspace`), with the ASCII answer inline.
fn space(c: char) -> bool {
    if c.is_ascii() {
        return matches!(c as u8, 0x09..=0x0D | 0x1C..=0x20);
    }
    is_space(c)
}

/// Maximal runs of ASCII hex digits (the `hex` regex).
#[cfg(test)]
fn hex_spans(text: &str) -> Vec<(usize, usize)> {
    byte_runs(text, |b| b.is_ascii_hexdigit()).collect()
}

/// Maximal runs of bytes satisfying `keep`, found as they are asked for
/// (most words of a text are runs, and only long ones are wanted).
fn byte_runs<'t>(text: &'t str, keep: impl Fn(u8) -> bool + 't) -> impl Iterator<Item = (usize, usize)> + 't {
    let b = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < b.len() && !keep(b[i]) {
            i += 1;
        }
        if i == b.len() {
            return None;
        }
        let start = i;
        while i < b.len() && keep(b[i]) {
            i += 1;
        }
        Some((start, i))
    })
}

fn is_base64_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'_' | b'-')
}

/// Maximal runs of the base64 alphabet at least 8 bytes long: the only
/// places a base64 body, or a long hex run, can be.
fn long_base64_runs(text: &str) -> Vec<(usize, usize)> {
    byte_runs(text, is_base64_char).filter(|&(start, end)| end - start >= 8).collect()
}

/// The maximal hex-digit runs of at least 16 bytes, read inside the long
/// base64 runs `runs` of `text`: hex digits are base64 characters, so such
/// a run lies inside one, and the bytes around that run are not hex digits.
/// One pass over the text then serves both alphabets.
fn long_hex_runs<'a>(text: &'a str, runs: &'a [(usize, usize)]) -> impl Iterator<Item = (usize, usize)> + 'a {
    runs.iter()
        .filter(|&&(start, end)| end - start >= 16)
        .flat_map(move |&(start, end)| {
            byte_runs(&text[start..end], |b| b.is_ascii_hexdigit()).map(move |(s, e)| (start + s, start + e))
        })
        .filter(|&(start, end)| end - start >= 16)
}

/// The `base64` regex: a body can only start a maximal run of the alphabet
/// (look-behind) and must take all of it (a shorter body is followed by an
/// alphabet character); the `=`s after it must be all there are, at most
/// two, and not followed by the alphabet.
#[cfg(test)]
fn base64_spans(text: &str) -> Vec<(usize, usize)> {
    base64_spans_in(text, &long_base64_runs(text))
}

/// [`base64_spans`] from the text's [`long_base64_runs`].
fn base64_spans_in(text: &str, runs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    runs.iter()
        .filter_map(|&(start, end)| {
            let pad = b[end..].iter().take_while(|&&c| c == b'=').count();
            let after = b.get(end + pad).copied();
            (pad <= 2 && !(pad > 0 && after.is_some_and(is_base64_char))).then_some((start, end + pad))
        })
        .collect()
}

/// Maximal runs of characters other than whitespace and `"'<>&?=/#` (the
/// `percent` regex), that contain a `%XX` escape.
fn percent_spans(text: &str) -> Vec<(usize, usize)> {
    if !text.contains('%') {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let inside = !space(c) && !matches!(c, '"' | '\'' | '<' | '>' | '&' | '?' | '=' | '/' | '#');
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                if has_percent_escape(&text[s..i]) {
                    out.push((s, i));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// The `spaced` regex: from a non-space character with whitespace (or the
/// start) before it, as many " X" pairs as follow; the match needs the
/// character after it to be whitespace or the end, so when a non-space
/// character follows, the regex backs off one pair (leaving a space next).
fn spaced_spans(text: &str) -> Vec<(usize, usize)> {
    // Fewer than 7 spaces: no 8 spaced characters. Counting stops at 7.
    if text.bytes().filter(|&b| b == b' ').nth(6).is_none() {
        return Vec::new();
    }
    if text.is_ascii() {
        // Byte offsets are character offsets: no table of characters needed.
        let b = text.as_bytes();
        return spaced_runs(b.len(), |i| char::from(b[i]), |i| i);
    }
    let cs: Vec<(usize, char)> = text.char_indices().collect();
    spaced_runs(cs.len(), |i| cs[i].1, |i| cs.get(i).map_or(text.len(), |&(at, _)| at))
}

/// [`spaced_spans`] over `n` characters, the `i`-th being `ch(i)` at byte
/// offset `offset(i)` (`offset(n)` is the text's length).
fn spaced_runs(n: usize, ch: impl Fn(usize) -> char, offset: impl Fn(usize) -> usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        if space(ch(i)) || (i > 0 && !space(ch(i - 1))) {
            i += 1;
            continue;
        }
        let (mut pairs, mut j) = (0, i + 1);
        while j + 1 < n && ch(j) == ' ' && !space(ch(j + 1)) {
            pairs += 1;
            j += 2;
        }
        let end = if j == n || space(ch(j)) { (pairs >= 7).then_some(j) } else { (pairs >= 8).then(|| j - 2) };
        match end {
            Some(end) => {
                out.push((offset(i), offset(end)));
                i = end;
            }
            None => i += 1,
        }
    }
    out
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
    let mut out = Vec::new();
    let mut kept_hex: Vec<(usize, usize)> = Vec::new();
    let runs = long_base64_runs(text);
    for (start, end) in long_hex_runs(text, &runs).filter(|&(start, end)| (end - start) % 2 == 0) {
        let run = &text[start..end];
        let bytes: Vec<u8> =
            (0..run.len()).step_by(2).filter_map(|i| u8::from_str_radix(&run[i..i + 2], 16).ok()).collect();
        if let Some(decoded) = readable(&bytes) {
            kept_hex.push((start, end));
            out.push(View { transform: "hex".into(), span: (start, end), text: decoded });
        }
    }
    for span in base64_spans_in(text, &runs) {
        if kept_hex.iter().any(|&(s, e)| s <= span.0 && span.1 <= e) {
            continue;
        }
        let body = text[span.0..span.1].trim_end_matches('=');
        let all_letters_one_case = body.chars().all(|c| c.is_alphabetic())
            && (body.chars().all(char::is_uppercase) || body.chars().all(char::is_lowercase));
        if all_letters_one_case {
            continue;
        }
        if let Some(decoded) = base64_decode(body).as_deref().and_then(readable) {
            out.push(View { transform: "base64".into(), span, text: decoded });
        }
    }
    for (start, end) in percent_spans(text) {
        let run = &text[start..end];
        let decoded = unquote(run);
        if decoded != run {
            out.push(View { transform: "percent".into(), span: (start, end), text: decoded });
        }
    }
    for (start, end) in spaced_spans(text) {
        out.push(View { transform: "spaced".into(), span: (start, end), text: text[start..end].replace(' ', "") });
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
    use crate::detect::pyregex::builtin;

    fn regex_spans(pattern: &str, text: &str) -> Vec<(usize, usize)> {
        builtin(pattern).captures(text).filter_map(|c| c.get(0)).map(|m| (m.start(), m.end())).collect()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// The hand scanners find exactly the reference regexes' matches.
        #[test]
        fn scanners_match_the_reference_regexes(
            text in "([a-fA-F0-9]{1,20}|[g-zG-Z+/_=-]{1,3}| {1,2}|[\t\n\u{1c}\u{a0}\u{2003}]|[%\"'<>&?#.]|é|\u{FF10}|x y z w v u t s r|={1,3}){0,14}"
        ) {
            proptest::prop_assert_eq!(hex_spans(&text), regex_spans(r"(?<![0-9A-Fa-f])[0-9A-Fa-f]+(?![0-9A-Fa-f])", &text));
            let long_hex: Vec<(usize, usize)> = hex_spans(&text).into_iter().filter(|&(s, e)| e - s >= 16).collect();
            proptest::prop_assert_eq!(long_hex_runs(&text, &long_base64_runs(&text)).collect::<Vec<_>>(), long_hex);
            proptest::prop_assert_eq!(
                base64_spans(&text),
                regex_spans(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{8,}={0,2}(?![A-Za-z0-9+/_\-=])", &text)
            );
            let percent: Vec<(usize, usize)> = regex_spans(r#"[^\s"'<>&?=/#]+"#, &text)
                .into_iter()
                .filter(|&(s, e)| has_percent_escape(&text[s..e]))
                .collect();
            proptest::prop_assert_eq!(percent_spans(&text), percent);
            proptest::prop_assert_eq!(spaced_spans(&text), regex_spans(r"(?<!\S)\S(?: \S){7,}(?!\S)", &text));
        }
    }

    #[test]
    fn inline_whitespace_agrees_with_python() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(space(c), is_space(c), "{c:?}");
        }
    }

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
