//! The view in the URL hash: tab, selected run (by file name, and for a span
//! export's later runs their place), batch settings and what-if settings,
//! so that a link reopens the same view once the same files are loaded.
//! Only names the reviewer chose and settings go in; nothing read from a
//! file (no run id, conversation id, value or text) ever does.
//!
//! Form: `#tab=batch&src=reports/run.json&run=hr.json&nth=2&conf=0.9&cc=1&group=agent&thr=25&w=1,3,9,27&fail=60&l4=0&det=pii,secrets&vault=levels:10,10,10,10&scope=…&ov=email:4;person_name:3`,
//! then the findings filters chosen from lists (`fch`, `flv`, `fty`,
//! `fdet`), every part optional, values percent-encoded. Typed search text
//! (the search box, source or target) stays out: it is often a value copied
//! from the trace, and a URL ends up in histories and shared links.

use crate::state::{BatchSettings, FindingFilters, Tab, ViewState};
use agentrisk::batch::{GroupBy, Reading};
use agentrisk::config::Builtin;
use agentrisk::config::{DetectorToggles, WhatIf, WhatIfVault};
use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// The hash for `view` (without the leading `#`); defaults are left out.
pub fn to_hash(view: &ViewState) -> String {
    let mut parts: Vec<(&str, String)> = Vec::new();
    match view.tab {
        Tab::Runs => {}
        Tab::Batch => parts.push(("tab", "batch".into())),
        Tab::Compare => parts.push(("tab", "compare".into())),
        Tab::Trend => parts.push(("tab", "trend".into())),
        Tab::Scoring => parts.push(("tab", "scoring".into())),
    }
    for src in &view.src {
        parts.push(("src", src.clone()));
    }
    if let Some(run) = &view.run {
        parts.push(("run", run.clone()));
        if view.run_place > 0 {
            parts.push(("nth", (view.run_place + 1).to_string()));
        }
    }
    let (b, d) = (&view.batch, BatchSettings::default());
    if b.confidence != d.confidence {
        parts.push(("conf", b.confidence.to_string()));
    }
    if b.continuity_correction {
        parts.push(("cc", "1".into()));
    }
    if let Some(group) = b.group_by {
        parts.push(("group", group.as_str().into()));
    }
    if b.threshold != d.threshold {
        parts.push(("thr", (b.threshold * 100.0).to_string()));
    }
    if b.reading == Reading::AsReviewed {
        parts.push(("rates", "reviewed".into()));
    }
    let (w, d) = (&view.whatif, WhatIf::reference_defaults());
    if w.weights != d.weights {
        parts.push(("w", w.weights.map(|v| v.to_string()).join(",")));
    }
    if w.fail_below != d.fail_below {
        parts.push(("fail", w.fail_below.to_string()));
    }
    if !w.block_on_critical {
        parts.push(("l4", "0".into()));
    }
    if w.detectors != d.detectors {
        let on: Vec<&str> = w.detectors.iter().filter(|(_, on)| *on).map(|(d, _)| d.key()).collect();
        parts.push(("det", if on.is_empty() { "none".to_owned() } else { on.join(",") }));
    }
    match &w.vault {
        WhatIfVault::Observed => {}
        WhatIfVault::Levels(l) => parts.push(("vault", format!("levels:{}", l.map(|v| v.to_string()).join(",")))),
        WhatIfVault::RhoS(r) => parts.push(("vault", format!("rho:{r}"))),
    }
    if !w.scope_def.is_empty() {
        parts.push(("scope", w.scope_def.clone()));
    }
    if !w.level_overrides.is_empty() {
        let list: Vec<String> = w.level_overrides.iter().map(|(t, l)| format!("{t}:{l}")).collect();
        parts.push(("ov", list.join(";")));
    }
    let f = &view.filters;
    for (key, value) in [("fch", &f.channel), ("flv", &f.level), ("fty", &f.data_type), ("fdet", &f.detector)] {
        if !value.is_empty() {
            parts.push((key, value.clone()));
        }
    }
    parts.iter().map(|(k, v)| format!("{k}={}", encode(v))).collect::<Vec<_>>().join("&")
}

/// The view a hash describes; unreadable parts keep their defaults.
pub fn from_hash(hash: &str) -> ViewState {
    let mut view = ViewState {
        tab: Tab::Runs,
        run: None,
        run_place: 0,
        batch: BatchSettings::default(),
        whatif: WhatIf::reference_defaults(),
        src: Vec::new(),
        filters: FindingFilters::default(),
    };
    for part in hash.trim_start_matches('#').split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let value = decode(value);
        let ints = |text: &str| text.split(',').map(|v| v.trim().parse::<i64>().ok()).collect::<Option<Vec<i64>>>();
        match key {
            "tab" => {
                view.tab = match value.as_str() {
                    "batch" => Tab::Batch,
                    "compare" => Tab::Compare,
                    "trend" => Tab::Trend,
                    "scoring" => Tab::Scoring,
                    _ => Tab::Runs,
                }
            }
            "run" if !value.is_empty() => view.run = Some(value),
            "nth" => {
                if let Some(nth) = value.parse::<usize>().ok().filter(|n| (1..=1_000_000).contains(n)) {
                    view.run_place = nth - 1;
                }
            }
            "src" if !value.is_empty() => view.src.push(value),
            "conf" => {
                if let Some(c) = value.parse::<f64>().ok().filter(|c| *c > 0.0 && *c < 1.0) {
                    view.batch.confidence = c;
                }
            }
            "cc" => view.batch.continuity_correction = value == "1",
            "rates" if value == "reviewed" => view.batch.reading = Reading::AsReviewed,
            "group" => view.batch.group_by = GroupBy::from_name(&value),
            "thr" => {
                if let Some(t) = value.parse::<f64>().ok().filter(|t| (0.0..=100.0).contains(t)) {
                    view.batch.threshold = t / 100.0;
                }
            }
            "w" => {
                if let Some(&[a, b, c, d]) = ints(&value).as_deref() {
                    view.whatif.weights = [a, b, c, d];
                }
            }
            "fail" => {
                if let Ok(f) = value.parse() {
                    view.whatif.fail_below = f;
                }
            }
            "l4" => view.whatif.block_on_critical = value != "0",
            "det" => {
                let on: Vec<&str> = value.split(',').collect();
                let mut detectors = DetectorToggles::ALL_ON;
                for detector in Builtin::ALL {
                    detectors.set(detector, on.contains(&detector.key()));
                }
                view.whatif.detectors = detectors;
            }
            "vault" => {
                if let Some(levels) = value.strip_prefix("levels:") {
                    if let Some(&[a, b, c, d]) = ints(levels).as_deref() {
                        view.whatif.vault = WhatIfVault::Levels([a, b, c, d]);
                    }
                } else if let Some(r) = value.strip_prefix("rho:").and_then(|r| r.parse().ok()) {
                    view.whatif.vault = WhatIfVault::RhoS(r);
                }
            }
            "scope" => view.whatif.scope_def = value,
            "fch" => view.filters.channel = value,
            "flv" => view.filters.level = value,
            "fty" => view.filters.data_type = value,
            "fdet" => view.filters.detector = value,
            "ov" => {
                view.whatif.level_overrides = value
                    .split(';')
                    .filter_map(|pair| {
                        let (t, l) = pair.rsplit_once(':')?;
                        Some((t.to_owned(), l.parse().ok()?))
                    })
                    .collect();
            }
            _ => {}
        }
    }
    view
}

/// What a hash value keeps as it is: the unreserved characters and `,:;`,
/// which separate list items in a value; everything else is percent-encoded.
const KEPT: &AsciiSet =
    &NON_ALPHANUMERIC.remove(b'-').remove(b'_').remove(b'.').remove(b'~').remove(b',').remove(b':').remove(b';');

fn encode(text: &str) -> String {
    utf8_percent_encode(text, KEPT).to_string()
}

/// A hash value decoded; a `%` not followed by two hex digits stays as it
/// is, and bytes that are no UTF-8 become U+FFFD.
fn decode(text: &str) -> String {
    percent_decode_str(text).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_view_survives_the_hash() {
        let view = ViewState {
            tab: Tab::Batch,
            run: Some("nightly/hr run #2 & more.json".into()),
            run_place: 2,
            batch: BatchSettings {
                confidence: 0.9,
                continuity_correction: true,
                group_by: Some(GroupBy::Agent),
                threshold: 0.25,
                reading: Reading::AsReviewed,
            },
            whatif: WhatIf {
                weights: [1, 3, 9, 27],
                level_overrides: vec![("email".into(), 4), ("person_name".into(), 3)],
                vault: WhatIfVault::Levels([10, 10, 10, 10]),
                scope_def: "40 secrets; audited".into(),
                fail_below: 60,
                block_on_critical: false,
                detectors: DetectorToggles { finance: false, ..DetectorToggles::ALL_ON },
            },
            src: vec!["reports/run 1.json".into(), "reports/run2.json".into()],
            filters: FindingFilters { channel: "log".into(), detector: "pii".into(), ..FindingFilters::default() },
        };
        let hash = to_hash(&view);
        assert!(
            hash.starts_with(
                "tab=batch&src=reports%2Frun%201.json&src=reports%2Frun2.json&run=nightly%2Fhr%20run%20%232%20%26%20more.json&nth=3&conf=0.9&cc=1&group=agent&thr=25&rates=reviewed&w=1,3,9,27"
            ),
            "{hash}"
        );
        assert_eq!(from_hash(&format!("#{hash}")), view);
        for (tab, word) in [(Tab::Compare, "compare"), (Tab::Trend, "trend"), (Tab::Scoring, "scoring")] {
            let hash = to_hash(&ViewState { tab, ..from_hash("") });
            assert_eq!(hash, format!("tab={word}"));
            assert_eq!(from_hash(&hash).tab, tab);
        }
    }

    #[test]
    fn typed_search_text_never_goes_into_the_hash() {
        let filters = FindingFilters {
            level: "L4".into(),
            party: "Jean Tremblay".into(),
            search: "123-456-789".into(),
            regex: true,
            ..FindingFilters::default()
        };
        let hash = to_hash(&ViewState { filters, ..from_hash("") });
        assert_eq!(hash, "flv=L4");
        assert_eq!(
            from_hash("#flv=L4&fq=123-456-789&fpt=Jean&fre=1").filters,
            FindingFilters { level: "L4".into(), ..FindingFilters::default() }
        );
    }

    #[test]
    fn defaults_make_an_empty_hash_and_junk_is_ignored() {
        let defaults = from_hash("");
        assert_eq!(to_hash(&defaults), "");
        assert_eq!(defaults.whatif, WhatIf::reference_defaults());
        let junk = from_hash("#conf=7&w=1,2&thr=abc&vault=levels:1&tab=nope&x=%zz&nth=0&nth=-1");
        assert_eq!(junk, defaults);
    }
}
