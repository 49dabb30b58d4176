//! Review files on the command line, as a CI step uses them: `--review`
//! and `--today` on `run`, `score` and `batch` (the reviewed gate decides
//! the exit status, an expired acceptance blocks again), the same reviewed
//! numbers from a trace (`run`) and from its report (`score`), and
//! `review init` / `review check` with their exit statuses.
//!
//! The run is the example healthcare trace (`www/samples/traces`): RI 0.44,
//! privacy score 56, High risk, blocked by two L4 leaks (a health
//! identifier and a health condition). Reviewed with the condition a false
//! positive and the identifier accepted until 2026-07-01: RI 0.3333,
//! privacy score 67, not blocked (until 2026-07-01, when the identifier
//! blocks again).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{agentrisk, stderr, stdout};
use serde_json::Value;
use std::path::PathBuf;

fn trace() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../www/samples/traces/healthcare_trace.json")
        .to_string_lossy()
        .into_owned()
}

/// A fresh folder under the temp folder.
fn scratch(tag: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("agentrisk-review-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    path
}

const REVIEW: &str = r#"{"format": "agentrisk-review", "version": 1,
  "decisions": [
    {"run_id": "run_healthcare_001", "data_type": "health_condition", "channel": "*", "value": "di****es",
     "decision": "false_positive", "rationale": "a leaflet's text", "reviewer": "Dana", "decided_at": "2026-05-20", "expires": null},
    {"run_id": "run_healthcare_001", "data_type": "health_identifier", "channel": "*", "value": "TR********78",
     "decision": "accepted_risk", "rationale": "test patient", "reviewer": "Dana", "decided_at": "2026-05-20", "expires": "2026-07-01"},
    {"run_id": "run_elsewhere", "data_type": "email", "channel": "*", "value": "ab****cd",
     "decision": "confirmed", "reviewer": "Dana", "decided_at": "2026-05-20"}
  ],
  "runs": [{"run_id": "run_healthcare_001", "status": "approved", "reviewer": "Dana", "note": "", "at": "2026-05-21"}]
}"#;

fn review_file(dir: &std::path::Path) -> String {
    let path = dir.join("review.json");
    std::fs::write(&path, REVIEW).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn an_expired_acceptance_blocks_again_with_a_fixed_today() {
    let dir = scratch("expiry");
    let review = review_file(&dir);
    let out = dir.join("reports");
    let out = out.to_str().unwrap();
    // Without the review: blocked.
    let o = agentrisk(&["run", "-t", &trace(), "-o", out]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    let o = agentrisk(&["run", "-t", &trace(), "-o", out, "--review", &review, "--today", "2026-06-30"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert!(
        lines[0].contains("run run_healthcare_001 · RI 0.4400 · privacy score 56 · High risk · blocked · "),
        "{err}"
    );
    assert_eq!(
        lines[1],
        "    reviewed: RI 0.3333 · privacy score 67 · High risk · not blocked · 1 false positive · 1 accepted risk · \
         2 of 4 decided · approved by Dana (2026-05-21)"
    );
    assert!(lines.contains(&"    accepted until 2026-07-01: health_identifier TR********78 (on *)"), "{err}");
    assert!(
        err.ends_with(
            "agentrisk: review: decision for run run_elsewhere, email ab****cd on *: no run run_elsewhere among the \
             runs given\n"
        ),
        "{err}"
    );

    // On the expiry date the identifier counts as confirmed again: blocked, and named.
    let o = agentrisk(&["run", "-t", &trace(), "-o", out, "--review", &review, "--today", "2026-07-01"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("    reviewed: RI 0.3333 · privacy score 67 · High risk · blocked · 1 false positive · 1 expired acceptance"), "{err}");
    assert!(
        err.contains(
            "    expired: the accepted risk on health_identifier TR********78 (on *) ended 2026-07-01; it counts as \
             confirmed again\n    blocked: a critical (L4) secret leaked\n"
        ),
        "{err}"
    );
    // Quiet, the expiry is still named.
    let o = agentrisk(&["run", "-q", "-t", &trace(), "-o", out, "--review", &review, "--today", "2026-07-01"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "healthcare_trace.json: run run_healthcare_001: the accepted risk on health_identifier TR********78 (on *) \
             expired 2026-07-01: it counts as confirmed\n"
        ),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `run --review` writes the report with a `reviewed` object added;
/// `score --review` on that report gives the same object and the same
/// exit status, on any day.
#[test]
fn score_and_run_give_the_same_reviewed_numbers_and_exit_status() {
    let dir = scratch("parity");
    let review = review_file(&dir);
    for today in ["2026-06-30", "2026-07-01"] {
        let ran = agentrisk(&["run", "-q", "-t", &trace(), "-o", "-", "--review", &review, "--today", today]);
        let report: Value = serde_json::from_slice(&ran.stdout).unwrap();
        let path = dir.join(format!("report-{today}.json"));
        std::fs::write(&path, &ran.stdout).unwrap();
        let scored = agentrisk(&["score", "--json", path.to_str().unwrap(), "--review", &review, "--today", today]);
        assert_eq!(scored.status.code(), ran.status.code(), "{today}: {}", stderr(&scored));
        let records: Value = serde_json::from_slice(&scored.stdout).unwrap();
        assert_eq!(records[0]["reviewed"], report["reviewed"], "{today}");
        assert_eq!(report["reviewed"]["today"], today);
        // The detected numbers stay the report's.
        assert_eq!((records[0]["privacy_score"].as_i64(), records[0]["blocked"].as_bool()), (Some(56), Some(true)));
        // Text: the reviewed line under the detected one.
        let text = agentrisk(&["score", path.to_str().unwrap(), "--review", &review, "--today", today]);
        assert_eq!(text.status.code(), ran.status.code());
        let out = stdout(&text);
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines[0].ends_with("· RI 0.4400 · privacy score 56 · High risk · blocked · consistent"), "{out}");
        assert!(lines[1].starts_with("    reviewed: RI 0.3333 · privacy score 67 · High risk · "), "{out}");
    }
    assert_eq!(
        serde_json::from_slice::<Value>(&std::fs::read(dir.join("report-2026-06-30.json")).unwrap()).unwrap()
            ["reviewed"]["blocked"],
        false
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The report `run --review` writes keeps every key and value of the one
/// `run` writes (the clock's aside) and adds `reviewed` last.
#[test]
fn a_reviewed_report_keeps_the_reference_keys() {
    let dir = scratch("keys");
    let review = review_file(&dir);
    let plain: Value = serde_json::from_slice(&agentrisk(&["run", "-q", "-t", &trace(), "-o", "-"]).stdout).unwrap();
    let text = stdout(&agentrisk(&["run", "-q", "-t", &trace(), "-o", "-", "--review", &review]));
    // The reference's keys in their order, then `reviewed`, the last top-level key.
    let last_reference_key = text.find("\n  \"leak_paths\": ").unwrap();
    let reviewed = text.find("\n  \"reviewed\": {").unwrap();
    assert!(last_reference_key < reviewed && !text[reviewed + 3..].contains("\n  \""), "{}", &text[reviewed..]);
    let with: Value = serde_json::from_str(&text).unwrap();
    let masked = |mut v: Value| {
        let object = v.as_object_mut().unwrap();
        object.remove("reviewed");
        object.remove("generated_at");
        if let Some(integrity) = object.get_mut("compliance").and_then(|c| c.get_mut("integrity")) {
            integrity["digest"] = Value::Null;
        }
        v
    };
    assert_eq!(masked(with), masked(plain));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_review_files_and_dates_are_named() {
    let dir = scratch("bad");
    let path = dir.join("review.json");
    std::fs::write(&path, REVIEW.replace("\"false_positive\"", "\"fp\"")).unwrap();
    let path = path.to_str().unwrap();
    for command in [vec!["run", "-t", &trace(), "-o", "-"], vec!["score", &trace()], vec!["batch", &trace()]] {
        let mut args = command.clone();
        args.extend(["--review", path]);
        let o = agentrisk(&args);
        assert_eq!(o.status.code(), Some(2), "{command:?}");
        assert_eq!(
            stderr(&o),
            format!(
                "agentrisk: {path}: decisions[0].decision: unknown decision \"fp\"; use \"confirmed\", \
                 \"false_positive\" or \"accepted_risk\" (or null while undecided)\n"
            ),
            "{command:?}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = agentrisk(&["score", &trace(), "--review", path, "--today", "1 June"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("expected a date as YYYY-MM-DD, found \"1 June\""), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn batch_gives_its_rates_as_detected_and_as_reviewed() {
    let dir = scratch("batch");
    let review = review_file(&dir);
    let finance = trace().replace("healthcare_trace", "finance_trace");
    let o = agentrisk(&["batch", &trace(), &finance, "--review", &review, "--today", "2026-06-01"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.contains("Reviewed: 2 of 2 runs (1 approved, 0 changes needed, 0 in review, 1 not signed off); 2 of 10 leaked secrets decided\n"), "{table}");
    for row in [
        "(all runs)  Block rate (as detected)          2  2  100.0%",
        "(all runs)  Block rate (as reviewed)          1  2  50.0% ",
    ] {
        assert!(table.contains(row), "{row:?} in:\n{table}");
    }
    let o = agentrisk(&["batch", &trace(), &finance, "--review", &review, "--today", "2026-06-01", "--json"]);
    let summary: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["block_rate"]["k"], 2);
    assert_eq!(
        (summary["reviewed"]["block_rate"]["k"].as_u64(), summary["reviewed"]["runs_reviewed"].as_u64()),
        (Some(1), Some(2))
    );
    // Without --review there is no `reviewed`.
    let o = agentrisk(&["batch", &trace(), "--json"]);
    assert!(serde_json::from_slice::<Value>(&o.stdout).unwrap().get("reviewed").is_none());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn review_init_writes_undecided_entries_and_check_requires_sign_off() {
    let dir = scratch("init");
    let out = dir.join("review.json");
    let out = out.to_str().unwrap();
    let o = agentrisk(&["review", "init", &trace(), "-o", out, "--today", "2026-06-01"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), format!("agentrisk: wrote {out}: 1 runs, 4 leaked secrets, 4 new entries (4 in all)\n"));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    let decisions = written["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 4);
    assert!(decisions.iter().all(|d| d["decision"].is_null() && d["channel"] == "*"));
    assert_eq!(written["runs"][0]["status"], "in_review");
    assert_eq!(written["runs"][0]["at"], "2026-06-01");
    // No raw value: the trace's health identifier TREM12345678 is there only in its redacted form.
    let values: Vec<&str> = decisions.iter().map(|d| d["value"].as_str().unwrap()).collect();
    assert!(values.contains(&"TR********78"), "{values:?}");
    assert!(!std::fs::read_to_string(out).unwrap().contains("TREM12345678"));

    // In review: not signed off, exit 1.
    let o = agentrisk(&["review", "check", out, &trace()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "run run_healthcare_001: in review · 0 of 4 leaked secrets decided\n1 runs: 0 approved, 1 not approved; 0 \
         decisions match nothing\n"
    );

    // A reviewer edits the file: decides one secret and approves the run.
    let mut edited = written.clone();
    edited["decisions"][0]["decision"] = "confirmed".into();
    edited["decisions"][0]["reviewer"] = "Dana".into();
    edited["decisions"][0]["decided_at"] = "2026-06-02".into();
    edited["runs"].as_array_mut().unwrap().push(serde_json::json!(
        {"run_id": "run_healthcare_001", "status": "approved", "reviewer": "Dana", "note": "", "at": "2026-06-02"}
    ));
    std::fs::write(out, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let o = agentrisk(&["review", "check", out, &trace()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .starts_with("run run_healthcare_001: approved by Dana (2026-06-02) · 1 of 4 leaked secrets decided\n"),
        "{}",
        stdout(&o)
    );

    // init again keeps the decision and the sign-off, and adds nothing.
    let o = agentrisk(&["review", "init", &trace(), "-o", out, "--today", "2026-06-03"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).ends_with("0 new entries (4 in all)\n"), "{}", stderr(&o));
    let again: Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    assert_eq!(again["decisions"].as_array().unwrap().iter().filter(|d| d["decision"] == "confirmed").count(), 1);
    assert_eq!(again["runs"].as_array().unwrap().len(), 2);

    // A decision for a run not given matches nothing; it is listed.
    let other = dir.join("other.json");
    std::fs::write(&other, REVIEW).unwrap();
    let o = agentrisk(&["review", "check", other.to_str().unwrap(), &trace()]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o)
        .contains("decision for run run_elsewhere, email ab****cd on *: no run run_elsewhere among the runs given\n"));
    assert!(stdout(&o).ends_with("1 runs: 1 approved, 0 not approved; 1 decision matches nothing\n"), "{}", stdout(&o));

    // A review file that cannot be read, or a run that cannot: exit 2.
    std::fs::write(&other, "{\"format\": \"agentrisk-review\", \"version\": 1, \"runs\": [{}]}").unwrap();
    let o = agentrisk(&["review", "check", other.to_str().unwrap(), &trace()]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), format!("agentrisk: {}: runs[0]: missing field `run_id`\n", other.display()));
    let o = agentrisk(&["review", "check", out, "/no/such/trace.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("agentrisk: /no/such/trace.json: cannot read: "), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).ok();
}
