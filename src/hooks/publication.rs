//! A publication as the page opens and saves it: a report site or review
//! pack opens its runs at once (`use_open_publication`), and **Save as one
//! file** writes the loaded files as a pack (`save_as_one_file`). Finding
//! the manifest and the viewer's own files is `crate::publication`'s;
//! checking files against the manifest and writing the pack are the
//! worker's.

use crate::bridge::Bridge;
use crate::hooks::files::{AddFiles, Picked};
use crate::hooks::worker::Worker;
use crate::publication::{self, Found};
use crate::state::{Action, Publication};
use agentrisk::config::WhatIf;
use agentrisk::publish::FileCheck;
use std::rc::Rc;
use yew::prelude::*;

/// On the first render, looks for a publication and, when this page is
/// one, shows its header and opens its files.
#[hook]
pub fn use_open_publication(add: AddFiles, dispatch: Callback<Action>, worker: Worker) {
    use_effect_with((), move |_| {
        wasm_bindgen_futures::spawn_local(async move {
            let Some(found) = publication::find().await else { return };
            let found = match found {
                Ok(found) => found,
                Err(why) => {
                    dispatch.emit(Action::Published(Rc::new(unverifiable(why))));
                    return;
                }
            };
            let Ok(bridge) = worker.as_ref() else { return };
            open_publication(found, bridge, &add, &dispatch);
        });
    });
}

/// **Save as one file**: gathers the viewer's own files, then has the
/// worker write the pack (with the traces when `include_traces`), titled
/// and configured as the page is now.
pub fn save_as_one_file(
    worker: &Worker,
    dispatch: &Callback<Action>,
    whatif: &WhatIf,
    publication: Option<Rc<Publication>>,
) -> Callback<bool> {
    let (worker, dispatch, whatif) = (worker.clone(), dispatch.clone(), whatif.clone());
    Callback::from(move |include_traces: bool| {
        let (worker, dispatch) = (worker.clone(), dispatch.clone());
        let settings = pack_settings(&whatif, publication.as_deref());
        let title = publication.as_ref().map_or_else(|| "AgentRisk review".to_owned(), |p| p.title.clone());
        dispatch.emit(Action::Saving(None));
        wasm_bindgen_futures::spawn_local(async move {
            match publication::viewer_assets().await {
                Ok((mut request, wasm)) => {
                    request.title = title;
                    request.include_traces = include_traces;
                    request.settings = settings;
                    match worker.as_ref() {
                        Ok(bridge) => bridge.save_pack(request, wasm),
                        Err(why) => dispatch.emit(Action::Saving(Some(why.clone()))),
                    }
                }
                Err(why) => dispatch.emit(Action::Saving(Some(format!("Cannot save as one file: {why}")))),
            }
        });
    })
}

/// A publication whose manifest cannot be read: nothing to check.
fn unverifiable(why: String) -> Publication {
    Publication {
        title: "AgentRisk review".to_owned(),
        generated_at: String::new(),
        tool_version: String::new(),
        config: "unknown".to_owned(),
        settings: None,
        what_if: None,
        include_traces: false,
        span_mapping: None,
        pack: publication::in_pack(),
        expected: 0,
        not_published: Vec::new(),
        checks: Vec::new(),
        unverifiable: Some(why),
    }
}

/// Shows a publication's header, applies its config and span mapping, and opens its files
/// (the worker checks each against the manifest).
fn open_publication(found: Found, bridge: &Bridge, add: &AddFiles, dispatch: &Callback<Action>) {
    let manifest = &found.manifest;
    let config = match &manifest.config.name {
        Some(name) => format!("{name} ({})", manifest.config.summary),
        None => manifest.config.summary.clone(),
    };
    let settings = manifest.config.name.clone().zip(manifest.config.yaml.clone());
    let mut picked = Vec::new();
    let mut checks = Vec::new();
    let mut not_published = Vec::new();
    for (entry, source) in manifest.files.iter().zip(found.files) {
        match source {
            None => not_published.push((entry.name.clone(), entry.error.clone().unwrap_or_default())),
            Some(source) => {
                if let Err(problem) = &source {
                    checks.push((entry.name.clone(), FileCheck::Modified { problem: problem.clone() }));
                }
                picked.push(Picked { name: entry.name.clone(), folder: entry.folder.clone(), source });
            }
        }
    }
    dispatch.emit(Action::Published(Rc::new(Publication {
        title: manifest.title.clone(),
        generated_at: manifest.generated_at.clone(),
        tool_version: manifest.tool_version.clone(),
        config,
        settings: settings.clone(),
        what_if: manifest.config.what_if.clone(),
        include_traces: manifest.include_traces,
        span_mapping: manifest.span_mapping,
        pack: found.pack,
        expected: picked.len(),
        not_published,
        checks,
        unverifiable: None,
    })));
    // The config and the span mapping first, so that each file is analysed
    // once, with them.
    if let Some((_, yaml)) = &settings {
        bridge.send_settings(yaml);
        if let Some(what_if) = &manifest.config.what_if {
            dispatch.emit(Action::ApplyWhatIf(what_if.clone()));
        }
    }
    if let Some(mapping) = manifest.span_mapping {
        bridge.send_span_mapping(mapping);
    }
    bridge.publication(&found.text);
    add.emit(picked);
}

/// The settings a saved pack records: none for the reference's defaults,
/// the publication's own config while the What-if form still shows it,
/// else the form's settings.
fn pack_settings(whatif: &WhatIf, publication: Option<&Publication>) -> Option<(String, String)> {
    if whatif.is_reference_default() {
        return None;
    }
    match publication {
        Some(p) if p.what_if.as_ref() == Some(whatif) => p.settings.clone(),
        _ => Some(("what-if settings".to_owned(), whatif.to_settings_yaml())),
    }
}
