//! Config bytes → `agentleak.yaml` loading → the config's what-if export
//! read back → a small trace analysed with the config.
#![no_main]

use agentrisk::config::{config_from_yaml, WhatIf};
use agentrisk::analyser::Named;
use agentrisk_fuzz::{analyser, check_built_report};
use libfuzzer_sys::fuzz_target;

const TRACE: &[u8] = br#"{"run_id": "cfg", "events": [
  {"channel": "user_input", "content": "I am ana.lima@example.org, SSN 123-45-6789, case #4411"},
  {"channel": "tool_call", "source": "agent", "target": "crm", "content": {"email": "ana.lima@example.org", "card": "4111 1111 1111 1111"}},
  {"channel": "log", "source": "agent", "target": "stdout", "content": "diagnosis: type 2 diabetes; key sk-proj-abcdefghijklmnopqrstuv CANARY_42"},
  {"channel": "final_output", "content": "Done, salary $85,000 noted."}]}"#;

fuzz_target!(|data: &[u8]| {
    // Config files are read as text: bytes that are not UTF-8 never get here.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(config) = config_from_yaml(text) else { return };
    let what_if = WhatIf::from_config(&config);
    let exported = what_if.to_yaml();
    let reloaded = what_if.to_config().unwrap_or_else(|e| panic!("the what-if export does not load: {e}\n{exported}"));
    if let Some(reloaded) = reloaded {
        assert_eq!(WhatIf::from_config(&reloaded), what_if, "the what-if settings changed in a YAML round trip");
    }
    if let Ok(report) = analyser(&config).trace_report(Named { name: "cfg.json", bytes: TRACE }) {
        check_built_report(&report, &config);
    }
});
