//! Bytes → a span export (OTLP JSON, JSON Lines, span list) → runs under
//! both mappings → reports, and each run's converted AgentLeak trace read
//! back (what `agentrisk run` and the viewer's Export do with span files).
#![no_main]

use agentrisk::analyser::Keep;
use agentrisk::spans::{runs_from_spans, sniff, trace_json, SpanMapping};
use agentrisk::trace::parse_trace;
use agentrisk_fuzz::default_analyser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if sniff(data).is_none() {
        return;
    }
    for mapping in [SpanMapping::Structural, SpanMapping::Reference] {
        let Ok(runs) = runs_from_spans(data, "fuzz.otlp", mapping) else { continue };
        assert!(!runs.is_empty(), "a readable export with spans gives at least one run");
        if mapping == SpanMapping::Reference {
            assert_eq!(runs.len(), 1, "the reference mapping makes one trace of the file");
        }
        let spans: u64 = runs.iter().map(|r| r.source.spans).sum();
        assert!(spans >= runs.len() as u64);
        for run in &runs {
            // The converted trace is an AgentLeak trace with the same events.
            let back = parse_trace(trace_json(&run.trace).as_bytes()).expect("a converted trace reads back");
            assert_eq!(back.events.len(), run.trace.events.len());
            for (a, b) in back.events.iter().zip(&run.trace.events) {
                assert_eq!((a.channel, &*a.text), (b.channel, &*b.text));
            }
        }
        let analysed = default_analyser()
            .clone()
            .with_span_mapping(mapping)
            .analyse_runs("fuzz.otlp.json", data.into(), None, Keep::ReportOnly);
        if let Ok(analysed) = analysed {
            assert_eq!(analysed.len(), runs.len());
            for a in &analysed {
                assert_eq!(a.report.span_source.as_ref().map(|s| s.mapping), Some(mapping));
            }
        }
    }
});
