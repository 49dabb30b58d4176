//! The `detection` section (spec 3.12): which tiers a config asks for, and
//! what this regex-only port reports when it cannot provide them.

use super::StartupError;
use std::fmt;

/// `detection.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DetectionMode {
    Fast,
    Standard,
    Hybrid,
    LlmOnly,
}

impl DetectionMode {
    pub fn as_str(self) -> &'static str {
        match self {
            DetectionMode::Fast => "fast",
            DetectionMode::Standard => "standard",
            DetectionMode::Hybrid => "hybrid",
            DetectionMode::LlmOnly => "llm_only",
        }
    }

    /// The mode a config string names; `""` means fast. Exact spelling, as
    /// the reference's enum lookup is.
    pub fn from_name(name: &str) -> Option<DetectionMode> {
        match name {
            "" | "fast" => Some(DetectionMode::Fast),
            "standard" => Some(DetectionMode::Standard),
            "hybrid" => Some(DetectionMode::Hybrid),
            "llm_only" => Some(DetectionMode::LlmOnly),
            _ => None,
        }
    }

    /// Whether the mode wants the Presidio tier.
    pub fn wants_presidio(self) -> bool {
        matches!(self, DetectionMode::Standard | DetectionMode::Hybrid)
    }

    /// Whether the mode wants the LLM-judge ("semantic") tier.
    pub fn wants_judge(self) -> bool {
        matches!(self, DetectionMode::Hybrid | DetectionMode::LlmOnly)
    }

    /// In `llm_only` the reference runs neither the regex detectors nor the
    /// decoded-view pass: only canaries (and a judge) produce findings.
    pub fn runs_regex(self) -> bool {
        self != DetectionMode::LlmOnly
    }
}

impl fmt::Display for DetectionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `detection`, as far as trace analysis needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectionConfig {
    /// As written. An unknown name loads (the reference's config model keeps
    /// a plain string) and fails at run start: see [`DetectionConfig::mode`].
    pub mode: String,
    pub presidio_enabled: bool,
    pub llm_judge_enabled: bool,
    /// Environment variable holding the judge's API key.
    pub llm_judge_api_key_env: String,
}

impl Default for DetectionConfig {
    fn default() -> DetectionConfig {
        DetectionConfig {
            mode: "fast".to_owned(),
            presidio_enabled: false,
            llm_judge_enabled: false,
            llm_judge_api_key_env: "OPENAI_API_KEY".to_owned(),
        }
    }
}

/// What the report says about detection: `detection.{mode, tiers,
/// degraded}` and the top-level `warnings`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DetectionStatus {
    pub mode: DetectionMode,
    pub tiers: Vec<&'static str>,
    pub warnings: Vec<String>,
    /// Some requested tier did not run (warnings is non-empty).
    pub degraded: bool,
}

impl DetectionConfig {
    /// The configured mode, or the start-up error the reference raises.
    pub fn mode(&self) -> Result<DetectionMode, StartupError> {
        DetectionMode::from_name(&self.mode).ok_or_else(|| StartupError::UnknownMode(self.mode.clone()))
    }

    /// Tiers and warnings for this port, which has only the regex tier.
    /// `env` looks up an environment variable (the core does no I/O: the
    /// CLI passes the process environment, the browser a function that
    /// finds nothing).
    pub fn status(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<DetectionStatus, StartupError> {
        let mode = self.mode()?;
        let mut tiers = vec!["regex"];
        let mut warnings = Vec::new();
        if mode.wants_presidio() {
            if self.presidio_enabled {
                // Reference quirk kept on purpose: with `presidio.enabled` and
                // Presidio not installed (its own conformance install) it
                // builds a silent no-op detector, lists the tier and reports
                // no degradation. This port is in the same position.
                tiers.push("presidio");
            } else {
                warnings.push(format!(
                    "detection mode `{mode}` asks for the Presidio tier, but detection.presidio.enabled is false; \
                     only the regex tier ran"
                ));
            }
        }
        if self.llm_judge_enabled {
            let key = env(&self.llm_judge_api_key_env).filter(|k| !k.is_empty());
            if key.is_none() {
                warnings.push(format!(
                    "detection.llm_judge is enabled, but the environment variable {} that should hold its API key \
                     is unset or empty; the semantic tier did not run",
                    self.llm_judge_api_key_env
                ));
            } else {
                // The reference would build its judge here and call an LLM;
                // this port has none, so it reports what the reference
                // reports when building the judge fails.
                warnings.push(
                    "detection.llm_judge is enabled, but this analyser has no LLM judge; \
                     the semantic tier did not run"
                        .to_owned(),
                );
            }
        } else if mode.wants_judge() {
            warnings.push(format!(
                "detection mode `{mode}` asks for the semantic tier, but detection.llm_judge.enabled is false; \
                 no LLM judge ran"
            ));
        }
        let degraded = !warnings.is_empty();
        Ok(DetectionStatus { mode, tiers, warnings, degraded })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(mode: &str, presidio: bool, judge: bool) -> DetectionConfig {
        DetectionConfig {
            mode: mode.to_owned(),
            presidio_enabled: presidio,
            llm_judge_enabled: judge,
            ..DetectionConfig::default()
        }
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn modes_parse_exactly() {
        assert_eq!(DetectionMode::from_name(""), Some(DetectionMode::Fast));
        assert_eq!(DetectionMode::from_name("llm_only"), Some(DetectionMode::LlmOnly));
        assert_eq!(DetectionMode::from_name("Fast"), None);
        assert_eq!(
            config("bogus", false, false).mode().unwrap_err().to_string(),
            "detection.mode: unknown mode \"bogus\"; use fast, standard, hybrid or llm_only (empty means fast)"
        );
        assert!(config("bogus", false, false).status(&no_env).is_err());
        assert!(!DetectionMode::LlmOnly.runs_regex());
        assert!(DetectionMode::Hybrid.runs_regex());
    }

    #[test]
    fn fast_mode_is_regex_only_and_not_degraded() {
        for mode in ["fast", ""] {
            let s = config(mode, false, false).status(&no_env).unwrap();
            assert_eq!(
                s,
                DetectionStatus { mode: DetectionMode::Fast, tiers: vec!["regex"], warnings: vec![], degraded: false }
            );
        }
        // Presidio enabled in fast mode is simply unused.
        assert!(!config("fast", true, false).status(&no_env).unwrap().degraded);
    }

    #[test]
    fn standard_without_presidio_warns_and_with_it_lists_the_noop_tier() {
        let s = config("standard", false, false).status(&no_env).unwrap();
        assert_eq!(s.tiers, vec!["regex"]);
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("Presidio"), "{:?}", s.warnings);
        assert!(s.degraded);
        let s = config("standard", true, false).status(&no_env).unwrap();
        assert_eq!(s.tiers, vec!["regex", "presidio"]);
        assert!(s.warnings.is_empty());
        assert!(!s.degraded);
    }

    #[test]
    fn judge_warnings_follow_the_reference_order() {
        // hybrid, nothing enabled: Presidio warning, then "no judge configured".
        let s = config("hybrid", false, false).status(&no_env).unwrap();
        assert_eq!(s.warnings.len(), 2);
        assert!(s.warnings[0].contains("Presidio"));
        assert!(s.warnings[1].contains("llm_judge.enabled is false"));

        // Judge enabled, key missing (or empty).
        let empty = |_: &str| Some(String::new());
        for env in [&no_env as &dyn Fn(&str) -> Option<String>, &empty] {
            let s = config("llm_only", false, true).status(env).unwrap();
            assert_eq!(s.tiers, vec!["regex"]);
            assert_eq!(s.warnings.len(), 1);
            assert!(s.warnings[0].contains("OPENAI_API_KEY"), "{:?}", s.warnings);
        }

        // Key present: the env function is asked for the configured name.
        let mut c = config("fast", false, true);
        c.llm_judge_api_key_env = "MY_KEY".to_owned();
        let env = |name: &str| (name == "MY_KEY").then(|| "k".to_owned());
        let s = c.status(&env).unwrap();
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("no LLM judge"), "{:?}", s.warnings);
        assert!(s.degraded);
    }
}
