//! The privacy-policy assertions and contextual-integrity flow rules
//! (spec 3.8), evaluated over a run's leaked findings. Which assertions
//! run, in which order, with which counts and finding ids is the
//! reference's; the messages are ours.

use crate::analyze::Finding;
use crate::config::PolicyConfig;
use crate::model::{FlowDecision, FlowsResult, PolicyViolation, PrivacyPolicy};

/// What the flow rules need to know about a leaked finding beyond itself.
pub struct FlowContext {
    /// Event `metadata.purpose`, trimmed (empty when absent).
    pub purpose: String,
    /// Provenance (spec 2.7a).
    pub origin: String,
    pub path: Vec<String>,
}

/// Evaluates the policy. `leaked` are the disclosure-channel findings in
/// final order, `context` their flow context (same order; only read when
/// the policy has flow rules).
pub fn evaluate_policy(
    policy: &PolicyConfig,
    risk_index: f64,
    leaked: &[&Finding],
    explicit_vault: bool,
    context: &dyn Fn(&Finding) -> FlowContext,
) -> PrivacyPolicy {
    let mut checked: Vec<String> = Vec::new();
    let mut violations: Vec<PolicyViolation> = Vec::new();
    let mut violate = |rule: &str, message: String, count: usize, ids: Vec<String>| {
        violations.push(PolicyViolation { rule: rule.to_owned(), message, count: count as u64, finding_ids: ids });
    };
    let ids = |fs: &[&&Finding]| fs.iter().map(|f| f.finding_id()).collect::<Vec<_>>();

    if let Some(max) = policy.max_risk_index {
        checked.push("max_risk_index".into());
        if risk_index > max {
            violate(
                "max_risk_index",
                format!("Risk Index {risk_index:.3} is above the policy maximum of {max:.3}."),
                1,
                vec![],
            );
        }
    }
    if let Some(max) = policy.max_findings {
        checked.push("max_findings".into());
        if leaked.len() as i64 > max {
            let all: Vec<&&Finding> = leaked.iter().collect();
            violate(
                "max_findings",
                format!("{} leaked findings, more than the policy maximum of {max}.", leaked.len()),
                leaked.len(),
                ids(&all),
            );
        }
    }
    if !policy.forbid_levels.is_empty() {
        checked.push("forbid_levels".into());
        let hits: Vec<&&Finding> = leaked.iter().filter(|f| policy.forbid_levels.contains(&f.level)).collect();
        if !hits.is_empty() {
            let mut levels = policy.forbid_levels.clone();
            crate::util::sort(&mut levels);
            let names: Vec<&str> = levels.iter().map(|l| l.label()).collect();
            violate(
                "forbid_levels",
                format!("{} finding(s) at a forbidden level ({}).", hits.len(), names.join(", ")),
                hits.len(),
                ids(&hits),
            );
        }
    }
    if !policy.forbid_channels.is_empty() {
        checked.push("forbid_channels".into());
        let hits: Vec<&&Finding> = leaked.iter().filter(|f| policy.forbid_channels.contains(&f.channel)).collect();
        if !hits.is_empty() {
            let names = sorted_distinct(hits.iter().map(|f| f.channel.as_str().to_owned()));
            violate(
                "forbid_channels",
                format!("{} finding(s) on a forbidden channel ({}).", hits.len(), names.join(", ")),
                hits.len(),
                ids(&hits),
            );
        }
    }
    if !policy.forbid_data_types.is_empty() {
        checked.push("forbid_data_types".into());
        let hits: Vec<&&Finding> =
            leaked.iter().filter(|f| policy.forbid_data_types.iter().any(|t| *t == f.data_type)).collect();
        if !hits.is_empty() {
            let names = sorted_distinct(hits.iter().map(|f| f.data_type.to_string()));
            violate(
                "forbid_data_types",
                format!("{} finding(s) of a forbidden data type ({}).", hits.len(), names.join(", ")),
                hits.len(),
                ids(&hits),
            );
        }
    }
    if policy.require_explicit_vault {
        checked.push("require_explicit_vault".into());
        if !explicit_vault {
            violate(
                "require_explicit_vault",
                "The policy requires an explicit, audited vault so that scores are comparable; none is configured."
                    .into(),
                1,
                vec![],
            );
        }
    }
    let mut flows = None;
    if !policy.flows.is_empty() {
        checked.push("flows".into());
        let (result, descriptions, breach_ids) = evaluate_flows(policy, leaked, context);
        if !result.violations.is_empty() {
            let breaches = result.violations.len();
            let distinct = sorted_distinct(descriptions.into_iter());
            let mut message = format!(
                "{breaches} flow(s) not permitted: {}",
                distinct.iter().take(3).cloned().collect::<Vec<_>>().join("; ")
            );
            if breaches > 3 {
                message.push_str("; ...");
            }
            violate("flows", message, breaches, breach_ids);
        }
        flows = Some(result);
    }
    PrivacyPolicy {
        enabled: !checked.is_empty(),
        passed: violations.is_empty(),
        assertions_checked: checked,
        violations,
        flows,
    }
}

fn sorted_distinct(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = items.collect();
    crate::util::sort(&mut v);
    v.dedup();
    v
}

/// The flow decisions, the description of each breach, and the non-empty
/// finding ids of the breaches.
fn evaluate_flows(
    policy: &PolicyConfig,
    leaked: &[&Finding],
    context: &dyn Fn(&Finding) -> FlowContext,
) -> (FlowsResult, Vec<String>, Vec<String>) {
    let mut checked = 0u64;
    let mut violations = Vec::new();
    let mut descriptions = Vec::new();
    for f in leaked {
        if !policy.flows.iter().any(|r| r.governs(&f.data_type)) {
            continue;
        }
        let ctx = context(f);
        let (sender, recipient) = (&*f.source, &*f.target);
        let matches =
            |r: &crate::config::FlowRule| r.matches(&f.data_type, sender, recipient, &ctx.purpose, &ctx.origin);
        let decision = if let Some(rule) = policy.flows.iter().find(|r| !r.allow && matches(r)) {
            Some((false, format!("forbidden by rule: {}", rule.label()), rule.label()))
        } else {
            let governing: Vec<&crate::config::FlowRule> =
                policy.flows.iter().filter(|r| r.allow && r.governs(&f.data_type)).collect();
            if governing.is_empty() {
                None
            } else if let Some(rule) = governing.iter().find(|r| matches(r)) {
                Some((true, format!("permitted by rule: {}", rule.label()), rule.label()))
            } else {
                let mut recipients: Vec<&str> = governing
                    .iter()
                    .flat_map(|r| r.recipients.iter())
                    .map(String::as_str)
                    .filter(|r| *r != "*")
                    .collect();
                crate::util::sort(&mut recipients);
                recipients.dedup();
                let mut reason =
                    format!("no rule permits this flow ({} allow rule(s) govern {})", governing.len(), f.data_type);
                if !recipients.is_empty() {
                    reason.push_str(&format!("; permitted recipients: {}", recipients.join(", ")));
                }
                Some((false, reason, String::new()))
            }
        };
        let Some((permitted, reason, rule)) = decision else { continue };
        checked += 1;
        if !permitted {
            let show = |s: &str| if s.is_empty() { "?".to_owned() } else { s.to_owned() };
            let purpose = if ctx.purpose.is_empty() {
                "with no declared purpose".to_owned()
            } else {
                format!("for {}", ctx.purpose)
            };
            let via = if ctx.path.len() > 2 { format!(" via {}", ctx.path.join(" → ")) } else { String::new() };
            descriptions.push(format!(
                "{} from {} to {} {purpose}{via} — {reason}",
                f.data_type,
                show(sender),
                show(recipient)
            ));
            violations.push(FlowDecision {
                finding_id: f.finding_id(),
                data_type: f.data_type.to_string(),
                sender: sender.to_owned(),
                recipient: recipient.to_owned(),
                purpose: ctx.purpose.clone(),
                permitted,
                reason,
                rule,
                origin: ctx.origin.clone(),
                path: ctx.path.clone(),
            });
        }
    }
    let breach_ids = violations.iter().map(|v| v.finding_id.clone()).filter(|id| !id.is_empty()).collect();
    (FlowsResult { rules_applied: policy.flows.len() as u64, checked, violations }, descriptions, breach_ids)
}
