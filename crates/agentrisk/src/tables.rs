//! The reference's data tables (`data/agentleak-tables.json`: MIT,
//! © AgentLeak contributors, see its `_provenance`), parsed once.
//!
//! The rule data the whole crate reads — detector dictionaries (`detect`),
//! data-type levels (`analyze`), flow roles and compliance controls
//! (`report`) — lives here, apart from any one of its readers, so that
//! none of them has to import another for it.

use serde::Deserialize;
use std::collections::HashMap;
use std::sync::OnceLock;

#[derive(Deserialize)]
pub(crate) struct Tables {
    pub healthcare_conditions: Vec<String>,
    pub healthcare_medications: Vec<String>,
    pub pii_street_suffixes_en: Vec<String>,
    pub names_given_names_titlecased_sorted: Vec<String>,
    pub names_not_surnames: Vec<String>,
    pub keyname_stems_in_order: Vec<KeynameStem>,
    /// Read for every new finding: FxHash, as in the analysis's own maps.
    pub data_type_levels: crate::util::FxMap<String, u8>,
    pub attack_families: Vec<AttackFamily>,
    /// Channel → (source role, target role) of an event (spec 3.10).
    pub flow_channel_roles: HashMap<String, (String, String)>,
    /// Node kinds, strongest first: a node's kind is the first of these
    /// among the roles it played.
    pub flow_kind_priority: Vec<String>,
    pub flow_kind_lane: HashMap<String, u8>,
    /// The node id an endpoint of each role gets when the event names none
    /// (the agent role uses the trace's agent name instead, see `report::flow`).
    pub flow_implied_node_id: HashMap<String, String>,
    /// Named sets of data types and channels the compliance controls test.
    pub compliance_type_groups: HashMap<String, Vec<String>>,
    pub compliance_frameworks: Vec<ComplianceFrameworkRow>,
}

#[derive(Deserialize)]
pub(crate) struct ComplianceFrameworkRow {
    pub id: String,
    pub name: String,
    pub url: String,
    pub controls: Vec<ComplianceControlRow>,
}

#[derive(Deserialize)]
pub(crate) struct ComplianceControlRow {
    pub id: String,
    pub name: String,
    /// An informational control: always reported as `info`.
    pub info: bool,
    /// Policy assertions of which at least one must have been checked for
    /// the control to be assessed; empty for trace-only controls.
    pub requires_any_assertion: Vec<String>,
}

#[derive(Deserialize)]
pub(crate) struct AttackFamily {
    pub id: String,
    pub name: String,
    pub classes: Vec<AttackClassRow>,
}

#[derive(Deserialize)]
pub(crate) struct AttackClassRow {
    pub id: String,
    pub name: String,
    pub adversary_level: String,
    pub primary_channel: String,
}

#[derive(Deserialize)]
pub(crate) struct KeynameStem {
    pub stem_regex: String,
    pub data_type: String,
    pub severity: String,
}

/// The parsed tables. The JSON is compiled into the crate, so it cannot be
/// missing, and the test `tables::tests::bundled_tables_parse` (like every
/// detector and report test after it) parses it: a broken file fails the
/// tests, never a user's run.
#[allow(clippy::panic)]
pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| match serde_json::from_str(include_str!("../data/agentleak-tables.json")) {
        Ok(t) => t,
        // The file is part of the crate and parsed by every test run.
        Err(e) => panic!("bundled agentleak-tables.json is invalid: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::tables;
    use crate::model::Channel;

    #[test]
    fn bundled_tables_parse() {
        let t = tables();
        assert_eq!(t.data_type_levels.get("ssn"), Some(&4));
        assert_eq!(t.compliance_frameworks.len(), 14);
        for c in Channel::ALL {
            assert!(t.flow_channel_roles.contains_key(c.as_str()), "no flow roles for {c}");
        }
    }
}
