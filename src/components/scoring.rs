//! The what-if scoring panel: weights, level overrides, an explicit vault,
//! the gate and the detector toggles. Applying sends the settings to the
//! worker, which analyses every trace again; a value that is not valid gets
//! a message naming the field and changes nothing. Settings can be imported
//! from and exported as an `agentleak.yaml`.

use crate::components::download::download;
use crate::components::small_file::{on_small_file, open_file_input};
use agentrisk::config::Builtin;
use agentrisk::config::{DetectorToggles, WhatIf, WhatIfVault};
use web_sys::{HtmlInputElement, HtmlSelectElement, HtmlTextAreaElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ScoringProps {
    /// The settings in force.
    pub applied: WhatIf,
    /// The worker's refusal of the last settings sent, if any.
    pub rejected: Option<String>,
    pub on_apply: Callback<WhatIf>,
    /// An imported `agentleak.yaml`: its name and bytes, for the worker to
    /// check and apply.
    pub on_import: Callback<(String, Vec<u8>)>,
}

/// The form as typed: text, so that a bad value can be named before use.
#[derive(Clone, PartialEq)]
struct Form {
    weights: [String; 4],
    fail_below: String,
    block_on_critical: bool,
    detectors: DetectorToggles,
    vault: &'static str,
    levels: [String; 4],
    rho_s: String,
    scope_def: String,
    overrides: String,
}

impl Form {
    fn of(w: &WhatIf) -> Form {
        let (vault, levels, rho_s) = match &w.vault {
            WhatIfVault::Observed => ("observed", [0; 4], 0),
            WhatIfVault::Levels(l) => ("levels", *l, 0),
            WhatIfVault::RhoS(r) => ("rho_s", [0; 4], *r),
        };
        Form {
            weights: w.weights.map(|v| v.to_string()),
            fail_below: w.fail_below.to_string(),
            block_on_critical: w.block_on_critical,
            detectors: w.detectors,
            vault,
            levels: levels.map(|v| v.to_string()),
            rho_s: rho_s.to_string(),
            scope_def: w.scope_def.clone(),
            overrides: w.level_overrides.iter().map(|(t, l)| format!("{t}: {l}\n")).collect(),
        }
    }

    /// The settings, or a message naming the field that is not a number.
    fn read(&self) -> Result<WhatIf, String> {
        let int = |text: &str, field: &str| {
            text.trim().parse::<i64>().map_err(|_| format!("{field}: {:?} is not a whole number", text.trim()))
        };
        let mut weights = [0i64; 4];
        for (i, text) in self.weights.iter().enumerate() {
            weights[i] = int(text, &format!("weight of L{}", i + 1))?;
        }
        let vault = match self.vault {
            "levels" => {
                let mut counts = [0i64; 4];
                for (i, text) in self.levels.iter().enumerate() {
                    counts[i] = int(text, &format!("vault secrets at L{}", i + 1))?;
                }
                WhatIfVault::Levels(counts)
            }
            "rho_s" => WhatIfVault::RhoS(int(&self.rho_s, "vault ρ_S")?),
            _ => WhatIfVault::Observed,
        };
        let mut level_overrides = Vec::new();
        for (n, line) in self.overrides.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let (data_type, level) = line
                .rsplit_once(':')
                .ok_or_else(|| format!("level overrides, line {}: write data_type: level, e.g. email: 4", n + 1))?;
            let level = int(level, &format!("level overrides, line {}", n + 1))?;
            level_overrides.push((data_type.trim().to_owned(), level));
        }
        Ok(WhatIf {
            weights,
            level_overrides,
            vault,
            scope_def: self.scope_def.trim().to_owned(),
            fail_below: int(&self.fail_below, "fail below")?,
            block_on_critical: self.block_on_critical,
            detectors: self.detectors,
        })
    }
}

/// One detector's switch within the toggles.

#[function_component(ScoringPanel)]
pub fn scoring_panel(props: &ScoringProps) -> Html {
    let form = use_state(|| Form::of(&props.applied));
    let problem = use_state(|| None::<String>);
    {
        // A reset or an import elsewhere shows in the form.
        let form = form.clone();
        use_effect_with(props.applied.clone(), move |applied| form.set(Form::of(applied)));
    }

    let edit = |apply: fn(&mut Form, String)| {
        let form = form.clone();
        Callback::from(move |value: String| {
            let mut next = (*form).clone();
            apply(&mut next, value);
            form.set(next);
        })
    };
    let text = |id: String, label: String, value: String, on: Callback<String>| {
        let oninput =
            Callback::from(move |e: InputEvent| on.emit(e.target_unchecked_into::<HtmlInputElement>().value()));
        html! { <label>{ label }{ " " }<input id={id} type="text" inputmode="numeric" size="5" {value} {oninput} /></label> }
    };
    let weight_fields = (0..4).map(|i| {
        let handle = form.clone();
        let on = Callback::from(move |v: String| {
            let mut next = (*handle).clone();
            next.weights[i] = v;
            handle.set(next);
        });
        text(format!("weight-{}", i + 1), format!("L{}", i + 1), form.weights[i].clone(), on)
    });
    let level_fields = (0..4).map(|i| {
        let handle = form.clone();
        let on = Callback::from(move |v: String| {
            let mut next = (*handle).clone();
            next.levels[i] = v;
            handle.set(next);
        });
        text(format!("vault-l{}", i + 1), format!("L{}", i + 1), form.levels[i].clone(), on)
    });
    let detector_fields = Builtin::ALL.into_iter().map(|detector| {
        let form = form.clone();
        let checked = form.detectors.get(detector);
        let onchange = Callback::from(move |e: Event| {
            let mut next = (*form).clone();
            next.detectors.set(detector, e.target_unchecked_into::<HtmlInputElement>().checked());
            form.set(next);
        });
        let name = detector.key();
        html! { <label><input id={format!("detector-{name}")} type="checkbox" {checked} {onchange} />{ format!(" {name}") }</label> }
    });
    let on_block = {
        let form = form.clone();
        Callback::from(move |e: Event| {
            form.set(Form {
                block_on_critical: e.target_unchecked_into::<HtmlInputElement>().checked(),
                ..(*form).clone()
            })
        })
    };
    let on_vault = {
        let form = form.clone();
        Callback::from(move |e: Event| {
            let vault = match e.target_unchecked_into::<HtmlSelectElement>().value().as_str() {
                "levels" => "levels",
                "rho_s" => "rho_s",
                _ => "observed",
            };
            form.set(Form { vault, ..(*form).clone() })
        })
    };
    let on_overrides = {
        let on = edit(|f, v| f.overrides = v);
        Callback::from(move |e: InputEvent| on.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let on_scope = {
        let on = edit(|f, v| f.scope_def = v);
        Callback::from(move |e: InputEvent| on.emit(e.target_unchecked_into::<HtmlInputElement>().value()))
    };

    let apply = {
        let (form, problem, on_apply) = (form.clone(), problem.clone(), props.on_apply.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            // The worker checks the settings as the CLI checks a config
            // file, and names a refused key (shown as `rejected`).
            match form.read() {
                Ok(settings) => {
                    problem.set(None);
                    on_apply.emit(settings);
                }
                Err(message) => problem.set(Some(message)),
            }
        })
    };
    let reset = props.on_apply.reform(|_: MouseEvent| WhatIf::reference_defaults());
    let export = {
        let yaml = props.applied.to_yaml();
        Callback::from(move |_: MouseEvent| download("agentleak.yaml", "application/yaml", &yaml))
    };
    let import = on_small_file("an agentleak.yaml", problem.clone(), props.on_import.clone());
    let open_import = open_file_input("import-config");

    html! {
        <section class="batch scoring" aria-labelledby="scoring-title">
            <header class="detail-head">
                <div>
                    <h2 id="scoring-title">{ "What-if scoring" }</h2>
                    <p class="muted">{ "Change how runs are scored and which detectors run; Apply analyses every trace again in the worker, re-scores every report, and updates every view. A report takes the weights, vault and gate exactly (the numbers its trace would get); detector toggles and level overrides need the trace, so a report keeps its stored findings and levels, and says so." }</p>
                </div>
                <div class="actions">
                    <button type="button" class="button" id="import-config-button" onclick={open_import}>{ "Import agentleak.yaml" }</button>
                    <input id="import-config" class="visually-hidden" type="file" accept=".yaml,.yml,text/yaml" tabindex="-1" aria-hidden="true" onchange={import} />
                    <button type="button" class="button" id="export-config" onclick={export}>{ "Export agentleak.yaml" }</button>
                    <button type="button" class="button" id="reset-scoring" onclick={reset}>{ "Reset to reference defaults" }</button>
                </div>
            </header>
            <form class="scoring-form" id="scoring-form" onsubmit={apply}>
                <fieldset><legend>{ "Weights per level" }</legend>{ for weight_fields }</fieldset>
                <fieldset><legend>{ "Gate" }</legend>
                    { text("fail-below".into(), "Block below privacy score".into(), form.fail_below.clone(), edit(|f, v| f.fail_below = v)) }
                    <label><input id="block-on-critical" type="checkbox" checked={form.block_on_critical} onchange={on_block} />{ " block when an L4 secret leaks" }</label>
                </fieldset>
                <fieldset><legend>{ "Detectors" }</legend>{ for detector_fields }
                    <p class="muted">{ "With any setting changed the run is scored as with a config file; the reference turns finance and hr off in a config file unless switched on, so check them here." }</p>
                </fieldset>
                <fieldset><legend>{ "Vault" }</legend>
                    <label>{ "Vault " }
                        <select id="vault-mode" onchange={on_vault}>
                            <option value="observed" selected={form.vault == "observed"}>{ "the secrets seen in the run" }</option>
                            <option value="levels" selected={form.vault == "levels"}>{ "secrets per level" }</option>
                            <option value="rho_s" selected={form.vault == "rho_s"}>{ "a raw ρ_S" }</option>
                        </select>
                    </label>
                    if form.vault == "levels" { { for level_fields } }
                    if form.vault == "rho_s" { { text("vault-rho-s".into(), "ρ_S".into(), form.rho_s.clone(), edit(|f, v| f.rho_s = v)) } }
                    if form.vault != "observed" {
                        <label>{ "Scope " }<input id="vault-scope" type="text" value={form.scope_def.clone()} oninput={on_scope} /></label>
                    }
                </fieldset>
                <fieldset><legend>{ "Level overrides" }</legend>
                    <label for="level-overrides">{ "One data_type: level per line (e.g. email: 4)" }</label>
                    <textarea id="level-overrides" rows="3" value={form.overrides.clone()} oninput={on_overrides} />
                </fieldset>
                if let Some(message) = problem.as_ref().or(props.rejected.as_ref()) {
                    <p class="error-message" role="alert" id="scoring-error">{ message }</p>
                }
                <p><button type="submit" class="button primary" id="apply-scoring">{ "Apply" }</button></p>
            </form>
        </section>
    }
}
