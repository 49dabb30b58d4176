//! The Trend view: the loaded batches (scorecards opened on their own, and
//! the folders opened) over time, as `agentrisk history` lists them — one
//! core call, `agentrisk::compare::history::history`, in its order (by
//! `generated_at`, else by name). A chart of the leak rate with its
//! interval band, the block rate and the mean RI above the verdict shares,
//! with the table of the same numbers beside it; a batch's name opens it in
//! the Batch tab.

use crate::charts::trend_svg;
use crate::components::download::{download, print_page};
use crate::components::ident::ident;
use crate::state::{BatchSettings, LoadedBatch};
use agentrisk::batch::table::{format_ri, interval_text, percent};
use agentrisk::batch::RunFacts;
use agentrisk::compare::history::{history, HistoryInput};
use agentrisk::stats::IntervalMethod;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TrendProps {
    /// The batches opened: scorecards on their own, and folders.
    pub batches: Rc<Vec<LoadedBatch>>,
    pub settings: BatchSettings,
    /// Opens a batch (its key) in the Batch tab.
    pub on_open: Callback<String>,
}

/// A `generated_at` as a short date and time (`2026-12-07 09:30 UTC` for a
/// UTC time; the whole value is the cell's title), or how the batch is
/// ordered without one.
fn when(generated_at: Option<&str>) -> String {
    match generated_at {
        Some(at) => match (at.get(..10), at.get(11..16), at.ends_with("+00:00") || at.ends_with('Z')) {
            (Some(day), Some(time), true) if at.get(10..11) == Some("T") => format!("{day} {time} UTC"),
            _ => at.to_owned(),
        },
        None => "ordered by name".to_owned(),
    }
}

#[function_component(TrendView)]
pub fn trend_view(props: &TrendProps) -> Html {
    let method =
        IntervalMethod::new(props.settings.confidence, props.settings.continuity_correction).unwrap_or_default();
    let runs: Vec<Vec<RunFacts>> =
        props.batches.iter().map(|b| b.rows.iter().map(|r| r.facts.clone()).collect()).collect();
    let inputs: Vec<HistoryInput<'_>> = props
        .batches
        .iter()
        .zip(&runs)
        .map(|(b, runs)| HistoryInput { name: &b.name, generated_at: b.generated_at.as_deref(), runs })
        .collect();
    let h = history(&inputs, method);
    if h.batches.len() < 2 {
        return html! {
            <section class="batch trend" aria-labelledby="trend-title">
                <h2 id="trend-title">{ "Trend" }</h2>
                <p class="muted">{ "The Trend view needs two or more batches: open scorecards on their own, or folders of runs (one batch each)." }</p>
            </section>
        };
    }
    let chart = match trend_svg(&h) {
        Ok(svg) => Html::from_html_unchecked(AttrValue::from(svg)),
        Err(message) => html! { <p class="error-message">{ message }</p> },
    };
    let markdown = h.to_markdown();
    let save_markdown =
        Callback::from(move |_: MouseEvent| download("agentrisk-history.md", "text/markdown", &markdown));
    let interval_head = format!("{}% interval", method.confidence_label());
    html! {
        <section class="batch trend" aria-labelledby="trend-title">
            <header class="detail-head">
                <div>
                    <h2 id="trend-title">{ format!("Trend · {} batches", h.batches.len()) }</h2>
                    <p class="muted method">{ format!("Oldest first: by a scorecard's generated_at, else by name, as agentrisk history orders them. Every rate is k of n runs with its {}.", h.method) }</p>
                </div>
                <div class="actions">
                    <button type="button" class="button" id="export-history-markdown" onclick={save_markdown}>{ "Markdown" }</button>
                    <button type="button" class="button" id="print-trend" onclick={Callback::from(|_: MouseEvent| print_page("trend"))}>{ "Print" }</button>
                </div>
            </header>
            <div class="chart-pair trend-pair">
                <div class="chart svg-chart" id="trend-chart" role="img"
                    aria-label="Leak rate with its interval, block rate and mean RI by batch, and verdict shares; the table beside it has the numbers">{ chart }</div>
                <div class="table-wrap">
                    <table class="compare-table trend-table" id="trend-table">
                        <caption class="visually-hidden">{ "The batches' numbers, as agentrisk history prints them" }</caption>
                        <thead><tr>
                            <th scope="col" class="num">{ "#" }</th><th scope="col">{ "Batch" }</th><th scope="col" class="num">{ "Runs" }</th>
                            <th scope="col" class="num">{ "Leak rate" }<br/><span class="sub">{ interval_head.clone() }</span></th>
                            <th scope="col" class="num">{ "Block rate" }<br/><span class="sub">{ interval_head.clone() }</span></th>
                            <th scope="col" class="num">{ "Mean RI" }</th>
                            <th scope="col" class="num">{ "Verdicts" }<br/><abbr class="sub" title="Pass / Conditional pass / High risk / Fail">{ "P / C / H / F" }</abbr></th>
                        </tr></thead>
                        <tbody>{ for h.batches.iter().enumerate().map(|(i, b)| {
                            let key = props.batches.get(b.input).map(|l| l.key.clone()).unwrap_or_default();
                            let onclick = props.on_open.reform(move |_: MouseEvent| key.clone());
                            let verdicts: Vec<String> = b.verdicts.iter().map(|v| v.count.to_string()).collect();
                            let rate = |r: &agentrisk::stats::Rate| html! {
                                <>{ format!("{}/{} · {}", r.k, r.n, percent(r.rate)) }<br/><span class="sub">{ interval_text(r) }</span></>
                            };
                            html! {
                                <tr data-name={b.name.clone()} data-runs={b.runs.to_string()}
                                    data-leak={format!("{}/{}", b.leak_rate.k, b.leak_rate.n)}
                                    data-leak-lower={b.leak_rate.lower.map(|v| v.to_string())} data-leak-upper={b.leak_rate.upper.map(|v| v.to_string())}
                                    data-block={format!("{}/{}", b.block_rate.k, b.block_rate.n)}
                                    data-block-lower={b.block_rate.lower.map(|v| v.to_string())} data-block-upper={b.block_rate.upper.map(|v| v.to_string())}
                                    data-mean-ri={b.mean_risk_index.map(|v| v.to_string())} data-verdicts={verdicts.join(",")}
                                    data-generated-at={b.generated_at.clone()}>
                                    <td class="num">{ format!("#{}", i + 1) }</td>
                                    <th scope="row">
                                        <button type="button" class="link-button open-batch" title="Open this batch in the Batch tab" {onclick}>{ ident(&b.name) }</button>
                                        <br/><span class="sub" title={b.generated_at.clone()}>{ when(b.generated_at.as_deref()) }</span>
                                    </th>
                                    <td class="num">{ b.runs }</td>
                                    <td class="num">{ rate(&b.leak_rate) }</td>
                                    <td class="num">{ rate(&b.block_rate) }</td>
                                    <td class="num">{ b.mean_risk_index.map_or_else(|| "—".to_owned(), format_ri) }</td>
                                    <td class="num">{ verdicts.join(" / ") }</td>
                                </tr>
                            }
                        }) }</tbody>
                    </table>
                </div>
            </div>
            <p class="muted">{ "Verdicts: the runs that passed, passed on conditions, were high risk and failed. A batch's name opens its runs in the Batch tab; the Compare tab puts two batches side by side with the difference of each rate." }</p>
        </section>
    }
}
