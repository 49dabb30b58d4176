//! The page: [`App`] holds the one state, wires it to the browser with the
//! hooks of `crate::hooks` (worker, files, embedding, publication, URL hash,
//! keyboard, printing), and composes the views. Its own parts: the header
//! (`header`), the tab bar (`tabs`), the drop zone and the empty page
//! (`drop_zone`), the link and what-if banners (`banners`), the shortcut
//! help (`help`) and the print header (`print`). The tabs' contents are
//! the views of `crate::components`.

mod banners;
mod drop_zone;
mod header;
mod help;
mod print;
mod tabs;

use crate::components::review::local_today;
use crate::components::{
    batch::BatchView, canaries::CanaryPanel, compare::CompareView, provenance::Provenance, run_detail::RunDetail,
    run_table::RunTable, scoring::ScoringPanel, span_mapping::SpanMappingPanel, trend::TrendView,
};
use crate::hooks::dispatch;
use crate::hooks::embedding::use_embedding;
use crate::hooks::files::use_add_files;
use crate::hooks::hash_sync::use_hash_sync;
use crate::hooks::print::use_print_margins;
use crate::hooks::publication::{save_as_one_file, use_open_publication};
use crate::hooks::shortcuts::use_keyboard_shortcuts;
use crate::hooks::worker::{to_worker, use_worker_bridge, Worker};
use crate::protocol::ReviewEdit;
use crate::publication;
use crate::state::{Action, FileEntry, Folders, State, Tab};
use crate::theme;
use agentrisk::config::WhatIf;
use banners::{SrcPrompt, WhatIfBanner};
use drop_zone::{DropZone, Welcome};
use header::{click_input, Header};
use help::{show_help, HelpDialog};
use std::rc::Rc;
use tabs::Tabs;
use yew::prelude::*;

/// The whole page: header with the ways in, the tabs (run table and run
/// view, batch, compare, what-if scoring), and a drop zone covering
/// everything.
#[function_component(App)]
pub fn app() -> Html {
    let state = use_reducer(State::default);
    let dispatch = dispatch(&state);
    let worker = use_worker_bridge(dispatch.clone());
    let add = use_add_files(worker.clone(), dispatch.clone());
    use_embedding(add.clone(), dispatch.clone(), state.files.clone());
    use_open_publication(add.clone(), dispatch.clone(), worker.clone());
    let on_apply = apply_what_if(&worker, &dispatch);
    use_hash_sync(&state, on_apply.clone(), dispatch.clone());

    let (file_input, help) = (use_node_ref(), use_node_ref());
    let open_files = {
        let file_input = file_input.clone();
        Callback::from(move |()| click_input(&file_input))
    };
    let open_help = {
        let help = help.clone();
        Callback::from(move |()| show_help(&help))
    };
    use_effect_with((), |_| theme::apply_saved());
    use_keyboard_shortcuts(dispatch.clone(), open_files, open_help.clone());

    // Read once from the page (a query of the document), not at each render.
    let published_page = use_memo((), |_| publication::is_publication());
    let batch = {
        let state = state.clone();
        use_memo((state.files.clone(), state.reviews.clone()), move |_| {
            let (rows, redteam) = state.batch_rows();
            (Rc::new(rows), Rc::new(redteam))
        })
    };
    // Loaded batches, gathered only for the views that show them: every
    // folder for Compare (and the batch the Batch tab is limited to), the
    // folders opened for Trend. Each copies its runs' facts, so a page
    // loading thousands of files does not gather them at every file.
    let batches = {
        let state = state.clone();
        use_memo((state.files.clone(), state.tab, state.batch_scope.is_some()), move |(_, tab, scoped)| {
            let every = if *tab == Tab::Compare || *scoped { state.loaded_batches(Folders::Every) } else { Vec::new() };
            let opened = if *tab == Tab::Trend { state.loaded_batches(Folders::Opened) } else { Vec::new() };
            (Rc::new(every), Rc::new(opened))
        })
    };
    let batch_count = state.opened_batch_count();
    // The Batch tab shows one loaded batch when the Trend view opened one.
    let scoped = state.batch_scope.as_ref().and_then(|key| batches.0.iter().find(|b| &b.key == key));
    let (batch_rows, batch_redteam) = match scoped {
        Some(b) => (Rc::new(b.rows.clone()), Rc::new(b.redteam.clone())),
        None => (batch.0.clone(), batch.1.clone()),
    };
    let scope_name = scoped.map(|b| b.name.clone());
    let batch_runs = batch.0.len();
    // Scorecard rows (no run view of their own, `row` none) are summaries.
    let scorecard_runs = batch.0.iter().filter(|row| row.row.is_none()).count();
    let (print_header, print_margins) = print::print_header(&state, batch_runs);
    use_print_margins(print_margins);

    let on_save = save_as_one_file(&worker, &dispatch, &state.whatif, state.publication.clone());
    let on_select = dispatch.reform(Action::Select);
    let on_remove = remove_file(&worker, &dispatch, &state.files);
    let on_import = to_worker(&worker, |bridge, (name, bytes): (String, Vec<u8>)| bridge.read_settings(&name, bytes));
    let on_pick_canaries =
        to_worker(&worker, |bridge, (name, bytes): (String, Vec<u8>)| bridge.read_canaries(&name, bytes));
    let on_clear_canaries = to_worker(&worker, |bridge, ()| bridge.clear_canaries());
    let on_span_mapping = to_worker(&worker, |bridge, mapping| bridge.send_span_mapping(mapping));
    let on_review = to_worker(&worker, |bridge, edit: ReviewEdit| bridge.review(&edit));
    {
        // Acceptances are judged at the browser's local date until the
        // reviewer (or a publication) sets another.
        let on_review = on_review.clone();
        use_effect_with((), move |_| {
            if let Some(today) = local_today() {
                on_review.emit(ReviewEdit::Today(today));
            }
        });
    }

    html! {
        <DropZone worker_ready={state.worker_ready} on_add={add.clone()}>
            <Header {file_input} on_add={add.clone()} examples={!*published_page} can_save={!state.files.is_empty()}
                saving={state.saving.clone()} {on_save} on_help={open_help} />
            { print_header }
            <main>
                if let Some(publication) = &state.publication {
                    <Provenance publication={publication.clone()} />
                }
                if state.src_prompt {
                    <SrcPrompt src={state.src.clone()} on_add={add} on_answered={dispatch.reform(|()| Action::SrcAnswered)} />
                }
                if state.files.is_empty() {
                    <Welcome />
                } else {
                    <Tabs tab={state.tab} {batch_runs} batches={batch_count} on_show={dispatch.reform(Action::ShowTab)} />
                    if !state.whatif.is_reference_default() {
                        <WhatIfBanner whatif={state.whatif.clone()} {scorecard_runs} on_apply={on_apply.clone()} />
                    }
                    if state.tab == Tab::Runs {
                        <RunTable files={state.files.clone()} selected={state.selected} on_select={on_select.clone()} on_remove={on_remove.clone()}
                            reviews={state.reviews.clone()} review={state.review.clone()} unmatched={state.unmatched.clone()} />
                        if let Some((entry, run)) = state.selected_run() {
                            // Keyed by row and run, so a newly shown run starts with no event highlighted.
                            <RunDetail key={format!("{}:{}", entry.id, run.report().run_id)} file_name={entry.name.clone()} run={run.clone()}
                                on_close={dispatch.reform(|()| Action::CloseRun)}
                                whatif={state.whatif.clone()} filters={state.finding_filters.clone()} on_filters={dispatch.reform(Action::SetFindingFilters)}
                                on_export_trace={export_trace(&worker, entry.file, &run.report().run_id)} export_problem={state.export_problem.clone()}
                                review={state.review.clone()} reviewed={state.reviews.get(&entry.id).cloned()} reviewer={state.reviewer.clone()}
                                today={state.review_date} review_problem={state.review_problem.clone()} on_review={on_review.clone()}
                                on_reviewer={dispatch.reform(Action::SetReviewer)} />
                        }
                    } else if state.tab == Tab::Batch {
                        <BatchView rows={batch_rows} redteam={batch_redteam} settings={state.batch} on_settings={dispatch.reform(Action::SetBatch)}
                            on_open={on_select} {on_remove} whatif={state.whatif.clone()}
                            scope={scope_name} on_clear_scope={dispatch.reform(|()| Action::OpenBatch(None))} />
                    } else if state.tab == Tab::Compare {
                        <CompareView files={state.files.clone()} rows={batch.0.clone()} batches={batches.0.clone()} settings={state.batch} />
                    } else if state.tab == Tab::Trend {
                        <TrendView batches={batches.1.clone()} settings={state.batch} on_open={dispatch.reform(|key| Action::OpenBatch(Some(key)))} />
                    } else {
                        <ScoringPanel applied={state.whatif.clone()} rejected={state.whatif_rejected.clone()} {on_apply} {on_import} />
                        <CanaryPanel in_force={state.canaries.clone()} problem={state.canaries_problem.clone()} on_pick={on_pick_canaries} on_clear={on_clear_canaries} />
                        <SpanMappingPanel in_force={state.span_mapping} on_pick={on_span_mapping} />
                    }
                }
            </main>
            <footer class="foot">
                { "Runs offline: no server, no analytics, no network requests beyond this site's own files. Scores follow AgentLeak 0.17.0's AgentRisk (RI = WSL / ρ_S). Example reports: AgentLeak, MIT licence." }
            </footer>
            <HelpDialog dialog={help} />
        </DropZone>
    }
}

/// New what-if settings: to the worker (which analyses again with them),
/// and into the state as sent.
fn apply_what_if(worker: &Worker, dispatch: &Callback<Action>) -> Callback<WhatIf> {
    let send = to_worker(worker, |bridge, settings: WhatIf| bridge.send_settings(&settings.to_settings_yaml()));
    let dispatch = dispatch.clone();
    Callback::from(move |settings: WhatIf| {
        send.emit(settings.clone());
        dispatch.emit(Action::ApplyWhatIf(settings));
    })
}

/// A row removed: the worker forgets its file, and the file's rows go
/// (every run of a span export).
fn remove_file(worker: &Worker, dispatch: &Callback<Action>, rows: &[FileEntry]) -> Callback<u32> {
    let forget = to_worker(worker, |bridge, file| bridge.forget(file));
    let files: Vec<(u32, u32)> = rows.iter().map(|row| (row.id, row.file)).collect();
    let dispatch = dispatch.clone();
    Callback::from(move |row| {
        if let Some((_, file)) = files.iter().find(|(id, _)| *id == row) {
            forget.emit(*file);
        }
        dispatch.emit(Action::Remove(row));
    })
}

/// "Export as AgentLeak trace" of run `run_id` of file `file`: the worker
/// converts it and the page saves it.
fn export_trace(worker: &Worker, file: u32, run_id: &str) -> Callback<()> {
    let run_id = run_id.to_owned();
    to_worker(worker, move |bridge, ()| bridge.export_trace(file, &run_id))
}
