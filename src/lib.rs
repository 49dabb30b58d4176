//! AgentRisk Viewer: the Yew app and its analysis worker.
//!
//! This crate is a shell around `agentrisk`: the page shows finished
//! summaries and sends files to the worker; the worker reads bytes and calls
//! the core. No scoring rule lives here.
//!
//! * [`protocol`] — the messages between page and worker, and the one core
//!   call the worker makes per file.
//! * [`worker`] — the worker's entry point (bin `worker`).
//! * [`bridge`] — the page's handle on the worker.
//! * [`state`] — the page state (`Reducible`) and its actions.
//! * [`components`] — the views.
//! * [`hash`] — the view state in the URL hash.
//! * [`charts`] — the Batch tab's charts (plotters), backend-independent.

pub mod bridge;
pub mod charts;
pub mod components;
pub mod hash;
pub mod protocol;
pub mod samples;
pub mod state;
pub mod worker;

pub use components::app::App;

/// Mounts the app on `<body>`, routes panics to the console, and registers
/// the service worker that keeps the site usable offline.
pub fn start_app() {
    console_error_panic_hook::set_once();
    register_service_worker();
    yew::Renderer::<App>::new().render();
}

/// `sw.js` beside the page (so any sub-path works); where service workers
/// are not available (a `file:` page, an old browser) the site still works
/// online.
fn register_service_worker() {
    let Some(window) = web_sys::window() else { return };
    let container = window.navigator().service_worker();
    let _ = container.register("./sw.js");
}
