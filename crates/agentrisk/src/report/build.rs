//! Building the AgentLeak v2 report from a run's findings (spec 3.1–3.7,
//! 3.9–3.13). Wording of recommendations and advice is ours; which
//! entries appear, in which order, with which data types and priority, is
//! the reference's.

use super::compliance::assess_compliance;
use super::flow::{flow_and_placements, leak_paths, AsFlowEvent, Placements};
use crate::analyze::Finding;
use crate::model::{
    AgentRiskBlock, Channel, ChannelRisk, CrossSession, Detection, Finding as ReportFinding, Level, PrivacyPolicy,
    RemediationHint, Report, Summary, Utility, REPORT_KIND,
};
use crate::score::{
    agentrisk_from_secrets, channel_risks, gate, round_dp, secrets_from_sightings, BlockReason, ScoringConfig,
    ScoringError, Sighting,
};
use std::borrow::Cow;
use std::sync::Arc;

/// What the report says about the trace itself.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    pub run_id: String,
    pub agent_name: String,
    pub scenario_id: Option<String>,
    pub task_success: Option<bool>,
    pub event_count: usize,
}

/// Report settings that do not change detection.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    pub project: String,
    pub scoring: ScoringConfig,
    pub redact_values: bool,
    pub detection: Detection,
    pub warnings: Vec<String>,
    /// UTC time of rendering, Python `isoformat()` style; the caller's clock.
    pub generated_at: String,
}

/// Builds the report up to what still needs the trace: the draft's
/// [`finish`](ReportDraft::finish) completes it. `events` are every event
/// of the trace, in order (for `flow` and `leak_paths`; the trace's own
/// events, read in place). `evaluate_policy` receives the rounded risk
/// index and the leaked findings (final order) and returns the
/// `privacy_policy` block, which feeds the gate.
pub fn build_report<E: AsFlowEvent>(
    facts: &RunFacts,
    events: &[E],
    findings: Vec<Finding>,
    options: &ReportOptions,
    evaluate_policy: impl FnOnce(f64, &[&Finding]) -> PrivacyPolicy,
) -> Result<ReportDraft, ScoringError> {
    let scoring = &options.scoring;
    let sightings = findings.iter().map(|f| Sighting {
        data_type: &f.data_type,
        value: &f.matched_value,
        level: f.level,
        channel: f.channel,
    });
    let secrets = secrets_from_sightings(sightings, scoring);
    let risk = agentrisk_from_secrets(&secrets, scoring)?;
    let leaked: Vec<&Finding> = findings.iter().filter(|f| f.channel.is_disclosure()).collect();
    let policy = evaluate_policy(round_dp(risk.ri, 4), &leaked);
    let g = gate(risk.ri, risk.has_critical, !policy.passed, scoring);
    let ri_by_channel: Vec<(Channel, f64)> = risk.ri_by_channel();
    let levels: Vec<(Channel, Level)> = findings.iter().map(|f| (f.channel, f.level)).collect();
    let risks = channel_risks(&levels, &ri_by_channel);
    let mut detectors: Vec<&str> = findings.iter().map(|f| &*f.detector).collect();
    crate::util::sort(&mut detectors);
    detectors.dedup();
    let detectors: Vec<String> = detectors.into_iter().map(str::to_owned).collect();
    let recommendations = recommendations(&risks, !leaked.is_empty());
    let remediation_hints = remediation_hints(&risks, &leaked);
    let total_findings = leaked.len() as u64;
    let detected_total = findings.len() as u64;
    drop(leaked);
    // Flow and leak paths need every finding, baseline ones too. The paths
    // themselves are built by `finish`, from where each finding sits.
    let (flow, placements) = flow_and_placements(events, &facts.agent_name, &findings);
    let report = Report {
        report: REPORT_KIND.to_owned(),
        version: 2,
        scoring: "agentrisk".to_owned(),
        project: options.project.clone(),
        run_id: facts.run_id.clone(),
        agent_name: facts.agent_name.clone(),
        scenario_id: facts.scenario_id.clone(),
        generated_at: options.generated_at.clone(),
        event_count: facts.event_count as u64,
        privacy_score: i64::from(g.privacy_score),
        verdict: g.verdict.as_str().to_owned(),
        risk_index: g.risk_index,
        wsl: risk.wsl as i64,
        rho_s: risk.rho_s as i64,
        scope_def: risk.scope_def.clone(),
        blocked: g.blocked,
        degraded: options.detection.degraded,
        detection: Some(options.detection.clone()),
        warnings: options.warnings.clone(),
        privacy_policy: Some(policy),
        utility: facts.task_success.map(|task_success| {
            let leaked = risk.leaked_count > 0;
            let quadrant = match (task_success, leaked) {
                (true, true) => "useful_but_leaky",
                (true, false) => "useful_and_safe",
                (false, true) => "failed_and_leaky",
                (false, false) => "safe_by_failing",
            };
            Utility { task_success, leaked, quadrant: quadrant.to_owned() }
        }),
        cross_session: Some(CrossSession {
            enabled: false,
            subject: String::new(),
            passed: true,
            secrets_attributed: 0,
            cross_subject_disclosures: Vec::new(),
            reason: "no subject ledger configured".to_owned(),
        }),
        summary: Summary {
            total_findings,
            detected_total,
            leaked_secrets: risk.leaked_count,
            vault_secrets: risk.vault_count,
            level_profile: risk.level_profile,
            vault_level_profile: risk.vault_level_profile,
            has_critical: risk.has_critical,
        },
        findings: Vec::new(),
        recommendations,
        remediation_hints,
        channel_risks: risks,
        agentrisk: Some(AgentRiskBlock {
            ri_global: g.risk_index,
            ri_by_channel: ri_by_channel.iter().map(|&(c, v)| (c, round_dp(v, 4))).collect(),
            ri_by_domain: Default::default(),
            wsl: risk.wsl as i64,
            rho_s: risk.rho_s as i64,
            level_profile: risk.level_profile,
            vault_level_profile: risk.vault_level_profile,
            leaked_count: risk.leaked_count,
            vault_count: risk.vault_count,
            rank_robust: true,
            detectors,
            scope_def: risk.scope_def,
            weights: Some(risk.weights.iter().map(|&w| w as i64).collect()),
        }),
        compliance: None,
        flow: Some(flow),
        leak_paths: None,
        metadata: None,
        span_source: None,
    };
    Ok(ReportDraft {
        report,
        findings,
        placements,
        redact_values: options.redact_values,
        block_reasons: g.block_reasons,
    })
}

/// A report whose findings are still the analysis's, whose leak paths are not
/// built and whose compliance is not assessed yet. Everything that reads the
/// trace's events is done, so a caller that has no more use for the trace can
/// let it go before [`ReportDraft::finish`] builds the rest.
pub struct ReportDraft {
    report: Report,
    /// Every finding, in final order.
    findings: Vec<Finding>,
    /// Where each finding sits in the trace, for the leak paths.
    placements: Placements,
    redact_values: bool,
    /// Why the gate blocks (empty when it does not): the report stores the
    /// decision, not its reasons.
    block_reasons: Vec<BlockReason>,
}

impl ReportDraft {
    /// Why the gate blocks this run, in the gate's order.
    pub fn block_reasons(&self) -> &[BlockReason] {
        &self.block_reasons
    }

    pub fn finish(self) -> Report {
        let ReportDraft { mut report, mut findings, placements, redact_values, block_reasons: _ } = self;
        // Built here rather than in the draft, so that the paths (13 MB for
        // 100 000 events) and the trace are never held together.
        report.leak_paths = Some(leak_paths(&findings, &placements, redact_values));
        drop(placements);
        // Last, so the findings' strings move into the report instead of
        // being copied, and the report's list is allocated at its exact length.
        findings.retain(|f| f.channel.is_disclosure());
        let run_id: Arc<str> = Arc::from(report.run_id.as_str());
        // Converted from the back, the finished part of the old list given
        // back as the new one fills, so the two lists (12 MB each for
        // 100 000 events) are never both held whole.
        findings.reverse();
        let mut report_findings: Vec<ReportFinding> = Vec::with_capacity(findings.len());
        while let Some(f) = findings.pop() {
            report_findings.push(report_finding(f, &run_id, redact_values));
            if findings.len() % 2048 == 0 {
                findings.shrink_to_fit();
            }
        }
        report.findings = report_findings;
        // Computed from the finished report, as the reference does.
        report.compliance = Some(assess_compliance(&report));
        report
    }
}

fn report_finding(f: Finding, run_id: &Arc<str>, redact_values: bool) -> ReportFinding {
    ReportFinding {
        redacted_value: f.redacted_value(),
        finding_id: f.finding_id(),
        run_id: run_id.clone(),
        event_id: f.event_id,
        channel: f.channel,
        data_type: f.data_type,
        severity: Cow::Borrowed(f.severity.as_str()),
        level: f.level,
        confidence: round_dp(f.confidence, 3),
        detector: f.detector,
        recommendation: f.recommendation,
        source: f.source,
        target: f.target,
        matched_value: if redact_values { None } else { Some(f.matched_value) },
        level_label: Cow::Borrowed(f.level.label()),
        badge: Cow::Borrowed(f.level.badge()),
    }
}

/// Our one-line guidance per disclosure channel.
fn channel_sentence(channel: Channel) -> Option<&'static str> {
    Some(match channel {
        Channel::FinalOutput => {
            "Check final answers for personal data before they reach the user or a publication step."
        }
        Channel::InterAgentMessage => {
            "Send other agents only the fields their task needs; keep raw records with the agent that owns them."
        }
        Channel::SharedMemory => "Store references or masked values in shared memory, not raw personal data.",
        Channel::ToolCall => "Strip or mask personal fields from tool arguments before calling external tools.",
        Channel::Log => "Redact sensitive fields where logs are written instead of logging whole payloads.",
        Channel::GeneratedFile => "Review generated files for personal data before they are saved or shared.",
        Channel::UserInput | Channel::ToolResponse => return None,
    })
}

const GENERAL_RECOMMENDATIONS: [&str; 2] = [
    "Give each agent and tool the least data it needs, and scope credentials per role.",
    "Re-run this analysis in CI so a new leak blocks the change that introduced it.",
];

fn recommendations(risks: &[ChannelRisk], any_leak: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    };
    for r in risks {
        if let Some(s) = channel_sentence(r.channel) {
            push(s);
        }
    }
    if any_leak {
        GENERAL_RECOMMENDATIONS.iter().for_each(|s| push(s));
    }
    out
}

/// Our advice and a small code sketch per disclosure channel.
fn remediation_template(channel: Channel) -> Option<(&'static str, &'static str)> {
    Some(match channel {
        Channel::FinalOutput => (
            "Run an output filter that masks detected values before the answer is returned.",
            "def safe_answer(text, detect):\n    for finding in detect(text):\n        text = text.replace(finding.value, mask(finding.value))\n    return text",
        ),
        Channel::InterAgentMessage => (
            "Pass other agents a minimal, purpose-bound view of the record.",
            "def message_for(agent, record, needed_fields):\n    return {k: record[k] for k in needed_fields[agent.role] if k in record}",
        ),
        Channel::SharedMemory => (
            "Keep raw values in a vault and write only opaque references to shared memory.",
            "def remember(memory, key, value, vault):\n    memory[key] = vault.put(value)  # an opaque reference, not the value",
        ),
        Channel::ToolCall => (
            "Allow-list the arguments each tool may receive and mask the rest.",
            "def call_tool(tool, args, allowed):\n    safe = {k: v for k, v in args.items() if k in allowed[tool.name]}\n    return tool(**safe)",
        ),
        Channel::Log => (
            "Redact sensitive fields in a logging filter, before records are written.",
            "class RedactFilter(logging.Filter):\n    def filter(self, record):\n        record.msg = redact(str(record.msg))\n        return True",
        ),
        Channel::GeneratedFile => (
            "Scan generated documents and hold them for review when they contain personal data.",
            "def save_document(path, text, detect):\n    if detect(text):\n        raise ReviewRequired(path)\n    write(path, text)",
        ),
        Channel::UserInput | Channel::ToolResponse => return None,
    })
}

fn remediation_hints(risks: &[ChannelRisk], leaked: &[&Finding]) -> Vec<RemediationHint> {
    let mut out = Vec::new();
    for r in risks {
        let on_channel: Vec<&&Finding> = leaked.iter().filter(|f| f.channel == r.channel).collect();
        let (Some((advice, code_fix)), false) = (remediation_template(r.channel), on_channel.is_empty()) else {
            continue;
        };
        if out.iter().any(|h: &RemediationHint| h.channel == r.channel) {
            continue;
        }
        let mut data_types: Vec<&str> = on_channel.iter().map(|f| &*f.data_type).collect();
        crate::util::sort(&mut data_types);
        data_types.dedup();
        let data_types: Vec<String> = data_types.into_iter().map(str::to_owned).collect();
        let top = on_channel.iter().map(|f| f.level).max().unwrap_or(Level::L1);
        let priority = match top.get() {
            4 => "critical",
            3 => "high",
            _ => "medium",
        };
        out.push(RemediationHint {
            channel: r.channel,
            data_types,
            priority: priority.to_owned(),
            advice: advice.to_owned(),
            code_fix: code_fix.to_owned(),
        });
    }
    out
}
