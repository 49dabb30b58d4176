//! Turning a shell's option values into core values, and the clock's
//! value into a report's `generated_at`: the checks the CLI's flags and
//! the JavaScript package's options share, each naming the option.

use super::ApiError;
use crate::batch::GroupBy;
use crate::stats::{IntervalMethod, Rate};

/// A `group_by` option by name: `agent`, `scenario` (or `scenario_family`)
/// or `folder`.
pub fn group_by_from_name(name: &str) -> Result<GroupBy, ApiError> {
    match name {
        "scenario" => Ok(GroupBy::ScenarioFamily),
        _ => GroupBy::from_name(name).ok_or_else(|| ApiError {
            file: "options".to_owned(),
            place: "groupBy".to_owned(),
            problem: format!("unknown grouping {name:?}; use agent, scenario or folder"),
        }),
    }
}

/// The interval method for a confidence level, or an error naming the option.
pub fn interval_method(confidence: f64, continuity_correction: bool) -> Result<IntervalMethod, ApiError> {
    IntervalMethod::new(confidence, continuity_correction).map_err(|e| ApiError {
        file: "options".to_owned(),
        place: "confidence".to_owned(),
        problem: e.to_string(),
    })
}

/// `k` of `n` with its Wilson score interval.
pub fn wilson_rate(k: u64, n: u64, method: &IntervalMethod) -> Result<Rate, ApiError> {
    method.rate(k, n).map_err(|e| ApiError {
        file: "arguments".to_owned(),
        place: "k".to_owned(),
        problem: e.to_string(),
    })
}

/// A report's `generated_at` for a time in Unix seconds and microseconds,
/// as Python's `datetime.isoformat()` writes a UTC time.
pub fn generated_at_from_unix(secs: i64, micros: u32) -> String {
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let time = format!("{:02}:{:02}:{:02}", rem / 3600, rem % 3600 / 60, rem % 60);
    let fraction = if micros == 0 { String::new() } else { format!(".{micros:06}") };
    format!("{year:04}-{month:02}-{day:02}T{time}{fraction}+00:00")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_and_options_and_timestamps() {
        let rate = wilson_rate(3, 10, &interval_method(0.95, false).expect("valid")).expect("k <= n");
        assert_eq!(rate.rate, Some(0.3));
        assert!((rate.lower.unwrap_or_default() - 0.107_791_267).abs() < 1e-9, "{rate:?}");
        assert_eq!(interval_method(1.5, false).expect_err("out of range").place, "confidence");
        assert_eq!(wilson_rate(4, 3, &IntervalMethod::default()).expect_err("k > n").place, "k");
        assert_eq!(group_by_from_name("scenario_family"), Ok(GroupBy::ScenarioFamily));
        assert_eq!(group_by_from_name("scenario"), Ok(GroupBy::ScenarioFamily));
        assert_eq!(group_by_from_name("team").expect_err("unknown").place, "groupBy");
        assert_eq!(generated_at_from_unix(1_796_223_149, 778_071), "2026-12-02T14:52:29.778071+00:00");
        assert_eq!(generated_at_from_unix(0, 0), "1970-01-01T00:00:00+00:00");
    }
}
