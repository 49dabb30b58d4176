//! What a viewer lists of an analysed trace: its events with their text
//! masked, the link between findings and events, and the full values a
//! reviewer may ask to see. Built once per analysis, from the trace and
//! the unredacted report, so that no shell ever runs a detector to mask text.

use super::{AnalyzedTrace, EventRow, SpanRef, TextPart, EVENT_LIMIT, FINDING_LIMIT, TEXT_LIMIT};
use crate::analyze::redact;
use crate::batch::RunFacts;
use crate::model::{Compliance, Report};
use crate::pipeline::detection_settings;
use crate::review::RunSecrets;
use crate::score::BlockReason;
use crate::trace::{Event, Trace};
use crate::{config::AnalysisConfig, Channel};
use aho_corasick::{AhoCorasick, MatchKind};
use std::collections::{BTreeMap, HashMap};

/// How far past [`TEXT_LIMIT`] the detectors look, so that a value
/// straddling the cut is found whole.
const SCAN_MARGIN: usize = 200;

/// The viewer's side of an analysed trace. `report` still carries each
/// finding's raw value (`matched_value`); they are taken out here: into the
/// masks, and into [`AnalyzedTrace::values`] for the listed findings.
pub(super) fn analyzed_trace(
    mut report: Report,
    trace: &Trace,
    config: &AnalysisConfig,
    facts: RunFacts,
    block_reasons: Vec<BlockReason>,
) -> AnalyzedTrace {
    // The run as a review sees it, from the report the config gives: with
    // raw values only when the config keeps them (as `agentrisk run` writes it).
    let keep_raw = !config.redact_values;
    let secrets_of = |report: &Report| RunSecrets::of_report(report, &config.scoring);
    let with_raw_values = keep_raw.then(|| secrets_of(&report));
    let mut leaked: Vec<(String, String)> = Vec::new();
    let mut values = HashMap::new();
    let mut every_value_known = true;
    for (i, finding) in report.findings.iter_mut().enumerate() {
        match finding.matched_value.take() {
            Some(value) if !value.is_empty() => {
                if i < FINDING_LIMIT {
                    values.insert(finding.finding_id.clone(), value.clone());
                }
                leaked.push((value, finding.redacted_value.clone()))
            }
            Some(_) => {}
            None => every_value_known = false,
        }
    }
    let secrets = with_raw_values.unwrap_or_else(|| secrets_of(&report));
    let listed = &trace.events[..trace.events.len().min(EVENT_LIMIT)];
    let masks = if every_value_known { Masks::new(leaked, detected_values(listed, config)) } else { None };
    let text_withheld = masks.is_none();
    let mut findings_by_event: HashMap<(&str, Channel), Vec<String>> = HashMap::new();
    for f in &report.findings {
        findings_by_event.entry((&*f.event_id, f.channel)).or_default().push(f.finding_id.clone());
    }
    let events: Vec<EventRow> = listed
        .iter()
        .map(|event| EventRow {
            event_id: event.event_id.to_string(),
            channel: event.channel,
            source: event.source.to_string(),
            target: event.target.to_string(),
            text: masks.as_ref().map(|m| m.shown_text(&event.text)).unwrap_or_default(),
            text_chars: event.text.chars().count(),
            finding_ids: findings_by_event.get(&(&*event.event_id, event.channel)).cloned().unwrap_or_default(),
            span: SpanRef::of(event),
        })
        .collect();
    let (findings_total, control_findings) = list_findings(&mut report);
    AnalyzedTrace {
        control_findings,
        block_reasons,
        events,
        events_total: trace.events.len(),
        text_withheld,
        values,
        report,
        findings_total,
        facts,
        canaries: None,
        secrets,
        review: None,
    }
}

/// Cuts the report's findings to the listed ones; returns how many it had,
/// and how many each compliance control cites.
pub(super) fn list_findings(report: &mut Report) -> (usize, BTreeMap<String, usize>) {
    let total = report.findings.len();
    report.findings.truncate(FINDING_LIMIT);
    // Leak paths grow with the secrets and their copies; a viewer lists a
    // bounded number, each with its first steps.
    if let Some(paths) = report.leak_paths.as_mut() {
        paths.truncate(super::LEAK_PATH_LIMIT);
        for path in paths {
            path.steps.truncate(super::LEAK_STEP_LIMIT);
        }
    }
    let control_findings = report.compliance.as_mut().map(cut_evidence).unwrap_or_default();
    (total, control_findings)
}

/// Compliance evidence names every finding per control and per evidence
/// row: about half of a large report (32 MB for 100 000 events). A viewer
/// shows a count per control, so counts go instead of the lists; returns
/// them by control id.
fn cut_evidence(compliance: &mut Compliance) -> BTreeMap<String, usize> {
    compliance.evidence_matrix = Vec::new();
    let mut control_findings = BTreeMap::new();
    for control in compliance.frameworks.iter_mut().flat_map(|f| f.controls.iter_mut()) {
        control_findings.insert(control.id.clone(), control.evidence_details.finding_ids.len());
        control.evidence_details.finding_ids = Default::default();
    }
    control_findings
}

/// The compliance section of an analysed trace's listed report, as
/// [`AnalyzedTrace`] lists it (counts, not finding lists), computed again
/// from the report: the section is a function of the report alone, so a
/// viewer need not carry it while nobody looks at it. `None` when the
/// report lists only some of its findings (see [`FINDING_LIMIT`]): then
/// only the section computed from all of them is right.
pub fn listed_compliance(trace: &AnalyzedTrace) -> Option<Compliance> {
    if !trace.lists_every_finding() {
        return None;
    }
    let mut compliance = crate::report::assess_compliance(&trace.report);
    cut_evidence(&mut compliance);
    Some(compliance)
}

/// The values the config's built-in detectors find in the shown part of
/// the listed events' text: every secret of the run's vault, not only the
/// leaked ones. Only the shown part is scanned, so the cost stays bounded
/// by what a viewer lists.
fn detected_values(events: &[Event], config: &AnalysisConfig) -> Vec<String> {
    // The analysis that came before ran with this config's detection, so
    // it is runnable; were it not, no value would be found and the text
    // would still be masked for every leaked value.
    let builtins = detection_settings(config).map(|d| d.builtins).unwrap_or_default();
    let mut values = Vec::new();
    let mut matches = Vec::new();
    for event in events {
        // Screened once for every detector, as the analysis screens a text.
        let window = crate::detect::ScreenedText::new(prefix(&event.text, TEXT_LIMIT + SCAN_MARGIN));
        for detector in &builtins {
            detector.scan_screened(&window, &mut matches);
        }
        values.extend(matches.drain(..).map(|m| m.value).filter(|v| !v.is_empty()));
    }
    crate::util::sort(&mut values);
    values.dedup();
    values
}

/// The first `chars` characters of `text`.
fn prefix(text: &str, chars: usize) -> &str {
    let end = text.char_indices().nth(chars).map_or(text.len(), |(i, _)| i);
    text.get(..end).unwrap_or(text)
}

/// The values to mask in event text.
pub(crate) struct Masks {
    leaked: Finder,
    detected: Finder,
    longest_chars: usize,
}

/// Finds values ignoring ASCII case (a value seen as "Jean" is also masked
/// as "JEAN"), longest first so that a value inside a longer one is covered
/// by the longer one's mask.
struct Finder {
    finder: AhoCorasick,
    /// What replaces each value, by pattern index.
    replacements: Vec<TextPart>,
}

impl Finder {
    /// `None` when the values are too many for the automaton's size limit.
    fn new(values: Vec<(String, TextPart)>) -> Option<Finder> {
        let (values, replacements): (Vec<String>, Vec<TextPart>) = values.into_iter().unzip();
        // A contiguous NFA: the DFA the automatic choice takes for few
        // values costs more to build than a run's few texts take to search
        // (a tenth of the worker's time on a drop of small traces).
        let finder = AhoCorasick::builder()
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&values)
            .ok()?;
        Some(Finder { finder, replacements })
    }

    /// `text` cut into plain pieces and replaced values; plain pieces go
    /// through `then` for a second finder.
    fn split(&self, text: &str, out: &mut Vec<TextPart>, then: &dyn Fn(&str, &mut Vec<TextPart>)) {
        let mut at = 0;
        for found in self.finder.find_iter(text) {
            then(text.get(at..found.start()).unwrap_or(""), out);
            out.extend(self.replacements.get(found.pattern().as_usize()).cloned());
            at = found.end();
        }
        then(text.get(at..).unwrap_or(""), out);
    }
}

impl Masks {
    /// `leaked`: (raw value, redacted form) of each finding; `detected`:
    /// raw values the detectors found. `None` when they cannot be searched
    /// for, so that no text is shown rather than text with values in clear.
    pub(crate) fn new(leaked: Vec<(String, String)>, detected: Vec<String>) -> Option<Masks> {
        let longest_chars =
            leaked.iter().map(|(v, _)| v).chain(&detected).map(|v| v.chars().count()).max().unwrap_or(0);
        let leaked: BTreeMap<String, TextPart> =
            crate::util::btree_map(leaked.into_iter().map(|(v, r)| (v, TextPart::Leaked(r))));
        let detected = detected
            .into_iter()
            .filter(|v| !leaked.contains_key(v))
            .map(|v| {
                let redacted = redact(&v);
                (v, TextPart::Detected(redacted))
            })
            .collect();
        Some(Masks {
            leaked: Finder::new(leaked.into_iter().collect())?,
            detected: Finder::new(detected)?,
            longest_chars,
        })
    }

    /// The first [`TEXT_LIMIT`] characters of `text`, masked: leaked values
    /// first (so a leak always shows as one, even inside a longer detected
    /// value), then detected values in the text between them. The search
    /// looks a value's length past the cut so that a value straddling it
    /// is masked too.
    pub(crate) fn shown_text(&self, text: &str) -> Vec<TextPart> {
        let window = prefix(text, TEXT_LIMIT + self.longest_chars);
        let mut pieces = Vec::new();
        let plain = |piece: &str, out: &mut Vec<TextPart>| {
            if !piece.is_empty() {
                out.push(TextPart::Plain(piece.to_owned()));
            }
        };
        self.leaked.split(window, &mut pieces, &|gap, out| self.detected.split(gap, out, &plain));

        let mut budget = TEXT_LIMIT;
        let mut parts = Vec::with_capacity(pieces.len());
        for piece in pieces {
            if budget == 0 {
                break;
            }
            let taken: String = piece.as_str().chars().take(budget).collect();
            budget -= taken.chars().count();
            parts.push(match piece {
                TextPart::Plain(_) => TextPart::Plain(taken),
                TextPart::Leaked(_) => TextPart::Leaked(taken),
                TextPart::Detected(_) => TextPart::Detected(taken),
            });
        }
        parts
    }
}

impl SpanRef {
    /// The span an event was made from, when its metadata names one (a
    /// span export's events do; an AgentLeak trace's do not).
    fn of(event: &crate::trace::Event) -> Option<SpanRef> {
        let text = |key: &str| event.meta(key).and_then(crate::trace::PyValue::as_str).unwrap_or_default().to_owned();
        let span = SpanRef {
            name: text("span_name"),
            kind: text("span_kind"),
            span_id: text("span_id"),
            trace_id: text("trace_id"),
        };
        let from_spans =
            event.meta("span_id").is_some() || event.meta("origin").and_then(|v| v.as_str()) == Some("otel");
        from_spans.then_some(span)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn masks(leaked: &[(&str, &str)], detected: &[&str]) -> Masks {
        Masks::new(
            leaked.iter().map(|(v, r)| (v.to_string(), r.to_string())).collect(),
            detected.iter().map(|v| v.to_string()).collect(),
        )
        .expect("a small automaton builds")
    }

    #[test]
    fn values_are_masked_in_any_ascii_case_longest_first_and_leaks_before_the_rest() {
        let m = masks(
            &[("Jean", "****"), ("diabetes", "di****es")],
            &["Jean Tremblay", "Jean", "123-456-789", "Type 2 diabetes", "Maple Street"],
        );
        assert_eq!(
            m.shown_text("SIN 123-456-789 of JEAN, type 2 diabetes, 12 maple street"),
            vec![
                TextPart::Plain("SIN ".into()),
                TextPart::Detected("12*******89".into()),
                TextPart::Plain(" of ".into()),
                TextPart::Leaked("****".into()),
                TextPart::Plain(", type 2 ".into()),
                TextPart::Leaked("di****es".into()),
                TextPart::Plain(", 12 ".into()),
                TextPart::Detected("Ma********et".into()),
            ]
        );
        // A longer detected value never hides the leaked one inside it either.
        let m = masks(&[("Jean", "****")], &["Jean Tremblay"]);
        assert_eq!(m.shown_text("Jean Tremblay")[0], TextPart::Leaked("****".into()));
    }

    #[test]
    fn text_is_cut_at_the_limit_and_a_value_across_the_cut_stays_masked() {
        let text = format!("{}SECRET-VALUE tail", "é".repeat(TEXT_LIMIT - 3));
        let parts = masks(&[("SECRET-VALUE", "SE********UE")], &[]).shown_text(&text);
        let shown: String = parts.iter().map(TextPart::as_str).collect();
        assert_eq!(shown.chars().count(), TEXT_LIMIT);
        assert!(shown.ends_with("SE*"), "{shown}");
        assert!(!shown.contains("SEC"));
    }
}
