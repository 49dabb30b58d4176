//! Every config the reference was run with (`conformance/configs/*.yaml`)
//! loads, with the values each file sets; and every report the reference
//! wrote under that config agrees with what we loaded (project, weights,
//! vault, detectors that fired, channels scanned, redaction, overrides,
//! policy on/off).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::config::{config_from_yaml, AnalysisConfig, CustomRule, DetectionMode, DetectorToggles, FlowRule};
use agentrisk::model::{Channel, Level};
use agentrisk::score::{VaultConfig, Weights};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

fn config_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join("configs"))
        .expect("configs folder")
        .map(|e| e.expect("config entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned()
}

fn load(path: &Path) -> AnalysisConfig {
    let text = std::fs::read_to_string(path).expect("config text");
    match config_from_yaml(&text) {
        Ok(config) => config,
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// What the file changes relative to "a config file with nothing in it".
fn expected(name: &str) -> AnalysisConfig {
    let file_defaults = AnalysisConfig { detectors: DetectorToggles::FILE_DEFAULTS, ..AnalysisConfig::default() };
    let all_on = AnalysisConfig { detectors: DetectorToggles::ALL_ON, ..file_defaults.clone() };
    let mut c = all_on.clone();
    match name {
        "all_detectors" => {}
        "empty" => return file_defaults,
        "channels_subset" => {
            c.channels = ["user_input", "tool_response", "tool_call", "final_output"].map(String::from).to_vec();
        }
        "custom_detector" => {
            c.custom_detectors = vec![
                CustomRule {
                    name: "case_number".into(),
                    pattern: "case #[0-9]+".into(),
                    severity: "high".into(),
                    data_type: "case_number".into(),
                    confidence: 0.9,
                    recommendation: None,
                },
                CustomRule {
                    name: "canary_token".into(),
                    pattern: "CANARY_[A-Z0-9_]+".into(),
                    severity: "critical".into(),
                    data_type: "canary_token".into(),
                    confidence: 0.99,
                    recommendation: None,
                },
            ];
        }
        "level_overrides" => {
            c.scoring.level_overrides =
                [("person_name", 3), ("email", 4), ("health_condition", 2), ("medication", 0), ("address", 9)]
                    .map(|(k, v)| (k.to_owned(), v))
                    .into();
        }
        "no_block_on_critical" => {
            c.scoring.block_on_critical = false;
            c.scoring.fail_below = 60;
        }
        "privacy_policy" => {
            let p = &mut c.privacy_policy;
            p.max_risk_index = Some(0.30);
            p.forbid_levels = vec![Level::L4];
            p.forbid_channels = vec![Channel::Log];
            p.forbid_data_types = vec!["email".into()];
            p.require_explicit_vault = true;
            p.flows = vec![FlowRule {
                data_types: vec!["*".into()],
                senders: vec![],
                recipients: vec!["stdout".into()],
                purposes: vec![],
                origins: vec![],
                allow: false,
                description: "Nothing personal reaches stdout.".into(),
            }];
        }
        "redact_off" => c.redact_values = false,
        "vault_levels" => {
            c.scoring.vault = Some(VaultConfig {
                levels: vec![(1, 10), (2, 10), (3, 10), (4, 10)],
                rho_s: None,
                scope_def: Some("conformance explicit vault, 40 secrets".into()),
            });
        }
        "vault_rho_s" => c.scoring.vault = Some(VaultConfig { levels: vec![], rho_s: Some(60), scope_def: None }),
        "vault_undersized" => {
            c.scoring.vault = Some(VaultConfig { levels: vec![(4, 1)], rho_s: None, scope_def: None })
        }
        "weights_1_3_9_27" => c.scoring.weights = Weights::new(&[1, 3, 9, 27]).expect("valid weights"),
        other => panic!("configs/{other}.yaml is new: add what it sets to this test"),
    }
    c
}

#[test]
fn every_conformance_config_loads_with_the_values_it_sets() {
    let files = config_files();
    assert_eq!(files.len(), 12, "the corpus has 12 configs");
    for path in &files {
        let name = stem(path);
        let config = load(path);
        assert_eq!(config, expected(&name), "configs/{name}.yaml");
        assert_eq!(config.check_runnable(), Ok(DetectionMode::Fast), "configs/{name}.yaml");
    }
}

#[test]
fn specific_values_read_from_the_files() {
    let dir = fixtures().join("configs");
    let c = load(&dir.join("weights_1_3_9_27.yaml"));
    assert_eq!(c.scoring.weights.values(), [1, 3, 9, 27]);

    let c = load(&dir.join("level_overrides.yaml"));
    assert_eq!(c.scoring.level_for("medication"), Some(Level::L1));
    assert_eq!(c.scoring.level_for("address"), Some(Level::L4));
    assert_eq!(c.scoring.level_for("health_condition"), Some(Level::L2));
    assert_eq!(c.scoring.level_for("ssn"), None);

    let c = load(&dir.join("vault_levels.yaml"));
    let vault = c.scoring.vault.expect("explicit vault");
    let (rho_s, profile) = vault.rho_s_and_profile(&c.scoring.weights).expect("valid vault");
    assert_eq!((rho_s, profile.counts()), (100, [10, 10, 10, 10]));

    // `levels: {"4": 1}` — a quoted key.
    let c = load(&dir.join("vault_undersized.yaml"));
    let (rho_s, _) = c.scoring.vault.expect("explicit vault").rho_s_and_profile(&c.scoring.weights).expect("valid");
    assert_eq!(rho_s, 4);

    let c = load(&dir.join("empty.yaml"));
    assert!(!c.detectors.finance && !c.detectors.hr);
    assert!(c.detectors.pii && c.detectors.secrets && c.detectors.healthcare && c.detectors.keyname);

    let c = load(&dir.join("custom_detector.yaml"));
    let severities: Vec<_> = c.custom_detectors.iter().map(|r| r.severity().map(|s| s.fallback_level())).collect();
    assert_eq!(severities, vec![Ok(Level::L3), Ok(Level::L4)]);

    let c = load(&dir.join("privacy_policy.yaml"));
    let rule = &c.privacy_policy.flows[0];
    assert!(rule.matches("email", "framework", "stdout", "", "framework"));
    assert!(!rule.matches("email", "framework", "log_file", "", "framework"));
}

fn policy_has_assertions(c: &AnalysisConfig) -> bool {
    let p = &c.privacy_policy;
    p.max_risk_index.is_some()
        || p.max_findings.is_some()
        || !p.forbid_levels.is_empty()
        || !p.forbid_channels.is_empty()
        || !p.forbid_data_types.is_empty()
        || p.require_explicit_vault
        || !p.flows.is_empty()
}

fn detector_is_on(c: &AnalysisConfig, detector: &str) -> bool {
    let t = c.detectors;
    match detector {
        "pii_detector" => t.pii,
        "secrets_detector" => t.secrets,
        "healthcare_detector" => t.healthcare,
        "finance_detector" => t.finance,
        "hr_detector" => t.hr,
        "keyname_detector" => t.keyname,
        other => match other.strip_prefix("custom:") {
            Some(name) => c.custom_detectors.iter().any(|r| r.name == name),
            None => false,
        },
    }
}

/// The reports written under each config agree with the loaded values.
#[test]
fn reports_written_under_each_config_agree_with_it() {
    let cases = fixtures().join("cases");
    let mut checked = 0;
    let mut detectors_seen = std::collections::BTreeSet::new();
    for path in config_files() {
        let name = stem(&path);
        let config = load(&path);
        let mut case_dirs: Vec<PathBuf> =
            std::fs::read_dir(&cases).expect("cases").map(|e| e.expect("case").path()).collect();
        case_dirs.sort();
        for case in case_dirs {
            let report_path = case.join(format!("report.{name}.json"));
            let Ok(text) = std::fs::read_to_string(&report_path) else { continue };
            let report: Value = serde_json::from_str(&text).expect("report JSON");
            let at = report_path.display();
            checked += 1;
            assert_eq!(report["project"], config.project_name.as_str(), "{at}");
            assert_eq!(report["detection"]["mode"], "fast", "{at}");
            let weights: Vec<u64> = config.scoring.weights.values().to_vec();
            assert_eq!(report["agentrisk"]["weights"], serde_json::json!(weights), "{at}");
            assert_eq!(report["privacy_policy"]["enabled"], policy_has_assertions(&config), "{at}");
            if let Some(vault) = &config.scoring.vault {
                let (rho_s, profile) = vault.rho_s_and_profile(&config.scoring.weights).expect("valid vault");
                assert_eq!(report["rho_s"], rho_s, "{at}");
                assert_eq!(report["agentrisk"]["vault_count"], profile.total(), "{at}");
                let scope = vault.scope_def.as_deref().unwrap_or("explicit vault (operator-provided scope)");
                assert_eq!(report["scope_def"], scope, "{at}");
            }
            for finding in report["findings"].as_array().expect("findings") {
                let detector = finding["detector"].as_str().expect("detector");
                let channel = finding["channel"].as_str().expect("channel");
                let data_type = finding["data_type"].as_str().expect("data_type");
                detectors_seen.insert(format!("{name}:{detector}"));
                assert!(detector_is_on(&config, detector), "{at}: {detector} fired but is off");
                assert!(config.scans_channel(channel), "{at}: {channel} is not scanned");
                assert_eq!(finding.get("matched_value").is_some(), !config.redact_values, "{at}");
                if let Some(level) = config.scoring.level_for(data_type) {
                    assert_eq!(finding["level"], level.get(), "{at}: {data_type}");
                }
            }
        }
    }
    // vault_undersized leaves errors for most cases, reports for the rest.
    assert_eq!(checked, 272, "reports written under a config");
    // The checks above bite: the detectors empty.yaml turns off fire when on
    // (all_detectors.yaml has no stored reports; redact_off.yaml has them all on).
    assert!(detectors_seen.contains("redact_off:finance_detector"));
    assert!(detectors_seen.contains("redact_off:hr_detector"));
    assert!(!detectors_seen.contains("empty:finance_detector"));
    assert!(detectors_seen.contains("custom_detector:custom:case_number"));
}
