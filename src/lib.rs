//! AgentRisk Viewer: the Yew app and its analysis worker.
//!
//! This crate is a shell around `agentrisk`: the page shows finished
//! summaries and sends files to the worker; the worker reads bytes and calls
//! the core. No scoring rule lives here.
//!
//! * [`protocol`] — the messages between page and worker, and how a
//!   result's long lists are sent in parts.
//! * [`worker`] — the worker's entry point (the `viewer` binary, run in a
//!   dedicated worker): it feeds files to an `agentrisk::workspace::Workspace`.
//! * [`bridge`] — the page's handle on the worker.
//! * [`state`] — the page state (`Reducible`) and its actions.
//! * [`components`] — the views; [`components::app`] is the page that
//!   composes them.
//! * [`hooks`] — the page's custom hooks: the worker, files, embedding,
//!   publications, the URL hash, keyboard shortcuts and printing.
//! * [`hash`] — the view state in the URL hash.
//! * [`charts`] — the Batch tab's charts (plotters), backend-independent.
//! * [`dropped`] — walking dropped folders.
//! * [`embed`] — files from a parent page by `postMessage`.
//! * [`publication`] — opening a report site or review pack.
//! * [`samples`] — the bundled example files.
//! * [`theme`] — the light or dark choice.

pub mod bridge;
pub mod charts;
pub mod components;
pub mod dropped;
pub mod embed;
pub mod hash;
pub mod hooks;
pub mod protocol;
pub mod publication;
pub mod samples;
pub mod state;
pub mod theme;
pub mod worker;

pub use components::app::App;

/// Mounts the app on `<body>`, shows any panic on the page (and in the
/// console), and registers the service worker that keeps the site usable
/// offline.
pub fn start_app() {
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_internal_error(&info.to_string());
    }));
    register_service_worker();
    yew::Renderer::<App>::new().render();
}

/// Puts a panic's message on the page, above everything, so a bug shows
/// as a bug rather than as a page that stopped answering. Written with the
/// DOM directly: after a panic the app's own state cannot be trusted.
pub fn show_internal_error(message: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
    let Some(body) = document.body() else { return };
    if document.get_element_by_id("internal-error").is_some() {
        return;
    }
    let Ok(banner) = document.create_element("div") else { return };
    banner.set_id("internal-error");
    let _ = banner.set_attribute("role", "alert");
    banner.set_text_content(Some(&format!(
        "The viewer hit an internal error, a bug we would like to hear about: {message}. \
         What is shown may be incomplete; reload the page to start again."
    )));
    let _ = body.prepend_with_node_1(&banner);
}

/// What a JavaScript error or rejection says: an `Error`'s message, a
/// thrown string, or else the value as the console would show it.
pub fn js_text(value: &wasm_bindgen::JsValue) -> String {
    use wasm_bindgen::JsCast;
    value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"))
}

/// `sw.js` beside the page (so any sub-path works); where service workers
/// are not available (a `file:` page, an old browser) the site still works
/// online.
fn register_service_worker() {
    // A review pack is one file, opened from disk: nothing to keep.
    if publication::in_pack() {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    let container = window.navigator().service_worker();
    let _ = container.register("./sw.js");
}
