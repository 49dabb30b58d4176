//! The Batch tab: the loaded runs as one batch (or one group of it), with
//! honest statistics from the core: verdict table, rates with Wilson
//! intervals, red-team metrics, two heatmaps and a forest plot, each chart
//! beside a table of its numbers, and the exports.

use crate::charts::{forest_svg, ForestRow};
use crate::components::download::{download, now_generated_at, print_page};
use crate::components::heatmap::{HeatmapView, Unit};
use crate::components::ident::ident;
use crate::components::verdict_class;
use crate::state::{BatchRow, BatchSettings};
use agentrisk::batch::table::{
    format_ri, interval_text, markdown_batch, percent, rate_cells, rate_header, rate_rows, run_cells, to_csv,
};
use agentrisk::batch::{
    channel_level_leaks, group_key, summarize_as, BatchSummary, GroupBy, Reading, RunFacts, RunResult, RunSource,
    Scorecard,
};
use agentrisk::config::WhatIf;
use agentrisk::stats::IntervalMethod;
use agentrisk::{Channel, Level};
use std::cmp::Ordering;
use std::rc::Rc;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// At most this many runs are listed in the run table on screen; the CSV
/// export has all of them.
const RUN_ROWS_SHOWN: usize = 1_000;

/// Heatmaps with more cells than this are drawn on a canvas.
const SVG_CELL_LIMIT: usize = 600;

#[derive(Properties, PartialEq)]
pub struct BatchProps {
    pub rows: Rc<Vec<BatchRow>>,
    pub redteam: Rc<Vec<RunResult>>,
    pub settings: BatchSettings,
    pub on_settings: Callback<BatchSettings>,
    /// Opens the run view of a loaded file.
    pub on_open: Callback<u32>,
    /// Removes a loaded file (and so its runs) from the batch.
    pub on_remove: Callback<u32>,
    /// The what-if settings in force, recorded in exports.
    pub whatif: WhatIf,
    /// The loaded batch shown (opened from the Trend view); `None`: every loaded run.
    #[prop_or_default]
    pub scope: Option<String>,
    /// Shows every loaded run again.
    #[prop_or_default]
    pub on_clear_scope: Callback<()>,
}

fn disclosure_channels() -> Vec<Channel> {
    Channel::ALL.into_iter().filter(|c| c.is_disclosure()).collect()
}

/// A column of the batch run table, by name. The columns are those of the
/// core's [`run_cells`], in its order, titled by its [`RUN_HEADER`] (a test
/// checks that the two agree).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunColumn {
    File,
    RunId,
    Agent,
    Scenario,
    RiskIndex,
    PrivacyScore,
    Verdict,
    Blocked,
    LeakedSecrets,
    VaultSecrets,
    LeakedByLevel,
}

impl RunColumn {
    /// In table order.
    const ALL: [RunColumn; 11] = [
        RunColumn::File,
        RunColumn::RunId,
        RunColumn::Agent,
        RunColumn::Scenario,
        RunColumn::RiskIndex,
        RunColumn::PrivacyScore,
        RunColumn::Verdict,
        RunColumn::Blocked,
        RunColumn::LeakedSecrets,
        RunColumn::VaultSecrets,
        RunColumn::LeakedByLevel,
    ];

    fn title(self) -> &'static str {
        match self {
            RunColumn::File => "File",
            RunColumn::RunId => "Run id",
            RunColumn::Agent => "Agent",
            RunColumn::Scenario => "Scenario",
            RunColumn::RiskIndex => "Risk Index",
            RunColumn::PrivacyScore => "Privacy score",
            RunColumn::Verdict => "Verdict",
            RunColumn::Blocked => "Blocked",
            RunColumn::LeakedSecrets => "Leaked secrets",
            RunColumn::VaultSecrets => "Vault secrets",
            RunColumn::LeakedByLevel => "Leaked L1/L2/L3/L4",
        }
    }

    /// Identifiers from files, which wrap only at their separators.
    fn is_identifier(self) -> bool {
        matches!(self, RunColumn::File | RunColumn::RunId | RunColumn::Agent | RunColumn::Scenario)
    }

    fn is_numeric(self) -> bool {
        matches!(
            self,
            RunColumn::RiskIndex | RunColumn::PrivacyScore | RunColumn::LeakedSecrets | RunColumn::VaultSecrets
        )
    }

    /// Two runs in ascending order of this column: numbers as numbers (the
    /// unrounded RI), leaks by level from the most severe (L4 first), a run
    /// with no scenario before any with one.
    fn compare(self, a: &RunFacts, b: &RunFacts) -> Ordering {
        let severity = |f: &RunFacts| {
            let p = f.level_profile;
            (p.l4, p.l3, p.l2, p.l1)
        };
        match self {
            RunColumn::File => a.file.cmp(&b.file),
            RunColumn::RunId => a.run_id.cmp(&b.run_id),
            RunColumn::Agent => a.agent_name.cmp(&b.agent_name),
            RunColumn::Scenario => a.scenario_id.cmp(&b.scenario_id),
            RunColumn::RiskIndex => a.risk_index.total_cmp(&b.risk_index),
            RunColumn::PrivacyScore => a.privacy_score.cmp(&b.privacy_score),
            RunColumn::Verdict => a.verdict.cmp(&b.verdict),
            RunColumn::Blocked => a.blocked.cmp(&b.blocked),
            RunColumn::LeakedSecrets => a.leaked_secrets.cmp(&b.leaked_secrets),
            RunColumn::VaultSecrets => a.vault_secrets.cmp(&b.vault_secrets),
            RunColumn::LeakedByLevel => severity(a).cmp(&severity(b)),
        }
    }
}

/// How the run table is sorted: a column and a direction.
#[derive(Clone, Copy, PartialEq)]
struct Sort {
    column: RunColumn,
    descending: bool,
}

#[function_component(BatchView)]
pub fn batch_view(props: &BatchProps) -> Html {
    let settings = props.settings;
    // Settings in the state are always valid (the inputs check them).
    let method = IntervalMethod::new(settings.confidence, settings.continuity_correction).unwrap_or_default();
    let summary = {
        let (rows, redteam) = (props.rows.clone(), props.redteam.clone());
        use_memo((rows, redteam, settings), move |(rows, redteam, settings)| {
            let facts: Vec<RunFacts> = rows.iter().map(|r| r.facts.clone()).collect();
            summarize_as(&facts, redteam, method, settings.group_by, settings.reading)
        })
    };
    let focus = use_state(|| None::<String>);
    let sort = use_state(|| Sort { column: RunColumn::File, descending: false });

    // The group whose charts and tables are shown (all runs by default).
    let focus_key = focus.as_ref().filter(|k| summary.groups.contains_key(*k)).cloned();
    let shown: &BatchSummary = focus_key.as_ref().and_then(|k| summary.groups.get(k)).unwrap_or(&summary);
    let in_focus = |row: &BatchRow| match (&focus_key, settings.group_by) {
        (Some(key), Some(by)) => &group_key(&row.facts, by) == key,
        _ => true,
    };
    let focus_rows: Vec<&BatchRow> = props.rows.iter().filter(|r| in_focus(r)).collect();
    let table_rows = sorted_rows(&focus_rows, *sort, settings.group_by);

    let rates = rate_rows(&summary);
    let header = rate_header(&method);
    let rate_csv = to_csv(&header, rates.iter().map(rate_cells));
    let run_csv = runs_csv(&table_rows, settings.group_by, settings.reading);
    let scorecard = {
        let rows = props.rows.clone();
        let redteam = props.redteam.clone();
        let config = (!props.whatif.is_reference_default()).then(|| props.whatif.to_yaml());
        Callback::from(move |_: MouseEvent| {
            let facts: Vec<RunFacts> = rows.iter().map(|r| r.facts.clone()).collect();
            let card = Scorecard::new(facts, redteam.to_vec(), method, settings.group_by)
                .with_analysis_config(config.clone())
                .with_generated_at(now_generated_at());
            download("agentrisk-scorecard.json", "application/json", &card.to_json());
        })
    };
    let save_rates = Callback::from(move |_: MouseEvent| download("agentrisk-rates.csv", "text/csv", &rate_csv));
    let markdown = format!("{}\n{}\n", markdown_batch(&summary, &method), settings_line(&props.whatif));
    let save_markdown = Callback::from(move |_: MouseEvent| download("agentrisk-batch.md", "text/markdown", &markdown));
    let save_runs = Callback::from(move |_: MouseEvent| download("agentrisk-runs.csv", "text/csv", &run_csv));
    let notes = batch_notes(&props.rows);

    html! {
        <section class="batch" aria-labelledby="batch-title" data-runs={summary.runs.to_string()}>
            <header class="detail-head">
                <div>
                    <h2 id="batch-title">{ format!("Batch · {} runs", summary.runs) }
                        if !props.redteam.is_empty() { <span class="kind">{ format!(" + {} red-team results", props.redteam.len()) }</span> }
                    </h2>
                    <p class="muted method" data-method={method.describe()}>{ format!("Every rate is k of n runs with its {}.", method.describe()) }</p>
                    if !notes.is_empty() {
                        <p class="batch-notes" id="batch-notes">{ notes.join(" · ") }</p>
                    }
                </div>
                <div class="actions">
                    <button type="button" class="button" id="export-scorecard" onclick={scorecard}>{ "Scorecard JSON" }</button>
                    <button type="button" class="button" id="export-rates" onclick={save_rates}>{ "Rates CSV" }</button>
                    <button type="button" class="button" id="export-runs" onclick={save_runs}>{ "Runs CSV" }</button>
                    <button type="button" class="button" id="export-batch-markdown" onclick={save_markdown}>{ "Markdown" }</button>
                    <button type="button" class="button" id="print-batch" onclick={Callback::from(|_: MouseEvent| print_page("batch"))}>{ "Print batch" }</button>
                </div>
            </header>
            if let Some(name) = &props.scope {
                <p class="banner" id="batch-scope">{ "Showing the batch " }{ ident(name) }{ format!(" only ({} runs). ", summary.runs) }
                    <button type="button" class="link-button" id="batch-scope-clear" onclick={props.on_clear_scope.reform(|_: MouseEvent| ())}>{ "Show every loaded run" }</button>
                </p>
            }
            if let Some(r) = &summary.reviewed {
                <p id="review-progress" data-reviewed={r.runs_reviewed.to_string()} data-decided={r.decided.to_string()}>{ format!("Review: {}.", r.progress(summary.runs)) }</p>
            }
            if summary.reading == Reading::AsReviewed {
                <p class="muted" id="reading-note">{ "Rates as reviewed: each reviewed run counts with its reviewed numbers, the others as detected; per-channel and per-level figures, the charts and the run table stay as detected." }</p>
            }
            <Controls settings={settings} on_settings={props.on_settings.clone()} reviewed={summary.reviewed.is_some()} />
            if settings.group_by.is_some() && !summary.groups.is_empty() {
                { focus_picker(&summary, &focus) }
            }
            if summary.runs == 0 {
                <p class="muted">{ "No runs yet: load traces, reports or a scorecard. Red-team results alone give the red-team metrics below." }</p>
            }
            <div class="batch-grid">
                { verdict_table(shown, &method) }
                { stats_table(shown) }
            </div>
            { rates_table(&rates, &header) }
            if let Some(redteam) = &summary.redteam { { redteam_block(redteam) } }
            { channel_run_heatmap(&focus_rows, &props.on_open) }
            { channel_level_heatmap(&focus_rows) }
            { forest(shown, settings.threshold) }
            { run_table(&table_rows, settings.group_by, settings.reading, &sort, &props.on_remove) }
        </section>
    }
}

/// How the traces were scored, for exports.
pub fn settings_line(whatif: &WhatIf) -> String {
    if whatif.is_reference_default() {
        "Traces analysed with AgentLeak's reference defaults (no config file); reports as stored.".to_owned()
    } else {
        format!("Traces analysed, and reports re-scored, with what-if settings:\n\n```yaml\n{}```", whatif.to_yaml())
    }
}

fn focus_picker(summary: &BatchSummary, focus: &UseStateHandle<Option<String>>) -> Html {
    let on_change = {
        let focus = focus.clone();
        Callback::from(move |event: Event| {
            let value = event.target_unchecked_into::<HtmlSelectElement>().value();
            focus.set((!value.is_empty()).then_some(value));
        })
    };
    let current = (**focus).clone().unwrap_or_default();
    html! {
        <p class="focus">
            <label>{ "Charts and verdicts for " }
                <select id="batch-focus" onchange={on_change}>
                    <option value="" selected={current.is_empty()}>{ format!("all {} runs", summary.runs) }</option>
                    { for summary.groups.iter().map(|(key, group)| html! {
                        <option value={key.clone()} selected={&current == key}>{ format!("{key} ({} runs)", group.runs) }</option>
                    }) }
                </select>
            </label>
        </p>
    }
}

#[derive(Properties, PartialEq)]
struct ControlsProps {
    settings: BatchSettings,
    on_settings: Callback<BatchSettings>,
    /// Some run has reviewed numbers (else the rates have one reading).
    reviewed: bool,
}

/// Confidence level, continuity correction, grouping and the forest plot's
/// threshold. A value that is not valid shows a message and changes nothing.
#[function_component(Controls)]
fn controls(props: &ControlsProps) -> Html {
    let settings = props.settings;
    let problem = use_state(|| None::<String>);
    let on_confidence = {
        let (emit, problem) = (props.on_settings.clone(), problem.clone());
        Callback::from(move |event: Event| {
            let text = event.target_unchecked_into::<HtmlInputElement>().value();
            match text.trim().parse::<f64>().ok().filter(|p| *p > 50.0 && *p < 100.0) {
                Some(p) if IntervalMethod::new(p / 100.0, false).is_ok() => {
                    problem.set(None);
                    emit.emit(BatchSettings { confidence: p / 100.0, ..settings });
                }
                _ => {
                    problem.set(Some(format!("Confidence level: {text:?} is not a percentage above 50 and below 100.")))
                }
            }
        })
    };
    let on_correction = {
        let emit = props.on_settings.clone();
        Callback::from(move |event: Event| {
            let on = event.target_unchecked_into::<HtmlInputElement>().checked();
            emit.emit(BatchSettings { continuity_correction: on, ..settings });
        })
    };
    let on_group = {
        let emit = props.on_settings.clone();
        Callback::from(move |event: Event| {
            let value = event.target_unchecked_into::<HtmlSelectElement>().value();
            emit.emit(BatchSettings { group_by: GroupBy::from_name(&value), ..settings });
        })
    };
    let on_threshold = {
        let (emit, problem) = (props.on_settings.clone(), problem.clone());
        Callback::from(move |event: Event| {
            let text = event.target_unchecked_into::<HtmlInputElement>().value();
            match text.trim().parse::<f64>().ok().filter(|p| (0.0..=100.0).contains(p)) {
                Some(p) => {
                    problem.set(None);
                    emit.emit(BatchSettings { threshold: p / 100.0, ..settings });
                }
                None => problem.set(Some(format!("Threshold: {text:?} is not a percentage from 0 to 100."))),
            }
        })
    };
    let reading = |value: Reading| {
        let emit = props.on_settings.clone();
        html! {
            <label><input type="radio" name="reading" id={format!("reading-{}", value.label().replace(' ', "-"))}
                checked={settings.reading == value} disabled={!props.reviewed}
                onchange={Callback::from(move |_: Event| emit.emit(BatchSettings { reading: value, ..settings }))} />{ value.label() }</label>
        }
    };
    let group_value = settings.group_by.map_or("", GroupBy::as_str);
    html! {
        <form class="controls" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
            <label>{ "Confidence level (%) " }
                <input id="confidence" type="number" min="50.1" max="99.9" step="0.1" value={format!("{}", settings.confidence * 100.0)} onchange={on_confidence} />
            </label>
            <label><input id="continuity" type="checkbox" checked={settings.continuity_correction} onchange={on_correction} />{ " continuity correction" }</label>
            <label>{ "Group by " }
                <select id="group-by" onchange={on_group}>
                    <option value="" selected={group_value.is_empty()}>{ "no grouping" }</option>
                    <option value="agent" selected={group_value == "agent"}>{ "agent" }</option>
                    <option value="scenario_family" selected={group_value == "scenario_family"}>{ "scenario family" }</option>
                    <option value="folder" selected={group_value == "folder"}>{ "folder" }</option>
                </select>
            </label>
            <fieldset class="reading"><legend>{ "Rates" }</legend>{ reading(Reading::AsDetected) }{ reading(Reading::AsReviewed) }</fieldset>
            <label>{ "Forest plot threshold (%) " }
                <input id="threshold" type="number" min="0" max="100" step="1" value={format!("{}", settings.threshold * 100.0)} onchange={on_threshold} />
            </label>
            if let Some(message) = &*problem { <p class="error-message" role="alert">{ message }</p> }
        </form>
    }
}

/// " (as reviewed)" after what a review changes, when the rates are read so.
fn reading_label(reading: Reading) -> &'static str {
    match reading {
        Reading::AsReviewed => " (as reviewed)",
        Reading::AsDetected => "",
    }
}

fn verdict_table(s: &BatchSummary, method: &IntervalMethod) -> Html {
    html! {
        <table class="verdict-table" aria-label="Verdicts">
            <caption>{ "Verdicts" }{ reading_label(s.reading) }</caption>
            <thead><tr>
                <th scope="col">{ "Verdict" }</th><th scope="col" class="num">{ "Runs" }</th>
                <th scope="col" class="num">{ "Share" }</th><th scope="col">{ format!("{}% interval", method.confidence_label()) }</th>
            </tr></thead>
            <tbody>
                { for s.verdicts.iter().map(|v| html! {
                    <tr data-verdict={v.verdict.as_str()} data-count={v.count.to_string()}>
                        <td><span class={classes!("verdict", verdict_class(v.verdict.as_str()))}>{ v.verdict.as_str() }</span></td>
                        <td class="num">{ v.count }</td>
                        <td class="num">{ percent(v.share.rate) }</td>
                        <td>{ interval_text(&v.share) }</td>
                    </tr>
                }) }
            </tbody>
        </table>
    }
}

fn stats_table(s: &BatchSummary) -> Html {
    let fixed = |v: Option<f64>, dp: usize| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.dp$}"));
    html! {
        <table class="stats-table" aria-label="Risk Index and privacy score">
            <caption>{ "Risk Index and privacy score" }{ reading_label(s.reading) }</caption>
            <thead><tr><th scope="col">{ "" }</th><th scope="col" class="num">{ "Mean" }</th><th scope="col" class="num">{ "Median" }</th>
                <th scope="col" class="num">{ "Min" }</th><th scope="col" class="num">{ "Max" }</th></tr></thead>
            <tbody>
                <tr data-stat="risk_index"><th scope="row">{ "Risk Index" }</th>
                    <td class="num">{ fixed(s.risk_index.mean, 4) }</td><td class="num">{ fixed(s.risk_index.median, 4) }</td>
                    <td class="num">{ fixed(s.risk_index.min, 4) }</td><td class="num">{ fixed(s.risk_index.max, 4) }</td></tr>
                <tr data-stat="privacy_score"><th scope="row">{ "Privacy score" }</th>
                    <td class="num">{ fixed(s.privacy_score.mean, 1) }</td><td class="num">{ fixed(s.privacy_score.median, 1) }</td>
                    <td class="num">{ fixed(s.privacy_score.min, 0) }</td><td class="num">{ fixed(s.privacy_score.max, 0) }</td></tr>
            </tbody>
        </table>
    }
}

fn rates_table(rates: &[agentrisk::batch::table::RateRow], header: &[String; 7]) -> Html {
    html! {
        <div class="table-wrap">
            <table id="rates-table" class="rates-table">
                <caption>{ "Rates: k runs out of n, the share, and its interval" }</caption>
                <thead><tr>{ for header.iter().enumerate().map(|(i, h)| html! {
                    <th scope="col" class={classes!((2..=4).contains(&i).then_some("num"))}>{ h }</th>
                }) }</tr></thead>
                <tbody>
                    { for rates.iter().map(|row| {
                        let cells = rate_cells(row);
                        html! {
                            <tr data-group={row.group.clone()} data-metric={row.metric.clone()}
                                data-k={row.rate.k.to_string()} data-n={row.rate.n.to_string()}>
                                { for cells.iter().enumerate().map(|(i, c)| html! {
                                    <td class={classes!((2..=4).contains(&i).then_some("num"))}>{ c }</td>
                                }) }
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
        </div>
    }
}

fn redteam_block(rt: &agentrisk::batch::RedTeamSummary) -> Html {
    let fixed = |v: Option<f64>| v.map_or_else(|| "—".to_owned(), |v| format!("{v:.4}"));
    html! {
        <section class="redteam" aria-label="Red-team metrics" data-runs={rt.runs.to_string()}
            data-scenarios={rt.scenarios.to_string()} data-asr={rt.asr.rate.map(|r| r.to_string()).unwrap_or_default()}
            data-elr-mean={rt.elr.mean.map(|v| v.to_string()).unwrap_or_default()}
            data-elr-median={rt.elr.median.map(|v| v.to_string()).unwrap_or_default()}
            data-ri-mean={rt.risk_index.mean.map(|v| v.to_string()).unwrap_or_default()}>
            <h3>{ "Red-team metrics" }</h3>
            <p>{ format!(
                "{} results over {} scenarios. Attack success rate {} ({} of {}). Exposure leak rate per run (expected types found over vault fields; a ratio, so no interval): mean {}, median {}, min {}, max {}.",
                rt.runs, rt.scenarios, percent(rt.asr.rate), rt.asr.k, rt.asr.n,
                fixed(rt.elr.mean), fixed(rt.elr.median), fixed(rt.elr.min), fixed(rt.elr.max)
            ) }</p>
            <p class="muted">{ "ASR by family and class and the channel leak rates (CLR) are in the rates table." }</p>
        </section>
    }
}

/// Channel × run heatmap of per-channel RI; a cell opens its run.
fn channel_run_heatmap(rows: &[&BatchRow], on_open: &Callback<u32>) -> Html {
    let channels = disclosure_channels();
    let labels: Vec<String> = channels.iter().map(|c| c.as_str().to_owned()).collect();
    let columns: Vec<String> = (1..=rows.len()).map(|i| format!("#{i}")).collect();
    let values: Vec<Vec<Option<f64>>> = rows
        .iter()
        .map(|r| {
            channels
                .iter()
                .map(|&c| match &r.facts.event_channels {
                    Some(events) if !events.contains(&c) && !r.facts.leaked_on(c) => None,
                    _ => Some(r.facts.ri_on(c)),
                })
                .collect()
        })
        .collect();
    let names: Vec<String> =
        rows.iter().enumerate().map(|(i, r)| format!("Run #{} {} ({})", i + 1, r.facts.run_id, r.facts.file)).collect();
    let targets: Vec<Option<u32>> = rows.iter().map(|r| r.row).collect();
    let on_cell = {
        let on_open = on_open.clone();
        Callback::from(move |column: usize| {
            if let Some(Some(id)) = targets.get(column) {
                on_open.emit(*id);
            }
        })
    };
    let canvas = rows.len() * channels.len() > SVG_CELL_LIMIT;
    // On paper the chart's numbers go below it, run by run, and the run
    // table leaves its channel columns out (too wide for a portrait page).
    let print_table = html! {
        <table class="print-table heat-run-table" id="heat-run-table">
            <thead><tr>
                <th scope="col" class="num">{ "#" }</th><th scope="col">{ "Run id" }</th>
                { for channels.iter().map(|c| html! { <th scope="col" class="num">{ "RI " }{ ident(c.as_str()) }</th> }) }
            </tr></thead>
            <tbody>{ for rows.iter().zip(&values).enumerate().take(RUN_ROWS_SHOWN).map(|(i, (r, cells))| html! {
                <tr>
                    <td class="num">{ format!("#{}", i + 1) }</td><td>{ ident(&r.facts.run_id) }</td>
                    { for cells.iter().map(|v| html! { <td class="num">{ v.map_or_else(|| "—".to_owned(), format_ri) }</td> }) }
                </tr>
            }) }</tbody>
        </table>
    };
    html! {
        <section class="chart-block" aria-labelledby="heat-run-title">
            <h3 id="heat-run-title">{ "Risk Index by channel and run" }</h3>
            <p class="muted">{ "Each cell is a run's RI on one channel (its weighted leaked secrets there over the run's vault). Grey: the run has no events on that channel. Hover or focus a cell for its run and value; click it to open the run. " }
                <span class="screen-only">{ "The run table below lists the same numbers." }</span>
                <span class="print-only">{ "The table below the chart lists the same numbers, by run number." }</span></p>
            <HeatmapView id="heat-run" title="RI by channel and run" rows={labels} columns={columns} values={values}
                column_names={names} max={1.0} unit={Unit::RiskIndex} empty="no events on this channel"
                on_cell={on_cell} canvas={canvas} cell_width={26.0} />
            { print_table }
        </section>
    }
}

/// Channel × level heatmap of distinct leaked secrets, with its table.
fn channel_level_heatmap(rows: &[&BatchRow]) -> Html {
    let facts: Vec<RunFacts> = rows.iter().map(|r| r.facts.clone()).collect();
    let totals = channel_level_leaks(&facts);
    let labels: Vec<String> = totals.iter().map(|(c, _)| c.as_str().to_owned()).collect();
    let columns: Vec<String> = Level::ALL.iter().map(|l| format!("{} {}", l.label(), l.badge())).collect();
    let values: Vec<Vec<Option<f64>>> =
        Level::ALL.iter().map(|&l| totals.iter().map(|(_, p)| Some(p.get(l) as f64)).collect()).collect();
    let max = totals.iter().flat_map(|(_, p)| p.counts()).max().unwrap_or(0) as f64;
    html! {
        <section class="chart-block" aria-labelledby="heat-level-title">
            <h3 id="heat-level-title">{ "Leaked secrets by channel and level" }</h3>
            <p class="muted">{ "Distinct leaked secrets (data type and redacted value) per channel, summed over the runs." }</p>
            <div class="chart-pair">
                <HeatmapView id="heat-level" title="Leaked secrets by channel and level" rows={labels} columns={columns.clone()}
                    column_names={columns} values={values} max={max.max(1.0)} unit={Unit::LeakedSecrets}
                    empty="none" on_cell={Callback::noop()} canvas={false} cell_width={70.0} />
                <table class="level-table" id="level-table">
                    <thead><tr><th scope="col">{ "Channel" }</th>{ for Level::ALL.iter().map(|l| html! { <th scope="col" class="num">{ l.label() }</th> }) }</tr></thead>
                    <tbody>{ for totals.iter().map(|(c, p)| html! {
                        <tr data-channel={c.as_str()}><th scope="row">{ c.as_str() }</th>
                            { for p.counts().iter().map(|n| html! { <td class="num">{ n }</td> }) }</tr>
                    }) }</tbody>
                </table>
            </div>
        </section>
    }
}

fn forest(s: &BatchSummary, threshold: f64) -> Html {
    let rows: Vec<ForestRow> = s
        .channel_leak_rates
        .iter()
        .map(|c| ForestRow {
            label: format!("{} (n={})", c.channel.as_str(), c.rate.n),
            estimate: match (c.rate.rate, c.rate.lower, c.rate.upper) {
                (Some(r), Some(l), Some(u)) => Some((r, l, u)),
                _ => None,
            },
        })
        .collect();
    let chart = match forest_svg("Leak rate by channel", &rows, threshold) {
        Ok(svg) => Html::from_html_unchecked(AttrValue::from(svg)),
        Err(message) => html! { <p class="error-message">{ message }</p> },
    };
    html! {
        <section class="chart-block" aria-labelledby="forest-title">
            <h3 id="forest-title">{ "Per-channel leak rates with intervals" }</h3>
            <p class="muted">{ format!("Dots: share of runs that leaked on the channel; bars: the interval; dashed line: the threshold ({}).", percent(Some(threshold))) }</p>
            <div class="chart-pair">
                <div class="chart svg-chart" id="forest" role="img" aria-label="Forest plot of per-channel leak rates; the table beside it has the numbers">{ chart }</div>
                <table class="forest-table" id="forest-table">
                    <thead><tr><th scope="col">{ "Channel" }</th><th scope="col" class="num">{ "k" }</th><th scope="col" class="num">{ "n" }</th>
                        <th scope="col" class="num">{ "Rate" }</th><th scope="col">{ "Interval" }</th><th scope="col">{ "Above threshold" }</th></tr></thead>
                    <tbody>{ for s.channel_leak_rates.iter().map(|c| {
                        let above = match c.rate.lower { Some(l) if l > threshold => "yes, even its lower bound", _ => match c.rate.rate { Some(r) if r > threshold => "rate only", Some(_) => "no", None => "—" } };
                        html! {
                            <tr data-channel={c.channel.as_str()}>
                                <th scope="row">{ c.channel.as_str() }{ if c.n_from_reports { " *" } else { "" } }</th>
                                <td class="num">{ c.rate.k }</td><td class="num">{ c.rate.n }</td>
                                <td class="num">{ percent(c.rate.rate) }</td><td>{ interval_text(&c.rate) }</td><td>{ above }</td>
                            </tr>
                        }
                    }) }</tbody>
                </table>
            </div>
            if s.channel_leak_rates.iter().any(|c| c.n_from_reports) {
                <p class="muted">{ "* n counts runs loaded from reports, whose events are unknown: every such run counts as having events on the channel." }</p>
            }
        </section>
    }
}

/// What the rates rest on, as `agentrisk batch` says it: how many runs
/// were made from span exports (and by which mapping), and how many had no
/// events, so that their Passes are not read as clean runs.
fn batch_notes(rows: &[BatchRow]) -> Vec<String> {
    let mut notes = Vec::new();
    let mut mappings: Vec<&str> = rows.iter().filter_map(|r| r.facts.span_mapping.map(|m| m.as_str())).collect();
    let from_spans = mappings.len();
    agentrisk::util::sort(&mut mappings);
    mappings.dedup();
    if from_spans > 0 {
        let plural = if mappings.len() > 1 { "mappings" } else { "mapping" };
        notes.push(format!("{from_spans} runs made from span exports ({} {plural})", mappings.join(" and ")));
    }
    let empty = rows.iter().filter(|r| r.facts.no_events).count();
    if empty > 0 {
        notes.push(format!("{empty} runs had no events: nothing was analysed in them"));
    }
    notes
}

/// Removes the run's file (a span export with all its runs); a
/// scorecard's rows are removed with their scorecard, in the Runs tab.
fn remove_button(row: &BatchRow, on_remove: &Callback<u32>) -> Html {
    match row.row {
        Some(id) => {
            let onclick = on_remove.reform(move |_: MouseEvent| id);
            let spans = row.facts.source == RunSource::Trace && row.facts.span_mapping.is_some();
            let label = if spans {
                format!("Remove {} from the batch: the span export, with all its runs", row.facts.file)
            } else {
                format!("Remove {} from the batch", row.facts.file)
            };
            html! { <button type="button" class="icon-button" aria-label={label.clone()} title={label} {onclick}>{ "×" }</button> }
        }
        None => html! {},
    }
}

/// The runs in table order: by group (when grouped), then by the sort column.
fn sorted_rows<'a>(rows: &[&'a BatchRow], sort: Sort, group_by: Option<GroupBy>) -> Vec<&'a BatchRow> {
    let mut keyed: Vec<(String, &BatchRow)> =
        rows.iter().map(|r| (group_by.map(|by| group_key(&r.facts, by)).unwrap_or_default(), *r)).collect();
    agentrisk::util::sort_by(&mut keyed, |a, b| {
        let by_value = sort.column.compare(&a.1.facts, &b.1.facts);
        a.0.cmp(&b.0).then(if sort.descending { by_value.reverse() } else { by_value })
    });
    keyed.into_iter().map(|(_, r)| r).collect()
}

fn runs_csv(rows: &[&BatchRow], group_by: Option<GroupBy>, reading: Reading) -> String {
    let channels = disclosure_channels();
    let mut header: Vec<String> = group_by.map(|_| "Group".to_owned()).into_iter().collect();
    // The run table is always as detected: said so when the rates are not.
    let detected = if reading == Reading::AsReviewed { " (as detected)" } else { "" };
    header.extend(RunColumn::ALL.iter().map(|c| match c.is_identifier() {
        true => c.title().to_owned(),
        false => format!("{}{detected}", c.title()),
    }));
    header.extend(channels.iter().map(|c| format!("RI {}", c.as_str())));
    let body = rows.iter().map(|r| {
        let mut cells: Vec<String> = group_by.map(|by| group_key(&r.facts, by)).into_iter().collect();
        cells.extend(run_cells(&r.facts));
        cells.extend(channels.iter().map(|&c| format_ri(r.facts.ri_on(c))));
        cells
    });
    to_csv(&header, body)
}

fn run_table(
    rows: &[&BatchRow],
    group_by: Option<GroupBy>,
    reading: Reading,
    sort: &UseStateHandle<Sort>,
    on_remove: &Callback<u32>,
) -> Html {
    let channels = disclosure_channels();
    let current = **sort;
    let head = |column: RunColumn| {
        let sort = sort.clone();
        let onclick = Callback::from(move |_: MouseEvent| {
            let descending = current.column == column && !current.descending;
            sort.set(Sort { column, descending });
        });
        let state = if current.column == column {
            if current.descending {
                "descending"
            } else {
                "ascending"
            }
        } else {
            "none"
        };
        html! {
            <th scope="col" class={classes!(column.is_numeric().then_some("num"))} aria-sort={state}>
                <button type="button" class="sort" {onclick}>{ column.title() }</button>
            </th>
        }
    };
    html! {
        <section class="chart-block" aria-labelledby="batch-runs-title">
            <h3 id="batch-runs-title">{ "Runs of the batch" }{ if reading == Reading::AsReviewed { " (as detected)" } else { "" } }</h3>
            if rows.len() > RUN_ROWS_SHOWN {
                <p class="muted">{ format!("The first {RUN_ROWS_SHOWN} of {} runs are listed; Runs CSV has all of them.", rows.len()) }</p>
            }
            <div class="table-wrap">
                <table id="batch-run-table" class="batch-run-table">
                    <thead><tr>
                        if group_by.is_some() { <th scope="col">{ "Group" }</th> }
                        { for RunColumn::ALL.into_iter().map(head) }
                        { for channels.iter().map(|c| html! { <th scope="col" class="num channel-ri">{ "RI " }{ ident(c.as_str()) }</th> }) }
                        <th scope="col" class="remove"><span class="visually-hidden">{ "Remove" }</span></th>
                    </tr></thead>
                    <tbody>{ for rows.iter().take(RUN_ROWS_SHOWN).map(|r| html! {
                        <tr data-run-id={r.facts.run_id.clone()}>
                            if let Some(by) = group_by { <td>{ ident(&group_key(&r.facts, by)) }</td> }
                            { for RunColumn::ALL.into_iter().zip(run_cells(&r.facts)).map(|(column, text)| match column {
                                _ if column.is_identifier() => html! { <td>{ ident(&text) }</td> },
                                _ if column.is_numeric() => html! { <td class="num">{ text }</td> },
                                _ => html! { <td>{ text }</td> },
                            }) }
                            { for channels.iter().map(|&c| html! { <td class="num channel-ri">{ format_ri(r.facts.ri_on(c)) }</td> }) }
                            <td class="remove">{ remove_button(r, on_remove) }</td>
                        </tr>
                    }) }</tbody>
                </table>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentrisk::batch::table::RUN_HEADER;

    #[test]
    fn the_run_table_columns_are_the_cores_in_its_order() {
        assert_eq!(RunColumn::ALL.map(RunColumn::title), RUN_HEADER);
    }

    fn row(run_id: &str, risk_index: f64, levels: [u64; 4], folder: &str) -> BatchRow {
        let [l1, l2, l3, l4] = levels;
        let facts = serde_json::json!({
            "file": format!("{run_id}.json"), "folder": folder, "source": "trace", "run_id": run_id,
            "risk_index": risk_index, "privacy_score": 100 - (risk_index * 100.0) as i64, "verdict": "Fail",
            "blocked": false, "leaked_secrets": l1 + l2 + l3 + l4, "vault_secrets": 9,
            "level_profile": { "L1": l1, "L2": l2, "L3": l3, "L4": l4 }, "vault_level_profile": {},
            "channel_ri": {}, "channel_leaks": {}, "event_channels": null,
        });
        match serde_json::from_value(facts) {
            Ok(facts) => BatchRow { row: None, facts },
            Err(e) => panic!("test facts for {run_id}: {e}"),
        }
    }

    fn ids(rows: &[&BatchRow]) -> Vec<String> {
        rows.iter().map(|r| r.facts.run_id.clone()).collect()
    }

    #[test]
    fn the_run_table_sorts_by_the_named_column_with_numbers_as_numbers() {
        let rows =
            [row("b", 0.25, [5, 0, 0, 0], "x"), row("a", 0.125, [0, 0, 0, 1], "y"), row("c", 1.0, [0, 2, 0, 0], "x")];
        let all: Vec<&BatchRow> = rows.iter().collect();
        let by = |column, descending| ids(&sorted_rows(&all, Sort { column, descending }, None));
        assert_eq!(by(RunColumn::RunId, false), ["a", "b", "c"]);
        assert_eq!(by(RunColumn::RiskIndex, false), ["a", "b", "c"]);
        assert_eq!(by(RunColumn::RiskIndex, true), ["c", "b", "a"]);
        // 0.125 rounds to 0.1250 but its privacy score is the highest.
        assert_eq!(by(RunColumn::PrivacyScore, false), ["c", "b", "a"]);
        // An L4 leak outranks five L1 leaks, whatever the counts' text says.
        assert_eq!(by(RunColumn::LeakedByLevel, true), ["a", "c", "b"]);
        assert_eq!(by(RunColumn::LeakedSecrets, true), ["b", "c", "a"]);
        // Grouped: by group first, then the column within each group.
        let grouped = sorted_rows(&all, Sort { column: RunColumn::RiskIndex, descending: true }, Some(GroupBy::Folder));
        assert_eq!(ids(&grouped), ["c", "b", "a"]);
        let grouped = sorted_rows(&all, Sort { column: RunColumn::RunId, descending: false }, Some(GroupBy::Folder));
        assert_eq!(ids(&grouped), ["b", "c", "a"]);
    }
}
