//! The reference's data tables (`data/agentleak-tables.json`: MIT,
//! © AgentLeak contributors, see its `_provenance`), parsed once.

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
    pub data_type_levels: HashMap<String, u8>,
    pub attack_families: Vec<AttackFamily>,
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

pub(crate) fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| match serde_json::from_str(include_str!("../../data/agentleak-tables.json")) {
        Ok(t) => t,
        // The file is part of the crate and parsed by every test run.
        Err(e) => panic!("bundled agentleak-tables.json is invalid: {e}"),
    })
}
