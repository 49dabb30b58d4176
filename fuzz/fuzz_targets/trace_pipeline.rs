//! Trace bytes → parse → analyse → score → JSON report, with no config and
//! with a small fixed one (what `agentrisk run` and the viewer's worker do).
#![no_main]

use agentrisk::analyser::Named;
use agentrisk_fuzz::{check_built_report, default_analyser, default_config, fixed_analyser, fixed_config};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for (analyser, config) in [(default_analyser(), default_config()), (fixed_analyser(), fixed_config())] {
        if let Ok(report) = analyser.trace_report(Named { name: "fuzz.json", bytes: data }) {
            check_built_report(&report, config);
        }
    }
});
