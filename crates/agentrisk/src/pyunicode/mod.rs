//! Python 3.11's notion of characters (Unicode 14.0), which the reference's
//! regexes and string methods use and Rust's std does not share: `isalnum`
//! (so `\w` and `\b`), `isspace` (so `\s`, `strip`, `split`), `isprintable`,
//! decimal digit values (so `\d`, Luhn, `int()`), and full case folding
//! (`casefold`). The tables are generated from CPython's own database by
//! `scripts/gen_pyunicode.py`.
//!
//! Differences from std that matter: Rust's `is_alphanumeric` accepts
//! combining marks and rejects numeric symbols such as `²`; Rust's
//! `is_whitespace` misses U+001C–U+001F; std has no case folding at all.

pub(crate) mod tables;

/// Whether `c` is in one of `table`'s inclusive ranges (sorted, not overlapping).
pub(crate) fn in_ranges(table: &[(char, char)], c: char) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Python `str.isalnum` for one character: a letter or a character with a numeric value.
pub fn is_alnum(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    in_ranges(tables::ALNUM, c)
}

/// Python regex `\w`: `isalnum` or `_`.
pub fn is_word(c: char) -> bool {
    c == '_' || is_alnum(c)
}

/// Python `str.isspace` and regex `\s` (includes U+001C–U+001F).
pub fn is_space(c: char) -> bool {
    in_ranges(tables::SPACE, c)
}

/// Python `str.isprintable` for one character.
pub fn is_printable(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    in_ranges(tables::PRINTABLE, c)
}

/// The value of a Unicode decimal digit (regex `\d`, category Nd), any script.
pub fn decimal_value(c: char) -> Option<u32> {
    if c.is_ascii_digit() {
        return Some(c as u32 - '0' as u32);
    }
    let zeros = tables::DECIMAL_ZEROS;
    let i = zeros.partition_point(|&z| z <= c).checked_sub(1)?;
    let offset = c as u32 - zeros[i] as u32;
    (offset < 10).then_some(offset)
}

/// Python regex `\d`.
pub fn is_decimal(c: char) -> bool {
    decimal_value(c).is_some()
}

/// Python `str.strip()` with no argument.
pub fn strip(s: &str) -> &str {
    s.trim_matches(is_space)
}

/// Python `str.casefold()`: full Unicode case folding (`ß` → `ss`).
pub fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.push_str(fold(c, &mut [0; 4]));
        }
    }
    out
}

/// One character's full case folding, written into `buf` when it is one character.
fn fold(c: char, buf: &mut [u8; 4]) -> &str {
    if let Ok(i) = tables::CASEFOLD.binary_search_by(|&(k, _)| k.cmp(&c)) {
        let folded = (c as u32).checked_add_signed(tables::CASEFOLD[i].1).and_then(char::from_u32);
        // The generator writes only offsets to characters.
        return folded.unwrap_or(c).encode_utf8(buf);
    }
    match tables::CASEFOLD_LONG.binary_search_by(|&(k, _)| k.cmp(&c)) {
        Ok(i) => tables::CASEFOLD_LONG[i].1,
        Err(_) => c.encode_utf8(buf),
    }
}

/// The canonical form of a value (spec 2.7): strip, collapse every run of
/// whitespace into one space, then case-fold — in that order.
pub fn canonical(s: &str) -> String {
    let mut collapsed = String::with_capacity(s.len());
    for (i, word) in s.split(is_space).filter(|w| !w.is_empty()).enumerate() {
        if i > 0 {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    casefold(&collapsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_classes_differ_from_std_where_the_spec_says() {
        assert!(is_alnum('²')); // numeric symbol No (not in Rust regex's \w)
        assert!(!is_alnum('\u{0903}') && '\u{0903}'.is_alphanumeric()); // combining mark
        assert!(is_alnum('é') && is_alnum('٣') && !is_alnum('_') && is_word('_'));
        assert!(!is_word('\u{203F}')); // connector punctuation other than _
        assert!(is_space('\u{1C}') && !'\u{1C}'.is_whitespace());
        assert!(is_space('\u{A0}') && is_space('\u{3000}') && !is_space('\u{200B}'));
        assert!(is_printable(' ') && !is_printable('\u{A0}') && !is_printable('\u{200B}') && !is_printable('\n'));
        assert!(is_printable('é') && is_printable('\u{FFFD}'));
    }

    #[test]
    fn decimal_digits_of_any_script() {
        assert_eq!(decimal_value('7'), Some(7));
        assert_eq!(decimal_value('４'), Some(4)); // fullwidth
        assert_eq!(decimal_value('٣'), Some(3)); // Arabic-Indic
        assert_eq!(decimal_value('²'), None); // a digit symbol, not decimal
        assert_eq!(decimal_value('a'), None);
        assert_eq!(decimal_value('\u{1D7CE}'), Some(0)); // mathematical bold zero
    }

    #[test]
    fn casefold_and_canonical_forms() {
        assert_eq!(casefold("Straße ﬁle İ"), "strasse file i\u{307}");
        // Offsets both ways (Cherokee small letters fold to the capitals).
        assert_eq!(casefold("ΣΑΣ Ꭰꭰ µſ"), "σασ \u{13A0}\u{13A0} μs");
        assert_eq!(canonical("  Jean\t\u{1C} TREMBLAY \n"), "jean tremblay");
        assert_eq!(canonical(""), "");
        assert_eq!(strip("\u{1F} x \u{A0}"), "x");
    }
}
