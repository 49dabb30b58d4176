//! The Luhn check that payment card numbers carry: the pii detector keeps
//! only card-shaped matches that pass it, and test data generators use the
//! check digit to make numbers that do.
//!
//! Both functions read the decimal digits of a text — any Unicode decimal
//! digit, as Python's `int()` and `\d` take them (fullwidth `４` is 4) — and
//! skip everything else, so grouped forms like `4111 1111 1111 1111` work
//! as they are.

use crate::pyunicode::decimal_value;

/// Whether the decimal digits of `text` pass the Luhn check.
pub fn is_valid(text: &str) -> bool {
    sum_mod_10(text, false) == 0
}

/// The digit that, written after `body`, makes the whole pass the Luhn
/// check.
pub fn check_digit(body: &str) -> u32 {
    (10 - sum_mod_10(body, true)) % 10
}

/// The Luhn sum, mod 10, of the digits of `text` from the right, doubling
/// every second digit: the first one from the right when `double_last`
/// (the digits of a body whose check digit is still to come), else the
/// second.
fn sum_mod_10(text: &str, double_last: bool) -> u32 {
    text.chars().rev().filter_map(decimal_value).enumerate().fold(0, |sum, (i, d)| {
        let doubled = (i % 2 == 0) == double_last;
        let term = if doubled { (d * 2) % 10 + (d * 2) / 10 } else { d };
        (sum + term) % 10
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_numbers() {
        assert!(is_valid("4111 1111 1111 1111"));
        assert!(is_valid("79927398713"));
        assert!(!is_valid("79927398710"));
        assert!(!is_valid("4111-1111-1111-1112"));
        assert!(is_valid("４１１１１１１１１１１１１１１１"));
        assert_eq!(check_digit("7992739871"), 3);
        assert_eq!(check_digit("411111111111111"), 1);
        assert_eq!(check_digit("４１１１ １１１１ １１１１ １１１"), 1);
        // No digits: a sum of zero.
        assert!(is_valid("no digits"));
        assert_eq!(check_digit(""), 0);
    }

    proptest::proptest! {
        /// The check digit is the one digit that makes the number valid.
        #[test]
        fn exactly_one_check_digit_is_valid(body in "[0-9]{0,24}") {
            let check = check_digit(&body);
            for d in 0..10 {
                proptest::prop_assert_eq!(is_valid(&format!("{body}{d}")), d == check);
            }
        }
    }
}
