//! The page ↔ worker messages, natively: every message to the worker keeps
//! its shape through serde (a blob crosses only in a browser: tests/browser.rs),
//! and a result's long lists cross in parts of about `PART_BYTES` and are
//! put back whole.

use agentrisk::analyser::Analyser;
use agentrisk::model::SpanMapping;
use agentrisk::workspace::{listed_compliance, FileResult, FINDING_LIMIT};
use agentrisk_viewer::protocol::{
    join_result, split_result, FromWorker, PackRequest, ResultPart, ReviewEdit, Source, ToWorker, PART_BYTES,
};
use serde_json::{json, Value};
use std::path::Path;

const CLOCK: &str = "2026-12-02T12:00:00.000Z";

fn analyze(bytes: &[u8], name: &str, folder: &str, generated_at: String) -> FileResult {
    Analyser::new().with_generated_at(&generated_at).analyse_file(bytes, name, folder, &|_| {})
}

/// `result` as the page shows it: each part and then the rest posted as
/// JSON text, read back, put together as the bridge does, and each run's
/// compliance section left out computed again as the run view does.
/// Returns it with the length of each part's message and of the `Done`
/// message, and how many sections were computed again.
fn through_the_bridge(result: &FileResult) -> (FileResult, Vec<(&'static str, usize)>, usize, usize) {
    let mut rest = result.clone();
    let mut parts = Vec::new();
    let mut sizes = Vec::new();
    for (run, part) in split_result(&mut rest) {
        let kind = match &part {
            ResultPart::Findings(_) => "findings",
            ResultPart::LeakPaths(_) => "leak_paths",
            ResultPart::Events(_) => "events",
            ResultPart::Values(_) => "values",
            ResultPart::SecretGroups(_) => "secret_groups",
        };
        let text = serde_json::to_string(&FromWorker::Part { id: 7, run, part }).unwrap();
        sizes.push((kind, text.len()));
        let Ok(FromWorker::Part { id: 7, run, part }) = serde_json::from_slice(text.as_bytes()) else {
            panic!("not a part: {text}")
        };
        parts.push((run, part));
    }
    let text = serde_json::to_string(&FromWorker::Done { id: 7, result: rest }).unwrap();
    let Ok(FromWorker::Done { id: 7, result: mut joined }) = serde_json::from_slice(text.as_bytes()) else {
        panic!("not done")
    };
    join_result(&mut joined, parts);
    let traces = match &mut joined {
        FileResult::Trace(trace) => vec![&mut **trace],
        FileResult::Spans(spans) => spans.runs.iter_mut().collect(),
        _ => Vec::new(),
    };
    let mut computed = 0;
    for trace in traces.into_iter().filter(|trace| trace.report.compliance.is_none()) {
        trace.report.compliance = listed_compliance(trace);
        computed += 1;
    }
    (joined, sizes, text.len(), computed)
}

#[test]
fn a_large_result_reaches_the_page_in_short_parts_and_whole() {
    // A few hundred findings more than are listed, an event per finding,
    // leak paths for each: some 4 MB of result.
    let n = FINDING_LIMIT + 300;
    let events: Vec<Value> = (0..n)
        .map(|i| serde_json::json!({"channel": "tool_call", "content": format!("mail user{}@example.com", i % 2_000)}))
        .collect();
    let bytes = serde_json::to_vec(&serde_json::json!({"run_id": "many", "events": events})).unwrap();
    let result = analyze(&bytes, "many.json", "", CLOCK.to_owned());
    let (joined, sizes, done, computed) = through_the_bridge(&result);
    assert_eq!(joined, result);
    // Its compliance section counts findings the report does not list: sent.
    assert_eq!(computed, 0);
    let count = |kind| sizes.iter().filter(|(k, _)| *k == kind).count();
    let total: usize = sizes.iter().map(|(_, len)| len).sum();
    assert!(total > 8 * PART_BYTES, "{total} bytes in parts");
    assert!(
        count("findings") >= 4 && count("events") >= 2 && count("leak_paths") >= 1 && count("values") >= 1,
        "{sizes:?}"
    );
    // Every message is about a part long at most, the rest much shorter.
    let longest = sizes.iter().map(|(_, len)| *len).max().unwrap();
    assert!(longest <= PART_BYTES + 2_048 && longest > PART_BYTES / 2, "{sizes:?}");
    assert!(done < PART_BYTES / 4, "the rest is {done} bytes");

    // A loaded report goes the same way; a failed file has no parts.
    let report = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples/hr_trace.report.json")).unwrap();
    let result = analyze(&report, "file.json", "", CLOCK.to_owned());
    let FileResult::Report(loaded) = &result else { panic!("not a report") };
    assert!(!loaded.report.findings.is_empty());
    let (joined, sizes, _, computed) = through_the_bridge(&result);
    assert_eq!(
        (joined, sizes.iter().map(|(kind, _)| *kind).collect::<Vec<_>>(), computed),
        (result, vec!["secret_groups", "findings", "leak_paths"], 0)
    );
    let mut failed = analyze(b"[]", "file.json", "", CLOCK.to_owned());
    assert!(matches!(failed, FileResult::Error { .. }) && split_result(&mut failed).is_empty());
}

/// A span export's runs each cross in parts, each part naming its run (run
/// 0 leaves its number out, so a trace's messages are as they were), and
/// come back whole, in order.
#[test]
fn a_span_exports_runs_cross_in_parts_named_by_run() {
    let spans =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spans/lc_two_sessions.otlp.json"))
            .unwrap();
    let result = analyze(&spans, "lc_two_sessions.otlp.json", "", CLOCK.to_owned());
    let FileResult::Spans(runs) = &result else { panic!("not spans: {result:?}") };
    assert_eq!(runs.runs.len(), 2);
    assert!(runs.runs.iter().all(|run| !run.events.is_empty() && run.events.iter().all(|e| e.span.is_some())));
    let (joined, _, _, computed) = through_the_bridge(&result);
    assert_eq!((joined, computed), (result.clone(), 2));

    let mut rest = result.clone();
    let parts = split_result(&mut rest);
    let FileResult::Spans(emptied) = &rest else { panic!("not spans") };
    assert!(emptied.runs.iter().all(|run| run.events.is_empty() && run.report.findings.is_empty()));
    let runs_named: Vec<u32> = parts.iter().map(|(run, _)| *run).collect();
    assert!(runs_named.contains(&0) && runs_named.contains(&1), "{runs_named:?}");
    assert!(runs_named.windows(2).all(|w| w[0] <= w[1]), "run by run: {runs_named:?}");
    for (run, part) in parts {
        let text = serde_json::to_value(FromWorker::Part { id: 2, run, part }).unwrap();
        assert_eq!(text["part"].get("run").is_some(), run > 0, "{text}");
    }
    // A part for a run the result does not have is dropped, not misplaced.
    let mut one = result.clone();
    let FileResult::Spans(runs) = &mut one else { panic!("not spans") };
    runs.runs.truncate(1);
    let before = one.clone();
    join_result(&mut one, vec![(1, ResultPart::Events(joined_events(&result, 1)))]);
    assert_eq!(one, before);
}

/// A small trace's compliance section, most of its result, is not sent: the
/// page computes the same section again when the run is opened.
#[test]
fn a_small_traces_compliance_section_is_computed_by_the_page() {
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples/traces/healthcare_trace.json")).unwrap();
    let result = analyze(&bytes, "healthcare_trace.json", "", CLOCK.to_owned());
    let FileResult::Trace(trace) = &result else { panic!("not a trace") };
    let whole = serde_json::to_string(&trace.report.compliance).unwrap().len();
    assert!(whole > 15_000, "the section is {whole} bytes");
    let (joined, sizes, done, computed) = through_the_bridge(&result);
    assert_eq!((joined, computed), (result, 1));
    let sent = done + sizes.iter().map(|(_, len)| len).sum::<usize>();
    assert!(sent < 20_000 && sent < whole, "{sent} bytes sent, the section alone {whole}");
}

fn joined_events(result: &FileResult, run: usize) -> Vec<agentrisk::workspace::EventRow> {
    let FileResult::Spans(runs) = result else { panic!("not spans") };
    runs.runs[run].events.clone()
}

/// The tag of each message, so that a new variant fails to compile here
/// until it has a case below.
fn tag(message: &ToWorker) -> &'static str {
    match message {
        ToWorker::Open { .. } => "open",
        ToWorker::Settings { .. } => "settings",
        ToWorker::ReadSettings { .. } => "read_settings",
        ToWorker::Forget { .. } => "forget",
        ToWorker::ReadCanaries { .. } => "read_canaries",
        ToWorker::ClearCanaries => "clear_canaries",
        ToWorker::Publication { .. } => "publication",
        ToWorker::SavePack { .. } => "save_pack",
        ToWorker::Review { .. } => "review",
        ToWorker::SpanMapping { .. } => "span_mapping",
        ToWorker::ExportTrace { .. } => "export_trace",
    }
}

#[test]
fn every_message_to_the_worker_keeps_its_shape_and_comes_back_whole() {
    let request = PackRequest {
        title: "Nightly".into(),
        include_traces: true,
        settings: Some(("strict.yaml".into(), "scoring: {fail_below: 60}".into())),
        css: "body{}".into(),
        glue: "export default 1".into(),
        favicon: "<svg/>".into(),
        wasm_deflated: Some((4, "!!!!#".into())),
    };
    // JSON writes bytes as numbers; serde-wasm-bindgen makes them one
    // Uint8Array (checked in tests/browser.rs).
    let cases = [
        (
            ToWorker::Open {
                id: 3,
                name: "hr.json".into(),
                folder: "runs".into(),
                source: Source::Url("/s/hr.json".into()),
            },
            json!({"open": {"id": 3, "name": "hr.json", "folder": "runs", "source": {"url": "/s/hr.json"}}}),
        ),
        (ToWorker::Settings { yaml: "scoring: {}".into() }, json!({"settings": {"yaml": "scoring: {}"}})),
        (
            ToWorker::ReadSettings { name: "agentleak.yaml".into(), bytes: b"a: 1".to_vec() },
            json!({"read_settings": {"name": "agentleak.yaml", "bytes": [97, 58, 32, 49]}}),
        ),
        (ToWorker::Forget { id: 4_000_000_000 }, json!({"forget": {"id": 4_000_000_000u32}})),
        (
            ToWorker::ReadCanaries { name: "c.json".into(), bytes: vec![0, 255] },
            json!({"read_canaries": {"name": "c.json", "bytes": [0, 255]}}),
        ),
        (ToWorker::ClearCanaries, json!("clear_canaries")),
        (ToWorker::Publication { manifest: "{}".into() }, json!({"publication": {"manifest": "{}"}})),
        (ToWorker::Review { edit: "{}".into() }, json!({"review": {"edit": "{}"}})),
        (ToWorker::SpanMapping { mapping: SpanMapping::Reference }, json!({"span_mapping": {"mapping": "reference"}})),
        (
            ToWorker::ExportTrace { id: 5, run_id: "spans#3f2a".into() },
            json!({"export_trace": {"id": 5, "run_id": "spans#3f2a"}}),
        ),
        (
            ToWorker::SavePack { request: request.clone(), wasm: vec![0, 97, 115, 109] },
            json!({"save_pack": {"request": {
                "title": "Nightly", "include_traces": true, "settings": ["strict.yaml", "scoring: {fail_below: 60}"],
                "css": "body{}", "glue": "export default 1", "favicon": "<svg/>", "wasm_deflated": [4, "!!!!#"],
            }, "wasm": [0, 97, 115, 109]}}),
        ),
    ];
    let tags: std::collections::BTreeSet<&str> = cases.iter().map(|(message, _)| tag(message)).collect();
    assert_eq!(tags.len(), 11, "one case per variant: {tags:?}");
    for (message, shape) in cases {
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value, shape);
        assert_eq!(serde_json::from_value::<ToWorker>(value).unwrap(), message);
    }
    let wrong = serde_json::from_value::<ToWorker>(json!({"forget": {"id": -1}})).unwrap_err().to_string();
    assert!(wrong.contains("invalid value: integer `-1`"), "{wrong}");
}

/// A review edit crosses as JSON text inside its message, and every kind
/// comes back whole; the worker's answer carries the review, its date and
/// the reviewed numbers as the page reads them.
#[test]
fn review_edits_and_answers_keep_their_shape() {
    use agentrisk::review::{ChannelScope, Date, Decision, DecisionKind, Review, SignOff, SignOffStatus};
    use agentrisk::workspace::{ReviewedFile, Workspace};
    let date = |text: &str| Date::parse(text).unwrap();
    let decision = Decision {
        run_id: "run_healthcare_001".into(),
        data_type: "health_condition".into(),
        channel: ChannelScope::All,
        value: "di****es".into(),
        decision: Some(DecisionKind::FalsePositive),
        rationale: "a drug leaflet".into(),
        reviewer: "Dana".into(),
        decided_at: Some(date("2026-06-01")),
        expires: None,
    };
    let sign_off = SignOff {
        run_id: "run_healthcare_001".into(),
        status: SignOffStatus::Approved,
        reviewer: "Dana".into(),
        note: "ok".into(),
        at: "2026-06-01".into(),
    };
    let mut review = Review::default();
    review.set_decision(decision.clone()).unwrap();
    let edits = [
        ReviewEdit::Decide(decision.clone()),
        ReviewEdit::Clear {
            run_id: "r".into(),
            data_type: "email".into(),
            value: "an**rg".into(),
            channel: ChannelScope::All,
        },
        ReviewEdit::SignOff(sign_off),
        ReviewEdit::Today(date("2030-01-01")),
        ReviewEdit::Restore { review: review.clone(), today: date("2026-06-01") },
    ];
    for edit in edits {
        let ToWorker::Review { edit: text } = edit.to_message() else { panic!("not a review message") };
        assert_eq!(serde_json::from_slice::<ReviewEdit>(text.as_bytes()).unwrap(), edit, "{text}");
    }
    let text = ReviewEdit::Today(date("2030-01-01")).to_message();
    assert_eq!(serde_json::to_value(text).unwrap(), json!({"review": {"edit": "{\"today\":\"2030-01-01\"}"}}));

    // The answer for a held trace under that review, as the page reads it.
    let trace =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples/traces/healthcare_trace.json")).unwrap();
    let mut ws = Workspace::new();
    let _ = ws.open(1, "healthcare_trace.json", "", trace, CLOCK, &|_| {});
    let files: Vec<ReviewedFile> = ws.set_review(Some(review.clone()), date("2026-06-01"));
    assert_eq!(files.len(), 1);
    let answer = FromWorker::Reviewed {
        review: Some(review),
        today: Some(date("2026-06-01")),
        files,
        unmatched: ws.unmatched_decisions().iter().map(|u| u.describe()).collect(),
    };
    let text = serde_json::to_string(&answer).unwrap();
    let back: FromWorker = serde_json::from_slice(text.as_bytes()).unwrap();
    assert_eq!(back, answer);
    let FromWorker::Reviewed { files, unmatched, .. } = back else { panic!("not reviewed") };
    // Worked in docs/review.md: WSL 11 − 4 over ρ_S 25 − 4 = 0.3333.
    assert_eq!((files[0].runs[0].risk_index, files[0].runs[0].privacy_score), (0.3333, 67));
    assert!(unmatched.is_empty());
}
