//! The events of a trace analysed here, in trace order, with the events
//! that have findings marked. The list is what the worker sent: at most
//! `agentrisk::workspace::EVENT_LIMIT` events, each text cut at `agentrisk::workspace::TEXT_LIMIT`
//! characters, detected and leaked values already redacted; the table
//! shows a page of them at a time. Events made from OpenTelemetry spans
//! name their span (name, kind, span and trace ids), so that a reviewer can
//! find it in their tracing tool.

use super::group_digits;
use crate::components::pager::{on_page_or_all, page_of, use_reveal, Pager, Reveal};
use crate::components::text::shown;
use agentrisk::model::Finding;
use agentrisk::workspace::{AnalyzedTrace, EventRow, SpanRef, TextPart, EVENT_LIMIT, TEXT_LIMIT};
use std::collections::HashMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties)]
pub struct EventListProps {
    pub trace: Rc<AnalyzedTrace>,
    /// The index of the event a finding link last pointed at: highlighted,
    /// and brought into view on each new request.
    pub highlighted: Option<Reveal<usize>>,
    /// A finding chip was clicked: show that finding (by id) in the findings table.
    pub on_show_finding: Callback<String>,
    /// Every row at once, no pages (while printing).
    pub all_pages: bool,
}

impl PartialEq for EventListProps {
    /// A loaded trace never changes, so its identity is its allocation; this
    /// spares a deep comparison of thousands of events on every render.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.trace, &other.trace)
            && self.highlighted == other.highlighted
            && self.on_show_finding == other.on_show_finding
            && self.all_pages == other.all_pages
    }
}

/// The DOM id of an event's row.
pub fn event_row_id(index: usize) -> String {
    format!("event-{index}")
}

/// The DOM id of a finding's row in the findings table.
pub fn finding_row_id(finding_id: &str) -> String {
    format!("finding-{finding_id}")
}

#[function_component(EventList)]
pub fn event_list(props: &EventListProps) -> Html {
    let channel = use_state(String::new);
    let page = use_state(|| 0usize);
    let trace = props.trace.as_ref();
    let channels = agentrisk::util::btree_set(trace.events.iter().map(|e| e.channel.as_str()));
    let on_channel = {
        let (channel, page) = (channel.clone(), page.clone());
        Callback::from(move |e: Event| {
            channel.set(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value());
            page.set(0);
        })
    };
    let highlighted = props.highlighted.as_ref().map(|h| h.target);
    // The event a finding pointed at always shows, whatever the filter.
    let listed: Vec<usize> = trace
        .events
        .iter()
        .enumerate()
        .filter(|(index, event)| {
            channel.is_empty() || event.channel.as_str() == *channel || highlighted == Some(*index)
        })
        .map(|(index, _)| index)
        .collect();
    let page_of_highlighted = highlighted.and_then(|h| listed.iter().position(|&i| i == h)).map(page_of);
    use_reveal(props.highlighted.clone(), page_of_highlighted, page.clone(), |index| event_row_id(*index));
    let rows = on_page_or_all(listed.len(), *page, props.all_pages);
    let findings: HashMap<&str, &Finding> = trace.report.findings.iter().map(|f| (f.finding_id.as_str(), f)).collect();
    let with_findings = trace.events.iter().filter(|e| !e.finding_ids.is_empty()).count();
    let spans = trace.events.iter().any(|e| e.span.is_some());
    let left_out = trace.events_left_out();
    html! {
        <section class="events" aria-labelledby="events-title">
            <h3 id="events-title">{ format!("Events ({})", group_digits(trace.events_total)) }</h3>
            <p class="muted">
                { format!("In trace order; {with_findings} with findings on a disclosure channel are marked. ") }
                if trace.text_withheld {
                    <strong>{ "Event text is not shown for this trace: the values to redact in it could not be located." }</strong>
                } else {
                    { "Values the detectors find are redacted as in the report: " }
                    <mark class="redacted leaked">{ "leaked" }</mark>{ " (a finding of this run) or " }
                    <mark class="redacted detected">{ "not leaked" }</mark>
                    { format!(" (e.g. given to the agent). Texts longer than {} characters are cut.", group_digits(TEXT_LIMIT)) }
                }
            </p>
            <p class="controls event-filter">
                <label>{ "Channel " }
                    <select id="event-channel" onchange={on_channel}>
                        <option value="" selected={channel.is_empty()}>{ "all" }</option>
                        { for channels.iter().map(|c| html! { <option value={c.to_string()} selected={*channel == *c}>{ c }</option> }) }
                    </select>
                </label>
            </p>
            if !props.all_pages {
                <Pager id="events-pager" noun="events" total={listed.len()} page={page.clone()} />
            }
            <div class="table-wrap">
                <table class="events-table">
                    <thead><tr>
                        <th scope="col" class="num">{ "#" }</th>
                        <th scope="col">{ "Event" }</th>
                        if spans { <th scope="col">{ "Span" }</th> }
                        <th scope="col">{ "Channel" }</th>
                        <th scope="col">{ "Source → target" }</th>
                        <th scope="col">{ "Text" }</th>
                        <th scope="col">{ "Findings" }</th>
                    </tr></thead>
                    <tbody>
                        { for listed[rows].iter().map(|&index| event_row(index, &trace.events[index], highlighted == Some(index), trace.text_withheld, spans, &findings, &props.on_show_finding)) }
                    </tbody>
                </table>
            </div>
            if !props.all_pages {
                <Pager id="events-pager-bottom" noun="events" total={listed.len()} page={page.clone()} />
            }
            if left_out > 0 {
                <p class="events-left-out" data-left-out={left_out.to_string()}>
                    { format!("{} more events are not listed: the view lists the first {} of {}. Every event was analysed; the numbers above cover them all.",
                        group_digits(left_out), group_digits(EVENT_LIMIT), group_digits(trace.events_total)) }
                </p>
            }
        </section>
    }
}

#[allow(clippy::too_many_arguments)]
fn event_row(
    index: usize,
    event: &EventRow,
    highlighted: bool,
    withheld: bool,
    spans: bool,
    findings: &HashMap<&str, &Finding>,
    on_show_finding: &Callback<String>,
) -> Html {
    let marked = !event.finding_ids.is_empty();
    let class = classes!("event-row", marked.then_some("has-finding"), highlighted.then_some("highlighted"));
    html! {
        <tr id={event_row_id(index)} {class} tabindex="-1"
            data-event-index={index.to_string()} data-event-id={event.event_id.clone()}
            data-findings={event.finding_ids.len().to_string()}>
            <td class="num">{ index + 1 }</td>
            <td class="mono">{ shown(&event.event_id) }</td>
            if spans { { span_cell(event.span.as_ref()) } }
            <td class="mono">
                { event.channel.as_str() }
                if event.channel.is_baseline() { <span class="muted baseline" title="A baseline channel: what the agent was given, not a disclosure">{ " (baseline)" }</span> }
            </td>
            <td>{ shown(&format!("{} → {}", event.source, event.target)) }</td>
            <td class="event-text">{ event_text(event, withheld) }</td>
            <td class="event-findings">
                { for event.finding_ids.iter().map(|id| match findings.get(id.as_str()) {
                    Some(f) => {
                        let (target, show) = (id.clone(), on_show_finding.clone());
                        let onclick = Callback::from(move |e: MouseEvent| {
                            e.prevent_default();
                            show.emit(target.clone());
                        });
                        html! {
                            <div class="finding-chip" data-finding-id={id.clone()}>
                                <a href={format!("#{}", finding_row_id(id))} title="Show this finding in the findings table" {onclick}>
                                    <span class={classes!("level", f.level.badge())}>{ f.level.label() }</span>{ " " }{ shown(&f.data_type) }
                                </a>
                            </div>
                        }
                    }
                    None => html! { <div class="finding-chip mono">{ id }</div> },
                }) }
            </td>
        </tr>
    }
}

/// The span an event came from: its name and kind, its span id below, and
/// both ids in full in the tooltip (the reference mapping keeps the kind only).
fn span_cell(span: Option<&SpanRef>) -> Html {
    let Some(span) = span else { return html! { <td class="span-ref muted">{ "—" }</td> } };
    let ids: Vec<String> = [("span id", &span.span_id), ("trace id", &span.trace_id)]
        .iter()
        .filter(|(_, id)| !id.is_empty())
        .map(|(what, id)| format!("{what} {id}"))
        .collect();
    html! {
        <td class="span-ref" title={(!ids.is_empty()).then(|| ids.join("\n"))}
            data-span-name={span.name.clone()} data-span-kind={span.kind.clone()}
            data-span-id={span.span_id.clone()} data-trace-id={span.trace_id.clone()}>
            if !span.name.is_empty() { <span class="span-name">{ shown(&span.name) }</span>{ " " } }
            if !span.kind.is_empty() { <span class="kind">{ shown(&span.kind) }</span> }
            if !span.span_id.is_empty() { <div class="mono muted span-id">{ shown(&span.span_id) }</div> }
        </td>
    }
}

fn event_text(event: &EventRow, withheld: bool) -> Html {
    if event.text_chars == 0 {
        return html! { <span class="muted">{ "(no text)" }</span> };
    }
    if withheld {
        return html! { <span class="muted">{ format!("({} characters, not shown)", group_digits(event.text_chars)) }</span> };
    }
    html! {
        <>
            <div class="text">
                { for event.text.iter().map(|part| match part {
                    TextPart::Plain(text) => shown(text),
                    TextPart::Leaked(text) => html! {
                        <mark class="redacted leaked" title="A leaked value (a finding of this run), redacted as in the report">{ shown(text) }</mark>
                    },
                    TextPart::Detected(text) => html! {
                        <mark class="redacted detected" title="A value the detectors found that is no finding here (e.g. a secret the agent was given), redacted">{ shown(text) }</mark>
                    },
                }) }
                if event.text_truncated() { { "…" } }
            </div>
            if event.text_truncated() {
                <div class="muted cut">{ format!("first {} of {} characters", group_digits(TEXT_LIMIT.min(event.text_chars)), group_digits(event.text_chars)) }</div>
            }
        </>
    }
}
