//! Review files: a reviewer's decisions about each leaked secret of a run
//! (a real leak, a false positive of a detector, a risk accepted until a
//! date) and their sign-off of each run, kept in a file that travels with
//! the runs, and their effect on the run's numbers.
//!
//! This module owns the review file format ([`Review`], read by
//! [`Review::from_json`], written by [`Review::to_json`]) and the one rule
//! that turns decisions into **reviewed** numbers ([`RunSecrets::review`]).
//! It does no I/O and reads no clock: "today", which decides whether an
//! acceptance has expired, is the caller's [`Date`]. The detected numbers —
//! the report's, the reference's — are never changed: the reviewed ones
//! are computed beside them.
//!
//! # For a shell or a viewer
//!
//! 1. Read the review file: [`Review::from_json`] (several files:
//!    [`Review::combined`]). A file is recognised by content
//!    ([`looks_like_review`]; `crate::batch::detect_kind` gives
//!    `FileKind::Review`).
//! 2. For each run, make its [`RunSecrets`] from its report
//!    ([`RunSecrets::of_report`], or [`RunSecrets::of_stored_report`] when
//!    the gate a stored report was made with is unknown). It lists the
//!    run's leaked secrets grouped as a review file names them
//!    ([`SecretGroup`]: data type and redacted value, with the channels,
//!    level and how many distinct secrets the group holds) — what a viewer
//!    draws its Confirm / False positive / Accept risk controls for — and
//!    keeps the report's scoring inputs. It is small and cheap to keep.
//! 3. [`RunSecrets::review`] gives the run's [`RunReview`]: the reviewed
//!    RI, privacy score, verdict and gate with its reasons, and which
//!    secrets were false positives, accepted, or accepted until a date that
//!    has passed. Show it beside the report's numbers.
//! 4. [`Review::unmatched`] lists the decisions that match no leaked secret
//!    of the runs given (a typo, a run not loaded, a secret no longer found).
//! 5. A viewer edits a review with [`Review::set_decision`],
//!    [`Review::clear_decision`] and [`Review::add_sign_off`], and exports it
//!    with [`Review::to_json`].
//!
//! The `crate::analyser::Analyser` picks the gate for each kind of run
//! (`with_review`), so the CLI, the JavaScript package, the workspace and
//! publishing all review runs the same way.
//!
//! # The format (version 1)
//!
//! ```json
//! {
//!   "format": "agentrisk-review",
//!   "version": 1,
//!   "decisions": [
//!     {"run_id": "run_hr_001", "data_type": "email", "channel": "*", "value": "an**************rg",
//!      "decision": "false_positive", "rationale": "the company's public address",
//!      "reviewer": "Dana", "decided_at": "2026-03-01", "expires": null}
//!   ],
//!   "runs": [
//!     {"run_id": "run_hr_001", "status": "approved", "reviewer": "Dana", "note": "", "at": "2026-03-02"}
//!   ]
//! }
//! ```
//!
//! * A decision names one leaked secret of one run as the report shows it:
//!   `run_id`, `data_type`, `value` (the report's **redacted** value; a
//!   value that is not in redacted form is refused, so a review file never
//!   holds a raw secret) and `channel` (a channel name, or `"*"` for every
//!   channel). `decision` is `"confirmed"`, `"false_positive"`,
//!   `"accepted_risk"`, or `null` while undecided (what `agentrisk review
//!   init` writes). A decision needs `reviewer` and `decided_at` (a date,
//!   `YYYY-MM-DD`); a false positive and an accepted risk need a
//!   `rationale`; `expires` (a date or `null` for never) is for accepted
//!   risks only.
//! * A sign-off says where a run's review stands: `status` is
//!   `"in_review"`, `"approved"` or `"changes_needed"`; `at` is a date or a
//!   date and time (RFC 3339). A run's status is its last entry; earlier
//!   ones are its history. `approved` and `changes_needed` need a `reviewer`.
//! * Unknown keys are refused (a misspelt `expiry` would otherwise be
//!   silently dropped), as are two different decisions for the same run,
//!   data type, value and channel.
//!
//! # The effect
//!
//! A run's secrets are counted as the Risk Index counts them: distinct
//! (data type, value) pairs. A review names them by data type and redacted
//! value, so a decision covers every distinct secret of the run that shares
//! both (two IBANs with the same first and last two characters and length);
//! [`ReviewedSecret::secrets`] says how many.
//!
//! * A **false positive** is not a secret: it leaves the run's leaked set
//!   and, when the vault is the observed one (every secret detected), the
//!   vault too. An explicit vault from a config stays as configured.
//! * An **accepted risk** is a real leak: it stays in the numbers, but until
//!   it expires it does not block. The gate's critical-leak rule ignores it,
//!   and its score rule reads the RI without it (its reason then names that
//!   score).
//! * An acceptance **expires** on its `expires` date: from that day on it
//!   counts as confirmed and is listed in [`RunReview::expired`].
//! * A secret leaked on several channels leaves the numbers only when it
//!   is a false positive on every one of them, and is an accepted risk only
//!   when each of its channels is a false positive or an accepted risk; a
//!   channel's own decision wins over a `"*"` one. Undecided secrets count
//!   as confirmed.
//! * With no decision that changes anything, the reviewed numbers are the
//!   report's own, recomputed from its inputs (equal to the stored ones for
//!   any consistent report).
//!
//! A failed privacy policy still blocks: a report keeps its policy result
//! and a review does not evaluate the assertions again.

mod effect;
mod file;

pub use effect::{
    ReviewScoring, ReviewedNumbers, ReviewedSecret, RunReview, RunSecrets, SecretGroup, UnmatchedDecision,
};
pub use file::{looks_like_review, ReviewError, REVIEW_FORMAT, REVIEW_VERSION};

use crate::model::{pretty, Channel, Report};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A report and its reviewed numbers as one JSON object: every key of the
/// report as it is, then `reviewed` (left out without a review). What
/// `agentrisk run --review` writes and the JavaScript package's
/// `analyzeTrace` returns with a review: a reader of the reference's format
/// ignores the added key, and the report's own keys never change.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ReviewedReport<'a> {
    #[serde(flatten)]
    pub report: &'a Report,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<&'a RunReview>,
}

/// Writes `report`, with `reviewed` as [`ReviewedReport`] adds it, as
/// indented JSON: byte for byte what `serde_json::to_writer_pretty` writes,
/// the report's three long lists of small items (findings, leak paths and
/// the compliance section's evidence rows: two thirds of a long trace's
/// report) written on several threads where the build has them, and its
/// fourth (the compliance frameworks, each citing findings by the
/// thousand) straight out. They are taken out of `report` while the rest
/// is written, and put back.
pub fn write_pretty(
    report: &mut Report,
    reviewed: Option<&RunReview>,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    use std::mem::take;
    let findings = take(&mut report.findings);
    let leak_paths = report.leak_paths.as_mut().map(take);
    let compliance = report.compliance.as_mut().map(|c| (take(&mut c.frameworks), take(&mut c.evidence_matrix)));
    let mut rest = Vec::new();
    let written = pretty::write_at(&ReviewedReport { report, reviewed }, 0, &mut rest);
    report.findings = findings;
    if let (Some(paths), Some(taken)) = (report.leak_paths.as_mut(), leak_paths) {
        *paths = taken;
    }
    if let (Some(c), Some((frameworks, evidence))) = (report.compliance.as_mut(), compliance) {
        (c.frameworks, c.evidence_matrix) = (frameworks, evidence);
    }
    written?;
    let report = &*report;
    // Where each list goes: its key, with an empty list, at its level (a
    // line break and two spaces a level before it), found exactly once in
    // the rest. Items per piece: about 100 kB of JSON.
    type WriteList<'r> = Box<dyn Fn(&mut dyn std::io::Write) -> std::io::Result<()> + 'r>;
    let mut lists: Vec<(&[u8], WriteList<'_>)> = Vec::new();
    if !report.findings.is_empty() {
        lists.push((b"\n  \"findings\": []", Box::new(|out| pretty::write_list(&report.findings, 1, 200, out))));
    }
    if let Some(paths) = report.leak_paths.as_ref().filter(|p| !p.is_empty()) {
        lists.push((b"\n  \"leak_paths\": []", Box::new(move |out| pretty::write_list(paths, 1, 50, out))));
    }
    if let Some(rows) = report.compliance.as_ref().map(|c| &c.evidence_matrix).filter(|r| !r.is_empty()) {
        lists.push((b"\n    \"evidence_matrix\": []", Box::new(move |out| pretty::write_list(rows, 2, 150, out))));
    }
    if let Some(frameworks) = report.compliance.as_ref().map(|c| &c.frameworks).filter(|f| !f.is_empty()) {
        lists.push((b"\n    \"frameworks\": []", Box::new(move |out| pretty::write_list_in_place(frameworks, 2, out))));
    }
    let mut places = Vec::with_capacity(lists.len());
    for (key, write) in &lists {
        let mut found = memchr::memmem::find_iter(&rest, key);
        match (found.next(), found.next()) {
            // Just before the closing `[]`.
            (Some(at), None) => places.push((at + key.len() - 2, write)),
            // The same key, empty, elsewhere at that level (no report has
            // one): the report is written whole instead.
            _ => return pretty::write_at(&ReviewedReport { report, reviewed }, 0, out),
        }
    }
    places.sort_by_key(|&(at, _)| at);
    let mut from = 0;
    for (at, write) in places {
        out.write_all(&rest[from..at])?;
        write(out)?;
        from = at + 2;
    }
    out.write_all(&rest[from..])
}

/// A calendar date (proleptic Gregorian), written `YYYY-MM-DD`. Dates order
/// as time does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(rename = "ReviewDate", type = "string"))]
pub struct Date {
    year: u16,
    month: u8,
    day: u8,
}

impl Date {
    /// The date, if it exists (years 0 to 9999).
    pub fn new(year: u16, month: u8, day: u8) -> Option<Date> {
        let days_in_month = match month {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
            2 => 28,
            _ => return None,
        };
        (year <= 9999 && (1..=days_in_month).contains(&day)).then_some(Date { year, month, day })
    }

    /// A date written `YYYY-MM-DD`; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<Date, String> {
        let wrong = |why: &str| format!("expected a date as YYYY-MM-DD, found {text:?}{why}");
        let bytes = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            bytes.get(range.clone()).filter(|b| b.iter().all(u8::is_ascii_digit)).and_then(|_| text.get(range))
        };
        let (Some(year), Some(month), Some(day), 10, Some(b'-'), Some(b'-')) =
            (digits(0..4), digits(5..7), digits(8..10), bytes.len(), bytes.get(4), bytes.get(7))
        else {
            return Err(wrong(""));
        };
        let (year, month, day) = (
            year.parse::<u16>().map_err(|_| wrong(""))?,
            month.parse::<u8>().map_err(|_| wrong(""))?,
            day.parse::<u8>().map_err(|_| wrong(""))?,
        );
        Date::new(year, month, day).ok_or_else(|| wrong(" (no such day)"))
    }

    /// The UTC date of a time in Unix seconds (a shell's clock).
    pub fn from_unix_seconds(secs: i64) -> Date {
        let days = secs.div_euclid(86_400);
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
        // Every field is in range for years 0..=9999; later times clamp to the last day.
        match (u16::try_from(year), u8::try_from(month), u8::try_from(day)) {
            (Ok(year), Ok(month), Ok(day)) if year <= 9999 => Date { year, month, day },
            _ if year < 0 => Date { year: 0, month: 1, day: 1 },
            _ => Date { year: 9999, month: 12, day: 31 },
        }
    }

    /// The date a timestamp starts with (`2026-12-07T14:05:00+00:00`, as a
    /// report's `generated_at` is written); `None` when it starts with none.
    pub fn of_timestamp(timestamp: &str) -> Option<Date> {
        Date::parse(timestamp.get(..10)?).ok()
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Date, D::Error> {
        let text = String::deserialize(d)?;
        Date::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// What a reviewer decided about a leaked secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum DecisionKind {
    /// A real leak: it counts, and blocks as the gate says.
    Confirmed,
    /// Not a secret (a detector's mistake): it leaves the numbers.
    FalsePositive,
    /// A real leak the organisation accepts until `expires`: it counts, but
    /// does not block.
    AcceptedRisk,
}

impl DecisionKind {
    pub const ALL: [DecisionKind; 3] =
        [DecisionKind::Confirmed, DecisionKind::FalsePositive, DecisionKind::AcceptedRisk];

    /// The name the file uses.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Confirmed => "confirmed",
            DecisionKind::FalsePositive => "false_positive",
            DecisionKind::AcceptedRisk => "accepted_risk",
        }
    }

    /// In words: "confirmed", "false positive", "accepted risk".
    pub fn label(self) -> &'static str {
        match self {
            DecisionKind::Confirmed => "confirmed",
            DecisionKind::FalsePositive => "false positive",
            DecisionKind::AcceptedRisk => "accepted risk",
        }
    }
}

impl TryFrom<String> for DecisionKind {
    type Error = String;
    fn try_from(name: String) -> Result<DecisionKind, String> {
        DecisionKind::ALL.into_iter().find(|k| k.as_str() == name).ok_or_else(|| {
            format!(
                "unknown decision {name:?}; use \"confirmed\", \"false_positive\" or \"accepted_risk\" (or null while \
                 undecided)"
            )
        })
    }
}

/// Where a run's review stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case", try_from = "String")]
pub enum SignOffStatus {
    InReview,
    /// Signed off: `agentrisk review check` counts the run as reviewed.
    Approved,
    ChangesNeeded,
}

impl SignOffStatus {
    pub const ALL: [SignOffStatus; 3] =
        [SignOffStatus::InReview, SignOffStatus::Approved, SignOffStatus::ChangesNeeded];

    pub fn as_str(self) -> &'static str {
        match self {
            SignOffStatus::InReview => "in_review",
            SignOffStatus::Approved => "approved",
            SignOffStatus::ChangesNeeded => "changes_needed",
        }
    }

    /// In words: "in review", "approved", "changes needed".
    pub fn label(self) -> &'static str {
        match self {
            SignOffStatus::InReview => "in review",
            SignOffStatus::Approved => "approved",
            SignOffStatus::ChangesNeeded => "changes needed",
        }
    }
}

impl TryFrom<String> for SignOffStatus {
    type Error = String;
    fn try_from(name: String) -> Result<SignOffStatus, String> {
        SignOffStatus::ALL
            .into_iter()
            .find(|s| s.as_str() == name)
            .ok_or_else(|| format!("unknown status {name:?}; use \"in_review\", \"approved\" or \"changes_needed\""))
    }
}

/// The channels a decision applies to: one, or every channel (`"*"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS), ts(type = "\"*\" | Channel"))]
pub enum ChannelScope {
    /// `"*"`: every channel the secret leaked on.
    All,
    Only(Channel),
}

impl ChannelScope {
    /// True when the scope takes in `channel`.
    pub fn covers(self, channel: Channel) -> bool {
        match self {
            ChannelScope::All => true,
            ChannelScope::Only(c) => c == channel,
        }
    }

    /// `"*"` or the channel's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ChannelScope::All => "*",
            ChannelScope::Only(c) => c.as_str(),
        }
    }
}

impl fmt::Display for ChannelScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ChannelScope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ChannelScope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ChannelScope, D::Error> {
        let name = String::deserialize(d)?;
        ChannelScope::from_name(&name).ok_or_else(|| serde::de::Error::custom(unknown_channel(&name)))
    }
}

/// Why `name` is no channel scope, and what is.
fn unknown_channel(name: &str) -> String {
    let names: Vec<&str> = Channel::ALL.iter().map(|c| c.as_str()).collect();
    format!("unknown channel {name:?}; use \"*\" or one of {}", names.join(", "))
}

/// One decision about one leaked secret of one run (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Decision {
    pub run_id: String,
    pub data_type: String,
    pub channel: ChannelScope,
    /// The report's redacted value: never the raw secret.
    pub value: String,
    /// `None` while undecided.
    #[serde(default)]
    pub decision: Option<DecisionKind>,
    #[serde(default)]
    pub rationale: String,
    #[serde(default)]
    pub reviewer: String,
    #[serde(default)]
    pub decided_at: Option<Date>,
    /// For an accepted risk: the day it stops being accepted (`None`: never).
    #[serde(default)]
    pub expires: Option<Date>,
}

impl Decision {
    /// An undecided entry for a secret of a run, on every channel.
    pub fn undecided(run_id: &str, data_type: &str, value: &str) -> Decision {
        Decision {
            run_id: run_id.to_owned(),
            data_type: data_type.to_owned(),
            channel: ChannelScope::All,
            value: value.to_owned(),
            decision: None,
            rationale: String::new(),
            reviewer: String::new(),
            decided_at: None,
            expires: None,
        }
    }

    /// What identifies it: one decision per run, data type, value and channel.
    pub fn key(&self) -> (&str, &str, &str, ChannelScope) {
        (&self.run_id, &self.data_type, &self.value, self.channel)
    }

    /// True for an accepted risk whose `expires` is `today` or earlier.
    pub fn has_expired(&self, today: Date) -> bool {
        self.decision == Some(DecisionKind::AcceptedRisk) && self.expires.is_some_and(|expires| expires <= today)
    }

    /// "email an**************rg on *" — what it names, in words.
    pub fn subject(&self) -> String {
        format!("{} {} on {}", self.data_type, self.value, self.channel)
    }
}

/// One sign-off entry of a run (see the module doc).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SignOff {
    pub run_id: String,
    pub status: SignOffStatus,
    #[serde(default)]
    pub reviewer: String,
    #[serde(default)]
    pub note: String,
    /// A date (`YYYY-MM-DD`) or a date and time (RFC 3339).
    pub at: String,
}

/// A review: decisions and sign-offs, in file order. Build one with
/// [`Review::from_json`], [`Review::combined`] or `Review::default()` and
/// the editing calls; write it with [`Review::to_json`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Review {
    pub decisions: Vec<Decision>,
    pub runs: Vec<SignOff>,
}

impl Review {
    /// True when it holds no decision and no sign-off.
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty() && self.runs.is_empty()
    }

    /// The decision for exactly this run, data type, value and channel scope.
    pub fn decision(&self, run_id: &str, data_type: &str, value: &str, channel: ChannelScope) -> Option<&Decision> {
        self.decisions.iter().find(|d| d.key() == (run_id, data_type, value, channel))
    }

    /// The decision in force for a secret on one channel: the channel's own,
    /// else the `"*"` one.
    pub fn decision_on(&self, run_id: &str, data_type: &str, value: &str, channel: Channel) -> Option<&Decision> {
        self.decision(run_id, data_type, value, ChannelScope::Only(channel))
            .or_else(|| self.decision(run_id, data_type, value, ChannelScope::All))
    }

    /// Sets a decision, replacing the one with the same run, data type,
    /// value and channel scope (a viewer's control). Refused, with nothing
    /// changed, when the file would refuse it (a raw value, a missing
    /// rationale …).
    pub fn set_decision(&mut self, decision: Decision) -> Result<(), ReviewError> {
        file::check_decision(&decision, "decision")?;
        match self.decisions.iter_mut().find(|d| d.key() == decision.key()) {
            Some(slot) => *slot = decision,
            None => self.decisions.push(decision),
        }
        Ok(())
    }

    /// Removes the decision for this run, data type, value and channel
    /// scope; true when there was one.
    pub fn clear_decision(&mut self, run_id: &str, data_type: &str, value: &str, channel: ChannelScope) -> bool {
        let before = self.decisions.len();
        self.decisions.retain(|d| d.key() != (run_id, data_type, value, channel));
        self.decisions.len() != before
    }

    /// Adds a sign-off entry: it becomes the run's status, the earlier
    /// entries its history. Refused as the file would refuse it.
    pub fn add_sign_off(&mut self, sign_off: SignOff) -> Result<(), ReviewError> {
        file::check_sign_off(&sign_off, "sign-off")?;
        self.runs.push(sign_off);
        Ok(())
    }

    /// A run's status: its last sign-off entry.
    pub fn sign_off(&self, run_id: &str) -> Option<&SignOff> {
        self.runs.iter().rev().find(|s| s.run_id == run_id)
    }

    /// Adds an undecided entry (channel `"*"`) for each leaked secret of
    /// the run that no decision names yet, and an `in_review` sign-off
    /// dated `today` when the run has none: what `agentrisk review init`
    /// writes for a reviewer who prefers an editor. Existing entries are
    /// kept as they are.
    pub fn add_undecided(&mut self, run: &RunSecrets, today: Date) {
        for group in &run.groups {
            let named = self
                .decisions
                .iter()
                .any(|d| d.run_id == run.run_id && d.data_type == group.data_type && d.value == group.value);
            if !named {
                self.decisions.push(Decision::undecided(&run.run_id, &group.data_type, &group.value));
            }
        }
        if self.sign_off(&run.run_id).is_none() {
            self.runs.push(SignOff {
                run_id: run.run_id.clone(),
                status: SignOffStatus::InReview,
                reviewer: String::new(),
                note: String::new(),
                at: today.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests;
