//! The canary set in force, in the What-if tab: where it came from and its
//! tier sizes, a file picker to set one, and a way to clear it. The worker
//! reads the file (the core's rule) and analyses every trace again; a trace
//! with its own `metadata.canaries` uses the set in force instead.

use agentrisk::workspace::CanariesUsed;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The largest canary-set file picked.
const MAX_CANARY_BYTES: f64 = 1e6;

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
    let pick = {
        let (too_large, on_pick) = (too_large.clone(), props.on_pick.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let name = file.name();
            if file.size() > MAX_CANARY_BYTES {
                too_large.set(Some(format!(
                    "{name}: {:.1} MB is too large for a canary set (at most 1 MB)",
                    file.size() / 1e6
                )));
                return;
            }
            let (too_large, on_pick) = (too_large.clone(), on_pick.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match JsFuture::from(file.array_buffer()).await {
                    Ok(buffer) => {
                        too_large.set(None);
                        on_pick.emit((name, js_sys::Uint8Array::new(&buffer).to_vec()));
                    }
                    Err(_) => too_large.set(Some(format!("{name}: cannot read the file"))),
                }
            });
        })
    };
    let open_picker = Callback::from(|_: MouseEvent| {
        let input = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id("canary-file"))
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok());
        if let Some(input) = input {
            input.click();
        }
    });
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
