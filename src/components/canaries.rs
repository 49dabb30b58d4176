//! The canary set in force, in the What-if tab: where it came from and its
//! tier sizes, a file picker to set one, and a way to clear it. The worker
//! reads the file (the core's rule) and analyses every trace again; a trace
//! with its own `metadata.canaries` uses the set in force instead.

use crate::components::small_file::{on_small_file, open_file_input};
use agentrisk::workspace::CanariesUsed;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CanaryProps {
    /// The set in force; `None`: each trace's own, if any.
    pub in_force: Option<CanariesUsed>,
    /// Why the last picked file was refused, if it was.
    pub problem: Option<String>,
    /// A picked canary-set file: its name and bytes, for the worker.
    pub on_pick: Callback<(String, Vec<u8>)>,
    pub on_clear: Callback<()>,
}

#[function_component(CanaryPanel)]
pub fn canary_panel(props: &CanaryProps) -> Html {
    let too_large = use_state(|| None::<String>);
    let pick = on_small_file("a canary set", too_large.clone(), props.on_pick.clone());
    let open_picker = open_file_input("canary-file");
    let clear = props.on_clear.reform(|_: MouseEvent| ());
    let problem = props.problem.clone().or_else(|| (*too_large).clone());
    html! {
        <section class="panel" id="canaries" aria-labelledby="canaries-title">
            <h3 id="canaries-title">{ "Canary set" }</h3>
            <p>{ "Traces are analysed with the canary set in their own metadata.canaries. A canary-set file ({\"obvious\": [...], \"realistic\": [...], \"semantic\": [...]}) set here, or dropped on the page, is used for every trace instead." }</p>
            <p id="canaries-in-force" role="status">
                { match &props.in_force {
                    Some(used) => format!("In force: {}", used.describe()),
                    None => "In force: none set here; each trace's own, if it has one.".to_owned(),
                } }
            </p>
            <button type="button" class="button" id="canary-file-button" onclick={open_picker}>{ "Set canary file" }</button>
            <input id="canary-file" class="visually-hidden" type="file" accept=".json,application/json" tabindex="-1" aria-hidden="true" onchange={pick} />
            if props.in_force.is_some() {
                { " " }<button type="button" class="button" id="canary-clear" onclick={clear}>{ "Clear canary set" }</button>
            }
            if let Some(problem) = problem {
                <p class="error" role="alert" id="canaries-problem">{ problem }</p>
            }
        </section>
    }
}
