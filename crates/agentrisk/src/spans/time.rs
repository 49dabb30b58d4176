//! Span times as nanoseconds since the Unix epoch, from the forms exports
//! write: OTLP's `…UnixNano` (a string or a number of nanoseconds), the
//! SDK's ISO 8601 text (`2026-01-01T00:00:00.123456Z`), or a number of
//! seconds, milliseconds or microseconds (told apart by size).

use crate::trace::PyValue;

/// The time a value gives, or 0 when it gives none.
pub(super) fn nanos(value: &PyValue) -> u64 {
    match value {
        PyValue::Int(digits) => digits.parse::<u64>().map(scale).unwrap_or(0),
        PyValue::Float(x) if x.is_finite() && *x > 0.0 => scale_float(*x),
        PyValue::Str(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
            s.parse::<u64>().map(scale).unwrap_or(0)
        }
        PyValue::Str(s) => iso(s).unwrap_or(0),
        _ => 0,
    }
}

/// A count in whichever unit its size says: under 10¹² seconds, under
/// 10¹⁵ milliseconds, under 10¹⁸ microseconds, else nanoseconds.
fn scale(n: u64) -> u64 {
    match n {
        0..=999_999_999_999 => n.saturating_mul(1_000_000_000),
        1_000_000_000_000..=999_999_999_999_999 => n.saturating_mul(1_000_000),
        1_000_000_000_000_000..=999_999_999_999_999_999 => n.saturating_mul(1_000),
        _ => n,
    }
}

fn scale_float(x: f64) -> u64 {
    let factor = if x < 1e12 {
        1e9
    } else if x < 1e15 {
        1e6
    } else if x < 1e18 {
        1e3
    } else {
        1.0
    };
    (x * factor).min(u64::MAX as f64) as u64
}

/// `YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM]` (no zone: UTC).
fn iso(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().all(u8::is_ascii_digit).then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut at = 19;
    let mut fraction_ns = 0i64;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let mut scale = 100_000_000i64;
        while let Some(d) = b.get(at).filter(|d| d.is_ascii_digit()) {
            fraction_ns += i64::from(d - b'0') * scale;
            scale /= 10;
            at += 1;
        }
    }
    let offset_s = match b.get(at) {
        None | Some(b'Z' | b'z') => 0,
        Some(sign @ (b'+' | b'-')) => {
            let hours = num(at + 1, 2)?;
            let minutes = match b.get(at + 3) {
                Some(b':') => num(at + 4, 2)?,
                _ => num(at + 3, 2).unwrap_or(0),
            };
            let total = hours * 3600 + minutes * 60;
            if *sign == b'+' {
                total
            } else {
                -total
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset_s;
    u64::try_from(seconds).ok().map(|s| s.saturating_mul(1_000_000_000).saturating_add(fraction_ns as u64))
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_gives_the_same_instant() {
        // 2026-01-01T00:00:00.5Z = 1767225600.5 s.
        let want = 1_767_225_600_500_000_000;
        assert_eq!(nanos(&PyValue::Str("1767225600500000000".into())), want);
        assert_eq!(nanos(&PyValue::Int("1767225600500000000".into())), want);
        assert_eq!(nanos(&PyValue::Str("2026-01-01T00:00:00.500000Z".into())), want);
        assert_eq!(nanos(&PyValue::Str("2026-01-01T01:00:00.5+01:00".into())), want);
        assert_eq!(nanos(&PyValue::Float(1_767_225_600.5)), want);
        assert_eq!(nanos(&PyValue::Int("1767225600500".into())), want);
        assert_eq!(nanos(&PyValue::Str("yesterday".into())), 0);
        assert_eq!(nanos(&PyValue::Str("1969-12-31T23:59:59Z".into())), 0);
    }
}
