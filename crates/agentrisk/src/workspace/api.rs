//! Whole-input calls for shells that hold every input at once: the
//! command line's `run -o -`, `score --json` and `batch --json`, and the
//! JavaScript package (`crates/agentrisk-wasm`). Each takes bytes with a
//! name and returns the value the CLI prints, or an [`ApiError`] naming the
//! file, the place and the problem in the words the CLI prints
//! (`agentrisk: FILE: where: what`).
//!
//! Reading files, the clock and the environment stay with the caller; the
//! viewer, which keeps files and re-scores them, uses [`super::Workspace`].

use crate::analyze::Canaries;
use crate::batch::{load_batch_file, summarize, BatchSummary, GroupBy, RunFacts, RunResult};
use crate::config::{config_from_bytes, AnalysisConfig};
use crate::pipeline::{detection_settings, report_from_owned_trace, AnalysisError, AnalysisInput};
use crate::report::{load_report, report_what_if, rescore_report_with_gate, GateSettings, Rescore};
use crate::stats::{IntervalMethod, Rate};
use crate::trace::parse_trace;
use crate::{model::Report, ScoreRecord, ScoringConfig};
use serde::Serialize;

/// An input a user can get wrong, named: the file, where in it, and what
/// is wrong. `Display` is `file: where: what`, the CLI's words after its
/// `agentrisk: ` prefix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[error("{file}: {}{problem}", if place.is_empty() { String::new() } else { format!("{place}: ") })]
pub struct ApiError {
    /// The file's name as the caller gave it (or the option, e.g. `confidence`).
    pub file: String,
    /// Where in the file: a line and column, a key path (`events[3].channel`,
    /// `scoring.weights`, `top level`), or empty when the problem is with the
    /// whole file (e.g. an unsupported report version).
    #[serde(rename = "where")]
    pub place: String,
    /// What is wrong, and often how to fix it.
    #[serde(rename = "what")]
    pub problem: String,
}

impl ApiError {
    /// Splits a core error's message into its place and its problem. The
    /// core's messages start with the place followed by `": "`; a message
    /// without one is about the whole file (an empty place).
    pub fn new(file: &str, message: &str) -> ApiError {
        let (place, problem) = match message.split_once(": ") {
            Some((place, problem)) => (place, problem),
            None => ("", message),
        };
        ApiError { file: file.to_owned(), place: place.to_owned(), problem: problem.to_owned() }
    }
}

/// A file's name and bytes.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// A config loaded under its file name, checked as the reference's runner
/// checks it when it starts (detection mode, custom rules' severities and
/// patterns), so a bad config is named before any trace.
#[derive(Debug, Clone)]
pub struct NamedConfig {
    pub name: String,
    pub config: AnalysisConfig,
}

/// Loads and checks an `agentleak.yaml` given as bytes.
pub fn load_config(file: Named<'_>) -> Result<NamedConfig, ApiError> {
    let config = config_from_bytes(file.bytes).map_err(|e| ApiError::new(file.name, &e.to_string()))?;
    detection_settings(&config).map_err(|e| ApiError::new(file.name, &e.to_string()))?;
    Ok(NamedConfig { name: file.name.to_owned(), config })
}

/// Everything besides the trace that decides its report.
pub struct TraceOptions<'a> {
    /// The config; `None` runs every built-in detector with the reference's defaults.
    pub config: Option<&'a NamedConfig>,
    /// `run --fail-under N`: replaces the config's `fail_below`.
    pub fail_under: Option<i64>,
    pub canaries: Option<&'a Canaries>,
    /// Environment lookup (only `detection.llm_judge.api_key_env` is read).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// `generated_at`, from the caller's clock ([`generated_at_from_unix`]).
    pub generated_at: String,
}

/// The report `agentrisk run -o - -f json` writes for one trace.
pub fn trace_report(trace: Named<'_>, options: &TraceOptions<'_>) -> Result<Report, ApiError> {
    let mut config = options.config.map(|c| c.config.clone()).unwrap_or_default();
    if let Some(n) = options.fail_under {
        config.scoring.fail_below = n;
    }
    let input = AnalysisInput {
        config: &config,
        canaries: options.canaries,
        env: options.env,
        generated_at: options.generated_at.clone(),
    };
    let parsed = parse_trace(trace.bytes).map_err(|e| ApiError::new(trace.name, &e.to_string()))?;
    report_from_owned_trace(parsed, &input).map_err(|e| match (&e, options.config) {
        // A vault too small for what this trace leaks: the config's vault
        // is what to fix.
        (AnalysisError::Scoring(_), Some(named)) => {
            let mut error = ApiError::new(&named.name, &e.to_string());
            error.problem.push_str(&format!(" (for the trace {})", trace.name));
            error
        }
        _ => ApiError::new(trace.name, &e.to_string()),
    })
}

/// How stored reports are re-scored: the gate they were made with, and
/// optionally a what-if config.
pub struct ScoreOptions<'a> {
    pub scoring: ScoringConfig,
    pub gate: GateSettings,
    pub what_if: Option<&'a NamedConfig>,
}

impl ScoreOptions<'_> {
    /// The options `score --fail-below N --no-block-on-critical` give:
    /// either gate flag pins the runs' gate; without them it is unknown and
    /// a stored decision some setting gives is consistent.
    pub fn from_gate_flags(fail_below: Option<i64>, block_on_critical: Option<bool>) -> ScoreOptions<'static> {
        let defaults = ScoringConfig::default();
        let gate = if fail_below.is_some() || block_on_critical.is_some() {
            GateSettings::Pinned
        } else {
            GateSettings::Unknown
        };
        ScoreOptions {
            scoring: ScoringConfig {
                fail_below: fail_below.unwrap_or(defaults.fail_below),
                block_on_critical: block_on_critical.unwrap_or(defaults.block_on_critical),
                ..defaults
            },
            gate,
            what_if: None,
        }
    }
}

/// One report re-scored: the record `score --json` prints (with a what-if
/// config, the numbers it gives), the re-scoring of the stored numbers, and
/// what the what-if config asks for that a report cannot show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub record: ScoreRecord,
    pub rescore: Rescore,
    pub notes: Vec<String>,
}

/// Re-scores a stored report as `agentrisk score` does.
pub fn score_record(report: Named<'_>, options: &ScoreOptions<'_>) -> Result<Scored, ApiError> {
    let loaded = load_report(report.bytes).map_err(|e| ApiError::new(report.name, &e.to_string()))?;
    let rescore = rescore_report_with_gate(&loaded, &options.scoring, options.gate);
    let (shown, notes) = match options.what_if {
        None => (loaded, Vec::new()),
        Some(named) => match report_what_if(&loaded, &named.config) {
            Ok(what_if) => (what_if.report, what_if.notes),
            Err(e) => {
                let mut error = ApiError::new(&named.name, &e.to_string());
                error.problem.push_str(&format!(" (for the report {})", report.name));
                return Err(error);
            }
        },
    };
    Ok(Scored { record: ScoreRecord::new(report.name, &shown, &rescore), rescore, notes })
}

/// A file of a batch, with the folder it counts under for `group_by: folder`.
#[derive(Debug, Clone, Copy)]
pub struct BatchInput<'a> {
    pub name: &'a str,
    pub folder: &'a str,
    pub bytes: &'a [u8],
}

/// How a batch is summarised.
pub struct BatchOptions<'a> {
    pub method: IntervalMethod,
    pub group_by: Option<GroupBy>,
    /// The config traces are analysed with.
    pub config: Option<&'a NamedConfig>,
    pub env: &'a dyn Fn(&str) -> Option<String>,
}

/// A batch summarised: the summary `batch --json` prints, and the files
/// that could not be read (left out of it, as the CLI skips them).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchOutcome {
    pub summary: BatchSummary,
    pub errors: Vec<ApiError>,
}

/// The batch summary of `files`, as `agentrisk batch --json` prints it.
pub fn batch_summary(files: &[BatchInput<'_>], options: &BatchOptions<'_>) -> BatchOutcome {
    let default_config;
    let config = match options.config {
        Some(named) => &named.config,
        None => {
            default_config = AnalysisConfig::default();
            &default_config
        }
    };
    let input = AnalysisInput { config, canaries: None, env: options.env, generated_at: String::new() };
    let mut runs: Vec<RunFacts> = Vec::new();
    let mut redteam: Vec<RunResult> = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match load_batch_file(file.name, file.folder, file.bytes, &input) {
            Ok(loaded) => {
                runs.extend(loaded.runs);
                redteam.extend(loaded.redteam);
            }
            Err(e) => errors.push(ApiError::new(file.name, &e.to_string())),
        }
    }
    BatchOutcome { summary: summarize(&runs, &redteam, options.method, options.group_by), errors }
}

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

    const TRACE: &[u8] = br#"{"run_id": "r1", "events": [
        {"event_id": "e1", "channel": "final_output", "content": "SSN 123-45-6789"}]}"#;
    const NO_ENV: &dyn Fn(&str) -> Option<String> = &|_| None;

    fn options(config: Option<&NamedConfig>) -> TraceOptions<'_> {
        TraceOptions { config, fail_under: None, canaries: None, env: NO_ENV, generated_at: "t0".to_owned() }
    }

    #[test]
    fn errors_name_file_place_and_problem_in_the_cli_words() {
        let bad = Named { name: "bad.json", bytes: b"{\"events\": [" };
        let error = trace_report(bad, &options(None)).expect_err("truncated JSON");
        assert_eq!((error.file.as_str(), error.place.as_str()), ("bad.json", "line 1, column 13"));
        assert!(error.problem.starts_with("invalid JSON"), "{error:?}");
        assert_eq!(error.to_string(), format!("bad.json: line 1, column 13: {}", error.problem));
        let whole = ApiError::new("r.json", "unsupported AgentLeak report version 3");
        assert_eq!(
            (whole.place.as_str(), whole.to_string().as_str()),
            ("", "r.json: unsupported AgentLeak report version 3")
        );
        let config = load_config(Named { name: "agentleak.yaml", bytes: b"scoring:\n  fail_below: [1]\n" });
        let error = config.expect_err("a list is no threshold");
        assert_eq!((error.file.as_str(), error.place.as_str()), ("agentleak.yaml", "scoring.fail_below"));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let error = trace_report(Named { name: "deep.json", bytes: deep.as_bytes() }, &options(None))
            .expect_err("100 000 levels");
        assert_eq!(error.file, "deep.json");
        assert!(error.problem.contains("nest"), "{error:?}");
        let yaml = "[".repeat(100_000);
        let error = load_config(Named { name: "deep.yaml", bytes: yaml.as_bytes() }).expect_err("deep YAML");
        // yaml-rust2 stops at its own recursion limit before our depth bound.
        assert_eq!(error.place, "line 1, column 256", "{error:?}");
        assert!(error.problem.contains("recursion limit"), "{error:?}");
    }

    #[test]
    fn a_trace_report_rescored_is_consistent_and_batches_count_it() {
        let report = trace_report(Named { name: "t.json", bytes: TRACE }, &options(None)).expect("analyses");
        assert_eq!((report.run_id.as_str(), report.generated_at.as_str()), ("r1", "t0"));
        let bytes = serde_json::to_vec(&report).expect("serialises");
        let scored = score_record(Named { name: "r.json", bytes: &bytes }, &ScoreOptions::from_gate_flags(None, None))
            .expect("re-scores");
        assert!(scored.record.consistent && scored.rescore.mismatches.is_empty(), "{scored:?}");
        assert_eq!(scored.record.privacy_score, report.privacy_score);
        let files = [
            BatchInput { name: "t.json", folder: ".", bytes: TRACE },
            BatchInput { name: "r.json", folder: ".", bytes: &bytes },
            BatchInput { name: "x.json", folder: ".", bytes: b"[" },
        ];
        let options = BatchOptions {
            method: interval_method(0.95, false).expect("valid"),
            group_by: Some(group_by_from_name("scenario").expect("known")),
            config: None,
            env: NO_ENV,
        };
        let outcome = batch_summary(&files, &options);
        assert_eq!(outcome.summary.runs, 2);
        assert_eq!(outcome.errors.len(), 1);
        assert_eq!(outcome.errors[0].file, "x.json");
    }

    #[test]
    fn wilson_and_options_and_timestamps() {
        let rate = wilson_rate(3, 10, &interval_method(0.95, false).expect("valid")).expect("k <= n");
        assert_eq!(rate.rate, Some(0.3));
        assert!((rate.lower.unwrap_or_default() - 0.107_791_267).abs() < 1e-9, "{rate:?}");
        assert_eq!(interval_method(1.5, false).expect_err("out of range").place, "confidence");
        assert_eq!(wilson_rate(4, 3, &IntervalMethod::default()).expect_err("k > n").place, "k");
        assert_eq!(group_by_from_name("scenario_family"), Ok(GroupBy::ScenarioFamily));
        assert_eq!(group_by_from_name("team").expect_err("unknown").place, "groupBy");
        assert_eq!(generated_at_from_unix(1_796_223_149, 778_071), "2026-12-02T14:52:29.778071+00:00");
        assert_eq!(generated_at_from_unix(0, 0), "1970-01-01T00:00:00+00:00");
    }
}
