//! Patterns compiled by one thread while another analyses, in a fresh
//! process: both must finish. The screen used to be built with the pool's
//! threads from inside its once-only initialiser, so a thread outside the
//! pool that started building it waited on the pool, while the pool's
//! threads, busy with another analysis, waited on that initialiser: a
//! deadlock (seen in the `properties` tests).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::Analyser;
use agentrisk::detect::ScreenedText;
use agentrisk::workspace::FileResult;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn a_text_screened_while_a_trace_is_analysed_from_cold_both_finish() {
    let events: Vec<serde_json::Value> = (0..5_000)
        .map(|i| serde_json::json!({"channel": "log", "content": format!("mail user{i}@example.com, call 555-01{:02}", i % 100)}))
        .collect();
    let bytes = serde_json::to_vec(&serde_json::json!({"run_id": "cold", "events": events})).unwrap();
    let (done, finished) = mpsc::channel();
    // Outside the pool, this thread builds the screen first...
    let screened = done.clone();
    std::thread::spawn(move || {
        drop(ScreenedText::new("ana.lima@example.org"));
        screened.send("screened").unwrap();
    });
    // ... while the pool's threads take this trace's events and need it.
    std::thread::sleep(Duration::from_millis(20));
    std::thread::spawn(move || {
        let result =
            Analyser::new().with_generated_at("2026-12-07T00:00:00Z").analyse_file(&bytes, "t.json", "", &|_| {});
        done.send(if matches!(result, FileResult::Trace(_)) { "analysed" } else { "not a trace" }).unwrap();
    });
    let mut seen: Vec<&str> =
        (0..2).map(|_| finished.recv_timeout(Duration::from_secs(90)).expect("a thread never finished")).collect();
    seen.sort_unstable();
    assert_eq!(seen, ["analysed", "screened"]);
}
