//! A "corpus mix" AgentLeak trace of any length, for benchmarks: real event
//! shapes rather than the synthetic generator's tidy cases.
//!
//! Events are drawn in turn from the conformance corpus's own traces
//! (`tests/fixtures/conformance/cases/`: the AgentLeak examples, the
//! benchmark scenarios, the AgentDojo and PrivacyLens records; the
//! hand-built `edge_*` cases are left out, they test limits, not mixes).
//! So that the number of distinct secrets grows with the trace, as in a
//! real long run:
//!
//! * every pass over the corpus after the first gives each run of digits in
//!   an event's content a fresh value of the same length (formats kept,
//!   check digits not);
//! * every sixth event also carries a fresh secret — e-mail, SSN, a
//!   Luhn-valid card, phone, IBAN or API key — from the synthetic
//!   generator's people;
//! * every 24th pair of events re-sends one of those secrets obscured:
//!   reversed, ROT13-rotated, base64-encoded or split across two messages.
//!
//! The bytes depend only on the corpus and the event count.

use crate::synthetic::{base64, mix, reversed, rot13, Case};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The corpus folder inside this repository.
pub fn default_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance/cases")
}

/// Every event object of the corpus's traces (sorted by case name), with
/// the case families this mix draws from.
fn corpus_events(corpus: &Path) -> Result<Vec<Map<String, Value>>, String> {
    let read = |p: &Path| std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()));
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus)
        .map_err(|e| format!("{}: {e}", corpus.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            ["ex_", "bench_", "dojo_", "plens_"].iter().any(|family| name.starts_with(family))
        })
        .collect();
    cases.sort();
    let mut events = Vec::new();
    for case in cases {
        let path = case.join("trace.json");
        // A case whose trace is not a JSON object with an event list (the
        // corpus has a few on purpose) gives nothing.
        let Ok(Value::Object(mut trace)) = serde_json::from_slice::<Value>(&read(&path)?) else { continue };
        let Some(Value::Array(list)) = trace.remove("events") else { continue };
        events.extend(list.into_iter().filter_map(|e| match e {
            Value::Object(e) => Some(e),
            _ => None,
        }));
    }
    if events.is_empty() {
        return Err(format!("{}: no corpus traces with events found", corpus.display()));
    }
    Ok(events)
}

/// Gives every run of ASCII digits in the strings of `value` a fresh value
/// of the same length, from `seed` and the run itself.
fn refresh_digits(value: &mut Value, seed: u64) {
    match value {
        Value::String(s) => {
            let mut out = String::with_capacity(s.len());
            let mut run = String::new();
            let flush = |run: &mut String, out: &mut String| {
                let mut h = mix(seed ^ run.bytes().fold(0u64, |h, b| mix(h ^ u64::from(b))));
                for _ in 0..run.len() {
                    h = mix(h);
                    out.push(char::from(b'0' + (h % 10) as u8));
                }
                run.clear();
            };
            for c in s.chars() {
                if c.is_ascii_digit() {
                    run.push(c);
                } else {
                    flush(&mut run, &mut out);
                    out.push(c);
                }
            }
            flush(&mut run, &mut out);
            *s = out;
        }
        Value::Array(items) => items.iter_mut().for_each(|v| refresh_digits(v, seed)),
        Value::Object(map) => map.values_mut().for_each(|v| refresh_digits(v, seed)),
        _ => {}
    }
}

/// The planted secret number `n`: kinds in turn, people from the synthetic
/// generator (so values never repeat within a trace of realistic length).
fn planted(n: u64) -> String {
    let case = Case::new(1_000_000 + n);
    match n % 6 {
        0 => case.email,
        1 => case.ssn,
        2 => case.card,
        3 => case.phone,
        4 => case.iban,
        _ => case.api_key,
    }
}

/// Adds `secret` to an event's content: appended to text, as a `contact`
/// field of an object; other contents are left alone.
fn plant(event: &mut Map<String, Value>, secret: &str) {
    match event.get_mut("content") {
        Some(Value::String(s)) => {
            s.push_str(" Contact: ");
            s.push_str(secret);
        }
        Some(Value::Object(fields)) => {
            fields.insert("contact".into(), Value::String(secret.into()));
        }
        _ => {}
    }
}

fn message(channel: &str, content: String) -> Map<String, Value> {
    let mut e = Map::new();
    e.insert("channel".into(), channel.into());
    e.insert("source".into(), "orchestrator".into());
    e.insert("target".into(), "worker".into());
    e.insert("content".into(), content.into());
    e
}

/// The trace of `events` events drawn from the corpus at `corpus`, as
/// compact JSON bytes.
pub fn trace_json(corpus: &Path, events: usize) -> Result<Vec<u8>, String> {
    let pool = corpus_events(corpus)?;
    let mut out = Vec::with_capacity(events);
    for i in 0..events as u64 {
        let slot = i % 24;
        // Slots 19 and 20 of every 24 re-send the secret planted in slot 3.
        let source = planted(i / 24 * 4);
        let mut event = match (slot, (i / 24) % 4) {
            (19, 0) => message("inter_agent_message", format!("reversed: {}", reversed(&source))),
            (19, 1) => message("inter_agent_message", format!("rot: {}", rot13(&source))),
            (19, 2) => message("log", format!("payload={}", base64(source.as_bytes()))),
            (19, 3) => message("tool_call", format!("part one {}", &source[..source.len() / 2])),
            (20, 3) => message("tool_call", format!("part two {}", &source[source.len() / 2..])),
            _ => {
                let pass = i / pool.len() as u64;
                let mut event = pool[(i % pool.len() as u64) as usize].clone();
                if pass > 0 {
                    if let Some(content) = event.get_mut("content") {
                        refresh_digits(content, pass);
                    }
                }
                if slot % 6 == 3 {
                    plant(&mut event, &planted(i / 6));
                }
                event
            }
        };
        event.insert("event_id".into(), format!("evt_{:06}", i + 1).into());
        out.push(Value::Object(event));
    }
    let trace = serde_json::json!({
        "run_id": format!("corpus_mix_{events}"),
        "agent_name": "corpus_mix",
        "scenario_id": "corpus_mix_bench",
        "task_success": true,
        "timestamp": "2026-07-01T09:00:00Z",
        "events": out,
    });
    serde_json::to_vec(&trace).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_change_but_keep_their_shape() {
        let mut v = serde_json::json!({"ssn": "123-45-6789", "n": ["call 555 0100"], "k": 7});
        refresh_digits(&mut v, 1);
        let ssn = v["ssn"].as_str().unwrap();
        assert_ne!(ssn, "123-45-6789");
        assert_eq!(ssn.len(), 11);
        assert_eq!(&ssn[3..4], "-");
        assert!(v["n"][0].as_str().unwrap().starts_with("call "));
        assert_eq!(v["k"], 7, "numbers that are not strings stay");
    }

    #[test]
    fn mix_is_deterministic_and_its_secrets_grow_with_the_trace() {
        let corpus = default_corpus();
        let a = trace_json(&corpus, 2400).unwrap();
        assert_eq!(a, trace_json(&corpus, 2400).unwrap());
        let v: serde_json::Value = serde_json::from_slice(&a).unwrap();
        assert_eq!(v["events"].as_array().unwrap().len(), 2400);
        let analyser = agentrisk::analyser::Analyser::new();
        let analyze = |events: usize| {
            let bytes = trace_json(&corpus, events).unwrap();
            analyser.trace_report(agentrisk::analyser::Named { name: "mix.json", bytes: &bytes }).unwrap()
        };
        let (small, large) = (analyze(1200), analyze(4800));
        let growth = large.summary.leaked_secrets as f64 / small.summary.leaked_secrets as f64;
        assert!(growth > 3.0, "distinct secrets grew {growth}×");
        for label in ["reversed", "rot13-rotated", "base64-encoded", "split across messages"] {
            assert!(
                large.findings.iter().any(|f| f.recommendation.to_lowercase().contains(label)),
                "no {label} copy found"
            );
        }
    }
}
