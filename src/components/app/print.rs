//! What a printed page says about itself: a header on the first page (what
//! is printed, when, with which tool, files and settings, the span mapping
//! when runs were made from spans, and that values are masked), and the
//! shorter title and settings line for every page's margins, which
//! `hooks::print` puts in place.

use crate::state::{FileStatus, State, Tab};
use yew::prelude::*;

/// The print header, and the margins' `(title, meta)`. The date is stamped
/// when printing (`download::stamp_print_date`).
pub fn print_header(state: &State, batch_runs: usize) -> (Html, (String, String)) {
    // A span export's runs are rows of one file.
    let mut files: Vec<(u32, &str)> = state.files.iter().map(|f| (f.file, f.name.as_str())).collect();
    files.dedup_by_key(|(file, _)| *file);
    let names: Vec<&str> = files.into_iter().map(|(_, name)| name).collect();
    let title = match state.tab {
        Tab::Runs => match state.selected_run() {
            Some((entry, run)) => format!("Run {} · {}", run.report().run_id, entry.name),
            None => format!("{} files loaded", names.len()),
        },
        Tab::Batch => format!("Batch of {batch_runs} runs"),
        Tab::Compare => format!("Comparison · batch of {batch_runs} runs"),
        Tab::Trend => "Trend over batches".to_owned(),
        Tab::Scoring => "What-if scoring settings".to_owned(),
    };
    let (settings, settings_short) = if state.whatif.is_reference_default() {
        ("AgentLeak's reference defaults".to_owned(), "AgentLeak's reference defaults".to_owned())
    } else {
        let described = state.whatif.describe();
        (format!("what-if: {described}"), format!("what-if: {}", first_chars(&described, 70)))
    };
    // Which mapping made the span runs loaded (a site's reports of span runs included).
    let mut mappings: Vec<&str> = state
        .files
        .iter()
        .filter_map(|f| match &f.status {
            FileStatus::Loaded(run) => run.span_source().map(|source| source.mapping.as_str()),
            _ => None,
        })
        .collect();
    agentrisk::util::sort(&mut mappings);
    mappings.dedup();
    let span_mapping =
        if mappings.is_empty() { String::new() } else { format!(" · span mapping: {}", mappings.join(", ")) };
    let tool = concat!("AgentRisk Viewer ", env!("CARGO_PKG_VERSION"));
    let margins = (format!("AgentRisk Viewer · {title}"), format!("{tool} · scoring: {settings_short}{span_mapping}"));
    // Many files would fill the first page with names: the run table lists them.
    let shown_names = match names.len() {
        0..=12 => names.join(", "),
        n => format!("{}, and {} more", names.iter().take(10).copied().collect::<Vec<_>>().join(", "), n - 10),
    };
    let header = html! {
        <div class="print-header" aria-hidden="true">
            <p class="print-title">{ title }</p>
            <p>
                { tool }{ " · printed " }<span id="print-date"></span>
                { format!(" · {} files: {shown_names} · scoring: {settings}{span_mapping} · batch intervals: Wilson, {}%{}",
                    names.len(),
                    state.batch.confidence * 100.0,
                    if state.batch.continuity_correction { ", continuity correction" } else { "" }) }
            </p>
            <p class="print-masked">{ "Values are masked: findings print redacted as in the report; a value revealed on screen is not printed." }</p>
        </div>
    };
    (header, margins)
}

/// At most `n` characters of `text`, with an ellipsis when cut.
fn first_chars(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}
