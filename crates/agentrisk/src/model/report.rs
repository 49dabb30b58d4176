//! The AgentLeak v2 report ("scorecard") as the reference writes it
//! (spec 3.13), typed for reading.
//!
//! Unknown keys are ignored so that newer reports still load. Stored numbers
//! are kept as written (integers as `i64`, the verdict as a string) so that a
//! report with odd values still loads and can be flagged as inconsistent by
//! `report::rescore_report` instead of being rejected or silently fixed.
//! `compliance`, `flow` and `leak_paths` are typed too, but read leniently:
//! a section whose shape is not the one we know is dropped (`None`) instead
//! of making the whole report unreadable.

use super::{Channel, Compliance, Flow, LeakPath, Level, LevelProfile};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use std::borrow::Cow;
use std::sync::Arc;

/// The document kind every AgentLeak report declares in its `report` key.
pub const REPORT_KIND: &str = "agentleak";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Report {
    pub report: String,
    pub version: i64,
    #[serde(default)]
    pub scoring: String,
    #[serde(default)]
    pub project: String,
    pub run_id: String,
    #[serde(default)]
    pub agent_name: String,
    #[serde(default)]
    pub scenario_id: Option<String>,
    #[serde(default)]
    pub generated_at: String,
    #[serde(default)]
    pub event_count: u64,
    pub privacy_score: i64,
    pub verdict: String,
    pub risk_index: f64,
    pub wsl: i64,
    pub rho_s: i64,
    #[serde(default)]
    pub scope_def: String,
    pub blocked: bool,
    #[serde(default)]
    pub degraded: bool,
    #[serde(default)]
    pub detection: Option<Detection>,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default)]
    pub privacy_policy: Option<PrivacyPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utility: Option<Utility>,
    #[serde(default)]
    pub cross_session: Option<CrossSession>,
    pub summary: Summary,
    #[serde(default)]
    pub channel_risks: Vec<ChannelRisk>,
    pub findings: Vec<Finding>,
    #[serde(default)]
    pub recommendations: Vec<String>,
    #[serde(default)]
    pub remediation_hints: Vec<RemediationHint>,
    #[serde(default)]
    pub agentrisk: Option<AgentRiskBlock>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub compliance: Option<Compliance>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub flow: Option<Flow>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "lenient")]
    pub leak_paths: Option<Vec<LeakPath>>,
    /// Not written by the reference: a top-level `metadata` object that a
    /// red-team harness may add (read by `batch`, never written by us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Not written by the reference: for a run made from OpenTelemetry
    /// spans, the export's shape and the mapping that made its events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_source: Option<super::SpanSource>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Detection {
    #[serde(default)]
    pub mode: String,
    #[serde(default)]
    pub tiers: Vec<String>,
    #[serde(default)]
    pub degraded: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PrivacyPolicy {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default = "default_true")]
    pub passed: bool,
    #[serde(default)]
    pub assertions_checked: Vec<String>,
    #[serde(default)]
    pub violations: Vec<PolicyViolation>,
    /// Present only when the config has flow rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flows: Option<FlowsResult>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FlowsResult {
    pub rules_applied: u64,
    pub checked: u64,
    pub violations: Vec<FlowDecision>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FlowDecision {
    pub finding_id: String,
    pub data_type: String,
    pub sender: String,
    pub recipient: String,
    pub purpose: String,
    pub permitted: bool,
    pub reason: String,
    pub rule: String,
    pub origin: String,
    pub path: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct PolicyViolation {
    pub rule: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub finding_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Utility {
    pub task_success: bool,
    pub leaked: bool,
    pub quadrant: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CrossSession {
    #[serde(default)]
    pub enabled: bool,
    #[serde(default)]
    pub subject: String,
    #[serde(default = "default_true")]
    pub passed: bool,
    #[serde(default)]
    pub secrets_attributed: u64,
    #[serde(default)]
    pub cross_subject_disclosures: Vec<serde_json::Value>,
    #[serde(default)]
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Summary {
    #[serde(default)]
    pub total_findings: u64,
    #[serde(default)]
    pub detected_total: u64,
    pub leaked_secrets: u64,
    pub vault_secrets: u64,
    pub level_profile: LevelProfile,
    pub vault_level_profile: LevelProfile,
    pub has_critical: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ChannelRisk {
    pub channel: Channel,
    /// The badge of the highest finding level on the channel.
    pub level: String,
    pub level_label: String,
    pub ri: f64,
    pub risk_contribution: f64,
    pub finding_count: u64,
}

/// One leaked finding. A long trace has tens of thousands: the texts every
/// finding repeats (the run id, and the detectors' fixed data types,
/// severities, names, advice and labels) are shared or borrowed, not copied
/// per finding; a report read from a file owns them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Finding {
    pub finding_id: String,
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(default, with = "super::shared_str")]
    pub run_id: Arc<str>,
    /// Event ids and node names are shared with the trace's (and between
    /// findings of one event).
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(with = "super::shared_str")]
    pub event_id: Arc<str>,
    pub channel: Channel,
    pub data_type: Cow<'static, str>,
    #[serde(default)]
    pub severity: Cow<'static, str>,
    pub level: Level,
    #[serde(default)]
    pub confidence: f64,
    pub redacted_value: String,
    #[serde(default)]
    pub detector: Cow<'static, str>,
    #[serde(default)]
    pub recommendation: Cow<'static, str>,
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(default, with = "super::shared_str")]
    pub source: Arc<str>,
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(default, with = "super::shared_str")]
    pub target: Arc<str>,
    /// Present only when the run was configured with `redact_values: false`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_value: Option<String>,
    #[serde(default)]
    pub level_label: Cow<'static, str>,
    #[serde(default)]
    pub badge: Cow<'static, str>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RemediationHint {
    pub channel: Channel,
    #[serde(default)]
    pub data_types: Vec<String>,
    #[serde(default)]
    pub priority: String,
    #[serde(default)]
    pub advice: String,
    #[serde(default)]
    pub code_fix: String,
}

/// The report's `agentrisk` block: the scoring inputs the run used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct AgentRiskBlock {
    #[serde(default)]
    pub ri_global: f64,
    /// Per-channel RI, 4 dp. The reference orders equal values by Python set
    /// iteration (hash-seed dependent), so this is treated as a map.
    #[cfg_attr(feature = "typescript", ts(as = "std::collections::BTreeMap<Channel, f64>"))]
    #[serde(default, with = "channel_map")]
    pub ri_by_channel: Vec<(Channel, f64)>,
    /// Always empty from the reference's CLI.
    #[serde(default)]
    pub ri_by_domain: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    pub wsl: i64,
    #[serde(default)]
    pub rho_s: i64,
    #[serde(default)]
    pub level_profile: LevelProfile,
    #[serde(default)]
    pub vault_level_profile: LevelProfile,
    #[serde(default)]
    pub leaked_count: u64,
    #[serde(default)]
    pub vault_count: u64,
    #[serde(default = "default_true")]
    pub rank_robust: bool,
    #[serde(default)]
    pub detectors: Vec<String>,
    #[serde(default)]
    pub scope_def: String,
    #[serde(default)]
    pub weights: Option<Vec<i64>>,
}

fn default_true() -> bool {
    true
}

/// A section we only show: read it if it has the shape we know, else `None`.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(value.and_then(|v| serde_json::from_value(v).ok()))
}

/// `{channel: number}` objects read and written in document order.
mod channel_map {
    use super::Channel;
    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};
    use std::fmt;

    pub fn serialize<S: Serializer>(entries: &[(Channel, f64)], s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(entries.len()))?;
        for (channel, value) in entries {
            map.serialize_entry(channel, value)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(Channel, f64)>, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vec<(Channel, f64)>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object mapping channel names to numbers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<Channel, f64>()? {
                    entries.push(entry);
                }
                Ok(entries)
            }
        }
        d.deserialize_map(Entries)
    }
}
