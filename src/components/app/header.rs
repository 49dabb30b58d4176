//! The page's header: the name and promise, and the ways in (Open files,
//! Open folder, the examples), Save as one file, the theme switch and the
//! shortcut help. The file inputs hand their files to `on_add`.

use crate::bridge::Source;
use crate::components::provenance::SaveAsOneFile;
use crate::hooks::files::{blobs_from, AddFiles, Picked};
use crate::samples::{sample_url, SAMPLE_REPORTS, SAMPLE_TRACES};
use crate::theme;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// The hidden `<input type=file>` (the `o` shortcut clicks it too).
    pub file_input: NodeRef,
    pub on_add: AddFiles,
    /// Offer the bundled examples (not on a site or pack, which carry their own runs).
    pub examples: bool,
    /// Offer Save as one file (something is loaded).
    pub can_save: bool,
    pub saving: Option<Option<String>>,
    pub on_save: Callback<bool>,
    pub on_help: Callback<()>,
}

#[function_component(Header)]
pub fn header(props: &HeaderProps) -> Html {
    let folder_input = use_node_ref();
    let on_files_picked = {
        let add = props.on_add.clone();
        Callback::from(move |event: Event| {
            let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else {
                return;
            };
            add.emit(blobs_from(input.files()));
            // Let the same file be picked again later.
            input.set_value("");
        })
    };
    let open_picker = click_on(&props.file_input);
    let open_folder = click_on(&folder_input);
    let load_example = load_examples(&props.on_add, &SAMPLE_REPORTS);
    let load_traces = load_examples(&props.on_add, &SAMPLE_TRACES);
    let on_toggle_theme = Callback::from(|_: MouseEvent| theme::toggle());
    let open_help = props.on_help.reform(|_: MouseEvent| ());
    html! {
        <header class="top">
            <div class="brand">
                <h1>{ "AgentRisk Viewer" }</h1>
                <p class="tagline">
                    { "AgentRisk scores for AgentLeak traces and reports, computed in this tab. " }
                    <strong>{ "Nothing you load leaves your machine." }</strong>
                </p>
            </div>
            <div class="actions">
                <button type="button" class="button primary" onclick={open_picker}>{ "Open files" }</button>
                <input id="file-input" ref={props.file_input.clone()} class="visually-hidden" type="file" multiple=true
                    accept=".json,.jsonl,application/json" tabindex="-1" aria-hidden="true" onchange={on_files_picked.clone()} />
                <button type="button" class="button" onclick={open_folder}>{ "Open folder" }</button>
                <input id="folder-input" ref={folder_input} class="visually-hidden" type="file" webkitdirectory=true multiple=true
                    tabindex="-1" aria-hidden="true" onchange={on_files_picked} />
                if props.examples {
                    <button type="button" id="load-example" class="button" onclick={load_example}>{ "Load example" }</button>
                    <button type="button" id="load-example-traces" class="button" onclick={load_traces}>{ "Load example traces" }</button>
                }
                if props.can_save {
                    <SaveAsOneFile saving={props.saving.clone()} on_save={props.on_save.clone()} />
                }
                <button type="button" id="theme-toggle" class="button" title="Switch between light and dark (t)" onclick={on_toggle_theme}>{ "Light / dark" }</button>
                <button type="button" id="help-button" class="button" title="Keyboard shortcuts (?)" aria-haspopup="dialog" onclick={open_help}>{ "?" }</button>
            </div>
        </header>
    }
}

/// Clicks the hidden file input `input`, which opens the browser's picker.
pub fn click_input(input: &NodeRef) {
    if let Some(input) = input.cast::<HtmlInputElement>() {
        input.click();
    }
}

fn click_on(input: &NodeRef) -> Callback<MouseEvent> {
    let input = input.clone();
    Callback::from(move |_: MouseEvent| click_input(&input))
}

/// Adds the bundled samples `names` (paths under `samples/`), each named as
/// its file (an example trace without its `traces/` folder).
fn load_examples(add: &AddFiles, names: &'static [&'static str]) -> Callback<MouseEvent> {
    let add = add.clone();
    Callback::from(move |_: MouseEvent| {
        add.emit(
            names
                .iter()
                .map(|name| Picked {
                    name: name.trim_start_matches("traces/").to_owned(),
                    folder: "samples".to_owned(),
                    source: Ok(Source::Url(sample_url(name))),
                })
                .collect(),
        );
    })
}
