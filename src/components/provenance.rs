//! The header of a publication (what it is, who made it, with which
//! settings, and whether what is shown is what was published), and the
//! "Save as one file" control.

use crate::state::Publication;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProvenanceProps {
    pub publication: Rc<Publication>,
}

/// `id="provenance"` with `data-verification` = `verified`, `modified`,
/// `unverifiable` or `checking`.
#[function_component(Provenance)]
pub fn provenance(props: &ProvenanceProps) -> Html {
    let p = &props.publication;
    let verification = p.verification();
    let status = match verification {
        "verified" => format!(
            "Verified: all {} files match their SHA-256 in the manifest and give the numbers it records.",
            p.expected
        ),
        "modified" => "Modified since publishing: what is shown is not what was published.".to_owned(),
        "unverifiable" => format!("Unverifiable: {}", p.unverifiable.as_deref().unwrap_or_default()),
        _ => format!("Checking {} of {} files against the manifest…", p.checks.len(), p.expected),
    };
    let contents = if p.include_traces {
        "raw traces included (they hold the secrets audited)"
    } else {
        "reports only (redacted values)"
    };
    html! {
        <section id="provenance" class={classes!("provenance", verification)} data-verification={verification}
            aria-label="Publication">
            <h2 class="provenance-title">{ &p.title }</h2>
            <p class="muted">
                { format!("{} · published {} by agentrisk {} · scoring: {}{} · {}",
                    if p.pack { "Review pack" } else { "Report site" }, when(&p.generated_at), p.tool_version, p.config,
                    p.span_mapping.map(|m| format!(" · span mapping: {}", m.as_str())).unwrap_or_default(), contents) }
            </p>
            <p class="provenance-status" role="status">{ status }</p>
            if verification == "modified" {
                <ul class="provenance-modified">
                    { for p.modified().map(|(name, problem)| html! {
                        <li><span class="mono">{ name }</span>{ ": " }{ problem }</li>
                    }) }
                </ul>
            }
            if !p.not_published.is_empty() {
                <ul class="provenance-unpublished muted">
                    { for p.not_published.iter().map(|(name, problem)| html! {
                        <li><span class="mono">{ name }</span>{ " was not published: " }{ problem }</li>
                    }) }
                </ul>
            }
            <p class="muted">{ "Verified means the files agree with the manifest; it is not a signature." }</p>
        </section>
    }
}

/// `2026-12-06T10:17:54.933438+00:00` as `2026-12-06 10:17 UTC`; other
/// text as it is.
fn when(iso: &str) -> String {
    match (iso.get(..10), iso.get(11..16)) {
        (Some(day), Some(time)) if iso.as_bytes().get(10) == Some(&b'T') => format!("{day} {time} UTC"),
        _ => iso.to_owned(),
    }
}

#[derive(Properties, PartialEq)]
pub struct SaveProps {
    /// `Some(None)` while saving, `Some(Some(why))` after a failure.
    pub saving: Option<Option<String>>,
    /// Saves a pack; `true` to include the raw traces.
    pub on_save: Callback<bool>,
}

/// "Save as one file": a review pack of everything loaded, reports only
/// unless the raw traces are asked for.
#[function_component(SaveAsOneFile)]
pub fn save_as_one_file(props: &SaveProps) -> Html {
    let with_traces = use_node_ref();
    let on_click = {
        let (with_traces, on_save) = (with_traces.clone(), props.on_save.clone());
        Callback::from(move |_: MouseEvent| {
            on_save.emit(with_traces.cast::<HtmlInputElement>().is_some_and(|i| i.checked()));
        })
    };
    let busy = matches!(props.saving, Some(None));
    html! {
        <div class="save-pack">
            <button type="button" id="save-pack" class="button" disabled={busy} onclick={on_click}
                title="One HTML file with the viewer and what is loaded, to open from disk with no network">
                { if busy { "Saving…" } else { "Save as one file" } }
            </button>
            <label class="muted"><input type="checkbox" id="save-pack-traces" ref={with_traces} />
                { " with raw traces" }</label>
            if let Some(Some(problem)) = &props.saving {
                <span class="error-message" role="alert">{ problem }</span>
            }
        </div>
    }
}
