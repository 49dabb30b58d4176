use crate::bridge::{Bridge, Crash, Source};
use crate::components::{
    batch::BatchView,
    canaries::CanaryPanel,
    compare::CompareView,
    download,
    provenance::{Provenance, SaveAsOneFile},
    run_detail::RunDetail,
    run_table::RunTable,
    scoring::ScoringPanel,
};
use crate::dropped;
use crate::embed;
use crate::hash::{from_hash, to_hash};
use crate::protocol::FromWorker;
use crate::publication;
use crate::samples::{sample_url, SAMPLE_REPORTS, SAMPLE_TRACES};
use crate::state::{Action, BatchSettings, Publication, Queued, State, Tab, ViewState};
use agentrisk::config::WhatIf;
use agentrisk::workspace::FileResult;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DragEvent, FileList, HtmlDialogElement, HtmlInputElement};
use yew::prelude::*;

/// The whole page: header with the two ways in, the run table, the run view,
/// and a drop zone covering everything.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let next_id = use_mut_ref(|| 0u32);
    let dragging = use_state(|| false);
    let file_input = use_node_ref();
    let folder_input = use_node_ref();

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
                    FromWorker::SettingsApplied => on_result.dispatch(Action::WhatIfAccepted),
                    FromWorker::SettingsRejected { message } => on_result.dispatch(Action::WhatIfRejected(message)),
                    FromWorker::SettingsRead { what_if } => on_result.dispatch(Action::ApplyWhatIf(what_if)),
                    FromWorker::SettingsUnreadable { message } => on_result.dispatch(Action::WhatIfUnreadable(message)),
                    FromWorker::Canaries { in_force } => on_result.dispatch(Action::CanariesInForce(in_force)),
                    FromWorker::CanariesUnreadable { message } => {
                        on_result.dispatch(Action::CanariesUnreadable(message))
                    }
                    FromWorker::Checked { name, check, .. } => {
                        on_result.dispatch(Action::PublishedChecked { name, check })
                    }
                    FromWorker::Packed { html } => {
                        crate::components::download::download("agentrisk-review.html", "text/html", &html);
                        on_result.dispatch(Action::Saving(Some(String::new())));
                    }
                    FromWorker::PackFailed { message } => {
                        on_result.dispatch(Action::Saving(Some(format!("Cannot save as one file: {message}"))))
                    }
                    // The bridge handles a crash itself and calls `on_crash`,
                    // and puts a result's parts back before its `Done`.
                    FromWorker::Crashed { .. } | FromWorker::Part { .. } => {}
                }),
                Callback::from(move |crash: Crash| {
                    on_crash.dispatch(Action::WorkerFailed { message: crash.message, failed: crash.failed })
                }),
            )
        })
    };

    let add = {
        let dispatcher = state.dispatcher();
        let bridge = bridge.clone();
        // Answers the ids given to the files, in order (the embedding waits for them).
        Callback::from(move |items: Vec<Picked>| -> Vec<u32> {
            let mut queued = Vec::with_capacity(items.len());
            let mut refused = Vec::new();
            for Picked { name, folder, source } in items {
                let id = {
                    let mut next = next_id.borrow_mut();
                    *next += 1;
                    *next
                };
                let sent = match (bridge.as_ref(), source) {
                    (Ok(bridge), Ok(source)) => bridge.send(id, &name, &folder, source),
                    (Err(message), _) => Err(message.clone()),
                    (_, Err(message)) => Err(message),
                };
                if let Err(message) = sent {
                    refused.push(Action::Finished { id, result: FileResult::Error { message } });
                }
                queued.push(Queued { id, name, folder });
            }
            let queued_ids: Vec<u32> = queued.iter().map(|q| q.id).collect();
            // Results come back in later tasks, after these.
            if !queued.is_empty() {
                dispatcher.dispatch(Action::Queued(queued));
            }
            for action in refused {
                dispatcher.dispatch(action);
            }
            queued_ids
        })
    };
    {
        // A parent page hands files over by postMessage (src/embed.rs).
        let embedded = use_mut_ref(Vec::<embed::Awaiting>::new);
        let (add, dispatcher, waiting) = (add.clone(), state.dispatcher(), embedded.clone());
        use_effect_with((), move |_| {
            embed::listen(Callback::from(move |request: embed::OpenRequest| {
                let names: Vec<String> = request.files.iter().map(|f| f.name.clone()).collect();
                let picked = request
                    .files
                    .into_iter()
                    .map(|f| Picked { name: f.name, folder: f.folder, source: Ok(Source::Blob(f.blob)) })
                    .collect();
                let ids = add.emit(picked);
                if let Some(tab) = request.view {
                    dispatcher.dispatch(Action::ShowTab(tab));
                }
                let awaiting = embed::Awaiting {
                    reply: request.reply,
                    ids: ids.into_iter().zip(names).collect(),
                    refused: request.refused,
                };
                if awaiting.ids.is_empty() {
                    embed::answer_finished(&std::cell::RefCell::new(vec![awaiting]), &[]);
                } else {
                    waiting.borrow_mut().push(awaiting);
                }
            }));
        });
        use_effect_with(state.files.clone(), move |files| embed::answer_finished(&embedded, files));
    }

    {
        // A report site or review pack opens its runs at once.
        let (add, dispatcher, bridge) = (add.clone(), state.dispatcher(), bridge.clone());
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                let Some(found) = publication::find().await else { return };
                let found = match found {
                    Ok(found) => found,
                    Err(why) => {
                        dispatcher.dispatch(Action::Published(Rc::new(unverifiable(why))));
                        return;
                    }
                };
                let Ok(bridge) = bridge.as_ref() else { return };
                open_publication(found, bridge, &add, &dispatcher);
            });
        });
    }
    let on_save = {
        let (bridge, dispatcher) = (bridge.clone(), state.dispatcher());
        let (whatif, publication) = (state.whatif.clone(), state.publication.clone());
        Callback::from(move |include_traces: bool| {
            let (bridge, dispatcher) = (bridge.clone(), dispatcher.clone());
            let settings = pack_settings(&whatif, publication.as_deref());
            let title = publication.as_ref().map_or_else(|| "AgentRisk review".to_owned(), |p| p.title.clone());
            dispatcher.dispatch(Action::Saving(None));
            wasm_bindgen_futures::spawn_local(async move {
                match publication::viewer_assets().await {
                    Ok((mut request, wasm)) => {
                        request.title = title;
                        request.include_traces = include_traces;
                        request.settings = settings;
                        match bridge.as_ref() {
                            Ok(bridge) => bridge.save_pack(request, wasm),
                            Err(why) => dispatcher.dispatch(Action::Saving(Some(why.clone()))),
                        }
                    }
                    Err(why) => dispatcher.dispatch(Action::Saving(Some(format!("Cannot save as one file: {why}")))),
                }
            });
        })
    };

    // Read once from the page (a query of the document), not at each render.
    let published_page = use_memo((), |_| publication::is_publication());
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
    let open_folder = {
        let folder_input = folder_input.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(input) = folder_input.cast::<HtmlInputElement>() {
                input.click();
            }
        })
    };
    let load_example = {
        let add = add.clone();
        Callback::from(move |_: MouseEvent| {
            add.emit(
                SAMPLE_REPORTS
                    .iter()
                    .map(|name| Picked {
                        name: name.to_string(),
                        folder: "samples".to_owned(),
                        source: Ok(Source::Url(sample_url(name))),
                    })
                    .collect(),
            );
        })
    };

    let load_traces = {
        let add = add.clone();
        Callback::from(move |_: MouseEvent| {
            add.emit(
                SAMPLE_TRACES
                    .iter()
                    .map(|name| Picked {
                        name: name.trim_start_matches("traces/").to_owned(),
                        folder: "samples".to_owned(),
                        source: Ok(Source::Url(sample_url(name))),
                    })
                    .collect(),
            );
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
            let Some(transfer) = event.data_transfer() else { return };
            let entries = dropped::entries(&transfer);
            if !entries.iter().any(|e| e.is_directory()) {
                add.emit(blobs_from(transfer.files()));
                return;
            }
            let add = add.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let mut picked = Vec::new();
                for file in dropped::files_of(entries).await {
                    match file {
                        Ok((path, file)) => {
                            let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
                            picked.push(Picked { name: path, folder, source: Ok(Source::Blob(file.into())) });
                        }
                        Err((path, message)) => {
                            picked.push(Picked { name: path, folder: String::new(), source: Err(message) })
                        }
                    }
                }
                add.emit(picked);
            });
        })
    };

    let dispatcher = state.dispatcher();
    let on_select = Callback::from(move |id| dispatcher.dispatch(Action::Select(id)));
    let on_remove = {
        let (dispatcher, bridge) = (state.dispatcher(), bridge.clone());
        Callback::from(move |id| {
            if let Ok(bridge) = bridge.as_ref() {
                bridge.forget(id);
            }
            dispatcher.dispatch(Action::Remove(id))
        })
    };
    let on_apply = {
        let (dispatcher, bridge) = (state.dispatcher(), bridge.clone());
        Callback::from(move |settings: WhatIf| {
            if let Ok(bridge) = bridge.as_ref() {
                bridge.send_settings(&settings.to_settings_yaml());
            }
            dispatcher.dispatch(Action::ApplyWhatIf(settings));
        })
    };
    let on_import = {
        let bridge = bridge.clone();
        Callback::from(move |(name, bytes): (String, Vec<u8>)| {
            if let Ok(bridge) = bridge.as_ref() {
                bridge.read_settings(&name, bytes);
            }
        })
    };
    let on_pick_canaries = {
        let bridge = bridge.clone();
        Callback::from(move |(name, bytes): (String, Vec<u8>)| {
            if let Ok(bridge) = bridge.as_ref() {
                bridge.read_canaries(&name, bytes);
            }
        })
    };
    let on_clear_canaries = {
        let bridge = bridge.clone();
        Callback::from(move |()| {
            if let Ok(bridge) = bridge.as_ref() {
                bridge.clear_canaries();
            }
        })
    };
    let reset_scoring = on_apply.reform(|_: MouseEvent| WhatIf::reference_defaults());
    let open_src = {
        let (add, dispatcher, src) = (add.clone(), state.dispatcher(), state.src.clone());
        Callback::from(move |_: MouseEvent| {
            dispatcher.dispatch(Action::SrcAnswered);
            let mut picked = Vec::new();
            for path in &src {
                match same_origin_url(path) {
                    Ok(url) => {
                        let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
                        picked.push(Picked { name: path.clone(), folder, source: Ok(Source::Url(url)) });
                    }
                    Err(message) => web_sys::console::warn_1(&message.into()),
                }
            }
            add.emit(picked);
        })
    };
    let dispatcher = state.dispatcher();
    let dismiss_src = Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::SrcAnswered));
    let refused_src: Vec<String> = state.src.iter().filter_map(|p| same_origin_url(p).err()).collect();
    {
        // A link's hash restores its view once, when the page opens.
        let (dispatcher, on_apply) = (state.dispatcher(), on_apply.clone());
        use_effect_with((), move |_| {
            let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
            if !hash.is_empty() {
                let view = from_hash(&hash);
                if !view.whatif.is_reference_default() {
                    on_apply.emit(view.whatif.clone());
                }
                dispatcher.dispatch(Action::RestoreView(Box::new(view)));
            }
        });
    }
    {
        // And the hash follows the view, without adding history entries.
        let run = state.selected_run().map(|(entry, _)| entry.name.clone()).or_else(|| state.pending_run.clone());
        let view = ViewState {
            tab: state.tab,
            run,
            batch: state.batch,
            whatif: state.whatif.clone(),
            src: state.src.clone(),
            filters: state.finding_filters.clone(),
        };
        use_effect_with(view, |view| {
            let hash = to_hash(view);
            if let Some(window) = web_sys::window() {
                let current = window.location().hash().unwrap_or_default();
                if current.trim_start_matches('#') != hash {
                    let url = if hash.is_empty() {
                        window.location().pathname().unwrap_or_default()
                            + &window.location().search().unwrap_or_default()
                    } else {
                        format!("#{hash}")
                    };
                    if let Ok(history) = window.history() {
                        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
                    }
                }
            }
        });
    }
    let dispatcher = state.dispatcher();
    let show_compare = Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::ShowTab(Tab::Compare)));
    let dispatcher = state.dispatcher();
    let show_scoring = Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::ShowTab(Tab::Scoring)));
    let dispatcher = state.dispatcher();
    let on_close = Callback::from(move |_| dispatcher.dispatch(Action::CloseRun));
    let dispatcher = state.dispatcher();
    let on_filters = Callback::from(move |filters| dispatcher.dispatch(Action::SetFindingFilters(filters)));

    let help = use_node_ref();
    let open_help = {
        let help = help.clone();
        Callback::from(move |_: MouseEvent| show_dialog(&help))
    };
    let close_help = {
        let help = help.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(dialog) = help.cast::<HtmlDialogElement>() {
                dialog.close();
            }
        })
    };
    let on_toggle_theme = Callback::from(|_: MouseEvent| toggle_theme());
    {
        // Keyboard shortcuts, while no text field has the focus.
        let (dispatcher, file_input, help) = (state.dispatcher(), file_input.clone(), help.clone());
        use_effect_with((), move |_| {
            apply_saved_theme();
            let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |event: KeyboardEvent| {
                if event.ctrl_key() || event.meta_key() || event.alt_key() || typing(&event) {
                    return;
                }
                match event.key().as_str() {
                    "o" => {
                        if let Some(input) = file_input.cast::<HtmlInputElement>() {
                            input.click();
                        }
                    }
                    "/" => {
                        let field = web_sys::window()
                            .and_then(|w| w.document())
                            .and_then(|d| d.query_selector("#finding-search, #confidence").ok().flatten())
                            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                        if let Some(field) = field {
                            event.prevent_default();
                            let _ = field.focus();
                        }
                    }
                    "j" | "n" => dispatcher.dispatch(Action::Step(1)),
                    "k" | "p" => dispatcher.dispatch(Action::Step(-1)),
                    "r" => dispatcher.dispatch(Action::ShowTab(Tab::Runs)),
                    "b" => dispatcher.dispatch(Action::ShowTab(Tab::Batch)),
                    "t" => toggle_theme(),
                    "?" => show_dialog(&help),
                    "Escape" => dispatcher.dispatch(Action::CloseRun),
                    _ => {}
                }
            });
            let window = web_sys::window();
            if let Some(w) = &window {
                let _ = w.add_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
            }
            move || {
                if let Some(w) = window {
                    let _ = w.remove_event_listener_with_callback("keydown", listener.as_ref().unchecked_ref());
                }
            }
        });
    }
    let dispatcher = state.dispatcher();
    let on_settings = Callback::from(move |settings: BatchSettings| dispatcher.dispatch(Action::SetBatch(settings)));
    let dispatcher = state.dispatcher();
    let show_runs = Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::ShowTab(Tab::Runs)));
    let dispatcher = state.dispatcher();
    let show_batch = Callback::from(move |_: MouseEvent| dispatcher.dispatch(Action::ShowTab(Tab::Batch)));
    let batch = {
        let state = state.clone();
        use_memo(state.files.clone(), move |_| {
            let (rows, redteam) = state.batch_rows();
            (Rc::new(rows), Rc::new(redteam))
        })
    };
    let batch_runs = batch.0.len();
    // Scorecard rows (no run view of their own, `file_id` none) are summaries.
    let scorecard_note = match batch.0.iter().filter(|row| row.file_id.is_none()).count() {
        0 => None,
        n => {
            let (runs, keep) = if n == 1 { ("run", "keeps its") } else { ("runs", "keep their") };
            Some(format!(
                "{n} {runs} from scorecards {keep} stored numbers: a scorecard does not record how its runs were scored. "
            ))
        }
    };

    let (print_header, print_margins) = print_header(&state, batch_runs);
    use_effect_with(print_margins, |(title, meta)| {
        download::set_print_margins(title, meta);
        download::stamp_print_date();
    });
    // Printing from the browser's own menu stamps the date too.
    use_effect_with((), |_| {
        let listener = Closure::<dyn Fn()>::new(download::stamp_print_date);
        let window = web_sys::window();
        if let Some(w) = &window {
            let _ = w.add_event_listener_with_callback("beforeprint", listener.as_ref().unchecked_ref());
        }
        move || {
            if let Some(w) = window {
                let _ = w.remove_event_listener_with_callback("beforeprint", listener.as_ref().unchecked_ref());
            }
        }
    });

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
                        accept=".json,.jsonl,application/json" tabindex="-1" aria-hidden="true" onchange={on_files_picked.clone()} />
                    <button type="button" class="button" onclick={open_folder}>{ "Open folder" }</button>
                    <input id="folder-input" ref={folder_input} class="visually-hidden" type="file" webkitdirectory=true multiple=true
                        tabindex="-1" aria-hidden="true" onchange={on_files_picked} />
                    // Sites and packs carry their own runs, not the examples.
                    if !*published_page {
                        <button type="button" id="load-example" class="button" onclick={load_example}>{ "Load example" }</button>
                        <button type="button" id="load-example-traces" class="button" onclick={load_traces}>{ "Load example traces" }</button>
                    }
                    if !state.files.is_empty() {
                        <SaveAsOneFile saving={state.saving.clone()} {on_save} />
                    }
                    <button type="button" id="theme-toggle" class="button" title="Switch between light and dark (t)" onclick={on_toggle_theme}>{ "Light / dark" }</button>
                    <button type="button" id="help-button" class="button" title="Keyboard shortcuts (?)" aria-haspopup="dialog" onclick={open_help}>{ "?" }</button>
                </div>
            </header>
            { print_header }
            <main>
                if let Some(publication) = &state.publication {
                    <Provenance publication={publication.clone()} />
                }
                if state.src_prompt {
                    <div class="banner" role="alertdialog" aria-labelledby="src-title" id="src-prompt">
                        <p id="src-title"><strong>{ "This link asks to open files from this site:" }</strong></p>
                        <ul>{ for state.src.iter().map(|p| html! { <li class="mono">{ p }</li> }) }</ul>
                        if !refused_src.is_empty() {
                            <ul class="error-message">{ for refused_src.iter().map(|m| html! { <li>{ m }</li> }) }</ul>
                        }
                        <p class="muted">{ "They are read from this site only, analysed in this tab, and never sent anywhere." }</p>
                        <button type="button" class="button primary" id="src-open" onclick={open_src}>{ "Open them" }</button>
                        { " " }
                        <button type="button" class="button" id="src-dismiss" onclick={dismiss_src}>{ "Not now" }</button>
                    </div>
                }
                if state.files.is_empty() {
                    <section class="empty">
                        <h2>{ "Drop AgentLeak traces or reports anywhere on this page" }</h2>
                        <p>{ "Or use Open files to pick one or many JSON files: traces (recorded agent runs) or reports (what `agentleak run -f json` writes). Each file gets a row with its Risk Index, privacy score, verdict and gate decision. A trace is analysed here, with AgentLeak's default detectors; a report's numbers are recomputed and a report whose stored numbers disagree is flagged inconsistent." }</p>
                        <p>{ "New here? Load example adds six reports of AgentLeak's own example traces; Load example traces adds those ten traces themselves, analysed in this tab." }</p>
                    </section>
                } else {
                    <nav class="tabs" role="tablist" aria-label="Views">
                        <button type="button" role="tab" id="tab-runs" aria-selected={(state.tab == Tab::Runs).to_string()} onclick={show_runs}>{ "Runs" }</button>
                        <button type="button" role="tab" id="tab-batch" aria-selected={(state.tab == Tab::Batch).to_string()} onclick={show_batch}>{ format!("Batch ({batch_runs} runs)") }</button>
                        <button type="button" role="tab" id="tab-compare" aria-selected={(state.tab == Tab::Compare).to_string()} onclick={show_compare}>{ "Compare" }</button>
                        <button type="button" role="tab" id="tab-scoring" aria-selected={(state.tab == Tab::Scoring).to_string()} onclick={show_scoring}>{ "What-if scoring" }</button>
                    </nav>
                    if !state.whatif.is_reference_default() {
                        <div class="banner" role="status" id="whatif-banner">
                            <strong>{ "What-if settings are active: " }</strong>{ state.whatif.describe() }
                            { " Traces are analysed with them; reports are re-scored with the weights, vault and gate. " }
                            if let Some(note) = scorecard_note {
                                <span id="whatif-scorecards">{ note }</span>
                            }
                            <button type="button" class="link-button" onclick={reset_scoring}>{ "Reset to reference defaults" }</button>
                        </div>
                    }
                    if state.tab == Tab::Runs {
                        <RunTable files={state.files.clone()} selected={state.selected} on_select={on_select.clone()} on_remove={on_remove.clone()} />
                        if let Some((entry, run)) = state.selected_run() {
                            // Keyed by file, so a newly shown run starts with no event highlighted.
                            <RunDetail key={entry.id} file_name={entry.name.clone()} run={run.clone()} {on_close} whatif={state.whatif.clone()}
                                filters={state.finding_filters.clone()} {on_filters} />
                        }
                    } else if state.tab == Tab::Batch {
                        <BatchView rows={batch.0.clone()} redteam={batch.1.clone()} settings={state.batch} {on_settings} on_open={on_select} {on_remove} whatif={state.whatif.clone()} />
                    } else if state.tab == Tab::Compare {
                        <CompareView files={state.files.clone()} rows={batch.0.clone()} settings={state.batch} />
                    } else {
                        <ScoringPanel applied={state.whatif.clone()} rejected={state.whatif_rejected.clone()} {on_apply} {on_import} />
                        <CanaryPanel in_force={state.canaries.clone()} problem={state.canaries_problem.clone()} on_pick={on_pick_canaries} on_clear={on_clear_canaries} />
                    }
                }
            </main>
            <footer class="foot">
                { "Runs offline: no server, no analytics, no network requests beyond this site's own files. Scores follow AgentLeak 0.17.0's AgentRisk (RI = WSL / ρ_S). Example reports: AgentLeak, MIT licence." }
            </footer>
            <dialog class="help" id="help" ref={help} aria-labelledby="help-title">
                <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
                <table>
                    <tbody>
                        { for SHORTCUTS.iter().map(|(key, what)| html! { <tr><th scope="row"><kbd>{ *key }</kbd></th><td>{ *what }</td></tr> }) }
                    </tbody>
                </table>
                <p class="muted">{ "Shortcuts work while no text field has the focus. Tab and Shift+Tab move between controls; Enter opens a focused run or chart cell." }</p>
                <button type="button" class="button" id="help-close" onclick={close_help}>{ "Close" }</button>
            </dialog>
            if *dragging {
                <div class="drop-overlay" aria-hidden="true"><p>{ "Drop files to load them" }</p></div>
            }
        </div>
    }
}

/// A publication whose manifest cannot be read: nothing to check.
fn unverifiable(why: String) -> Publication {
    Publication {
        title: "AgentRisk review".to_owned(),
        generated_at: String::new(),
        tool_version: String::new(),
        config: "unknown".to_owned(),
        settings: None,
        what_if: None,
        include_traces: false,
        pack: publication::in_pack(),
        expected: 0,
        not_published: Vec::new(),
        checks: Vec::new(),
        unverifiable: Some(why),
    }
}

/// Shows a publication's header, applies its config, and opens its files
/// (the worker checks each against the manifest).
fn open_publication(
    found: publication::Found,
    bridge: &Bridge,
    add: &Callback<Vec<Picked>, Vec<u32>>,
    dispatcher: &UseReducerDispatcher<State>,
) {
    let manifest = &found.manifest;
    let config = match &manifest.config.name {
        Some(name) => format!("{name} ({})", manifest.config.summary),
        None => manifest.config.summary.clone(),
    };
    let settings = manifest.config.name.clone().zip(manifest.config.yaml.clone());
    let mut picked = Vec::new();
    let mut checks = Vec::new();
    let mut not_published = Vec::new();
    for (entry, source) in manifest.files.iter().zip(found.files) {
        match source {
            None => not_published.push((entry.name.clone(), entry.error.clone().unwrap_or_default())),
            Some(source) => {
                if let Err(problem) = &source {
                    checks.push((
                        entry.name.clone(),
                        agentrisk::publish::FileCheck::Modified { problem: problem.clone() },
                    ));
                }
                picked.push(Picked { name: entry.name.clone(), folder: entry.folder.clone(), source });
            }
        }
    }
    dispatcher.dispatch(Action::Published(Rc::new(Publication {
        title: manifest.title.clone(),
        generated_at: manifest.generated_at.clone(),
        tool_version: manifest.tool_version.clone(),
        config,
        settings: settings.clone(),
        what_if: manifest.config.what_if.clone(),
        include_traces: manifest.include_traces,
        pack: found.pack,
        expected: picked.len(),
        not_published,
        checks,
        unverifiable: None,
    })));
    // The config first, so that each file is analysed once, with it.
    if let Some((_, yaml)) = &settings {
        bridge.send_settings(yaml);
        if let Some(what_if) = &manifest.config.what_if {
            dispatcher.dispatch(Action::ApplyWhatIf(what_if.clone()));
        }
    }
    bridge.publication(&found.text);
    add.emit(picked);
}

/// The settings a saved pack records: none for the reference's defaults,
/// the publication's own config while the What-if form still shows it,
/// else the form's settings.
fn pack_settings(whatif: &WhatIf, publication: Option<&Publication>) -> Option<(String, String)> {
    if whatif.is_reference_default() {
        return None;
    }
    match publication {
        Some(p) if p.what_if.as_ref() == Some(whatif) => p.settings.clone(),
        _ => Some(("what-if settings".to_owned(), whatif.to_settings_yaml())),
    }
}

/// The absolute URL of `path` if it is a file of this site (same origin),
/// else why not.
fn same_origin_url(path: &str) -> Result<String, String> {
    let location = web_sys::window().map(|w| w.location()).ok_or("no window")?;
    let base = location.href().map_err(|_| "no page address".to_owned())?;
    let origin = location.origin().map_err(|_| "no page origin".to_owned())?;
    let url = web_sys::Url::new_with_base(path, &base).map_err(|_| format!("{path}: not a valid address"))?;
    if url.origin() != origin || !matches!(url.protocol().as_str(), "http:" | "https:") {
        return Err(format!("{path}: not a file of this site, so it is not opened"));
    }
    url.set_hash("");
    Ok(url.href())
}

/// The header of a printed page: what is printed, when, with which tool,
/// files and settings, and that values are masked. The same title and a
/// short line of tool and settings go into every page's margins
/// (`download::set_print_margins`); the date is stamped when printing.
fn print_header(state: &State, batch_runs: usize) -> (Html, (String, String)) {
    let names: Vec<&str> = state.files.iter().map(|f| f.name.as_str()).collect();
    let title = match state.tab {
        Tab::Runs => match state.selected_run() {
            Some((entry, run)) => format!("Run {} · {}", run.report().run_id, entry.name),
            None => format!("{} files loaded", names.len()),
        },
        Tab::Batch => format!("Batch of {batch_runs} runs"),
        Tab::Compare => format!("Comparison · batch of {batch_runs} runs"),
        Tab::Scoring => "What-if scoring settings".to_owned(),
    };
    let (settings, settings_short) = if state.whatif.is_reference_default() {
        ("AgentLeak's reference defaults".to_owned(), "AgentLeak's reference defaults".to_owned())
    } else {
        let described = state.whatif.describe();
        (format!("what-if: {described}"), format!("what-if: {}", first_chars(&described, 70)))
    };
    let tool = concat!("AgentRisk Viewer ", env!("CARGO_PKG_VERSION"));
    let margins = (format!("AgentRisk Viewer · {title}"), format!("{tool} · scoring: {settings_short}"));
    // Many files would fill the first page with names: the run table lists them.
    let shown_names = match names.len() {
        0..=12 => names.join(", "),
        n => format!("{}, and {} more", names.iter().take(10).copied().collect::<Vec<_>>().join(", "), n - 10),
    };
    let header = html! {
        <div class="print-header" aria-hidden="true">
            <p class="print-title">{ title }</p>
            <p>
                { tool }{ " · printed " }<span id="print-date"></span>
                { format!(" · {} files: {shown_names} · scoring: {settings} · batch intervals: Wilson, {}%{}",
                    names.len(),
                    state.batch.confidence * 100.0,
                    if state.batch.continuity_correction { ", continuity correction" } else { "" }) }
            </p>
            <p class="print-masked">{ "Values are masked: findings print redacted as in the report; a value revealed on screen is not printed." }</p>
        </div>
    };
    (header, margins)
}

/// At most `n` characters of `text`, with an ellipsis when cut.
fn first_chars(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The keyboard shortcuts, as the help dialog lists them.
const SHORTCUTS: [(&str, &str); 9] = [
    ("o", "open files"),
    ("/", "search the findings (or, in the Batch tab, set the confidence level)"),
    ("j or n", "next run"),
    ("k or p", "previous run"),
    ("r", "Runs tab"),
    ("b", "Batch tab"),
    ("t", "light or dark"),
    ("?", "this help"),
    ("Esc", "close the run view or this help"),
];

/// True when a key goes to a text field, select or other editable element.
fn typing(event: &KeyboardEvent) -> bool {
    event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|e| {
        matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            || e.closest("[contenteditable]").ok().flatten().is_some()
    })
}

fn show_dialog(node: &NodeRef) {
    if let Some(dialog) = node.cast::<HtmlDialogElement>() {
        if !dialog.open() {
            let _ = dialog.show_modal();
        }
    }
}

/// Where the chosen theme is kept: only this word, never anything loaded.
const THEME_KEY: &str = "agentrisk-theme";

fn root_element() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}

fn apply_saved_theme() {
    let saved = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten());
    if let (Some(theme @ ("light" | "dark")), Some(root)) = (saved.as_deref(), root_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
}

/// Light if the page shows dark now, else dark; remembered for next time.
fn toggle_theme() {
    let Some(root) = root_element() else { return };
    let system_dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    let dark_now = match root.get_attribute("data-theme").as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => system_dark,
    };
    let theme = if dark_now { "light" } else { "dark" };
    let _ = root.set_attribute("data-theme", theme);
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(THEME_KEY, theme);
    }
}

/// A file to load: its name, the folder it came from, and its bytes'
/// source (or why it cannot be read).
struct Picked {
    name: String,
    folder: String,
    source: Result<Source, String>,
}

/// The picked or dropped files. A folder pick names each file by its path
/// within the folder, keeps only `.json` and `.jsonl` files, and records
/// the folder each came from (the batch's folder grouping).
fn blobs_from(files: Option<FileList>) -> Vec<Picked> {
    let Some(files) = files else { return Vec::new() };
    (0..files.length())
        .filter_map(|i| files.get(i))
        .filter_map(|file| {
            let path = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            if path.is_empty() {
                return Some(Picked {
                    name: file.name(),
                    folder: String::new(),
                    source: Ok(Source::Blob(file.into())),
                });
            }
            if !(path.ends_with(".json") || path.ends_with(".jsonl")) {
                return None;
            }
            let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
            Some(Picked { name: path, folder, source: Ok(Source::Blob(file.into())) })
        })
        .collect()
}
