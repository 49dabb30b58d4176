//! The bundled samples behind "Load example": each listed file exists, is
//! listed once, and loads as a consistent report with the reference's numbers.

use agentrisk::analyser::Analyser;
use agentrisk::workspace::FileResult;
use agentrisk_viewer::samples::{SAMPLE_REPORTS, SAMPLE_TRACES};
use std::path::Path;

#[test]
fn every_sample_is_listed_and_loads_consistently() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = SAMPLE_REPORTS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed);

    let mut scores = Vec::new();
    for name in SAMPLE_REPORTS {
        match Analyser::new().analyse_file(&std::fs::read(dir.join(name)).unwrap(), "file.json", "", &|_| {}) {
            FileResult::Report(loaded) => {
                assert!(loaded.rescore.consistent, "{name}: {:?}", loaded.rescore.mismatches);
                scores.push((loaded.report.run_id.clone(), loaded.report.privacy_score, loaded.report.blocked));
            }
            FileResult::Trace(_)
            | FileResult::Spans(_)
            | FileResult::Batch(_)
            | FileResult::CanarySet(_)
            | FileResult::Review(_) => {
                panic!("{name}: not read as a report")
            }
            FileResult::Error { message } => panic!("{name}: {message}"),
        }
    }
    assert_eq!(
        scores,
        vec![
            ("run_healthcare_001".to_owned(), 56, true),
            ("run_finance_001".to_owned(), 30, true),
            ("run_hr_001".to_owned(), 42, false),
            ("run_support_001".to_owned(), 60, false),
            ("run_education_001".to_owned(), 33, true),
            ("run_healthcare_clean_001".to_owned(), 100, false),
        ]
    );
}

#[test]
fn every_sample_trace_is_listed_and_analyzes_to_the_reference_numbers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("www/samples");
    let mut on_disk: Vec<String> = std::fs::read_dir(dir.join("traces"))
        .unwrap()
        .map(|e| format!("traces/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, SAMPLE_TRACES.to_vec());
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/conformance/cases");
    for name in SAMPLE_TRACES {
        let case = format!("ex_{}", name.trim_start_matches("traces/").trim_end_matches(".json"));
        let expected: serde_json::Value =
            serde_json::from_slice(&std::fs::read(cases.join(&case).join("report.default.json")).unwrap()).unwrap();
        match Analyser::new().analyse_file(&std::fs::read(dir.join(name)).unwrap(), name, "samples", &|_| {}) {
            FileResult::Trace(trace) => {
                assert_eq!(trace.report.risk_index, expected["risk_index"].as_f64().unwrap(), "{name}");
                assert_eq!(trace.report.verdict, expected["verdict"].as_str().unwrap(), "{name}");
            }
            _ => panic!("{name}: not analysed as a trace"),
        }
    }
}
