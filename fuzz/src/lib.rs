//! What every fuzz target checks besides "no panic": the properties any
//! report the core builds or loads must have. The targets in
//! `fuzz_targets/` feed bytes to the core's public entry points and call
//! these on whatever comes out.

use agentrisk::config::{config_from_yaml, AnalysisConfig};
use agentrisk::model::Report;
use agentrisk::analyser::{Analyser, NamedConfig};
use agentrisk::report::{assess_compliance, markdown_run, plain_summary};
use agentrisk::{load_report, rescore_report, Verdict};
use std::sync::OnceLock;

/// A small config that turns on what the defaults leave off: custom rules,
/// other weights, level overrides, an explicit vault (large enough for any
/// input the fuzzer is likely to build), a privacy policy with a flow rule,
/// unredacted values.
pub const FIXED_CONFIG_YAML: &str = r#"
project: {name: fuzz}
detectors: {pii: true, secrets: true, healthcare: true, finance: true, hr: true, keyname: true}
custom_detectors:
  - name: case_number
    pattern: "case #[0-9]+"
    severity: high
    data_type: case_number
  - name: canary_token
    pattern: "CANARY_[A-Z0-9_]+"
    severity: critical
    data_type: canary_token
scoring:
  weights: [1, 3, 9, 27]
  level_overrides: {email: 3, ssn: 9, case_number: 0}
  fail_below: 55
vault:
  levels: {1: 400, 2: 400, 3: 400, 4: 400}
  scope_def: "fuzz vault"
privacy:
  redact_values: false
privacy_policy:
  max_risk_index: 0.5
  forbid_channels: [log]
  flows:
    - data_type: "*"
      to: stdout
      deny: true
"#;

/// [`FIXED_CONFIG_YAML`], loaded once.
pub fn fixed_config() -> &'static AnalysisConfig {
    static CONFIG: OnceLock<AnalysisConfig> = OnceLock::new();
    CONFIG.get_or_init(|| config_from_yaml(FIXED_CONFIG_YAML).expect("the fixed fuzz config loads"))
}

/// The reference defaults (no config file).
pub fn default_config() -> &'static AnalysisConfig {
    static CONFIG: OnceLock<AnalysisConfig> = OnceLock::new();
    CONFIG.get_or_init(AnalysisConfig::default)
}

/// The analyser for `config`, with no canaries, no environment and a fixed clock.
pub fn analyser(config: &AnalysisConfig) -> Analyser {
    Analyser::new()
        .with_config(Some(NamedConfig { name: "fuzz.yaml".to_owned(), config: config.clone() }))
        .with_generated_at("2026-01-01T00:00:00Z")
}

/// [`analyser`] of [`default_config`] and of [`fixed_config`], built once.
pub fn default_analyser() -> &'static Analyser {
    static ANALYSER: OnceLock<Analyser> = OnceLock::new();
    ANALYSER.get_or_init(|| analyser(default_config()))
}

pub fn fixed_analyser() -> &'static Analyser {
    static ANALYSER: OnceLock<Analyser> = OnceLock::new();
    ANALYSER.get_or_init(|| analyser(fixed_config()))
}

/// The headline numbers of any report we built: RI in [0, 1], the score in
/// [0, 100] and the verdict of the score's band.
pub fn check_headline(report: &Report) {
    assert!((0.0..=1.0).contains(&report.risk_index), "risk_index {}", report.risk_index);
    let score = u8::try_from(report.privacy_score).expect("privacy_score fits 0..=255");
    assert!(score <= 100, "privacy_score {score}");
    assert_eq!(report.verdict, Verdict::from_privacy_score(score).as_str());
}

/// A report we built from a trace: its headline numbers hold, it survives
/// a JSON round trip unchanged, and re-scoring it (what the viewer and
/// `agentrisk score` do with a saved report) finds it consistent.
pub fn check_built_report(report: &Report, config: &AnalysisConfig) {
    check_headline(report);
    let json = serde_json::to_vec(report).expect("a built report serialises");
    let loaded = load_report(&json).expect("a built report loads back");
    assert_eq!(&loaded, report, "the report changed in a JSON round trip");
    let rescore = rescore_report(&loaded, &config.scoring);
    assert!(rescore.consistent, "our own report re-scores as inconsistent: {:?}", rescore.mismatches);
    use_report(report);
}

/// The read-only consumers of a report the viewer runs on every loaded run.
pub fn use_report(report: &Report) {
    let summary = plain_summary(report);
    assert!(!summary.is_empty());
    let markdown = markdown_run(report, "fuzz.json");
    assert!(!markdown.is_empty());
    let _ = assess_compliance(report);
}
