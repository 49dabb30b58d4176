//! Every `report.*.json` of the conformance corpus, re-scored from its own
//! contents, must reproduce its stored numbers exactly: `risk_index`,
//! `privacy_score`, `verdict`, `blocked`, `channel_risks` — and every other
//! cross-check `rescore_report` makes. Zero mismatches, no skipped file.
//!
//! Each report's typed `compliance`, `flow` and `leak_paths` must load and
//! write back the stored JSON unchanged, and the compliance section
//! recomputed from the report alone must equal the stored one (integrity
//! digest included; our own prose — rationales, note, disclaimer — aside).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::model::Compliance;
use agentrisk::report::assess_compliance;
use agentrisk::{load_report, rescore_report, rescore_report_with_gate, GateSettings, ScoringConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases")
}

/// The gate settings each report variant was produced with (reports do not
/// record them): `--fail-under 95`, and configs/no_block_on_critical.yaml
/// (`block_on_critical: false`, `fail_below: 60`).
fn config_for(variant: &str) -> ScoringConfig {
    match variant {
        "cli_fail_under_95" => ScoringConfig { fail_below: 95, ..ScoringConfig::default() },
        "no_block_on_critical" => {
            ScoringConfig { block_on_critical: false, fail_below: 60, ..ScoringConfig::default() }
        }
        _ => ScoringConfig::default(),
    }
}

/// Every stored report of the corpus, sorted.
fn report_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("fixture cases folder")
        .flat_map(|case| std::fs::read_dir(case.expect("case entry").path()).expect("case folder"))
        .map(|entry| entry.expect("file entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with("report.") && name.ends_with(".json")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 654, "the corpus has 654 stored reports");
    files
}

#[test]
fn every_conformance_report_rescores_to_its_own_numbers() {
    let files = report_files();

    let mut failures = Vec::new();
    let mut blocked = 0;
    for path in &files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let variant = name.trim_start_matches("report.").trim_end_matches(".json");
        let bytes = std::fs::read(path).expect("read report");
        let report = match load_report(&bytes) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let rescore = rescore_report(&report, &config_for(variant));
        let r = &rescore.recomputed;
        // The five headline fields, compared explicitly…
        let headline = (r.risk_index, i64::from(r.privacy_score), r.verdict.as_str(), r.blocked);
        let stored = (report.risk_index, report.privacy_score, report.verdict.as_str(), report.blocked);
        if headline != stored || r.channel_risks != report.channel_risks {
            failures.push(format!("{}: recomputed {headline:?}, stored {stored:?}", path.display()));
        }
        // …and every cross-check must agree too.
        for m in &rescore.mismatches {
            failures.push(format!("{}: {} stored {} recomputed {}", path.display(), m.field, m.stored, m.recomputed));
        }
        blocked += usize::from(report.blocked);
        let stored: Value = serde_json::from_slice(&bytes).expect("JSON");
        for (key, typed) in [
            ("compliance", report.compliance.as_ref().map(|c| serde_json::to_value(c).unwrap())),
            ("flow", report.flow.as_ref().map(|f| serde_json::to_value(f).unwrap())),
            ("leak_paths", report.leak_paths.as_ref().map(|p| serde_json::to_value(p).unwrap())),
        ] {
            match typed {
                None => failures.push(format!("{}: {key} did not load as a typed section", path.display())),
                Some(v) if v != stored[key] => {
                    failures.push(format!("{}: {key} does not write back as stored", path.display()))
                }
                Some(_) => {}
            }
        }
        if let Some(stored) = &report.compliance {
            let ours = assess_compliance(&report);
            if without_prose(&ours) != without_prose(stored) {
                let (a, b) = (
                    serde_json::to_string(&without_prose(&ours)).unwrap(),
                    serde_json::to_string(&without_prose(stored)).unwrap(),
                );
                let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                let around = |s: &str| s.get(at.saturating_sub(80)..(at + 80).min(s.len())).unwrap_or("").to_owned();
                failures.push(format!(
                    "{}: recomputed compliance differs near\n      ours   …{}…\n      stored …{}…",
                    path.display(),
                    around(&a),
                    around(&b)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    // The corpus mixes outcomes; make sure the walk saw both kinds.
    assert!(blocked > 100 && blocked < files.len(), "blocked {blocked} of {}", files.len());
}

/// Reports do not store their gate settings. Re-scored with the defaults
/// as a first guess but the settings unknown (what the viewer and a bare
/// `agentrisk score` do), no report of any config is inconsistent; the
/// ones made with another gate say which setting explains their decision.
#[test]
fn no_conformance_report_is_inconsistent_when_its_gate_settings_are_unknown() {
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    for path in report_files() {
        let report = load_report(&std::fs::read(&path).expect("read report")).expect("load report");
        let rescore = rescore_report_with_gate(&report, &ScoringConfig::default(), GateSettings::Unknown);
        let name = path.strip_prefix(cases_dir()).expect("under cases").to_string_lossy().into_owned();
        if !rescore.consistent {
            failures.push(format!("{name}: {:?}", rescore.mismatches));
        }
        if let Some(note) = rescore.gate_note {
            notes.push(format!("{name}: {note}"));
        }
    }
    assert!(failures.is_empty(), "{} inconsistent:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(notes, NOTES_WITH_UNKNOWN_GATE);
}

/// The reports whose stored `blocked` the default gate does not give: the
/// `--fail-under 95` runs' blocks at scores 60 and 42, and
/// no_block_on_critical.yaml's block of ex_hr_trace at 42 (its fail_below
/// is 60). Every other report of that config — none leaves an L4 leak
/// unblocked at a score of 60 or more — is decided the same by both gates.
const NOTES_WITH_UNKNOWN_GATE: &[&str] = &[
    "ex_customer_support_trace/report.cli_fail_under_95.json: gate consistent with fail_below ≥ 61",
    "ex_hr_trace/report.cli_fail_under_95.json: gate consistent with fail_below ≥ 43",
    "ex_hr_trace/report.no_block_on_critical.json: gate consistent with fail_below ≥ 43",
];

/// The compliance section with the free-text fields (ours, not the
/// reference's) blanked.
fn without_prose(c: &Compliance) -> Compliance {
    let mut c = c.clone();
    for fw in &mut c.frameworks {
        for control in &mut fw.controls {
            control.rationale.clear();
        }
    }
    c.integrity.note.clear();
    c.disclaimer.text.clear();
    c.disclaimer.scope.clear();
    c
}

#[test]
fn a_tampered_report_is_flagged_inconsistent() {
    let path = cases_dir().join("ex_healthcare_trace/report.default.json");
    let mut report = load_report(&std::fs::read(path).expect("read")).expect("load");
    assert!(rescore_report(&report, &ScoringConfig::default()).consistent);
    assert_eq!((report.wsl, report.rho_s, report.privacy_score), (11, 25, 56));

    report.privacy_score = 90;
    report.verdict = "Pass".into();
    let rescore = rescore_report(&report, &ScoringConfig::default());
    assert!(!rescore.consistent);
    let fields: Vec<&str> = rescore.mismatches.iter().map(|m| m.field.as_str()).collect();
    assert_eq!(fields, vec!["privacy_score", "verdict"]);
    assert_eq!(rescore.recomputed.privacy_score, 56);

    // A level profile that no longer matches WSL.
    let mut report2 =
        load_report(&std::fs::read(cases_dir().join("ex_healthcare_trace/report.default.json")).unwrap()).unwrap();
    report2.summary.level_profile.l4 = 1;
    let rescore = rescore_report(&report2, &ScoringConfig::default());
    assert!(rescore.mismatches.iter().any(|m| m.field == "wsl" && m.stored == "11" && m.recomputed == "7"));
}

#[test]
fn the_integrity_digest_is_reproduced_and_follows_generated_at() {
    let path = cases_dir().join("ex_healthcare_trace/report.privacy_policy.json");
    let mut report = load_report(&std::fs::read(path).expect("read")).expect("load");
    let stored = report.compliance.as_ref().expect("compliance").integrity.digest.clone();
    assert_eq!(stored, "b77ef5b345e04467c656bc40e6cf36b418f510ae1ee8b49bd0552b623eb01487");
    assert_eq!(assess_compliance(&report).integrity.digest, stored);
    report.generated_at = "2026-12-02T15:11:15+00:00".into();
    assert_ne!(assess_compliance(&report).integrity.digest, stored);
}

/// A report file can hold any count: re-scoring one with counts near 2^64
/// (every sum would overflow) must flag it, not panic or wrap into a
/// plausible number (tests/malformed: report-huge-counts.json).
#[test]
fn absurd_stored_counts_are_inconsistent_not_a_crash() {
    let path = cases_dir().join("ex_healthcare_trace/report.default.json");
    let text = std::fs::read_to_string(path).expect("fixture report");
    let mut value: Value = serde_json::from_str(&text).expect("fixture JSON");
    for profile in ["level_profile", "vault_level_profile"] {
        for level in ["L1", "L2", "L3", "L4"] {
            value["summary"][profile][level] = Value::from(u64::MAX);
        }
    }
    value["summary"]["leaked_secrets"] = Value::from(u64::MAX);
    let report = load_report(value.to_string().as_bytes()).expect("still a report");
    let rescore = rescore_report(&report, &ScoringConfig::default());
    assert!(!rescore.mismatches.is_empty(), "the stored numbers cannot match");
    assert!(rescore.mismatches.iter().any(|m| m.field == "wsl"), "{:?}", rescore.mismatches);
}

/// A stored number with more digits than an f64 holds is read correctly
/// rounded (as Python reads it), so a report written back and read again
/// is the same report (fuzz target `report_rescore`: a 24-digit per-channel RI).
#[test]
fn long_decimals_are_read_correctly_rounded_and_round_trip() {
    let path = cases_dir().join("ex_healthcare_trace/report.default.json");
    let mut value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let text = value.to_string().replacen(
        &format!("\"risk_index\":{}", value["risk_index"]),
        "\"risk_index\":0.218446744073709551616553",
        1,
    );
    // Rust's `str::parse` rounds correctly.
    let exact: f64 = "0.218446744073709551616553".parse().unwrap();
    value = serde_json::from_str(&text).unwrap();
    assert_eq!(value["risk_index"].as_f64(), Some(exact));
    let report = load_report(text.as_bytes()).expect("loads");
    assert_eq!(report.risk_index, exact);
    let again = load_report(&serde_json::to_vec(&report).unwrap()).expect("loads back");
    assert_eq!(again, report);
}
