//! The Compare tab: two runs side by side with deltas and the secrets only
//! one of them leaked, or two groups of runs with both intervals per rate.

use crate::components::download::print_page;
use crate::components::text::shown;
use crate::state::{BatchRow, BatchSettings, FileEntry, FileStatus};
use agentrisk::batch::table::{interval_text, percent};
use agentrisk::batch::LeakedSecret;
use agentrisk::batch::{summarize, RunFacts};
use agentrisk::compare::{diff, Side};
use agentrisk::stats::IntervalMethod;
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub files: Vec<FileEntry>,
    pub rows: Rc<Vec<BatchRow>>,
    pub settings: BatchSettings,
}

/// What can be picked: `run:<file id>` or `group:<key>`.
fn options(props: &CompareProps, groups: &[String]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = props
        .files
        .iter()
        .filter(|f| matches!(f.status, FileStatus::Loaded(_)))
        .map(|f| (format!("run:{}", f.id), format!("run {}", f.name)))
        .collect();
    out.extend(groups.iter().map(|g| (format!("group:{g}"), format!("group {g}"))));
    out
}

#[function_component(CompareView)]
pub fn compare_view(props: &CompareProps) -> Html {
    let a = use_state(String::new);
    let b = use_state(String::new);
    let method =
        IntervalMethod::new(props.settings.confidence, props.settings.continuity_correction).unwrap_or_default();
    let summary = {
        let facts: Vec<RunFacts> = props.rows.iter().map(|r| r.facts.clone()).collect();
        summarize(&facts, &[], method, props.settings.group_by)
    };
    let groups: Vec<String> = summary.groups.keys().cloned().collect();
    let choices = options(props, &groups);
    let picker = |id: &'static str, label: &'static str, value: &UseStateHandle<String>| {
        let handle = value.clone();
        let onchange =
            Callback::from(move |e: Event| handle.set(e.target_unchecked_into::<HtmlSelectElement>().value()));
        html! {
            <label>{ label }{ " " }
                <select {id} {onchange}>
                    <option value="" selected={value.is_empty()}>{ "choose…" }</option>
                    { for choices.iter().map(|(v, text)| html! { <option value={v.clone()} selected={**value == *v}>{ text }</option> }) }
                </select>
            </label>
        }
    };
    let run_of = |choice: &str| {
        let id: u32 = choice.strip_prefix("run:")?.parse().ok()?;
        props.files.iter().find(|f| f.id == id).and_then(|f| match &f.status {
            FileStatus::Loaded(run) => Some((f.name.clone(), run.clone())),
            _ => None,
        })
    };
    let group_runs = |key: &str| -> Vec<RunFacts> {
        props
            .rows
            .iter()
            .filter(|r| props.settings.group_by.is_some_and(|by| agentrisk::batch::group_key(&r.facts, by) == key))
            .map(|r| r.facts.clone())
            .collect()
    };
    let gate = |blocked: bool| if blocked { "blocked".to_owned() } else { "not blocked".to_owned() };
    let direction = |d: agentrisk::compare::Direction| match d {
        agentrisk::compare::Direction::Better => "better",
        agentrisk::compare::Direction::Worse => "worse",
        _ => "same",
    };
    let group_of =
        |choice: &str| choice.strip_prefix("group:").and_then(|k| summary.groups.get(k).map(|g| (k.to_owned(), g)));

    let body = match ((run_of(&a), run_of(&b)), (group_of(&a), group_of(&b))) {
        ((Some((na, ra)), Some((nb, rb))), _) => {
            let d = diff(
                Side { name: &na, runs: std::slice::from_ref(ra.facts()) },
                Side { name: &nb, runs: std::slice::from_ref(rb.facts()) },
                method,
                &[],
            );
            let Some(c) = d.runs.first() else { return html! {} };
            let (only_in_a, only_in_b) =
                (c.resolved_leaks.clone().unwrap_or_default(), c.new_leaks.clone().unwrap_or_default());
            let deltas: Vec<(&str, String, String, Option<f64>)> = vec![
                (
                    "Risk Index",
                    format!("{:.4}", c.base.risk_index),
                    format!("{:.4}", c.new.risk_index),
                    Some(c.risk_index_change),
                ),
                (
                    "Privacy score",
                    c.base.privacy_score.to_string(),
                    c.new.privacy_score.to_string(),
                    Some(c.privacy_score_change as f64),
                ),
                ("Verdict", c.base.verdict.clone(), c.new.verdict.clone(), None),
                ("Gate", gate(c.base.blocked), gate(c.new.blocked), None),
                (
                    "Leaked secrets",
                    c.base.leaked_secrets.to_string(),
                    c.new.leaked_secrets.to_string(),
                    Some(c.new.leaked_secrets as f64 - c.base.leaked_secrets as f64),
                ),
                (
                    "Vault secrets",
                    c.base.vault_secrets.to_string(),
                    c.new.vault_secrets.to_string(),
                    Some(c.new.vault_secrets as f64 - c.base.vault_secrets as f64),
                ),
            ];
            let secret_rows = |list: &[LeakedSecret]| {
                list.iter()
                    .map(|s| html! {
                        <tr data-type={s.data_type.clone()} data-channel={s.channel.as_str()}>
                            <td>{ shown(&s.data_type) }</td><td class="mono">{ shown(&s.redacted_value) }</td><td class="mono">{ s.channel.as_str() }</td>
                        </tr>
                    })
                    .collect::<Html>()
            };
            let limited =
                ra.findings_total() > ra.report().findings.len() || rb.findings_total() > rb.report().findings.len();
            html! {
                <>
                    <table class="compare-table" id="compare-deltas">
                        <thead><tr><th scope="col">{ "" }</th><th scope="col">{ format!("A: {na}") }</th><th scope="col">{ format!("B: {nb}") }</th><th scope="col" class="num">{ "B − A" }</th></tr></thead>
                        <tbody>{ for deltas.iter().map(|(field, a, b, change)| html! {
                            <tr data-field={*field}>
                                <th scope="row">{ *field }</th><td>{ a }</td><td>{ b }</td>
                                <td class="num">{ change.map(|v| if v == 0.0 { "0".to_owned() } else if *field == "Risk Index" { format!("{v:+.4}") } else { format!("{v:+.0}") }).unwrap_or_else(|| if a == b { "same".into() } else { "changed".into() }) }</td>
                            </tr>
                        }) }</tbody>
                    </table>
                    if limited { <p class="muted">{ "One of the runs has more findings than the page holds; the secret lists cover the listed findings." }</p> }
                    <div class="batch-grid">
                        <section>
                            <h3>{ format!("Leaked in A, not in B ({})", only_in_a.len()) }</h3>
                            <table id="only-in-a"><thead><tr><th scope="col">{ "Data type" }</th><th scope="col">{ "Value (redacted)" }</th><th scope="col">{ "Channel" }</th></tr></thead>
                                <tbody>{ secret_rows(&only_in_a) }</tbody></table>
                        </section>
                        <section>
                            <h3>{ format!("Leaked in B, not in A ({})", only_in_b.len()) }</h3>
                            <table id="only-in-b"><thead><tr><th scope="col">{ "Data type" }</th><th scope="col">{ "Value (redacted)" }</th><th scope="col">{ "Channel" }</th></tr></thead>
                                <tbody>{ secret_rows(&only_in_b) }</tbody></table>
                        </section>
                    </div>
                    <p class="muted">{ format!("{} leaked secrets are in both.", c.unchanged_leaks.unwrap_or(0)) }</p>
                    <h3>{ "Channels" }</h3>
                    <table id="compare-channels">
                        <thead><tr><th scope="col">{ "Channel" }</th><th scope="col" class="num">{ "RI in A" }</th><th scope="col" class="num">{ "RI in B" }</th><th scope="col">{ "B is" }</th></tr></thead>
                        <tbody>{ for c.channel_changes.iter().map(|ch| html! {
                            <tr data-channel={ch.channel.as_str()} data-direction={direction(ch.direction())}>
                                <td class="mono">{ ch.channel.as_str() }</td><td class="num">{ format!("{:.4}", ch.base) }</td>
                                <td class="num">{ format!("{:.4}", ch.new) }</td><td>{ direction(ch.direction()) }</td>
                            </tr>
                        }) }</tbody>
                    </table>
                </>
            }
        }
        (_, (Some((ka, ga)), Some((kb, gb)))) => {
            let (ra, rb) = (group_runs(&ka), group_runs(&kb));
            let pairs = diff(Side { name: &ka, runs: &ra }, Side { name: &kb, runs: &rb }, method, &[]).rates;
            html! {
                <table class="compare-table" id="compare-groups">
                    <caption>{ format!("Every rate with its {}", method.describe()) }</caption>
                    <thead><tr><th scope="col">{ "Metric" }</th><th scope="col">{ format!("A: {ka} ({} runs)", ga.runs) }</th>
                        <th scope="col">{ format!("B: {kb} ({} runs)", gb.runs) }</th><th scope="col">{ "Intervals" }</th></tr></thead>
                    <tbody>{ for pairs.iter().map(|p| {
                        let cell = |r: &agentrisk::stats::Rate| format!("{}/{} · {} ({})", r.k, r.n, percent(r.rate), interval_text(r));
                        let overlap = match (p.base.lower, p.base.upper, p.new.lower, p.new.upper) { (Some(al), Some(au), Some(bl), Some(bu)) => if al <= bu && bl <= au { "overlap" } else { "do not overlap" }, _ => "—" };
                        html! { <tr data-metric={p.label.clone()} data-overlap={overlap}><th scope="row">{ &p.label }</th><td>{ cell(&p.base) }</td><td>{ cell(&p.new) }</td><td>{ overlap }</td></tr> }
                    }) }</tbody>
                </table>
            }
        }
        _ => html! {
            <p class="muted">{ "Pick two runs, or two groups (set a grouping in the Batch tab first), to compare them." }</p>
        },
    };
    html! {
        <section class="batch compare" aria-labelledby="compare-title">
            <header class="detail-head">
                <h2 id="compare-title">{ "Compare" }</h2>
                <div class="actions">
                    <button type="button" class="button" id="print-compare" onclick={Callback::from(|_: MouseEvent| print_page("compare"))}>{ "Print" }</button>
                </div>
            </header>
            <form class="controls" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                { picker("compare-a", "A", &a) }
                { picker("compare-b", "B", &b) }
            </form>
            { body }
        </section>
    }
}
