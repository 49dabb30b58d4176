//! Trace analysis: from a parsed trace and a configuration to the full,
//! ordered finding list (spec 2.2, 2.6–2.9).
//!
//! Per event: detectors in order, de-duplication, credential-overlap
//! suppression, decoded views; then, over the whole trace, obscured copies,
//! coalescing and the final sort. Scoring and the report are left to
//! `score` and `report`.

mod coalesce;
mod suppress;

use crate::detect::{Builtin, CustomDetector, RawMatch};
use crate::model::{Channel, Level, Severity};
use crate::pyunicode::canonical;
use crate::score::ScoringConfig;
use std::collections::HashSet;

/// Which detectors run and on which channels.
#[derive(Debug, Clone)]
pub struct DetectionSettings {
    pub builtins: Vec<Builtin>,
    pub custom: Option<CustomDetector>,
    /// Scanned channels (names; unknown names are harmless, as in the reference).
    pub channels: Vec<String>,
}

impl Default for DetectionSettings {
    /// No config file: every built-in detector on every channel.
    fn default() -> DetectionSettings {
        DetectionSettings {
            builtins: Builtin::ALL.to_vec(),
            custom: None,
            channels: Channel::ALL.iter().map(|c| c.as_str().to_owned()).collect(),
        }
    }
}

/// One finding, with the internal fields the report leaves out.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub finding_id: String,
    pub event_index: usize,
    pub event_id: String,
    pub channel: Channel,
    pub source: String,
    pub target: String,
    pub data_type: String,
    pub severity: Severity,
    pub level: Level,
    pub confidence: f64,
    pub matched_value: String,
    pub detector: String,
    pub recommendation: String,
    /// `regex`, `decoded:<t>`, `anchored:<t>`, `canary_<tier>`.
    pub tier: String,
    pub transform: Option<String>,
    pub coalesced_from: Option<String>,
}

impl Finding {
    pub fn redacted_value(&self) -> String {
        redact(&self.matched_value)
    }
}

/// The reference's redaction: up to 4 code points become that many `*`;
/// longer values keep their first and last two code points.
pub fn redact(value: &str) -> String {
    let n = value.chars().count();
    if n <= 4 {
        return "*".repeat(n);
    }
    let head: String = value.chars().take(2).collect();
    let tail: String = value.chars().skip(n - 2).collect();
    format!("{head}{}{tail}", "*".repeat(n - 4))
}

/// The AgentRisk level of a new finding (spec 2.9): override, else the
/// built-in map, else the severity's fallback.
pub fn level_of(data_type: &str, severity: Severity, scoring: &ScoringConfig) -> Level {
    if let Some(level) = scoring.level_for(data_type) {
        return level;
    }
    match crate::detect::tables::tables().data_type_levels.get(data_type) {
        Some(&l) => Level::clamped(i64::from(l)),
        None => severity.fallback_level(),
    }
}

/// The text of one event, as the pipeline sees it.
pub struct EventText<'a> {
    pub event_id: &'a str,
    pub channel: Channel,
    pub source: &'a str,
    pub target: &'a str,
    pub text: &'a str,
}

/// Runs detection over events (in trace order) and returns every finding
/// in final order.
pub fn findings_from_events(
    run_events: &[EventText<'_>],
    detection: &DetectionSettings,
    scoring: &ScoringConfig,
) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    let mut counter = 0usize;
    let mut raw: Vec<RawMatch> = Vec::new();
    for (index, event) in run_events.iter().enumerate() {
        if event.text.is_empty() || !detection.channels.iter().any(|c| c == event.channel.as_str()) {
            continue;
        }
        raw.clear();
        for builtin in &detection.builtins {
            builtin.scan(event.text, &mut raw);
        }
        if let Some(custom) = &detection.custom {
            custom.scan(event.text, &mut raw);
        }
        let mut seen: HashSet<(&str, &str)> = HashSet::new();
        let mut created: Vec<Finding> = Vec::new();
        for m in &raw {
            if !seen.insert((m.data_type.as_str(), m.value.as_str())) {
                continue;
            }
            // The number is taken now, so suppressed findings use numbers up.
            let id = format!("finding_{:03}", counter + created.len() + 1);
            created.push(Finding {
                finding_id: id,
                event_index: index,
                event_id: event.event_id.to_owned(),
                channel: event.channel,
                source: event.source.to_owned(),
                target: event.target.to_owned(),
                data_type: m.data_type.clone(),
                severity: m.severity,
                level: level_of(&m.data_type, m.severity, scoring),
                confidence: m.confidence,
                matched_value: m.value.clone(),
                detector: m.detector.clone(),
                recommendation: m.recommendation.clone(),
                tier: "regex".to_owned(),
                transform: None,
                coalesced_from: None,
            });
        }
        let kept = suppress::drop_values_inside_credentials(event.text, created);
        // Reference quirk (edge_finding_id_collision): the counter advances
        // by the findings returned, not those numbered, so ids can repeat.
        counter += kept.len();
        findings.extend(kept);
    }
    coalesce::coalesce(&mut findings);
    // Final order: level, then confidence, both descending; stable.
    findings.sort_by(|a, b| b.level.cmp(&a.level).then(b.confidence.total_cmp(&a.confidence)));
    findings
}

/// Whether `needle` occurs in `haystack` with no alphanumeric character
/// (Python `isalnum`) right before or right after it (spec 2.7).
pub fn contains_at_token_boundaries(haystack: &str, needle: &str) -> bool {
    if needle.is_empty() || needle.len() > haystack.len() {
        return false;
    }
    let alnum_at_end = |s: &str| s.chars().next_back().is_some_and(crate::pyunicode::is_alnum);
    let alnum_at_start = |s: &str| s.chars().next().is_some_and(crate::pyunicode::is_alnum);
    let mut from = 0;
    while let Some(pos) = haystack[from..].find(needle) {
        let start = from + pos;
        let end = start + needle.len();
        if !alnum_at_end(&haystack[..start]) && !alnum_at_start(&haystack[end..]) {
            return true;
        }
        // Overlapping occurrences: restart one character after this one.
        from = start + haystack[start..].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The canonical form of a finding value (spec 2.7).
pub fn canonical_value(value: &str) -> String {
    canonical(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_counts_code_points() {
        assert_eq!(redact("TREM12345678"), "TR********78");
        assert_eq!(redact("abcd"), "****");
        assert_eq!(redact(""), "");
        assert_eq!(redact("４１１１１１"), "４１**１１");
    }

    #[test]
    fn token_boundaries_use_python_alnum() {
        assert!(contains_at_token_boundaries("type 2 diabetes", "diabetes"));
        assert!(!contains_at_token_boundaries("prediabetes", "diabetes"));
        assert!(contains_at_token_boundaries("aaa a", "a"));
        assert!(!contains_at_token_boundaries("x²ab", "ab")); // ² is alphanumeric to Python
        assert!(!contains_at_token_boundaries("ab", ""));
    }
}
