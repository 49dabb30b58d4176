//! The Compare tab: what changed from BASE to NEW, each a run, a group of
//! the Batch tab, or a loaded batch (a folder or a scorecard). One core
//! call, `agentrisk::compare::diff`, gives every number, as it does for
//! `agentrisk diff`: for two runs, their headline numbers, the secrets new
//! and resolved and the channels' RI; for two sets of runs, each rate's
//! difference with its Newcombe interval, the paired McNemar line when runs
//! match, the matched runs that changed and the runs without a match. The
//! Markdown export is the CLI's `--format markdown`.

use crate::components::download::{download, print_page};
use crate::components::ident::ident;
use crate::components::text::shown;
use crate::state::{BatchRow, BatchSettings, FileEntry, FileStatus, LoadedBatch};
use agentrisk::batch::table::percent;
use agentrisk::batch::{group_key, summarize, LeakedSecret, RunFacts};
use agentrisk::compare::{diff, difference_method, p_value, Diff, Direction, RateChange, RunDiff, Side};
use agentrisk::stats::{IntervalMethod, Rate};
use std::rc::Rc;
use web_sys::HtmlSelectElement;
use yew::prelude::*;

/// The matched runs and secrets listed on screen at most (the exports have all).
const ROWS_SHOWN: usize = 1_000;

#[derive(Properties, PartialEq)]
pub struct CompareProps {
    pub files: Vec<FileEntry>,
    pub rows: Rc<Vec<BatchRow>>,
    /// The loaded batches: scorecards, and every folder.
    pub batches: Rc<Vec<LoadedBatch>>,
    pub settings: BatchSettings,
}

/// What a picker's value names: `run:<row id>`, `group:<key>` or `batch:<key>`.
struct Chosen {
    name: String,
    runs: Vec<RunFacts>,
    single_run: bool,
}

fn choose(props: &CompareProps, value: &str) -> Option<Chosen> {
    if let Some(id) = value.strip_prefix("run:").and_then(|id| id.parse::<u32>().ok()) {
        let entry = props.files.iter().find(|f| f.id == id)?;
        return match &entry.status {
            FileStatus::Loaded(run) => {
                Some(Chosen { name: entry.label(), runs: vec![run.facts().clone()], single_run: true })
            }
            _ => None,
        };
    }
    if let Some(key) = value.strip_prefix("group:") {
        let by = props.settings.group_by?;
        let runs: Vec<RunFacts> =
            props.rows.iter().filter(|r| group_key(&r.facts, by) == key).map(|r| r.facts.clone()).collect();
        return (!runs.is_empty()).then(|| Chosen { name: key.to_owned(), runs, single_run: false });
    }
    let key = value.strip_prefix("batch:")?;
    let batch = props.batches.iter().find(|b| b.key == key)?;
    Some(Chosen {
        name: batch.name.clone(),
        runs: batch.rows.iter().map(|r| r.facts.clone()).collect(),
        single_run: false,
    })
}

/// The picker's choices, in groups: loaded batches, groups, runs.
fn choices(props: &CompareProps) -> Vec<(&'static str, Vec<(String, String)>)> {
    let batches = props
        .batches
        .iter()
        .map(|b| {
            let kind = if b.scorecard { "scorecard" } else { "folder" };
            (format!("batch:{}", b.key), format!("{kind} {} ({} runs)", b.name, b.rows.len()))
        })
        .collect();
    let groups = match props.settings.group_by {
        Some(by) => {
            let facts: Vec<RunFacts> = props.rows.iter().map(|r| r.facts.clone()).collect();
            let summary = summarize(&facts, &[], IntervalMethod::default(), Some(by));
            summary.groups.keys().map(|g| (format!("group:{g}"), format!("group {g}"))).collect()
        }
        None => Vec::new(),
    };
    let runs = props
        .files
        .iter()
        .filter(|f| matches!(f.status, FileStatus::Loaded(_)))
        .map(|f| (format!("run:{}", f.id), format!("run {}", f.label())))
        .collect();
    vec![("Loaded batches", batches), ("Groups (Batch tab)", groups), ("Runs", runs)]
}

#[function_component(CompareView)]
pub fn compare_view(props: &CompareProps) -> Html {
    let base_choice = use_state(String::new);
    let new_choice = use_state(String::new);
    let method =
        IntervalMethod::new(props.settings.confidence, props.settings.continuity_correction).unwrap_or_default();
    let groups = choices(props);
    let picker = |id: &'static str, label: &'static str, value: &UseStateHandle<String>| {
        let handle = value.clone();
        let onchange =
            Callback::from(move |e: Event| handle.set(e.target_unchecked_into::<HtmlSelectElement>().value()));
        html! {
            <label>{ label }{ " " }
                <select {id} {onchange}>
                    <option value="" selected={value.is_empty()}>{ "choose…" }</option>
                    { for groups.iter().filter(|(_, list)| !list.is_empty()).map(|(title, list)| html! {
                        <optgroup label={*title}>
                            { for list.iter().map(|(v, text)| html! { <option value={v.clone()} selected={**value == *v}>{ text }</option> }) }
                        </optgroup>
                    }) }
                </select>
            </label>
        }
    };
    let compared = match (choose(props, &base_choice), choose(props, &new_choice)) {
        (Some(base), Some(new)) => {
            let d = diff(
                Side { name: &base.name, runs: &base.runs },
                Side { name: &new.name, runs: &new.runs },
                method,
                &[],
            );
            Some((d, base.single_run && new.single_run))
        }
        _ => None,
    };
    // Written when asked for, from the diff shown.
    let export = compared.as_ref().map(|(d, _)| {
        let d = Rc::new(d.clone());
        Callback::from(move |_: MouseEvent| {
            download("agentrisk-diff.md", "text/markdown", &format!("{}\n", d.to_markdown()))
        })
    });
    let body = match &compared {
        Some((d, true)) => match d.runs.first() {
            Some(run) => two_runs(d, run),
            None => html! {},
        },
        Some((d, false)) => two_sets(d, &method),
        None => html! {
            <p class="muted">{ "Pick BASE and NEW: two runs, two loaded batches (folders or scorecards), or two groups (set a grouping in the Batch tab first)." }</p>
        },
    };
    html! {
        <section class="batch compare" aria-labelledby="compare-title">
            <header class="detail-head">
                <div>
                    <h2 id="compare-title">{ "Compare" }</h2>
                    <p class="muted">{ "What changed from BASE to NEW, as " }<code>{ "agentrisk diff BASE NEW" }</code>{ " says it." }</p>
                </div>
                <div class="actions">
                    if let Some(markdown) = export {
                        <button type="button" class="button" id="export-diff-markdown" onclick={markdown}>{ "Markdown" }</button>
                    }
                    <button type="button" class="button" id="print-compare" onclick={Callback::from(|_: MouseEvent| print_page("compare"))}>{ "Print" }</button>
                </div>
            </header>
            <form class="controls" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                { picker("compare-a", "BASE", &base_choice) }
                { picker("compare-b", "NEW", &new_choice) }
            </form>
            { body }
        </section>
    }
}

fn direction_word(direction: Direction) -> &'static str {
    match direction {
        Direction::Better => "better",
        Direction::Worse => "worse",
        Direction::Same => "same",
        Direction::Unknown => "cannot tell",
    }
}

fn gate(blocked: bool) -> &'static str {
    if blocked {
        "blocked"
    } else {
        "not blocked"
    }
}

fn secrets_table(id: &'static str, list: &[LeakedSecret]) -> Html {
    if list.is_empty() {
        return html! { <p class="muted">{ "None." }</p> };
    }
    html! {
        <table {id}>
            <thead><tr><th scope="col">{ "Data type" }</th><th scope="col">{ "Level" }</th><th scope="col">{ "Channel" }</th><th scope="col">{ "Value (redacted)" }</th></tr></thead>
            <tbody>{ for list.iter().take(ROWS_SHOWN).map(|s| html! {
                <tr data-type={s.data_type.clone()} data-channel={s.channel.as_str()} data-level={s.level.label()}>
                    <td>{ shown(&s.data_type) }</td>
                    <td><span class={classes!("level", s.level.badge())}>{ s.level.label() }</span></td>
                    <td class="mono">{ s.channel.as_str() }</td>
                    <td class="mono">{ shown(&s.redacted_value) }</td>
                </tr>
            }) }</tbody>
        </table>
    }
}

fn regressions_list(d: &Diff) -> Html {
    html! {
        <section aria-labelledby="compare-regressions-title">
            <h3 id="compare-regressions-title">{ format!("Regressions ({})", d.regressions.len()) }</h3>
            if d.regressions.is_empty() {
                <p class="muted" id="compare-regressions">{ "None: nothing got worse." }</p>
            } else {
                <ul id="compare-regressions" class="regressions">
                    { for d.regressions.iter().take(ROWS_SHOWN).map(|r| html! { <li>{ shown(r) }</li> }) }
                </ul>
            }
            { for d.notes.iter().map(|n| html! { <p class="muted note">{ shown(n) }</p> }) }
        </section>
    }
}

/// Two runs: headline numbers, secrets new and resolved, channels.
fn two_runs(d: &Diff, c: &RunDiff) -> Html {
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
        ("Gate", gate(c.base.blocked).to_owned(), gate(c.new.blocked).to_owned(), None),
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
    let change = |field: &str, a: &str, b: &str, change: Option<f64>| match change {
        Some(0.0) => "0".to_owned(),
        Some(v) if field == "Risk Index" => format!("{v:+.4}"),
        Some(v) => format!("{v:+.0}"),
        None if a == b => "same".to_owned(),
        None => "changed".to_owned(),
    };
    let leaks = match (&c.new_leaks, &c.resolved_leaks) {
        (Some(new), Some(resolved)) => html! {
            <>
                <div class="batch-grid">
                    <section>
                        <h3>{ format!("New in NEW ({})", new.len()) }</h3>
                        { secrets_table("new-leaks", new) }
                    </section>
                    <section>
                        <h3>{ format!("Resolved: leaked in BASE, not in NEW ({})", resolved.len()) }</h3>
                        { secrets_table("resolved-leaks", resolved) }
                    </section>
                </div>
                <p class="muted">{ format!("{} leaked secrets are in both. A secret is its data type, level, channel and redacted value.", c.unchanged_leaks.unwrap_or(0)) }</p>
            </>
        },
        _ => {
            html! { <p class="muted" id="leaks-unknown">{ "The secrets are unknown: a run comes from a scorecard written without per-run secrets." }</p> }
        }
    };
    html! {
        <>
            <table class="compare-table" id="compare-deltas">
                <thead><tr><th scope="col">{ "" }</th><th scope="col">{ "BASE: " }{ ident(&d.base_name) }</th><th scope="col">{ "NEW: " }{ ident(&d.new_name) }</th><th scope="col" class="num">{ "NEW − BASE" }</th></tr></thead>
                <tbody>{ for deltas.iter().map(|(field, a, b, v)| html! {
                    <tr data-field={*field}>
                        <th scope="row">{ *field }</th><td>{ a }</td><td>{ b }</td>
                        <td class="num">{ change(field, a, b, *v) }</td>
                    </tr>
                }) }</tbody>
            </table>
            { leaks }
            <h3>{ "Channels" }</h3>
            <table id="compare-channels">
                <thead><tr><th scope="col">{ "Channel" }</th><th scope="col" class="num">{ "RI in BASE" }</th><th scope="col" class="num">{ "RI in NEW" }</th><th scope="col">{ "NEW is" }</th></tr></thead>
                <tbody>{ for c.channel_changes.iter().map(|ch| html! {
                    <tr data-channel={ch.channel.as_str()} data-direction={direction_word(ch.direction())}>
                        <td class="mono">{ ch.channel.as_str() }</td><td class="num">{ format!("{:.4}", ch.base) }</td>
                        <td class="num">{ format!("{:.4}", ch.new) }</td><td>{ direction_word(ch.direction()) }</td>
                    </tr>
                }) }</tbody>
            </table>
            { regressions_list(d) }
        </>
    }
}

/// `+3`, `−12`, `0`.
fn signed(value: i64) -> String {
    match value {
        0 => "0".to_owned(),
        v if v > 0 => format!("+{v}"),
        v => format!("−{}", v.unsigned_abs()),
    }
}

fn rate_cell(rate: &Rate) -> String {
    format!("{}/{} · {} ({})", rate.k, rate.n, percent(rate.rate), agentrisk::batch::table::interval_text(rate))
}

/// A difference in percentage points, signed, or an em dash.
fn points(value: Option<f64>) -> String {
    match value {
        Some(v) if (v * 100.0).abs() < 0.05 => "0.0 pts".to_owned(),
        Some(v) => format!("{}{:.1} pts", if v > 0.0 { "+" } else { "−" }, (v * 100.0).abs()),
        None => "—".to_owned(),
    }
}

fn interval(rate: &RateChange) -> String {
    match (rate.lower, rate.upper) {
        (Some(_), Some(_)) => format!("{} to {}", points(rate.lower).trim_end_matches(" pts"), points(rate.upper)),
        _ => "—".to_owned(),
    }
}

/// Two sets of runs: the rates, the paired line, the runs.
fn two_sets(d: &Diff, method: &IntervalMethod) -> Html {
    let changed: Vec<&RunDiff> = d.runs.iter().filter(|r| r.changed()).collect();
    let count =
        |list: &Option<Vec<LeakedSecret>>| list.as_ref().map_or_else(|| "unknown".to_owned(), |l| l.len().to_string());
    let only = |id: &'static str, title: &str, list: &[agentrisk::compare::RunRef]| {
        html! {
            <section>
                <h3>{ format!("{title} ({})", list.len()) }</h3>
                if list.is_empty() { <p class="muted">{ "None." }</p> } else {
                    <ul {id} class="run-list">{ for list.iter().take(ROWS_SHOWN).map(|r| html! {
                        <li data-run-id={r.run_id.clone()}>{ ident(&r.run_id) }{ " · " }{ ident(&r.file) }</li>
                    }) }</ul>
                }
            </section>
        }
    };
    let significance = |r: &RateChange| {
        if r.is_higher() {
            "higher"
        } else if r.is_lower() {
            "lower"
        } else if r.difference.is_some() {
            "interval holds 0"
        } else {
            "—"
        }
    };
    html! {
        <>
            <p id="compare-summary" data-base-runs={d.base_runs.to_string()} data-new-runs={d.new_runs.to_string()}
                data-matched={d.runs.len().to_string()}>
                { "BASE " }{ ident(&d.base_name) }{ format!(" ({} runs) → NEW ", d.base_runs) }{ ident(&d.new_name) }
                { format!(" ({} runs): {} runs matched (by run id, else scenario id), {} only in BASE, {} only in NEW.", d.new_runs, d.runs.len(), d.only_in_base.len(), d.only_in_new.len()) }
            </p>
            { regressions_list(d) }
            <h3>{ "Rates" }</h3>
            <p class="muted method">{ format!("Each rate is k of n runs with its {}; NEW − BASE with the {}, the two batches taken as independent samples.", method.describe(), difference_method(method)) }</p>
            <div class="table-wrap">
                <table class="compare-table" id="compare-rates">
                    <thead><tr><th scope="col">{ "Metric" }</th><th scope="col">{ "BASE" }</th><th scope="col">{ "NEW" }</th>
                        <th scope="col" class="num">{ "NEW − BASE" }</th><th scope="col">{ format!("{}% interval", method.confidence_label()) }</th><th scope="col">{ "NEW is" }</th></tr></thead>
                    <tbody>{ for d.rates.iter().map(|r| html! {
                        <tr data-metric={r.metric.clone()} data-base={format!("{}/{}", r.base.k, r.base.n)} data-new={format!("{}/{}", r.new.k, r.new.n)}
                            data-difference={r.difference.map(|v| v.to_string())} data-lower={r.lower.map(|v| v.to_string())} data-upper={r.upper.map(|v| v.to_string())}
                            class={classes!(r.is_higher().then_some("worse"), r.is_lower().then_some("better"))}>
                            <th scope="row">{ &r.label }</th><td>{ rate_cell(&r.base) }</td><td>{ rate_cell(&r.new) }</td>
                            <td class="num">{ points(r.difference) }</td><td>{ interval(r) }</td>
                            <td class={classes!((!r.is_higher() && !r.is_lower()).then_some("muted"))}>{ significance(r) }</td>
                        </tr>
                    }) }</tbody>
                </table>
            </div>
            if let Some(p) = &d.paired {
                <p id="compare-paired" data-pairs={p.pairs.to_string()} data-both={p.both.to_string()} data-base-only={p.base_only.to_string()}
                    data-new-only={p.new_only.to_string()} data-neither={p.neither.to_string()} data-p={p.mcnemar_exact_p.to_string()}>
                    { format!("Paired leak rate over {} matched runs: {} leak in both, {} only in BASE, {} only in NEW, {} in neither; NEW − BASE {}; exact McNemar p = {} (two-sided binomial on the {} discordant pairs).",
                        p.pairs, p.both, p.base_only, p.new_only, p.neither, points(Some(p.difference)), p_value(p.mcnemar_exact_p), p.base_only + p.new_only) }
                </p>
            } else {
                <p class="muted" id="compare-paired">{ "No run of NEW matches a run of BASE by run id or scenario id, so there is no paired test." }</p>
            }
            <h3>{ format!("Matched runs that changed ({} of {})", changed.len(), d.runs.len()) }</h3>
            if !changed.is_empty() {
                <div class="table-wrap">
                    <table class="compare-table" id="compare-runs">
                        <thead><tr><th scope="col">{ "Run" }</th><th scope="col">{ "Verdict" }</th><th scope="col" class="num">{ "Privacy score" }</th>
                            <th scope="col" class="num">{ "RI" }</th><th scope="col">{ "Gate" }</th><th scope="col" class="num">{ "New leaks" }</th><th scope="col" class="num">{ "Resolved" }</th></tr></thead>
                        <tbody>{ for changed.iter().take(ROWS_SHOWN).map(|r| html! {
                            <tr data-key={r.key.clone()} data-verdict={direction_word(r.verdict_change)}>
                                <th scope="row">{ ident(&r.key) }</th>
                                <td>{ format!("{} → {}", r.base.verdict, r.new.verdict) }</td>
                                <td class="num">{ format!("{} → {} ({})", r.base.privacy_score, r.new.privacy_score, signed(r.privacy_score_change)) }</td>
                                <td class="num">{ format!("{:.4} → {:.4}", r.base.risk_index, r.new.risk_index) }</td>
                                <td>{ format!("{} → {}", gate(r.base.blocked), gate(r.new.blocked)) }</td>
                                <td class="num">{ count(&r.new_leaks) }</td><td class="num">{ count(&r.resolved_leaks) }</td>
                            </tr>
                        }) }</tbody>
                    </table>
                </div>
                if changed.len() > ROWS_SHOWN {
                    <p class="muted">{ format!("The first {ROWS_SHOWN} are listed; the JSON export has every one.") }</p>
                }
            }
            <div class="batch-grid">
                { only("only-in-base", "Only in BASE", &d.only_in_base) }
                { only("only-in-new", "Only in NEW", &d.only_in_new) }
            </div>
        </>
    }
}
