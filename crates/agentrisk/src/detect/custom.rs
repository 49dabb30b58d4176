//! User-defined rules (`custom_detectors` in the config): Python-syntax
//! patterns run by the same engine as the built-ins, in config order, as one
//! detector after the built-ins. Each match's whole text is the value;
//! detector name `custom:<rule name>`.
//!
//! Accepted syntax is fancy-regex's after the Python-class rewriting of
//! `pyregex`; Python-only constructs (e.g. `(?P=name)`, conditionals) are
//! rejected with the engine's message. Python reports an empty match right
//! after a non-empty one and this engine may not — only rules that can
//! match the empty string can tell.

use super::pyregex::PyRegex as Regex;
use super::{pyregex, RawMatch};
use crate::model::Severity;

/// One configured rule, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomRuleSpec {
    pub name: String,
    pub pattern: String,
    pub severity: Severity,
    pub data_type: String,
    pub confidence: f64,
    pub recommendation: Option<String>,
}

/// Why the configured custom rules cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CustomRuleError {
    /// A rule's pattern does not compile.
    #[error("custom detector {name:?}: invalid pattern {pattern:?}: {source}")]
    InvalidPattern { name: String, pattern: String, source: pyregex::PatternError },
}

#[derive(Debug, Clone)]
pub struct CustomDetector {
    rules: Vec<(CustomRuleSpec, Regex)>,
}

impl CustomDetector {
    /// Compiles every rule; an invalid pattern names its rule.
    pub fn new(specs: &[CustomRuleSpec]) -> Result<CustomDetector, CustomRuleError> {
        let rules = specs
            .iter()
            .map(|spec| {
                pyregex::compile(&spec.pattern).map(|re| (spec.clone(), re)).map_err(|source| {
                    CustomRuleError::InvalidPattern { name: spec.name.clone(), pattern: spec.pattern.clone(), source }
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(CustomDetector { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    pub fn scan(&self, text: &str, out: &mut Vec<RawMatch>) {
        for (spec, re) in &self.rules {
            for m in re.captures(text).filter_map(|c| c.get(0)) {
                out.push(RawMatch {
                    data_type: spec.data_type.clone().into(),
                    value: m.as_str().to_owned(),
                    severity: spec.severity,
                    confidence: spec.confidence.clamp(0.0, 1.0),
                    detector: format!("custom:{}", spec.name).into(),
                    recommendation: spec
                        .recommendation
                        .clone()
                        .unwrap_or_else(|| {
                            format!(
                                "Review the value flagged by the custom rule {:?} before it leaves the agent.",
                                spec.name
                            )
                        })
                        .into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error;

    fn spec(name: &str, pattern: &str) -> CustomRuleSpec {
        CustomRuleSpec {
            name: name.to_owned(),
            pattern: pattern.to_owned(),
            severity: Severity::High,
            data_type: "ticket".to_owned(),
            confidence: 0.9,
            recommendation: None,
        }
    }

    #[test]
    fn an_invalid_pattern_names_its_rule_and_keeps_the_engine_message() {
        let err = CustomDetector::new(&[spec("ok", r"TK-\d+"), spec("ticket", r"TK-(\d+")]).unwrap_err();
        let CustomRuleError::InvalidPattern { name, pattern, source } = &err;
        assert_eq!((name.as_str(), pattern.as_str()), ("ticket", r"TK-(\d+"));
        let engine = source.to_string();
        assert!(engine.contains("parenthes") || engine.contains("group"), "{engine}");
        assert_eq!(err.to_string(), format!(r#"custom detector "ticket": invalid pattern "TK-(\\d+": {engine}"#));
        assert_eq!(err.source().map(|s| s.to_string()), Some(engine));
    }

    #[test]
    fn valid_rules_scan_in_config_order() {
        let detector = CustomDetector::new(&[spec("a", r"TK-\d+"), spec("b", r"\bK\d\b")]).unwrap();
        let mut out = Vec::new();
        detector.scan("K1 then TK-42", &mut out);
        let found: Vec<(&str, &str)> = out.iter().map(|m| (&*m.detector, m.value.as_str())).collect();
        assert_eq!(found, [("custom:a", "TK-42"), ("custom:b", "K1")]);
    }
}
