//! Files through the workspace, the one core API every shell uses: the
//! report a viewer gets for a trace is the reference's own
//! `report.default.json` (bar the clock), the event list is bounded, no
//! leaked value reaches a viewer in clear, and what-if settings re-analyse
//! what the workspace holds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{Analyser, Keep, Named, NamedConfig};
use agentrisk::config::AnalysisConfig;
use agentrisk::workspace::{
    analyser_from_settings, listed_compliance, what_if_analyser, AnalyzedTrace, CanarySetting, CanarySource,
    FileResult, TextPart, Workspace, EVENT_LIMIT, FINDING_LIMIT, TEXT_LIMIT,
};
use serde_json::Value;
use std::path::{Path, PathBuf};

const CLOCK: &str = "2026-12-02T12:00:00.000Z";

fn example_cases() -> Vec<PathBuf> {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("ex_"))
        .collect();
    dirs.sort();
    dirs
}

/// One file through [`Analyser::analyse_file`] with the reference's defaults.
fn analyze(bytes: &[u8], name: &str, folder: &str, generated_at: String) -> FileResult {
    Analyser::new().with_generated_at(generated_at).analyse_file(bytes, name, folder, &|_| {})
}

/// A what-if config as the viewer applies it.
fn with_settings(config: AnalysisConfig) -> Analyser {
    what_if_analyser(Some(NamedConfig { name: "agentleak.yaml".to_owned(), config })).with_generated_at(CLOCK)
}

fn analyzed(bytes: &[u8]) -> AnalyzedTrace {
    match analyze(bytes, "file.json", "", CLOCK.to_owned()) {
        FileResult::Trace(trace) => *trace,
        FileResult::Report(_)
        | FileResult::Spans(_)
        | FileResult::Batch(_)
        | FileResult::CanarySet(_)
        | FileResult::Review(_) => {
            panic!("not read as a trace")
        }
        FileResult::Error { message } => panic!("{message}"),
    }
}

fn default_report(bytes: &[u8]) -> agentrisk::model::Report {
    Analyser::new().with_generated_at(CLOCK).trace_report(Named { name: "trace.json", bytes }).unwrap()
}

/// `report` as the page gets it: the compliance evidence lists go, a count
/// per control comes instead (`AnalyzedTrace::control_findings`).
fn as_listed(mut report: agentrisk::model::Report) -> agentrisk::model::Report {
    if let Some(compliance) = report.compliance.as_mut() {
        compliance.evidence_matrix.clear();
        for control in compliance.frameworks.iter_mut().flat_map(|f| f.controls.iter_mut()) {
            control.evidence_details.finding_ids = Default::default();
        }
    }
    report
}

/// The raw values the default run redacts: the test may know them, the page may not.
fn matched_values(bytes: &[u8]) -> Vec<String> {
    let config = AnalysisConfig { redact_values: false, ..AnalysisConfig::default() };
    let analyser = Analyser::new().with_config(Some(NamedConfig { name: "raw.yaml".to_owned(), config }));
    let analysis = analyser.analyse_trace("trace.json", bytes.into(), None, Keep::ReportOnly).unwrap();
    analysis.report.findings.iter().filter_map(|f| f.matched_value.clone()).collect()
}

/// What any built-in detector finds in any event, straight from the detectors.
fn detected_values(bytes: &[u8]) -> Vec<String> {
    let trace = agentrisk::trace::parse_trace(bytes).unwrap();
    let mut found = Vec::new();
    for event in &trace.events {
        for detector in agentrisk::detect::Builtin::ALL {
            detector.scan(&event.text, &mut found);
        }
    }
    found.into_iter().map(|m| m.value).collect()
}

fn shown(parts: &[TextPart]) -> String {
    parts.iter().map(TextPart::as_str).collect()
}

#[test]
fn every_example_trace_gives_the_reference_report_and_masks_its_leaked_values() {
    let cases = example_cases();
    assert_eq!(cases.len(), 10);
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(case.join("trace.json")).unwrap();
        let trace = analyzed(&bytes);

        // Exactly the core's report with no config file: keeping raw values
        // for masking and dropping them after changes nothing else; only the
        // compliance evidence lists are replaced by a count per control.
        assert_eq!(trace.report, as_listed(default_report(&bytes)), "{name}");
        // And the reference's numbers (the core's parity test compares the rest).
        let reference: Value =
            serde_json::from_slice(&std::fs::read(case.join("report.default.json")).unwrap()).unwrap();
        let cited: std::collections::BTreeMap<String, usize> = reference["compliance"]["frameworks"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["controls"].as_array().unwrap())
            .map(|k| {
                (k["id"].as_str().unwrap().to_owned(), k["evidence_details"]["finding_ids"].as_array().unwrap().len())
            })
            .collect();
        assert_eq!(trace.control_findings, cited, "{name}");
        assert!(cited.values().any(|&n| n > 0) || reference["findings"].as_array().unwrap().is_empty(), "{name}");
        let ours = serde_json::to_value(&trace.report).unwrap();
        for key in [
            "run_id",
            "risk_index",
            "privacy_score",
            "verdict",
            "blocked",
            "wsl",
            "rho_s",
            "summary",
            "channel_risks",
            "flow",
            "leak_paths",
        ] {
            assert_eq!(ours[key], reference[key], "{name}: {key}");
        }
        let ids = |r: &Value| -> Vec<(Value, Value, Value)> {
            r["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| (f["finding_id"].clone(), f["event_id"].clone(), f["redacted_value"].clone()))
                .collect()
        };
        assert_eq!(ids(&ours), ids(&reference), "{name}: findings");
        assert!(trace.report.findings.iter().all(|f| f.matched_value.is_none()), "{name}");

        let events: Value = serde_json::from_slice(&bytes).unwrap();
        let events = events["events"].as_array().unwrap();
        assert_eq!((trace.events.len(), trace.events_total, trace.events_left_out()), (events.len(), events.len(), 0));
        assert!(!trace.text_withheld);
        for (i, (row, event)) in trace.events.iter().zip(events).enumerate() {
            // Events without an id get the reference's `evt_NNN` (1-based position).
            let id = event["event_id"].as_str().map_or(format!("evt_{:03}", i + 1), String::from);
            assert_eq!(row.event_id, id, "{name}");
            assert_eq!(Some(row.channel.as_str()), event["channel"].as_str(), "{name}");
        }
        // Every finding is on a listed event with its id and channel.
        for f in &trace.report.findings {
            let on =
                trace.events.iter().find(|e| e.finding_ids.contains(&f.finding_id)).expect("finding's event listed");
            assert_eq!((on.event_id.as_str(), on.channel), (&*f.event_id, f.channel), "{name}");
        }
        // No leaked value, and nothing any detector finds in an event, is
        // in clear in any event text, in any ASCII case. (The report itself
        // may name one: "disciplinary" is also a data type.)
        let texts: String = trace.events.iter().map(|e| shown(&e.text).to_ascii_lowercase() + "\n").collect();
        for value in matched_values(&bytes) {
            assert!(!texts.contains(&value.to_ascii_lowercase()), "{name}: leaked value {value:?} in an event text");
        }
        for value in detected_values(&bytes) {
            assert!(!texts.contains(&value.to_ascii_lowercase()), "{name}: detected value {value:?} in an event text");
        }
    }
}

#[test]
fn the_healthcare_trace_lists_its_events_with_leaked_values_redacted() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases/ex_healthcare_trace");
    let trace = analyzed(&std::fs::read(case.join("trace.json")).unwrap());
    let memo = &trace.events[3];
    assert_eq!(memo.event_id, "evt_004");
    assert_eq!(memo.finding_ids, ["finding_012", "finding_013", "finding_011"]);
    assert_eq!(
        shown(&memo.text),
        "Memo: patient Je*********ay has Type 2 di****es (NAM TR********78); follow-up in 3 months."
    );
    assert!(memo.text.contains(&TextPart::Leaked("TR********78".into())));
    assert_eq!(memo.text_chars, shown(&memo.text).chars().count());
    // The user's own input names the patient too: the leaked name is masked
    // there as well, and the birth date, which did not leak, as detected.
    assert_eq!(
        trace.events[0].text,
        [
            TextPart::Plain("Summarize the patient record for ".into()),
            TextPart::Leaked("Je*********ay".into()),
            TextPart::Plain(" (DOB ".into()),
            TextPart::Detected("19******12".into()),
            TextPart::Plain(").".into()),
        ]
    );
    assert!(trace.events[0].finding_ids.is_empty());
    // The record the tool returned: its SIN and address never leaked, and are redacted too.
    let record = shown(&trace.events[2].text);
    assert!(record.contains("sin: 12*******89") && record.contains("address: 12************et"), "{record}");
    // Blocked: a critical (L4) secret leaked (score 56 is above the threshold).
    assert_eq!(trace.block_reasons, vec![agentrisk::score::BlockReason::CriticalLeak]);
}

#[test]
fn a_large_trace_sends_a_bounded_event_list_and_cut_texts() {
    let filler = "lorem ipsum ".repeat(300); // 3 600 characters
    let long_text = format!("{filler} contact jean.tremblay@example.com");
    let mut events: Vec<Value> = (0..EVENT_LIMIT + 250)
        .map(|i| serde_json::json!({"event_id": format!("e{i}"), "channel": "log", "source": "app", "target": "stdout", "content": format!("line {i}")}))
        .collect();
    events[7] = serde_json::json!({"event_id": "e7", "channel": "tool_call", "source": "agent", "target": "crm",
        "content": long_text});
    events[9] = serde_json::json!({"event_id": "e9", "channel": "log", "source": "app", "target": "stdout",
        "content": "mail to jean.tremblay@example.com"});
    let bytes = serde_json::to_vec(&serde_json::json!({"run_id": "big", "events": events})).unwrap();
    let trace = analyzed(&bytes);
    assert_eq!(
        (trace.events.len(), trace.events_total, trace.events_left_out()),
        (EVENT_LIMIT, EVENT_LIMIT + 250, 250)
    );
    assert_eq!(trace.report.event_count, (EVENT_LIMIT + 250) as u64);
    let long = &trace.events[7];
    assert_eq!((shown(&long.text).chars().count(), long.text_chars), (TEXT_LIMIT, long_text.len()));
    assert!(long.text_truncated());
    assert_eq!(shown(&trace.events[9].text), "mail to je*********************om");
    assert!(trace.events[9].finding_ids.len() == 1 && !trace.events[9].text_truncated());
}

#[test]
fn a_trace_with_many_findings_sends_the_most_severe_first_and_counts_them_all() {
    // One distinct e-mail address (L2) per event, and one SSN (L4) near the end.
    let n = FINDING_LIMIT + 300;
    let mut events: Vec<Value> =
        (0..n).map(|i| serde_json::json!({"channel": "log", "content": format!("mail user{i}@example.com")})).collect();
    events[n - 2] = serde_json::json!({"channel": "tool_call", "content": "ssn 123-45-6789"});
    let bytes = serde_json::to_vec(&serde_json::json!({"run_id": "many", "events": events})).unwrap();
    let full = default_report(&bytes);
    let trace = analyzed(&bytes);
    assert_eq!((trace.report.findings.len(), trace.findings_total), (FINDING_LIMIT, full.findings.len()));
    assert!(full.findings.len() >= n);
    // The numbers are those of the whole report; the list is its head.
    assert_eq!(trace.report.risk_index, full.risk_index);
    assert_eq!(trace.report.summary.leaked_secrets, full.summary.leaked_secrets);
    assert_eq!(trace.report.findings[0].data_type, "ssn");
    let ids = |f: &[agentrisk::model::Finding]| f.iter().map(|f| f.finding_id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(&trace.report.findings), ids(&full.findings[..FINDING_LIMIT]));
    // Listed events still point at their findings, listed or not.
    let listed: std::collections::HashSet<String> = ids(&trace.report.findings).into_iter().collect();
    let pointed: Vec<&String> = trace.events.iter().flat_map(|e| &e.finding_ids).collect();
    assert!(pointed.len() > FINDING_LIMIT && pointed.iter().any(|id| !listed.contains(*id)));
    // Its compliance section counts every finding: it cannot be computed
    // again from the listed ones, so a viewer gets it as it is.
    assert!(!trace.lists_every_finding() && listed_compliance(&trace).is_none());
    assert!(trace.report.compliance.is_some());
}

/// A viewer may leave an analysed trace's compliance section out and compute
/// it again from the listed report: the same section, on every conformance
/// trace (under the reference's defaults and under settings that block).
#[test]
fn the_compliance_section_is_computed_again_from_the_listed_report() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    let strict = || analyser_from_settings("scoring:\n  fail_below: 99\n  weights: [1, 3, 9, 27]\n").unwrap();
    let mut compared = 0;
    for dir in &dirs {
        let Ok(bytes) = std::fs::read(dir.join("trace.json")) else { continue };
        for analyser in [Analyser::new().with_generated_at(CLOCK), strict().with_generated_at(CLOCK)] {
            // The edge cases that are no valid trace have no section.
            let FileResult::Trace(trace) = analyser.analyse_file(&bytes, "trace.json", "", &|_| {}) else { continue };
            assert!(trace.lists_every_finding(), "{}", dir.display());
            let again = listed_compliance(&trace);
            assert_eq!(again.as_ref(), trace.report.compliance.as_ref(), "{}", dir.display());
            compared += 1;
        }
    }
    assert!(compared >= 400, "{compared} traces compared");
}

#[test]
fn a_report_still_loads_as_a_report_and_a_non_trace_names_the_problem() {
    let report =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../www/samples/hr_trace.report.json")).unwrap();
    assert!(
        matches!(analyze(&report, "file.json", "", CLOCK.to_owned()), FileResult::Report(r) if r.rescore.consistent)
    );
    let FileResult::Error { message } = analyze(b"[1, 2, 3]", "file.json", "", CLOCK.to_owned()) else {
        panic!("loaded an array")
    };
    assert_eq!(
        message,
        "top level: a trace must be a JSON object with an \"events\" array, but the file holds an array of 3 items"
    );
}

#[test]
fn a_value_holding_a_lone_surrogate_still_loads_but_its_text_is_withheld() {
    // Redaction hides the unpaired surrogate inside the secret, so the
    // default report can be written; the raw value cannot be, so the values
    // to mask are unknown and no event text is sent.
    let bytes = br#"{"run_id": "s", "events": [{"channel": "log", "content": "password: ab\ud800cdefgh123"}]}"#;
    let trace = analyzed(bytes);
    assert_eq!(trace.report, as_listed(default_report(bytes)));
    assert_eq!(trace.report.findings[0].redacted_value, "ab********23");
    assert!(trace.text_withheld);
    assert!(trace.events.iter().all(|e| e.text.is_empty() && e.text_chars > 0));
}

#[test]
fn every_run_carries_its_batch_facts_and_batch_files_load_as_rows() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases");
    let trace = std::fs::read(cases.join("ex_finance_trace").join("trace.json")).unwrap();
    let run = analyzed(&trace);
    // INDEX.md: ex_finance_trace leaks 6 of 8 secrets, RI 0.6957, blocked.
    assert_eq!((run.facts.leaked_secrets, run.facts.vault_secrets, run.facts.risk_index), (6, 8, 0.6957));
    assert!(run.facts.blocked && run.facts.event_channels.is_some());
    assert_eq!(run.facts.file, "file.json");

    let scorecard = agentrisk::batch::Scorecard::new(
        vec![run.facts.clone()],
        Vec::new(),
        agentrisk::stats::IntervalMethod::default(),
        None,
    )
    .to_json();
    let FileResult::Batch(only) = analyze(scorecard.as_bytes(), "card.json", "", CLOCK.to_owned()) else {
        panic!("a scorecard is not a run")
    };
    assert_eq!((only.kind.as_str(), only.runs.len(), only.redteam.len()), ("scorecard", 1, 0));
    assert_eq!(only.runs[0], run.facts);

    let records = br#"[{"scenario_id": "s", "attack_class_id": "F1.1", "attack_family_id": "F1", "primary_channel": "final_output", "vault_field_count": 11, "expected_leaks": ["ssn"], "detected_leaks": [], "detected_on_primary": [], "risk_index": 0, "privacy_score": 100}]"#;
    let FileResult::Batch(only) = analyze(records, "rt.json", "", CLOCK.to_owned()) else { panic!("not red-team") };
    assert_eq!((only.kind.as_str(), only.runs.len(), only.redteam.len()), ("red-team results", 0, 1));
    let FileResult::Error { message } = analyze(br#"[{"attack_class_id": 5}]"#, "rt.json", "", CLOCK.to_owned()) else {
        panic!("a bad record loaded")
    };
    assert!(message.starts_with("record [0]: "), "{message}");
}

/// What-if settings re-score a report with the numbers the reference gives
/// its trace under them (ex_healthcare_trace with weights 1, 3, 9, 27:
/// report.weights_1_3_9_27.json), keep the stored ones beside them, and
/// move the batch facts; an undersized vault makes the row an error.
#[test]
fn what_if_settings_re_score_a_report_and_keep_its_stored_numbers() {
    use agentrisk::config::config_from_yaml;
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases/ex_healthcare_trace");
    let bytes = std::fs::read(case.join("report.default.json")).unwrap();
    let theirs: Value =
        serde_json::from_slice(&std::fs::read(case.join("report.weights_1_3_9_27.json")).unwrap()).unwrap();
    let config = config_from_yaml("scoring:\n  weights: [1, 3, 9, 27]\n").unwrap();
    let FileResult::Report(loaded) = with_settings(config).analyse_file(&bytes, "r.json", "", &|_| {}) else {
        panic!("not a report")
    };
    assert_eq!(loaded.report.risk_index, theirs["risk_index"].as_f64().unwrap());
    assert_eq!(loaded.report.privacy_score, theirs["privacy_score"].as_i64().unwrap());
    assert_eq!(loaded.facts.risk_index, loaded.report.risk_index, "the batch sees the new numbers");
    assert!(loaded.rescore.consistent, "the stored numbers are still checked as stored");
    let what_if = loaded.what_if.as_ref().expect("re-scored");
    assert_eq!((what_if.stored.risk_index, what_if.stored.privacy_score), (0.44, 56));
    // A config file turns finance and hr off, which a report cannot redo.
    assert!(what_if.notes.iter().any(|n| n.contains("detector toggles")), "{:?}", what_if.notes);

    let FileResult::Report(plain) = analyze(&bytes, "r.json", "", CLOCK.to_owned()) else { panic!() };
    assert!(plain.what_if.is_none());
    assert_eq!(plain.report.privacy_score, 56);

    let undersized = config_from_yaml("vault:\n  levels: {4: 1}\n").unwrap();
    let FileResult::Error { message } = with_settings(undersized).analyse_file(&bytes, "r.json", "", &|_| {}) else {
        panic!("an undersized vault scored")
    };
    assert!(message.starts_with("with the what-if settings: vault: explicit vault is undersized"), "{message}");
}

fn case_file(case: &str, file: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases").join(case).join(file),
    )
    .unwrap()
}

/// A workspace keeps every file it could read (to save them again); new settings
/// analyse what it holds again with them, refused ones change nothing, and
/// a forgotten file is gone.
#[test]
fn a_workspace_analyzes_its_files_again_under_new_settings() {
    let mut ws = Workspace::new();
    let trace = case_file("ex_healthcare_trace", "trace.json");
    let report = case_file("ex_healthcare_trace", "report.default.json");
    let FileResult::Trace(first) = ws.open(1, "t.json", "runs", trace.clone(), CLOCK, &|_| {}) else { panic!() };
    assert_eq!(first.facts.folder, "runs");
    let FileResult::Report(_) = ws.open(2, "r.json", "", report, CLOCK, &|_| {}) else { panic!() };
    let records = br#"[{"scenario_id": "s", "attack_class_id": "F1.1", "attack_family_id": "F1", "primary_channel": "final_output", "vault_field_count": 11, "expected_leaks": ["ssn"], "detected_leaks": [], "detected_on_primary": [], "risk_index": 0, "privacy_score": 100}]"#;
    let FileResult::Batch(_) = ws.open(3, "rt.json", "", records.to_vec(), CLOCK, &|_| {}) else { panic!() };
    assert_eq!((ws.held_size(1), ws.held_size(3)), (Some(trace.len() as u64), Some(records.len() as u64)));
    let held: Vec<(&str, &str)> = ws.held().map(|(name, folder, _)| (name, folder)).collect();
    assert_eq!(held, [("t.json", "runs"), ("r.json", ""), ("rt.json", "")]);
    assert_eq!(ws.held_bytes(3), Some(&records[..]));

    // The reference's numbers for this trace with weights 1, 3, 9, 27.
    let theirs: Value =
        serde_json::from_slice(&case_file("ex_healthcare_trace", "report.weights_1_3_9_27.json")).unwrap();
    assert_eq!(ws.set_settings("scoring:\n  weights: [1, 3, 9, 27]\n").unwrap(), [1, 2]);
    for id in [1, 2] {
        let result = ws.reanalyze(id, CLOCK, &|_| {}).unwrap();
        let (ri, score) = match &result {
            FileResult::Trace(t) => (t.report.risk_index, t.report.privacy_score),
            FileResult::Report(r) => (r.report.risk_index, r.report.privacy_score),
            _ => panic!("{result:?}"),
        };
        assert_eq!((ri, score), (theirs["risk_index"].as_f64().unwrap(), theirs["privacy_score"].as_i64().unwrap()));
    }
    // A refused key is named, and the settings in force stay.
    let refused = ws.set_settings("scoring:\n  weights: [1, 2]\n").unwrap_err().to_string();
    assert!(refused.contains("weights"), "{refused}");
    assert!(ws.settings().is_some());
    assert_eq!(ws.set_settings("").unwrap(), [1, 2]);
    assert!(ws.settings().is_none());
    let FileResult::Trace(again) = ws.reanalyze(1, CLOCK, &|_| {}).unwrap() else { panic!() };
    assert_eq!(again, first);
    ws.forget(1);
    assert!(ws.reanalyze(1, CLOCK, &|_| {}).is_none());
    let Some(FileResult::Batch(records)) = ws.reanalyze(3, CLOCK, &|_| {}) else { panic!("records not kept") };
    assert_eq!(records.redteam.len(), 1);
}

/// The gate's reasons come from the pipeline's own gate: a blocked trace
/// lists why, and the order and numbers are the gate's.
#[test]
fn a_trace_carries_the_gate_and_its_reasons_from_the_pipeline() {
    use agentrisk::score::BlockReason;
    for case in example_cases() {
        let trace = std::fs::read(case.join("trace.json")).unwrap();
        let t = analyzed(&trace);
        assert_eq!(t.report.blocked, !t.block_reasons.is_empty(), "{case:?}");
        let score = u8::try_from(t.report.privacy_score).unwrap();
        let below =
            t.block_reasons.contains(&BlockReason::ScoreBelowThreshold { privacy_score: score, fail_below: 40 });
        assert_eq!(below, score < 40, "{case:?}");
        assert_eq!(t.block_reasons.contains(&BlockReason::CriticalLeak), t.report.summary.has_critical, "{case:?}");
    }
    // With the gate's critical block off, a critical leak alone no longer blocks.
    let trace = case_file("ex_healthcare_trace", "trace.json");
    let lenient = analyser_from_settings("scoring:\n  block_on_critical: false\n").unwrap();
    let FileResult::Trace(t) = lenient.analyse_file(&trace, "t.json", "", &|_| {}) else { panic!() };
    assert!(!t.block_reasons.contains(&BlockReason::CriticalLeak));
}

/// An imported `agentleak.yaml` gives the what-if form's values, and a bad
/// one is refused with the key named, as the CLI refuses it.
#[test]
fn an_imported_config_gives_the_what_if_values_or_names_the_problem() {
    use agentrisk::workspace::what_if_from_file;
    let w = what_if_from_file(b"scoring:\n  weights: [1, 3, 9, 27]\n  fail_below: 55\n").unwrap();
    assert_eq!((w.weights, w.fail_below), ([1, 3, 9, 27], 55));
    assert!(!w.detectors.finance, "a config file turns finance off unless it is switched on");
    let problem = what_if_from_file(b"scoring:\n  fail_below: lots\n").unwrap_err().to_string();
    assert!(problem.contains("fail_below"), "{problem}");
}

/// Each finding points at the first listed event it was found in.
#[test]
fn findings_point_at_their_events() {
    let t = analyzed(&case_file("ex_healthcare_trace", "trace.json"));
    let positions = t.event_of_finding();
    assert!(!t.report.findings.is_empty());
    for f in &t.report.findings {
        let at = positions[&f.finding_id];
        assert_eq!((t.events[at].event_id.as_str(), t.events[at].channel), (&*f.event_id, f.channel));
        assert!(t.events[..at].iter().all(|e| !e.finding_ids.contains(&f.finding_id)));
    }
}

fn redteam_file(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redteam/public_health_a1").join(path),
    )
    .unwrap()
}

fn trace_of(result: FileResult) -> AnalyzedTrace {
    match result {
        FileResult::Trace(trace) => *trace,
        other => panic!("not a trace: {other:?}"),
    }
}

/// A red-team trace is analysed with its own `metadata.canaries` and says
/// so; a dropped canary-set file becomes the workspace's set, wins over the
/// trace's own, and clearing it brings the trace's own back.
#[test]
fn canary_sets_from_the_trace_and_from_a_dropped_file() {
    let trace = redteam_file("traces/001_redteam_healthcare_f6_2_basic.json");
    let mut ws = Workspace::new();
    let own = trace_of(ws.open(1, "001.json", "traces", trace.clone(), CLOCK, &|_| {}));
    let used = own.canaries.clone().unwrap();
    assert_eq!(used.source, CanarySource::Trace);
    assert_eq!(used.describe(), "from the trace (1 obvious, 1 realistic, 1 semantic)");
    let canary_findings = own.report.findings.iter().filter(|f| f.data_type == "canary").count();
    assert!(canary_findings > 0, "the trace's canaries are found");
    assert!(own.facts.redteam.as_ref().unwrap().detected_leaks.contains("canary"));
    // No canary value reaches the viewer in clear in the event list.
    for value in ["CANARY_FBB230BB", "000-65-6120"] {
        assert!(own.events.iter().flat_map(|e| &e.text).all(|p| !matches!(p, TextPart::Plain(t) if t.contains(value))));
    }

    // A dropped canary-set file: not held, not a run, the set in force.
    let empty = br#"{"obvious": [], "realistic": [], "semantic": []}"#.to_vec();
    let FileResult::CanarySet(set) = ws.open(2, "none.json", "", empty, CLOCK, &|_| {}) else {
        panic!("not read as a canary set")
    };
    assert_eq!(set.describe(), "from none.json (0 obvious, 0 realistic, 0 semantic)");
    assert_eq!(ws.held_traces(), vec![1]);
    assert_eq!(ws.canaries().map(|c| c.name.as_str()), Some("none.json"));
    let overridden = trace_of(ws.reanalyze(1, CLOCK, &|_| {}).unwrap());
    assert_eq!(
        overridden.canaries.as_ref().map(|c| c.source.clone()),
        Some(CanarySource::Explicit { name: "none.json".into() })
    );
    assert!(overridden.report.findings.iter().all(|f| f.data_type != "canary"));

    // Cleared: the trace's own again; the same set given explicitly gives the same report.
    assert_eq!(ws.set_canaries(None), vec![1]);
    assert_eq!(trace_of(ws.reanalyze(1, CLOCK, &|_| {}).unwrap()), own);
    let setting = CanarySetting::from_file("001.json", &redteam_file("canaries/001.json")).unwrap();
    ws.set_canaries(Some(setting));
    let explicit = trace_of(ws.reanalyze(1, CLOCK, &|_| {}).unwrap());
    assert_eq!(explicit.report, own.report);
    assert_eq!(explicit.canaries.unwrap().describe(), "from 001.json (1 obvious, 1 realistic, 1 semantic)");

    // A broken canary-set file is an error naming the place.
    let FileResult::Error { message } = ws.open(3, "bad.json", "", br#"{"semantic": [1]}"#.to_vec(), CLOCK, &|_| {})
    else {
        panic!("a broken canary set is refused")
    };
    assert_eq!(message, "semantic[0]: expected a string, found a number");
}
