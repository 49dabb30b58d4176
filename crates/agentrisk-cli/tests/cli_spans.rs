//! OpenTelemetry span exports through `run`, `batch` and `site`: one run
//! per conversation under the structural mapping, the reference's one
//! trace under `--span-mapping reference`, and an export with no spans or
//! a trace with no events named on stderr.

mod common;

use common::agentrisk;
use serde_json::Value;
use std::path::PathBuf;

fn spans(file: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/spans")
        .join(file)
        .to_string_lossy()
        .into_owned()
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-spans-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn read(path: PathBuf) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

#[test]
fn run_writes_a_report_per_conversation_and_names_the_mapping() {
    let out = temp_dir("run");
    let o = agentrisk(&["run", "-t", &spans("lc_two_sessions.otlp.json"), "-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "the second conversation is blocked: {stderr}");
    let first = read(out.join("lc_two_sessions.otlp_s-1.json"));
    let second = read(out.join("lc_two_sessions.otlp_s-2.json"));
    assert_eq!((first["run_id"].as_str(), first["verdict"].as_str()), (Some("lc_two_sessions.otlp#s-1"), Some("Pass")));
    assert_eq!((second["privacy_score"].as_i64(), second["blocked"].as_bool()), (Some(0), Some(true)));
    assert_eq!(
        second["span_source"],
        serde_json::json!({"format": "otlp_json", "mapping": "structural", "spans": 5, "conversation": "s-2"})
    );
    assert!(second["findings"].as_array().unwrap().iter().all(|f| f["channel"] == "final_output"), "{second}");
    assert!(stderr.contains("from OTLP JSON (structural mapping)"), "{stderr}");
}

#[test]
fn the_reference_mapping_gives_the_references_one_trace() {
    let out = temp_dir("reference");
    let o = agentrisk(&[
        "run",
        "-t",
        &spans("genai_openai_chat.otlp.json"),
        "--span-mapping",
        "reference",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let ours = read(out.join("genai_openai_chat.otlp.json"));
    let theirs = read(PathBuf::from(spans("reference/genai_openai_chat.otlp.json.report.json")));
    // GenAI spans are dropped by the reference: an answer holding an SSN passes.
    for key in ["run_id", "event_count", "privacy_score", "verdict", "blocked", "findings"] {
        assert_eq!(ours[key], theirs[key], "{key}");
    }
    assert_eq!(ours["verdict"], "Pass");
    // The structural mapping finds the SSN in the answer.
    let o = agentrisk(&["run", "-t", &spans("genai_openai_chat.otlp.json"), "-o", "-", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["channel"] == "final_output" && f["data_type"] == "ssn"));
    let bad = agentrisk(&["run", "-t", &spans("lc_clean.otlp.json"), "--span-mapping", "nested"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn batch_counts_each_conversation_and_names_bad_span_files() {
    let o = agentrisk(&[
        "batch",
        "--json",
        "-q",
        &spans("lc_two_sessions.otlp.jsonl"),
        &spans("lc_clean.otlp.json"),
        &spans("binary.otlp.pb"),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "a file could not be read: {stderr}");
    assert!(stderr.contains("binary.otlp.pb: this is binary OTLP (protobuf)"), "{stderr}");
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["runs"], 3);
    assert_eq!(summary["leak_rate"]["k"], 1);
}

#[test]
fn an_empty_export_is_an_error_and_a_trace_with_no_events_a_warned_pass() {
    let dir = temp_dir("empty");
    std::fs::create_dir_all(&dir).unwrap();
    let (export, empty) = (dir.join("none.otlp.json"), dir.join("empty.json"));
    std::fs::write(&export, br#"{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}"#).unwrap();
    std::fs::write(&empty, br#"{"run_id": "empty", "events": []}"#).unwrap();
    let o = agentrisk(&["run", "-t", export.to_str().unwrap(), "-o", "-", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no spans: nothing was analysed"));
    let o = agentrisk(&["run", "-t", empty.to_str().unwrap(), "-o", "-", "-q"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&o.stderr).contains("run empty: no events: nothing was analysed"));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["verdict"], "Pass", "the reference's numbers are kept");
}

#[test]
fn the_batch_table_says_which_runs_came_from_spans() {
    let o = agentrisk(&["batch", "-q", &spans("lc_two_sessions.otlp.jsonl"), &spans("lc_clean.otlp.json")]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("3 runs from 2 files"), "{text}");
    assert!(text.contains("3 runs made from span exports (structural mapping)"), "{text}");
}
