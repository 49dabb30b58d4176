//! The page's custom hooks: the wiring between the one state and the
//! browser. Each hook owns one handle or effect of the page (the worker,
//! the files handed to it, a parent page, a publication, the URL hash, the
//! keyboard, printing) and changes the state only by dispatching actions.
//! The plumbing they wire lives elsewhere: `bridge`, `embed`,
//! `publication`, `hash` and `components::download`.

pub mod embedding;
pub mod files;
pub mod hash_sync;
pub mod print;
pub mod publication;
pub mod shortcuts;
pub mod worker;

use crate::state::{Action, State};
use wasm_bindgen::closure::{Closure, WasmClosure};
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The one way the page's hooks and views dispatch: a callback over the
/// reducer's dispatcher (`dispatch.reform(Action::Select)`), which stays
/// valid across renders as the dispatcher does.
pub fn dispatch(state: &UseReducerHandle<State>) -> Callback<Action> {
    let dispatcher = state.dispatcher();
    Callback::from(move |action| dispatcher.dispatch(action))
}

/// Listens to the window's `event` with `listener` until the returned
/// cleanup runs: an effect that lives as long as the page returns it.
pub fn listen_on_window<F: ?Sized + WasmClosure>(event: &'static str, listener: Closure<F>) -> impl FnOnce() {
    let window = web_sys::window();
    if let Some(w) = &window {
        let _ = w.add_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
    }
    move || {
        if let Some(w) = window {
            let _ = w.remove_event_listener_with_callback(event, listener.as_ref().unchecked_ref());
        }
    }
}
