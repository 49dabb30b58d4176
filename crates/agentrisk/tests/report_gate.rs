//! A report loaded in a workspace (as the viewer loads it):
//! reports do not store their gate settings, so a stored gate decision that
//! other settings give is consistent and the re-scoring names the setting,
//! while stored numbers no setting gives are still flagged.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::Analyser;
use agentrisk::workspace::{analyser_from_settings, FileResult, LoadedReport};
use std::path::Path;

const CLOCK: &str = "2026-12-02T12:00:00.000Z";

/// A conformance report's text, with each `(from, to)` replaced once (the
/// text, not a parsed value, so that `"report"` stays the first key, which
/// is how the viewer tells a report from a trace).
fn fixture(case: &str, variant: &str, edits: &[(&str, &str)]) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/conformance/cases")
        .join(case)
        .join(format!("report.{variant}.json"));
    let mut text = std::fs::read_to_string(path).expect("fixture report");
    for (from, to) in edits {
        assert!(text.contains(from), "{case}: no {from}");
        text = text.replacen(from, to, 1);
    }
    text
}

fn load(text: &str) -> LoadedReport {
    match Analyser::new().with_generated_at(CLOCK).analyse_file(text.as_bytes(), "r.json", "", &|_| {}) {
        FileResult::Report(loaded) => *loaded,
        FileResult::Error { message } => panic!("not loaded: {message}"),
        _ => panic!("not loaded as a report"),
    }
}

/// ex_hr_trace as the reference reports it under
/// configs/no_block_on_critical.yaml (fail_below 60, block_on_critical
/// false): score 42, no L4 leak, blocked.
#[test]
fn an_untouched_report_of_another_gate_is_consistent_with_the_setting_named() {
    let loaded = load(&fixture("ex_hr_trace", "no_block_on_critical", &[]));
    assert!(loaded.rescore.consistent, "{:?}", loaded.rescore.mismatches);
    assert_eq!(loaded.rescore.gate_note.as_deref(), Some("gate consistent with fail_below ≥ 43"));
    assert!(loaded.report.blocked, "the stored decision is shown");
    // The page gets the note with the re-scoring (worker → page).
    let wire: serde_json::Value = serde_json::to_value(&loaded.rescore).expect("serialises");
    assert_eq!(wire["gate_note"], "gate consistent with fail_below ≥ 43");
}

#[test]
fn edited_numbers_stay_inconsistent() {
    let edits = [("\"privacy_score\": 42", "\"privacy_score\": 70"), ("\"High risk\"", "\"Conditional pass\"")];
    let loaded = load(&fixture("ex_hr_trace", "no_block_on_critical", &edits));
    assert!(!loaded.rescore.consistent);
    let fields: Vec<&str> = loaded.rescore.mismatches.iter().map(|m| m.field.as_str()).collect();
    assert_eq!(fields, ["privacy_score", "verdict"]);
}

#[test]
fn the_note_names_every_setting_the_decision_needs() {
    // ex_finance_trace (score 30, an L4 leak) left unblocked needs both
    // settings changed.
    let loaded = load(&fixture("ex_finance_trace", "default", &[("\"blocked\": true", "\"blocked\": false")]));
    assert!(loaded.rescore.consistent, "{:?}", loaded.rescore.mismatches);
    assert_eq!(
        loaded.rescore.gate_note.as_deref(),
        Some("gate consistent with block_on_critical off and fail_below ≤ 30")
    );
    // ex_hr_trace unblocked at 42 without an L4 leak is what the default
    // gate gives: nothing to note.
    let loaded = load(&fixture("ex_hr_trace", "no_block_on_critical", &[("\"blocked\": true", "\"blocked\": false")]));
    assert!(loaded.rescore.consistent && loaded.rescore.gate_note.is_none(), "{:?}", loaded.rescore);
}

/// A gate set in the what-if settings pins the check, as the CLI's flags
/// do: the untouched hr report (made with fail_below 60) is consistent with
/// the gate unknown, inconsistent under a what-if gate that does not block
/// it, and consistent again under the gate it was made with.
#[test]
fn a_what_if_gate_pins_the_check() {
    let text = fixture("ex_hr_trace", "no_block_on_critical", &[]);
    let with = |yaml: &str| {
        let analyser = analyser_from_settings(yaml).unwrap().with_generated_at(CLOCK);
        match analyser.analyse_file(text.as_bytes(), "r.json", "", &|_| {}) {
            FileResult::Report(loaded) => *loaded,
            other => panic!("not loaded: {other:?}"),
        }
    };
    assert!(load(&text).rescore.consistent);
    let weights_only = with("scoring:\n  weights: [1, 2, 3, 4]\n");
    assert!(weights_only.rescore.consistent, "a what-if with the default gate leaves the gate unknown");
    let lenient = with("scoring:\n  fail_below: 10\n");
    assert!(!lenient.rescore.consistent);
    assert!(lenient.rescore.mismatches.iter().any(|m| m.field == "blocked"), "{:?}", lenient.rescore.mismatches);
    let made_with = with("scoring:\n  fail_below: 60\n  block_on_critical: false\n");
    assert!(made_with.rescore.consistent && made_with.rescore.gate_note.is_none(), "{:?}", made_with.rescore);
}
