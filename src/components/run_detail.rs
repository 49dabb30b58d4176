use super::group_digits;
use crate::components::batch::settings_line;
use crate::components::compliance::ComplianceView;
use crate::components::download::{download, print_page};
use crate::components::event_list::EventList;
use crate::components::findings::FindingsTable;
use crate::components::flow::FlowView;
use crate::components::ident::ident;
use crate::components::pager::Reveal;
use crate::components::remediation::WhatToDo;
use crate::components::review::ReviewPanel;
use crate::components::run_table::{no_events_badge, span_badge};
use crate::components::text::shown;
use crate::components::{format_ri, verdict_class};
use crate::protocol::ReviewEdit;
use crate::state::{FindingFilters, Run};
use agentrisk::config::WhatIf;
use agentrisk::model::{Level, Report};
use agentrisk::report::{markdown_run, plain_summary};
use agentrisk::review::{Date, Review, RunReview};
use agentrisk::workspace::{listed_compliance, BlockReason};
use std::collections::HashMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct RunDetailProps {
    pub file_name: String,
    pub run: Run,
    pub on_close: Callback<()>,
    pub filters: FindingFilters,
    pub on_filters: Callback<FindingFilters>,
    /// The what-if settings in force, recorded in exports.
    pub whatif: WhatIf,
    /// The review in force, the run's reviewed numbers under it, and the
    /// review's reviewer, date and last refusal (see `review::ReviewPanel`).
    pub review: Rc<Review>,
    pub reviewed: Option<Rc<RunReview>>,
    pub reviewer: String,
    pub today: Option<Date>,
    pub review_problem: Option<String>,
    pub on_review: Callback<ReviewEdit>,
    pub on_reviewer: Callback<String>,
    /// "Export as AgentLeak trace" (a run made here from spans).
    pub on_export_trace: Callback<()>,
    /// Why the last export gave no file, if it did not.
    pub export_problem: Option<String>,
}

/// One run: headline numbers and gate, the consistency check (reports), the
/// level profile, per-channel risk, the findings and, for a trace analysed
/// here, its events, each finding linking to the event it was found in.
#[function_component(RunDetail)]
pub fn run_detail(props: &RunDetailProps) -> Html {
    // The event a finding's link, and the finding an event's chip, last
    // asked for; `requests` numbers the requests.
    let highlighted = use_state(|| None::<Reveal<usize>>);
    let finding_asked = use_state(|| None::<Reveal<String>>);
    let requests = use_mut_ref(|| 0u32);
    let r = props.run.report();
    let findings_total = props.run.findings_total();
    let on_close = props.on_close.reform(|_: MouseEvent| ());
    let scenario = r.scenario_id.clone().unwrap_or_else(|| "—".to_owned());
    // Made once, so that the tables' props stay equal between renders.
    let show_event = {
        let (highlighted, requests) = (highlighted.clone(), requests.clone());
        use_callback((), move |target: usize, _| {
            *requests.borrow_mut() += 1;
            highlighted.set(Some(Reveal { target, request: *requests.borrow() }));
        })
    };
    let show_finding = {
        let (finding_asked, requests) = (finding_asked.clone(), requests.clone());
        use_callback((), move |target: String, _| {
            *requests.borrow_mut() += 1;
            finding_asked.set(Some(Reveal { target, request: *requests.borrow() }));
        })
    };
    // A trace's compliance section comes from the worker only when the page
    // cannot compute it (`protocol::split_result`); it is computed here,
    // once per run, when the run is opened.
    let compliance = use_memo(props.run.clone(), |run| match run {
        Run::Trace(trace) if trace.report.compliance.is_none() => listed_compliance(trace),
        _ => None,
    });
    // What the tables take from the run, made once per run rather than on
    // every render: its findings, finding id → index of the listed event
    // it was found in, the full values, and the leak paths.
    let listed = use_memo(props.run.clone(), |run| {
        let findings = Rc::new(run.report().findings.clone());
        let event_of_finding: Rc<HashMap<String, usize>> = Rc::new(match run {
            Run::Trace(trace) => trace.event_of_finding(),
            Run::Report(_) => HashMap::new(),
        });
        let values = match run {
            Run::Trace(trace) => Some(Rc::new(trace.values.clone())),
            Run::Report(_) => None,
        };
        let leak_paths = Rc::new(run.report().leak_paths.clone().unwrap_or_default());
        (findings, event_of_finding, values, leak_paths)
    });
    let (findings, event_of_finding, values, leak_paths) = (*listed).clone();
    // Written when asked for: it lists every finding.
    let save_markdown = {
        let (run, file_name, whatif) = (props.run.clone(), props.file_name.clone(), props.whatif.clone());
        let reviewed = props.reviewed.clone();
        Callback::from(move |_: MouseEvent| {
            let scored = match &run {
                Run::Trace(_) => settings_line(&whatif),
                Run::Report(loaded) if loaded.what_if.is_some() => {
                    format!("Report re-scored with what-if settings:\n\n```yaml\n{}```", whatif.to_yaml())
                }
                Run::Report(_) => "Numbers as stored in the AgentLeak report.".to_owned(),
            };
            let review = reviewed.as_ref().map(|r| format!("\n{}", r.markdown(run.report()))).unwrap_or_default();
            let markdown = format!("{}\n{scored}\n{review}", markdown_run(run.report(), &file_name));
            // A span export's runs share a file: each is named by its run.
            let stem = match run.span_source() {
                Some(_) => agentrisk::spans::safe_file_stem(&run.report().run_id),
                None => file_name.trim_end_matches(".json").to_owned(),
            };
            let name = format!("{stem}-summary.md");
            download(&name, "text/markdown", &markdown);
        })
    };
    let print_summary = Callback::from(|_: MouseEvent| print_page("summary"));
    // Printing every finding draws every row of the paged tables first,
    // prints, then goes back to pages (the browser's print call returns
    // once its dialog is closed).
    let printing_all = use_state(|| false);
    let print_expanded = {
        let printing_all = printing_all.clone();
        Callback::from(move |_: MouseEvent| printing_all.set(true))
    };
    {
        let printing = printing_all.clone();
        use_effect_with(*printing_all, move |all| {
            if *all {
                print_page("expanded");
                printing.set(false);
            }
        });
    }
    let source = props.run.span_source();
    let (kind, when) = match (&props.run, source) {
        (Run::Report(_), _) => ("report", "generated"),
        (Run::Trace(_), Some(_)) => ("spans, analysed here", "analysed"),
        (Run::Trace(_), None) => ("trace, analysed here", "analysed"),
    };
    // Only a run made here has spans to convert; a report has none.
    let exportable = matches!(props.run, Run::Trace(_)) && source.is_some();
    let export_trace = props.on_export_trace.reform(|_: MouseEvent| ());
    let no_events = props.run.facts().no_events;
    html! {
        <section class="run-detail" aria-labelledby="run-title" data-run-id={r.run_id.clone()} data-kind={props.run.kind()}>
            <header class="detail-head">
                <div>
                    <h2 id="run-title">{ "Run " }{ ident(&r.run_id) }{ " " }<span class="kind">{ kind }</span></h2>
                    <p class="muted">
                        { shown(&format!("{} · agent {} · scenario {} · {} events · project {}", props.file_name, r.agent_name, scenario, r.event_count, r.project)) }
                        if !r.generated_at.is_empty() { { format!(" · {when} {}", r.generated_at) } }
                    </p>
                    if source.is_some() || no_events {
                        <p class="run-badges" id="run-badges">
                            if let Some(source) = source {
                                { span_badge(source) }
                                <span class="muted">
                                    { format!(" {} spans", source.spans) }
                                    { source.conversation.as_ref().map(|c| format!(" · conversation {c}")).map(|c| shown(&c)).unwrap_or_default() }
                                </span>
                            }
                            if no_events { { " " }{ no_events_badge() } }
                        </p>
                    }
                    if let Run::Trace(trace) = &props.run {
                        <p class="muted" id="run-canaries">
                            { match &trace.canaries {
                                Some(used) => format!("canaries: {}", used.describe()),
                                None => "canaries: none".to_owned(),
                            } }
                        </p>
                    }
                </div>
                <div class="actions">
                    if exportable {
                        <button type="button" class="button" id="export-trace" onclick={export_trace}
                            title="The AgentLeak trace these spans map to, under the span mapping in force (agentleak run -t reads it)">{ "Export as AgentLeak trace" }</button>
                    }
                    <button type="button" class="button" id="export-markdown" onclick={save_markdown}>{ "Markdown" }</button>
                    <button type="button" class="button" id="print-summary" onclick={print_summary}>{ "Print summary" }</button>
                    <button type="button" class="button" id="print-expanded" onclick={print_expanded}>{ "Print all findings" }</button>
                    <button type="button" class="button" onclick={on_close}>{ "Close" }</button>
                </div>
            </header>

            if let Some(problem) = &props.export_problem {
                <p class="error-message" role="alert" id="export-trace-problem">{ shown(problem) }</p>
            }
            <p class="plain-summary" id="plain-summary">{ plain_summary(r) }</p>
            { headline(&props.run) }
            { rescored_note(&props.run) }
            { inconsistent_note(&props.run) }
            <ReviewPanel run={props.run.clone()} review={props.review.clone()} reviewed={props.reviewed.clone()}
                reviewer={props.reviewer.clone()} today={props.today} problem={props.review_problem.clone()}
                detected_gate={gate_reasons(&props.run)} on_edit={props.on_review.clone()} on_reviewer={props.on_reviewer.clone()} />

            <div class="two-col">
                <section aria-labelledby="levels-title">
                    <h3 id="levels-title">{ "Level profile" }</h3>
                    <p class="muted">{ format!("{} of {} distinct secrets leaked · scope: {}", r.summary.leaked_secrets, r.summary.vault_secrets, r.scope_def) }</p>
                    { level_table(r) }
                </section>
                <section aria-labelledby="channels-title">
                    <h3 id="channels-title">{ "Risk by channel" }</h3>
                    { channel_table(r) }
                </section>
            </div>

            <WhatToDo recommendations={r.recommendations.clone()} hints={r.remediation_hints.clone()} />

            <section class="findings-section" aria-labelledby="findings-title">
                <h3 id="findings-title">{ format!("Findings on disclosure channels ({})", group_digits(findings_total)) }</h3>
                if findings_total > r.findings.len() {
                    <p class="findings-left-out" data-left-out={(findings_total - r.findings.len()).to_string()}>
                        { format!("The table lists the first {} of {} findings, most severe first. Every finding counts in the numbers above.",
                            group_digits(r.findings.len()), group_digits(findings_total)) }
                    </p>
                }
                if r.findings.is_empty() {
                    <p class="muted">{ "Nothing leaked." }</p>
                } else {
                    <FindingsTable {findings} {event_of_finding} on_show_event={show_event}
                        {values} run_id={r.run_id.clone()} filters={props.filters.clone()} on_filters={props.on_filters.clone()}
                        reveal={(*finding_asked).clone()} all_pages={*printing_all} />
                }
            </section>

            if let Some(policy) = r.privacy_policy.as_ref().filter(|p| !p.violations.is_empty()) {
                <section aria-labelledby="policy-title">
                    <h3 id="policy-title">{ "Privacy-policy violations" }</h3>
                    <ul>{ for policy.violations.iter().map(|v| html! { <li><span class="mono">{ &v.rule }</span>{ ": " }{ &v.message }</li> }) }</ul>
                </section>
            }
            if !r.warnings.is_empty() {
                <section aria-labelledby="warnings-title">
                    <h3 id="warnings-title">{ "Detection warnings" }</h3>
                    <ul>{ for r.warnings.iter().map(|w| html! { <li>{ w }</li> }) }</ul>
                </section>
            }
            if let Some(flow) = &r.flow {
                <FlowView flow={flow.clone()} {leak_paths} all_pages={*printing_all} />
            }
            if let Some(compliance) = r.compliance.as_ref().or(compliance.as_ref().as_ref()) {
                <ComplianceView compliance={compliance.clone()} control_findings={props.run.control_findings().clone()} />
            }
            // Last: a trace can have thousands of events.
            if let Run::Trace(trace) = &props.run {
                <EventList trace={trace.clone()} highlighted={(*highlighted).clone()} on_show_finding={show_finding}
                    all_pages={*printing_all} />
            }
        </section>
    }
}

/// The four headline cards: Risk Index (with its gauge), privacy score,
/// verdict and gate, with why the gate decided as it did.
fn headline(run: &Run) -> Html {
    let r = run.report();
    html! {
        <div class="headline">
            <div class="card">
                <div class="label">{ "Risk Index" }</div>
                { gauge(r.risk_index, verdict_class(&r.verdict)) }
                <div class="big">{ format_ri(r.risk_index) }</div>
                <div class="muted">{ format!("WSL {} / ρ_S {}", r.wsl, r.rho_s) }</div>
            </div>
            <div class="card">
                <div class="label">{ "Privacy score" }</div>
                <div class="big">{ r.privacy_score }</div>
                <div class="muted">{ "round(100 × (1 − RI))" }</div>
            </div>
            <div class="card">
                <div class="label">{ "Verdict" }</div>
                <div class="big"><span class={classes!("verdict", verdict_class(&r.verdict))}>{ &r.verdict }</span></div>
                <div class="muted">{ "Pass ≥ 90 · Conditional ≥ 70 · High risk ≥ 40" }</div>
            </div>
            <div class="card">
                <div class="label">{ "Gate" }</div>
                <div class="big">{ if r.blocked { "Blocked" } else { "Not blocked" } }</div>
                <div class="muted gate-reasons">{ gate_reasons(run) }</div>
            </div>
        </div>
    }
}

/// For a report re-scored with what-if settings: that the numbers shown are
/// the re-scoring's, and what the file stores.
fn rescored_note(run: &Run) -> Html {
    let what_if = match run {
        Run::Report(loaded) => loaded.what_if.as_ref(),
        Run::Trace(_) => None,
    };
    let Some(what_if) = what_if else { return Html::default() };
    html! {
        <div class="rescored" id="report-rescored" role="note">
            <h3>{ "Re-scored with the what-if settings" }</h3>
            <p>
                { "The numbers above are the ones this run gets with the what-if weights, vault and gate, computed from the report's level profiles and findings. The file stores " }
                <span id="stored-numbers">{ format!("RI {} · privacy score {} · {} · {}", format_ri(what_if.stored.risk_index), what_if.stored.privacy_score,
                    what_if.stored.verdict, if what_if.stored.blocked { "blocked" } else { "not blocked" }) }</span>{ "." }
            </p>
            if !what_if.notes.is_empty() {
                <ul class="rescored-notes">{ for what_if.notes.iter().map(|n| html! { <li>{ n }</li> }) }</ul>
            }
        </div>
    }
}

/// For a report whose stored numbers disagree with its own findings,
/// profiles and weights: the fields that differ.
fn inconsistent_note(run: &Run) -> Html {
    let Run::Report(loaded) = run else { return Html::default() };
    if loaded.rescore.consistent {
        return Html::default();
    }
    html! {
        <div class="inconsistent" role="alert">
            <h3>{ "Inconsistent report" }</h3>
            <p>{ if loaded.what_if.is_some() {
                "The numbers this report stores disagree with what its own findings, profiles and weights give (the numbers above are its what-if re-scoring)."
            } else {
                "These stored numbers disagree with what the report's own findings, profiles and weights give. The stored values are shown above, unchanged."
            } }</p>
            <table class="mismatches">
                <thead><tr><th scope="col">{ "Field" }</th><th scope="col">{ "Stored" }</th><th scope="col">{ "Recomputed" }</th></tr></thead>
                <tbody>
                    { for loaded.rescore.mismatches.iter().map(|m| html! {
                        <tr><td class="mono">{ &m.field }</td><td class="mono">{ &m.stored }</td><td class="mono">{ &m.recomputed }</td></tr>
                    }) }
                </tbody>
            </table>
        </div>
    }
}

/// Each channel's highest level, RI (with its contribution bar) and findings.
fn channel_table(r: &Report) -> Html {
    html! {
        if r.channel_risks.is_empty() {
            <p class="muted">{ "No finding on any disclosure channel." }</p>
        } else {
            <table class="channel-table">
                <thead><tr>
                    <th scope="col">{ "Channel" }</th><th scope="col">{ "Highest level" }</th>
                    <th scope="col" class="num">{ "RI" }</th><th scope="col" class="num">{ "Findings" }</th>
                </tr></thead>
                <tbody>
                    { for r.channel_risks.iter().map(|c| html! {
                        <tr data-channel={c.channel.as_str()} data-ri={c.ri.to_string()} data-contribution={c.risk_contribution.to_string()}>
                            <td class="mono">{ ident(c.channel.as_str()) }</td>
                            <td><span class={classes!("level", c.level.clone())}>{ format!("{} {}", c.level_label, c.level) }</span></td>
                            <td class="num contribution">{ contribution_bar(c.risk_contribution) }{ format_ri(c.ri) }</td>
                            <td class="num">{ c.finding_count }</td>
                        </tr>
                    }) }
                </tbody>
            </table>
        }
    }
}

/// Why the gate decided as it did, in words. For a report, from the
/// recomputation (which uses the reference's default thresholds: fail below
/// 40, block on L4), or the gate setting that explains a stored decision
/// those thresholds do not give, or from its what-if re-scoring; for a
/// trace, from the report computed here.
fn gate_reasons(run: &Run) -> String {
    let (blocked, reasons): (bool, &[BlockReason]) = match run {
        Run::Report(loaded) if loaded.what_if.is_some() => {
            (loaded.report.blocked, loaded.what_if.as_ref().map_or(&[][..], |w| &w.block_reasons))
        }
        Run::Report(loaded) if !loaded.rescore.consistent => {
            (loaded.report.blocked, &[]) // the stored decision cannot be explained
        }
        Run::Report(loaded) if loaded.rescore.gate_note.is_some() => {
            let decision = if loaded.report.blocked { "blocked" } else { "not blocked" };
            let note = loaded.rescore.gate_note.as_deref().unwrap_or_default();
            return format!("{decision} by the run's own gate settings, which the report does not store ({note})");
        }
        Run::Report(loaded) => (loaded.report.blocked, &loaded.rescore.recomputed.block_reasons),
        Run::Trace(trace) => (trace.report.blocked, &trace.block_reasons),
    };
    if !blocked {
        return "no blocking condition".to_owned();
    }
    if reasons.is_empty() {
        return "blocked by the run's own settings".to_owned();
    }
    let reasons: Vec<String> = reasons.iter().map(BlockReason::describe).collect();
    reasons.join("; ")
}

/// A half-circle gauge of the RI from 0 (left) to 1 (right), coloured by
/// the verdict; the number beside it is the reading.
fn gauge(ri: f64, verdict: &'static str) -> Html {
    let t = ri.clamp(0.0, 1.0);
    let angle = std::f64::consts::PI * (1.0 - t);
    let (x, y) = (50.0 + 40.0 * angle.cos(), 50.0 - 40.0 * angle.sin());
    let value = if t > 0.0 { format!("M 10 50 A 40 40 0 0 1 {x:.2} {y:.2}") } else { String::new() };
    html! {
        <svg class={classes!("gauge", verdict)} viewBox="0 0 100 56" width="120" height="67" role="img"
            aria-label={format!("Risk Index gauge at {:.0}% of the scale", t * 100.0)}>
            <path class="track" d="M 10 50 A 40 40 0 0 1 90 50" />
            <path class="value" d={value} />
        </svg>
    }
}

/// A channel's contribution to the run's risk (`risk_contribution`, which
/// the reference sets equal to the channel's RI) as a bar on the RI scale,
/// 0 to 1, drawn before the number so that the row reads without colour;
/// the bar's outline shows the whole scale.
fn contribution_bar(contribution: f64) -> Html {
    let width = (contribution.clamp(0.0, 1.0) * 60.0).round();
    html! {
        <svg class="bar contribution-bar" width="60" height="10" viewBox="0 0 60 10" aria-hidden="true">
            <rect class="scale" x="0.5" y="0.5" width="59" height="9" rx="2" />
            <rect class="share" x="0" y="0" width={width.to_string()} height="10" rx="2" />
        </svg>
    }
}

fn level_table(report: &Report) -> Html {
    let summary = &report.summary;
    let max = Level::ALL
        .iter()
        .map(|&l| summary.vault_level_profile.get(l).max(summary.level_profile.get(l)))
        .max()
        .unwrap_or(0)
        .max(1);
    let bar = |count: u64, class: &'static str| {
        let width = (count as f64 / max as f64 * 120.0).round();
        html! {
            <svg class="bar" width="120" height="10" viewBox="0 0 120 10" aria-hidden="true">
                <rect class={class} x="0" y="0" width={width.to_string()} height="10" rx="2" />
            </svg>
        }
    };
    html! {
        <table class="level-table">
            <thead><tr>
                <th scope="col">{ "Level" }</th><th scope="col" class="num">{ "Leaked" }</th><th scope="col" class="num">{ "Vault" }</th>
                <th scope="col"><span class="key leaked">{ "leaked" }</span>{ " " }<span class="key vault">{ "vault" }</span></th>
            </tr></thead>
            <tbody>
                { for Level::ALL.iter().rev().map(|&level| {
                    let leaked = summary.level_profile.get(level);
                    let vault = summary.vault_level_profile.get(level);
                    html! {
                        <tr data-level={level.label()} data-leaked={leaked.to_string()} data-vault={vault.to_string()}>
                            <th scope="row"><span class={classes!("level", level.badge())}>{ level.label() }</span></th>
                            <td class="num">{ leaked }</td>
                            <td class="num">{ vault }</td>
                            <td class="bars">{ bar(leaked, "leaked") }{ bar(vault, "vault") }</td>
                        </tr>
                    }
                }) }
            </tbody>
        </table>
    }
}
