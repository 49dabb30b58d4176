//! What changed between two batches of runs, BASE and NEW: the diff that
//! `agentrisk diff`, the viewer's Compare tab and the JavaScript package's
//! `diffBatches` show, and the regression gate (`--fail-on`) a CI job runs
//! on it. One call, [`diff`], makes all of it from the runs' facts; the
//! shells only read files and print. Over many batches: [`history`].
//!
//! # Matching runs
//!
//! A run of BASE and a run of NEW are the same run when they have the same
//! `run_id`; runs left over are matched by `scenario_id` (a re-run usually
//! gets a new run id but keeps its scenario). Within one id, runs pair in
//! input order (the first BASE run with that id with the first NEW run with
//! it, and so on); runs beyond the other side's count stay unmatched. Empty
//! ids match nothing. When each side holds exactly one run, the two are
//! compared whatever their ids (two runs picked by hand). Runs without a
//! match are listed as `only_in_base` and `only_in_new`.
//!
//! # Per matched run
//!
//! Both runs' headline numbers, the leaked secrets NEW has and BASE had not
//! (`new_leaks`) and the other way round (`resolved_leaks`), each secret
//! being its data type, level, channel and redacted value (so a secret that
//! moved to another channel is new there and resolved where it was), the
//! per-channel RI of every disclosure channel with risk in either run
//! (`channel_changes`, change = NEW − BASE), and whether the verdict and the
//! gate changed. A run from a scorecard written before scorecards kept
//! per-run secrets has unknown secrets: its `new_leaks` and
//! `resolved_leaks` are `null`, a note says so, and a `new-leak` rule
//! cannot be checked on it.
//!
//! # Rates
//!
//! For each rate of the batch summary — leak rate, block rate, the leak
//! rate on each disclosure channel and at each level (`crate::batch` defines
//! them) — both Wilson rates and the difference NEW − BASE with Newcombe's
//! hybrid score interval ([`RateDifference`], method 10; method 11 with the
//! continuity correction), treating the two batches as independent samples.
//!
//! # Paired runs
//!
//! Over the matched pairs, the leak rate seen pair by pair: pairs where
//! `both` runs leak, only the BASE run (`base_only`), only the NEW run
//! (`new_only`) or `neither`; the difference `(new_only − base_only) /
//! pairs`, and the exact McNemar p-value on the discordant pairs
//! ([`mcnemar_exact_p`]). `null` when no run matched.
//!
//! # Regressions and rules
//!
//! `regressions` lists, in words, everything that got worse: a matched run
//! with new leaks, a worse verdict, a gate that now blocks, a lower privacy
//! score; a rate whose difference interval lies above 0; paired leaks that
//! went up with a McNemar p below 1 − confidence. [`FailRule`]s (the
//! CLI's `--fail-on`) are checked on the diff and reported in `fail_on`;
//! [`Diff::gate`] says whether one fired, or could not be checked.

mod format;
pub mod history;
mod rules;

pub use rules::{FailRule, FailRuleError, GateOutcome, RuleOutcome};

use crate::batch::{summarize, BatchSummary, LeakedSecret, RunFacts};
use crate::model::{Channel, Level, LevelProfile, Verdict};
use crate::stats::{mcnemar_exact_p, IntervalMethod, Rate, RateDifference};
use crate::util::FxMap;
use serde::Serialize;

/// One side of a diff: its name as the user named it (a folder, a file) and its runs.
#[derive(Debug, Clone, Copy)]
pub struct Side<'a> {
    pub name: &'a str,
    pub runs: &'a [RunFacts],
}

/// BASE against NEW; see the module doc for every part. Serialises as the
/// CLI's `diff --format json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Diff {
    /// BASE as the user named it.
    pub base_name: String,
    /// NEW as the user named it.
    pub new_name: String,
    /// Runs in BASE.
    pub base_runs: u64,
    /// Runs in NEW.
    pub new_runs: u64,
    pub confidence: f64,
    pub continuity_correction: bool,
    /// Every matched pair, in BASE's order.
    pub runs: Vec<RunDiff>,
    /// Each rate of both batches and its difference.
    pub rates: Vec<RateChange>,
    /// The leak rate over the matched pairs; `null` when no run matched.
    pub paired: Option<PairedLeaks>,
    /// Everything that got worse, in words.
    pub regressions: Vec<String>,
    pub only_in_base: Vec<RunRef>,
    pub only_in_new: Vec<RunRef>,
    /// The rules asked for (`--fail-on`), each checked.
    pub fail_on: Vec<RuleOutcome>,
    /// What the reader should know about the inputs (duplicate ids, unknown secrets).
    pub notes: Vec<String>,
}

/// How a pair was matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MatchedBy {
    RunId,
    ScenarioId,
    /// Each side held one run: the two were compared whatever their ids.
    OnlyRuns,
}

/// Which way a value moved from BASE to NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Better,
    Worse,
    Same,
    /// The values cannot be ordered (a verdict that is none of the four).
    Unknown,
}

/// One run's headline numbers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunHeadline {
    pub file: String,
    pub run_id: String,
    pub scenario_id: Option<String>,
    pub risk_index: f64,
    pub privacy_score: i64,
    pub verdict: String,
    pub blocked: bool,
    pub leaked_secrets: u64,
    pub vault_secrets: u64,
    pub level_profile: LevelProfile,
}

impl RunHeadline {
    fn of(run: &RunFacts) -> RunHeadline {
        RunHeadline {
            file: run.file.clone(),
            run_id: run.run_id.clone(),
            scenario_id: run.scenario_id.clone(),
            risk_index: run.risk_index,
            privacy_score: run.privacy_score,
            verdict: run.verdict.clone(),
            blocked: run.blocked,
            leaked_secrets: run.leaked_secrets,
            vault_secrets: run.vault_secrets,
            level_profile: run.level_profile,
        }
    }
}

/// A run named in a list: its file and ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunRef {
    pub file: String,
    pub run_id: String,
    pub scenario_id: Option<String>,
}

impl RunRef {
    fn of(run: &RunFacts) -> RunRef {
        RunRef { file: run.file.clone(), run_id: run.run_id.clone(), scenario_id: run.scenario_id.clone() }
    }
}

/// The per-channel RI of both runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ChannelChange {
    pub channel: Channel,
    pub base: f64,
    pub new: f64,
    /// NEW − BASE.
    pub change: f64,
}

impl ChannelChange {
    /// Lower RI is better.
    pub fn direction(&self) -> Direction {
        match self.new.total_cmp(&self.base) {
            std::cmp::Ordering::Less => Direction::Better,
            std::cmp::Ordering::Greater => Direction::Worse,
            std::cmp::Ordering::Equal => Direction::Same,
        }
    }
}

/// A matched pair of runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunDiff {
    /// The id the runs share (the run id, else the scenario id); for two
    /// single runs with different ids, `BASE id → NEW id`.
    pub key: String,
    pub matched_by: MatchedBy,
    pub base: RunHeadline,
    pub new: RunHeadline,
    /// NEW − BASE.
    pub risk_index_change: f64,
    /// NEW − BASE.
    pub privacy_score_change: i64,
    /// Secrets NEW leaks that BASE did not (most severe first); `null` when
    /// either run's secrets are unknown.
    pub new_leaks: Option<Vec<LeakedSecret>>,
    /// Secrets BASE leaked that NEW does not (most severe first); `null`
    /// when either run's secrets are unknown.
    pub resolved_leaks: Option<Vec<LeakedSecret>>,
    /// Secrets both leak; `null` when either run's secrets are unknown.
    pub unchanged_leaks: Option<u64>,
    /// Every disclosure channel with RI above 0 in either run.
    pub channel_changes: Vec<ChannelChange>,
    pub verdict_changed: bool,
    pub verdict_change: Direction,
    pub gate_changed: bool,
}

/// One rate of both batches, and NEW − BASE with its interval.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RateChange {
    /// Where the rate is in `agentrisk batch --json`: `leak_rate`,
    /// `block_rate`, `channel_leak_rates.<channel>`, `level_leak_rates.<L1..L4>`.
    pub metric: String,
    /// In words, as the batch's rates table names it.
    pub label: String,
    pub base: Rate,
    pub new: Rate,
    /// NEW − BASE; `null` when either side has n = 0.
    pub difference: Option<f64>,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// The interval's method, e.g. "Newcombe hybrid score interval (method 10), 95%".
    pub method: String,
}

impl RateChange {
    /// The difference's interval lies wholly above 0 (NEW is higher).
    pub fn is_higher(&self) -> bool {
        self.lower.is_some_and(|l| l > 0.0)
    }

    /// The difference's interval lies wholly below 0 (NEW is lower).
    pub fn is_lower(&self) -> bool {
        self.upper.is_some_and(|u| u < 0.0)
    }
}

/// The leak rate over matched pairs of runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PairedLeaks {
    /// Always `leak_rate`: a run leaks when it has a leaked secret.
    pub metric: String,
    pub pairs: u64,
    pub both: u64,
    pub base_only: u64,
    pub new_only: u64,
    pub neither: u64,
    /// `(new_only − base_only) / pairs`.
    pub difference: f64,
    pub mcnemar_exact_p: f64,
    pub method: String,
}

/// The method of every rate difference at `method`'s confidence.
pub fn difference_method(method: &IntervalMethod) -> String {
    let variant = if method.continuity_correction() {
        "method 11, from continuity-corrected Wilson intervals"
    } else {
        "method 10"
    };
    format!("Newcombe hybrid score interval ({variant}), {}%", method.confidence_label())
}

/// The paired test's method, in words.
pub const PAIRED_METHOD: &str = "exact McNemar test (two-sided binomial on the discordant pairs)";

/// BASE against NEW at `method`, with `rules` checked (see the module doc).
pub fn diff(base: Side<'_>, new: Side<'_>, method: IntervalMethod, rules: &[FailRule]) -> Diff {
    let matching = match_runs(base.runs, new.runs);
    let runs: Vec<RunDiff> =
        matching.pairs.iter().map(|&(b, n, by)| run_diff(&base.runs[b], &new.runs[n], by)).collect();
    let rates = rate_changes(
        &summarize(base.runs, &[], method, None),
        &summarize(new.runs, &[], method, None),
        &difference_method(&method),
    );
    let paired = paired_leaks(&matching.pairs, base.runs, new.runs);
    let mut diff = Diff {
        base_name: base.name.to_owned(),
        new_name: new.name.to_owned(),
        base_runs: base.runs.len() as u64,
        new_runs: new.runs.len() as u64,
        confidence: method.confidence(),
        continuity_correction: method.continuity_correction(),
        runs,
        rates,
        paired,
        regressions: Vec::new(),
        only_in_base: matching.base_left.iter().map(|&i| RunRef::of(&base.runs[i])).collect(),
        only_in_new: matching.new_left.iter().map(|&i| RunRef::of(&new.runs[i])).collect(),
        fail_on: Vec::new(),
        notes: notes(base, new),
    };
    diff.regressions = regressions(&diff);
    diff.fail_on = rules.iter().map(|rule| rule.check(&diff)).collect();
    diff
}

/// The id a matching pass goes by.
type IdOf = fn(&RunFacts) -> Option<&str>;

/// Pairs of (BASE index, NEW index, how), and the indices left unmatched.
struct Matching {
    pairs: Vec<(usize, usize, MatchedBy)>,
    base_left: Vec<usize>,
    new_left: Vec<usize>,
}

fn match_runs(base: &[RunFacts], new: &[RunFacts]) -> Matching {
    if let ([one], [other]) = (base, new) {
        let by = if !one.run_id.is_empty() && one.run_id == other.run_id {
            MatchedBy::RunId
        } else if one.scenario_id.is_some() && one.scenario_id == other.scenario_id {
            MatchedBy::ScenarioId
        } else {
            MatchedBy::OnlyRuns
        };
        return Matching { pairs: vec![(0, 0, by)], base_left: Vec::new(), new_left: Vec::new() };
    }
    // For each BASE run, its NEW run and how they matched.
    let mut partner: Vec<Option<(usize, MatchedBy)>> = vec![None; base.len()];
    let mut new_matched = vec![false; new.len()];
    let passes: [(MatchedBy, IdOf); 2] =
        [(MatchedBy::RunId, |r| Some(r.run_id.as_str())), (MatchedBy::ScenarioId, |r| r.scenario_id.as_deref())];
    for (by, id_of) in passes {
        // The unmatched NEW runs of each id, in input order, and how many
        // of them are taken.
        let mut slot_of: FxMap<&str, usize> = FxMap::default();
        let mut waiting: Vec<(Vec<usize>, usize)> = Vec::new();
        for (i, run) in new.iter().enumerate().filter(|(i, _)| !new_matched[*i]) {
            if let Some(id) = id_of(run).filter(|id| !id.is_empty()) {
                let slot = *slot_of.entry(id).or_insert_with(|| {
                    waiting.push((Vec::new(), 0));
                    waiting.len() - 1
                });
                waiting[slot].0.push(i);
            }
        }
        for (b, run) in base.iter().enumerate() {
            if partner[b].is_some() {
                continue;
            }
            let Some(id) = id_of(run).filter(|id| !id.is_empty()) else { continue };
            let Some((runs, taken)) = slot_of.get(id).and_then(|&slot| waiting.get_mut(slot)) else { continue };
            if let Some(&n) = runs.get(*taken) {
                *taken += 1;
                new_matched[n] = true;
                partner[b] = Some((n, by));
            }
        }
    }
    let pairs = partner.iter().enumerate().filter_map(|(b, p)| p.map(|(n, by)| (b, n, by))).collect();
    let base_left = partner.iter().enumerate().filter(|(_, p)| p.is_none()).map(|(i, _)| i).collect();
    let new_left = new_matched.iter().enumerate().filter(|(_, m)| !**m).map(|(i, _)| i).collect();
    Matching { pairs, base_left, new_left }
}

/// A verdict's place from best to worst, if it is one of the four.
fn verdict_rank(verdict: &str) -> Option<usize> {
    Verdict::ALL.iter().position(|v| v.as_str() == verdict)
}

/// The secrets of `list` that `other` does not hold, most severe first
/// (then in their own order). Both lists are sorted when they come from
/// reports; a hand-edited scorecard's may not be, and is searched in full.
fn missing_from(list: &[LeakedSecret], other: &[LeakedSecret]) -> Vec<LeakedSecret> {
    let sorted = other.is_sorted();
    let holds = |s: &LeakedSecret| if sorted { other.binary_search(s).is_ok() } else { other.contains(s) };
    let missing: Vec<&LeakedSecret> = list.iter().filter(|s| !holds(s)).collect();
    Level::ALL
        .iter()
        .rev()
        .flat_map(|&level| missing.iter().filter(move |s| s.level == level).map(|s| (*s).clone()))
        .collect()
}

fn run_diff(base: &RunFacts, new: &RunFacts, matched_by: MatchedBy) -> RunDiff {
    let key = match matched_by {
        MatchedBy::RunId => base.run_id.clone(),
        MatchedBy::ScenarioId => base.scenario_id.clone().unwrap_or_default(),
        MatchedBy::OnlyRuns => format!("{} → {}", base.run_id, new.run_id),
    };
    let (new_leaks, resolved_leaks, unchanged_leaks) = match (&base.leaks, &new.leaks) {
        (Some(before), Some(after)) => {
            let new_leaks = missing_from(after, before);
            let unchanged = (after.len() - new_leaks.len()) as u64;
            (Some(new_leaks), Some(missing_from(before, after)), Some(unchanged))
        }
        _ => (None, None, None),
    };
    let channel_changes = Channel::ALL
        .into_iter()
        .filter(|c| c.is_disclosure())
        .map(|channel| {
            let (b, n) = (base.ri_on(channel), new.ri_on(channel));
            ChannelChange { channel, base: b, new: n, change: n - b }
        })
        .filter(|c| c.base > 0.0 || c.new > 0.0)
        .collect();
    let verdict_change = match (verdict_rank(&base.verdict), verdict_rank(&new.verdict)) {
        (Some(b), Some(n)) if n > b => Direction::Worse,
        (Some(b), Some(n)) if n < b => Direction::Better,
        (Some(_), Some(_)) => Direction::Same,
        _ if base.verdict == new.verdict => Direction::Same,
        _ => Direction::Unknown,
    };
    RunDiff {
        key,
        matched_by,
        base: RunHeadline::of(base),
        new: RunHeadline::of(new),
        risk_index_change: new.risk_index - base.risk_index,
        privacy_score_change: new.privacy_score.saturating_sub(base.privacy_score),
        new_leaks,
        resolved_leaks,
        unchanged_leaks,
        channel_changes,
        verdict_changed: base.verdict != new.verdict,
        verdict_change,
        gate_changed: base.blocked != new.blocked,
    }
}

/// The rates of the two summaries in the batch table's order: leak, block,
/// each disclosure channel, each level.
fn rate_changes(base: &BatchSummary, new: &BatchSummary, method: &str) -> Vec<RateChange> {
    let mut rows: Vec<(String, String, Rate, Rate)> = vec![
        ("leak_rate".into(), "Leak rate".into(), base.leak_rate, new.leak_rate),
        ("block_rate".into(), "Block rate".into(), base.block_rate, new.block_rate),
    ];
    for (b, n) in base.channel_leak_rates.iter().zip(&new.channel_leak_rates) {
        let channel = b.channel.as_str();
        rows.push((format!("channel_leak_rates.{channel}"), format!("Leak rate on {channel}"), b.rate, n.rate));
    }
    for (b, n) in base.level_leak_rates.iter().zip(&new.level_leak_rates) {
        let (label, badge) = (b.level.label(), b.level.badge());
        rows.push((format!("level_leak_rates.{label}"), format!("Leak rate at {label} ({badge})"), b.rate, n.rate));
    }
    rows.into_iter()
        .map(|(metric, label, base, new)| {
            let d = RateDifference::between(&base, &new);
            RateChange {
                metric,
                label,
                base,
                new,
                difference: d.difference,
                lower: d.lower,
                upper: d.upper,
                method: method.to_owned(),
            }
        })
        .collect()
}

fn paired_leaks(pairs: &[(usize, usize, MatchedBy)], base: &[RunFacts], new: &[RunFacts]) -> Option<PairedLeaks> {
    if pairs.is_empty() {
        return None;
    }
    let (mut both, mut base_only, mut new_only, mut neither) = (0u64, 0u64, 0u64, 0u64);
    for &(b, n, _) in pairs {
        match (base[b].leaked_secrets > 0, new[n].leaked_secrets > 0) {
            (true, true) => both += 1,
            (true, false) => base_only += 1,
            (false, true) => new_only += 1,
            (false, false) => neither += 1,
        }
    }
    let count = pairs.len() as u64;
    Some(PairedLeaks {
        metric: "leak_rate".to_owned(),
        pairs: count,
        both,
        base_only,
        new_only,
        neither,
        difference: (new_only as f64 - base_only as f64) / count as f64,
        mcnemar_exact_p: mcnemar_exact_p(base_only, new_only),
        method: PAIRED_METHOD.to_owned(),
    })
}

/// What the reader should know about each side's runs.
fn notes(base: Side<'_>, new: Side<'_>) -> Vec<String> {
    let mut notes = Vec::new();
    for (label, side) in [("BASE", base), ("NEW", new)] {
        let unknown = side.runs.iter().filter(|r| r.leaks.is_none()).count();
        if unknown > 0 {
            notes.push(format!(
                "{label} ({}): {unknown} of {} runs come from a scorecard written without per-run secrets, so their \
                 new and resolved leaks are unknown (null); write the scorecard again with this agentrisk to have them",
                side.name,
                side.runs.len()
            ));
        }
        let mut seen: FxMap<&str, usize> = FxMap::default();
        let mut repeated: Vec<&str> = Vec::new();
        for id in side.runs.iter().map(|r| r.run_id.as_str()).filter(|id| !id.is_empty()) {
            let count = seen.entry(id).or_insert(0);
            *count += 1;
            if *count == 2 {
                repeated.push(id);
            }
        }
        if !repeated.is_empty() && side.runs.len() > 1 {
            let shown: Vec<&str> = repeated.iter().take(5).copied().collect();
            notes.push(format!(
                "{label} ({}): {} run id(s) occur more than once ({}{}); runs with the same id pair in input order",
                side.name,
                repeated.len(),
                shown.join(", "),
                if repeated.len() > shown.len() { ", …" } else { "" }
            ));
        }
    }
    notes
}

/// A share as signed percentage points with one decimal: `+12.5 pts`.
pub(crate) fn points(share: f64) -> String {
    let value = share * 100.0;
    // No "-0.0": a difference that rounds to nothing reads as 0.
    if value.abs() < 0.05 {
        "0.0 pts".to_owned()
    } else {
        format!("{}{:.1} pts", if value > 0.0 { "+" } else { "−" }, value.abs())
    }
}

/// A secret in words: `ssn (L3) on final_output as 12*****89`.
pub(crate) fn secret_words(s: &LeakedSecret) -> String {
    format!("{} ({}) on {} as {}", s.data_type, s.level.label(), s.channel.as_str(), s.redacted_value)
}

fn regressions(diff: &Diff) -> Vec<String> {
    let mut out = Vec::new();
    for run in &diff.runs {
        if let Some(leaks) = run.new_leaks.as_ref().filter(|l| !l.is_empty()) {
            let listed: Vec<String> = leaks.iter().map(secret_words).collect();
            out.push(format!(
                "{}: leaks {} secret{} it did not: {}",
                run.key,
                leaks.len(),
                if leaks.len() == 1 { "" } else { "s" },
                listed.join("; ")
            ));
        }
        if run.verdict_change == Direction::Worse {
            out.push(format!("{}: verdict {} → {}", run.key, run.base.verdict, run.new.verdict));
        }
        if run.new.blocked && !run.base.blocked {
            out.push(format!("{}: the gate now blocks it", run.key));
        }
        if run.privacy_score_change < 0 {
            out.push(format!(
                "{}: privacy score {} → {} ({})",
                run.key,
                run.base.privacy_score,
                run.new.privacy_score,
                signed(run.privacy_score_change)
            ));
        }
    }
    for rate in diff.rates.iter().filter(|r| r.is_higher()) {
        out.push(format!(
            "{}: {} → {} ({}, {} interval {} to {}: above 0)",
            rate.label,
            crate::batch::table::percent(rate.base.rate),
            crate::batch::table::percent(rate.new.rate),
            points(rate.difference.unwrap_or(0.0)),
            rate.method,
            points(rate.lower.unwrap_or(0.0)).trim_end_matches(" pts"),
            points(rate.upper.unwrap_or(0.0)),
        ));
    }
    if let Some(p) = &diff.paired {
        if p.new_only > p.base_only && p.mcnemar_exact_p < 1.0 - diff.confidence {
            out.push(format!(
                "Paired leak rate: {} of {} matched runs leak only in NEW, {} only in BASE (exact McNemar p = {})",
                p.new_only,
                p.pairs,
                p.base_only,
                p_value(p.mcnemar_exact_p)
            ));
        }
    }
    out
}

/// A whole number with its sign: `+3`, `−12`, `0`.
pub(crate) fn signed(value: i64) -> String {
    match value.cmp(&0) {
        std::cmp::Ordering::Greater => format!("+{value}"),
        std::cmp::Ordering::Less => format!("−{}", value.unsigned_abs()),
        std::cmp::Ordering::Equal => "0".to_owned(),
    }
}

/// A p-value with four significant decimals, or `< 0.0001`.
pub fn p_value(p: f64) -> String {
    if p < 0.0001 {
        "< 0.0001".to_owned()
    } else {
        format!("{p:.4}")
    }
}

#[cfg(test)]
mod tests;
