//! A stored report re-scored under other scoring settings: "what would this
//! run score with these weights, this vault, this gate?"
//!
//! A report keeps what scoring needs: the level profiles of its leaked and
//! vault secrets, its leaked findings (channel, level, data type, value
//! redacted or raw) and its privacy-policy result. So new weights, a new
//! vault and a new gate apply to it exactly, as if the trace had been
//! analysed again with them. What detection decided cannot be redone: the
//! detector toggles and custom rules of a config, its level overrides (the
//! vault's unleaked secrets are not listed in a report) and its privacy
//! policy (the report's own result is kept). Each of those, when the config
//! sets it, is named in [`ReportWhatIf::notes`].

use super::rescore::leaked_secrets_in_findings;
use super::{assess_compliance, Report};
use crate::config::{AnalysisConfig, DetectorToggles, PolicyConfig};
use crate::model::{Channel, Level};
use crate::score::{
    channel_risks, channel_sums, gate, ri_from, round_dp, sorted_ri_by_channel, BlockReason, ScoringError, Secret,
    Weights, SCOPE_EXPLICIT,
};

/// A report with the numbers other settings give it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportWhatIf {
    /// The report with its headline numbers, summary, `channel_risks`,
    /// `agentrisk` block and `compliance` recomputed; everything else as stored.
    pub report: Report,
    /// Why the new gate blocks, if it does.
    pub block_reasons: Vec<BlockReason>,
    /// What the settings ask for that a report cannot show, in plain words.
    pub notes: Vec<String>,
}

/// The stored ρ_S below which a per-channel RI stored at 4 decimals gives
/// back its weighted sum unambiguously (the sums are 1/ρ_S apart).
const RECOVERABLE_RHO_S: u64 = 10_000;

/// Re-scores `report` under the scoring section of `config`, with the
/// errors a trace analysed with that config would give (an undersized or
/// empty explicit vault, a weighted sum too large).
pub fn report_what_if(report: &Report, config: &AnalysisConfig) -> Result<ReportWhatIf, ScoringError> {
    let scoring = &config.scoring;
    let mut notes = unchangeable(report, config);
    let stored_weights = report
        .agentrisk
        .as_ref()
        .and_then(|b| b.weights.as_deref())
        .and_then(|w| Weights::new(w).ok())
        .unwrap_or_default();
    let weights = scoring.weights;
    let summary = &report.summary;
    let too_large = |what| ScoringError::TooLarge { what };
    let wsl = weights.weigh(&summary.level_profile).ok_or(too_large("weighted sum of leaked secrets (WSL)"))?;

    let stored_rho_s = u64::try_from(report.rho_s).unwrap_or(0);
    let (rho_s, vault_profile, vault_count, scope_def) = match &scoring.vault {
        // The run's own vault, as the report stores it.
        None if summary.vault_level_profile.total() > 0 => (
            weights.weigh(&summary.vault_level_profile).ok_or(too_large("vault (rho_s)"))?,
            summary.vault_level_profile,
            summary.vault_secrets,
            report.scope_def.clone(),
        ),
        None => {
            // An explicit raw ρ_S (or an empty vault) leaves no profile to weigh.
            if weights != stored_weights && stored_rho_s > 0 {
                notes.push(format!(
                    "The report's vault is a raw ρ_S of {stored_rho_s} with no level profile, so new weights cannot \
                     re-weigh it; it is kept as stored."
                ));
            }
            (stored_rho_s, summary.vault_level_profile, summary.vault_secrets, report.scope_def.clone())
        }
        Some(vault) => {
            let (rho_s, profile) = vault.rho_s_and_profile(&weights)?;
            if rho_s == 0 && wsl > 0 {
                return Err(ScoringError::ZeroVault { wsl, rho_s });
            }
            if wsl > rho_s {
                return Err(ScoringError::UndersizedVault { wsl, rho_s });
            }
            let scope = vault.scope_def.clone().filter(|s| !s.is_empty()).unwrap_or_else(|| SCOPE_EXPLICIT.to_owned());
            (rho_s, profile, profile.total(), scope)
        }
    };

    let has_critical = summary.level_profile.l4 > 0;
    let policy_failed = report.privacy_policy.as_ref().is_some_and(|p| !p.passed);
    let ri = ri_from(wsl, rho_s);
    let g = gate(ri, has_critical, policy_failed, scoring);

    let channel_wsl = match separable_secrets(report, &stored_weights, stored_rho_s) {
        Some(secrets) => Some(channel_sums(&secrets, &weights)),
        None if weights == stored_weights && stored_rho_s < RECOVERABLE_RHO_S => Some(stored_channel_sums(report)),
        None => None,
    };
    let ri_by_channel: Vec<(Channel, f64)> = match channel_wsl {
        Some(sums) => sorted_ri_by_channel(&sums, rho_s),
        None => {
            notes.push(
                "Per-channel risk keeps its stored values: the report's redacted values do not tell all of its \
                 secrets apart, so the new weights cannot be applied per channel."
                    .to_owned(),
            );
            report.agentrisk.as_ref().map(|b| b.ri_by_channel.clone()).unwrap_or_default()
        }
    };
    let levels: Vec<(Channel, Level)> = report.findings.iter().map(|f| (f.channel, f.level)).collect();

    let mut out = report.clone();
    out.wsl = wsl as i64;
    out.rho_s = rho_s as i64;
    out.risk_index = g.risk_index;
    out.privacy_score = i64::from(g.privacy_score);
    out.verdict = g.verdict.as_str().to_owned();
    out.blocked = g.blocked;
    out.scope_def = scope_def.clone();
    out.summary.vault_secrets = vault_count;
    out.summary.vault_level_profile = vault_profile;
    out.channel_risks = channel_risks(&levels, &ri_by_channel);
    if let Some(block) = out.agentrisk.as_mut() {
        block.ri_global = g.risk_index;
        block.ri_by_channel = ri_by_channel.iter().map(|&(c, v)| (c, round_dp(v, 4))).collect();
        block.wsl = wsl as i64;
        block.rho_s = rho_s as i64;
        block.vault_level_profile = vault_profile;
        block.vault_count = vault_count;
        block.scope_def = scope_def;
        block.weights = Some(weights.values().iter().map(|&w| w as i64).collect());
    }
    // Compliance reads the risk index and the gate decision.
    if out.compliance.is_some() {
        out.compliance = Some(assess_compliance(&out));
    }
    Ok(ReportWhatIf { report: out, block_reasons: g.block_reasons, notes })
}

/// The parts of `config` that only detection could apply, when it sets them.
fn unchangeable(report: &Report, config: &AnalysisConfig) -> Vec<String> {
    let mut notes = Vec::new();
    let mut detection = Vec::new();
    if config.detectors != DetectorToggles::ALL_ON {
        detection.push("detector toggles");
    }
    if !config.custom_detectors.is_empty() {
        detection.push("custom detectors");
    }
    if !Channel::ALL.iter().all(|c| config.scans_channel(c.as_str())) {
        detection.push("channel list");
    }
    if !detection.is_empty() {
        notes.push(format!("The {} cannot change a report: its findings are the ones stored.", detection.join(", ")));
    }
    if !config.scoring.level_overrides.is_empty() {
        notes.push(
            "Level overrides cannot change a report: its unleaked secrets are not listed, so the vault cannot be \
             re-levelled; its levels are the ones stored."
                .to_owned(),
        );
    }
    if config.privacy_policy != PolicyConfig::default() {
        let stored = match &report.privacy_policy {
            Some(p) if !p.passed => "failed",
            _ => "passed",
        };
        notes.push(format!(
            "The privacy policy cannot be evaluated again on a report; its stored result ({stored}) is kept."
        ));
    }
    notes
}

/// The report's leaked secrets, when its findings tell them apart exactly:
/// as many secrets as `leaked_secrets`, with the stored level profile, and
/// (with the stored weights and ρ_S) the stored per-channel RI. Redaction
/// can merge two secrets with the same ends and length, and then the
/// findings cannot say which channels each one reached.
fn separable_secrets(report: &Report, stored_weights: &Weights, stored_rho_s: u64) -> Option<Vec<Secret>> {
    let (leaked, profile) = leaked_secrets_in_findings(report);
    if leaked.len() as u64 != report.summary.leaked_secrets || profile != report.summary.level_profile {
        return None;
    }
    if let Some(block) = &report.agentrisk {
        let sums = channel_sums(&leaked, stored_weights);
        let agrees = |channel: Channel, stored: f64| {
            let sum = sums.iter().find(|(c, _)| *c == channel).map_or(0, |&(_, w)| w);
            round_dp(ri_from(sum, stored_rho_s), 4) == stored
        };
        if block.ri_by_channel.len() != sums.len() || !block.ri_by_channel.iter().all(|&(c, v)| agrees(c, v)) {
            return None;
        }
    }
    Some(leaked)
}

/// The weighted sums behind the stored per-channel RI (RI × ρ_S, exact
/// below [`RECOVERABLE_RHO_S`]).
fn stored_channel_sums(report: &Report) -> Vec<(Channel, u64)> {
    let rho_s = report.rho_s.max(0) as f64;
    let stored = report.agentrisk.as_ref().map(|b| b.ri_by_channel.as_slice()).unwrap_or_default();
    stored.iter().map(|&(c, ri)| (c, (ri * rho_s).round().max(0.0) as u64)).collect()
}
