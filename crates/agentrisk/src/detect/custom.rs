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

#[derive(Debug, Clone)]
pub struct CustomDetector {
    rules: Vec<(CustomRuleSpec, Regex)>,
}

impl CustomDetector {
    /// Compiles every rule; an invalid pattern names its rule.
    pub fn new(specs: &[CustomRuleSpec]) -> Result<CustomDetector, String> {
        let rules = specs
            .iter()
            .map(|spec| {
                pyregex::compile(&spec.pattern)
                    .map(|re| (spec.clone(), re))
                    .map_err(|e| format!("custom detector {:?}: invalid pattern {:?}: {e}", spec.name, spec.pattern))
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
