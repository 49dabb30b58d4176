//! The reference's lax-mode coercions (pydantic 2 validating parsed Python
//! objects) for the two typed trace fields that are not plain strings:
//! `task_success` (bool or null) and `timestamp` (date-time).
//!
//! The accepted sets were pinned by running pydantic on each form; the
//! `timestamp` rules are the ones of its date-time parser (speedate) plus
//! Python's own `datetime` range. Timestamps are validated only — nothing in
//! a report depends on their value — so this module answers yes or no.

use super::json::PyValue;

/// The strings pydantic reads as booleans, compared ASCII-case-insensitively
/// (no trimming).
const TRUE_WORDS: [&str; 6] = ["1", "on", "t", "true", "y", "yes"];
const FALSE_WORDS: [&str; 6] = ["0", "off", "f", "false", "n", "no"];

/// `task_success`: `Ok(None)` for null, the boolean for anything pydantic's
/// lax mode coerces, `Err(())` otherwise (e.g. `2`, `"2"`, `" true"`, `[]`).
pub(crate) fn lax_bool(value: &PyValue) -> Result<Option<bool>, ()> {
    match value {
        PyValue::Null => Ok(None),
        PyValue::Bool(b) => Ok(Some(*b)),
        PyValue::Int(digits) => match digits.as_str() {
            "0" => Ok(Some(false)),
            "1" => Ok(Some(true)),
            _ => Err(()),
        },
        PyValue::Float(x) if *x == 0.0 => Ok(Some(false)),
        PyValue::Float(x) if *x == 1.0 => Ok(Some(true)),
        PyValue::Str(s) => {
            let lower = s.to_ascii_lowercase();
            if TRUE_WORDS.contains(&lower.as_str()) {
                Ok(Some(true))
            } else if FALSE_WORDS.contains(&lower.as_str()) {
                Ok(Some(false))
            } else {
                Err(())
            }
        }
        _ => Err(()),
    }
}

/// Whether the reference accepts `value` as a trace or event `timestamp`:
/// an ISO-8601 date-time or date string, a Unix timestamp (number, or a
/// numeric string), within Python's years 1–9999. `null` is rejected.
pub fn is_valid_timestamp(value: &PyValue) -> bool {
    match value {
        PyValue::Str(s) => datetime_text_ok(s.as_bytes()) || numeric_text_ok(s.as_bytes()),
        PyValue::Int(digits) => digits.parse::<i64>().is_ok_and(|ts| timestamp_ok(ts, 0)),
        PyValue::Float(x) => {
            // pydantic splits a float into its floor and the rounded
            // microseconds of the fraction's *magnitude* (so -1.25 reads as
            // -1.75; only acceptance matters here).
            if x.is_nan() {
                return false;
            }
            let micros = (x.fract().abs() * 1_000_000.0).round() as u32;
            timestamp_ok(x.floor() as i64, micros)
        }
        _ => false,
    }
}

/// Above this magnitude a Unix timestamp is read as milliseconds.
const MS_WATERSHED: i64 = 20_000_000_000;
/// 0001-01-01T00:00:00 and 9999-12-31T23:59:59 in Unix seconds: Python's
/// `datetime` range.
const FIRST_SECOND: i64 = -62_135_596_800;
const LAST_SECOND: i64 = 253_402_300_799;

/// A timestamp in seconds (or milliseconds past the watershed) plus extra
/// microseconds lands inside Python's datetime range.
fn timestamp_ok(timestamp: i64, extra_micros: u32) -> bool {
    let Some(magnitude) = timestamp.checked_abs() else {
        return false;
    };
    let (mut seconds, mut micros) =
        if magnitude > MS_WATERSHED { (timestamp / 1000, timestamp % 1000 * 1000) } else { (timestamp, 0) };
    if micros < 0 {
        seconds -= 1;
        micros += 1_000_000;
    }
    let Some(total_micros) = extra_micros.checked_add(micros as u32) else {
        return false;
    };
    let Some(seconds) = seconds.checked_add(i64::from(total_micros / 1_000_000)) else {
        return false;
    };
    (FIRST_SECOND..=LAST_SECOND).contains(&seconds)
}

/// A numeric string: with a `.` it is read as a float (sign, digits on
/// either side of the point, optional exponent); without one, as a signed
/// 64-bit integer only (so `1e3` is rejected while `1.5e3` is accepted).
fn numeric_text_ok(bytes: &[u8]) -> bool {
    if bytes.contains(&b'.') {
        let Some(x) = float_text(bytes) else {
            return false;
        };
        // A float string is normalised by the watershed, split into whole
        // seconds and microseconds, and the seconds go through the watershed
        // a second time (a quirk of the parser that is kept).
        let seconds_f = if x.abs() > MS_WATERSHED as f64 { x / 1000.0 } else { x };
        let seconds = seconds_f.floor() as i64;
        let micros = ((seconds_f - seconds as f64) * 1_000_000.0).round() as u32;
        return timestamp_ok(seconds, micros);
    }
    let digits = match bytes {
        [b'-' | b'+', rest @ ..] => rest,
        _ => bytes,
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.trim_start_matches('+').parse::<i64>().ok())
        .is_some_and(|ts| timestamp_ok(ts, 0))
}

/// `[+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?`, parsed to a double.
fn float_text(bytes: &[u8]) -> Option<f64> {
    let mut p = usize::from(matches!(bytes.first(), Some(b'+' | b'-')));
    let count_digits =
        |from: usize| bytes.get(from..).map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
    let int_digits = count_digits(p);
    p += int_digits;
    let mut frac_digits = 0;
    if bytes.get(p) == Some(&b'.') {
        frac_digits = count_digits(p + 1);
        p += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if let Some(b'e' | b'E') = bytes.get(p) {
        let sign = usize::from(matches!(bytes.get(p + 1), Some(b'+' | b'-')));
        let exp_digits = count_digits(p + 1 + sign);
        if exp_digits == 0 {
            return None;
        }
        p += 1 + sign + exp_digits;
    }
    if p != bytes.len() {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    // Rust's parser wants digits before an exponent's point ("1.e5") as
    // written; it accepts every form above.
    text.trim_start_matches('+').parse::<f64>().ok()
}

fn two_digits(bytes: &[u8], at: usize) -> Option<u32> {
    match bytes.get(at..at + 2)? {
        [a @ b'0'..=b'9', b @ b'0'..=b'9'] => Some(u32::from(a - b'0') * 10 + u32::from(b - b'0')),
        _ => None,
    }
}

/// `YYYY-MM-DD`, optionally followed by a separator (`T`, `t`, space or `_`),
/// `HH:MM`, optional `:SS` with an optional `.`/`,` fraction of any length,
/// and an optional zone (`Z`, `z`, or `+`/`-`/`−` then `HH[:]MM`).
fn datetime_text_ok(b: &[u8]) -> bool {
    let (Some(century), Some(year_low), Some(month), Some(day)) =
        (two_digits(b, 0), two_digits(b, 2), two_digits(b, 5), two_digits(b, 8))
    else {
        return false;
    };
    if b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return false;
    }
    let year = century * 100 + year_low;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let month_days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    if year == 0 || day == 0 || day > month_days {
        return false;
    }
    if b.len() == 10 {
        return true;
    }
    if !matches!(b.get(10), Some(b'T' | b't' | b' ' | b'_')) {
        return false;
    }
    let (Some(hour), Some(minute)) = (two_digits(b, 11), two_digits(b, 14)) else {
        return false;
    };
    if b.get(13) != Some(&b':') || hour > 23 || minute > 59 {
        return false;
    }
    let mut p = 16;
    if b.get(p) == Some(&b':') {
        match two_digits(b, p + 1) {
            Some(second) if second <= 59 => p += 3,
            _ => return false,
        }
        if let Some(b'.' | b',') = b.get(p) {
            let fraction = b.get(p + 1..).map_or(0, |r| r.iter().take_while(|c| c.is_ascii_digit()).count());
            if fraction == 0 {
                return false;
            }
            p += 1 + fraction;
        }
    }
    let zone = match b.get(p..) {
        None | Some([]) => return true,
        Some(zone) => zone,
    };
    let offset = match zone {
        [b'Z' | b'z'] => return true,
        [b'+' | b'-', rest @ ..] => rest,
        [0xE2, 0x88, 0x92, rest @ ..] => rest, // U+2212 MINUS SIGN
        _ => return false,
    };
    let minutes_at = if offset.get(2) == Some(&b':') { 3 } else { 2 };
    match (two_digits(offset, 0), two_digits(offset, minutes_at)) {
        (Some(h), Some(m)) => h <= 23 && m <= 59 && offset.len() == minutes_at + 2,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> PyValue {
        PyValue::Str(text.into())
    }

    #[test]
    fn lax_bool_accepts_pydantic_forms_only() {
        let accepted = [
            (PyValue::Bool(true), true),
            (PyValue::Int("1".into()), true),
            (PyValue::Int("0".into()), false),
            (PyValue::Float(1.0), true),
            (PyValue::Float(-0.0), false),
            (s("TrUe"), true),
            (s("yes"), true),
            (s("ON"), true),
            (s("t"), true),
            (s("y"), true),
            (s("off"), false),
            (s("No"), false),
            (s("0"), false),
            (s("F"), false),
        ];
        for (value, want) in accepted {
            assert_eq!(lax_bool(&value), Ok(Some(want)), "{value:?}");
        }
        assert_eq!(lax_bool(&PyValue::Null), Ok(None));
        for rejected in [
            PyValue::Int("2".into()),
            PyValue::Int("-1".into()),
            PyValue::Float(0.5),
            PyValue::Float(f64::NAN),
            s("2"),
            s(""),
            s(" true"),
            s("true "),
            s("1.0"),
            s("ｔrue"),
            PyValue::Array(vec![]),
            PyValue::Object(vec![]),
        ] {
            assert_eq!(lax_bool(&rejected), Err(()), "{rejected:?}");
        }
    }

    // Each verdict below was produced by pydantic 2 on the same input.
    #[test]
    fn timestamp_strings() {
        let accepted = [
            "2024-01-01",
            "2000-02-29",
            "1599-12-31",
            "0001-01-01",
            "2024-01-01T00:00:00",
            "2024-01-01 00:00",
            "2024-01-01_00:00",
            "2024-01-01t00:00:00z",
            "2024-01-01T00:00Z",
            "2024-01-01T00:00:00Z",
            "2024-01-01T00:00:00+05:30",
            "2024-01-01T00:00:00+0530",
            "2024-01-01T00:00:00-23:59",
            "2024-01-01T00:00:00\u{2212}05:00",
            "2024-01-01T00:00:00.123456789Z",
            "2024-01-01T00:00:00,5",
            "2024-01-01T00:00:00.5+01:00",
            "9999-12-31T23:59:59Z",
            "1700000000",
            "+1700000000",
            "-1",
            "00001",
            "20240101",
            "1700000000.5",
            "1700000000.",
            ".5",
            "-.5",
            "1.5e3",
            "1.e5",
            "0.5e-400",
            "-62135596800000",
            "-11676096001",
            "253402300799999.9", // read twice as milliseconds: 1978
        ];
        for text in accepted {
            assert!(is_valid_timestamp(&s(text)), "{text:?} should be accepted");
        }
        let rejected = [
            "yesterday",
            "",
            "now",
            "2024-1-1",
            " 2024-01-01",
            "2024-01-01 ",
            "2024-01-01x",
            "2024-01-01T",
            "2024-01-01T00",
            "2024-01-01T00:0",
            "2024-01-01T00:00:0",
            "2024-01-01T24:00:00",
            "2024-01-01T00:00:60",
            "2024-01-01T00:00:59.",
            "2024-01-01T00:00.5",
            "2024-01-01T00:00,5",
            "2024-01-01T00:00+05",
            "2024-01-01T00:00:00+05",
            "2024-01-01T00:00:00+5:00",
            "2024-01-01T00:00:00+05:3",
            "2024-01-01T00:00:00+24:00",
            "2024-01-01T00:00:00+00:60",
            "2024-01-01T00:00:00+05:00:00",
            "2024-01-01T00:00:00Z ",
            "2024-01-01 00:00:00 +00:00",
            "2024-02-30",
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "0000-01-01",
            "２０２４-01-01",
            "1e3",
            "17e2",
            "1_000",
            "0x10",
            "-",
            ".",
            "-.",
            "1.5e",
            "1.5.5",
            "1 ",
            "  1.5",
            "inf.",
            "9999999999999999999",
            "-62135596800001",
        ];
        for text in rejected {
            assert!(!is_valid_timestamp(&s(text)), "{text:?} should be rejected");
        }
    }

    #[test]
    fn timestamp_numbers_and_other_types() {
        let int = |d: &str| PyValue::Int(d.into());
        for ok in [int("1700000000"), int("0"), int("-20000000000"), int("-62135596800000"), int("253402300799999")] {
            assert!(is_valid_timestamp(&ok), "{ok:?}");
        }
        for ok in [1_700_000_000.5, -1.25, 20_000_000_000.000_004, 253_402_300_799_999.0, 1e-7] {
            assert!(is_valid_timestamp(&PyValue::Float(ok)), "{ok}");
        }
        for bad in
            [int("-62135596800001"), int("253402300800000"), int("9223372036854775808"), int("-9223372036854775808")]
        {
            assert!(!is_valid_timestamp(&bad), "{bad:?}");
        }
        for bad in [253_402_300_799_999.9, 1e16, 1e20, f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
            assert!(!is_valid_timestamp(&PyValue::Float(bad)), "{bad}");
        }
        for bad in [PyValue::Null, PyValue::Bool(true), PyValue::Array(vec![]), PyValue::Object(vec![])] {
            assert!(!is_valid_timestamp(&bad), "{bad:?}");
        }
    }
}
