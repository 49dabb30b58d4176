//! The batch summary: rates and statistics over many analysed runs, each
//! rate as k out of n with its Wilson interval (`stats`), optionally per
//! group, plus the red-team metrics of spec 5.2 ([`summarize_redteam`]).
//!
//! This module owns which runs count as successes and trials. Each run is
//! reduced once to its key numbers, a [`RunFacts`] (from a report built
//! here from a trace, or loaded from a file, or a scorecard row); the
//! summary works on those. [`detect_kind`] tells the kinds of input apart
//! (the analyser reads each, `crate::analyser::Analyser::read_batch_file`); the interval arithmetic lives in `stats`. No I/O happens here.
//!
//! # Definitions
//!
//! Over the runs of the batch (or of one group):
//!
//! * **Leak rate**: k = runs whose report has at least one leaked secret
//!   (`summary.leaked_secrets > 0`, the report's own count of distinct
//!   leaked secrets); n = all runs.
//! * **Block rate**: k = runs whose report has `blocked`; n = all runs.
//! * **Verdicts**: for each verdict of [`Verdict::ALL`], the number of runs
//!   whose report's `verdict` is that verdict's string, and its share
//!   (a rate over all runs). A report with any other verdict string counts
//!   in none of them, so the counts can sum to less than `runs`.
//! * **Per-channel leak rate**, for each disclosure channel c (every
//!   channel of [`Channel::ALL`] but the baseline `user_input` and
//!   `tool_response`, on which nothing counts as leaked), in enum order:
//!   k = runs with at least one leaked secret (a report finding) on c;
//!   n = runs with at least one
//!   event on c. A run from a trace counts in n when its event channels
//!   include c, or when it has a finding on c (a finding implies an event,
//!   and this keeps k ≤ n for inconsistent input). A run loaded from a
//!   report has no events to look at, so it always counts in n, and then the
//!   entry's `n_from_reports` is true.
//! * **Per-level leak rate**, L1..L4: k = runs with at least one finding of
//!   that level on a disclosure channel; n = all runs.
//! * **risk_index** and **privacy_score**: mean, median (the mean of the two
//!   middle values for an even count), min and max of the reports' stored
//!   values; all null with no runs.
//! * **As reviewed** (`reviewed`, present when any run has reviewed numbers,
//!   [`RunFacts::reviewed`], from a review file): the leak rate (runs with a
//!   leaked secret once false positives are out) and the block rate (runs
//!   the gate blocks once accepted risks are left out of it), over all
//!   runs, each run counted with its reviewed numbers where it has them
//!   and its detected ones otherwise; how many runs have reviewed numbers;
//!   their sign-off statuses; and how many of their secret groups have a
//!   decision. The rates above stay the detected ones.
//!
//! # Reading
//!
//! [`summarize`] counts each run with its detected numbers (the
//! reference's): [`Reading::AsDetected`]. [`summarize_as`] with
//! [`Reading::AsReviewed`] counts each run with [`RunFacts::as_reviewed`]
//! instead: the leak rate, block rate, verdicts, Risk Index and privacy
//! score use a reviewed run's reviewed numbers (a run without them counts
//! as detected); the per-channel and per-level leak rates and the red-team
//! metrics stay as detected, since reviewed numbers do not say on which
//! channel or at which level a false positive's count sat. The summary
//! remembers its reading ([`BatchSummary::reading`]), and the rate rows of
//! [`table::rate_rows`] say which reading each row is.
//!
//! Rates with n = 0 have a null rate and interval. The result does not
//! depend on the order of the runs.
//!
//! # Groups
//!
//! With a [`GroupBy`], the same summary (without red-team metrics) is made
//! for each group of runs, keyed by the agent name, the scenario family
//! ([`scenario_family`]) or the folder; a missing or empty key is
//! [`NO_GROUP_KEY`]. Groups are listed by key in byte order.
//!
//! # JSON
//!
//! [`BatchSummary`] serialises with its fields in this order: `runs`,
//! `confidence`, `continuity_correction`, `leak_rate`, `block_rate`,
//! `verdicts` (verdict string → `{count, share}`, in `Verdict::ALL` order),
//! `channel_leak_rates` (channel name → rate fields plus `n_from_reports`,
//! in `Channel::ALL` order), `level_leak_rates` (`"L1"`..`"L4"` → rate),
//! `risk_index`, `privacy_score`, `reviewed` (left out when no run is
//! reviewed), then `redteam` (left out when there are no red-team results)
//! and `groups` (left out when not grouped).

mod facts;
mod input;
mod redteam;
mod scorecard;
pub mod table;

pub use facts::{LeakedSecret, MetadataError, RunFacts, RunSource};
pub use input::{detect_kind, folder_of, BatchFile, BatchFileError, FileKind};
pub(crate) use input::{facts_of_loaded, facts_of_trace, load_batch_file, SecretsOf};
pub use redteam::{
    parse_redteam_results, summarize_redteam, AttackRate, ChannelLeakage, Place, RedTeamError, RedTeamSummary, RunElr,
    RunResult,
};
pub use scorecard::{
    read_scorecard, Scorecard, ScorecardError, ScorecardRows, ScorecardSettings, SCORECARD_FORMAT, SCORECARD_VERSION,
};

use crate::model::{Channel, Level, LevelProfile, Verdict};
use crate::review::SignOffStatus;
use crate::stats::{IntervalMethod, Rate, ValueStats};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;

/// The group key of a run that has no agent name, scenario id or folder.
pub const NO_GROUP_KEY: &str = "(none)";

/// How runs are grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    /// The report's `agent_name`.
    Agent,
    /// [`scenario_family`] of the report's `scenario_id`.
    ScenarioFamily,
    /// [`RunFacts::folder`].
    Folder,
}

impl GroupBy {
    pub const ALL: [GroupBy; 3] = [GroupBy::Agent, GroupBy::ScenarioFamily, GroupBy::Folder];

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Agent => "agent",
            GroupBy::ScenarioFamily => "scenario_family",
            GroupBy::Folder => "folder",
        }
    }

    pub fn from_name(name: &str) -> Option<GroupBy> {
        GroupBy::ALL.into_iter().find(|g| g.as_str() == name)
    }
}

/// The scenario family of a scenario id: the id up to (not including) its
/// first `_` or its first ASCII digit, whichever comes first —
/// `"healthcare_001"` → `"healthcare"`, `"hr12"` → `"hr"`, `"ex_x"` → `"ex"`.
/// An id that starts with `_` or a digit is its own family (`"007"` →
/// `"007"`); no id, or an empty one, is [`NO_GROUP_KEY`].
pub fn scenario_family(scenario_id: Option<&str>) -> String {
    let id = match scenario_id {
        Some(id) if !id.is_empty() => id,
        _ => return NO_GROUP_KEY.to_owned(),
    };
    let end = id.find(|c: char| c == '_' || c.is_ascii_digit()).unwrap_or(id.len());
    match id.get(..end) {
        Some(prefix) if !prefix.is_empty() => prefix.to_owned(),
        _ => id.to_owned(),
    }
}

/// The key of `run`'s group under `by`.
pub fn group_key(run: &RunFacts, by: GroupBy) -> String {
    let key = match by {
        GroupBy::Agent => run.agent_name.clone(),
        GroupBy::ScenarioFamily => return scenario_family(run.scenario_id.as_deref()),
        GroupBy::Folder => run.folder.clone(),
    };
    if key.is_empty() {
        NO_GROUP_KEY.to_owned()
    } else {
        key
    }
}

/// The summary of a batch (or of one group of it). See the module doc for
/// every definition and for the JSON shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct BatchSummary {
    pub runs: u64,
    pub confidence: f64,
    pub continuity_correction: bool,
    pub leak_rate: Rate,
    pub block_rate: Rate,
    #[cfg_attr(feature = "typescript", ts(as = "BTreeMap<Verdict, VerdictShare>"))]
    #[serde(serialize_with = "keyed_map")]
    pub verdicts: Vec<VerdictShare>,
    #[cfg_attr(feature = "typescript", ts(as = "BTreeMap<Channel, ChannelLeakRate>"))]
    #[serde(serialize_with = "keyed_map")]
    pub channel_leak_rates: Vec<ChannelLeakRate>,
    // Keyed by `Level::label`s, which no Rust type spells.
    #[cfg_attr(feature = "typescript", ts(type = "{ L1: Rate, L2: Rate, L3: Rate, L4: Rate }"))]
    #[serde(serialize_with = "keyed_map")]
    pub level_leak_rates: Vec<LevelLeakRate>,
    pub risk_index: ValueStats,
    pub privacy_score: ValueStats,
    /// The rates as reviewed, when any run has reviewed numbers.
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<ReviewedRates>,
    #[cfg_attr(feature = "typescript", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redteam: Option<RedTeamSummary>,
    #[cfg_attr(feature = "typescript", ts(as = "Option<_>", optional))]
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<String, BatchSummary>,
    /// Which numbers its runs were counted with (not written: a scorecard's
    /// summary is always as detected, with its `reviewed` rates beside).
    #[cfg_attr(feature = "typescript", ts(skip))]
    #[serde(skip)]
    pub reading: Reading,
}

/// Which numbers a batch summary counts each run with (see "Reading" in the
/// module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reading {
    /// The detected numbers: the reports' own, the reference's.
    #[default]
    AsDetected,
    /// A reviewed run's reviewed numbers, the others' detected ones.
    AsReviewed,
}

impl Reading {
    /// "as detected" or "as reviewed": what labels say.
    pub fn label(self) -> &'static str {
        match self {
            Reading::AsDetected => "as detected",
            Reading::AsReviewed => "as reviewed",
        }
    }
}

/// A batch's rates as reviewed (see "As reviewed" in the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReviewedRates {
    /// Runs with reviewed numbers (the others count with their detected ones).
    pub runs_reviewed: u64,
    /// Runs with a leaked secret once false positives are out, of all runs.
    pub leak_rate: Rate,
    /// Runs the gate blocks once accepted risks are left out of it, of all runs.
    pub block_rate: Rate,
    /// Reviewed runs by sign-off status, and with none.
    pub approved: u64,
    pub changes_needed: u64,
    pub in_review: u64,
    pub not_signed_off: u64,
    /// Secret groups (review entries) of the reviewed runs with a decision
    /// on every channel, of all of them.
    pub decided: u64,
    pub secret_groups: u64,
}

impl ReviewedRates {
    /// Review progress in words, of a batch of `runs` runs: "2 of 10 runs
    /// under review: 1 approved, 0 changes needed, 1 in review, 0 not
    /// signed off; 3 of 5 leaked secrets decided".
    pub fn progress(&self, runs: u64) -> String {
        format!(
            "{} of {runs} runs under review: {} approved, {} changes needed, {} in review, {} not signed off; \
             {} of {} leaked secrets decided",
            self.runs_reviewed,
            self.approved,
            self.changes_needed,
            self.in_review,
            self.not_signed_off,
            self.decided,
            self.secret_groups
        )
    }
}

/// How many runs got a verdict, and their share of all runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct VerdictShare {
    /// The JSON key.
    #[serde(skip)]
    pub verdict: Verdict,
    pub count: u64,
    pub share: Rate,
}

/// The leak rate on one disclosure channel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ChannelLeakRate {
    /// The JSON key.
    #[serde(skip)]
    pub channel: Channel,
    #[serde(flatten)]
    pub rate: Rate,
    /// True when runs loaded from reports (whose events are unknown) were
    /// counted in n.
    pub n_from_reports: bool,
}

/// The share of runs with a finding of one level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LevelLeakRate {
    /// The JSON key.
    #[serde(skip)]
    pub level: Level,
    #[serde(flatten)]
    pub rate: Rate,
}

/// Summarises `runs` with intervals at `method`, and each group of runs
/// when `group_by` is given. The red-team metrics cover the runs' own
/// red-team records (in run order) followed by `redteam`, the records read
/// from red-team result files.
pub fn summarize(
    runs: &[RunFacts],
    redteam: &[RunResult],
    method: IntervalMethod,
    group_by: Option<GroupBy>,
) -> BatchSummary {
    let all: Vec<&RunFacts> = runs.iter().collect();
    let mut summary = summarize_runs(&all, &method);
    let records: Vec<RunResult> =
        runs.iter().filter_map(|r| r.redteam.clone()).chain(redteam.iter().cloned()).collect();
    if !records.is_empty() {
        summary.redteam = Some(summarize_redteam(&records, &method));
    }
    if let Some(by) = group_by {
        let mut members: BTreeMap<String, Vec<&RunFacts>> = BTreeMap::new();
        for run in runs {
            members.entry(group_key(run, by)).or_default().push(run);
        }
        summary.groups =
            crate::util::btree_map(members.into_iter().map(|(key, runs)| (key, summarize_runs(&runs, &method))));
    }
    summary
}

/// [`summarize`] with each run counted as `reading` says: as detected (the
/// same as `summarize`), or as reviewed ([`RunFacts::as_reviewed`]).
pub fn summarize_as(
    runs: &[RunFacts],
    redteam: &[RunResult],
    method: IntervalMethod,
    group_by: Option<GroupBy>,
    reading: Reading,
) -> BatchSummary {
    if reading == Reading::AsDetected {
        return summarize(runs, redteam, method, group_by);
    }
    let reviewed: Vec<RunFacts> = runs.iter().map(RunFacts::as_reviewed).collect();
    let mut summary = summarize(&reviewed, redteam, method, group_by);
    summary.reading = reading;
    for group in summary.groups.values_mut() {
        group.reading = reading;
    }
    summary
}

/// k out of n, counted one trial at a time, so that k ≤ n always holds.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Tally {
    k: u64,
    n: u64,
}

impl Tally {
    pub(crate) fn count(&mut self, success: bool) {
        self.n += 1;
        if success {
            self.k += 1;
        }
    }

    pub(crate) fn successes(self) -> u64 {
        self.k
    }

    pub(crate) fn trials(self) -> u64 {
        self.n
    }

    /// k / n, or 0 with no trials (for ordering only).
    pub(crate) fn share(self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.k as f64 / self.n as f64
        }
    }

    pub(crate) fn rate(self, method: &IntervalMethod) -> Rate {
        method.rate_of_counts(self.k, self.n)
    }
}

fn summarize_runs(runs: &[&RunFacts], method: &IntervalMethod) -> BatchSummary {
    let mut leaked = Tally::default();
    let mut blocked = Tally::default();
    let mut verdicts = Verdict::ALL.map(|verdict| (verdict, Tally::default()));
    let mut channels: Vec<(Channel, Tally, bool)> =
        Channel::ALL.into_iter().filter(|c| c.is_disclosure()).map(|c| (c, Tally::default(), false)).collect();
    let mut levels = Level::ALL.map(|level| (level, Tally::default()));

    for run in runs {
        leaked.count(run.leaked_secrets > 0);
        blocked.count(run.blocked);
        for (verdict, tally) in &mut verdicts {
            tally.count(run.verdict == verdict.as_str());
        }
        for (channel, tally, from_reports) in &mut channels {
            let has_finding = run.leaked_on(*channel);
            let counted = match &run.event_channels {
                Some(events) => has_finding || events.contains(channel),
                None => {
                    *from_reports = true;
                    true
                }
            };
            if counted {
                tally.count(has_finding);
            }
        }
        for (level, tally) in &mut levels {
            tally.count(run.leaked_level(*level));
        }
    }

    let reviewed = runs.iter().any(|r| r.reviewed.is_some()).then(|| reviewed_rates(runs, method));
    BatchSummary {
        runs: runs.len() as u64,
        confidence: method.confidence(),
        continuity_correction: method.continuity_correction(),
        leak_rate: leaked.rate(method),
        block_rate: blocked.rate(method),
        verdicts: verdicts
            .into_iter()
            .map(|(verdict, tally)| VerdictShare { verdict, count: tally.successes(), share: tally.rate(method) })
            .collect(),
        channel_leak_rates: channels
            .into_iter()
            .map(|(channel, tally, n_from_reports)| ChannelLeakRate {
                channel,
                rate: tally.rate(method),
                n_from_reports,
            })
            .collect(),
        level_leak_rates: levels
            .into_iter()
            .map(|(level, tally)| LevelLeakRate { level, rate: tally.rate(method) })
            .collect(),
        risk_index: ValueStats::from_values(runs.iter().map(|r| r.risk_index)),
        privacy_score: ValueStats::from_values(runs.iter().map(|r| r.privacy_score as f64)),
        reviewed,
        redteam: None,
        groups: BTreeMap::new(),
        reading: Reading::AsDetected,
    }
}

fn reviewed_rates(runs: &[&RunFacts], method: &IntervalMethod) -> ReviewedRates {
    let (mut leaked, mut blocked) = (Tally::default(), Tally::default());
    let mut rates = ReviewedRates {
        runs_reviewed: 0,
        leak_rate: leaked.rate(method),
        block_rate: blocked.rate(method),
        approved: 0,
        changes_needed: 0,
        in_review: 0,
        not_signed_off: 0,
        decided: 0,
        secret_groups: 0,
    };
    for run in runs {
        let Some(r) = &run.reviewed else {
            leaked.count(run.leaked_secrets > 0);
            blocked.count(run.blocked);
            continue;
        };
        leaked.count(r.leaked_secrets > 0);
        blocked.count(r.blocked);
        rates.runs_reviewed += 1;
        *match r.status {
            Some(SignOffStatus::Approved) => &mut rates.approved,
            Some(SignOffStatus::ChangesNeeded) => &mut rates.changes_needed,
            Some(SignOffStatus::InReview) => &mut rates.in_review,
            None => &mut rates.not_signed_off,
        } += 1;
        rates.decided = rates.decided.saturating_add(r.decided);
        rates.secret_groups = rates.secret_groups.saturating_add(r.secret_groups);
    }
    rates.leak_rate = leaked.rate(method);
    rates.block_rate = blocked.rate(method);
    rates
}

/// Distinct leaked secrets per disclosure channel and level, summed over
/// `runs` (the channel × level heatmap), in [`Channel::ALL`] order.
pub fn channel_level_leaks(runs: &[RunFacts]) -> Vec<(Channel, LevelProfile)> {
    Channel::ALL
        .into_iter()
        .filter(|c| c.is_disclosure())
        .map(|channel| {
            let mut counts = [0u64; 4];
            for profile in runs.iter().filter_map(|r| r.channel_leaks.get(&channel)) {
                for (total, n) in counts.iter_mut().zip(profile.counts()) {
                    // Scorecard rows can hold any count (found with the fuzz target `batch_file`).
                    *total = total.saturating_add(n);
                }
            }
            (channel, LevelProfile::from_counts(counts))
        })
        .collect()
}

/// An entry that serialises as one member of a JSON object.
pub(crate) trait Keyed {
    fn key(&self) -> &'static str;
}

impl Keyed for VerdictShare {
    fn key(&self) -> &'static str {
        self.verdict.as_str()
    }
}

impl Keyed for ChannelLeakRate {
    fn key(&self) -> &'static str {
        self.channel.as_str()
    }
}

impl Keyed for LevelLeakRate {
    fn key(&self) -> &'static str {
        self.level.label()
    }
}

/// Entries as a JSON object in their own order (a `BTreeMap` would sort
/// them alphabetically, and serde_json's map sorts too).
pub(crate) fn keyed_map<S: Serializer, T: Keyed + Serialize>(entries: &[T], serializer: S) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(entries.len()))?;
    for entry in entries {
        map.serialize_entry(entry.key(), entry)?;
    }
    map.end()
}

#[cfg(test)]
mod tests;
