//! Report bytes → load → re-score (what `agentrisk score` and the viewer
//! do with a report file), the what-if re-scoring under other weights, an
//! explicit vault and another gate, plus the read-only views of a loaded
//! report.
#![no_main]

use agentrisk::batch::RunFacts;
use agentrisk::compare::{diff, Side};
use agentrisk::config::AnalysisConfig;
use agentrisk::report::report_what_if;
use agentrisk::score::{VaultConfig, Weights};
use agentrisk::{load_report, rescore_report, ScoreRecord, ScoringConfig};
use agentrisk_fuzz::use_report;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(report) = load_report(data) else { return };
    let lenient = ScoringConfig { block_on_critical: false, fail_below: 0, ..ScoringConfig::default() };
    for config in [ScoringConfig::default(), lenient] {
        let rescore = rescore_report(&report, &config);
        assert_eq!(rescore.consistent, rescore.mismatches.is_empty());
        let record = ScoreRecord::new("fuzz.json", &report, &rescore);
        serde_json::to_string(&record).expect("a score record serialises");
        serde_json::to_string(&rescore).expect("a rescore serialises");
    }
    let mut what_if = AnalysisConfig::default();
    what_if.scoring.weights = Weights::new(&[1, 3, 9, 27]).expect("valid weights");
    what_if.scoring.fail_below = 95;
    for vault in [None, Some(VaultConfig { levels: vec![(1, 10), (4, 1_000)], ..VaultConfig::default() })] {
        what_if.scoring.vault = vault;
        if let Ok(w) = report_what_if(&report, &what_if) {
            assert_eq!(w.report.blocked, !w.block_reasons.is_empty());
            assert!(w.report.wsl <= w.report.rho_s || what_if.scoring.vault.is_none());
            serde_json::to_string(&w.report).expect("a re-scored report serialises");
        }
    }
    // Saving a loaded report and loading it again gives the same report.
    let json = serde_json::to_vec(&report).expect("a loaded report serialises");
    let again = load_report(&json).expect("a saved report loads back");
    assert_eq!(again, report, "the report changed in a JSON round trip");
    use_report(&report);
    if let Ok(facts) = RunFacts::from_report("fuzz.json", "fuzz", &report, None, report.metadata.as_ref()) {
        let runs = [facts];
        let same = diff(Side { name: "a", runs: &runs }, Side { name: "b", runs: &runs }, Default::default(), &[]);
        assert!(same.regressions.is_empty(), "a run compared with itself regressed: {:?}", same.regressions);
        let _ = (same.to_text(), same.to_markdown());
    }
});
