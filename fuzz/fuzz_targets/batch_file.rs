//! Bytes → one batch file (kind told from content: trace, report,
//! scorecard or red-team JSON/JSONL) → run facts → batch summary, and the
//! summary's scorecard read back (what `agentrisk batch` does per file).
#![no_main]

use agentrisk::batch::table::{markdown_batch, rate_cells, rate_rows, run_cells, to_csv};
use agentrisk::analyser::BatchInput;
use agentrisk::batch::{channel_level_leaks, detect_kind, read_scorecard, summarize, GroupBy, Scorecard};
use agentrisk::stats::{IntervalMethod, Rate};
use agentrisk_fuzz::default_analyser;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let kind = detect_kind(data);
    let input = BatchInput { name: "fuzz/input.json", folder: "fuzz", bytes: data };
    let Ok(file) = default_analyser().read_batch_file(input) else { return };
    assert_eq!(file.kind, kind, "the kind a look at the head gives is the kind read");
    let method = IntervalMethod::new(0.95, false).expect("0.95 is a valid confidence");
    let summary = summarize(&file.runs, &file.redteam, method, Some(GroupBy::Agent));
    let summary_json = serde_json::to_string(&summary).expect("a summary serialises");
    assert_eq!(summary.runs, file.runs.len() as u64);
    for row in rate_rows(&summary) {
        check_rate(&row.rate);
        let _ = rate_cells(&row);
    }
    // The viewer adopts a scorecard's own settings when they are valid.
    if let Some(settings) = file.settings {
        if let Ok(own) = IntervalMethod::new(settings.confidence, settings.continuity_correction) {
            let summary = summarize(&file.runs, &file.redteam, own, settings.group_by);
            rate_rows(&summary).iter().for_each(|row| check_rate(&row.rate));
            let _ = markdown_batch(&summary, &own);
        }
    }
    let _ = to_csv(&["run".to_owned()], file.runs.iter().map(|r| run_cells(r)[..1].to_vec()));
    let _ = markdown_batch(&summary, &method);
    let _ = channel_level_leaks(&file.runs);
    // The scorecard of this batch reads back to the same summary.
    let scorecard = Scorecard::new(file.runs, file.redteam, method, Some(GroupBy::Agent)).to_json();
    let rows = read_scorecard(scorecard.as_bytes()).expect("our scorecard reads back");
    let again = summarize(&rows.runs, &rows.redteam_results, method, Some(GroupBy::Agent));
    assert_eq!(serde_json::to_string(&again).expect("a summary serialises"), summary_json);
});

/// k ≤ n, and a rate with trials lies in its interval, inside [0, 1].
fn check_rate(rate: &Rate) {
    assert!(rate.k <= rate.n, "{rate:?}");
    match (rate.rate, rate.lower, rate.upper) {
        (None, None, None) => assert_eq!(rate.n, 0, "{rate:?}"),
        (Some(p), Some(lower), Some(upper)) => {
            assert!(0.0 <= lower && upper <= 1.0, "{rate:?}");
            assert!(lower <= p + 1e-9 && p <= upper + 1e-9, "{rate:?}");
        }
        _ => panic!("a rate with only some of its numbers: {rate:?}"),
    }
}
