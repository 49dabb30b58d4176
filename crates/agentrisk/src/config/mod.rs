//! The `agentleak.yaml` configuration (spec section 4), parsed and validated.
//!
//! Owns: turning config text into an [`AnalysisConfig`] the way the
//! reference loads it (PyYAML `safe_load`, then pydantic in lax mode), every
//! load-time error with its key path, and the checks the reference makes
//! only when a run starts ([`AnalysisConfig::check_runnable`]).
//! Leaves to others: compiling custom-rule patterns (`detect`), evaluating
//! policies and flows against findings, and scoring with the
//! [`ScoringConfig`] built here (`score`). Reading the file is the shell's job.
//!
//! Two ways to get a config, because the reference behaves differently:
//! [`AnalysisConfig::default()`] is "no config file" and
//! [`config_from_yaml`] is "this config file" — even an empty one, which
//! switches the finance and HR detectors off.

mod detection;
mod lax;
mod load;
mod policy;
mod whatif;
mod yaml;

pub use detection::{DetectionConfig, DetectionMode, DetectionStatus};
pub use load::{config_from_bytes, config_from_yaml};
pub use policy::{facet_matches, FlowRule, PolicyConfig, BUILTIN_TYPE_GROUPS};
pub use whatif::{WhatIf, WhatIfVault};
pub use yaml::{MAX_DEPTH, MAX_NODES};

/// The built-in detectors the toggles switch, by name.
pub use crate::detect::Builtin;
use crate::model::{Channel, Severity};
use crate::score::ScoringConfig;

/// Everything trace analysis needs from a config.
#[derive(Debug, Clone, PartialEq)]
pub struct AnalysisConfig {
    /// `project.name`, the report's `project`.
    pub project_name: String,
    /// `channels`: the allow-list of scanned channels. Never validated, as
    /// in the reference: an unknown name simply matches no event.
    pub channels: Vec<String>,
    pub detectors: DetectorToggles,
    /// `custom_detectors`, in config order.
    pub custom_detectors: Vec<CustomRule>,
    pub scoring: ScoringConfig,
    /// `privacy.redact_values`: false adds raw values to findings.
    pub redact_values: bool,
    /// `privacy.subject_ledger`: non-empty enables the cross-session ledger.
    pub subject_ledger: String,
    pub privacy_policy: PolicyConfig,
    pub detection: DetectionConfig,
}

/// `detectors`: the six built-in detector families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DetectorToggles {
    pub pii: bool,
    pub secrets: bool,
    pub healthcare: bool,
    pub finance: bool,
    pub hr: bool,
    pub keyname: bool,
}

impl DetectorToggles {
    /// Without a config file the reference runs every built-in detector.
    pub const ALL_ON: DetectorToggles =
        DetectorToggles { pii: true, secrets: true, healthcare: true, finance: true, hr: true, keyname: true };

    /// The defaults of a config file's `detectors:` section. Reference quirk
    /// kept on purpose: finance and HR default to off, so passing any config
    /// file — even an empty one — turns them off (conformance config
    /// `empty.yaml` against `report.default.json`).
    pub const FILE_DEFAULTS: DetectorToggles =
        DetectorToggles { pii: true, secrets: true, healthcare: true, finance: false, hr: false, keyname: true };

    /// Whether `detector` runs.
    pub fn get(&self, detector: Builtin) -> bool {
        *self.slot(detector)
    }

    /// Turns `detector` on or off.
    pub fn set(&mut self, detector: Builtin, on: bool) {
        *self.slot_mut(detector) = on;
    }

    /// Every built-in detector with whether it runs, in the reference's
    /// order ([`Builtin::ALL`]).
    pub fn iter(&self) -> impl Iterator<Item = (Builtin, bool)> + '_ {
        Builtin::ALL.into_iter().map(|b| (b, self.get(b)))
    }

    fn slot(&self, detector: Builtin) -> &bool {
        match detector {
            Builtin::Pii => &self.pii,
            Builtin::Secrets => &self.secrets,
            Builtin::Healthcare => &self.healthcare,
            Builtin::Finance => &self.finance,
            Builtin::Hr => &self.hr,
            Builtin::Keyname => &self.keyname,
        }
    }

    fn slot_mut(&mut self, detector: Builtin) -> &mut bool {
        match detector {
            Builtin::Pii => &mut self.pii,
            Builtin::Secrets => &mut self.secrets,
            Builtin::Healthcare => &mut self.healthcare,
            Builtin::Finance => &mut self.finance,
            Builtin::Hr => &mut self.hr,
            Builtin::Keyname => &mut self.keyname,
        }
    }
}

/// One `custom_detectors` rule.
#[derive(Debug, Clone, PartialEq)]
pub struct CustomRule {
    pub name: String,
    /// Python regex syntax; compiled (and rejected) by `detect` at start-up.
    pub pattern: String,
    /// As written. The reference's config model keeps a plain string and
    /// only its runner rejects an unknown name, so an unknown severity loads
    /// and fails in [`AnalysisConfig::check_runnable`]; see
    /// [`CustomRule::severity`].
    pub severity: String,
    /// Default `custom` (not the rule name: the config model fills it in).
    pub data_type: String,
    /// Clamped into [0, 1] at load; default 0.9.
    pub confidence: f64,
    pub recommendation: Option<String>,
}

impl CustomRule {
    /// The severity, case-insensitively, or the reference's start-up error.
    pub fn severity(&self) -> Result<Severity, StartupError> {
        Severity::from_name(&self.severity)
            .ok_or_else(|| StartupError::UnknownSeverity { rule: self.name.clone(), severity: self.severity.clone() })
    }
}

/// Why a config file could not be loaded (the reference exits 2). Each
/// message starts with the place: a line and column, `top level`, or the key
/// path of the value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("line {line}, column {column}: {message}")]
    Encoding { line: usize, column: usize, message: String },
    #[error("line {line}, column {column}: YAML syntax error: {message}")]
    Syntax { line: usize, column: usize, message: String },
    #[error("line {line}, column {column}: this YAML cannot be used: {message}")]
    Unsupported { line: usize, column: usize, message: String },
    #[error(
        "line {line}, column {column}: the YAML expands to more than {limit} values once its aliases (*name) \
         are expanded; a config needs far fewer, so it is refused to protect memory (this is what an alias \
         bomb looks like)"
    )]
    TooManyNodes { limit: usize, line: usize, column: usize },
    #[error(
        "line {line}, column {column}: the YAML nests lists and mappings more than {limit} levels deep; \
         a config needs only a few"
    )]
    TooDeep { limit: usize, line: usize, column: usize },
    #[error("line {line}: a second YAML document starts here; keep every section in one")]
    MultipleDocuments { line: usize },
    #[error(
        "top level: the config must be a YAML mapping of sections (such as `detectors:` or `scoring:`), \
         but it is {found}"
    )]
    NotAMapping { found: String },
    /// A value at `path` (e.g. `scoring.weights[2]`) is not acceptable.
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
}

/// Why a loaded config cannot start a run (the reference raises these when
/// its runner starts, exit 1). Invalid custom-rule patterns belong here too
/// but are found by `detect`, which compiles them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StartupError {
    #[error("detection.mode: unknown mode {0:?}; use fast, standard, hybrid or llm_only (empty means fast)")]
    UnknownMode(String),
    #[error("custom detector {rule:?}: unknown severity {severity:?}; use low, medium, high or critical")]
    UnknownSeverity { rule: String, severity: String },
}

/// The eight channel names, the default scanned set.
fn all_channel_names() -> Vec<String> {
    Channel::ALL.iter().map(|c| c.as_str().to_owned()).collect()
}

impl Default for AnalysisConfig {
    /// No config file: every built-in detector on, reference defaults.
    fn default() -> AnalysisConfig {
        AnalysisConfig {
            project_name: "agentleak-project".to_owned(),
            channels: all_channel_names(),
            detectors: DetectorToggles::ALL_ON,
            custom_detectors: Vec::new(),
            scoring: ScoringConfig::default(),
            redact_values: true,
            subject_ledger: String::new(),
            privacy_policy: PolicyConfig::default(),
            detection: DetectionConfig::default(),
        }
    }
}

impl AnalysisConfig {
    /// Whether events on this channel (as named in the trace) are scanned.
    pub fn scans_channel(&self, channel: &str) -> bool {
        self.channels.iter().any(|c| c == channel)
    }

    /// The checks the reference makes only when a run starts: the detection
    /// mode, then each custom rule's severity (which of the two the
    /// reference reports first when both are wrong is not pinned by the
    /// corpus). Returns the detection mode.
    pub fn check_runnable(&self) -> Result<DetectionMode, StartupError> {
        let mode = self.detection.mode()?;
        for rule in &self.custom_detectors {
            rule.severity()?;
        }
        Ok(mode)
    }

    /// Detection tiers, warnings and `degraded` for a run (spec 3.12).
    pub fn detection_status(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<DetectionStatus, StartupError> {
        self.detection.status(env)
    }

    /// The report's `warnings`: tiers the config asked for that did not run.
    pub fn detection_warnings(&self, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<String>, StartupError> {
        self.detection_status(env).map(|s| s.warnings)
    }
}

#[cfg(test)]
mod tests;
