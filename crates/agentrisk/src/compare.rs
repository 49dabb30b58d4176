//! Comparing two runs, or two groups of runs.
//!
//! Two runs: their headline numbers side by side with the change from A to
//! B, the leaked secrets (data type, redacted value, channel) that only one
//! of them has, and the per-channel RI that got better or worse.
//!
//! Two groups: each rate of the batch summary for both, with both Wilson
//! intervals and whether the intervals overlap (overlapping intervals are
//! no evidence of a difference; separate ones are a sign of one, not a test).

use crate::batch::table::{rate_rows, RateRow};
use crate::batch::BatchSummary;
use crate::model::{Channel, Report};
use crate::stats::Rate;
use std::collections::BTreeSet;

/// A leaked secret as a comparison sees it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LeakedSecret {
    pub data_type: String,
    pub redacted_value: String,
    pub channel: Channel,
}

/// One headline number of both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    pub field: &'static str,
    pub a: String,
    pub b: String,
    /// B − A for numbers, `None` for text.
    pub change: Option<f64>,
}

/// The per-channel RI of both runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelChange {
    pub channel: Channel,
    pub a: f64,
    pub b: f64,
}

impl ChannelChange {
    /// "better" (B lower), "worse" (B higher) or "same".
    pub fn direction(&self) -> &'static str {
        match self.b.total_cmp(&self.a) {
            std::cmp::Ordering::Less => "better",
            std::cmp::Ordering::Greater => "worse",
            std::cmp::Ordering::Equal => "same",
        }
    }
}

/// Run A against run B.
#[derive(Debug, Clone, PartialEq)]
pub struct RunComparison {
    pub deltas: Vec<Delta>,
    pub only_in_a: Vec<LeakedSecret>,
    pub only_in_b: Vec<LeakedSecret>,
    pub in_both: usize,
    /// Every disclosure channel with RI above 0 in either run.
    pub channels: Vec<ChannelChange>,
}

fn secrets(report: &Report) -> BTreeSet<LeakedSecret> {
    crate::util::btree_set(report.findings.iter().filter(|f| f.channel.is_disclosure()).map(|f| LeakedSecret {
        data_type: f.data_type.to_string(),
        redacted_value: f.redacted_value.clone(),
        channel: f.channel,
    }))
}

fn channel_ri(report: &Report, channel: Channel) -> f64 {
    match &report.agentrisk {
        Some(block) if !block.ri_by_channel.is_empty() => {
            block.ri_by_channel.iter().find(|(c, _)| *c == channel).map_or(0.0, |(_, v)| *v)
        }
        _ => report.channel_risks.iter().find(|r| r.channel == channel).map_or(0.0, |r| r.ri),
    }
}

/// Compares run `a` with run `b` (the change is B − A).
pub fn compare_runs(a: &Report, b: &Report) -> RunComparison {
    let number = |field, x: f64, y: f64, shown: &dyn Fn(f64) -> String| Delta {
        field,
        a: shown(x),
        b: shown(y),
        change: Some(y - x),
    };
    let four = |v: f64| format!("{v:.4}");
    let whole = |v: f64| format!("{v:.0}");
    let text = |field, x: &str, y: &str| Delta { field, a: x.to_owned(), b: y.to_owned(), change: None };
    let deltas = vec![
        number("Risk Index", a.risk_index, b.risk_index, &four),
        number("Privacy score", a.privacy_score as f64, b.privacy_score as f64, &whole),
        text("Verdict", &a.verdict, &b.verdict),
        text(
            "Gate",
            if a.blocked { "blocked" } else { "not blocked" },
            if b.blocked { "blocked" } else { "not blocked" },
        ),
        number("Leaked secrets", a.summary.leaked_secrets as f64, b.summary.leaked_secrets as f64, &whole),
        number("Vault secrets", a.summary.vault_secrets as f64, b.summary.vault_secrets as f64, &whole),
        number("WSL", a.wsl as f64, b.wsl as f64, &whole),
        number("ρ_S", a.rho_s as f64, b.rho_s as f64, &whole),
    ];
    let (sa, sb) = (secrets(a), secrets(b));
    let channels = Channel::ALL
        .into_iter()
        .filter(|c| c.is_disclosure())
        .map(|channel| ChannelChange { channel, a: channel_ri(a, channel), b: channel_ri(b, channel) })
        .filter(|c| c.a > 0.0 || c.b > 0.0)
        .collect();
    RunComparison {
        deltas,
        only_in_a: sa.difference(&sb).cloned().collect(),
        only_in_b: sb.difference(&sa).cloned().collect(),
        in_both: sa.intersection(&sb).count(),
        channels,
    }
}

/// One rate of two groups.
#[derive(Debug, Clone, PartialEq)]
pub struct RatePair {
    pub metric: String,
    pub a: Rate,
    pub b: Rate,
}

impl RatePair {
    /// Whether the two intervals overlap; `None` when either has none.
    pub fn overlap(&self) -> Option<bool> {
        let (al, au, bl, bu) = (self.a.lower?, self.a.upper?, self.b.lower?, self.b.upper?);
        Some(al <= bu && bl <= au)
    }
}

/// The rates of two summaries (groups, or whole batches), metric by metric.
pub fn compare_groups(a: &BatchSummary, b: &BatchSummary) -> Vec<RatePair> {
    let whole = |s: &BatchSummary| -> Vec<RateRow> {
        let plain = BatchSummary { redteam: None, groups: Default::default(), ..s.clone() };
        rate_rows(&plain)
    };
    whole(a).into_iter().zip(whole(b)).map(|(x, y)| RatePair { metric: x.metric, a: x.rate, b: y.rate }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::IntervalMethod;

    #[test]
    fn intervals_overlap_or_not() {
        let m = IntervalMethod::default();
        // 1/10: 0.018–0.404; 9/10: 0.596–0.982; 5/10: 0.237–0.763.
        let pair = |x, y| RatePair { metric: String::new(), a: m.rate(x, 10).unwrap(), b: m.rate(y, 10).unwrap() };
        assert_eq!(pair(1, 9).overlap(), Some(false));
        assert_eq!(pair(1, 5).overlap(), Some(true));
        let none = RatePair { metric: String::new(), a: m.rate(0, 0).unwrap(), b: m.rate(1, 2).unwrap() };
        assert_eq!(none.overlap(), None);
    }
}
