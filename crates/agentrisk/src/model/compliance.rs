//! The report's `compliance` section (spec 3.11), in the reference's key
//! order. Framework and control ids and names are data of the format;
//! `rationale`, the integrity `note` and the disclaimer's `text` and
//! `scope` are free text (ours when we write the report).

use super::{Channel, Level};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Compliance {
    pub frameworks: Vec<ComplianceFramework>,
    pub summary: ComplianceSummary,
    pub posture: CompliancePosture,
    pub assurance: ComplianceAssurance,
    #[serde(default)]
    pub evidence_matrix: Vec<EvidenceRow>,
    pub integrity: Integrity,
    pub disclaimer: Disclaimer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FrameworkStatus {
    Compliant,
    NonCompliant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ControlStatus {
    AtRisk,
    Ok,
    Info,
    NotAssessed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplianceFramework {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub url: String,
    pub status: FrameworkStatus,
    /// Controls at risk.
    pub at_risk: u64,
    pub not_assessed: u64,
    pub controls: Vec<ComplianceControl>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplianceControl {
    pub id: String,
    pub name: String,
    pub status: ControlStatus,
    #[serde(default)]
    pub rationale: String,
    /// Channel names, data types, `L<n>`, `policy:<rule>`, `RI x.xx` or
    /// `blocked`: what made the control fire.
    #[serde(default)]
    pub evidence: Vec<String>,
    #[serde(default)]
    pub evidence_details: EvidenceDetails,
    /// `trace_observation`, or `trace_and_policy` for controls that need a
    /// policy assertion.
    #[serde(default)]
    pub assessment_basis: String,
}

/// The leaked findings an evidence list points at.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct EvidenceDetails {
    /// Shared: many controls cite the same findings (every channel control
    /// cites every leaked finding), so equal lists are one allocation.
    #[cfg_attr(feature = "typescript", ts(as = "Vec<String>"))]
    #[serde(default, with = "super::shared_strs")]
    pub finding_ids: Arc<[Arc<str>]>,
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[serde(default)]
    pub data_types: Vec<String>,
    #[serde(default)]
    pub levels: Vec<Level>,
    #[serde(default)]
    pub policy_rules: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplianceSummary {
    pub total: u64,
    pub compliant: u64,
    pub non_compliant: u64,
    pub controls_at_risk: u64,
    pub controls_not_assessed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompliancePosture {
    pub status: FrameworkStatus,
    /// Ids of the non-compliant frameworks, most controls at risk first.
    pub failed_frameworks: Vec<String>,
    pub failed: Vec<FailedFramework>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FailedFramework {
    pub id: String,
    pub name: String,
    pub at_risk: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ComplianceAssurance {
    /// `controls_at_risk` or `observed_clear`.
    pub status: String,
    /// `trace_and_policy` when policy assertions were checked, else `trace_only`.
    pub evidence_grade: String,
    pub controls_not_assessed: u64,
    /// The policy assertions checked, sorted.
    #[serde(default)]
    pub policy_assertions: Vec<String>,
}

/// Which frameworks and controls cite one leaked finding id. There is a
/// row per leaked finding id, and rows citing the same controls share their
/// lists (a long trace has tens of thousands of rows and few distinct lists).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct EvidenceRow {
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(with = "super::shared_str")]
    pub finding_id: Arc<str>,
    #[cfg_attr(feature = "typescript", ts(as = "Vec<String>"))]
    #[serde(with = "super::shared_strs")]
    pub frameworks: Arc<[Arc<str>]>,
    #[cfg_attr(feature = "typescript", ts(as = "Vec<String>"))]
    #[serde(with = "super::shared_strs")]
    pub controls: Arc<[Arc<str>]>,
}

/// A reproducible hash of the run's headline numbers and evidence matrix
/// (not a signature).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Integrity {
    pub algorithm: String,
    pub digest: String,
    pub canonical_fields: Vec<String>,
    pub signed: bool,
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Disclaimer {
    #[serde(default)]
    pub text: String,
    pub is_legal_certification: bool,
    pub is_compliance_attestation: bool,
    #[serde(default)]
    pub scope: String,
}
