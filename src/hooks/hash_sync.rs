//! The URL hash as a hook: a link's hash restores its view once, when the
//! page opens, and from then on the hash follows the view without adding
//! history entries. What goes into the hash, and how, is `crate::hash`'s.

use crate::hash::{from_hash, to_hash};
use crate::state::{Action, State, ViewState};
use agentrisk::config::WhatIf;
use wasm_bindgen::JsValue;
use yew::prelude::*;

/// Restores the view of the page's hash on the first render (its what-if
/// settings through `on_apply`, as they go to the worker), then writes the
/// view of `state` into the hash whenever it changes.
#[hook]
pub fn use_hash_sync(state: &State, on_apply: Callback<WhatIf>, dispatch: Callback<Action>) {
    // Declared before the writing effect, so it reads the link's hash
    // before the first write replaces it.
    use_effect_with((), move |_| {
        let hash = web_sys::window().and_then(|w| w.location().hash().ok()).unwrap_or_default();
        if !hash.is_empty() {
            let view = from_hash(&hash);
            if !view.whatif.is_reference_default() {
                on_apply.emit(view.whatif.clone());
            }
            dispatch.emit(Action::RestoreView(Box::new(view)));
        }
    });
    use_effect_with(view_of(state), |view| replace_hash(&to_hash(view)));
}

/// What the hash holds of the state. The run is named by its file and its
/// place among the file's runs (a span export has several); a run a link
/// names that has not loaded yet stays named.
fn view_of(state: &State) -> ViewState {
    let (run, run_place) = match (state.selected_run(), &state.pending_run) {
        (Some((entry, _)), _) => (Some(entry.name.clone()), state.selected_place()),
        (None, Some((name, place))) => (Some(name.clone()), *place),
        (None, None) => (None, 0),
    };
    ViewState {
        tab: state.tab,
        run,
        run_place,
        batch: state.batch,
        whatif: state.whatif.clone(),
        src: state.src.clone(),
        filters: state.finding_filters.clone(),
    }
}

/// Puts `hash` in the address bar in place of the current one (an empty
/// hash leaves no `#`), when it differs.
fn replace_hash(hash: &str) {
    let Some(window) = web_sys::window() else { return };
    let current = window.location().hash().unwrap_or_default();
    if current.trim_start_matches('#') == hash {
        return;
    }
    let url = if hash.is_empty() {
        window.location().pathname().unwrap_or_default() + &window.location().search().unwrap_or_default()
    } else {
        format!("#{hash}")
    };
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}
