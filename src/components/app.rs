use crate::bridge::{Bridge, Source};
use crate::components::{run_detail::RunDetail, run_table::RunTable};
use crate::protocol::{FileResult, FromWorker};
use crate::samples::{sample_url, SAMPLE_REPORTS};
use crate::state::{Action, State};
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, FileList, HtmlInputElement};
use yew::prelude::*;

/// The whole page: header with the two ways in, the run table, the run view,
/// and a drop zone covering everything.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let next_id = use_mut_ref(|| 0u32);
    let dragging = use_state(|| false);
    let file_input = use_node_ref();

    let bridge = {
        let dispatcher = state.dispatcher();
        use_memo((), move |_| {
            let on_result = dispatcher.clone();
            let on_crash = dispatcher.clone();
            Bridge::new(
                Callback::from(move |message| match message {
                    FromWorker::Progress { id, progress } => on_result.dispatch(Action::Progressed { id, progress }),
                    FromWorker::Done { id, result } => on_result.dispatch(Action::Finished { id, result }),
                    FromWorker::Ready => on_result.dispatch(Action::WorkerReady),
                }),
                Callback::from(move |message| on_crash.dispatch(Action::WorkerFailed(message))),
            )
        })
    };

    let add = {
        let dispatcher = state.dispatcher();
        Callback::from(move |items: Vec<(String, Source)>| {
            for (name, source) in items {
                let id = {
                    let mut next = next_id.borrow_mut();
                    *next += 1;
                    *next
                };
                dispatcher.dispatch(Action::Queued { id, name: name.clone() });
                match bridge.as_ref() {
                    Ok(bridge) => bridge.send(id, &name, source),
                    Err(message) => dispatcher
                        .dispatch(Action::Finished { id, result: FileResult::Error { message: message.clone() } }),
                }
            }
        })
    };

    let on_files_picked = {
        let add = add.clone();
        Callback::from(move |event: Event| {
            let Some(input) = event.target().and_then(|t| t.dyn_into::<HtmlInputElement>().ok()) else {
                return;
            };
            add.emit(blobs_from(input.files()));
            // Let the same file be picked again later.
            input.set_value("");
        })
    };
    let open_picker = {
        let file_input = file_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = file_input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let load_example = {
        let add = add.clone();
        Callback::from(move |_: MouseEvent| {
            add.emit(SAMPLE_REPORTS.iter().map(|name| (name.to_string(), Source::Url(sample_url(name)))).collect());
        })
    };

    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |event: DragEvent| {
            // Only a leave towards outside the window ends the drag.
            if event.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let on_drop = {
        let dragging = dragging.clone();
        let add = add.clone();
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            dragging.set(false);
            add.emit(blobs_from(event.data_transfer().and_then(|d| d.files())));
        })
    };

    let dispatcher = state.dispatcher();
    let on_select = Callback::from(move |id| dispatcher.dispatch(Action::Select(id)));
    let dispatcher = state.dispatcher();
    let on_remove = Callback::from(move |id| dispatcher.dispatch(Action::Remove(id)));
    let dispatcher = state.dispatcher();
    let on_close = Callback::from(move |_| dispatcher.dispatch(Action::CloseRun));

    html! {
        <div id="dropzone" class="page" data-worker={if state.worker_ready { "ready" } else { "starting" }} ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
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
                    <input id="file-input" ref={file_input} class="visually-hidden" type="file" multiple=true
                        accept=".json,application/json" tabindex="-1" aria-hidden="true" onchange={on_files_picked} />
                    <button type="button" id="load-example" class="button" onclick={load_example}>{ "Load example" }</button>
                </div>
            </header>
            <main>
                if state.files.is_empty() {
                    <section class="empty">
                        <h2>{ "Drop AgentLeak traces or reports anywhere on this page" }</h2>
                        <p>{ "Or use Open files to pick one or many JSON files: traces (recorded agent runs) or reports (what `agentleak run -f json` writes). Each file gets a row with its Risk Index, privacy score, verdict and gate decision. A trace is analysed here, with AgentLeak's default detectors; a report's numbers are recomputed and a report whose stored numbers disagree is flagged inconsistent." }</p>
                        <p>{ "New here? Load example adds six reports of AgentLeak's own example traces." }</p>
                    </section>
                } else {
                    <RunTable files={state.files.clone()} selected={state.selected} {on_select} {on_remove} />
                }
                if let Some((entry, run)) = state.selected_run() {
                    // Keyed by file, so a newly shown run starts with no event highlighted.
                    <RunDetail key={entry.id} file_name={entry.name.clone()} run={run.clone()} {on_close} />
                }
            </main>
            <footer class="foot">
                { "Runs offline: no server, no analytics, no network requests beyond this site's own files. Scores follow AgentLeak 0.17.0's AgentRisk (RI = WSL / ρ_S). Example reports: AgentLeak, MIT licence." }
            </footer>
            if *dragging {
                <div class="drop-overlay" aria-hidden="true"><p>{ "Drop files to load them" }</p></div>
            }
        </div>
    }
}

fn blobs_from(files: Option<FileList>) -> Vec<(String, Source)> {
    let Some(files) = files else { return Vec::new() };
    (0..files.length()).filter_map(|i| files.get(i)).map(|file| (file.name(), Source::Blob(file.into()))).collect()
}
