//! A review's effect on a run: the run's leaked secrets grouped as a
//! review names them ([`RunSecrets`]), and the reviewed numbers
//! ([`RunReview`]) computed from the report's own scoring inputs with the
//! rules of `score` (the ones `report::rescore_report` checks a report
//! with): WSL from the leaked level profile, ρ_S from the vault's, RI, the
//! privacy score, the verdict and the gate.

use super::{ChannelScope, Date, Decision, DecisionKind, Review, SignOff, SignOffStatus};
use crate::model::{Channel, Level, LevelProfile, Report, Verdict};
use crate::score::{
    gate_change_explaining, gate_with_accepted_risks, privacy_score_from_ri, rho_s_of_vault, ri_from, BlockReason,
    FailBelowRange, ScoringConfig, Weights, MAX_WEIGHTED_SUM, SCOPE_OBSERVED,
};
use crate::util::{FxMap, FxSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The distinct leaked secrets of a run that share a data type and a
/// redacted value: what one review decision names. Usually one secret;
/// two when redaction makes two values look alike (same first and last two
/// characters and length).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SecretGroup {
    pub data_type: String,
    /// The report's redacted value.
    pub value: String,
    /// The highest level among its secrets.
    pub level: Level,
    /// Every disclosure channel it leaked on, in `Channel::ALL` order.
    pub channels: Vec<Channel>,
    /// How many distinct secrets (as the Risk Index counts them) it holds,
    /// as far as the report tells: exactly when the report carries raw
    /// values, or when its leaked level profile leaves no doubt; else at
    /// least this many (see `may_hold_more`).
    pub secrets: u64,
    /// Its secrets per level (they add up to `secrets`).
    pub levels: LevelProfile,
    /// The levels at which it may hold more secrets than `levels` says: the
    /// report counts more leaked secrets of that level than its findings
    /// tell apart, and this group is one of several with findings of that
    /// level that could hold them ([`RunSecrets::unattributed`]). Empty when
    /// its count is exact.
    pub may_hold_more: Vec<Level>,
    /// How many of the report's findings show it.
    pub findings: u64,
}

/// What the reviewed numbers are computed from: a report's scoring inputs
/// (as `report::rescore_report` reads them) and the gate of its run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReviewScoring {
    /// The weights of L1..L4 the report records (else the gate config's).
    pub weights: [u64; 4],
    /// The report's leaked secrets per level (`summary.level_profile`).
    pub level_profile: LevelProfile,
    /// Its vault per level (`summary.vault_level_profile`).
    pub vault_level_profile: LevelProfile,
    /// Its stored ρ_S: the vault when an explicit raw ρ_S left no profile.
    pub rho_s: u64,
    /// True when the vault is the observed one (every secret detected), so
    /// that a false positive leaves it; false for an explicit vault.
    pub observed_vault: bool,
    /// The report's privacy policy failed (a review does not change that).
    pub policy_failed: bool,
    /// The run's gate: block below this privacy score …
    pub fail_below: i64,
    /// … and on a critical (L4) leak.
    pub block_on_critical: bool,
}

/// A run's leaked secrets grouped as a review names them, and what its
/// reviewed numbers are computed from. Made once from a report
/// ([`RunSecrets::of_report`]); [`RunSecrets::review`] applies any review to
/// it, as often as decisions change, without the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunSecrets {
    pub run_id: String,
    /// In the order the report's findings first show them (most severe first).
    pub groups: Vec<SecretGroup>,
    /// Leaked secrets per level that the report counts but whose group it
    /// does not say: several groups with findings of that level could hold
    /// them ([`SecretGroup::may_hold_more`]), or none (an inconsistent
    /// report). A review gives them the weakest effect any of those groups
    /// has (counted, else accepted, else false positive; counted when there
    /// is none), so a decision never takes away more than it can be shown
    /// to cover.
    pub unattributed: LevelProfile,
    pub scoring: ReviewScoring,
}

/// A decided secret as the reviewed numbers took it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReviewedSecret {
    pub data_type: String,
    /// The report's redacted value.
    pub value: String,
    pub level: Level,
    pub channels: Vec<Channel>,
    /// How many distinct secrets the decision covers: more than one when
    /// several secrets share this data type and redacted value.
    pub secrets: u64,
    /// True when it may cover more secrets than `secrets`
    /// ([`SecretGroup::may_hold_more`]).
    pub may_hold_more: bool,
    /// The decision in force (for an accepted risk on several channels, the
    /// one that expires first; for an expired one, the expired acceptance).
    pub decision: Decision,
}

/// A run's reviewed numbers: beside the report's detected ones, never
/// instead of them. This is the `reviewed` object of the CLI's and the
/// JavaScript package's output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RunReview {
    /// RI rounded to 4 decimals, with false positives out and accepted
    /// risks in.
    pub risk_index: f64,
    pub privacy_score: u8,
    pub verdict: Verdict,
    /// The gate with accepted risks left out of its rules.
    pub blocked: bool,
    pub block_reasons: Vec<BlockReason>,
    /// Secrets decided false positives on every channel they leaked on.
    pub false_positives: Vec<ReviewedSecret>,
    /// Secrets accepted (until a date not yet reached) on every channel
    /// they leaked on that is not a false positive.
    pub accepted: Vec<ReviewedSecret>,
    /// Secrets with an acceptance that has expired: they count as confirmed.
    pub expired: Vec<ReviewedSecret>,
    /// Distinct leaked secrets once false positives are out.
    pub leaked_secrets: u64,
    /// How many secret groups (review entries) the run has …
    pub secret_groups: u64,
    /// … and how many of them have a decision on every channel.
    pub decided: u64,
    /// The run's sign-off: its last entry in the review.
    pub sign_off: Option<SignOff>,
    pub run_id: String,
    /// The date expiries were judged at.
    pub today: Date,
}

/// A run's reviewed numbers in brief: what run facts, scorecards and
/// publication manifests keep of a [`RunReview`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ReviewedNumbers {
    pub risk_index: f64,
    pub privacy_score: u8,
    pub verdict: Verdict,
    pub blocked: bool,
    /// Distinct leaked secrets once false positives are out.
    pub leaked_secrets: u64,
    /// How many secret groups were false positives, accepted, or accepted
    /// with an expired acceptance.
    pub false_positives: u64,
    pub accepted: u64,
    pub expired: u64,
    pub decided: u64,
    pub secret_groups: u64,
    /// The run's sign-off status, if any.
    pub status: Option<SignOffStatus>,
}

/// A decision that matches no leaked secret of the runs given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct UnmatchedDecision {
    /// Its position in [`Review::decisions`].
    pub index: usize,
    pub decision: Decision,
    /// Why it matches nothing, in words.
    pub reason: String,
}

impl UnmatchedDecision {
    /// "decision for run r1, email an***rg on *: no run r1 among the runs given".
    pub fn describe(&self) -> String {
        format!("decision for run {}, {}: {}", self.decision.run_id, self.decision.subject(), self.reason)
    }
}

/// What a decision does to a secret's numbers; ordered from least to most
/// counted, so that the strongest of several channels' decisions is the max.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Effect {
    FalsePositive,
    Accepted,
    Counted,
}

impl RunSecrets {
    /// The leaked secrets of `report`, grouped by data type and redacted
    /// value, with its scoring inputs; `gate`'s `fail_below` and
    /// `block_on_critical` are the run's gate (the config a trace was
    /// analysed with, or a stored report's known gate). Findings on
    /// baseline channels are not leaks and are left out.
    pub fn of_report(report: &Report, gate: &ScoringConfig) -> RunSecrets {
        let summary = &report.summary;
        let weights = report
            .agentrisk
            .as_ref()
            .and_then(|b| b.weights.as_deref())
            .and_then(|w| Weights::new(w).ok())
            .unwrap_or(gate.weights);
        let observed_vault = report.scope_def == SCOPE_OBSERVED
            || (report.scope_def.is_empty() && summary.vault_level_profile.total() > 0);
        let scoring = ReviewScoring {
            weights: weights.values(),
            level_profile: summary.level_profile,
            vault_level_profile: summary.vault_level_profile,
            rho_s: u64::try_from(report.rho_s).unwrap_or(0),
            observed_vault,
            policy_failed: report.privacy_policy.as_ref().is_some_and(|p| !p.passed),
            fail_below: gate.fail_below,
            block_on_critical: gate.block_on_critical,
        };
        let (groups, unattributed) = groups_of(report);
        RunSecrets { run_id: report.run_id.clone(), groups, unattributed, scoring }
    }

    /// [`RunSecrets::of_report`] for a stored report whose gate is not
    /// known (reports do not store it): `config`'s gate, changed as little
    /// as gives the decision the report stores (as `agentrisk score` explains
    /// a stored decision without `--fail-below`: block_on_critical first,
    /// then `fail_below` moved to the nearest value that gives it).
    pub fn of_stored_report(report: &Report, config: &ScoringConfig) -> RunSecrets {
        let mut secrets = RunSecrets::of_report(report, config);
        let s = &secrets.scoring;
        let weights = s.weights();
        let wsl = weights.weigh(&s.level_profile).unwrap_or(MAX_WEIGHTED_SUM);
        let rho_s = rho_s_of_vault(&weights, &s.vault_level_profile, s.rho_s).unwrap_or(MAX_WEIGHTED_SUM);
        let score = privacy_score_from_ri(ri_from(wsl, rho_s));
        let change = gate_change_explaining(report.blocked, score, s.level_profile.l4 > 0, s.policy_failed, config);
        if let Some(change) = change {
            if let Some(on) = change.block_on_critical {
                secrets.scoring.block_on_critical = on;
            }
            if let Some(FailBelowRange::AtMost(n) | FailBelowRange::AtLeast(n)) = change.fail_below {
                secrets.scoring.fail_below = n;
            }
        }
        secrets
    }

    /// The run's reviewed numbers under `review`, with acceptances judged
    /// at `today` (see the effect in the module doc of `review`).
    pub fn review(&self, review: &Review, today: Date) -> RunReview {
        let mut false_positives = Vec::new();
        let mut accepted = Vec::new();
        let mut expired = Vec::new();
        let (mut fp, mut acc) = ([0u64; 4], [0u64; 4]);
        let mut effects = Vec::with_capacity(self.groups.len());
        let mut decided = 0u64;
        for group in &self.groups {
            let mut effect = Effect::FalsePositive;
            let mut all_decided = true;
            let (mut fp_decision, mut accepted_decision, mut expired_decision) = (None, None::<&Decision>, None);
            for &channel in &group.channels {
                let decision = review.decision_on(&self.run_id, &group.data_type, &group.value, channel);
                match decision.and_then(|d| Some((d, d.decision?))) {
                    None => {
                        all_decided = false;
                        effect = Effect::Counted;
                    }
                    Some((_, DecisionKind::Confirmed)) => effect = Effect::Counted,
                    Some((d, DecisionKind::AcceptedRisk)) if d.has_expired(today) => {
                        effect = Effect::Counted;
                        expired_decision.get_or_insert(d);
                    }
                    Some((d, DecisionKind::AcceptedRisk)) => {
                        effect = effect.max(Effect::Accepted);
                        // The acceptance that ends first ends the group's.
                        let ends_sooner = |than: &Decision| match (d.expires, than.expires) {
                            (Some(a), Some(b)) => a < b,
                            (Some(_), None) => true,
                            _ => false,
                        };
                        if accepted_decision.is_none_or(ends_sooner) {
                            accepted_decision = Some(d);
                        }
                    }
                    Some((d, DecisionKind::FalsePositive)) => {
                        fp_decision.get_or_insert(d);
                    }
                }
            }
            decided += u64::from(all_decided);
            let entry = |decision: &Decision| ReviewedSecret {
                data_type: group.data_type.clone(),
                value: group.value.clone(),
                level: group.level,
                channels: group.channels.clone(),
                secrets: group.secrets,
                may_hold_more: !group.may_hold_more.is_empty(),
                decision: decision.clone(),
            };
            let counts = group.levels.counts();
            match (effect, fp_decision, accepted_decision) {
                (Effect::FalsePositive, Some(d), _) => {
                    false_positives.push(entry(d));
                    fp.iter_mut().zip(counts).for_each(|(total, n)| *total += n);
                }
                (Effect::Accepted, _, Some(d)) => {
                    accepted.push(entry(d));
                    acc.iter_mut().zip(counts).for_each(|(total, n)| *total += n);
                }
                _ => {}
            }
            if let Some(d) = expired_decision {
                expired.push(entry(d));
            }
            effects.push(effect);
        }
        // Secrets the report counts but does not place: the weakest effect
        // among the groups that could hold them.
        for (i, level) in Level::ALL.into_iter().enumerate() {
            let n = self.unattributed.get(level);
            if n == 0 {
                continue;
            }
            let weakest = self
                .groups
                .iter()
                .zip(&effects)
                .filter(|(g, _)| g.may_hold_more.contains(&level))
                .map(|(_, &e)| e)
                .max()
                .unwrap_or(Effect::Counted);
            match weakest {
                Effect::FalsePositive => fp[i] += n,
                Effect::Accepted => acc[i] += n,
                Effect::Counted => {}
            }
        }
        let (gate, leaked_secrets) = self.numbers(LevelProfile::from_counts(fp), LevelProfile::from_counts(acc));
        RunReview {
            risk_index: gate.risk_index,
            privacy_score: gate.privacy_score,
            verdict: gate.verdict,
            blocked: gate.blocked,
            block_reasons: gate.block_reasons,
            false_positives,
            accepted,
            expired,
            leaked_secrets,
            secret_groups: self.groups.len() as u64,
            decided,
            sign_off: review.sign_off(&self.run_id).cloned(),
            run_id: self.run_id.clone(),
            today,
        }
    }

    /// The gate and the leaked count with `fp` secrets out (of the leaked
    /// set, and of an observed vault) and `accepted` ones not blocking.
    fn numbers(&self, fp: LevelProfile, accepted: LevelProfile) -> (crate::score::Gate, u64) {
        let s = &self.scoring;
        let weights = s.weights();
        let minus = |a: &LevelProfile, b: &LevelProfile| {
            let [a, b] = [a.counts(), b.counts()];
            LevelProfile::from_counts([0, 1, 2, 3].map(|i| a[i].saturating_sub(b[i])))
        };
        let leaked = minus(&s.level_profile, &fp);
        // Stored profiles can hold any count; a sum too large is scored at the bound, as `rescore_report` does.
        let weigh = |profile: &LevelProfile| weights.weigh(profile).unwrap_or(MAX_WEIGHTED_SUM);
        let wsl = weigh(&leaked);
        let rho_s = if s.observed_vault {
            weigh(&minus(&s.vault_level_profile, &fp))
        } else {
            rho_s_of_vault(&weights, &s.vault_level_profile, s.rho_s).unwrap_or(MAX_WEIGHTED_SUM)
        };
        let blocking_wsl = weigh(&minus(&leaked, &accepted));
        let blocking_critical = leaked.l4 > accepted.l4;
        let gate_config = ScoringConfig {
            fail_below: s.fail_below,
            block_on_critical: s.block_on_critical,
            ..ScoringConfig::default()
        };
        let gate = gate_with_accepted_risks(
            ri_from(wsl, rho_s),
            ri_from(blocking_wsl, rho_s),
            blocking_critical,
            s.policy_failed,
            &gate_config,
        );
        (gate, leaked.total())
    }
}

impl Default for ReviewScoring {
    /// A run with nothing leaked, under the reference's weights and gate.
    fn default() -> ReviewScoring {
        let defaults = ScoringConfig::default();
        ReviewScoring {
            weights: defaults.weights.values(),
            level_profile: LevelProfile::default(),
            vault_level_profile: LevelProfile::default(),
            rho_s: 0,
            observed_vault: true,
            policy_failed: false,
            fail_below: defaults.fail_below,
            block_on_critical: defaults.block_on_critical,
        }
    }
}

impl ReviewScoring {
    fn weights(&self) -> Weights {
        // Made from valid weights (`Weights::values`); a hand-made value falls back to the defaults.
        Weights::new(&self.weights.map(|w| i64::try_from(w).unwrap_or(0))).unwrap_or_default()
    }
}

/// The report's leaked secrets grouped by data type and redacted value, and
/// the leaked secrets per level it counts but does not place in a group.
fn groups_of(report: &Report) -> (Vec<SecretGroup>, LevelProfile) {
    struct Building {
        group: SecretGroup,
        channels: BTreeSet<Channel>,
        levels: [u64; 4],
        finding_levels: [bool; 4],
    }
    let mut groups: Vec<Building> = Vec::new();
    let mut by_form: FxMap<(&str, &str), usize> = FxMap::default();
    // A secret is a data type and its value (the raw one when the report
    // keeps it, else the redacted one): the Risk Index's identity.
    let mut seen: FxSet<(&str, &str)> = FxSet::default();
    for f in report.findings.iter().filter(|f| f.channel.is_disclosure()) {
        let slot = *by_form.entry((&f.data_type, &f.redacted_value)).or_insert_with(|| {
            groups.push(Building {
                group: SecretGroup {
                    data_type: f.data_type.to_string(),
                    value: f.redacted_value.clone(),
                    level: f.level,
                    channels: Vec::new(),
                    secrets: 0,
                    levels: LevelProfile::default(),
                    may_hold_more: Vec::new(),
                    findings: 0,
                },
                channels: BTreeSet::new(),
                levels: [0; 4],
                finding_levels: [false; 4],
            });
            groups.len() - 1
        });
        let Some(b) = groups.get_mut(slot) else { continue };
        b.group.findings += 1;
        b.channels.insert(f.channel);
        b.finding_levels[f.level.index()] = true;
        if seen.insert((&f.data_type, f.matched_value.as_deref().unwrap_or(&f.redacted_value))) {
            // A secret's level is its first finding's: the highest, as
            // findings come most severe first (`score::secrets_from_sightings`).
            b.levels[f.level.index()] += 1;
        }
    }
    // The report may count more leaked secrets of a level than its findings
    // tell apart (redaction merged them): one group of that level holds
    // them all; several may each hold some.
    let mut found = [0u64; 4];
    for b in &groups {
        found.iter_mut().zip(b.levels).for_each(|(total, n)| *total += n);
    }
    let mut unattributed = [0u64; 4];
    for level in Level::ALL {
        let i = level.index();
        let extra = report.summary.level_profile.get(level).saturating_sub(found[i]);
        if extra == 0 {
            continue;
        }
        let candidates: Vec<usize> =
            groups.iter().enumerate().filter(|(_, b)| b.finding_levels[i]).map(|(g, _)| g).collect();
        match candidates.as_slice() {
            [only] => {
                if let Some(b) = groups.get_mut(*only) {
                    b.levels[i] += extra;
                }
            }
            many => {
                unattributed[i] = extra;
                for &g in many {
                    if let Some(b) = groups.get_mut(g) {
                        b.group.may_hold_more.push(level);
                    }
                }
            }
        }
    }
    let groups = groups
        .into_iter()
        .map(|b| {
            let mut group = b.group;
            group.channels = b.channels.into_iter().collect();
            group.levels = LevelProfile::from_counts(b.levels);
            group.secrets = group.levels.total();
            if let Some(highest) = Level::ALL.into_iter().rev().find(|l| group.levels.get(*l) > 0) {
                group.level = highest;
            }
            group
        })
        .collect();
    (groups, LevelProfile::from_counts(unattributed))
}

impl RunReview {
    /// The brief: the reviewed numbers as [`ReviewedNumbers`].
    pub fn numbers(&self) -> ReviewedNumbers {
        ReviewedNumbers {
            risk_index: self.risk_index,
            privacy_score: self.privacy_score,
            verdict: self.verdict,
            blocked: self.blocked,
            leaked_secrets: self.leaked_secrets,
            false_positives: self.false_positives.len() as u64,
            accepted: self.accepted.len() as u64,
            expired: self.expired.len() as u64,
            decided: self.decided,
            secret_groups: self.secret_groups,
            status: self.sign_off.as_ref().map(|s| s.status),
        }
    }

    /// One line of text: "RI 0.2500 · privacy score 75 · Conditional pass ·
    /// not blocked · 1 false positive · 1 accepted risk · 2 of 3 decided ·
    /// approved" — what a text output prints under the detected numbers.
    pub fn summary(&self) -> String {
        let mut parts = vec![
            format!("RI {:.4}", self.risk_index),
            format!("privacy score {}", self.privacy_score),
            self.verdict.as_str().to_owned(),
            if self.blocked { "blocked".to_owned() } else { "not blocked".to_owned() },
        ];
        let count = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        if !self.false_positives.is_empty() {
            parts.push(count(self.false_positives.len(), "false positive", "false positives"));
        }
        if !self.accepted.is_empty() {
            parts.push(count(self.accepted.len(), "accepted risk", "accepted risks"));
        }
        if !self.expired.is_empty() {
            parts.push(count(self.expired.len(), "expired acceptance", "expired acceptances"));
        }
        parts.push(format!("{} of {} decided", self.decided, self.secret_groups));
        parts.push(match &self.sign_off {
            Some(s) if s.reviewer.is_empty() => s.status.label().to_owned(),
            Some(s) => format!("{} by {} ({})", s.status.label(), s.reviewer, s.at),
            None => "not signed off".to_owned(),
        });
        parts.join(" · ")
    }

    /// What a reader must be told besides the numbers, one line each: every
    /// expired acceptance, why the gate still blocks, and every decision
    /// that covers more than one secret.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for e in &self.expired {
            let d = &e.decision;
            notes.push(format!(
                "expired: the accepted risk on {} {} (on {}) ended {}; it counts as confirmed again",
                e.data_type,
                e.value,
                d.channel,
                d.expires.map_or_else(String::new, |date| date.to_string()),
            ));
        }
        for reason in &self.block_reasons {
            notes.push(format!("blocked: {}", reason.describe()));
        }
        for (label, list) in [("false positive", &self.false_positives), ("accepted risk", &self.accepted)] {
            for s in list {
                if s.secrets > 1 || s.may_hold_more {
                    let count = if s.may_hold_more {
                        format!(
                            "at least {} distinct secret{} (the report's redacted values cannot tell how many)",
                            s.secrets,
                            if s.secrets == 1 { "" } else { "s" }
                        )
                    } else {
                        format!("{} distinct secrets that share this data type and redacted value", s.secrets)
                    };
                    notes.push(format!("{label} {} {} covers {count}", s.data_type, s.value));
                }
            }
        }
        for s in &self.accepted {
            if let Some(until) = s.decision.expires {
                notes.push(format!("accepted until {until}: {} {} (on {})", s.data_type, s.value, s.decision.channel));
            }
        }
        notes
    }
}

impl RunReview {
    /// The review of the run as a Markdown section, to append to the run's
    /// summary (`report::markdown_run`): the detected and reviewed numbers
    /// side by side (`detected` is the report), every decision in force
    /// with its reviewer, date, rationale and expiry, and the sign-off.
    pub fn markdown(&self, detected: &Report) -> String {
        let cell = |text: &str| text.replace('|', "\\|").replace(['\n', '\r'], " ");
        let gate = |blocked: bool| if blocked { "blocked" } else { "not blocked" };
        let mut md = format!("## Review (as of {})\n\n", self.today);
        md.push_str("| | Risk Index | Privacy score | Verdict | Gate |\n|---|---:|---:|---|---|\n");
        md.push_str(&format!(
            "| As detected | {:.4} | {} | {} | {} |\n| As reviewed | {:.4} | {} | {} | {} |\n\n",
            detected.risk_index,
            detected.privacy_score,
            cell(&detected.verdict),
            gate(detected.blocked),
            self.risk_index,
            self.privacy_score,
            self.verdict.as_str(),
            gate(self.blocked),
        ));
        let decided = [
            ("False positive", &self.false_positives),
            ("Accepted risk", &self.accepted),
            ("Expired acceptance", &self.expired),
        ];
        if decided.iter().any(|(_, list)| !list.is_empty()) {
            md.push_str(
                "| Decision | Data type | Value | Channels | Secrets | Reviewer | Decided | Expires | Rationale |\n",
            );
            md.push_str("|---|---|---|---|---:|---|---|---|---|\n");
            for (label, list) in decided {
                for s in list {
                    let d = &s.decision;
                    md.push_str(&format!(
                        "| {label} | {} | `{}` | {} | {}{} | {} | {} | {} | {} |\n",
                        cell(&s.data_type),
                        cell(&s.value),
                        s.channels.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
                        s.secrets,
                        if s.may_hold_more { "+" } else { "" },
                        cell(&d.reviewer),
                        d.decided_at.map_or_else(|| "—".to_owned(), |date| date.to_string()),
                        d.expires.map_or_else(|| "—".to_owned(), |date| date.to_string()),
                        cell(&d.rationale),
                    ));
                }
            }
            md.push('\n');
        }
        md.push_str(&format!("{} of {} leaked secrets decided. ", self.decided, self.secret_groups));
        md.push_str(&match &self.sign_off {
            Some(s) => format!(
                "Sign-off: {} by {} ({}){}.\n",
                s.status.label(),
                if s.reviewer.is_empty() { "—" } else { &s.reviewer },
                cell(&s.at),
                if s.note.is_empty() { String::new() } else { format!(": {}", cell(&s.note)) }
            ),
            None => "Not signed off.\n".to_owned(),
        });
        md
    }
}

impl Review {
    /// The decisions that match no leaked secret of `runs`, with why: no
    /// such run, no such secret in it, or not on that channel. An undecided
    /// entry is listed too. A decision matches when some run with its
    /// `run_id` has a group with its data type and value that leaked on
    /// its channel (any channel for `"*"`).
    pub fn unmatched(&self, runs: &[&RunSecrets]) -> Vec<UnmatchedDecision> {
        let mut out = Vec::new();
        for (index, decision) in self.decisions.iter().enumerate() {
            let named: Vec<&RunSecrets> = runs.iter().copied().filter(|r| r.run_id == decision.run_id).collect();
            let groups: Vec<&SecretGroup> = named
                .iter()
                .flat_map(|r| &r.groups)
                .filter(|g| g.data_type == decision.data_type && g.value == decision.value)
                .collect();
            let matches = groups.iter().any(|g| g.channels.iter().any(|&c| decision.channel.covers(c)));
            if matches {
                continue;
            }
            let reason = if named.is_empty() {
                format!("no run {} among the runs given", decision.run_id)
            } else if groups.is_empty() {
                format!("run {} leaked no {} {}", decision.run_id, decision.data_type, decision.value)
            } else {
                let channels: BTreeSet<&str> =
                    crate::util::btree_set(groups.iter().flat_map(|g| g.channels.iter().map(|c| c.as_str())));
                let on = match decision.channel {
                    ChannelScope::All => String::new(),
                    ChannelScope::Only(c) => format!(", not on {c}"),
                };
                format!(
                    "run {} leaked it on {}{on}",
                    decision.run_id,
                    channels.into_iter().collect::<Vec<_>>().join(", ")
                )
            };
            out.push(UnmatchedDecision { index, decision: decision.clone(), reason });
        }
        out
    }
}
