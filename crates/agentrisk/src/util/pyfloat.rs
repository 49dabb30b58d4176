//! Python's `repr(float)`, which the reference prints wherever it turns a
//! float into text (flattened event content, config error messages, the
//! compliance digest).

/// Python's `repr(float)`: the shortest digits that round-trip, in plain
/// notation when the decimal exponent is in `-4..16` (always with a digit
/// after the point), otherwise as `d.ddde±XX`.
pub fn py_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    // `{:e}` gives the shortest round-trip digits as `d.ddde-N`, but when the
    // value lies exactly halfway between two such digit strings it rounds the
    // tie up, where Python takes the even one (1854465107482312.25 is
    // `…312.2` in Python). The correctly rounded (half-even) string of the
    // same length is Python's whenever it round-trips.
    let shortest = format!("{:e}", x.abs());
    let significant = shortest.split('e').next().map_or(1, |m| m.bytes().filter(u8::is_ascii_digit).count());
    let nearest = format!("{:.*e}", significant.saturating_sub(1), x.abs());
    let sci = if nearest != shortest && nearest.parse::<f64>() == Ok(x.abs()) { nearest } else { shortest };
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let mut out = String::with_capacity(digits.len() + 8);
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exponent) {
        if exponent < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exponent - 1) as usize));
            out.push_str(&digits);
        } else {
            let int_len = exponent as usize + 1;
            let (int_part, frac_part) = digits.split_at(int_len.min(digits.len()));
            out.push_str(int_part);
            out.extend(std::iter::repeat_n('0', int_len.saturating_sub(digits.len())));
            out.push('.');
            out.push_str(if frac_part.is_empty() { "0" } else { frac_part });
        }
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push_str(&format!("e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::py_float_repr;

    #[test]
    fn json_literals_take_python_spelling() {
        // (JSON literal, Python repr of the double it denotes)
        let cases = [
            ("3.14", "3.14"),
            ("1e21", "1e+21"),
            ("1e-7", "1e-07"),
            ("1E2", "100.0"),
            ("-0.0", "-0.0"),
            ("0.0", "0.0"),
            ("1e-5", "1e-05"),
            ("1.5e16", "1.5e+16"),
            ("123456789.0", "123456789.0"),
            ("0.0001", "0.0001"),
            ("0.00012345", "0.00012345"),
            ("1e16", "1e+16"),
            ("1e15", "1000000000000000.0"),
            ("9999999999999998.0", "9999999999999998.0"),
            ("-2.5", "-2.5"),
            ("1.0", "1.0"),
            ("123456789012345678.0", "1.2345678901234568e+17"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("-1.5e-10", "-1.5e-10"),
            ("12.0e100", "1.2e+101"),
            // Exactly halfway between two shortest strings: Python takes the
            // even last digit, Rust's shortest formatting the upper one.
            ("1854465107482312.25", "1854465107482312.2"),
            ("20876758098528.3125", "20876758098528.312"),
            ("-1257454649570539.25", "-1257454649570539.2"),
            ("17939911606132.5625", "17939911606132.562"),
            ("NaN", "nan"),
            ("inf", "inf"),
            ("-inf", "-inf"),
        ];
        for (literal, want) in cases {
            let x: f64 = literal.parse().unwrap();
            assert_eq!(py_float_repr(x), want, "repr of {literal}");
        }
        assert_eq!(py_float_repr(0.1 + 0.2), "0.30000000000000004");
    }

    #[test]
    fn float_values_take_python_spelling() {
        let cases = [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-2.5, "-2.5"),
            (1000.0, "1000.0"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (123456789012345.6, "123456789012345.6"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.25e-7, "1.25e-07"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1e21, "1e+21"),
            (f64::INFINITY, "inf"),
        ];
        for (value, want) in cases {
            assert_eq!(py_float_repr(value), want, "{value}");
        }
    }
}
