//! Trace parsing and flattening against the conformance corpus: every trace
//! the reference reported on must parse to the same run identity and event
//! count; every trace it rejected while reading must be rejected here; and
//! every finding it made on an event's plain text must occur in our flattened
//! text of that event.
//!
//! The corpus's own JSON files (reports, finding dumps) are read with our
//! reader too: they contain the reference's own escapes.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::trace::{flatten, parse_json, parse_trace, PyValue, TraceError, MAX_NESTING};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases")
}

fn case_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cases_dir())
        .expect("fixture cases folder")
        .map(|entry| entry.expect("case entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn case_name(dir: &Path) -> &str {
    dir.file_name().and_then(|n| n.to_str()).unwrap_or_default()
}

fn read_json(path: &Path) -> PyValue {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_json(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Reference errors that are not about reading the trace, with why our
/// parse succeeds.
const PARSES_DESPITE_REFERENCE_ERROR: &[(&str, &str)] = &[
    // The reference rejects a UTF-8 BOM ("Unexpected UTF-8 BOM"); our issue
    // allows accepting it, and the JSON after it is a valid trace.
    ("edge_json_bom/error.default.txt", "UTF-8 BOM"),
];

/// Every `error.<variant>.txt` for a variant other than `default` comes from
/// a config file; these are the exceptions they record, none about the trace.
const CONFIG_ERRORS: &[&str] = &[
    // configs/vault_undersized.yaml: the explicit vault is smaller than what
    // leaks (scoring refuses it); the trace itself is fine.
    "VaultScopeError: Explicit vault is undersized",
];

/// What the reference's final exception says when reading a trace fails:
/// pydantic validation, `json` decoding, a top-level non-object, or `dict()`
/// over a non-object `events` element.
const TRACE_ERROR_SIGNATURES: &[&str] = &[
    "pydantic_core._pydantic_core.ValidationError",
    "json.decoder.JSONDecodeError",
    "AttributeError: 'list' object has no attribute 'get'",
    "ValueError: dictionary update sequence element",
];

#[test]
fn every_case_parses_or_fails_like_the_reference() {
    let dirs = case_dirs();
    assert_eq!(dirs.len(), 238, "the corpus has 238 cases");
    let mut mismatches = Vec::new();
    let (mut parsed, mut rejected, mut config_only) = (0, Vec::new(), 0);
    for dir in &dirs {
        let name = case_name(dir);
        let bytes = std::fs::read(dir.join("trace.json")).expect("every case has a trace.json");
        let result = parse_trace(&bytes);

        let report_path = dir.join("report.default.json");
        if report_path.exists() {
            let report = read_json(&report_path);
            match &result {
                Err(e) => mismatches.push(format!("{name}: the reference reported on it, we reject it: {e}")),
                Ok(trace) => {
                    let text = |key: &str| report.get(key).and_then(PyValue::as_str).map(str::to_owned);
                    let count = report.get("event_count").and_then(|v| match v {
                        PyValue::Int(d) => d.parse::<usize>().ok(),
                        _ => None,
                    });
                    let ours = (Some(trace.run_id.clone()), Some(trace.agent_name.clone()), trace.scenario_id.clone());
                    let theirs = (text("run_id"), text("agent_name"), text("scenario_id"));
                    if ours != theirs || count != Some(trace.events.len()) {
                        mismatches.push(format!(
                            "{name}: ours {ours:?} with {} events, report {theirs:?} with {count:?}",
                            trace.events.len()
                        ));
                    }
                    parsed += 1;
                }
            }
        }

        for entry in std::fs::read_dir(dir).expect("case folder") {
            let path = entry.expect("file entry").path();
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            if !(file.starts_with("error.") && file.ends_with(".txt")) {
                continue;
            }
            let reason = std::fs::read_to_string(&path).expect("read error file");
            let key = format!("{name}/{file}");
            if file != "error.default.txt" {
                // A config error: the trace must still read.
                assert!(CONFIG_ERRORS.iter().any(|sig| reason.contains(sig)), "{key}: unclassified error\n{reason}");
                if let Err(e) = &result {
                    mismatches.push(format!("{key}: a config error, but we reject the trace: {e}"));
                }
                config_only += 1;
            } else if let Some((_, why)) = PARSES_DESPITE_REFERENCE_ERROR.iter().find(|(k, _)| *k == key) {
                assert!(reason.contains(why), "{key}: expected the reference to fail on {why}\n{reason}");
                if let Err(e) = &result {
                    mismatches.push(format!("{key}: listed as parsing, but we reject it: {e}"));
                }
            } else {
                assert!(
                    TRACE_ERROR_SIGNATURES.iter().any(|sig| reason.contains(sig)),
                    "{key}: not a trace-reading error; classify it\n{reason}"
                );
                match &result {
                    Ok(_) => mismatches.push(format!("{key}: the reference rejected it, we parse it\n{reason}")),
                    Err(e) => {
                        println!("{name}: rejected as the reference does: {e}");
                        rejected.push(name.to_owned());
                    }
                }
            }
        }
    }
    assert!(mismatches.is_empty(), "{} mismatches:\n{}", mismatches.len(), mismatches.join("\n"));
    assert_eq!(parsed, 223, "cases with a default report");
    assert_eq!(config_only, 14, "config-only error files");
    assert_eq!(
        rejected,
        [
            "edge_channel_wrong_case",
            "edge_content_bool",
            "edge_content_null",
            "edge_content_number",
            "edge_event_id_number",
            "edge_events_not_list",
            "edge_json_invalid",
            "edge_json_toplevel_list",
            "edge_metadata_not_object",
            "edge_missing_channel",
            "edge_run_id_number",
            "edge_source_null",
            "edge_timestamp_invalid",
            "edge_unknown_channel",
        ]
    );
}

#[test]
fn rejected_corpus_traces_fail_for_the_reference_reason() {
    let expect = |case: &str| -> String {
        let bytes = std::fs::read(cases_dir().join(case).join("trace.json")).expect("trace");
        match parse_trace(&bytes) {
            Ok(_) => panic!("{case} must be rejected"),
            Err(e) => e.to_string(),
        }
    };
    assert!(
        expect("edge_channel_wrong_case").starts_with("events[0].channel: unknown channel the string \"Tool_Call\"")
    );
    assert!(expect("edge_unknown_channel").starts_with("events[0].channel: unknown channel the string \"email\""));
    assert!(expect("edge_missing_channel").starts_with("events[0].channel: missing"));
    assert_eq!(
        expect("edge_content_number"),
        "events[0].content: expected a string, an object or an array, found the number 4111111111111111"
    );
    assert!(expect("edge_content_bool").starts_with("events[0].content: expected"));
    assert!(expect("edge_content_null").ends_with("found null"));
    assert_eq!(expect("edge_event_id_number"), "events[0].event_id: expected a string, found the number 5");
    assert_eq!(
        expect("edge_events_not_list"),
        "events: expected an array of event objects, found an object with 1 key"
    );
    assert_eq!(expect("edge_json_invalid"), "line 1, column 35: invalid JSON: expected a value");
    assert!(expect("edge_json_toplevel_list").starts_with("top level: a trace must be a JSON object"));
    assert_eq!(expect("edge_metadata_not_object"), "events[0].metadata: expected an object, found the string \"oops\"");
    assert_eq!(expect("edge_run_id_number"), "run_id: expected a string, found the number 123");
    assert_eq!(expect("edge_source_null"), "events[0].source: expected a string, found null");
    assert!(expect("edge_timestamp_invalid").starts_with("events[0].timestamp: the string \"yesterday\" is not"));
}

/// Findings made on an event's plain flattened text quote a substring of it.
/// Findings on a decoded or obscured view (their metadata has a truthy
/// `transform`: base64, hex, reversed, …) quote the decoded value instead and
/// are the only ones skipped.
#[test]
fn every_plain_finding_quotes_our_flattened_text() {
    let (mut checked, mut skipped, mut files) = (0usize, 0usize, 0usize);
    let mut missing = Vec::new();
    for dir in case_dirs() {
        let name = case_name(&dir).to_owned();
        let dumps: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("case folder")
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                let f = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                f.starts_with("findings.") && f.ends_with(".json")
            })
            .collect();
        if dumps.is_empty() {
            continue;
        }
        let trace =
            parse_trace(&std::fs::read(dir.join("trace.json")).expect("trace")).expect("trace with findings parses");
        // Event ids can repeat (edge_duplicate_event_ids): keep every text.
        let mut texts: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for event in &trace.events {
            texts.entry(&*event.event_id).or_default().push(&*event.text);
        }
        for dump in dumps {
            files += 1;
            let dump_value = read_json(&dump);
            let Some(PyValue::Array(findings)) = dump_value.get("findings") else {
                panic!("{}: no findings array", dump.display())
            };
            for finding in findings {
                let metadata = finding.get("metadata");
                if metadata.and_then(|m| m.get("transform")).is_some_and(PyValue::is_truthy) {
                    skipped += 1;
                    continue;
                }
                let field = |key: &str| finding.get(key).and_then(PyValue::as_str).unwrap_or_default();
                let (event_id, value) = (field("event_id"), field("matched_value"));
                assert!(!value.is_empty(), "{name}: a finding without matched_value");
                let found = texts.get(event_id).is_some_and(|ts| ts.iter().any(|t| t.contains(value)));
                if !found {
                    missing.push(format!("{name} {event_id}: {value:?} not in {:?}", texts.get(event_id)));
                }
                checked += 1;
            }
        }
    }
    assert!(missing.is_empty(), "{} findings not in the flattened text:\n{}", missing.len(), missing.join("\n"));
    assert_eq!((checked, skipped), (3384, 9), "findings checked / skipped over {files} dumps");
}

#[test]
fn corpus_flattening_examples() {
    let text_of = |case: &str, index: usize| -> String {
        let bytes = std::fs::read(cases_dir().join(case).join("trace.json")).expect("trace");
        parse_trace(&bytes).expect("parses").events[index].text.to_string()
    };
    assert_eq!(text_of("edge_json_duplicate_keys", 0), "email: second@example.com");
    assert_eq!(text_of("edge_json_nan", 0), "balance: nan | limit: inf | ssn: 123-45-6789");
    assert_eq!(
        text_of("edge_content_nested_array", 0),
        "note | patient name: Jean Tremblay | diagnosis: asthma | phone: 514-555-0199 | email: jean@example.ca"
    );
    assert_eq!(
        text_of("edge_content_scalars_in_object", 0),
        "flag: True | ssn: None | pi: 3.14 | big float: 1e+21 | tiny: 1e-07 | sin: 123456789 | \
         bigint: 123456789012345678901234567890 | nested: deep list: 1 | two | card number: 4111 1111 1111 1111 | \
         empty obj:  | empty list: "
    );
    let deep = text_of("edge_deep_nesting", 0);
    assert!(deep.starts_with("k: k: k: ") && !deep.contains(" | "), "{deep}");
}

#[test]
fn nesting_up_to_the_bound_parses_and_flattens_and_deeper_is_refused() {
    // The content starts at level 4 (top object, events array, event object).
    let deepest = MAX_NESTING - 3;
    let arrays = |depth: usize| {
        format!(
            r#"{{"run_id": "deep", "events": [{{"channel": "log", "content": {}"mail a@b.io", 1e-07{}}}]}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        )
    };
    let doc = arrays(deepest);
    let trace = parse_trace(doc.as_bytes()).expect("deep trace parses");
    assert_eq!(&*trace.events[0].text, "mail a@b.io | 1e-07");
    // The tree parser and the streaming trace parser agree on the text.
    let tree = parse_json(doc.as_bytes()).expect("deep document parses");
    let content = match &tree {
        PyValue::Object(top) => match &top[1].1 {
            PyValue::Array(events) => match &events[0] {
                PyValue::Object(fields) => fields[1].1.clone(),
                other => panic!("event is {other:?}"),
            },
            other => panic!("events is {other:?}"),
        },
        other => panic!("document is {other:?}"),
    };
    assert_eq!(flatten(&content), &*trace.events[0].text);
    let copy = trace.clone();
    assert!(copy == trace);
    drop(copy);
    drop(trace);

    let objects = |depth: usize| {
        format!(
            r#"{{"events": [{{"channel": "log", "content": {}"x"{}}}]}}"#,
            r#"{"user_id": "#.repeat(depth),
            "}".repeat(depth)
        )
    };
    let trace = parse_trace(objects(deepest).as_bytes()).expect("deep objects parse");
    assert_eq!(trace.events[0].text.len(), deepest * "user id: ".len() + 1);

    // Python's json crashes (RecursionError) near 1 000 levels; 100 000 is
    // refused at the first bracket beyond the bound.
    let prefix = r#"{"run_id": "deep", "events": [{"channel": "log", "content": "#.len();
    for (doc, column) in [(arrays(100_000), prefix + deepest + 1), (arrays(deepest + 1), prefix + deepest + 1)] {
        match parse_trace(doc.as_bytes()) {
            Err(TraceError::Json { line: 1, column: c, message }) => {
                assert_eq!(c, column);
                assert!(message.contains("more than 20000 levels deep"), "{message}");
            }
            other => panic!("expected a nesting error, got {other:?}"),
        }
    }
    assert!(parse_trace(objects(100_000).as_bytes()).is_err());
}

#[test]
fn integers_over_4300_digits_are_rejected() {
    let trace =
        |digits: usize| format!(r#"{{"events": [{{"channel": "log", "content": {{"n": {}}}}}]}}"#, "9".repeat(digits));
    let ok = parse_trace(trace(4300).as_bytes()).expect("4300 digits are within Python's limit");
    assert_eq!(&*ok.events[0].text, format!("n: {}", "9".repeat(4300)));
    match parse_trace(trace(4301).as_bytes()) {
        Err(TraceError::Json { line: 1, column: 49, message }) => assert!(message.contains("4301 digits"), "{message}"),
        other => panic!("expected a JSON error at the integer, got {other:?}"),
    }
}
