//! The `privacy_policy` section (spec 3.8, 4.5): assertions and contextual-
//! integrity flow rules, normalised at load time so that evaluation (which
//! lives with the report) only matches strings.

use super::lax::{self, describe, invalid, is_truthy, py_str, Section};
use super::yaml::Node;
use super::ConfigError;
use crate::model::{Channel, Level};
use std::collections::BTreeMap;

/// Declarative assertions applied to the leaked findings of a run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PolicyConfig {
    /// Violated when the report's risk index exceeds it; within [0, 1].
    pub max_risk_index: Option<f64>,
    /// Violated when more findings than this leaked; 0 or more.
    pub max_findings: Option<i64>,
    /// De-duplicated, in config order.
    pub forbid_levels: Vec<Level>,
    /// De-duplicated, in config order.
    pub forbid_channels: Vec<Channel>,
    /// As written (not de-duplicated).
    pub forbid_data_types: Vec<String>,
    pub require_explicit_vault: bool,
    pub forbid_cross_subject: bool,
    /// User groups for `group:<name>` entries in flow rules.
    pub groups: BTreeMap<String, Vec<String>>,
    /// Flow rules in config order, groups already expanded.
    pub flows: Vec<FlowRule>,
}

/// One contextual-integrity rule. Every facet is a list of exact strings;
/// an empty facet or one holding `*` matches anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowRule {
    /// Never empty.
    pub data_types: Vec<String>,
    pub senders: Vec<String>,
    pub recipients: Vec<String>,
    pub purposes: Vec<String>,
    pub origins: Vec<String>,
    /// `allow` as written, else the opposite of `deny` (default: allow).
    pub allow: bool,
    /// As written; may be empty (see [`FlowRule::label`]).
    pub description: String,
}

/// The built-in data-type groups for `group:<name>` in a rule's data types.
/// `credentials` is the ten credential types (tables.json
/// `credential_types`) sorted, then `secret_assignment`.
pub const BUILTIN_TYPE_GROUPS: [(&str, &[&str]); 5] = [
    (
        "credentials",
        &[
            "aws_access_key",
            "bearer_token",
            "connection_string",
            "github_token",
            "google_api_key",
            "jwt",
            "llm_api_key",
            "private_key",
            "slack_token",
            "stripe_key",
            "secret_assignment",
        ],
    ),
    ("health", &["health_condition", "medication", "health_identifier"]),
    (
        "financial",
        &["credit_card", "iban", "account_number", "account_balance", "income", "loan_amount", "credit_score"],
    ),
    ("government_ids", &["ssn", "sin", "national_insurance_number", "health_identifier"]),
    ("contact", &["email", "phone_number", "address"]),
];

/// Whether a facet admits a value: empty, `*`, or the exact value.
pub fn facet_matches(facet: &[String], value: &str) -> bool {
    facet.is_empty() || facet.iter().any(|f| f == "*" || f == value)
}

impl FlowRule {
    /// Whether this rule governs findings of a data type.
    pub fn governs(&self, data_type: &str) -> bool {
        facet_matches(&self.data_types, data_type)
    }

    /// Whether all five facets admit a flow.
    pub fn matches(&self, data_type: &str, sender: &str, recipient: &str, purpose: &str, origin: &str) -> bool {
        self.governs(data_type)
            && facet_matches(&self.senders, sender)
            && facet_matches(&self.recipients, recipient)
            && facet_matches(&self.purposes, purpose)
            && facet_matches(&self.origins, origin)
    }

    /// The rule's description, or a phrase built from its facets when it
    /// has none (the reference also generates one; the wording is ours).
    pub fn label(&self) -> String {
        if !self.description.is_empty() {
            return self.description.clone();
        }
        let mut out = format!("{} {}", if self.allow { "allow" } else { "deny" }, self.data_types.join("/"));
        for (word, facet) in [
            ("originating at", &self.origins),
            ("from", &self.senders),
            ("to", &self.recipients),
            ("for", &self.purposes),
        ] {
            if !facet.is_empty() {
                out.push_str(&format!(" {word} {}", facet.join(", ")));
            }
        }
        out
    }
}

/// Reads `privacy_policy`.
pub(crate) fn policy_from(section: Section<'_>) -> Result<PolicyConfig, ConfigError> {
    const P: &str = "privacy_policy";
    let max_risk_index = lax::optional(section.get("max_risk_index"), |n| {
        let path = format!("{P}.max_risk_index");
        let value = lax::float(n, &path)?;
        // NaN fails both bounds, as it does in pydantic.
        if (0.0..=1.0).contains(&value) {
            Ok(value)
        } else {
            Err(invalid(&path, format!("must be between 0 and 1, got {}", describe(n))))
        }
    })?;
    let max_findings = lax::optional(section.get("max_findings"), |n| {
        let path = format!("{P}.max_findings");
        let value = lax::int(n, &path)?;
        if value >= 0 {
            Ok(value)
        } else {
            Err(invalid(&path, format!("must be 0 or more, got {value}")))
        }
    })?;
    let mut forbid_levels: Vec<Level> = Vec::new();
    if let Some(node) = section.get("forbid_levels") {
        let path = format!("{P}.forbid_levels");
        for (i, item) in lax::list(node, &path)?.iter().enumerate() {
            let item_path = format!("{path}[{i}]");
            let value = lax::int(item, &item_path)?;
            let level = Level::try_from(value)
                .map_err(|_| invalid(&item_path, format!("privacy levels are 1 to 4, got {value}")))?;
            if !forbid_levels.contains(&level) {
                forbid_levels.push(level);
            }
        }
    }
    let mut forbid_channels: Vec<Channel> = Vec::new();
    if let Some(node) = section.get("forbid_channels") {
        let path = format!("{P}.forbid_channels");
        let names = lax::strings(node, &path)?;
        let mut unknown: Vec<&str> = Vec::new();
        for name in &names {
            match Channel::from_name(name) {
                Some(channel) if !forbid_channels.contains(&channel) => forbid_channels.push(channel),
                Some(_) => {}
                None if !unknown.contains(&name.as_str()) => unknown.push(name),
                None => {}
            }
        }
        if !unknown.is_empty() {
            let known: Vec<&str> = Channel::ALL.iter().map(|c| c.as_str()).collect();
            return Err(invalid(
                &path,
                format!("unknown channel name(s): {}; the channels are {}", unknown.join(", "), known.join(", ")),
            ));
        }
    }
    let forbid_data_types = match section.get("forbid_data_types") {
        Some(node) => lax::strings(node, &format!("{P}.forbid_data_types"))?,
        None => Vec::new(),
    };
    let flag = |key: &str| -> Result<bool, ConfigError> {
        match section.get(key) {
            Some(node) => lax::boolean(node, &format!("{P}.{key}")),
            None => Ok(false),
        }
    };
    let require_explicit_vault = flag("require_explicit_vault")?;
    let forbid_cross_subject = flag("forbid_cross_subject")?;

    let mut groups: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(node) = section.get("groups") {
        let path = format!("{P}.groups");
        let Node::Map(pairs) = node else {
            return Err(invalid(
                &path,
                format!("expected a mapping of group name to a list of names, got {}", describe(node)),
            ));
        };
        for (key, members) in lax::dict_pairs(pairs) {
            let name = lax::string(key, &format!("{path} (a group name)"))?;
            let members = lax::strings(members, &format!("{path}.{name}"))?;
            groups.insert(name, members);
        }
    }

    let mut flows = Vec::new();
    if let Some(node) = section.get("flows") {
        let path = format!("{P}.flows");
        for (i, item) in lax::list(node, &path)?.iter().enumerate() {
            flows.push(flow_rule_from(item, &format!("{path}[{i}]"), &groups)?);
        }
    }
    Ok(PolicyConfig {
        max_risk_index,
        max_findings,
        forbid_levels,
        forbid_channels,
        forbid_data_types,
        require_explicit_vault,
        forbid_cross_subject,
        groups,
        flows,
    })
}

/// Which groups a facet's `group:` entries may name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Groups {
    /// Built-in type groups merged with the user's (user names win).
    TypesAndUser,
    UserOnly,
    /// Purposes: `group:` entries stay literal.
    None,
}

fn flow_rule_from(node: &Node, path: &str, user: &BTreeMap<String, Vec<String>>) -> Result<FlowRule, ConfigError> {
    let Node::Map(pairs) = node else {
        return Err(invalid(
            path,
            format!("a flow rule must be a mapping (data_type, from, to, …), got {}", describe(node)),
        ));
    };
    let rule = Section { pairs };
    // `a or b`: the first of the two spellings that is set to something.
    let either = |a: &str, b: &str| -> (Option<&Node>, String) {
        match rule.get(a).filter(|n| is_truthy(n)) {
            Some(n) => (Some(n), format!("{path}.{a}")),
            None => (rule.get(b), format!("{path}.{b}")),
        }
    };
    let facet = |a: &str, b: &str, canonical: &str, groups: Groups| -> Result<Vec<String>, ConfigError> {
        let (node, facet_path) = either(a, b);
        let items = facet_items(node, &facet_path)?;
        match groups {
            Groups::None => Ok(items),
            _ => expand_groups(items, &facet_path, canonical, groups, user),
        }
    };
    let data_types = facet("data_type", "data_types", "data_type", Groups::TypesAndUser)?;
    if data_types.is_empty() {
        return Err(invalid(path, "a flow rule needs a non-empty data_type (or data_types); use \"*\" for every type"));
    }
    let senders = facet("from", "senders", "from", Groups::UserOnly)?;
    let recipients = facet("to", "recipients", "to", Groups::UserOnly)?;
    let purposes = facet("for", "purposes", "for", Groups::None)?;
    let origins = facet("origin", "origins", "origin", Groups::UserOnly)?;
    let deny = match rule.get("deny") {
        None | Some(Node::Null) => false,
        Some(n) => lax::boolean(n, &format!("{path}.deny"))?,
    };
    let allow = match rule.get("allow") {
        None | Some(Node::Null) => !deny,
        Some(n) => lax::boolean(n, &format!("{path}.allow"))?,
    };
    let description = match rule.get("description") {
        None | Some(Node::Null) => String::new(),
        Some(n) => py_str(n)
            .ok_or_else(|| invalid(&format!("{path}.description"), format!("expected text, got {}", describe(n))))?,
    };
    Ok(FlowRule { data_types, senders, recipients, purposes, origins, allow, description })
}

/// A facet value: a string or a list; items become strings (Python `str()`
/// spelling for numbers and bools), trimmed, empties dropped.
fn facet_items(node: Option<&Node>, path: &str) -> Result<Vec<String>, ConfigError> {
    let items: Vec<&Node> = match node {
        None | Some(Node::Null) => return Ok(Vec::new()),
        Some(Node::Seq(items)) => items.iter().collect(),
        Some(Node::Map(_)) => return Err(invalid(path, "expected a name or a list of names, got a mapping")),
        Some(scalar) => vec![scalar],
    };
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let text = py_str(item)
            .ok_or_else(|| invalid(&format!("{path}[{i}]"), format!("expected a name, got {}", describe(item))))?;
        let trimmed = text.trim();
        if !trimmed.is_empty() {
            out.push(trimmed.to_owned());
        }
    }
    Ok(out)
}

fn expand_groups(
    items: Vec<String>,
    path: &str,
    facet: &str,
    groups: Groups,
    user: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<String>, ConfigError> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |value: &str| {
        if !out.iter().any(|v| v == value) {
            out.push(value.to_owned());
        }
    };
    for item in &items {
        let Some(name) = item.strip_prefix("group:").map(str::trim) else {
            push(item);
            continue;
        };
        if let Some(members) = user.get(name) {
            members.iter().for_each(|m| push(m));
            continue;
        }
        let builtin = BUILTIN_TYPE_GROUPS.iter().find(|(n, _)| *n == name).filter(|_| groups == Groups::TypesAndUser);
        match builtin {
            Some((_, members)) => members.iter().for_each(|m| push(m)),
            None => return Err(unknown_group(path, facet, name, groups, user)),
        }
    }
    Ok(out)
}

fn unknown_group(
    path: &str,
    facet: &str,
    name: &str,
    groups: Groups,
    user: &BTreeMap<String, Vec<String>>,
) -> ConfigError {
    let mut known: Vec<&str> = user.keys().map(String::as_str).collect();
    if groups == Groups::TypesAndUser {
        known.extend(BUILTIN_TYPE_GROUPS.iter().map(|(n, _)| *n).filter(|n| !user.contains_key(*n)));
    }
    crate::util::sort(&mut known);
    let choices = if known.is_empty() {
        "no groups are defined (add them under privacy_policy.groups)".to_owned()
    } else {
        format!("the known groups for {facet} are {}", known.join(", "))
    };
    invalid(path, format!("unknown group {name:?} in {facet}; {choices}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::yaml::node_from_yaml;

    fn policy(yaml: &str) -> Result<PolicyConfig, ConfigError> {
        let node = node_from_yaml(yaml)?.unwrap_or(Node::Map(vec![]));
        policy_from(Section::of(&node, "privacy_policy")?)
    }

    fn err(yaml: &str) -> String {
        match policy(yaml) {
            Ok(p) => panic!("expected an error, got {p:?}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn assertions_are_read_and_normalized() {
        let p = policy(
            "max_risk_index: '0.25'\nmax_findings: 3.0\nforbid_levels: [4, '3', 4, 3.0]\n\
             forbid_channels: [log, tool_call, log]\nforbid_data_types: [email, email]\n\
             require_explicit_vault: yes\nforbid_cross_subject: 'on'\n",
        )
        .unwrap();
        assert_eq!(p.max_risk_index, Some(0.25));
        assert_eq!(p.max_findings, Some(3));
        assert_eq!(p.forbid_levels, vec![Level::L4, Level::L3]);
        assert_eq!(p.forbid_channels, vec![Channel::Log, Channel::ToolCall]);
        assert_eq!(p.forbid_data_types, vec!["email", "email"]);
        assert!(p.require_explicit_vault);
        assert!(p.forbid_cross_subject);
        assert_eq!(policy("max_risk_index: null\nmax_findings: ~\n").unwrap(), PolicyConfig::default());
    }

    #[test]
    fn assertion_errors_name_the_key_and_the_problem() {
        assert_eq!(err("forbid_levels: [1, 5]"), "privacy_policy.forbid_levels[1]: privacy levels are 1 to 4, got 5");
        assert_eq!(
            err("forbid_channels: [log, stdout, email, stdout]"),
            "privacy_policy.forbid_channels: unknown channel name(s): stdout, email; the channels are \
             user_input, final_output, inter_agent_message, shared_memory, tool_call, tool_response, log, generated_file"
        );
        assert_eq!(err("max_risk_index: 1.5"), "privacy_policy.max_risk_index: must be between 0 and 1, got 1.5");
        assert_eq!(err("max_risk_index: -0.1"), "privacy_policy.max_risk_index: must be between 0 and 1, got -0.1");
        assert!(err("max_risk_index: .nan").starts_with("privacy_policy.max_risk_index: must be between 0 and 1"));
        assert_eq!(err("max_findings: -1"), "privacy_policy.max_findings: must be 0 or more, got -1");
        assert!(err("forbid_levels: 4").starts_with("privacy_policy.forbid_levels: expected a list"));
        assert!(err("forbid_data_types: [1]").starts_with("privacy_policy.forbid_data_types[0]: expected text"));
        assert!(err("groups: {a: x}").starts_with("privacy_policy.groups.a: expected a list"));
        assert!(err("groups: {1: [x]}").starts_with("privacy_policy.groups (a group name): expected text"));
        assert!(err("flows: [deny]").starts_with("privacy_policy.flows[0]: a flow rule must be a mapping"));
        assert!(err("flows: [{to: x}]").starts_with("privacy_policy.flows[0]: a flow rule needs a non-empty data_type"));
        assert!(err("flows: [{data_type: ' '}]").contains("non-empty data_type"));
        assert!(err("flows: [{data_type: x, deny: perhaps}]")
            .starts_with("privacy_policy.flows[0].deny: expected true or false"));
    }

    #[test]
    fn facets_take_strings_or_lists_and_either_spelling() {
        let p = policy(
            "flows:\n  - data_types: [' email ', '', 5, true, 1.5]\n    senders: agent\n    recipients: [a, b]\n\
             \x20   purposes: [care]\n    origins: [x]\n    description: d\n",
        )
        .unwrap();
        let rule = &p.flows[0];
        assert_eq!(rule.data_types, vec!["email", "5", "True", "1.5"]);
        assert_eq!(rule.senders, vec!["agent"]);
        assert_eq!(rule.recipients, vec!["a", "b"]);
        assert_eq!(rule.purposes, vec!["care"]);
        assert_eq!(rule.origins, vec!["x"]);
        assert!(rule.allow);
        assert_eq!(rule.description, "d");

        // `data_type: ""` falls through to `data_types`, as Python's `or` does.
        let p = policy("flows: [{data_type: '', data_types: [ssn], from: a, senders: b}]").unwrap();
        assert_eq!(p.flows[0].data_types, vec!["ssn"]);
        assert_eq!(p.flows[0].senders, vec!["a"]);
        assert!(err("flows: [{data_type: {a: 1}}]")
            .starts_with("privacy_policy.flows[0].data_type: expected a name or a list"));
        assert!(err("flows: [{data_type: [[a]]}]").starts_with("privacy_policy.flows[0].data_type[0]: expected a name"));
    }

    #[test]
    fn allow_defaults_to_the_opposite_of_deny() {
        let p = policy(
            "flows:\n  - {data_type: a}\n  - {data_type: a, deny: true}\n  - {data_type: a, deny: no}\n\
             \x20 - {data_type: a, deny: true, allow: true}\n  - {data_type: a, allow: 'off'}\n",
        )
        .unwrap();
        let allows: Vec<bool> = p.flows.iter().map(|r| r.allow).collect();
        assert_eq!(allows, vec![true, false, true, true, false]);
    }

    #[test]
    fn groups_expand_with_builtins_for_types_and_user_groups_elsewhere() {
        let p = policy(
            "groups:\n  clinic: [dr_a, dr_b]\n  contact: [email]\n\
             flows:\n  - data_type: [group:health, ssn, group:contact, medication]\n\
             \x20   to: [group:clinic, dr_a, x]\n    for: [group:clinic]\n    origin: group:clinic\n",
        )
        .unwrap();
        let rule = &p.flows[0];
        // User `contact` wins over the built-in one; duplicates dropped.
        assert_eq!(rule.data_types, vec!["health_condition", "medication", "health_identifier", "ssn", "email"]);
        assert_eq!(rule.recipients, vec!["dr_a", "dr_b", "x"]);
        assert_eq!(rule.purposes, vec!["group:clinic"]);
        assert_eq!(rule.origins, vec!["dr_a", "dr_b"]);

        let p = policy("flows: [{data_type: group:credentials}]").unwrap();
        assert_eq!(p.flows[0].data_types.len(), 11);
        assert_eq!(p.flows[0].data_types.first().map(String::as_str), Some("aws_access_key"));
        assert_eq!(p.flows[0].data_types.last().map(String::as_str), Some("secret_assignment"));
        let p = policy("flows: [{data_type: [group:financial, group:government_ids]}]").unwrap();
        assert_eq!(p.flows[0].data_types.len(), 11);
    }

    #[test]
    fn unknown_groups_name_the_group_the_facet_and_the_choices() {
        assert_eq!(
            err("flows: [{data_type: group:pii}]"),
            "privacy_policy.flows[0].data_type: unknown group \"pii\" in data_type; \
             the known groups for data_type are contact, credentials, financial, government_ids, health"
        );
        assert_eq!(
            err("flows: [{data_type: '*', to: group:health}]"),
            "privacy_policy.flows[0].to: unknown group \"health\" in to; \
             no groups are defined (add them under privacy_policy.groups)"
        );
        assert_eq!(
            err("groups: {b: [x], a: [y]}\nflows: [{data_type: '*', recipients: group:c}]"),
            "privacy_policy.flows[0].recipients: unknown group \"c\" in to; the known groups for to are a, b"
        );
    }

    #[test]
    fn matching_and_labels() {
        let p = policy("flows: [{data_type: [email], to: ['*'], for: care}, {data_type: '*', from: a, deny: true}]")
            .unwrap();
        let (allow, deny) = (&p.flows[0], &p.flows[1]);
        assert!(allow.matches("email", "anyone", "anywhere", "care", ""));
        assert!(!allow.matches("email", "anyone", "anywhere", "", ""));
        assert!(!allow.governs("ssn"));
        assert!(deny.matches("ssn", "a", "b", "", "o"));
        assert!(!deny.matches("ssn", "b", "b", "", "o"));
        assert_eq!(allow.label(), "allow email to * for care");
        assert_eq!(deny.label(), "deny * from a");
    }
}
