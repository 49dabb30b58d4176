//! `agentrisk run`, as CI scripts call it, against the reference's reports.

mod common;

use common::agentrisk;
use serde_json::Value;
use std::path::PathBuf;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

fn case(name: &str, file: &str) -> String {
    fixtures().join("cases").join(name).join(file).to_string_lossy().into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-run-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn headline(r: &Value) -> Value {
    serde_json::json!([
        r["run_id"],
        r["risk_index"],
        r["privacy_score"],
        r["verdict"],
        r["blocked"],
        r["wsl"],
        r["rho_s"],
        r["channel_risks"]
    ])
}

#[test]
fn writes_one_report_per_trace_with_the_reference_numbers() {
    let out = temp_dir("two");
    let o = agentrisk(&[
        "run",
        "-t",
        &case("ex_healthcare_trace", "trace.json"),
        "-t",
        &case("ex_customer_support_trace", "trace.json"),
        "-o",
        out.to_str().unwrap(),
        "-f",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1), "healthcare is blocked: {}", String::from_utf8_lossy(&o.stderr));
    let summary = String::from_utf8_lossy(&o.stderr);
    assert!(
        summary.contains("run run_healthcare_001 · RI 0.4400 · privacy score 56 · High risk · blocked"),
        "{summary}"
    );
    for (name, run_id) in
        [("ex_healthcare_trace", "run_healthcare_001"), ("ex_customer_support_trace", "run_support_001")]
    {
        let ours: Value = serde_json::from_slice(&std::fs::read(out.join(format!("{run_id}.json"))).unwrap()).unwrap();
        let theirs: Value = serde_json::from_slice(&std::fs::read(case(name, "report.default.json")).unwrap()).unwrap();
        assert_eq!(headline(&ours), headline(&theirs), "{name}");
        assert_eq!(ours["findings"].as_array().unwrap().len(), theirs["findings"].as_array().unwrap().len());
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn stdout_output_is_deterministic_apart_from_the_clock() {
    let run = || {
        let o = agentrisk(&["run", "-q", "-t", &case("ex_finance_trace", "trace.json"), "-o", "-"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(o.stderr.is_empty(), "-q prints nothing: {}", String::from_utf8_lossy(&o.stderr));
        let mut v: Value = serde_json::from_slice(&o.stdout).expect("a JSON report on stdout");
        v.as_object_mut().unwrap().remove("generated_at");
        // The compliance digest hashes generated_at (INDEX.md), so it is time-dependent too.
        v["compliance"]["integrity"].as_object_mut().unwrap().remove("digest");
        serde_json::to_string(&v).unwrap()
    };
    let first = run();
    assert_eq!(first, run());
    assert!(first.contains("\"privacy_score\":30"));
}

#[test]
fn config_fail_under_and_canaries_change_the_run_like_the_reference() {
    let o = agentrisk(&[
        "run",
        "-q",
        "-t",
        &case("ex_hr_trace", "trace.json"),
        "-o",
        "-",
        "-c",
        &fixtures().join("configs/empty.yaml").to_string_lossy(),
    ]);
    let ours: Value = serde_json::from_slice(&o.stdout).unwrap();
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(case("ex_hr_trace", "report.empty.json")).unwrap()).unwrap();
    assert_eq!(headline(&ours), headline(&theirs));

    let o = agentrisk(&[
        "run",
        "-q",
        "-t",
        &case("ex_healthcare_clean_trace", "trace.json"),
        "-o",
        "-",
        "--fail-under",
        "101",
    ]);
    assert_eq!(o.status.code(), Some(1), "score 100 < 101 blocks");

    let pack = "dojo_banking__user_task_10__injection_task_3";
    let o = agentrisk(&[
        "run",
        "-q",
        "-t",
        &case(pack, "trace.json"),
        "-o",
        "-",
        "--canaries",
        &case(pack, "canaries.json"),
    ]);
    let ours: Value = serde_json::from_slice(&o.stdout).unwrap();
    let theirs: Value = serde_json::from_slice(&std::fs::read(case(pack, "report.pack.json")).unwrap()).unwrap();
    assert_eq!(headline(&ours), headline(&theirs));
    assert!(ours["findings"].as_array().unwrap().iter().any(|f| f["data_type"] == "canary"));
}

#[test]
fn bad_traces_and_configs_exit_two_naming_file_place_and_problem() {
    let dir = temp_dir("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let bad_trace = dir.join("bad.json");
    std::fs::write(&bad_trace, r#"{"events": [{"channel": "shared_memory"}, {"channel": "telepathy"}]}"#).unwrap();
    let good = case("ex_healthcare_clean_trace", "trace.json");
    let out = dir.join("out");
    let o = agentrisk(&["run", "-t", bad_trace.to_str().unwrap(), "-t", &good, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("agentrisk: {}: events[1].channel: unknown channel", bad_trace.display())), "{err}");
    assert!(out.join("run_healthcare_clean_001.json").exists(), "the good trace still gets its report");

    let bad_config = dir.join("bad.yaml");
    std::fs::write(&bad_config, "scoring:\n  weights: [1, 2, 0, 4]\n").unwrap();
    let o = agentrisk(&["run", "-t", &good, "-c", bad_config.to_str().unwrap(), "-o", "-"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with(&format!("agentrisk: {}: scoring.weights", bad_config.display())), "{err}");
    assert!(!err.contains("panicked"));
    std::fs::remove_dir_all(&dir).ok();
}
