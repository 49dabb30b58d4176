//! Bytes → event texts of a valid trace → the full pipeline. Raw trace
//! bytes mostly stop in the JSON parser; this target spends its time in the
//! detectors, decoders and whole-trace passes instead.
//!
//! Input: pieces separated by 0xFF (never part of UTF-8). A piece's first
//! byte picks the channel and whether the text is a plain string or sits
//! under a sensitive-looking key; the rest is the text (lossy UTF-8).
#![no_main]

use agentrisk::analyser::Named;
use agentrisk::Channel;
use agentrisk_fuzz::{check_built_report, default_analyser, default_config, fixed_analyser, fixed_config};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const KEYS: [&str; 8] = ["email", "ssn", "api_key", "note", "password", "diagnosis", "account", "address"];

fuzz_target!(|data: &[u8]| {
    let events: Vec<Value> = data
        .split(|b| *b == 0xFF)
        .take(64)
        .enumerate()
        .map(|(i, piece)| {
            let (head, text) = piece.split_first().map_or((0, &[][..]), |(h, t)| (*h, t));
            let channel = Channel::ALL[usize::from(head) % Channel::ALL.len()];
            let text = String::from_utf8_lossy(text);
            let content = match head / 8 % 4 {
                0 | 1 => Value::String(text.into_owned()),
                2 => json!({ KEYS[usize::from(head / 32) % KEYS.len()]: text }),
                _ => json!([{ "result": text, "n": i }]),
            };
            json!({
                "event_id": format!("e{}", i % 5),
                "channel": channel.as_str(),
                "source": if head & 1 == 0 { "agent" } else { "stdout" },
                "target": if head & 2 == 0 { "user" } else { "crm" },
                "content": content,
                "metadata": if head & 4 == 0 { json!({}) } else { json!({"transform": "base64"}) },
            })
        })
        .collect();
    let doc = json!({ "run_id": "fuzz", "agent_name": "fuzzer", "events": events });
    let bytes = serde_json::to_vec(&doc).expect("a JSON value serialises");
    let trace = Named { name: "fuzz.json", bytes: &bytes };
    let report = default_analyser().trace_report(trace).expect("the defaults analyse any valid trace");
    check_built_report(&report, default_config());
    // The explicit vault can be too small for a big input: that is an error, not a crash.
    if let Ok(report) = fixed_analyser().trace_report(trace) {
        check_built_report(&report, fixed_config());
    }
});
