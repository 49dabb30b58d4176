//! Red-team batches made with the reference's seeded generator
//! (`tests/fixtures/redteam`, see its NOTICE.md): summarising the traces
//! alone, each analysed with its own `metadata.canaries`, gives the
//! reference's `compute_metrics` (expected.json), each trace's red-team
//! record equals the reference's (results.json), and the records file and
//! the traces folder give the same red-team summary.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{Analyser, BatchInput, CanarySetting};
use agentrisk::analyze::Canaries;
use agentrisk::batch::{parse_redteam_results, summarize, FileKind, RedTeamSummary, RunResult};
use agentrisk::stats::IntervalMethod;
use serde_json::Value;
use std::path::{Path, PathBuf};

const BATCHES: [&str; 2] = ["public_health_a1", "public_all"];
const TOLERANCE: f64 = 1e-9;

fn batch_dir(batch: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redteam").join(batch)
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn trace_files(batch: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(batch_dir(batch).join("traces")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

/// The red-team records of a batch's traces, in file order, analysed with
/// `canaries` given explicitly (`None`: each trace's own).
fn records_from_traces(batch: &str, canaries: Option<&Canaries>) -> Vec<RunResult> {
    let analyser = Analyser::new()
        .with_canaries(canaries.map(|c| CanarySetting { name: "canaries.json".to_owned(), canaries: c.clone() }));
    trace_files(batch)
        .iter()
        .map(|path| {
            let name = path.display().to_string();
            let bytes = std::fs::read(path).unwrap();
            let file = analyser
                .read_batch_file(BatchInput { name: &name, folder: "traces", bytes: &bytes })
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(file.kind, FileKind::Trace);
            assert_eq!(file.runs.len(), 1);
            file.runs[0].redteam.clone().unwrap_or_else(|| panic!("{}: no red-team record", path.display()))
        })
        .collect()
}

fn summary_of(records: &[RunResult]) -> RedTeamSummary {
    let runs_free = summarize(&[], records, IntervalMethod::default(), None);
    runs_free.redteam.unwrap()
}

fn close(what: &str, ours: f64, theirs: &Value) {
    let theirs = theirs.as_f64().unwrap_or_else(|| panic!("{what}: expected.json has no number"));
    assert!((ours - theirs).abs() <= TOLERANCE, "{what}: ours {ours}, the reference's {theirs}");
}

fn count(what: &str, ours: u64, theirs: &Value) {
    assert_eq!(Some(ours), theirs.as_u64(), "{what}");
}

/// Every number of `compute_metrics` that the summary holds.
fn assert_reference_metrics(batch: &str, ours: &RedTeamSummary) {
    let expected = json(&batch_dir(batch).join("expected.json"));
    count("total_runs", ours.runs, &expected["total_runs"]);
    count("total_scenarios", ours.scenarios, &expected["total_scenarios"]);
    close("overall_asr", ours.asr.rate.unwrap(), &expected["overall_asr"]);
    close("mean_elr", ours.elr.mean.unwrap(), &expected["mean_elr"]);
    close("median_elr", ours.elr.median.unwrap(), &expected["median_elr"]);
    close("mean_risk_index", ours.risk_index.mean.unwrap(), &expected["mean_risk_index"]);
    close("mean_privacy_score", ours.privacy_score.mean.unwrap(), &expected["mean_privacy_score"]);

    let per_run = expected["elr_per_run"].as_array().unwrap();
    assert_eq!(ours.elr_per_run.len(), per_run.len());
    for (ours, theirs) in ours.elr_per_run.iter().zip(per_run) {
        assert_eq!(Some(ours.scenario_id.as_str()), theirs["scenario_id"].as_str());
        close(&format!("elr of {}", ours.scenario_id), ours.elr, &theirs["elr"]);
        count("leaked_count", ours.leaked, &theirs["leaked_count"]);
        count("vault_count", ours.total, &theirs["vault_count"]);
    }

    let clr = expected["clr_per_channel"].as_array().unwrap();
    let ours_clr: Vec<&str> = ours.clr_per_channel.iter().map(|c| c.channel.as_str()).collect();
    let theirs_clr: Vec<&str> = clr.iter().map(|c| c["channel"].as_str().unwrap()).collect();
    assert_eq!(ours_clr, theirs_clr, "CLR channels, in order");
    for (ours, theirs) in ours.clr_per_channel.iter().zip(clr) {
        close(&format!("CLR {}", ours.channel), ours.rate.rate.unwrap(), &theirs["leak_rate"]);
        count(&format!("CLR {} runs", ours.channel), ours.rate.n, &theirs["run_count"]);
        close(&format!("CLR {} fields", ours.channel), ours.avg_leaked_fields, &theirs["avg_leaked_fields"]);
    }

    for (key, ours) in [("asr_by_family", &ours.asr_by_family), ("asr_by_class", &ours.asr_by_class)] {
        let theirs = expected[key].as_array().unwrap();
        let ours_ids: Vec<&str> = ours.iter().map(|a| a.id.as_str()).collect();
        let theirs_ids: Vec<&str> = theirs.iter().map(|a| a["id"].as_str().unwrap()).collect();
        assert_eq!(ours_ids, theirs_ids, "{key}, in order");
        for (ours, theirs) in ours.iter().zip(theirs) {
            assert_eq!(Some(ours.name.as_str()), theirs["name"].as_str(), "{key} {}", ours.id);
            close(&format!("{key} {}", ours.id), ours.rate.rate.unwrap(), &theirs["asr"]);
            count(&format!("{key} {} successes", ours.id), ours.rate.k, &theirs["successful"]);
            count(&format!("{key} {} runs", ours.id), ours.rate.n, &theirs["total"]);
        }
    }
}

#[test]
fn the_traces_alone_give_the_reference_metrics() {
    for batch in BATCHES {
        let records = records_from_traces(batch, None);
        assert_reference_metrics(batch, &summary_of(&records));
    }
}

#[test]
fn each_traces_record_is_the_reference_record() {
    for batch in BATCHES {
        let reference = parse_redteam_results(&std::fs::read(batch_dir(batch).join("results.json")).unwrap()).unwrap();
        let ours = records_from_traces(batch, None);
        assert_eq!(ours.len(), reference.len(), "{batch}");
        for (ours, theirs) in ours.iter().zip(&reference) {
            let id = &theirs.scenario_id;
            assert_eq!(ours.scenario_id, *id);
            assert_eq!(ours.detected_leaks, theirs.detected_leaks, "{batch} {id}: leaked anywhere");
            assert_eq!(ours.detected_on_primary, theirs.detected_on_primary, "{batch} {id}: leaked on primary");
            assert_eq!(ours.expected_leaks, theirs.expected_leaks, "{batch} {id}");
            assert_eq!(
                (&ours.attack_class_id, &ours.attack_family_id, &ours.primary_channel, ours.vault_field_count),
                (&theirs.attack_class_id, &theirs.attack_family_id, &theirs.primary_channel, theirs.vault_field_count),
                "{batch} {id}"
            );
            assert_eq!(ours.vertical, theirs.vertical, "{batch} {id}");
            assert!((ours.risk_index - theirs.risk_index).abs() <= TOLERANCE, "{batch} {id}: RI");
            assert_eq!(ours.privacy_score, theirs.privacy_score, "{batch} {id}: privacy score");
        }
    }
}

#[test]
fn the_records_file_and_the_traces_folder_agree() {
    for batch in BATCHES {
        let reference = parse_redteam_results(&std::fs::read(batch_dir(batch).join("results.json")).unwrap()).unwrap();
        let from_records = summary_of(&reference);
        assert_reference_metrics(batch, &from_records);
        let from_traces = summary_of(&records_from_traces(batch, None));
        assert_eq!(from_traces.runs, from_records.runs);
        assert_eq!(from_traces.scenarios, from_records.scenarios);
        assert_eq!(from_traces.asr, from_records.asr);
        assert_eq!(from_traces.asr_by_family, from_records.asr_by_family);
        assert_eq!(from_traces.asr_by_class, from_records.asr_by_class);
        assert_eq!(from_traces.clr_per_channel, from_records.clr_per_channel);
        assert_eq!(from_traces.elr, from_records.elr);
        assert_eq!(from_traces.elr_per_run, from_records.elr_per_run);
        assert_eq!(from_traces.privacy_score, from_records.privacy_score);
        assert!((from_traces.risk_index.mean.unwrap() - from_records.risk_index.mean.unwrap()).abs() <= TOLERANCE);
    }
}

/// Without its canaries a trace misses its canary leaks: an explicit empty
/// set wins over the trace's own and ELR falls (9 of 11 → 8 of 11 on the
/// healthcare batch, `canary` being one of the nine expected types).
#[test]
fn an_explicit_canary_set_wins_over_the_traces_own() {
    let none = Canaries::default();
    let records = records_from_traces("public_health_a1", Some(&none));
    assert!(records.iter().all(|r| !r.detected_leaks.contains("canary")), "no canary found without canaries");
    let summary = summary_of(&records);
    assert_eq!(summary.elr_per_run.iter().map(|e| e.leaked).collect::<Vec<_>>(), vec![8; 10]);
    let own = records_from_traces("public_health_a1", None);
    assert!(own.iter().all(|r| r.detected_leaks.contains("canary")));
    // Each trace's own set, given explicitly from canaries/NNN.json, gives
    // the same records as the metadata.
    for (i, path) in trace_files("public_health_a1").iter().enumerate() {
        let set = Canaries::from_json_bytes(
            &std::fs::read(batch_dir("public_health_a1").join("canaries").join(format!("{:03}.json", i + 1))).unwrap(),
        )
        .unwrap();
        let analyser =
            Analyser::new().with_canaries(Some(CanarySetting { name: "set.json".to_owned(), canaries: set }));
        let bytes = std::fs::read(path).unwrap();
        let file = analyser.read_batch_file(BatchInput { name: "t", folder: "traces", bytes: &bytes }).unwrap();
        assert_eq!(file.runs[0].redteam.as_ref(), Some(&own[i]), "{}", path.display());
    }
}

#[test]
fn a_canary_set_file_is_no_run() {
    let path = batch_dir("public_health_a1").join("canaries/001.json");
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(agentrisk::batch::detect_kind(&bytes), FileKind::CanarySet);
    let file =
        Analyser::new().read_batch_file(BatchInput { name: "001.json", folder: "canaries", bytes: &bytes }).unwrap();
    assert_eq!((file.kind, file.runs.len(), file.redteam.len()), (FileKind::CanarySet, 0, 0));
}

#[test]
fn a_malformed_canary_list_names_its_place() {
    let trace = br#"{"run_id": "r", "metadata": {"canaries": {"obvious": ["A", "B", 3]}},
        "events": [{"channel": "final_output", "content": "A"}]}"#;
    let error = Analyser::new().read_batch_file(BatchInput { name: "t.json", folder: "", bytes: trace }).unwrap_err();
    assert_eq!(error.to_string(), "t.json: metadata.canaries.obvious[2]: expected a string, found a number");
}
