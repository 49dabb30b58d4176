use crate::components::download::download;
use crate::components::ident::ident;
use crate::components::review::unmatched_list;
use crate::components::text::shown;
use crate::components::{format_ri, verdict_class};
use crate::state::{review_status, FileEntry, FileStatus, Run};
use agentrisk::batch::table::to_csv;
use agentrisk::model::SpanSource;
use agentrisk::review::{Review, RunReview};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RunTableProps {
    pub files: Vec<FileEntry>,
    pub selected: Option<u32>,
    /// A row was picked (by row id).
    pub on_select: Callback<u32>,
    /// A row's file is to go (by row id): every row of it.
    pub on_remove: Callback<u32>,
    /// Each run's reviewed numbers (by file id), the review in force, and
    /// its decisions that match no loaded run.
    pub reviews: BTreeMap<u32, Rc<RunReview>>,
    pub review: Rc<Review>,
    pub unmatched: Rc<Vec<String>>,
}

/// One row per loaded file, or per run of a span export: a run with its
/// numbers (a report's stored ones, or those computed here for a trace),
/// a file still with the worker, or an error row naming the file and the
/// problem.
///
/// Run rows carry `data-kind` (`report` or `trace`), `data-run-id`,
/// `data-risk-index`, `data-privacy-score`, `data-verdict`, `data-blocked`
/// and `data-consistent` with the values shown, for tests and scripts; a
/// consistent report whose gate decision other gate settings explain also
/// carries `data-gate-note` (reports do not store their gate settings).
/// A run made from spans carries `data-span-format` and `data-span-mapping`;
/// a run with no events, `data-no-events`.
#[function_component(RunTable)]
pub fn run_table(props: &RunTableProps) -> Html {
    let loaded = props.files.iter().filter(|f| matches!(f.status, FileStatus::Loaded(_))).count();
    let failed = props.files.iter().filter(|f| matches!(f.status, FileStatus::Failed(_))).count();
    let csv = runs_csv(&props.files, &props.reviews);
    // A span export's runs are rows of one file.
    let mut runs_per_file: HashMap<u32, usize> = HashMap::new();
    for entry in &props.files {
        *runs_per_file.entry(entry.file).or_default() += 1;
    }
    let save_csv = Callback::from(move |_: MouseEvent| download("agentrisk-run-table.csv", "text/csv", &csv));
    let review = props.review.clone();
    // The file the CLI's --review and the next visit read (nothing is stored here).
    let save_review =
        Callback::from(move |_: MouseEvent| download("review.json", "application/json", &review.to_json()));
    html! {
        <section class="runs" aria-labelledby="runs-title">
            <header class="detail-head">
                <h2 id="runs-title">
                    { "Runs" }
                    <span class="count">{ format!(" {loaded} loaded") }{ if failed > 0 { format!(", {failed} with errors") } else { String::new() } }</span>
                </h2>
                <div class="actions">
                    if !props.review.is_empty() {
                        <span class="muted" id="review-in-force">{ format!("Review in force: {} decision{}, {} sign-off{}",
                            props.review.decisions.len(), if props.review.decisions.len() == 1 { "" } else { "s" },
                            props.review.runs.len(), if props.review.runs.len() == 1 { "" } else { "s" }) }</span>
                        <button type="button" class="button" id="export-review" onclick={save_review}>{ "Export review file" }</button>
                    }
                    <button type="button" class="button" id="export-run-table" onclick={save_csv}>{ "Runs CSV" }</button>
                </div>
            </header>
            { unmatched_list(&props.unmatched) }
            <div class="table-wrap">
                <table class="run-table">
                    <thead>
                        <tr>
                            <th scope="col">{ "Run id" }<span class="file">{ "File" }</span></th>
                            <th scope="col">{ "Agent" }</th>
                            <th scope="col" class="num">{ "Risk Index" }</th>
                            <th scope="col" class="num">{ "Privacy score" }</th>
                            <th scope="col">{ "Verdict" }</th>
                            <th scope="col">{ "Gate" }</th>
                            <th scope="col">{ "Check" }</th>
                            <th scope="col">{ "Review" }</th>
                            <th scope="col" class="remove"><span class="visually-hidden">{ "Remove" }</span></th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.files.iter().map(|entry| row(entry, runs_per_file.get(&entry.file).copied().unwrap_or(1), props)) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}

/// The run table as on screen: one row per file, in table order, with the
/// same columns (an error or pending file says so in the Check column).
fn runs_csv(files: &[FileEntry], reviews: &BTreeMap<u32, Rc<RunReview>>) -> String {
    let header: Vec<String> =
        ["File", "Run id", "Agent", "Risk Index", "Privacy score", "Verdict", "Gate", "Check", "Review"]
            .map(String::from)
            .to_vec();
    let rows = files.iter().map(|entry| {
        let mut cells = vec![entry.name.clone()];
        match &entry.status {
            FileStatus::Loaded(run) => {
                let r = run.report();
                let mut check = match run {
                    Run::Trace(_) => "analysed here".to_owned(),
                    Run::Report(loaded) if loaded.rescore.consistent => match &loaded.rescore.gate_note {
                        Some(note) => format!("consistent ({note})"),
                        None => "consistent".to_owned(),
                    },
                    Run::Report(_) => "inconsistent".to_owned(),
                };
                if let Some(source) = run.span_source() {
                    check = format!("{check} · {}", span_badge_text(source));
                }
                if run.facts().no_events {
                    check = format!("{check} · {NO_EVENTS}");
                }
                cells.extend([
                    r.run_id.clone(),
                    r.agent_name.clone(),
                    format_ri(r.risk_index),
                    r.privacy_score.to_string(),
                    r.verdict.clone(),
                    if r.blocked { "Blocked" } else { "Not blocked" }.to_owned(),
                    check,
                    review_status(reviews.get(&entry.id).map(|r| &**r)),
                ]);
            }
            FileStatus::Batch(only) => {
                cells.extend(vec![String::new(); 6]);
                cells.push(format!("{}: {} runs", only.kind, only.runs.len()));
                cells.push(String::new());
            }
            FileStatus::Failed(message) => {
                cells.extend(vec![String::new(); 6]);
                cells.push(format!("not loaded: {message}"));
                cells.push(String::new());
            }
            FileStatus::Working(_) => {
                cells.extend(vec![String::new(); 6]);
                cells.push("loading".to_owned());
                cells.push(String::new());
            }
        }
        cells
    });
    to_csv(&header, rows)
}

/// What a run with no events gets, in its row, its view and print: its
/// numbers (a Pass, mostly) rest on nothing.
pub const NO_EVENTS: &str = "no events: nothing was analysed";

/// A span run's origin in a few words: `OTLP JSON · structural`.
pub fn span_badge_text(source: &SpanSource) -> String {
    format!("{} · {}", source.format.label(), source.mapping.as_str())
}

/// The badge of a run made from spans: the export's shape and the mapping.
pub fn span_badge(source: &SpanSource) -> Html {
    let title = format!(
        "Made from {} spans of an OpenTelemetry export ({}), mapped to events by the {} mapping (What-if tab)",
        source.spans,
        source.format.label(),
        source.mapping.as_str()
    );
    html! { <span class="badge span-source" {title}>{ span_badge_text(source) }</span> }
}

/// The badge of a run with no events.
pub fn no_events_badge() -> Html {
    html! {
        <span class="badge no-events" title="The run has no events: its numbers rest on nothing, whatever its verdict says">{ NO_EVENTS }</span>
    }
}

/// A row; `runs_of_file` rows show its file (more than one for a span
/// export's runs, which are removed together).
fn row(entry: &FileEntry, runs_of_file: usize, props: &RunTableProps) -> Html {
    let id = entry.id;
    let on_remove = {
        let on_remove = props.on_remove.clone();
        Callback::from(move |event: MouseEvent| {
            event.stop_propagation();
            on_remove.emit(id);
        })
    };
    let (label, title) = if runs_of_file > 1 {
        (
            format!("Remove {} (all {runs_of_file} of its runs)", entry.label()),
            format!("Remove this span export: all {runs_of_file} of its runs"),
        )
    } else {
        (format!("Remove {}", entry.name), "Remove this file".to_owned())
    };
    let remove = html! {
        <td class="remove">
            <button type="button" class="icon-button" aria-label={label} {title} onclick={on_remove}>{ "×" }</button>
        </td>
    };
    match &entry.status {
        FileStatus::Working(progress) => {
            let status = match progress {
                None => "Reading…".to_owned(),
                Some(p) => p.line(),
            };
            let bar = match progress.and_then(|p| p.percent) {
                Some(percent) => {
                    html! { <progress max="100" value={percent.to_string()} aria-label="analysis progress"></progress> }
                }
                None => html! {},
            };
            html! {
                <tr class="reading-row" data-file={entry.name.clone()}>
                    <td class="run-id"><span class="file">{ ident(&entry.name) }</span></td>
                    <td colspan="7" class="muted">{ bar }<span class="status" role="status">{ status }</span></td>
                    { remove }
                </tr>
            }
        }
        FileStatus::Batch(only) => {
            let slug = if only.runs.is_empty() { "redteam" } else { "scorecard" };
            html! {
                <tr class="batch-row" data-file={entry.name.clone()} data-kind={slug}>
                    <td class="run-id"><span class="file">{ ident(&entry.name) }</span></td>
                    <td colspan="7" class="muted">
                        { format!("{}: {} runs and {} red-team results, shown in the Batch tab", only.kind, only.runs.len(), only.redteam.len()) }
                    </td>
                    { remove }
                </tr>
            }
        }
        FileStatus::Failed(message) => html! {
            <tr class="error-row" data-file={entry.name.clone()}>
                <td class="run-id"><span class="file">{ ident(&entry.name) }</span></td>
                <td colspan="7" class="error-message"><strong>{ "Not loaded: " }</strong>{ shown(message) }</td>
                { remove }
            </tr>
        },
        FileStatus::Loaded(run) => {
            let r = run.report();
            let selected = props.selected == Some(id);
            let on_click = {
                let on_select = props.on_select.clone();
                Callback::from(move |_: MouseEvent| on_select.emit(id))
            };
            let on_key = {
                let on_select = props.on_select.clone();
                Callback::from(move |event: KeyboardEvent| {
                    if event.key() == "Enter" || event.key() == " " {
                        event.prevent_default();
                        on_select.emit(id);
                    }
                })
            };
            let consistent = match run {
                Run::Report(loaded) => loaded.rescore.consistent,
                // Computed here, so there is nothing to disagree with.
                Run::Trace(_) => true,
            };
            let check = match run {
                Run::Trace(_) => html! {
                    <span class="check here" title="A trace: detection and scoring ran in this tab, with AgentLeak's defaults">{ "analysed here" }</span>
                },
                Run::Report(loaded) if loaded.rescore.consistent => {
                    let title = match &loaded.rescore.gate_note {
                        Some(note) => format!(
                            "Every stored number matches our recomputation. The report does not store its gate settings; \
                             its gate decision is not the default gate's (fail below 40, block on L4): {note}"
                        ),
                        None => "Every stored number matches our recomputation".to_owned(),
                    };
                    html! { <span class="check ok" {title}>{ "consistent" }</span> }
                }
                Run::Report(loaded) => {
                    let detail = loaded
                        .rescore
                        .mismatches
                        .iter()
                        .map(|m| format!("{}: stored {}, recomputed {}", m.field, m.stored, m.recomputed))
                        .collect::<Vec<_>>()
                        .join("\n");
                    html! { <span class="check flag" title={detail}>{ "inconsistent" }</span> }
                }
            };
            let gate_note = match run {
                Run::Report(loaded) => loaded.rescore.gate_note.clone(),
                Run::Trace(_) => None,
            };
            let rescored = match run {
                Run::Report(loaded) => loaded.what_if.as_ref().map(|w| {
                    let s = &w.stored;
                    let title = format!(
                        "Re-scored with the what-if settings; the file stores RI {} · privacy score {} · {} · {}",
                        format_ri(s.risk_index),
                        s.privacy_score,
                        s.verdict,
                        if s.blocked { "blocked" } else { "not blocked" }
                    );
                    html! { <span class="check here" {title}>{ " · re-scored" }</span> }
                }),
                Run::Trace(_) => None,
            };
            let reviewed = props.reviews.get(&id);
            let status = review_status(reviewed.map(|r| &**r));
            let source = run.span_source();
            let no_events = run.facts().no_events;
            html! {
                <tr class={classes!("run-row", selected.then_some("selected"))}
                    tabindex="0" aria-selected={selected.to_string()} data-file={entry.name.clone()}
                    data-kind={run.kind()}
                    data-span-format={source.map(|s| s.format.label())}
                    data-span-mapping={source.map(|s| s.mapping.as_str())}
                    data-no-events={no_events.then_some("true")}
                    data-run-id={r.run_id.clone()}
                    data-risk-index={r.risk_index.to_string()}
                    data-privacy-score={r.privacy_score.to_string()}
                    data-verdict={r.verdict.clone()}
                    data-blocked={r.blocked.to_string()}
                    data-consistent={consistent.to_string()}
                    data-gate-note={gate_note}
                    data-rescored={rescored.is_some().to_string()}
                    data-review={status.clone()}
                    data-reviewed-risk-index={reviewed.map(|r| r.risk_index.to_string())}
                    data-reviewed-blocked={reviewed.map(|r| r.blocked.to_string())}
                    onclick={on_click} onkeydown={on_key}>
                    // The run id above its file: one column as wide as the longer, so neither wraps.
                    <td class="run-id"><span class="mono">{ ident(&r.run_id) }</span><span class="file">{ ident(&entry.name) }</span></td>
                    <td class="agent" title={r.agent_name.clone()}>{ shown(&r.agent_name) }</td>
                    <td class="num">{ format_ri(r.risk_index) }</td>
                    <td class="num">{ r.privacy_score }</td>
                    <td>
                        <span class={classes!("verdict", verdict_class(&r.verdict))}>{ &r.verdict }</span>
                        if no_events { { " " }{ no_events_badge() } }
                    </td>
                    <td>{ if r.blocked { html!{ <span class="gate blocked">{ "Blocked" }</span> } } else { html!{ <span class="gate open">{ "Not blocked" }</span> } } }</td>
                    <td>{ check }{ rescored }if let Some(source) = source { { " " }{ span_badge(source) } }</td>
                    <td class="review-status" title={reviewed.map(|r| r.summary())}>{ status }</td>
                    { remove }
                </tr>
            }
        }
    }
}
