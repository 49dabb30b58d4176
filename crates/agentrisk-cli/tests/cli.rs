//! The `agentrisk` binary, run as a user runs it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn case(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/cases")
        .join(name)
        .join("report.default.json")
        .to_string_lossy()
        .into_owned()
}

fn agentrisk(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentrisk")).args(args).output().expect("run agentrisk")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
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
             "verdict": "High risk", "blocked": false, "consistent": true},
            {"file": blocked, "run_id": "run_healthcare_001", "risk_index": 0.44, "privacy_score": 56,
             "verdict": "High risk", "blocked": true, "consistent": true},
        ])
    );
}

#[test]
fn gate_flags_change_the_consistency_check() {
    // ex_hr_trace under fail_below 60 and no block on critical was blocked
    // (score 42 < 60); scored as if defaults applied, the stored `blocked`
    // disagrees, and the CLI says so.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/cases/ex_hr_trace/report.no_block_on_critical.json");
    let path = path.to_string_lossy();
    let o = agentrisk(&["score", "--fail-below", "60", "--no-block-on-critical", &path]);
    assert!(stdout(&o).ends_with("High risk · blocked · consistent\n"), "{}", stdout(&o));
    let o = agentrisk(&["score", "--fail-below", "30", &path]);
    assert!(
        stdout(&o).contains("· blocked · inconsistent\n    blocked: stored true, recomputed false\n"),
        "{}",
        stdout(&o)
    );
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
