//! A run's findings: filter by channel, level, data type, detector and
//! party (source or target), search as text (a case-insensitive substring)
//! or as a regular expression (the browser's own `RegExp`, flags `iu`, so
//! the page carries no regex engine of its own), sort by any column, export
//! exactly the rows the filters keep (every page). The table shows a page
//! of rows at a time. Values are shown redacted; for a trace analysed here
//! the full value of one finding is shown only after an explicit click on
//! that finding.

use crate::components::download::download;
use crate::components::event_list::finding_row_id;
use crate::components::ident::ident;
use crate::components::pager::{on_page_or_all, page_of, use_reveal, Pager, Reveal};
use crate::components::text::shown;
use agentrisk::batch::table::to_csv;
use agentrisk::model::Finding;
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FindingsProps {
    pub findings: Rc<Vec<Finding>>,
    /// Finding id → index of its listed event (traces only).
    pub event_of_finding: Rc<HashMap<String, usize>>,
    pub on_show_event: Callback<usize>,
    /// Full values by finding id, for a trace analysed here.
    pub values: Option<Rc<HashMap<String, String>>>,
    /// Names the export files.
    pub run_id: AttrValue,
    /// The filters (page state, so that the URL hash can hold them).
    pub filters: Filters,
    pub on_filters: Callback<Filters>,
    /// The finding an event's chip last asked for (by finding id).
    pub reveal: Option<Reveal<String>>,
    /// Every row at once, no pages (while printing).
    pub all_pages: bool,
}

/// The findings table's columns, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Channel,
    DataType,
    Level,
    Value,
    Detector,
    Event,
    Source,
    Target,
}

impl Column {
    const ALL: [Column; 8] = [
        Column::Channel,
        Column::DataType,
        Column::Level,
        Column::Value,
        Column::Detector,
        Column::Event,
        Column::Source,
        Column::Target,
    ];

    fn title(self) -> &'static str {
        match self {
            Column::Channel => "Channel",
            Column::DataType => "Data type",
            Column::Level => "Level",
            Column::Value => "Value (redacted)",
            Column::Detector => "Detector",
            Column::Event => "Event",
            Column::Source => "Source",
            Column::Target => "Target",
        }
    }

    /// The finding's text in this column (searched, exported, sorted on).
    fn cell(self, f: &Finding) -> String {
        match self {
            Column::Channel => f.channel.as_str().to_owned(),
            Column::DataType => f.data_type.to_string(),
            Column::Level => f.level.label().to_owned(),
            Column::Value => f.redacted_value.clone(),
            Column::Detector => f.detector.to_string(),
            Column::Event => f.event_id.to_string(),
            Column::Source => f.source.to_string(),
            Column::Target => f.target.to_string(),
        }
    }

    /// Levels sort by severity, the rest as text.
    fn order(self, a: &Finding, b: &Finding) -> std::cmp::Ordering {
        match self {
            Column::Level => a.level.cmp(&b.level),
            _ => self.cell(a).cmp(&self.cell(b)),
        }
    }
}

pub use crate::state::FindingFilters as Filters;

#[wasm_bindgen]
extern "C" {
    /// The browser's regular expressions: JavaScript syntax, and a pattern
    /// that is not valid is an error rather than an exception.
    #[wasm_bindgen(js_name = RegExp)]
    type BrowserRegExp;
    #[wasm_bindgen(catch, constructor, js_class = "RegExp")]
    fn new(pattern: &str, flags: &str) -> Result<BrowserRegExp, JsValue>;
    #[wasm_bindgen(method, js_class = "RegExp")]
    fn test(this: &BrowserRegExp, text: &str) -> bool;
}

/// How the search matches a cell.
enum Search {
    /// A case-insensitive substring (held lowercased).
    Text(String),
    /// A case-insensitive regular expression.
    Pattern(BrowserRegExp),
}

impl Search {
    fn matches(&self, text: &str) -> bool {
        match self {
            Search::Text(needle) => text.to_lowercase().contains(needle.as_str()),
            Search::Pattern(re) => re.test(text),
        }
    }
}

/// The search as a matcher, or why the regular expression is invalid.
fn matcher(filters: &Filters) -> Result<Option<Search>, String> {
    if filters.search.is_empty() {
        return Ok(None);
    }
    if !filters.regex {
        return Ok(Some(Search::Text(filters.search.to_lowercase())));
    }
    BrowserRegExp::new(&filters.search, "iu")
        .map(|re| Some(Search::Pattern(re)))
        .map_err(|e| format!("Not a valid regular expression: {}", crate::js_text(&e)))
}

fn keep(f: &Finding, filters: &Filters, search: Option<&Search>) -> bool {
    let is = |want: &str, have: &str| want.is_empty() || want == have;
    let party = filters.party.to_lowercase();
    is(&filters.channel, f.channel.as_str())
        && is(&filters.level, f.level.label())
        && is(&filters.data_type, &f.data_type)
        && is(&filters.detector, &f.detector)
        && (party.is_empty() || f.source.to_lowercase().contains(&party) || f.target.to_lowercase().contains(&party))
        && search.is_none_or(|s| Column::ALL.into_iter().any(|c| s.matches(&c.cell(f))))
}

#[function_component(FindingsTable)]
pub fn findings_table(props: &FindingsProps) -> Html {
    let filters = &props.filters;
    let sort = use_state(|| None::<(Column, bool)>);
    let revealed = use_state(BTreeSet::<String>::new);
    let page = use_state(|| 0usize);

    let search = matcher(filters);
    let all = &props.findings;
    // Positions in `findings` of the rows the filters keep, in table order.
    let mut rows: Vec<usize> = match &search {
        Ok(re) => (0..all.len()).filter(|&i| keep(&all[i], filters, re.as_ref())).collect(),
        Err(_) => (0..all.len()).collect(),
    };
    if let Some((column, descending)) = *sort {
        agentrisk::util::sort_by(&mut rows, |&a, &b| {
            let (a, b) = (&all[a], &all[b]);
            let order = column.order(a, b);
            if descending {
                order.reverse()
            } else {
                order
            }
        });
    }
    // New filters or a new order start again at the first page.
    {
        let page = page.clone();
        use_effect_with((filters.clone(), *sort), move |_| {
            if *page != 0 {
                page.set(0);
            }
        });
    }
    let target = props.reveal.as_ref().map(|r| r.target.as_str());
    let page_of_target = target.and_then(|id| rows.iter().position(|&i| all[i].finding_id == id)).map(page_of);
    use_reveal(props.reveal.clone(), page_of_target, page.clone(), |id| finding_row_id(id));

    // Each distinct value once, sorted.
    let options = |values: Vec<String>| agentrisk::util::btree_set(values).into_iter().collect::<Vec<_>>();
    let channels = options(props.findings.iter().map(|f| f.channel.as_str().to_owned()).collect());
    let levels = options(props.findings.iter().map(|f| f.level.label().to_owned()).collect());
    let types = options(props.findings.iter().map(|f| f.data_type.to_string()).collect());
    let detectors = options(props.findings.iter().map(|f| f.detector.to_string()).collect());

    let set = |apply: fn(&mut Filters, String)| {
        let (filters, emit) = (filters.clone(), props.on_filters.clone());
        Callback::from(move |value: String| {
            let mut next = filters.clone();
            apply(&mut next, value);
            emit.emit(next);
        })
    };
    let select = |id: &'static str,
                  label: &'static str,
                  all: &'static str,
                  values: &[String],
                  current: &str,
                  on: Callback<String>| {
        let onchange = Callback::from(move |e: Event| on.emit(e.target_unchecked_into::<HtmlSelectElement>().value()));
        html! {
            <label>{ label }{ " " }
                <select {id} {onchange}>
                    <option value="" selected={current.is_empty()}>{ all }</option>
                    { for values.iter().map(|v| html! { <option value={v.clone()} selected={v == current}>{ v }</option> }) }
                </select>
            </label>
        }
    };
    let text_input = |on: Callback<String>| {
        Callback::from(move |e: InputEvent| on.emit(e.target_unchecked_into::<HtmlInputElement>().value()))
    };
    let on_regex = {
        let (filters, emit) = (filters.clone(), props.on_filters.clone());
        Callback::from(move |e: Event| {
            let on = e.target_unchecked_into::<HtmlInputElement>().checked();
            emit.emit(Filters { regex: on, ..filters.clone() });
        })
    };

    // Exports are written when asked for, not on every render.
    let shown_count = rows.len();
    let rows = Rc::new(rows);
    let name = |ext: &str| format!("{}-findings.{ext}", sanitise(&props.run_id));
    let save_csv = {
        let (name, rows, all) = (name("csv"), rows.clone(), all.clone());
        Callback::from(move |_: MouseEvent| {
            let header: Vec<String> = Column::ALL.iter().map(|c| c.title().to_owned()).collect();
            let body: Vec<Vec<String>> =
                rows.iter().map(|&i| Column::ALL.iter().map(|c| c.cell(&all[i])).collect()).collect();
            download(&name, "text/csv", &to_csv(&header, body.iter()));
        })
    };
    let save_json = {
        let (name, rows, all) = (name("json"), rows.clone(), all.clone());
        Callback::from(move |_: MouseEvent| {
            let listed: Vec<&Finding> = rows.iter().map(|&i| &all[i]).collect();
            let json = serde_json::to_string_pretty(&listed).unwrap_or_default() + "\n";
            download(&name, "application/json", &json);
        })
    };

    let heading = |i: Column| {
        let sort = sort.clone();
        let current = *sort;
        let onclick = Callback::from(move |_: MouseEvent| {
            let descending = matches!(current, Some((c, false)) if c == i);
            sort.set(Some((i, descending)));
        });
        let state = match current {
            Some((c, d)) if c == i => {
                if d {
                    "descending"
                } else {
                    "ascending"
                }
            }
            _ => "none",
        };
        html! { <th scope="col" aria-sort={state}><button type="button" class="sort" {onclick}>{ i.title() }</button></th> }
    };

    html! {
        <div class="findings">
            <form class="controls findings-filters" role="search" aria-label="Filter findings" onsubmit={Callback::from(|e: SubmitEvent| e.prevent_default())}>
                { select("filter-channel", "Channel", "all", &channels, &filters.channel, set(|f, v| f.channel = v)) }
                { select("filter-level", "Level", "all", &levels, &filters.level, set(|f, v| f.level = v)) }
                { select("filter-type", "Data type", "all", &types, &filters.data_type, set(|f, v| f.data_type = v)) }
                { select("filter-detector", "Detector", "all", &detectors, &filters.detector, set(|f, v| f.detector = v)) }
                <label>{ "Source or target " }<input id="filter-party" type="text" value={filters.party.clone()} oninput={text_input(set(|f, v| f.party = v))} /></label>
                <label>{ "Search " }<input id="finding-search" type="search" value={filters.search.clone()} oninput={text_input(set(|f, v| f.search = v))} /></label>
                <label><input id="finding-regex" type="checkbox" checked={filters.regex} onchange={on_regex} />{ " regular expression" }</label>
                if let Err(message) = &search { <p class="error-message" role="alert">{ message }</p> }
            </form>
            <p class="muted findings-count" data-shown={shown_count.to_string()}>
                { format!("{} of {} findings shown", shown_count, props.findings.len()) }
                { " · " }
                <button type="button" class="link-button" id="export-findings-csv" onclick={save_csv}>{ "CSV" }</button>
                { " · " }
                <button type="button" class="link-button" id="export-findings-json" onclick={save_json}>{ "JSON" }</button>
            </p>
            if !props.all_pages {
                <Pager id="findings-pager" noun="findings" total={shown_count} page={page.clone()} />
            }
            <div class="table-wrap">
                <table class="findings-table">
                    <thead><tr>{ for Column::ALL.into_iter().map(heading) }</tr></thead>
                    <tbody>
                        { for rows[on_page_or_all(shown_count, *page, props.all_pages)].iter().map(|&i| row(&all[i], props, &revealed)) }
                    </tbody>
                </table>
            </div>
            if !props.all_pages {
                <Pager id="findings-pager-bottom" noun="findings" total={shown_count} page={page.clone()} />
            }
        </div>
    }
}

fn row(f: &Finding, props: &FindingsProps, revealed: &UseStateHandle<BTreeSet<String>>) -> Html {
    let event = match props.event_of_finding.get(&f.finding_id) {
        Some(&index) => {
            let show = props.on_show_event.clone();
            let onclick = Callback::from(move |event: MouseEvent| {
                event.prevent_default();
                show.emit(index);
            });
            html! {
                <a class="event-link" href={format!("#event-{index}")} data-event-index={index.to_string()}
                    title="Show this event in the event list" {onclick}>{ ident(&f.event_id) }</a>
            }
        }
        None => ident(&f.event_id),
    };
    let full = props.values.as_ref().and_then(|v| v.get(&f.finding_id));
    let value = match full {
        Some(full) if revealed.contains(&f.finding_id) => {
            let id = f.finding_id.clone();
            let revealed = revealed.clone();
            let hide = Callback::from(move |_: MouseEvent| {
                let mut next = (*revealed).clone();
                next.remove(&id);
                revealed.set(next);
            });
            // A revealed value never prints: the print stylesheet hides it
            // and shows the redacted value in its place.
            html! { <>
                <span class="mono revealed">{ shown(full) }</span><span class="mono print-only">{ shown(&f.redacted_value) }</span>
                { " " }<button type="button" class="link-button" onclick={hide}>{ "hide" }</button>
            </> }
        }
        Some(_) => {
            let id = f.finding_id.clone();
            let revealed = revealed.clone();
            let show = Callback::from(move |_: MouseEvent| {
                let mut next = (*revealed).clone();
                next.insert(id.clone());
                revealed.set(next);
            });
            html! {
                <><span class="mono">{ shown(&f.redacted_value) }</span>{ " " }
                <button type="button" class="link-button reveal" title="Show the full matched value of this finding" onclick={show}>{ "reveal" }</button></>
            }
        }
        None => html! { <span class="mono">{ shown(&f.redacted_value) }</span> },
    };
    html! {
        <tr id={finding_row_id(&f.finding_id)} tabindex="-1" data-finding-id={f.finding_id.clone()} data-event-id={f.event_id.to_string()} data-channel={f.channel.as_str()}>
            <td class="mono">{ ident(f.channel.as_str()) }</td>
            <td>{ ident(&f.data_type) }</td>
            <td><span class={classes!("level", f.level.badge())}>{ f.level.label() }</span></td>
            <td class="value">{ value }</td>
            <td>{ ident(&f.detector) }</td>
            <td class="mono">{ event }</td>
            <td>{ ident(&f.source) }</td>
            <td>{ ident(&f.target) }</td>
        </tr>
    }
}

/// A run id made safe as part of a file name.
fn sanitise(run_id: &str) -> String {
    let safe: String =
        run_id.chars().map(|c| if c.is_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    if safe.is_empty() {
        "run".to_owned()
    } else {
        safe
    }
}
