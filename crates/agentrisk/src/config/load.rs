//! Walking the YAML tree into an [`AnalysisConfig`], section by section.
//!
//! Unknown keys are ignored everywhere. Sections trace analysis does not use
//! (`agent`, `scenarios`, `reports`, `llm`, `defense`, `policy_gate`, and
//! unused keys of used sections) are still type-checked, because the
//! reference refuses a file whose e.g. `llm.temperature` is not a number.

use super::lax::{self, describe, invalid, Section};
use super::policy::policy_from;
use super::yaml::{node_from_yaml, Node};
use super::{AnalysisConfig, ConfigError, CustomRule, DetectionConfig, DetectorToggles, PolicyConfig};
use crate::detect::Builtin;
use crate::score::{ScoringConfig, ScoringError, VaultConfig, Weights, MAX_WEIGHT};
use std::collections::BTreeMap;

/// Loads a config file's bytes: [`config_from_yaml`] once they are known to
/// be UTF-8 text (a UTF-16 file, or the first byte that is not UTF-8, is
/// named with its line and column).
pub fn config_from_bytes(bytes: &[u8]) -> Result<AnalysisConfig, ConfigError> {
    let text = crate::trace::utf8_text(bytes).map_err(|e| ConfigError::Encoding {
        line: e.line,
        column: e.column,
        message: e.message,
    })?;
    config_from_yaml(text)
}

/// Loads a config file's text. An empty file (or one holding only comments
/// or `null`) is an empty mapping: defaults, with a config file's detector
/// defaults (finance and HR off).
pub fn config_from_yaml(text: &str) -> Result<AnalysisConfig, ConfigError> {
    let empty = Node::Map(Vec::new());
    let root = node_from_yaml(text)?;
    let root = root.as_ref().unwrap_or(&empty);
    let Node::Map(pairs) = root else {
        return Err(ConfigError::NotAMapping { found: describe(root) });
    };
    let root = Section { pairs };
    let defaults = AnalysisConfig::default();

    let mut project_name = defaults.project_name;
    if let Some(project) = root.section("project", "project")? {
        if let Some(n) = project.get("name") {
            project_name = lax::string(n, "project.name")?;
        }
        check_strings(project, "project", &["description"])?;
    }

    let channels = match root.get("channels") {
        Some(n) => lax::strings(n, "channels")?,
        None => defaults.channels,
    };

    let mut detectors = DetectorToggles::FILE_DEFAULTS;
    if let Some(section) = root.section("detectors", "detectors")? {
        for detector in Builtin::ALL {
            let key = detector.key();
            if let Some(n) = section.get(key) {
                detectors.set(detector, lax::boolean(n, &format!("detectors.{key}"))?);
            }
        }
    }

    let custom_detectors = match root.get("custom_detectors") {
        Some(n) => lax::list(n, "custom_detectors")?
            .iter()
            .enumerate()
            .map(|(i, item)| custom_rule_from(item, &format!("custom_detectors[{i}]")))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };

    let mut scoring = ScoringConfig::default();
    if let Some(section) = root.section("scoring", "scoring")? {
        read_scoring(section, &mut scoring)?;
    }
    if let Some(section) = root.section("vault", "vault")? {
        scoring.vault = vault_from(section)?;
    }
    check_vault(&scoring)?;

    let mut redact_values = defaults.redact_values;
    let mut subject_ledger = defaults.subject_ledger;
    if let Some(privacy) = root.section("privacy", "privacy")? {
        if let Some(n) = privacy.get("redact_values") {
            redact_values = lax::boolean(n, "privacy.redact_values")?;
        }
        if let Some(n) = privacy.get("subject_ledger") {
            subject_ledger = lax::string(n, "privacy.subject_ledger")?;
        }
        check_bools(privacy, "privacy", &["store_raw_traces"])?;
    }

    let privacy_policy = match root.section("privacy_policy", "privacy_policy")? {
        Some(section) => policy_from(section)?,
        None => PolicyConfig::default(),
    };

    let detection = match root.section("detection", "detection")? {
        Some(section) => detection_from(section)?,
        None => DetectionConfig::default(),
    };

    check_unused_sections(root)?;

    Ok(AnalysisConfig {
        project_name,
        channels,
        detectors,
        custom_detectors,
        scoring,
        redact_values,
        subject_ledger,
        privacy_policy,
        detection,
    })
}

fn custom_rule_from(node: &Node, path: &str) -> Result<CustomRule, ConfigError> {
    let Node::Map(pairs) = node else {
        return Err(invalid(
            path,
            format!("a custom detector must be a mapping with name and pattern, got {}", describe(node)),
        ));
    };
    let rule = Section { pairs };
    let required = |key: &str| -> Result<String, ConfigError> {
        match rule.get(key) {
            Some(n) => lax::string(n, &format!("{path}.{key}")),
            None => Err(invalid(&format!("{path}.{key}"), "is required")),
        }
    };
    let name = required("name")?;
    let pattern = required("pattern")?;
    let text_or = |key: &str, default: &str| -> Result<String, ConfigError> {
        match rule.get(key) {
            Some(n) => lax::string(n, &format!("{path}.{key}")),
            None => Ok(default.to_owned()),
        }
    };
    let severity = text_or("severity", "medium")?;
    let data_type = text_or("data_type", "custom")?;
    let confidence = match rule.get("confidence") {
        None => 0.9,
        Some(n) => {
            let c_path = format!("{path}.confidence");
            let value = lax::float(n, &c_path)?;
            // pydantic lets NaN through and the reference's clamp then gives
            // an order-dependent result; we refuse it instead.
            if value.is_nan() {
                return Err(invalid(&c_path, "expected a number between 0 and 1, got nan"));
            }
            value.clamp(0.0, 1.0)
        }
    };
    // `recommendation` is not in the reference's config schema; it passes
    // through as an extra key, so we accept text or null.
    let recommendation =
        lax::optional(rule.get("recommendation"), |n| lax::string(n, &format!("{path}.recommendation")))?;
    Ok(CustomRule { name, pattern, severity, data_type, confidence, recommendation })
}

fn read_scoring(section: Section<'_>, scoring: &mut ScoringConfig) -> Result<(), ConfigError> {
    if let Some(n) = section.get("weights") {
        let items = lax::list(n, "scoring.weights")?;
        let values = items
            .iter()
            .enumerate()
            .map(|(i, item)| lax::int(item, &format!("scoring.weights[{i}]")))
            .collect::<Result<Vec<i64>, _>>()?;
        scoring.weights = Weights::new(&values).map_err(|_| {
            invalid(
                "scoring.weights",
                format!(
                    "four strictly positive integers are needed for L1..L4 (each at most {MAX_WEIGHT}), got {values:?}"
                ),
            )
        })?;
    }
    if let Some(n) = section.get("level_overrides") {
        let Node::Map(pairs) = n else {
            return Err(invalid(
                "scoring.level_overrides",
                format!("expected a mapping of data type to level, got {}", describe(n)),
            ));
        };
        let mut overrides = BTreeMap::new();
        for (key, value) in lax::dict_pairs(pairs) {
            let data_type = lax::string(key, "scoring.level_overrides (a data type name)")?;
            let level = lax::int(value, &format!("scoring.level_overrides.{data_type}"))?;
            overrides.insert(data_type, level);
        }
        scoring.level_overrides = overrides;
    }
    if let Some(n) = section.get("fail_below") {
        scoring.fail_below = lax::int(n, "scoring.fail_below")?;
    }
    if let Some(n) = section.get("block_on_critical") {
        scoring.block_on_critical = lax::boolean(n, "scoring.block_on_critical")?;
    }
    // Accepted and unused: the verdict bands are fixed (spec 11.8).
    if let Some(n) = section.get("conditional_below") {
        lax::int(n, "scoring.conditional_below")?;
    }
    Ok(())
}

/// `vault`: an explicit vault exists when `levels` is non-empty or `rho_s`
/// is set; `scope_def` alone does not make one.
fn vault_from(section: Section<'_>) -> Result<Option<VaultConfig>, ConfigError> {
    let mut levels: Vec<(i64, i64)> = Vec::new();
    if let Some(n) = section.get("levels") {
        let Node::Map(pairs) = n else {
            return Err(invalid(
                "vault.levels",
                format!("expected a mapping of level (1..4) to count, got {}", describe(n)),
            ));
        };
        for (key, value) in lax::dict_pairs(pairs) {
            let level = lax::int(key, &format!("vault.levels (the key {})", describe(key)))?;
            let count = lax::int(value, &format!("vault.levels.{level}"))?;
            // Keys equal after coercion ("1" and 1) collapse like a dict:
            // first position, last value.
            match levels.iter_mut().find(|(l, _)| *l == level) {
                Some(slot) => slot.1 = count,
                None => levels.push((level, count)),
            }
        }
    }
    let rho_s = lax::optional(section.get("rho_s"), |n| lax::int(n, "vault.rho_s"))?;
    let scope_def = lax::optional(section.get("scope_def"), |n| lax::string(n, "vault.scope_def"))?;
    if levels.is_empty() && rho_s.is_none() {
        return Ok(None);
    }
    Ok(Some(VaultConfig { levels, rho_s, scope_def }))
}

/// The vault errors that do not depend on the trace. The reference raises
/// them when it scores (exit 1, whatever the trace); refusing the file at
/// load is the same outcome, and the message can name the key.
fn check_vault(scoring: &ScoringConfig) -> Result<(), ConfigError> {
    let Some(vault) = &scoring.vault else {
        return Ok(());
    };
    match vault.rho_s_and_profile(&scoring.weights) {
        Ok(_) => Ok(()),
        Err(ScoringError::NegativeRhoS(rho_s)) => {
            Err(invalid("vault.rho_s", format!("{rho_s} is negative; the vault size must be 0 or more")))
        }
        Err(ScoringError::NegativeVaultCount { level_key, count }) => Err(invalid(
            &format!("vault.levels.{level_key}"),
            format!("the count {count} is negative; vault counts must be 0 or more"),
        )),
        Err(ScoringError::VaultTooLarge) => Err(invalid(
            "vault.levels",
            "the counts are too large: their weighted sum does not fit in 64 bits; use smaller counts",
        )),
        // rho_s_and_profile raises no other error; keep its own message.
        Err(e) => Err(invalid("vault", e.to_string())),
    }
}

fn detection_from(section: Section<'_>) -> Result<DetectionConfig, ConfigError> {
    let mut detection = DetectionConfig::default();
    if let Some(n) = section.get("mode") {
        detection.mode = lax::string(n, "detection.mode")?;
    }
    if let Some(presidio) = section.section("presidio", "detection.presidio")? {
        if let Some(n) = presidio.get("enabled") {
            detection.presidio_enabled = lax::boolean(n, "detection.presidio.enabled")?;
        }
        check_floats(presidio, "detection.presidio", &["score_threshold"])?;
    }
    if let Some(judge) = section.section("llm_judge", "detection.llm_judge")? {
        if let Some(n) = judge.get("enabled") {
            detection.llm_judge_enabled = lax::boolean(n, "detection.llm_judge.enabled")?;
        }
        if let Some(n) = judge.get("api_key_env") {
            detection.llm_judge_api_key_env = lax::string(n, "detection.llm_judge.api_key_env")?;
        }
        check_strings(judge, "detection.llm_judge", &["base_url", "model"])?;
        check_floats(judge, "detection.llm_judge", &["threshold", "timeout"])?;
    }
    Ok(detection)
}

fn check_each(
    section: Section<'_>,
    path: &str,
    keys: &[&str],
    read: impl Fn(&Node, &str) -> Result<(), ConfigError>,
) -> Result<(), ConfigError> {
    for key in keys {
        if let Some(n) = section.get(key) {
            read(n, &format!("{path}.{key}"))?;
        }
    }
    Ok(())
}

fn check_strings(section: Section<'_>, path: &str, keys: &[&str]) -> Result<(), ConfigError> {
    check_each(section, path, keys, |n, p| lax::string(n, p).map(drop))
}

fn check_optional_strings(section: Section<'_>, path: &str, keys: &[&str]) -> Result<(), ConfigError> {
    check_each(section, path, keys, |n, p| lax::optional(Some(n), |n| lax::string(n, p)).map(drop))
}

fn check_bools(section: Section<'_>, path: &str, keys: &[&str]) -> Result<(), ConfigError> {
    check_each(section, path, keys, |n, p| lax::boolean(n, p).map(drop))
}

fn check_floats(section: Section<'_>, path: &str, keys: &[&str]) -> Result<(), ConfigError> {
    check_each(section, path, keys, |n, p| lax::float(n, p).map(drop))
}

fn check_string_lists(section: Section<'_>, path: &str, keys: &[&str]) -> Result<(), ConfigError> {
    check_each(section, path, keys, |n, p| lax::strings(n, p).map(drop))
}

/// Type checks of the sections trace analysis ignores (schema types).
fn check_unused_sections(root: Section<'_>) -> Result<(), ConfigError> {
    if let Some(agent) = root.section("agent", "agent")? {
        check_strings(agent, "agent", &["name", "type"])?;
        check_optional_strings(agent, "agent", &["endpoint"])?;
    }
    if let Some(n) = root.get("scenarios") {
        for (i, item) in lax::list(n, "scenarios")?.iter().enumerate() {
            let path = format!("scenarios[{i}]");
            let scenario = Section::of(item, &path)?;
            match scenario.get("id") {
                Some(id) => drop(lax::string(id, &format!("{path}.id"))?),
                None => return Err(invalid(&format!("{path}.id"), "is required")),
            }
            check_bools(scenario, &path, &["enabled"])?;
        }
    }
    if let Some(reports) = root.section("reports", "reports")? {
        check_strings(reports, "reports", &["output_dir"])?;
        check_string_lists(reports, "reports", &["formats"])?;
    }
    if let Some(llm) = root.section("llm", "llm")? {
        check_strings(llm, "llm", &["provider", "base_url", "model", "api_key_env"])?;
        check_floats(llm, "llm", &["temperature", "timeout"])?;
    }
    if let Some(defense) = root.section("defense", "defense")? {
        check_bools(defense, "defense", &["enabled"])?;
        check_strings(defense, "defense", &["style"])?;
        check_string_lists(defense, "defense", &["channels"])?;
    }
    if let Some(gate) = root.section("policy_gate", "policy_gate")? {
        check_string_lists(gate, "policy_gate", &["fail_on"])?;
        check_bools(gate, "policy_gate", &["fail_on_any"])?;
    }
    Ok(())
}
