//! The `agentrisk` binary, run as a user runs it.

mod common;

use common::{agentrisk, stderr, stdout};
use std::path::PathBuf;

fn case(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/cases")
        .join(name)
        .join("report.default.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn clean_reports_exit_zero_with_their_numbers() {
    let clean = case("ex_healthcare_clean_trace");
    let o = agentrisk(&["score", &clean]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        format!(
            "{clean}: run run_healthcare_clean_001 · RI 0.0000 · privacy score 100 · Pass · not blocked · consistent\n"
        )
    );
}

#[test]
fn a_blocked_report_exits_one_and_json_lists_records() {
    let blocked = case("ex_healthcare_trace");
    let clean = case("ex_customer_support_trace");
    let o = agentrisk(&["score", "--json", &clean, &blocked]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let records: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    assert_eq!(
        records,
        serde_json::json!([
            {"file": clean, "run_id": "run_support_001", "risk_index": 0.4, "privacy_score": 60,
             "verdict": "High risk", "blocked": false, "consistent": true, "gate_note": null},
            {"file": blocked, "run_id": "run_healthcare_001", "risk_index": 0.44, "privacy_score": 56,
             "verdict": "High risk", "blocked": true, "consistent": true, "gate_note": null},
        ])
    );
}

/// ex_hr_trace as the reference reports it under configs/no_block_on_critical.yaml
/// (fail_below 60, block_on_critical false): score 42, no L4 leak, blocked.
fn no_block_on_critical_report() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/cases/ex_hr_trace/report.no_block_on_critical.json")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn gate_flags_change_the_consistency_check() {
    // With the run's own gate pinned, the stored decision is the gate's;
    // pinned to other settings, the stored `blocked` disagrees and the CLI
    // says so.
    let path = no_block_on_critical_report();
    let o = agentrisk(&["score", "--fail-below", "60", "--no-block-on-critical", &path]);
    assert!(stdout(&o).ends_with("High risk · blocked · consistent\n"), "{}", stdout(&o));
    assert_eq!(o.status.code(), Some(1));
    for flags in [&["--fail-below", "30"][..], &["--fail-below", "40"], &["--no-block-on-critical"]] {
        let o = agentrisk(&[&["score"], flags, &[path.as_str()]].concat());
        assert!(
            stdout(&o).ends_with("· blocked · inconsistent\n    blocked: stored true, recomputed false\n"),
            "{flags:?}: {}",
            stdout(&o)
        );
        assert_eq!(o.status.code(), Some(1), "the stored decision decides the exit status");
    }
}

#[test]
fn without_gate_flags_a_decision_other_settings_explain_is_consistent_and_named() {
    let path = no_block_on_critical_report();
    let o = agentrisk(&["score", &path]);
    assert_eq!(
        stdout(&o),
        format!(
            "{path}: run run_hr_001 · RI 0.5833 · privacy score 42 · High risk · blocked · consistent · \
             gate consistent with fail_below ≥ 43\n"
        )
    );
    assert_eq!(o.status.code(), Some(1), "blocked as stored: {}", stderr(&o));
    let o = agentrisk(&["score", "--json", &path]);
    let records: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    assert_eq!(
        records,
        serde_json::json!([{"file": path, "run_id": "run_hr_001", "risk_index": 0.5833, "privacy_score": 42,
            "verdict": "High risk", "blocked": true, "consistent": true,
            "gate_note": "gate consistent with fail_below ≥ 43"}])
    );

    // An L4 leak the run did not block (what block_on_critical: false
    // writes for ex_healthcare_trace, score 56): consistent, not blocked,
    // exit 0; pinned to the default gate, inconsistent (and still exit 0,
    // since the report stores "not blocked").
    let dir = std::env::temp_dir().join(format!("agentrisk-cli-gate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(case("ex_healthcare_trace")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!((&value["blocked"], &value["summary"]["has_critical"]), (&true.into(), &true.into()));
    value["blocked"] = false.into();
    let unblocked = dir.join("unblocked.json");
    std::fs::write(&unblocked, value.to_string()).unwrap();
    let unblocked = unblocked.to_string_lossy().into_owned();
    let o = agentrisk(&["score", &unblocked]);
    assert!(
        stdout(&o).ends_with("· not blocked · consistent · gate consistent with block_on_critical off\n"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(0));
    let o = agentrisk(&["score", "--fail-below", "40", &unblocked]);
    assert!(
        stdout(&o).ends_with("· not blocked · inconsistent\n    blocked: stored false, recomputed true\n"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(0));

    // Edited numbers are no gate setting: inconsistent without flags too.
    value["privacy_score"] = 90.into();
    let edited = dir.join("edited.json");
    std::fs::write(&edited, value.to_string()).unwrap();
    let o = agentrisk(&["score", &edited.to_string_lossy()]);
    assert!(
        stdout(&o).ends_with(
            "· privacy score 90 · High risk · not blocked · inconsistent · gate consistent with block_on_critical off\n    \
             privacy_score: stored 90, recomputed 56\n"
        ),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_and_invalid_files_exit_two_and_name_the_file_and_place() {
    let dir = std::env::temp_dir().join(format!("agentrisk-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\n  \"report\": \"agentleak\",\n  \"version\": 2,,\n}").unwrap();
    let broken = broken.to_string_lossy().into_owned();
    let good = case("ex_healthcare_clean_trace");
    let o = agentrisk(&["score", &broken, "missing.json", &good]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(&format!("agentrisk: {broken}: invalid JSON at line 3, column 16: key must be a string\n")),
        "{err}"
    );
    assert!(err.contains("agentrisk: missing.json: cannot read: No such file or directory"), "{err}");
    // The good file still gets its line.
    assert!(stdout(&o).contains("run_healthcare_clean_001"), "{}", stdout(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors_exit_two() {
    assert_eq!(agentrisk(&[]).status.code(), Some(2));
    assert_eq!(agentrisk(&["score"]).status.code(), Some(2));
    let o = agentrisk(&["score", "--fail-below", "x", "a.json"]);
    assert_eq!(o.status.code(), Some(2));
    // clap's message, under the prefix every error of the tool has.
    assert!(stderr(&o).starts_with("agentrisk: invalid value 'x' for '--fail-below <N>'"), "{}", stderr(&o));
}

fn corpus_config(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/configs")
        .join(format!("{name}.yaml"))
        .to_string_lossy()
        .into_owned()
}

#[test]
fn score_with_a_config_prints_what_the_reference_gives_the_trace_with_it() {
    // ex_healthcare_trace, analysed by the reference with weights 1, 3, 9, 27:
    // RI 0.4462, privacy score 55 (report.weights_1_3_9_27.json).
    let report = case("ex_healthcare_trace");
    let weights = corpus_config("weights_1_3_9_27");
    let o = agentrisk(&["score", "--json", "-c", &weights, &report]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let records: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON output");
    let stored: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(report.replace("report.default.json", "report.weights_1_3_9_27.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(records[0]["risk_index"], stored["risk_index"]);
    assert_eq!(records[0]["privacy_score"], stored["privacy_score"]);
    assert_eq!(records[0]["verdict"], stored["verdict"]);
    assert_ne!(records[0]["privacy_score"], 56, "the weights changed the score");

    // What a report cannot change is named under its line.
    let o = agentrisk(&["score", "-c", &corpus_config("level_overrides"), &report]);
    assert!(stdout(&o).contains("    note: Level overrides cannot change a report"), "{}", stdout(&o));

    // An explicit vault too small for what leaked is refused, naming the config.
    let undersized = corpus_config("vault_undersized");
    let o = agentrisk(&["score", "-c", &undersized, &report]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with(&format!("agentrisk: {undersized}: vault: explicit vault is undersized")),
        "{}",
        stderr(&o)
    );
}
