//! The batch's tables as rows of text: the rates table and the run table,
//! formatted once here so that the CLI, the viewer and the CSV exports show
//! the same values.

use super::{BatchSummary, Reading, RunFacts, NO_GROUP_KEY};
use crate::stats::{IntervalMethod, Rate};

/// The group column of rows that cover the whole batch.
pub const ALL_RUNS: &str = "(all runs)";

/// One row of the rates table.
#[derive(Debug, Clone, PartialEq)]
pub struct RateRow {
    /// [`ALL_RUNS`], or a group's key.
    pub group: String,
    pub metric: String,
    pub rate: Rate,
    /// E.g. "n from reports" for a channel whose n counts runs loaded from
    /// reports, or a CLR's average of leaked fields.
    pub note: String,
}

/// The rates of `summary`, then of each of its groups: leak and block rate,
/// verdict shares, per-channel and per-level leak rates, and for the whole
/// batch the red-team ASR (overall, by family, by class) and CLR.
pub fn rate_rows(summary: &BatchSummary) -> Vec<RateRow> {
    let mut rows = Vec::new();
    push_rates(&mut rows, ALL_RUNS, summary);
    if let Some(redteam) = &summary.redteam {
        let mut push = |metric: String, rate: Rate, note: String| {
            rows.push(RateRow { group: ALL_RUNS.to_owned(), metric, rate, note })
        };
        push("Attack success rate (ASR)".to_owned(), redteam.asr, String::new());
        for family in &redteam.asr_by_family {
            push(format!("ASR, family {} {}", family.id, family.name), family.rate, String::new());
        }
        for class in &redteam.asr_by_class {
            push(format!("ASR, class {} {}", class.id, class.name), class.rate, String::new());
        }
        for channel in &redteam.clr_per_channel {
            let note = format!("{:.2} expected types found on average", channel.avg_leaked_fields);
            push(format!("Channel leak rate (CLR) on {}", channel.channel), channel.rate, note);
        }
    }
    for (key, group) in &summary.groups {
        push_rates(&mut rows, key, group);
    }
    rows
}

fn push_rates(rows: &mut Vec<RateRow>, group: &str, s: &BatchSummary) {
    let mut push = |metric: String, rate: Rate, note: &str| {
        rows.push(RateRow { group: group.to_owned(), metric, rate, note: note.to_owned() })
    };
    let progress = s.reviewed.as_ref().map(|r| format!("{} of {} runs reviewed", r.runs_reviewed, s.runs));
    // As reviewed, every row says which reading it is; as detected, only
    // the rows a review changes, when there is one.
    let (headline, detected) = match s.reading {
        Reading::AsReviewed => (" (as reviewed)", " (as detected)"),
        Reading::AsDetected => ("", ""),
    };
    match (s.reading, &s.reviewed) {
        (Reading::AsDetected, Some(r)) => {
            let note = progress.unwrap_or_default();
            push("Leak rate (as detected)".to_owned(), s.leak_rate, "");
            push("Leak rate (as reviewed)".to_owned(), r.leak_rate, &note);
            push("Block rate (as detected)".to_owned(), s.block_rate, "");
            push("Block rate (as reviewed)".to_owned(), r.block_rate, &note);
        }
        _ => {
            let note = progress.unwrap_or_default();
            push(format!("Leak rate{headline}"), s.leak_rate, &note);
            push(format!("Block rate{headline}"), s.block_rate, &note);
        }
    }
    for v in &s.verdicts {
        push(format!("Verdict {}{headline}", v.verdict.as_str()), v.share, "");
    }
    for c in &s.channel_leak_rates {
        push(
            format!("Leak rate on {}{detected}", c.channel.as_str()),
            c.rate,
            if c.n_from_reports { "n from reports" } else { "" },
        );
    }
    for l in &s.level_leak_rates {
        push(format!("Leak rate at {} ({}){detected}", l.level.label(), l.level.badge()), l.rate, "");
    }
}

/// A share as a percentage with one decimal, or an em dash for none.
pub fn percent(value: Option<f64>) -> String {
    match value {
        Some(x) => format!("{:.1}%", x * 100.0),
        None => "—".to_owned(),
    }
}

/// A rate's interval as `11.8–76.9%`, or an em dash when n = 0.
pub fn interval_text(rate: &Rate) -> String {
    match (rate.lower, rate.upper) {
        (Some(lower), Some(upper)) => format!("{:.1}–{:.1}%", lower * 100.0, upper * 100.0),
        _ => "—".to_owned(),
    }
}

/// The column heads of the rates table; the interval's head names its
/// level, e.g. "95% interval".
pub fn rate_header(method: &IntervalMethod) -> [String; 7] {
    let interval = format!("{}% interval", method.confidence_label());
    ["Group", "Metric", "k", "n", "Rate", &interval, "Note"].map(str::to_owned)
}

/// A rates-table row as the cells shown on screen.
pub fn rate_cells(row: &RateRow) -> [String; 7] {
    [
        row.group.clone(),
        row.metric.clone(),
        row.rate.k.to_string(),
        row.rate.n.to_string(),
        percent(row.rate.rate),
        interval_text(&row.rate),
        row.note.clone(),
    ]
}

/// The column heads of the run table.
pub const RUN_HEADER: [&str; 11] = [
    "File",
    "Run id",
    "Agent",
    "Scenario",
    "Risk Index",
    "Privacy score",
    "Verdict",
    "Blocked",
    "Leaked secrets",
    "Vault secrets",
    "Leaked L1/L2/L3/L4",
];

/// A run-table row as the cells shown on screen.
pub fn run_cells(run: &RunFacts) -> [String; 11] {
    let p = run.level_profile;
    [
        run.file.clone(),
        run.run_id.clone(),
        run.agent_name.clone(),
        run.scenario_id.clone().unwrap_or_else(|| NO_GROUP_KEY.to_owned()),
        format_ri(run.risk_index),
        run.privacy_score.to_string(),
        run.verdict.clone(),
        if run.blocked { "yes" } else { "no" }.to_owned(),
        run.leaked_secrets.to_string(),
        run.vault_secrets.to_string(),
        format!("{}/{}/{}/{}", p.l1, p.l2, p.l3, p.l4),
    ]
}

/// An RI with four decimals, as reports round it.
pub fn format_ri(ri: f64) -> String {
    format!("{ri:.4}")
}

/// Rows as CSV (RFC 4180: fields quoted when they hold a comma, quote or
/// line break; CRLF line ends). A text field that a spreadsheet would run
/// as a formula (starting with `=`, `+`, `-`, `@`, tab or CR) gets a
/// leading `'`, so opening an export never executes file content.
pub fn to_csv<R: AsRef<[String]>>(header: &[String], rows: impl IntoIterator<Item = R>) -> String {
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let fields: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        out.push_str(&fields.join(","));
        out.push_str("\r\n");
    };
    line(header);
    for row in rows {
        line(row.as_ref());
    }
    out
}

fn csv_field(cell: &str) -> String {
    let numeric = cell.parse::<f64>().is_ok();
    let guarded = match cell.chars().next() {
        Some('=' | '+' | '-' | '@' | '\t' | '\r') if !numeric => format!("'{cell}"),
        _ => cell.to_owned(),
    };
    if guarded.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
    }
}

/// Cells as a plain-text table with columns padded to their widest cell
/// (by characters), for the terminal.
pub fn to_text<const N: usize>(header: &[String; N], rows: &[[String; N]]) -> String {
    let mut widths = header.each_ref().map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows) {
        let cells: Vec<String> = row.iter().zip(widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// A batch as a Markdown document: the method, RI and score statistics, and
/// the rates table with the same cells as on screen.
pub fn markdown_batch(summary: &super::BatchSummary, method: &IntervalMethod) -> String {
    let cell = |text: &str| text.replace('|', "\\|");
    let fixed = |v: Option<f64>, dp: usize| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.dp$}"));
    let mut md =
        format!("# Batch of {} runs\n\nEvery rate is k of n runs with its {}.\n\n", summary.runs, method.describe());
    if summary.reading == Reading::AsReviewed {
        md.push_str(
            "Rates as reviewed: each reviewed run counts with its reviewed numbers, the others as detected; \
             per-channel and per-level rates stay as detected.\n\n",
        );
    }
    if let Some(r) = &summary.reviewed {
        md.push_str(&format!("Review: {}.\n\n", r.progress(summary.runs)));
    }
    let label = match summary.reading {
        Reading::AsReviewed => " (as reviewed)",
        Reading::AsDetected => "",
    };
    md.push_str("| | Mean | Median | Min | Max |\n|---|---:|---:|---:|---:|\n");
    let (ri, ps) = (&summary.risk_index, &summary.privacy_score);
    md.push_str(&format!(
        "| Risk Index{label} | {} | {} | {} | {} |\n",
        fixed(ri.mean, 4),
        fixed(ri.median, 4),
        fixed(ri.min, 4),
        fixed(ri.max, 4)
    ));
    md.push_str(&format!(
        "| Privacy score{label} | {} | {} | {} | {} |\n\n",
        fixed(ps.mean, 1),
        fixed(ps.median, 1),
        fixed(ps.min, 0),
        fixed(ps.max, 0)
    ));
    let header = rate_header(method);
    md.push_str(&format!("| {} |\n|---|---|---:|---:|---:|---|---|\n", header.join(" | ")));
    for row in rate_rows(summary) {
        let cells: Vec<String> = rate_cells(&row).iter().map(|c| cell(c)).collect();
        md.push_str(&format!("| {} |\n", cells.join(" | ")));
    }
    md
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::summarize;

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        let header = ["a", "b", "c"].map(str::to_owned);
        let rows = [
            ["=HYPERLINK(\"x\")", "-0.5", "one, two"].map(str::to_owned),
            ["@sum", "line\nbreak", "+1"].map(str::to_owned),
        ];
        let csv = to_csv(&header, rows);
        // "-0.5" and "+1" are numbers and stay as they are; text that a
        // spreadsheet would evaluate gets a leading quote mark.
        assert_eq!(csv, "a,b,c\r\n\"'=HYPERLINK(\"\"x\"\")\",-0.5,\"one, two\"\r\n'@sum,\"line\nbreak\",+1\r\n");
    }

    #[test]
    fn percentages_and_intervals_read_as_on_screen() {
        let method = IntervalMethod::default();
        // 5 of 10 at 95%: Wilson 0.2366–0.7634.
        let rate = method.rate(5, 10).unwrap();
        assert_eq!((percent(rate.rate), interval_text(&rate)), ("50.0%".to_owned(), "23.7–76.3%".to_owned()));
        let none = method.rate(0, 0).unwrap();
        assert_eq!((percent(none.rate), interval_text(&none)), ("—".to_owned(), "—".to_owned()));
        assert_eq!(rate_header(&IntervalMethod::new(0.999, false).unwrap())[5], "99.9% interval");
    }

    #[test]
    fn an_empty_batch_has_sixteen_rows_of_no_rate() {
        // 2 (leak, block) + 4 verdicts + 6 disclosure channels + 4 levels.
        let summary = summarize(&[], &[], IntervalMethod::default(), None);
        let rows = rate_rows(&summary);
        assert_eq!(rows.len(), 16);
        assert_eq!(rows[0].metric, "Leak rate");
        assert_eq!(rows[15].metric, "Leak rate at L4 (critical)");
        assert!(rows.iter().all(|r| r.group == ALL_RUNS && r.rate.n == 0 && rate_cells(r)[4] == "—"));
    }
}
