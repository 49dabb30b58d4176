//! Batches over time: per batch the leak rate and block rate with their
//! Wilson intervals, the mean Risk Index and the verdict shares, in the
//! batches' order — what `agentrisk history` prints and the viewer's Trend
//! view draws.
//!
//! # Order
//!
//! A batch is ordered by its `generated_at` when it has one (a batch that
//! is one scorecard file takes the scorecard's), else by its name (a
//! folder's name, a file's path as given). The keys are compared as text:
//! agentrisk writes `generated_at` in UTC (`2026-12-07T09:30:00+00:00`),
//! which sorts by time, and folders named by date (`2026-12-07`) sort the
//! same way. Equal keys keep their input order.

use crate::batch::table::{format_ri, interval_text, percent, to_text};
use crate::batch::{keyed_map, summarize, RunFacts, VerdictShare};
use crate::model::Verdict;
use crate::stats::{IntervalMethod, Rate};
use serde::Serialize;

/// One batch as a shell read it.
#[derive(Debug, Clone, Copy)]
pub struct HistoryInput<'a> {
    /// As the user named it: a folder's name, a file's path.
    pub name: &'a str,
    /// When a scorecard batch was written, if it says.
    pub generated_at: Option<&'a str>,
    pub runs: &'a [RunFacts],
}

/// Batches in order, each summarised. Serialises as `agentrisk history
/// --json` prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct History {
    pub confidence: f64,
    pub continuity_correction: bool,
    /// The rates' interval method, in words.
    pub method: String,
    pub batches: Vec<HistoryBatch>,
}

/// One batch of the history.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct HistoryBatch {
    /// Its place in the inputs given (a viewer maps a row back to its batch).
    #[serde(skip)]
    pub input: usize,
    pub name: String,
    pub generated_at: Option<String>,
    pub runs: u64,
    pub leak_rate: Rate,
    pub block_rate: Rate,
    /// `null` with no runs.
    pub mean_risk_index: Option<f64>,
    #[cfg_attr(feature = "typescript", ts(as = "std::collections::BTreeMap<Verdict, VerdictShare>"))]
    #[serde(serialize_with = "keyed_map")]
    pub verdicts: Vec<VerdictShare>,
}

/// The batches in their order (module doc), each summarised at `method`.
pub fn history(batches: &[HistoryInput<'_>], method: IntervalMethod) -> History {
    // An insertion sort, stable: a history has a handful of batches, and
    // the browser's download is spared a sort of its own.
    fn key<'a>(batch: &HistoryInput<'a>) -> &'a str {
        batch.generated_at.unwrap_or(batch.name)
    }
    let mut ordered: Vec<(usize, &HistoryInput<'_>)> = Vec::with_capacity(batches.len());
    for (i, batch) in batches.iter().enumerate() {
        let at = ordered.iter().rposition(|(_, b)| key(b) <= key(batch)).map_or(0, |p| p + 1);
        ordered.insert(at, (i, batch));
    }
    History {
        confidence: method.confidence(),
        continuity_correction: method.continuity_correction(),
        method: method.describe(),
        batches: ordered
            .into_iter()
            .map(|(input, batch)| {
                let summary = summarize(batch.runs, &[], method, None);
                HistoryBatch {
                    input,
                    name: batch.name.to_owned(),
                    generated_at: batch.generated_at.map(str::to_owned),
                    runs: summary.runs,
                    leak_rate: summary.leak_rate,
                    block_rate: summary.block_rate,
                    mean_risk_index: summary.risk_index.mean,
                    verdicts: summary.verdicts,
                }
            })
            .collect(),
    }
}

impl History {
    /// The column heads of the history table (the interval's names its level).
    pub fn header(&self) -> [String; 13] {
        let level = IntervalMethod::new(self.confidence, self.continuity_correction).unwrap_or_default();
        let interval = format!("{}% interval", level.confidence_label());
        let mut head: Vec<String> =
            ["#", "Batch", "Generated at", "Runs", "Leak rate", &interval, "Block rate", &interval, "Mean RI"]
                .map(str::to_owned)
                .to_vec();
        head.extend(Verdict::ALL.iter().map(|v| v.as_str().to_owned()));
        head.try_into().unwrap_or_default()
    }

    /// Each batch's row of the history table, as on screen.
    pub fn rows(&self) -> Vec<[String; 13]> {
        self.batches
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let share = |verdict: Verdict| {
                    b.verdicts
                        .iter()
                        .find(|v| v.verdict == verdict)
                        .map_or_else(|| "—".to_owned(), |v| format!("{} ({})", v.count, percent(v.share.rate)))
                };
                [
                    format!("{}", i + 1),
                    b.name.clone(),
                    b.generated_at.clone().unwrap_or_else(|| "—".to_owned()),
                    b.runs.to_string(),
                    format!("{}/{} ({})", b.leak_rate.k, b.leak_rate.n, percent(b.leak_rate.rate)),
                    interval_text(&b.leak_rate),
                    format!("{}/{} ({})", b.block_rate.k, b.block_rate.n, percent(b.block_rate.rate)),
                    interval_text(&b.block_rate),
                    b.mean_risk_index.map_or_else(|| "—".to_owned(), format_ri),
                    share(Verdict::Pass),
                    share(Verdict::ConditionalPass),
                    share(Verdict::HighRisk),
                    share(Verdict::Fail),
                ]
            })
            .collect()
    }

    /// The history for a terminal: the method, then the table.
    pub fn to_text(&self) -> String {
        format!(
            "{} batches, oldest first · {}\n\n{}",
            self.batches.len(),
            self.method,
            to_text(&self.header(), &self.rows())
        )
    }

    /// The history as Markdown: the method, then the table.
    pub fn to_markdown(&self) -> String {
        let cell = |text: &str| text.replace('|', "\\|").replace(['\n', '\r'], " ");
        let mut md = format!(
            "## AgentRisk history: {} batches\n\nOldest first (by `generated_at`, else by name). Every rate is k of n \
             runs with its {}.\n\n",
            self.batches.len(),
            self.method
        );
        md.push_str(&format!("| {} |\n", self.header().map(|h| cell(&h)).join(" | ")));
        md.push_str("|---:|---|---|---:|---:|---|---:|---|---:|---:|---:|---:|---:|\n");
        for row in self.rows() {
            let mut cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            if let Some(name) = cells.get_mut(1) {
                *name = format!("`{}`", name.replace('`', "'"));
            }
            md.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(risk_index: f64, verdict: &str, blocked: bool, leaked: u64) -> RunFacts {
        let facts = serde_json::json!({
            "file": "r.json", "source": "report", "run_id": "r", "risk_index": risk_index,
            "privacy_score": 50, "verdict": verdict, "blocked": blocked, "leaked_secrets": leaked,
            "vault_secrets": 10, "level_profile": {}, "vault_level_profile": {}, "channel_ri": {},
            "channel_leaks": {}, "event_channels": null,
        });
        serde_json::from_value(facts).unwrap()
    }

    #[test]
    fn batches_go_by_generated_at_else_by_name_and_each_is_summarised() {
        let week1 = [run(0.5, "Fail", true, 3), run(0.0, "Pass", false, 0)];
        let week2 = [run(0.25, "High risk", false, 1), run(0.0, "Pass", false, 0), run(0.0, "Pass", false, 0)];
        let folder = [run(0.0, "Pass", false, 0)];
        let inputs = [
            HistoryInput { name: "b.json", generated_at: Some("2026-12-08T10:00:00+00:00"), runs: &week2 },
            HistoryInput { name: "2026-12-09", generated_at: None, runs: &folder },
            HistoryInput { name: "z.json", generated_at: Some("2026-12-01T10:00:00+00:00"), runs: &week1 },
        ];
        let h = history(&inputs, IntervalMethod::default());
        let names: Vec<&str> = h.batches.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["z.json", "b.json", "2026-12-09"]);
        assert_eq!(h.batches.iter().map(|b| b.input).collect::<Vec<_>>(), [2, 0, 1]);
        let first = &h.batches[0];
        // 1 of 2 leaked; Wilson 95%: 0.0945–0.9055 (R: binom::binom.wilson(1, 2)).
        assert_eq!((first.leak_rate.k, first.leak_rate.n, first.block_rate.k), (1, 2, 1));
        assert!((first.leak_rate.lower.unwrap() - 0.094_531_205).abs() < 1e-8, "{:?}", first.leak_rate);
        assert_eq!(first.mean_risk_index, Some(0.25));
        // Week 2: mean RI 0.25 / 3; two of three passed.
        let second = &h.batches[1];
        assert!((second.mean_risk_index.unwrap() - 0.25 / 3.0).abs() < 1e-15);
        assert_eq!(second.verdicts[0].count, 2);
        assert_eq!(h.rows()[1][9], "2 (66.7%)");
        assert_eq!(h.rows()[0][4], "1/2 (50.0%)");
        assert_eq!(h.rows()[0][5], "9.5–90.5%");
        let json = serde_json::to_value(&h).unwrap();
        assert_eq!(json["batches"][2]["generated_at"], serde_json::Value::Null);
        assert_eq!(json["batches"][0]["verdicts"]["Fail"]["count"], 1);
        assert_eq!(json["method"], "Wilson score interval, 95%, no continuity correction");
        assert!(h.to_markdown().contains("| 3 | `2026-12-09` | — | 1 | 0/1 (0.0%) |"), "{}", h.to_markdown());
        assert!(h.to_text().starts_with("3 batches, oldest first · Wilson score interval, 95%"));
    }
}
