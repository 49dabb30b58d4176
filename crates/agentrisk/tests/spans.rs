//! The structural mapping on span exports made by real instrumentors
//! (`tests/fixtures/spans`, written by `scripts/otel-fixtures/generate.py`):
//! every planted secret is found on the channel a reviewer would name
//! (`expected.json`), and the channels the fixture says are clean hold
//! none of them.
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{Analyser, Keep, Named, NamedConfig};
use agentrisk::Channel;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spans")
}

/// Reports with raw values, so a finding can be matched to its planted value.
fn analyser() -> Analyser {
    let yaml = b"privacy:\n  redact_values: false\n";
    let config = NamedConfig::load(Named { name: "agentleak.yaml", bytes: yaml }).unwrap();
    Analyser::new().with_config(Some(config)).with_generated_at("2026-12-07T00:00:00+00:00")
}

fn channel(name: &str) -> Channel {
    serde_json::from_value(Value::from(name)).unwrap()
}

#[test]
fn planted_secrets_are_found_on_their_channels_and_clean_channels_stay_clean() {
    let expected: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("expected.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert!(expected.len() >= 19);
    let mut problems = Vec::new();
    for (file, want) in expected {
        let bytes = std::fs::read(dir().join(file)).unwrap();
        let runs = analyser().analyse_runs(file, bytes.into(), None, Keep::Trace).unwrap();
        if runs.len() as u64 != want["runs"].as_u64().unwrap() {
            problems.push(format!("{file}: {} runs, expected {}", runs.len(), want["runs"]));
        }
        for planted in want["planted"].as_array().unwrap() {
            let value = planted["value"].as_str().unwrap();
            let on = channel(planted["channel"].as_str().unwrap());
            let in_runs: Vec<_> = match planted.get("session").and_then(Value::as_str) {
                Some(session) => runs.iter().filter(|r| r.report.run_id.ends_with(&format!("#{session}"))).collect(),
                None => runs.iter().collect(),
            };
            let carried = in_runs.iter().any(|run| {
                run.trace.as_ref().unwrap().events.iter().any(|e| e.channel == on && e.text.contains(value))
            });
            // Source channels (user_input, tool_response) are not leaks: a
            // report lists findings on disclosure channels only.
            let found = !on.is_disclosure()
                || in_runs.iter().any(|run| {
                    run.report.findings.iter().any(|f| {
                        f.channel == on && f.matched_value.as_deref().is_some_and(|m| m == value || value.contains(m))
                    })
                });
            if !carried || !found {
                problems.push(format!("{file}: {value} not found on {on:?} ({})", planted["why"]));
            }
        }
        for clean in want["clean_channels"].as_array().unwrap() {
            let on = channel(clean.as_str().unwrap());
            for run in &runs {
                for e in run.trace.as_ref().unwrap().events.iter().filter(|e| e.channel == on) {
                    for planted in want["planted"].as_array().unwrap() {
                        let value = planted["value"].as_str().unwrap();
                        if e.text.contains(value) {
                            problems.push(format!("{file}: {value} on clean channel {on:?} (event {})", e.event_id));
                        }
                    }
                }
                if let Some(f) = run.report.findings.iter().find(|f| f.channel == on) {
                    problems.push(format!("{file}: a finding on clean channel {on:?}: {:?}", f.matched_value));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}
