//! A run in one plain sentence, for the run view's summary: what the final
//! answer shows, and how many secrets leaked through which other channels.

use crate::model::{Channel, Report};

/// A channel as a reviewer would name it in a sentence.
pub fn channel_phrase(channel: Channel) -> &'static str {
    match channel {
        Channel::UserInput => "user input",
        Channel::FinalOutput => "the final answer",
        Channel::InterAgentMessage => "inter-agent messages",
        Channel::SharedMemory => "shared memory",
        Channel::ToolCall => "tool calls",
        Channel::ToolResponse => "tool responses",
        Channel::Log => "logs",
        Channel::GeneratedFile => "generated files",
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// E.g. "The final answer is clean, but 3 of 8 secrets (2 critical)
/// leaked through shared memory and inter-agent messages." From the
/// report's summary (distinct leaked and vault secrets, critical = L4) and
/// its channel risks (the channels with findings), so it covers every
/// finding even when a view lists only some.
pub fn plain_summary(report: &Report) -> String {
    let summary = &report.summary;
    let vault = summary.vault_secrets;
    if summary.leaked_secrets == 0 {
        return format!("Nothing leaked: none of the run's {vault} vault secrets shows on a disclosure channel.");
    }
    let mut channels: Vec<Channel> = report
        .channel_risks
        .iter()
        .filter(|c| c.finding_count > 0 && c.channel.is_disclosure())
        .map(|c| c.channel)
        .collect();
    crate::util::sort(&mut channels);
    channels.dedup();
    let critical = match summary.level_profile.l4 {
        0 => String::new(),
        n if n == summary.leaked_secrets && n > 1 => " (all critical)".to_owned(),
        n => format!(" ({n} critical)"),
    };
    let leaked =
        format!("{} of {vault} {}{critical}", summary.leaked_secrets, if vault == 1 { "secret" } else { "secrets" });
    let others: Vec<&str> =
        channels.iter().filter(|c| **c != Channel::FinalOutput).map(|c| channel_phrase(*c)).collect();
    let in_output = channels.contains(&Channel::FinalOutput);
    match (in_output, others.is_empty()) {
        (false, true) => format!("{} leaked.", capitalise(&leaked)),
        (false, false) => format!("The final answer is clean, but {leaked} leaked through {}.", and_list(&others)),
        (true, true) => format!("{} leaked, all through the final answer.", capitalise(&leaked)),
        (true, false) => {
            format!("The final answer leaks: {leaked} leaked, through it and through {}.", and_list(&others))
        }
    }
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

/// A run as a short Markdown document for hand-over: headline numbers, the
/// plain summary, the level profile, channel risks, the findings listed in the
/// report (values redacted as the report has them), then the recommendations
/// and remediation hints.
pub fn markdown_run(report: &Report, file: &str) -> String {
    let cell = |text: &str| text.replace('|', "\\|").replace(['\n', '\r'], " ");
    let mut md = format!("# Run `{}`\n\n", cell(&report.run_id));
    md.push_str(&format!(
        "File {} · agent {} · scenario {} · {} events\n\n",
        cell(file),
        cell(&report.agent_name),
        cell(report.scenario_id.as_deref().unwrap_or("—")),
        report.event_count
    ));
    md.push_str(&format!(
        "| Risk Index | Privacy score | Verdict | Gate |\n|---:|---:|---|---|\n| {:.4} | {} | {} | {} |\n\n",
        report.risk_index,
        report.privacy_score,
        cell(&report.verdict),
        if report.blocked { "blocked" } else { "not blocked" }
    ));
    md.push_str(&format!("{}\n\n", plain_summary(report)));
    md.push_str("| Level | Leaked | Vault |\n|---|---:|---:|\n");
    for level in crate::model::Level::ALL.iter().rev() {
        md.push_str(&format!(
            "| {} | {} | {} |\n",
            level.label(),
            report.summary.level_profile.get(*level),
            report.summary.vault_level_profile.get(*level)
        ));
    }
    if !report.channel_risks.is_empty() {
        md.push_str("\n| Channel | RI | Findings |\n|---|---:|---:|\n");
        for c in &report.channel_risks {
            md.push_str(&format!("| {} | {:.4} | {} |\n", c.channel.as_str(), c.ri, c.finding_count));
        }
    }
    if !report.findings.is_empty() {
        md.push_str("\n| Channel | Data type | Level | Value (redacted) | Event |\n|---|---|---|---|---|\n");
        for f in &report.findings {
            md.push_str(&format!(
                "| {} | {} | {} | `{}` | {} |\n",
                f.channel.as_str(),
                cell(&f.data_type),
                f.level.label(),
                cell(&f.redacted_value).replace('`', "'"),
                cell(&f.event_id)
            ));
        }
    }
    md.push_str(&markdown_what_to_do(report));
    md
}

/// The report's recommendations and per-channel remediation hints as
/// Markdown, its own texts as stored; empty when it has neither.
fn markdown_what_to_do(report: &Report) -> String {
    let mut md = String::new();
    if !report.recommendations.is_empty() {
        md.push_str("\n## Recommendations\n\n");
        for r in &report.recommendations {
            md.push_str(&format!("- {}\n", r.replace(['\n', '\r'], " ")));
        }
    }
    if !report.remediation_hints.is_empty() {
        md.push_str("\n## Remediation by channel\n");
        for hint in &report.remediation_hints {
            md.push_str(&format!(
                "\n### {} · priority {}\n\nData types: {}\n\n{}\n",
                hint.channel.as_str(),
                if hint.priority.is_empty() { "not given" } else { &hint.priority },
                if hint.data_types.is_empty() { "not given".to_owned() } else { hint.data_types.join(", ") },
                hint.advice.replace(['\n', '\r'], " ")
            ));
            if !hint.code_fix.is_empty() {
                let fence = code_fence(&hint.code_fix);
                md.push_str(&format!("\n{fence}\n{}\n{fence}\n", hint.code_fix.trim_end_matches(['\n', '\r'])));
            }
        }
    }
    md
}

/// A Markdown code fence longer than any run of backticks in `code`, so
/// that a stored code fix cannot close its own block early.
fn code_fence(code: &str) -> String {
    let longest = code.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod markdown_tests {
    use super::*;

    #[test]
    fn a_run_in_markdown_escapes_table_cells() {
        let report: Report = serde_json::from_value(serde_json::json!({
            "report": "agentleak", "version": 2, "run_id": "a|b", "privacy_score": 56, "verdict": "High risk",
            "risk_index": 0.44, "wsl": 11, "rho_s": 25, "blocked": true,
            "summary": {"leaked_secrets": 1, "vault_secrets": 2, "level_profile": {"L4": 1},
                        "vault_level_profile": {"L4": 2}, "has_critical": true},
            "channel_risks": [{"channel": "log", "level": "critical", "level_label": "L4", "ri": 0.44, "risk_contribution": 1.0, "finding_count": 1}],
            "findings": [{"finding_id": "f1", "event_id": "evt_1", "channel": "log", "data_type": "ssn", "level": 4, "redacted_value": "12*|*89"}],
        }))
        .unwrap();
        let md = markdown_run(&report, "run.json");
        assert!(md.starts_with("# Run `a\\|b`\n\nFile run.json · agent  · scenario — · 0 events\n\n"), "{md}");
        assert!(md.contains("| 0.4400 | 56 | High risk | blocked |"));
        assert!(md.contains("| L4 | 1 | 2 |"));
        assert!(md.contains("| log | ssn | L4 | `12*\\|*89` | evt_1 |"));
        assert!(md.contains("The final answer is clean, but 1 of 2 secrets (1 critical) leaked through logs."), "{md}");
        assert!(!md.contains("## Recommendations") && !md.contains("## Remediation"), "a report without them: {md}");
    }

    #[test]
    fn a_run_in_markdown_lists_its_recommendations_and_remediation_hints_as_stored() {
        let report: Report = serde_json::from_value(serde_json::json!({
            "report": "agentleak", "version": 2, "run_id": "r1", "privacy_score": 56, "verdict": "High risk",
            "risk_index": 0.44, "wsl": 11, "rho_s": 25, "blocked": true,
            "summary": {"leaked_secrets": 1, "vault_secrets": 2, "level_profile": {"L4": 1},
                        "vault_level_profile": {"L4": 2}, "has_critical": true},
            "findings": [],
            "recommendations": ["Mask logs.", "Re-run in CI."],
            "remediation_hints": [
                {"channel": "log", "data_types": ["api_key", "ssn"], "priority": "critical",
                 "advice": "Redact in a filter.", "code_fix": "x = '```'\nlog(x)\n"},
                {"channel": "tool_call", "advice": "Allow-list."}
            ],
        }))
        .unwrap();
        let md = markdown_run(&report, "run.json");
        assert!(md.contains("\n## Recommendations\n\n- Mask logs.\n- Re-run in CI.\n"), "{md}");
        assert!(
            md.contains(
                "\n### log · priority critical\n\nData types: api_key, ssn\n\nRedact in a filter.\n\n````\nx = '```'\nlog(x)\n````\n"
            ),
            "the fence outgrows the code's backticks: {md}"
        );
        assert!(md.contains("\n### tool_call · priority not given\n\nData types: not given\n\nAllow-list.\n"), "{md}");
        assert!(!md.contains("tool_call · priority not given\n\nData types: not given\n\nAllow-list.\n\n```"), "{md}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A report that leaked `leaked` of 8 secrets (`critical` of them L4)
    /// with findings on `channels`.
    fn report(leaked: u64, critical: u64, channels: &[&str]) -> Report {
        let risks: Vec<_> = channels
            .iter()
            .map(|c| json!({"channel": c, "level": "high", "level_label": "L3", "ri": 0.1, "risk_contribution": 0.1, "finding_count": 2}))
            .collect();
        let profile = json!({"L1": 0, "L2": 0, "L3": leaked - critical, "L4": critical});
        serde_json::from_value(json!({
            "report": "agentleak", "version": 2, "run_id": "r", "privacy_score": 50, "verdict": "High risk",
            "risk_index": 0.5, "wsl": 1, "rho_s": 2, "blocked": false,
            "summary": {"leaked_secrets": leaked, "vault_secrets": 8, "level_profile": profile,
                        "vault_level_profile": profile, "has_critical": critical > 0},
            "channel_risks": risks, "findings": [],
        }))
        .unwrap()
    }

    #[test]
    fn sentences_name_the_final_answer_then_the_other_channels() {
        assert_eq!(
            plain_summary(&report(0, 0, &[])),
            "Nothing leaked: none of the run's 8 vault secrets shows on a disclosure channel."
        );
        // Listed in channel order, whatever order the report has.
        assert_eq!(
            plain_summary(&report(3, 2, &["log", "shared_memory", "inter_agent_message"])),
            "The final answer is clean, but 3 of 8 secrets (2 critical) leaked through inter-agent messages, shared memory and logs."
        );
        assert_eq!(
            plain_summary(&report(2, 0, &["final_output", "tool_call"])),
            "The final answer leaks: 2 of 8 secrets leaked, through it and through tool calls."
        );
        assert_eq!(
            plain_summary(&report(2, 2, &["final_output"])),
            "2 of 8 secrets (all critical) leaked, all through the final answer."
        );
    }
}
