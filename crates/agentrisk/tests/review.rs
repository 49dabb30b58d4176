//! A review through every way in: the workspace a viewer holds (a review
//! file dropped with runs, decisions changed without analysing again,
//! unmatched decisions listed), a batch (rates as detected and as
//! reviewed), and publishing (the review file is a data file, the manifest
//! carries the reviewed numbers, a changed decision shows as modified).
//!
//! The run: the example healthcare trace (`www/samples/traces`), which
//! leaks an L4 health identifier TR********78 (shared_memory), an L4
//! health condition di****es (inter_agent_message, shared_memory), an L2
//! email and an L1 name; its vault is L1 1, L2 1, L3 2, L4 4. WSL = 1 + 2 +
//! 4 + 4 = 11, ρ_S = 1 + 2 + 6 + 16 = 25, RI 0.44, privacy score 56, High
//! risk, blocked by the L4 leaks.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{review_from_files, Analyser, BatchInput, BatchRuns, Named};
use agentrisk::batch::{detect_kind, table::rate_rows, FileKind};
use agentrisk::publish::{check_file, publish, FileCheck, Manifest, PublishOptions, Source};
use agentrisk::review::{Date, Review, SignOffStatus};
use agentrisk::stats::IntervalMethod;
use agentrisk::workspace::{FileResult, Workspace};
use agentrisk::Verdict;
use std::path::Path;

const CLOCK: &str = "2026-06-01T09:00:00+00:00";

fn sample(name: &str) -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/samples/traces").join(name)).unwrap()
}

/// The health condition a false positive (a regex matched a drug
/// leaflet, say), the health identifier an accepted risk until `expires`,
/// the run approved.
fn review_json(expires: &str) -> String {
    format!(
        r#"{{"format": "agentrisk-review", "version": 1,
  "decisions": [
    {{"run_id": "run_healthcare_001", "data_type": "health_condition", "channel": "*", "value": "di****es",
      "decision": "false_positive", "rationale": "a leaflet's text, not the patient's", "reviewer": "Dana",
      "decided_at": "2026-05-20", "expires": null}},
    {{"run_id": "run_healthcare_001", "data_type": "health_identifier", "channel": "shared_memory", "value": "TR********78",
      "decision": "accepted_risk", "rationale": "test patient", "reviewer": "Dana",
      "decided_at": "2026-05-20", "expires": "{expires}"}},
    {{"run_id": "run_other", "data_type": "email", "channel": "*", "value": "ab****cd",
      "decision": "confirmed", "reviewer": "Dana", "decided_at": "2026-05-20"}}
  ],
  "runs": [{{"run_id": "run_healthcare_001", "status": "approved", "reviewer": "Dana", "note": "", "at": "2026-05-21"}}]
}}"#
    )
}

fn trace_of(result: &FileResult) -> &agentrisk::workspace::AnalyzedTrace {
    match result {
        FileResult::Trace(trace) => trace,
        other => panic!("not a trace: {other:?}"),
    }
}

/// Reviewed: WSL 11 − 4 = 7, ρ_S 25 − 4 = 21, RI 1/3 = 0.3333, score
/// round(66.67) = 67, High risk. The gate reads RI without the accepted
/// identifier, (7 − 4)/21 = 0.1429 (score 86), and no L4 secret is left
/// that is not accepted: not blocked.
#[test]
fn a_review_file_dropped_with_a_trace_is_applied_and_follows_edits() {
    let review = review_json("2026-12-31");
    assert_eq!(detect_kind(review.as_bytes()), FileKind::Review);
    let mut ws = Workspace::new();
    let trace =
        trace_of(&ws.open(1, "healthcare_trace.json", "", sample("healthcare_trace.json"), CLOCK, &|_| {})).clone();
    assert_eq!((trace.report.risk_index, trace.report.privacy_score, trace.report.blocked), (0.44, 56, true));
    assert_eq!(trace.review, None);
    let groups: Vec<(&str, &str, u64)> =
        trace.secrets.groups.iter().map(|g| (g.data_type.as_str(), g.value.as_str(), g.secrets)).collect();
    assert_eq!(groups.len(), 4);
    assert!(groups.contains(&("health_condition", "di****es", 1)), "{groups:?}");

    let FileResult::Review(file) = ws.open(2, "review.json", "", review.clone().into_bytes(), CLOCK, &|_| {}) else {
        panic!("not read as a review")
    };
    assert_eq!((file.decisions, file.sign_offs), (3, 1));
    assert_eq!(ws.review_date(), Date::parse("2026-06-01").ok());
    // Every held run's reviewed numbers, with no analysis again.
    let reviewed = ws.reviewed_files();
    assert_eq!(reviewed.len(), 1);
    let run = &reviewed[0].runs[0];
    assert_eq!((run.risk_index, run.privacy_score, run.verdict, run.blocked), (0.3333, 67, Verdict::HighRisk, false));
    assert_eq!((run.false_positives.len(), run.accepted.len(), run.decided, run.secret_groups), (1, 1, 2, 4));
    assert_eq!(run.sign_off.as_ref().map(|s| s.status), Some(SignOffStatus::Approved));
    // A file opened later carries them, its facts too; the detected numbers stay.
    let again = ws.reanalyze(1, CLOCK, &|_| {}).unwrap();
    let again = trace_of(&again);
    assert_eq!(again.review.as_ref(), Some(run));
    assert_eq!(again.facts.reviewed.as_ref().map(|r| (r.privacy_score, r.blocked)), Some((67, false)));
    assert_eq!((again.report.privacy_score, again.report.blocked, again.facts.blocked), (56, true, true));
    // The decision for a run not loaded is listed, not dropped.
    let unmatched = ws.unmatched_decisions();
    assert_eq!(unmatched.len(), 1);
    assert_eq!(unmatched[0].reason, "no run run_other among the runs given");

    // A viewer's edit: the acceptance ends today. The identifier counts as
    // confirmed again: RI 0.3333, score 67, blocked by the L4 leak.
    let mut edited = ws.review().unwrap().clone();
    let accepted = edited.decisions.iter_mut().find(|d| d.data_type == "health_identifier").unwrap();
    accepted.expires = Date::parse("2026-06-01").ok();
    let reviewed = ws.set_review(Some(edited.clone()), Date::parse("2026-06-01").unwrap());
    let run = &reviewed[0].runs[0];
    assert_eq!((run.privacy_score, run.blocked, run.expired.len(), run.accepted.len()), (67, true, 1, 0));
    // Saving: the review comes first among the files held, as a review file.
    let held: Vec<(&str, &[u8])> = ws.held().map(|(name, _, bytes)| (name, bytes)).collect();
    assert_eq!(held[0].0, "review.json");
    assert_eq!(Review::from_json(held[0].1).unwrap(), Review::from_json(edited.to_json().as_bytes()).unwrap());
    assert_eq!(held[1].0, "healthcare_trace.json");
    // No review: no reviewed numbers.
    assert!(ws.set_review(None, Date::parse("2026-06-01").unwrap())[0].runs.is_empty());
    assert_eq!(ws.held().count(), 1);
}

#[test]
fn a_second_review_file_that_decides_differently_is_refused() {
    let mut ws = Workspace::new();
    ws.open(1, "a.json", "", review_json("2026-12-31").into_bytes(), CLOCK, &|_| {});
    let other = review_json("2027-01-31");
    let FileResult::Error { message } = ws.open(2, "b.json", "", other.into_bytes(), CLOCK, &|_| {}) else {
        panic!("accepted")
    };
    assert!(message.starts_with("decisions[1]: decides health_identifier TR********78 on shared_memory"), "{message}");
    assert!(message.contains("differently from a.json's decisions[1]"), "{message}");
    assert_eq!(ws.review().unwrap().decisions[1].expires, Date::parse("2026-12-31").ok(), "left as it was");
}

/// Two runs: the healthcare trace reviewed as above (not blocked), and the
/// finance trace (blocked, no decision). As detected both leak and both are
/// blocked; as reviewed both leak and one is blocked.
#[test]
fn a_batch_reports_its_rates_as_detected_and_as_reviewed() {
    let review =
        review_from_files(&[Named { name: "review.json", bytes: review_json("2026-12-31").as_bytes() }]).unwrap();
    let analyser = Analyser::new().with_review(Some(review.clone()), Date::parse("2026-06-01").unwrap());
    let mut batch = BatchRuns::default();
    for name in ["healthcare_trace.json", "finance_trace.json"] {
        let bytes = sample(name);
        batch.read(&analyser, BatchInput { name, folder: "", bytes: &bytes });
    }
    let review_bytes = review_json("2026-12-31");
    batch.read(&analyser, BatchInput { name: "review.json", folder: "", bytes: review_bytes.as_bytes() });
    assert!(batch.errors.is_empty(), "{:?}", batch.errors);
    assert_eq!((batch.runs.len(), batch.secrets.len(), batch.files_read), (2, 2, 3));
    let summary = batch.summary(IntervalMethod::default(), None);
    assert_eq!((summary.leak_rate.k, summary.block_rate.k), (2, 2));
    let reviewed = summary.reviewed.unwrap();
    assert_eq!(
        (reviewed.runs_reviewed, reviewed.leak_rate.k, reviewed.block_rate.k, reviewed.block_rate.n),
        (2, 2, 1, 2)
    );
    assert_eq!((reviewed.approved, reviewed.not_signed_off), (1, 1));
    assert_eq!((reviewed.decided, reviewed.secret_groups), (2, 10));
    let metrics: Vec<String> =
        rate_rows(&summary).into_iter().take(4).map(|r| format!("{} {}", r.metric, r.rate.k)).collect();
    assert_eq!(
        metrics,
        [
            "Leak rate (as detected) 2",
            "Leak rate (as reviewed) 2",
            "Block rate (as detected) 2",
            "Block rate (as reviewed) 1"
        ]
    );
    let unmatched = review.unmatched(&batch.secrets.iter().collect::<Vec<_>>());
    assert_eq!(unmatched.iter().map(|u| u.index).collect::<Vec<_>>(), [2]);
    // The scorecard keeps each run's reviewed numbers, and reads them back.
    let json = batch.into_scorecard(IntervalMethod::default(), None).to_json();
    let rows = agentrisk::batch::read_scorecard(json.as_bytes()).unwrap();
    assert_eq!(rows.runs[0].reviewed.as_ref().map(|r| (r.privacy_score, r.blocked)), Some((67, false)));
    assert_eq!(rows.runs[1].reviewed.as_ref().map(|r| r.blocked), Some(true));
}

fn options() -> PublishOptions {
    PublishOptions {
        title: "Reviewed runs".to_owned(),
        generated_at: CLOCK.to_owned(),
        tool_version: "0.1.0".to_owned(),
        config: None,
        include_traces: false,
        span_mapping: Default::default(),
    }
}

/// What a viewer does on opening a publication: the review files first,
/// judged at the manifest's date, then every data file, each checked.
fn open_publication(manifest: &Manifest, data: &[Option<Vec<u8>>]) -> Vec<(String, FileCheck)> {
    let mut ws = Workspace::new();
    ws.set_review_date(manifest.review.as_ref().map(|r| r.date));
    let mut order: Vec<usize> = (0..manifest.files.len()).collect();
    order.sort_by_key(|&i| manifest.files[i].kind != "review");
    order
        .into_iter()
        .map(|i| {
            let (entry, bytes) = (&manifest.files[i], data[i].as_ref().unwrap());
            let result =
                ws.open(i as u32, &entry.name, &entry.folder, bytes.clone(), "2027-03-01T00:00:00+00:00", &|_| {});
            (entry.name.clone(), check_file(entry, bytes, &result))
        })
        .collect()
}

#[test]
fn a_publication_carries_the_review_and_a_changed_decision_shows_as_modified() {
    let review = review_json("2026-12-31");
    let trace = sample("healthcare_trace.json");
    let sources = [
        Source { name: "review.json", folder: "", bytes: review.as_bytes() },
        Source { name: "healthcare_trace.json", folder: "", bytes: &trace },
    ];
    let publication = publish(&sources, &options()).unwrap();
    let manifest = Manifest::from_json(publication.manifest_json().as_bytes()).unwrap();
    let used = manifest.review.as_ref().unwrap();
    assert_eq!(
        (used.date, used.files.clone(), used.decisions, used.sign_offs),
        (Date::parse("2026-06-01").unwrap(), vec!["review.json".to_owned()], 3, 1)
    );
    let entry = &manifest.files[0];
    assert_eq!((entry.kind.as_str(), entry.data.as_ref().unwrap().kind.as_str()), ("review", "review"));
    assert_eq!(entry.sha256, agentrisk::publish::sha256_hex(review.as_bytes()));
    let run = &manifest.files[1].numbers.runs[0];
    assert_eq!((run.privacy_score, run.blocked), (56, true), "the detected numbers stay");
    let reviewed = run.reviewed.as_ref().unwrap();
    assert_eq!((reviewed.privacy_score, reviewed.blocked, reviewed.status), (67, false, Some(SignOffStatus::Approved)));

    // Opened months later: the acceptance has expired by the viewer's clock,
    // but the check judges it at the manifest's date.
    let checks = open_publication(&manifest, &publication.data);
    assert!(checks.iter().all(|(_, c)| *c == FileCheck::Verified), "{checks:?}");

    // A decision changed in the published review file: modified.
    let mut data = publication.data.clone();
    let changed = String::from_utf8(data[0].clone().unwrap()).unwrap().replace("\"false_positive\"", "\"confirmed\"");
    data[0] = Some(changed.into_bytes());
    let checks = open_publication(&manifest, &data);
    assert_eq!(checks[0].0, "review.json");
    let FileCheck::Modified { problem } = &checks[0].1 else { panic!("{checks:?}") };
    assert_eq!(problem, "data/review.json does not match its SHA-256 in the manifest");
    // … and the run's reviewed numbers no longer match either.
    let FileCheck::Modified { problem } = &checks[1].1 else { panic!("{checks:?}") };
    assert!(
        problem
            .starts_with("run run_healthcare_001: reviewed numbers RI 0.44 · privacy score 56 · High risk · blocked"),
        "{problem}"
    );
}

#[test]
fn a_review_file_that_cannot_be_read_is_not_published() {
    let trace = sample("healthcare_trace.json");
    let bad = review_json("2026-13-01");
    let sources = [
        Source { name: "review.json", folder: "", bytes: bad.as_bytes() },
        Source { name: "healthcare_trace.json", folder: "", bytes: &trace },
    ];
    let publication = publish(&sources, &options()).unwrap();
    let errors: Vec<(&str, &str)> = publication.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, "review.json");
    assert!(errors[0].1.starts_with("decisions[1].expires: expected a date as YYYY-MM-DD"), "{}", errors[0].1);
    assert!(publication.manifest.review.is_none());
    assert!(publication.manifest.files[1].numbers.runs[0].reviewed.is_none());
}
