//! Trace bytes → parse → analyse → score → JSON report, with no config and
//! with a small fixed one (what `agentrisk run` and the viewer's worker do).
#![no_main]

use agentrisk::pipeline::report_from_trace;
use agentrisk::trace::parse_trace;
use agentrisk_fuzz::{check_built_report, default_config, fixed_config, input};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(trace) = parse_trace(data) else { return };
    for config in [default_config(), fixed_config()] {
        if let Ok(report) = report_from_trace(&trace, &input(config)) {
            check_built_report(&report, config);
        }
    }
});
