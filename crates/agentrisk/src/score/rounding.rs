//! The reference's rounding, reproduced bit for bit.
//!
//! Python's `round(x, n)` rounds the exact binary value correctly, with exact
//! ties to even; Rust's `{:.n}` formatting does the same, so formatting then
//! parsing gives identical results. `round()` to an integer is half-to-even,
//! which is `f64::round_ties_even`, not `f64::round`.

/// `x` rounded to `dp` decimals the way Python's `round(x, dp)` does.
pub fn round_dp(x: f64, dp: usize) -> f64 {
    format!("{x:.dp$}").parse().unwrap_or(x)
}

/// `max(0, round(100 * (1 - RI)))` evaluated in binary64 in that order, on
/// the unrounded RI, with ties to even (RI 3/8 → 62.5 → 62).
pub fn privacy_score_from_ri(ri: f64) -> u8 {
    let score = (100.0 * (1.0 - ri)).round_ties_even();
    // RI is in [0, 1] for every valid run, so the score is in [0, 100]; the
    // clamp guards the cast for out-of-range input without changing valid values.
    score.clamp(0.0, 100.0) as u8
}
