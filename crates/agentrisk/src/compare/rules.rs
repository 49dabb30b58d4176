//! The regression gate: rules a CI job names (`--fail-on`), each checked on
//! a [`Diff`], and the outcome a shell turns into its exit status.
//!
//! | rule | fires when |
//! |---|---|
//! | `new-leak[:L1..L4]` | a matched run leaks a secret (data type, level, channel, redacted value) its BASE run did not, at that level or above (default L1) |
//! | `verdict` | a matched run's verdict got worse (Pass → Conditional pass → High risk → Fail) |
//! | `score-drop:N` | a matched run's privacy score fell by more than N points (`score-drop:0`: any fall) |
//! | `leak-rate` | the leak rate's difference interval (NEW − BASE, Newcombe) lies wholly above 0 |
//!
//! A rule that cannot be checked says why (`unchecked`): `new-leak` on a
//! run whose secrets are unknown, `verdict` on a verdict that is none of the
//! four, the run rules when no run matched, `leak-rate` when a side has no
//! runs. The gate is then [`GateOutcome::Unchecked`] unless a rule fired.

use super::{secret_words, signed, Diff, Direction};
use crate::model::Level;
use serde::Serialize;
use std::fmt;

/// One `--fail-on` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailRule {
    /// A matched run leaks a new secret at this level or above.
    NewLeak(Level),
    /// A matched run's verdict got worse.
    Verdict,
    /// A matched run's privacy score fell by more than this many points.
    ScoreDrop(u32),
    /// The leak rate's difference interval lies above 0.
    LeakRate,
}

/// A rule that cannot be read; `Display` says what the rules are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}; the rules are new-leak[:L1..L4], verdict, score-drop:N and leak-rate")]
pub struct FailRuleError {
    pub problem: String,
}

impl FailRule {
    /// A rule as written: `new-leak`, `new-leak:L3` (or `:3`), `verdict`,
    /// `score-drop:10`, `leak-rate`.
    pub fn from_text(text: &str) -> Result<FailRule, FailRuleError> {
        let (name, argument) = match text.trim().split_once(':') {
            Some((name, argument)) => (name, Some(argument.trim())),
            None => (text.trim(), None),
        };
        let problem = |problem: String| FailRuleError { problem };
        match (name, argument) {
            ("new-leak", None) => Ok(FailRule::NewLeak(Level::L1)),
            ("new-leak", Some(level)) => {
                let digit = level.strip_prefix(['L', 'l']).unwrap_or(level);
                match digit.parse::<i64>().ok().and_then(|n| Level::try_from(n).ok()) {
                    Some(level) => Ok(FailRule::NewLeak(level)),
                    None => Err(problem(format!("new-leak:{level}: the level must be L1, L2, L3 or L4"))),
                }
            }
            ("verdict", None) => Ok(FailRule::Verdict),
            ("score-drop", Some(points)) => match points.parse::<u32>() {
                Ok(n) if n <= 100 => Ok(FailRule::ScoreDrop(n)),
                _ => Err(problem(format!("score-drop:{points}: N must be a whole number of points from 0 to 100"))),
            },
            ("score-drop", None) => Err(problem("score-drop needs its number of points, e.g. score-drop:10".into())),
            ("leak-rate", None) => Ok(FailRule::LeakRate),
            ("verdict" | "leak-rate", Some(_)) => Err(problem(format!("{name} takes no argument, found {text:?}"))),
            _ => Err(problem(format!("unknown rule {text:?}"))),
        }
    }

    /// Whether the rule fired on `diff`, and why; what could not be checked.
    pub(super) fn check(self, diff: &Diff) -> RuleOutcome {
        let mut reasons = Vec::new();
        let mut unchecked = Vec::new();
        let run_rule = !matches!(self, FailRule::LeakRate);
        if run_rule && diff.runs.is_empty() {
            unchecked.push("no run of NEW matches a run of BASE (by run id or scenario id)".to_owned());
        }
        match self {
            FailRule::NewLeak(level) => {
                for run in &diff.runs {
                    match &run.new_leaks {
                        Some(leaks) => reasons.extend(
                            leaks
                                .iter()
                                .filter(|s| s.level >= level)
                                .map(|s| format!("{}: {}", run.key, secret_words(s))),
                        ),
                        None => unchecked.push(format!("{}: its leaked secrets are unknown", run.key)),
                    }
                }
            }
            FailRule::Verdict => {
                for run in &diff.runs {
                    match run.verdict_change {
                        Direction::Worse => {
                            reasons.push(format!("{}: {} → {}", run.key, run.base.verdict, run.new.verdict))
                        }
                        Direction::Unknown => unchecked.push(format!(
                            "{}: verdicts {:?} → {:?} cannot be ordered",
                            run.key, run.base.verdict, run.new.verdict
                        )),
                        Direction::Better | Direction::Same => {}
                    }
                }
            }
            FailRule::ScoreDrop(limit) => {
                for run in diff.runs.iter().filter(|r| r.privacy_score_change < -i64::from(limit)) {
                    reasons.push(format!(
                        "{}: {} → {} ({})",
                        run.key,
                        run.base.privacy_score,
                        run.new.privacy_score,
                        signed(run.privacy_score_change)
                    ));
                }
            }
            FailRule::LeakRate => match diff.rates.iter().find(|r| r.metric == "leak_rate") {
                Some(rate) if rate.difference.is_none() => {
                    unchecked.push("a side has no runs, so the leak rates cannot be compared".to_owned())
                }
                Some(rate) if rate.is_higher() => reasons.push(format!(
                    "leak rate {} of {} → {} of {}: {} ({} to {})",
                    rate.base.k,
                    rate.base.n,
                    rate.new.k,
                    rate.new.n,
                    super::points(rate.difference.unwrap_or(0.0)),
                    super::points(rate.lower.unwrap_or(0.0)),
                    super::points(rate.upper.unwrap_or(0.0)),
                )),
                _ => {}
            },
        }
        RuleOutcome { rule: self.to_string(), fired: !reasons.is_empty(), reasons, unchecked }
    }
}

impl fmt::Display for FailRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailRule::NewLeak(level) => write!(f, "new-leak:{}", level.label()),
            FailRule::Verdict => f.write_str("verdict"),
            FailRule::ScoreDrop(n) => write!(f, "score-drop:{n}"),
            FailRule::LeakRate => f.write_str("leak-rate"),
        }
    }
}

/// One rule checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RuleOutcome {
    /// The rule as written back: `new-leak:L3`, `verdict`, `score-drop:10`, `leak-rate`.
    pub rule: String,
    pub fired: bool,
    /// What made it fire, one line each.
    pub reasons: Vec<String>,
    /// What it could not check, one line each.
    pub unchecked: Vec<String>,
}

/// The gate over every rule checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOutcome {
    /// No rule fired and every rule was checked (exit 0).
    Clear,
    /// A rule fired (exit 1).
    Fired,
    /// No rule fired, but a rule could not be checked (exit 2: the inputs
    /// cannot answer it).
    Unchecked,
}

impl Diff {
    /// Whether a rule fired, none did, or one could not be checked.
    pub fn gate(&self) -> GateOutcome {
        if self.fail_on.iter().any(|r| r.fired) {
            GateOutcome::Fired
        } else if self.fail_on.iter().any(|r| !r.unchecked.is_empty()) {
            GateOutcome::Unchecked
        } else {
            GateOutcome::Clear
        }
    }
}
