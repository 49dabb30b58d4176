//! What-if settings: the scoring and detector parts of a config that a
//! reviewer changes by hand, written as an `agentleak.yaml` and read back
//! from one. Writing YAML and loading it with [`config_from_yaml`] is the
//! one way such settings become an [`AnalysisConfig`], so a hand-made
//! setting is checked, with the same messages naming the key, exactly as a
//! config file would be — and the exported file gives the CLI the same
//! numbers.

use super::{config_from_yaml, AnalysisConfig, ConfigError, DetectorToggles};
use crate::score::VaultConfig;

/// The vault a what-if run scores against.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum WhatIfVault {
    /// The secrets observed in the run (the reference's default).
    Observed,
    /// Counts of secrets per level L1..L4.
    Levels([i64; 4]),
    /// A raw ρ_S.
    RhoS(i64),
}

/// The settings of the what-if panel.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WhatIf {
    pub weights: [i64; 4],
    /// Data type → level, in the order given.
    pub level_overrides: Vec<(String, i64)>,
    pub vault: WhatIfVault,
    /// The report's `scope_def` when a vault is set; empty for the default.
    pub scope_def: String,
    pub fail_below: i64,
    pub block_on_critical: bool,
    pub detectors: DetectorToggles,
}

impl WhatIf {
    /// What differs from the reference's defaults, in a few words (the
    /// viewer's printed header, a published site's config summary).
    pub fn describe(&self) -> String {
        let w = self;
        let d = WhatIf::reference_defaults();
        let mut parts = Vec::new();
        if w.weights != d.weights {
            parts.push(format!("weights {:?}", w.weights));
        }
        if !w.level_overrides.is_empty() {
            parts.push(format!("{} level overrides", w.level_overrides.len()));
        }
        match &w.vault {
            WhatIfVault::Observed => {}
            WhatIfVault::Levels(l) => parts.push(format!("vault of {:?} secrets per level", l)),
            WhatIfVault::RhoS(r) => parts.push(format!("vault ρ_S {r}")),
        }
        if w.fail_below != d.fail_below {
            parts.push(format!("block below {}", w.fail_below));
        }
        if !w.block_on_critical {
            parts.push("no block on L4".to_owned());
        }
        if w.detectors != d.detectors {
            parts.push("detectors changed".to_owned());
        }
        if parts.is_empty() {
            parts.push("scored as with a config file".to_owned());
        }
        format!("{}.", parts.join(", "))
    }

    /// The reference's defaults with no config file: weights 1..4, the
    /// observed vault, fail below 40, block on L4, every detector on.
    pub fn reference_defaults() -> WhatIf {
        WhatIf {
            weights: [1, 2, 3, 4],
            level_overrides: Vec::new(),
            vault: WhatIfVault::Observed,
            scope_def: String::new(),
            fail_below: 40,
            block_on_critical: true,
            detectors: DetectorToggles::ALL_ON,
        }
    }

    pub fn is_reference_default(&self) -> bool {
        *self == WhatIf::reference_defaults()
    }

    /// The what-if parts of a loaded config (its other sections are left out).
    pub fn from_config(config: &AnalysisConfig) -> WhatIf {
        let scoring = &config.scoring;
        let w = scoring.weights.values();
        let (vault, scope_def) = match &scoring.vault {
            None => (WhatIfVault::Observed, String::new()),
            Some(VaultConfig { rho_s: Some(rho_s), scope_def, .. }) => {
                (WhatIfVault::RhoS(*rho_s), scope_def.clone().unwrap_or_default())
            }
            Some(VaultConfig { levels, scope_def, .. }) => {
                let mut counts = [0i64; 4];
                // Counts saturate: such a vault is refused when scored
                // (ScoringError::TooLarge), and the panel shows the bound
                // (found with the fuzz target `config_yaml`).
                for &(level, count) in levels {
                    let total = &mut counts[crate::model::Level::clamped(level).index()];
                    *total = total.saturating_add(count);
                }
                (WhatIfVault::Levels(counts), scope_def.clone().unwrap_or_default())
            }
        };
        WhatIf {
            weights: w.map(|v| v as i64),
            level_overrides: scoring.level_overrides.iter().map(|(k, v)| (k.clone(), *v)).collect(),
            vault,
            scope_def,
            fail_below: scoring.fail_below,
            block_on_critical: scoring.block_on_critical,
            detectors: config.detectors,
        }
    }

    /// The settings as a workspace takes them: `""` for the reference's
    /// defaults (scored as with no config file, where finance and hr stay
    /// on), else [`WhatIf::to_yaml`].
    pub fn to_settings_yaml(&self) -> String {
        if self.is_reference_default() {
            String::new()
        } else {
            self.to_yaml()
        }
    }

    /// The settings as an `agentleak.yaml` (detectors, scoring and vault).
    pub fn to_yaml(&self) -> String {
        let d = self.detectors;
        let mut out = String::from("# AgentRisk Viewer what-if settings (agentleak.yaml)\n");
        out.push_str(&format!(
            "detectors: {{pii: {}, secrets: {}, healthcare: {}, finance: {}, hr: {}, keyname: {}}}\n",
            d.pii, d.secrets, d.healthcare, d.finance, d.hr, d.keyname
        ));
        let [a, b, c, e] = self.weights;
        out.push_str(&format!("scoring:\n  weights: [{a}, {b}, {c}, {e}]\n"));
        out.push_str(&format!("  fail_below: {}\n  block_on_critical: {}\n", self.fail_below, self.block_on_critical));
        if !self.level_overrides.is_empty() {
            out.push_str("  level_overrides:\n");
            for (data_type, level) in &self.level_overrides {
                out.push_str(&format!("    {}: {level}\n", quoted(data_type)));
            }
        }
        match &self.vault {
            WhatIfVault::Observed => {}
            WhatIfVault::Levels([l1, l2, l3, l4]) => {
                out.push_str(&format!("vault:\n  levels: {{1: {l1}, 2: {l2}, 3: {l3}, 4: {l4}}}\n"))
            }
            WhatIfVault::RhoS(rho_s) => out.push_str(&format!("vault:\n  rho_s: {rho_s}\n")),
        }
        if self.vault != WhatIfVault::Observed && !self.scope_def.is_empty() {
            out.push_str(&format!("  scope_def: {}\n", quoted(&self.scope_def)));
        }
        out
    }

    /// The config these settings stand for: `None` for the reference
    /// defaults (no config file at all), else the YAML loaded as a file.
    pub fn to_config(&self) -> Result<Option<AnalysisConfig>, ConfigError> {
        if self.is_reference_default() {
            return Ok(None);
        }
        config_from_yaml(&self.to_yaml()).map(Some)
    }
}

/// A YAML double-quoted scalar.
fn quoted(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_through_yaml() {
        let settings = WhatIf {
            weights: [1, 3, 9, 27],
            level_overrides: vec![("email".into(), 4), ("odd \"name\": x".into(), 0)],
            vault: WhatIfVault::Levels([10, 10, 10, 10]),
            scope_def: "explicit vault: 40 secrets".into(),
            fail_below: 60,
            block_on_critical: false,
            detectors: DetectorToggles { finance: false, ..DetectorToggles::ALL_ON },
        };
        let config = settings.to_config().unwrap().unwrap();
        assert_eq!(config.scoring.weights.values(), [1, 3, 9, 27]);
        assert_eq!(config.scoring.level_for("email").map(|l| l.get()), Some(4));
        assert!(!config.detectors.finance && config.detectors.hr);
        let back = WhatIf::from_config(&config);
        // Overrides come back in the config's (sorted) order.
        let mut expected = settings.clone();
        expected.level_overrides.sort();
        assert_eq!(back, expected);
        let rho = WhatIf { vault: WhatIfVault::RhoS(100), ..settings };
        assert_eq!(WhatIf::from_config(&rho.to_config().unwrap().unwrap()).vault, WhatIfVault::RhoS(100));
    }

    /// Fuzzing regression (`config_yaml`): level keys that clamp to one
    /// level used to overflow the summed count. Such a vault is refused when
    /// the config loads, so the panel never holds it.
    #[test]
    fn vault_counts_too_large_to_add_are_refused_when_the_config_loads() {
        let max = i64::MAX;
        for yaml in [
            format!("vault:\n  levels: {{1: {max}, 0: {max}}}\n"),
            format!("scoring: {{weights: [1, 1, 1, 1]}}\nvault: {{levels: {{5: {max}, 4: {max}}}}}\n"),
        ] {
            let error = config_from_yaml(&yaml).unwrap_err().to_string();
            assert!(error.starts_with("vault.levels: the counts are too large"), "{error}");
        }
    }

    #[test]
    fn the_defaults_are_no_config_and_bad_values_name_their_key() {
        assert_eq!(WhatIf::reference_defaults().to_config().unwrap(), None);
        let zero = WhatIf { weights: [0, 2, 3, 4], ..WhatIf::reference_defaults() };
        let message = zero.to_config().unwrap_err().to_string();
        assert!(message.starts_with("scoring.weights"), "{message}");
        // The default settings written out load as a file with every detector on.
        let config = config_from_yaml(&WhatIf::reference_defaults().to_yaml()).unwrap();
        assert_eq!(config.detectors, DetectorToggles::ALL_ON);
        assert_eq!(WhatIf::from_config(&config), WhatIf::reference_defaults());
    }
}
