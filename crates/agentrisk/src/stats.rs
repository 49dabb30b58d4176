//! Statistics for rates over many runs: the normal quantile, the Wilson
//! score interval for k successes in n trials, the [`Rate`] value every
//! batch metric is reported as, and [`ValueStats`] (mean, median, min, max)
//! for numbers such as the Risk Index. For comparing two batches: the
//! difference of two rates with Newcombe's hybrid score interval
//! ([`RateDifference`]) and the exact McNemar test for paired runs
//! ([`mcnemar_exact_p`]).
//!
//! The interval is the Wilson score interval, optionally with the continuity
//! correction in the form R's `prop.test(x, n)` uses (see
//! [`wilson_interval`]). Library defaults differ (statsmodels: Wald; SciPy:
//! Clopper–Pearson; R: Wilson with correction), so the method is always
//! explicit here, named by [`IntervalMethod::describe`], and pinned by tests.
//!
//! This module owns the arithmetic only; which runs count as successes and
//! trials is decided by `batch`.

use serde::{Deserialize, Serialize};

/// Why a rate or interval could not be computed. Messages name the value and the fix.
#[derive(Debug, Clone, Copy, PartialEq, thiserror::Error)]
pub enum StatsError {
    #[error("confidence level must be a number strictly between 0 and 1 (for example 0.95), got {0}")]
    InvalidConfidence(f64),
    #[error("{k} successes out of {n} trials: the number of successes cannot exceed the number of trials")]
    MoreSuccessesThanTrials { k: u64, n: u64 },
}

/// A two-sided confidence interval, both bounds within [0, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lower: f64,
    pub upper: f64,
}

/// The standard normal quantile Φ⁻¹(p) for p in (0, 1); `None` outside
/// (and for NaN).
///
/// Wichura's algorithm AS 241 (PPND16, Applied Statistics 37(3), 1988),
/// whose rational approximations are accurate to about 1 part in 10¹⁶
/// over the whole range; checked against 700-digit mpmath values.
pub fn normal_quantile(p: f64) -> Option<f64> {
    if !(p > 0.0 && p < 1.0) {
        return None;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        let r = 0.180625 - q * q;
        return Some(q * polynomial(&as241::A, r) / polynomial(&as241::B, r));
    }
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let r = (-tail.ln()).sqrt();
    let x = if r <= 5.0 {
        let r = r - 1.6;
        polynomial(&as241::C, r) / polynomial(&as241::D, r)
    } else {
        let r = r - 5.0;
        polynomial(&as241::E, r) / polynomial(&as241::F, r)
    };
    Some(if q < 0.0 { -x } else { x })
}

/// The two-sided critical value z = Φ⁻¹((1 + confidence) / 2), e.g.
/// 1.959963984540054 for 0.95.
pub fn z_for_confidence(confidence: f64) -> Result<f64, StatsError> {
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(StatsError::InvalidConfidence(confidence));
    }
    // Φ⁻¹ of the upper tail probability (1 − c) / 2, negated: for c close
    // to 1 this keeps the digits that (1 + c) / 2 would round away.
    normal_quantile((1.0 - confidence) / 2.0).map(|x| -x).ok_or(StatsError::InvalidConfidence(confidence))
}

/// The Wilson score interval for `k` successes in `n` trials.
///
/// * `n = 0` → `Ok(None)`: there is no interval (show "n/a", never NaN).
/// * `k > n` or a confidence outside (0, 1) → `Err`.
///
/// With `continuity_correction`, the bounds are R's `prop.test(k, n,
/// correct = TRUE)$conf.int`: the proportion is moved by 0.5/n towards each
/// side before the score bound is taken, and a moved proportion at or beyond
/// 0 or 1 gives that bound exactly. R caps the correction at |k − n/2| (a
/// rule of its test against the null p = 0.5), so for k = n/2 exactly the
/// corrected interval equals the uncorrected one; we keep that quirk so that
/// every value can be checked against R (pinned by the `5/10` test).
///
/// Bounds are clamped to [0, 1].
pub fn wilson_interval(
    k: u64,
    n: u64,
    confidence: f64,
    continuity_correction: bool,
) -> Result<Option<Interval>, StatsError> {
    let z = z_for_confidence(confidence)?;
    if k > n {
        return Err(StatsError::MoreSuccessesThanTrials { k, n });
    }
    Ok(wilson_with_z(k, n, z, continuity_correction))
}

/// The Wilson interval for a known z; callers guarantee `k <= n` (a larger
/// `k` is treated as `n`).
fn wilson_with_z(k: u64, n: u64, z: f64, continuity_correction: bool) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    let k = k.min(n) as f64;
    let n = n as f64;
    let estimate = k / n;
    let correction = if continuity_correction { 0.5_f64.min((k - n * 0.5).abs()) } else { 0.0 };
    let z22n = z * z / (2.0 * n);
    let score_bound =
        |p: f64, sign: f64| (p + z22n + sign * z * (p * (1.0 - p) / n + z22n / (2.0 * n)).sqrt()) / (1.0 + 2.0 * z22n);
    let moved_up = estimate + correction / n;
    let upper = if moved_up >= 1.0 { 1.0 } else { score_bound(moved_up, 1.0) };
    let moved_down = estimate - correction / n;
    let lower = if moved_down <= 0.0 { 0.0 } else { score_bound(moved_down, -1.0) };
    Some(Interval { lower: lower.clamp(0.0, 1.0), upper: upper.clamp(0.0, 1.0) })
}

/// How rates get their intervals: Wilson score at a confidence level, with
/// or without continuity correction. Built only through [`IntervalMethod::new`]
/// (or `Default`: 95%, no correction), so a method in hand is always valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalMethod {
    confidence: f64,
    continuity_correction: bool,
    z: f64,
}

impl Default for IntervalMethod {
    fn default() -> IntervalMethod {
        IntervalMethod { confidence: 0.95, continuity_correction: false, z: DEFAULT_Z }
    }
}

/// z for 95%, Φ⁻¹(0.975); checked against `z_for_confidence` by a test.
const DEFAULT_Z: f64 = 1.959963984540054;

impl IntervalMethod {
    /// A method at `confidence` (strictly between 0 and 1).
    pub fn new(confidence: f64, continuity_correction: bool) -> Result<IntervalMethod, StatsError> {
        let z = z_for_confidence(confidence)?;
        Ok(IntervalMethod { confidence, continuity_correction, z })
    }

    pub fn confidence(&self) -> f64 {
        self.confidence
    }

    pub fn continuity_correction(&self) -> bool {
        self.continuity_correction
    }

    /// The two-sided critical value of the confidence level.
    pub fn z(&self) -> f64 {
        self.z
    }

    /// The interval for `k` out of `n`: `Ok(None)` for `n = 0`, `Err` for `k > n`.
    pub fn interval(&self, k: u64, n: u64) -> Result<Option<Interval>, StatsError> {
        if k > n {
            return Err(StatsError::MoreSuccessesThanTrials { k, n });
        }
        Ok(wilson_with_z(k, n, self.z, self.continuity_correction))
    }

    /// `k` out of `n` with its interval; `Err` only for `k > n`.
    pub fn rate(&self, k: u64, n: u64) -> Result<Rate, StatsError> {
        if k > n {
            return Err(StatsError::MoreSuccessesThanTrials { k, n });
        }
        Ok(self.rate_of_counts(k, n))
    }

    /// For counters that hold `k <= n` by construction (a larger `k` is
    /// treated as `n`), so that they need no error path.
    pub(crate) fn rate_of_counts(&self, k: u64, n: u64) -> Rate {
        let k = k.min(n);
        let interval = wilson_with_z(k, n, self.z, self.continuity_correction);
        Rate {
            k,
            n,
            rate: (n > 0).then(|| k as f64 / n as f64),
            lower: interval.map(|i| i.lower),
            upper: interval.map(|i| i.upper),
        }
    }

    /// The confidence level in percent, as a label: 0.95 → "95", 0.999 → "99.9".
    pub fn confidence_label(&self) -> String {
        percent_label(self.confidence)
    }

    /// The method in words, for the UI and exports, e.g. "Wilson score
    /// interval, 95%, no continuity correction".
    pub fn describe(&self) -> String {
        let correction = if self.continuity_correction { "with" } else { "no" };
        format!("Wilson score interval, {}%, {correction} continuity correction", percent_label(self.confidence))
    }
}

/// 0.95 → "95", 0.999 → "99.9", 0.12345 → "12.345" (at most 4 decimals).
fn percent_label(confidence: f64) -> String {
    let text = format!("{:.4}", confidence * 100.0);
    text.trim_end_matches('0').trim_end_matches('.').to_owned()
}

/// `k` out of `n` with the point rate and its interval bounds. Serialises as
/// `{"k", "n", "rate", "lower", "upper"}`; with `n = 0` the last three are
/// `null`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Rate {
    pub k: u64,
    pub n: u64,
    pub rate: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

impl Rate {
    /// `k` out of `n` with its interval at `method`; `Err` for `k > n`.
    pub fn new(k: u64, n: u64, method: &IntervalMethod) -> Result<Rate, StatsError> {
        method.rate(k, n)
    }
}

/// The difference of two independent rates, `second − first` (for a diff:
/// NEW − BASE), with Newcombe's hybrid score interval: Newcombe (1998),
/// method 10, built from each rate's Wilson interval (method 11 when the
/// method applies the continuity correction). It is the interval
/// statsmodels' `confint_proportions_2indep(k2, n2, k1, n1,
/// method="newcomb")` gives, pinned by tests. All `None` when either rate
/// has no trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RateDifference {
    pub difference: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

impl RateDifference {
    /// `second − first`; both rates carry the same method's intervals.
    pub fn between(first: &Rate, second: &Rate) -> RateDifference {
        let none = RateDifference { difference: None, lower: None, upper: None };
        let (Some(p1), Some(l1), Some(u1), Some(p2), Some(l2), Some(u2)) =
            (first.rate, first.lower, first.upper, second.rate, second.lower, second.upper)
        else {
            return none;
        };
        let difference = p2 - p1;
        RateDifference {
            difference: Some(difference),
            lower: Some(difference - ((p2 - l2).powi(2) + (u1 - p1).powi(2)).sqrt()),
            upper: Some(difference + ((u2 - p2).powi(2) + (p1 - l1).powi(2)).sqrt()),
        }
    }
}

/// The exact two-sided McNemar p-value for paired runs: `b` and `c` are the
/// discordant pairs (a leak in one run of the pair only). Under the null
/// each discordant pair goes either way with probability ½, so the p-value
/// is twice the binomial tail P(X ≤ min(b, c)), X ~ Bin(b + c, ½), capped
/// at 1; 1 with no discordant pairs.
pub fn mcnemar_exact_p(b: u64, c: u64) -> f64 {
    let n = b + c;
    let k = b.min(c);
    if n == 0 {
        return 1.0;
    }
    // Up to 1 000 pairs, P(X = 0) = 2⁻ⁿ is a normal float and the terms,
    // each from the last, are exact for small counts (1 and 8: 2 × 10/2⁹).
    if n <= 1_000 {
        let mut pmf = 0.5_f64.powi(n as i32);
        let mut tail = pmf;
        for i in 1..=k {
            pmf *= (n - i + 1) as f64 / i as f64;
            tail += pmf;
        }
        return (2.0 * tail).min(1.0);
    }
    // Beyond, 2⁻ⁿ underflows: sum in log space, ln P(X = i) = ln C(n, i) − n ln 2.
    let mut log_pmf = -(n as f64) * std::f64::consts::LN_2;
    let mut logs = Vec::with_capacity(usize::try_from(k).unwrap_or(0).saturating_add(1));
    logs.push(log_pmf);
    for i in 1..=k {
        log_pmf += ((n - i + 1) as f64 / i as f64).ln();
        logs.push(log_pmf);
    }
    let largest = logs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let tail = largest.exp() * logs.iter().map(|l| (l - largest).exp()).sum::<f64>();
    (2.0 * tail).min(1.0)
}

/// Mean, median, minimum and maximum of some numbers; all `None` when there
/// are none. Serialises as `{"mean", "median", "min", "max"}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ValueStats {
    pub mean: Option<f64>,
    pub median: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl ValueStats {
    /// Non-finite values are left out. The median of an even count is the
    /// mean of the two middle values. Values are summed in sorted order, so
    /// the result does not depend on the order they come in.
    pub fn from_values(values: impl IntoIterator<Item = f64>) -> ValueStats {
        let mut sorted: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
        crate::util::sort_by(&mut sorted, f64::total_cmp);
        let count = sorted.len();
        if count == 0 {
            return ValueStats::default();
        }
        let mean = sorted.iter().sum::<f64>() / count as f64;
        let middle = count / 2;
        let median = match (count % 2, sorted.get(middle), middle.checked_sub(1).and_then(|i| sorted.get(i))) {
            (1, Some(&m), _) => Some(m),
            (_, Some(&high), Some(&low)) => Some((low + high) / 2.0),
            _ => None,
        };
        ValueStats { mean: Some(mean), median, min: sorted.first().copied(), max: sorted.last().copied() }
    }
}

/// Horner evaluation; coefficients from the constant term up.
fn polynomial(coefficients: &[f64; 8], x: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

/// The coefficients of AS 241 (Wichura 1988), constant term first.
mod as241 {
    // Written as published (20 significant digits) so that they can be
    // checked against the paper; the compiler rounds them to f64.
    #![allow(clippy::excessive_precision)]

    pub(super) const A: [f64; 8] = [
        3.387_132_872_796_366_608,
        1.331_416_678_917_843_774_5e2,
        1.971_590_950_306_551_442_7e3,
        1.373_169_376_550_946_112_5e4,
        4.592_195_393_154_987_145_7e4,
        6.726_577_092_700_870_085_3e4,
        3.343_057_558_358_812_810_5e4,
        2.509_080_928_730_122_672_7e3,
    ];
    pub(super) const B: [f64; 8] = [
        1.0,
        4.231_333_070_160_091_125_2e1,
        6.871_870_074_920_579_083e2,
        5.394_196_021_424_751_107_7e3,
        2.121_379_430_158_659_586_7e4,
        3.930_789_580_009_271_061e4,
        2.872_908_573_572_194_267_4e4,
        5.226_495_278_852_854_561e3,
    ];
    pub(super) const C: [f64; 8] = [
        1.423_437_110_749_683_577_34,
        4.630_337_846_156_545_295_9,
        5.769_497_221_460_691_405_5,
        3.647_848_324_763_204_605_04,
        1.270_458_252_452_368_382_58,
        2.417_807_251_774_506_117_7e-1,
        2.272_384_498_926_918_458_33e-2,
        7.745_450_142_783_414_076_4e-4,
    ];
    pub(super) const D: [f64; 8] = [
        1.0,
        2.053_191_626_637_758_821_87,
        1.676_384_830_183_803_849_4,
        6.897_673_349_851_000_045_5e-1,
        1.481_039_764_274_800_745_9e-1,
        1.519_866_656_361_645_719_66e-2,
        5.475_938_084_995_344_946e-4,
        1.050_750_071_644_416_843_24e-9,
    ];
    pub(super) const E: [f64; 8] = [
        6.657_904_643_501_103_777_2,
        5.463_784_911_164_114_369_9,
        1.784_826_539_917_291_335_8,
        2.965_605_718_285_048_912_3e-1,
        2.653_218_952_657_612_309_3e-2,
        1.242_660_947_388_078_438_6e-3,
        2.711_555_568_743_487_578_15e-5,
        2.010_334_399_292_288_132_65e-7,
    ];
    pub(super) const F: [f64; 8] = [
        1.0,
        5.998_322_065_558_879_376_9e-1,
        1.369_298_809_227_358_053_1e-1,
        1.487_536_129_085_061_485_25e-2,
        7.868_691_311_456_132_591e-4,
        1.846_318_317_510_054_681_8e-5,
        1.421_511_758_316_445_888_7e-7,
        2.044_263_103_389_939_785_64e-15,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    /// NEW − BASE with Newcombe's hybrid score interval, against
    /// statsmodels 0.14's `confint_proportions_2indep(new_k, new_n, base_k,
    /// base_n, method="newcomb")`. The first case is Newcombe's own example
    /// (56/70 against 48/80: 0.0524 to 0.3339, his Table II, method 10).
    #[test]
    fn rate_differences_take_newcombes_hybrid_score_interval() {
        let cases: [(u64, u64, u64, u64, f64, f64, f64); 5] = [
            (48, 80, 56, 70, 0.95, 0.05243147240236498, 0.33387265403690614),
            (56, 70, 48, 80, 0.95, -0.33387265403690614, -0.05243147240236498),
            (0, 10, 5, 10, 0.95, 0.11736746745022203, 0.7634069094874361),
            (20, 100, 30, 100, 0.9, -0.0008724528054071812, 0.1983829756231497),
            (0, 10, 0, 10, 0.95, -0.27753279986288926, 0.27753279986288926),
        ];
        for (base_k, base_n, new_k, new_n, confidence, lower, upper) in cases {
            let method = IntervalMethod::new(confidence, false).unwrap();
            let (base, new) = (method.rate(base_k, base_n).unwrap(), method.rate(new_k, new_n).unwrap());
            let d = RateDifference::between(&base, &new);
            let expected = new_k as f64 / new_n as f64 - base_k as f64 / base_n as f64;
            assert!((d.difference.unwrap() - expected).abs() < 1e-15, "{d:?}");
            assert!((d.lower.unwrap() - lower).abs() < 1e-12, "{base_k}/{base_n} → {new_k}/{new_n}: {d:?}");
            assert!((d.upper.unwrap() - upper).abs() < 1e-12, "{base_k}/{base_n} → {new_k}/{new_n}: {d:?}");
        }
        let empty = IntervalMethod::default().rate(0, 0).unwrap();
        let some = IntervalMethod::default().rate(1, 2).unwrap();
        assert_eq!(
            RateDifference::between(&empty, &some),
            RateDifference { difference: None, lower: None, upper: None }
        );
    }

    /// Against statsmodels' `mcnemar(table, exact=True)` and the binomial
    /// tail worked by hand: b = 1, c = 8 is 2 × (1 + 9) / 2⁹.
    #[test]
    fn mcnemar_exact_p_is_the_two_sided_binomial_tail() {
        assert_eq!(mcnemar_exact_p(1, 8), 0.0390625);
        assert_eq!(mcnemar_exact_p(8, 1), 0.0390625);
        assert_eq!(mcnemar_exact_p(0, 10), 0.001953125);
        assert_eq!(mcnemar_exact_p(5, 5), 1.0);
        assert_eq!(mcnemar_exact_p(0, 0), 1.0);
        // Large counts neither underflow nor overflow (2⁻¹⁰⁰⁰⁰⁰ is far below
        // the smallest float): SciPy's `binomtest(k, n, 0.5).pvalue`.
        for (b, c, expected) in [(4_900, 5_100, 0.04658552770494645), (49_000, 51_000, 2.5887160383468943e-10)] {
            let p = mcnemar_exact_p(b, c);
            assert!((p / expected - 1.0).abs() < 1e-9, "{b}, {c}: {p}");
        }
    }

    fn close(actual: f64, expected: f64, tolerance: f64) -> bool {
        (actual - expected).abs() <= tolerance
    }

    /// The interval rounded to 4 decimals, as the cross-checks are quoted.
    fn interval4(k: u64, n: u64, confidence: f64, correction: bool) -> (f64, f64) {
        let i = wilson_interval(k, n, confidence, correction).unwrap().unwrap();
        ((i.lower * 1e4).round() / 1e4, (i.upper * 1e4).round() / 1e4)
    }

    /// Both bounds within `tolerance` of the expected ones.
    fn assert_interval(k: u64, n: u64, confidence: f64, correction: bool, expected: (f64, f64), tolerance: f64) {
        let i = wilson_interval(k, n, confidence, correction).unwrap().unwrap();
        assert!(
            close(i.lower, expected.0, tolerance) && close(i.upper, expected.1, tolerance),
            "{k}/{n} at {confidence} (correction {correction}): got [{}, {}], expected {expected:?}",
            i.lower,
            i.upper
        );
    }

    #[test]
    fn normal_quantile_matches_high_precision_values() {
        // Expected values from mpmath at 700 digits: sqrt(2) * erfinv(2p - 1).
        let cases = [
            (0.975, 1.959_963_984_540_053_9),
            (0.95, 1.644_853_626_951_472_3),
            (0.995, 2.575_829_303_548_900_5),
            (0.5, 0.0),
            (0.75, 0.674_489_750_196_081_7),
            (0.025, -1.959_963_984_540_054_2),
            (1e-10, -6.361_340_902_404_056),
            (1e-300, -37.047_096_299_361_2),
        ];
        for (p, expected) in cases {
            let z = normal_quantile(p).unwrap();
            assert!(close(z, expected, 1e-14 * expected.abs().max(1.0)), "p = {p}: {z} vs {expected}");
        }
        assert_eq!(normal_quantile(0.0), None);
        assert_eq!(normal_quantile(1.0), None);
        assert_eq!(normal_quantile(f64::NAN), None);
        assert_eq!(normal_quantile(-0.5), None);
    }

    #[test]
    fn z_for_the_usual_confidence_levels() {
        assert!(close(z_for_confidence(0.95).unwrap(), 1.959963984540054, 1e-9));
        assert!(close(z_for_confidence(0.95).unwrap(), DEFAULT_Z, 1e-15));
        // R: qnorm(0.95), qnorm(0.995), qnorm(0.9995).
        assert!(close(z_for_confidence(0.90).unwrap(), 1.6448536269514722, 1e-12));
        assert!(close(z_for_confidence(0.99).unwrap(), 2.5758293035489004, 1e-12));
        assert!(close(z_for_confidence(0.999).unwrap(), 3.2905267314918945, 1e-12));
        assert_eq!(IntervalMethod::default().z(), DEFAULT_Z);
    }

    #[test]
    fn invalid_confidence_levels_are_errors() {
        for bad in [0.0, 1.0, -0.1, 1.5, 95.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(z_for_confidence(bad).is_err(), "{bad}");
            assert!(IntervalMethod::new(bad, false).is_err(), "{bad}");
            assert!(wilson_interval(1, 10, bad, false).is_err(), "{bad}");
        }
        // The confidence is checked first, even when n = 0.
        assert!(wilson_interval(0, 0, 1.0, false).is_err());
        assert_eq!(
            z_for_confidence(95.0).unwrap_err().to_string(),
            "confidence level must be a number strictly between 0 and 1 (for example 0.95), got 95"
        );
    }

    #[test]
    fn project_cross_checks_at_95_percent() {
        // viewer-expectations.md, "Statistics".
        assert_eq!(interval4(340, 400, 0.95, false), (0.8117, 0.8817));
        assert_eq!(interval4(340, 400, 0.95, true), (0.8103, 0.8828));
        assert_eq!(interval4(10, 10, 0.95, false), (0.7225, 1.0));
        assert_eq!(interval4(0, 10, 0.95, false), (0.0, 0.2775));
        assert_eq!(interval4(1, 10, 0.95, false), (0.0179, 0.4042));
    }

    #[test]
    fn newcombe_1998_table_values() {
        // Newcombe, "Two-sided confidence intervals for the single
        // proportion: comparison of seven methods", Statistics in Medicine
        // 17 (1998) 857–872, Table II: method 3 (score) and method 4 (score
        // with continuity correction), 95%.
        assert_eq!(interval4(81, 263, 0.95, false), (0.2553, 0.3662));
        assert_eq!(interval4(81, 263, 0.95, true), (0.2535, 0.3682));
        assert_eq!(interval4(15, 148, 0.95, false), (0.0624, 0.1605));
        assert_eq!(interval4(15, 148, 0.95, true), (0.0598, 0.1644));
        assert_eq!(interval4(0, 20, 0.95, false), (0.0, 0.1611));
        assert_eq!(interval4(0, 20, 0.95, true), (0.0, 0.2005));
        assert_eq!(interval4(1, 29, 0.95, false), (0.0061, 0.1718));
        assert_eq!(interval4(1, 29, 0.95, true), (0.0018, 0.1963));
    }

    #[test]
    fn r_prop_test_output() {
        // R bug report PR#2794 (prop.test confidence intervals), R's printed
        // output for prop.test(6, 52): with correction
        // 0.04778925 0.24129372, without 0.05396969 0.22971664.
        assert_interval(6, 52, 0.95, true, (0.04778925, 0.24129372), 5e-9);
        assert_interval(6, 52, 0.95, false, (0.05396969, 0.22971664), 5e-9);
    }

    #[test]
    fn ninety_and_ninety_nine_percent_levels() {
        // Computed with mpmath at 40 digits from the same formula (R's
        // prop.test form); the 90%/99% z values are pinned above.
        assert_interval(340, 400, 0.90, false, (0.818286548866, 0.877010559782), 1e-11);
        assert_interval(340, 400, 0.99, false, (0.798322039731, 0.890256344319), 1e-11);
        assert_interval(340, 400, 0.90, true, (0.816945858394, 0.878152381412), 1e-11);
        assert_interval(340, 400, 0.99, true, (0.796940198365, 0.891332658199), 1e-11);
        assert_interval(1, 10, 0.90, false, (0.0226349087309, 0.347718667336), 1e-11);
        assert_interval(1, 10, 0.99, false, (0.011851503411, 0.507231771233), 1e-11);
        assert_interval(10, 10, 0.99, false, (0.601145906695, 1.0), 1e-11);
        assert_interval(0, 10, 0.90, true, (0.0, 0.284737387718), 1e-11);
        assert_interval(81, 263, 0.99, true, (0.238403972153, 0.387256894351), 1e-11);
    }

    #[test]
    fn wider_confidence_gives_wider_intervals() {
        let width = |c: f64| {
            let i = wilson_interval(7, 50, c, false).unwrap().unwrap();
            i.upper - i.lower
        };
        assert!(width(0.90) < width(0.95) && width(0.95) < width(0.99));
    }

    #[test]
    fn continuity_correction_follows_r_including_its_half_n_quirk() {
        // At k = n/2, R caps the correction at |k − n·0.5| = 0: prop.test(5, 10)
        // prints 0.2365931 0.7634069 with or without correct = TRUE.
        let plain = wilson_interval(5, 10, 0.95, false).unwrap().unwrap();
        let corrected = wilson_interval(5, 10, 0.95, true).unwrap().unwrap();
        assert_eq!(plain, corrected);
        assert_interval(5, 10, 0.95, true, (0.236593090513, 0.763406909487), 1e-11);
        // Elsewhere the corrected interval is wider on both sides.
        let plain = wilson_interval(4, 10, 0.95, false).unwrap().unwrap();
        let corrected = wilson_interval(4, 10, 0.95, true).unwrap().unwrap();
        assert!(corrected.lower < plain.lower && corrected.upper > plain.upper);
    }

    #[test]
    fn edges_are_exact_and_bounds_stay_in_the_unit_interval() {
        for correction in [false, true] {
            for n in [1_u64, 2, 3, 10, 1000, 1_000_000] {
                for k in [0, 1, n / 2, n.saturating_sub(1), n] {
                    let k = k.min(n);
                    let i = wilson_interval(k, n, 0.99, correction).unwrap().unwrap();
                    let p = k as f64 / n as f64;
                    assert!(0.0 <= i.lower && i.lower <= p && p <= i.upper && i.upper <= 1.0, "{k}/{n}: {i:?}");
                    if k == 0 {
                        assert_eq!(i.lower, 0.0);
                    }
                    if k == n {
                        assert_eq!(i.upper, 1.0);
                    }
                }
            }
        }
    }

    #[test]
    fn zero_trials_and_too_many_successes() {
        assert_eq!(wilson_interval(0, 0, 0.95, false), Ok(None));
        let err = wilson_interval(11, 10, 0.95, false).unwrap_err();
        assert_eq!(err, StatsError::MoreSuccessesThanTrials { k: 11, n: 10 });
        assert_eq!(
            err.to_string(),
            "11 successes out of 10 trials: the number of successes cannot exceed the number of trials"
        );
        assert!(wilson_interval(1, 0, 0.95, false).is_err());
        assert!(Rate::new(3, 2, &IntervalMethod::default()).is_err());
    }

    #[test]
    fn rate_serializes_with_nulls_for_zero_trials() {
        let method = IntervalMethod::default();
        let empty = Rate::new(0, 0, &method).unwrap();
        assert_eq!(serde_json::to_string(&empty).unwrap(), r#"{"k":0,"n":0,"rate":null,"lower":null,"upper":null}"#);
        let full = Rate::new(10, 10, &method).unwrap();
        let text = serde_json::to_string(&full).unwrap();
        assert!(text.starts_with(r#"{"k":10,"n":10,"rate":1.0,"lower":0.7224672"#), "{text}");
        assert!(text.ends_with(r#","upper":1.0}"#), "{text}");
        let json = serde_json::to_value(full).unwrap();
        assert_eq!(json["upper"], 1.0);
        assert!(close(json["lower"].as_f64().unwrap(), 0.722467200137, 1e-11));
        let back: Rate = serde_json::from_value(json).unwrap();
        assert_eq!(back, full);
    }

    #[test]
    fn method_describes_itself() {
        assert_eq!(IntervalMethod::default().describe(), "Wilson score interval, 95%, no continuity correction");
        let m = IntervalMethod::new(0.99, true).unwrap();
        assert_eq!(m.describe(), "Wilson score interval, 99%, with continuity correction");
        assert_eq!(
            IntervalMethod::new(0.9, false).unwrap().describe(),
            "Wilson score interval, 90%, no continuity correction"
        );
        assert_eq!(
            IntervalMethod::new(0.999, false).unwrap().describe(),
            "Wilson score interval, 99.9%, no continuity correction"
        );
        assert_eq!((m.confidence(), m.continuity_correction()), (0.99, true));
        let r = m.rate(340, 400).unwrap();
        assert_eq!((r.k, r.n, r.rate), (340, 400, Some(0.85)));
    }

    #[test]
    fn value_stats_mean_median_min_max() {
        assert_eq!(ValueStats::from_values([]), ValueStats::default());
        let odd = ValueStats::from_values([3.0, 1.0, 2.0]);
        assert_eq!(odd, ValueStats { mean: Some(2.0), median: Some(2.0), min: Some(1.0), max: Some(3.0) });
        // Even count: the median is the mean of the two middle values.
        let even = ValueStats::from_values([10.0, 40.0, 20.0, 90.0]);
        assert_eq!(even, ValueStats { mean: Some(40.0), median: Some(30.0), min: Some(10.0), max: Some(90.0) });
        let one = ValueStats::from_values([f64::NAN, 0.5, f64::INFINITY]);
        assert_eq!(one, ValueStats { mean: Some(0.5), median: Some(0.5), min: Some(0.5), max: Some(0.5) });
        assert_eq!(
            serde_json::to_string(&ValueStats::default()).unwrap(),
            r#"{"mean":null,"median":null,"min":null,"max":null}"#
        );
    }
}
