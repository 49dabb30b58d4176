//! What-if scoring of stored reports, against the reference: each
//! conformance case's no-config report, re-scored with a config that only
//! changes scoring (weights, an explicit vault, the gate), must equal the
//! report the reference wrote for the same trace with that config — every
//! number, the summary, `channel_risks`, the `agentrisk` block and the
//! compliance section (integrity digest included). Where the reference
//! refused the config (an undersized vault), the re-scoring refuses too.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::config::{config_from_yaml, AnalysisConfig};
use agentrisk::load_report;
use agentrisk::model::Report;
use agentrisk::report::{report_what_if, ReportWhatIf};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

/// The stored variants whose configs change scoring only (every detector
/// on, as without a config), so detection is that of `report.default.json`.
const SCORING_ONLY: [&str; 6] = [
    "weights_1_3_9_27",
    "vault_levels",
    "vault_rho_s",
    "vault_undersized",
    "no_block_on_critical",
    "cli_fail_under_95",
];

fn config_for(variant: &str) -> AnalysisConfig {
    if variant == "cli_fail_under_95" {
        let mut config = AnalysisConfig::default();
        config.scoring.fail_below = 95;
        return config;
    }
    let text = std::fs::read_to_string(corpus().join(format!("configs/{variant}.yaml"))).expect("config");
    config_from_yaml(&text).expect("corpus config loads")
}

fn read_report(path: &Path) -> Report {
    load_report(&std::fs::read(path).expect("read report")).expect("report loads")
}

/// The fields scoring decides, with our own prose left out and the
/// per-channel RI compared as a map.
fn scored_fields(report: &Report) -> Value {
    let v = serde_json::to_value(report).expect("report to JSON");
    let mut out = json!({});
    for key in
        ["wsl", "rho_s", "risk_index", "privacy_score", "verdict", "blocked", "scope_def", "summary", "channel_risks"]
    {
        out[key] = v[key].clone();
    }
    let mut agentrisk = v["agentrisk"].clone();
    if let Some(map) = agentrisk["ri_by_channel"].as_object() {
        let sorted: std::collections::BTreeMap<String, Value> = map.clone().into_iter().collect();
        agentrisk["ri_by_channel"] = json!(sorted);
    }
    out["agentrisk"] = agentrisk;
    let mut compliance = v["compliance"].clone();
    for fw in compliance["frameworks"].as_array_mut().into_iter().flatten() {
        for control in fw["controls"].as_array_mut().into_iter().flatten() {
            control["rationale"] = Value::Null;
        }
    }
    compliance["integrity"]["note"] = Value::Null;
    compliance["disclaimer"] = Value::Null;
    out["compliance"] = compliance;
    out
}

#[test]
fn reports_rescored_with_scoring_configs_equal_the_references_reports() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus().join("cases"))
        .expect("cases folder")
        .map(|e| e.expect("case").path())
        .filter(|case| case.join("report.default.json").exists())
        .collect();
    cases.sort();
    let (mut compared, mut refused, mut changed) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let default = read_report(&case.join("report.default.json"));
        for variant in SCORING_ONLY {
            let expected = case.join(format!("report.{variant}.json"));
            let refusal = case.join(format!("error.{variant}.txt"));
            if !expected.exists() && !refusal.exists() {
                continue;
            }
            let mut input = default.clone();
            if expected.exists() {
                // The integrity digest hashes `generated_at`.
                input.generated_at = read_report(&expected).generated_at;
            }
            match (report_what_if(&input, &config_for(variant)), expected.exists()) {
                (Ok(ReportWhatIf { report, notes, .. }), true) => {
                    compared += 1;
                    let theirs = read_report(&expected);
                    changed += usize::from(theirs.risk_index != default.risk_index);
                    if scored_fields(&report) != scored_fields(&theirs) {
                        failures.push(format!(
                            "{name} × {variant}:\n  ours   {}\n  theirs {}",
                            scored_fields(&report),
                            scored_fields(&theirs)
                        ));
                    }
                    if !notes.is_empty() {
                        failures.push(format!("{name} × {variant}: unexpected notes {notes:?}"));
                    }
                }
                (Err(e), false) => {
                    refused += 1;
                    let theirs = std::fs::read_to_string(&refusal).expect("error text");
                    if !(theirs.contains("undersized") && e.to_string().contains("undersized")) {
                        failures.push(format!("{name} × {variant}: we refuse with {e}, the reference with {theirs}"));
                    }
                }
                (Ok(_), false) => failures.push(format!("{name} × {variant}: the reference refused, we did not")),
                (Err(e), true) => {
                    failures.push(format!("{name} × {variant}: the reference scored it, we refused: {e}"))
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    // 26 cases × 4 configs, 12 undersized-vault reports and 10
    // `--fail-under 95` ones; the undersized vault refused 14 cases.
    assert_eq!((compared, refused), (126, 14));
    assert_eq!(changed, 50, "comparisons whose risk index the config changed");
}

#[test]
fn new_weights_change_the_numbers_the_way_a_new_analysis_would() {
    let case = corpus().join("cases/ex_healthcare_trace");
    let report = read_report(&case.join("report.default.json"));
    assert_eq!((report.wsl, report.rho_s, report.privacy_score), (11, 25, 56));
    let what_if = report_what_if(&report, &config_for("weights_1_3_9_27")).expect("scores");
    let theirs = read_report(&case.join("report.weights_1_3_9_27.json"));
    assert_eq!((what_if.report.wsl, what_if.report.rho_s), (theirs.wsl, theirs.rho_s));
    assert_eq!(what_if.report.privacy_score, theirs.privacy_score);
    assert_ne!(what_if.report.privacy_score, 56);
    assert_eq!(what_if.report.blocked, !what_if.block_reasons.is_empty());
}

#[test]
fn what_detection_decided_is_named_not_silently_ignored() {
    let report = read_report(&corpus().join("cases/ex_healthcare_trace/report.default.json"));
    for (variant, expected) in [
        ("level_overrides", "Level overrides"),
        ("privacy_policy", "privacy policy"),
        ("custom_detector", "custom detectors"),
        ("channels_subset", "channel list"),
        ("empty", "detector toggles"),
    ] {
        let what_if = report_what_if(&report, &config_for(variant)).expect("scores");
        assert!(what_if.notes.iter().any(|n| n.contains(expected)), "{variant}: {:?}", what_if.notes);
        // Scoring is untouched by those sections: the numbers stay the stored ones.
        assert_eq!(
            (what_if.report.risk_index, what_if.report.privacy_score, what_if.report.blocked),
            (report.risk_index, report.privacy_score, report.blocked)
        );
    }
}

/// Redaction merges two IBANs of dojo_banking__user_task_6__injection_task_0
/// (same ends and length): its findings cannot say which channels each
/// reached, so new weights leave per-channel risk as stored, with a note,
/// while the headline numbers still follow the level profile exactly.
#[test]
fn per_channel_risk_that_cannot_be_reweighted_is_kept_and_said() {
    let case = corpus().join("cases/dojo_banking__user_task_6__injection_task_0");
    let report = read_report(&case.join("report.default.json"));
    let mut config = AnalysisConfig::default();
    config.scoring.weights = agentrisk::score::Weights::new(&[1, 3, 9, 27]).unwrap();
    let what_if = report_what_if(&report, &config).expect("scores");
    assert!(
        what_if.notes.iter().any(|n| n.contains("Per-channel risk keeps its stored values")),
        "{:?}",
        what_if.notes
    );
    let stored = report.agentrisk.as_ref().unwrap();
    assert_eq!(what_if.report.agentrisk.as_ref().unwrap().ri_by_channel, stored.ri_by_channel);
    let p = report.summary.level_profile;
    assert_eq!(what_if.report.wsl as u64, p.l1 + 3 * p.l2 + 9 * p.l3 + 27 * p.l4);
    // With the stored weights and only the gate changed, nothing is lost.
    let mut gate_only = AnalysisConfig::default();
    gate_only.scoring.fail_below = 95;
    assert!(report_what_if(&report, &gate_only).unwrap().notes.is_empty());
}
