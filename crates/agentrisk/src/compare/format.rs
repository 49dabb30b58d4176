//! A diff as text for a terminal and as Markdown for a pull-request
//! comment, written once here so that the CLI, the viewer's export and the
//! JavaScript package give the same words.

use super::{difference_method, points, signed, Diff, Direction, RateChange, RunDiff};
use crate::batch::table::{percent, to_text};
use crate::batch::LeakedSecret;
use crate::model::Level;
use crate::stats::{IntervalMethod, Rate};

impl Diff {
    /// The interval method of the rates (both sides').
    fn method(&self) -> IntervalMethod {
        IntervalMethod::new(self.confidence, self.continuity_correction).unwrap_or_default()
    }

    fn matched_line(&self) -> String {
        let by = |how: super::MatchedBy| self.runs.iter().filter(|r| r.matched_by == how).count();
        let mut ways = Vec::new();
        for (how, words) in [
            (super::MatchedBy::RunId, "by run id"),
            (super::MatchedBy::ScenarioId, "by scenario id"),
            (super::MatchedBy::OnlyRuns, "as the only runs"),
        ] {
            if by(how) > 0 {
                ways.push(format!("{} {words}", by(how)));
            }
        }
        format!(
            "{} runs matched{}, {} only in BASE, {} only in NEW",
            self.runs.len(),
            if ways.is_empty() { String::new() } else { format!(" ({})", ways.join(", ")) },
            self.only_in_base.len(),
            self.only_in_new.len()
        )
    }

    /// The diff for a terminal: the sides, the rates table, the paired
    /// line, the runs that changed, the runs without a match, the
    /// regressions, the rules and the notes.
    pub fn to_text(&self) -> String {
        let method = self.method();
        let mut out = format!(
            "BASE {} ({} runs) → NEW {} ({} runs)\n{}\nRates: k of n runs with the {}; NEW − BASE with the {}\n\n",
            self.base_name,
            self.base_runs,
            self.new_name,
            self.new_runs,
            self.matched_line(),
            method.describe(),
            difference_method(&method)
        );
        let header = ["Metric", "BASE", "NEW", "NEW − BASE", &format!("{}% interval", method.confidence_label())]
            .map(str::to_owned);
        let rows: Vec<[String; 5]> = self
            .rates
            .iter()
            .map(|r| [r.label.clone(), rate_text(&r.base), rate_text(&r.new), difference_text(r), interval_text(r)])
            .collect();
        out.push_str(&to_text(&header, &rows));
        if let Some(p) = &self.paired {
            out.push_str(&format!(
                "\nPaired leak rate over {} matched runs: both {}, BASE only {}, NEW only {}, neither {}; NEW − BASE {}; \
                 exact McNemar p = {}\n",
                p.pairs,
                p.both,
                p.base_only,
                p.new_only,
                p.neither,
                points(p.difference),
                super::p_value(p.mcnemar_exact_p)
            ));
        }
        let changed: Vec<&RunDiff> = self.runs.iter().filter(|r| r.changed()).collect();
        out.push_str(&format!("\nRuns that changed ({} of {} matched)\n", changed.len(), self.runs.len()));
        for run in changed {
            out.push_str(&format!("  {}\n    {}\n", run.key, run.headline_change()));
            match (&run.new_leaks, &run.resolved_leaks) {
                (Some(new), Some(resolved)) => {
                    for s in new {
                        out.push_str(&format!("    new leak: {}\n", super::secret_words(s)));
                    }
                    for s in resolved {
                        out.push_str(&format!("    resolved: {}\n", super::secret_words(s)));
                    }
                }
                _ => out.push_str("    leaked secrets: unknown (a scorecard row without per-run secrets)\n"),
            }
            for c in run.channel_changes.iter().filter(|c| c.change != 0.0) {
                out.push_str(&format!(
                    "    {} RI {:.4} → {:.4} ({})\n",
                    c.channel.as_str(),
                    c.base,
                    c.new,
                    direction_word(c.direction())
                ));
            }
        }
        for (label, list) in [("BASE", &self.only_in_base), ("NEW", &self.only_in_new)] {
            out.push_str(&format!("\nOnly in {label} ({})\n", list.len()));
            for run in list.iter() {
                out.push_str(&format!("  {} ({})\n", run.run_id, run.file));
            }
        }
        out.push_str(&format!("\nRegressions ({})\n", self.regressions.len()));
        for line in &self.regressions {
            out.push_str(&format!("  - {line}\n"));
        }
        if !self.fail_on.is_empty() {
            out.push_str("\nFail on\n");
            for rule in &self.fail_on {
                out.push_str(&format!("  {}: {}\n", rule.rule, rule_state(rule)));
                for reason in &rule.reasons {
                    out.push_str(&format!("    - {reason}\n"));
                }
                for reason in &rule.unchecked {
                    out.push_str(&format!("    - cannot check: {reason}\n"));
                }
            }
        }
        if !self.notes.is_empty() {
            out.push_str("\nNotes\n");
            for note in &self.notes {
                out.push_str(&format!("  - {note}\n"));
            }
        }
        out
    }

    /// The diff as a compact pull-request comment: the outcome, the rules,
    /// verdict changes, new L3/L4 leaks, the rates that moved with their
    /// intervals and the paired line; the regressions and notes folded.
    pub fn to_markdown(&self) -> String {
        let method = self.method();
        let mut md = format!("## AgentRisk diff: {} → {}\n\n", code(&self.base_name), code(&self.new_name));
        let outcome = match self.regressions.len() {
            0 => "**No regressions**".to_owned(),
            1 => "**1 regression**".to_owned(),
            n => format!("**{n} regressions**"),
        };
        md.push_str(&format!(
            "{outcome} · BASE {} runs, NEW {} runs · {}\n\n",
            self.base_runs,
            self.new_runs,
            self.matched_line()
        ));
        if !self.fail_on.is_empty() {
            let rules: Vec<String> =
                self.fail_on.iter().map(|r| format!("{} {}", code(&r.rule), rule_state(r))).collect();
            md.push_str(&format!("**Fail on:** {}\n\n", rules.join(" · ")));
        }

        let verdicts: Vec<&RunDiff> = self.runs.iter().filter(|r| r.verdict_changed || r.gate_changed).collect();
        md.push_str("### Verdict changes\n\n");
        if verdicts.is_empty() {
            md.push_str("None.\n\n");
        } else {
            md.push_str("| Run | BASE | NEW | Privacy score | Gate |\n|---|---|---|---:|---|\n");
            for run in verdicts.iter().take(MARKDOWN_ROWS) {
                md.push_str(&format!(
                    "| {} | {} | {} | {} → {} ({}) | {} |\n",
                    cell_code(&run.key),
                    text(&run.base.verdict),
                    text(&run.new.verdict),
                    run.base.privacy_score,
                    run.new.privacy_score,
                    signed(run.privacy_score_change),
                    gate_words(run.base.blocked, run.new.blocked)
                ));
            }
            md.push_str(&more(verdicts.len()));
            md.push('\n');
        }

        let serious: Vec<(&str, &LeakedSecret)> = self
            .runs
            .iter()
            .flat_map(|r| r.new_leaks.iter().flatten().filter(|s| s.level >= Level::L3).map(|s| (r.key.as_str(), s)))
            .collect();
        md.push_str("### New L3/L4 leaks\n\n");
        if serious.is_empty() {
            md.push_str("None.\n\n");
        } else {
            md.push_str("| Run | Data type | Level | Channel | Value (redacted) |\n|---|---|---|---|---|\n");
            for (key, s) in serious.iter().take(MARKDOWN_ROWS) {
                md.push_str(&format!(
                    "| {} | {} | {} ({}) | {} | {} |\n",
                    cell_code(key),
                    cell_code(&s.data_type),
                    s.level.label(),
                    s.level.badge(),
                    s.channel.as_str(),
                    cell_code(&s.redacted_value)
                ));
            }
            md.push_str(&more(serious.len()));
            md.push('\n');
        }
        let unknown = self.runs.iter().filter(|r| r.new_leaks.is_none()).count();
        if unknown > 0 {
            md.push_str(&format!("_{unknown} matched runs have unknown secrets (see the notes)._\n\n"));
        }

        let moved: Vec<&RateChange> = self.rates.iter().filter(|r| r.difference.is_some_and(|d| d != 0.0)).collect();
        md.push_str("### Rates that moved\n\n");
        if moved.is_empty() {
            md.push_str("None.\n\n");
        } else {
            md.push_str(&format!(
                "| Rate | BASE | NEW | NEW − BASE ({}% interval) |\n|---|---:|---:|---|\n",
                method.confidence_label()
            ));
            for r in moved {
                let change = format!("{} ({})", difference_text(r), interval_text(r));
                let shown = if r.is_higher() || r.is_lower() { format!("**{change}**") } else { change };
                md.push_str(&format!("| {} | {} | {} | {shown} |\n", r.label, rate_text(&r.base), rate_text(&r.new)));
            }
            md.push_str(&format!(
                "\n_Rates: k of n runs with the {}. Differences: the {}; **bold** when the interval excludes 0._\n\n",
                method.describe(),
                difference_method(&method)
            ));
        }
        if let Some(p) = &self.paired {
            md.push_str(&format!(
                "Paired leak rate over {} matched runs: {} leak only in NEW, {} only in BASE, {} in both, {} in neither \
                 ({}); exact McNemar p = {}.\n\n",
                p.pairs,
                p.new_only,
                p.base_only,
                p.both,
                p.neither,
                points(p.difference),
                super::p_value(p.mcnemar_exact_p)
            ));
        }
        if !self.regressions.is_empty() {
            md.push_str(&format!("<details><summary>Regressions ({})</summary>\n\n", self.regressions.len()));
            for line in &self.regressions {
                md.push_str(&format!("- {}\n", text(line)));
            }
            md.push_str("\n</details>\n\n");
        }
        let fired: Vec<String> = self
            .fail_on
            .iter()
            .flat_map(|r| {
                r.reasons.iter().map(move |reason| format!("- {} {}", code(&r.rule), text(reason))).chain(
                    r.unchecked.iter().map(move |reason| format!("- {} cannot check: {}", code(&r.rule), text(reason))),
                )
            })
            .collect();
        if !fired.is_empty() {
            md.push_str(&format!("<details><summary>Rule details ({})</summary>\n\n", fired.len()));
            md.push_str(&fired.join("\n"));
            md.push_str("\n\n</details>\n\n");
        }
        for note in &self.notes {
            md.push_str(&format!("> {}\n", text(note)));
        }
        if !self.notes.is_empty() {
            md.push('\n');
        }
        while md.ends_with("\n\n") {
            md.pop();
        }
        md
    }
}

impl RunDiff {
    /// Anything differs between the two runs.
    pub fn changed(&self) -> bool {
        let leaks = |l: &Option<Vec<LeakedSecret>>| l.as_ref().is_some_and(|l| !l.is_empty());
        self.risk_index_change != 0.0
            || self.privacy_score_change != 0
            || self.verdict_changed
            || self.gate_changed
            || leaks(&self.new_leaks)
            || leaks(&self.resolved_leaks)
            || self.channel_changes.iter().any(|c| c.change != 0.0)
    }

    /// RI, privacy score, verdict and gate of both runs, in one line.
    pub fn headline_change(&self) -> String {
        let (b, n) = (&self.base, &self.new);
        let gate = |blocked: bool| if blocked { "blocked" } else { "not blocked" };
        format!(
            "RI {:.4} → {:.4} ({}{:.4}) · privacy score {} → {} ({}) · verdict {} → {} · gate {} → {}",
            b.risk_index,
            n.risk_index,
            if self.risk_index_change < 0.0 { "−" } else { "+" },
            self.risk_index_change.abs(),
            b.privacy_score,
            n.privacy_score,
            signed(self.privacy_score_change),
            b.verdict,
            n.verdict,
            gate(b.blocked),
            gate(n.blocked)
        )
    }
}

/// A pull-request comment lists at most this many rows per table.
const MARKDOWN_ROWS: usize = 50;

/// The line under a table cut at [`MARKDOWN_ROWS`], if it was.
fn more(rows: usize) -> String {
    if rows > MARKDOWN_ROWS {
        format!("\n_… and {} more; `--format json` lists every one._\n", rows - MARKDOWN_ROWS)
    } else {
        String::new()
    }
}

fn rule_state(rule: &super::RuleOutcome) -> &'static str {
    if rule.fired {
        "fired"
    } else if !rule.unchecked.is_empty() {
        "could not be checked"
    } else {
        "passed"
    }
}

fn direction_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Better => "better",
        Direction::Worse => "worse",
        Direction::Same => "same",
        Direction::Unknown => "cannot tell",
    }
}

fn gate_words(base: bool, new: bool) -> &'static str {
    match (base, new) {
        (false, true) => "blocked now",
        (true, false) => "no longer blocked",
        (true, true) => "blocked",
        (false, false) => "not blocked",
    }
}

/// `5/10 (50.0%)`, or `0/0 (—)`.
pub(crate) fn rate_text(rate: &Rate) -> String {
    format!("{}/{} ({})", rate.k, rate.n, percent(rate.rate))
}

/// The difference in points, or an em dash.
pub(crate) fn difference_text(rate: &RateChange) -> String {
    rate.difference.map_or_else(|| "—".to_owned(), points)
}

/// The difference's interval, `−30.5 to +45.8 pts`, or an em dash.
pub(crate) fn interval_text(rate: &RateChange) -> String {
    match (rate.lower, rate.upper) {
        (Some(l), Some(u)) => format!("{} to {}", points(l).trim_end_matches(" pts"), points(u)),
        _ => "—".to_owned(),
    }
}

/// Text from a file as a Markdown code span: a fence longer than any run
/// of backticks in it, line breaks as spaces, so nothing in it is markup.
fn code(value: &str) -> String {
    let flat = value.replace(['\n', '\r'], " ");
    let longest = flat.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if flat.starts_with('`') || flat.ends_with('`') || flat.is_empty() { " " } else { "" };
    format!("{fence}{pad}{flat}{pad}{fence}")
}

/// [`code`] inside a table cell: a pipe is escaped so it does not end the cell.
fn cell_code(value: &str) -> String {
    code(value).replace('|', "\\|")
}

/// Plain words that may hold text from files, every Markdown character escaped.
fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            // Enough to keep file text from becoming emphasis, links,
            // images, HTML, code or table cells; `(`, `#` and `!` do
            // nothing here (every line starts with "- ", and `[` is escaped).
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}
