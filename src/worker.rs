//! The analysis worker: receives files from the page, reads their bytes,
//! runs the core, and posts back finished results. Everything that touches
//! file contents happens here, off the page's main thread.

use crate::js_text;
use crate::protocol::{
    analyze_bytes_observed, size_refusal, split_result, FileResult, FromWorker, Phase, Progress, PROGRESS_FROM_BYTES,
};
use agentrisk::batch::{detect_kind, FileKind};
use agentrisk::config::{config_from_yaml, AnalysisConfig};
use js_sys::{Reflect, Uint8Array};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, DedicatedWorkerGlobalScope, MessageEvent, Response};

/// Installs the panic hook and the message handler, then tells the page it
/// is ready.
pub fn start() {
    let scope: DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    install_crash_reports(&scope);
    let handler_scope = scope.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        let scope = handler_scope.clone();
        wasm_bindgen_futures::spawn_local(async move { handle(&scope, event.data()).await });
    });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // Compiled before the first file arrives, not while it waits.
    let _ = agentrisk::pipeline::warm_up();
    post(&scope, &FromWorker::Ready);
}

/// A panic (or an error no handler caught) is told to the page as
/// [`FromWorker::Crashed`] with the file being worked on, so that the page
/// fails that file and replaces this worker instead of waiting for ever.
fn install_crash_reports(scope: &DedicatedWorkerGlobalScope) {
    let panic_scope = scope.clone();
    std::panic::set_hook(Box::new(move |info| {
        console_error_panic_hook::hook(info);
        let message = format!("internal error (a bug, please report it): {info}");
        post(&panic_scope, &FromWorker::Crashed { id: CURRENT.with(Cell::get), message });
    }));
    // A trap inside a task (after an out-of-memory abort, say) rejects a
    // promise nobody awaits; this turns it into the same report.
    let rejection_scope = scope.clone();
    let on_rejection =
        Closure::<dyn Fn(web_sys::PromiseRejectionEvent)>::new(move |event: web_sys::PromiseRejectionEvent| {
            let message = format!("the analysis stopped: {}", js_text(&event.reason()));
            post(&rejection_scope, &FromWorker::Crashed { id: CURRENT.with(Cell::get), message });
        });
    let _ = scope.add_event_listener_with_callback("unhandledrejection", on_rejection.as_ref().unchecked_ref());
    // The listener lives as long as the worker.
    on_rejection.forget();
}

thread_local! {
    /// The file being analysed, named in a crash report.
    static CURRENT: Cell<Option<u32>> = const { Cell::new(None) };
    /// The what-if config (`None`: the reference's defaults, no config file).
    static CONFIG: RefCell<Option<AnalysisConfig>> = const { RefCell::new(None) };
    /// The traces and reports loaded so far, kept so that new settings can
    /// analyse or re-score them again. Removed files are forgotten.
    static KEPT: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// A loaded trace or report: id, name, folder and bytes.
type Kept = (u32, String, String, Rc<Vec<u8>>);

async fn handle(scope: &DedicatedWorkerGlobalScope, message: JsValue) {
    let text = |key: &str| Reflect::get(&message, &key.into()).ok().and_then(|v| v.as_string());
    if let Some(yaml) = text("settings") {
        apply_settings(scope, &yaml);
        return;
    }
    if let Some(id) = Reflect::get(&message, &"forget".into()).ok().and_then(|v| v.as_f64()) {
        KEPT.with_borrow_mut(|kept| kept.retain(|(kept_id, ..)| *kept_id != id as u32));
        return;
    }
    let Some(id) = Reflect::get(&message, &"id".into()).ok().and_then(|v| v.as_f64()) else {
        web_sys::console::error_1(&"worker: message without an id".into());
        return;
    };
    let id = id as u32;
    let (name, folder) = (text("name").unwrap_or_default(), text("folder").unwrap_or_default());
    match read_bytes(scope, id, &message).await {
        Ok(bytes) => {
            let bytes = Rc::new(bytes);
            if matches!(detect_kind(&bytes), FileKind::Trace | FileKind::Report) {
                KEPT.with_borrow_mut(|kept| kept.push((id, name.clone(), folder.clone(), bytes.clone())));
            }
            analyse(scope, id, &name, &folder, &bytes);
        }
        Err(message) => post_result(scope, id, FileResult::Error { message }),
    }
}

/// Takes new what-if settings (`""`: the reference's defaults) and analyses
/// every kept trace, and re-scores every kept report, with them; refused
/// settings change nothing.
fn apply_settings(scope: &DedicatedWorkerGlobalScope, yaml: &str) {
    let config = if yaml.is_empty() { Ok(None) } else { config_from_yaml(yaml).map(Some) };
    match config {
        Err(e) => post(scope, &FromWorker::SettingsRejected { message: e.to_string() }),
        Ok(config) => {
            CONFIG.with_borrow_mut(|current| *current = config);
            post(scope, &FromWorker::SettingsApplied);
            let kept = KEPT.with_borrow(|kept| kept.clone());
            for (id, name, folder, bytes) in kept {
                analyse(scope, id, &name, &folder, &bytes);
            }
        }
    }
}

/// Analyses one file's bytes with the current settings and posts the result.
fn analyse(scope: &DedicatedWorkerGlobalScope, id: u32, name: &str, folder: &str, bytes: &[u8]) {
    let size = bytes.len() as u64;
    let started = js_sys::Date::now();
    // Posted at each new stage and each further percent; the page
    // receives them while this worker is still busy.
    let last: Cell<Option<(Phase, u8)>> = Cell::new(None);
    let on_progress = |p: agentrisk::pipeline::Progress| {
        let (phase, percent) = (Phase::from(p.stage), (p.overall() * 100.0).floor() as u8);
        if last.get() == Some((phase, percent)) || last.get().is_some_and(|(_, was)| was > percent) {
            return;
        }
        last.set(Some((phase, percent)));
        let seconds = (js_sys::Date::now() - started) / 1000.0;
        let mb_per_s = (seconds > 0.05).then(|| size as f64 * p.overall() / 1e6 / seconds);
        progress(scope, id, Progress { phase, bytes: size, percent: Some(percent), mb_per_s });
    };
    let generated_at = String::from(js_sys::Date::new_0().to_iso_string());
    CURRENT.with(|current| current.set(Some(id)));
    let result = CONFIG
        .with_borrow(|config| analyze_bytes_observed(bytes, name, folder, config.as_ref(), generated_at, &on_progress));
    CURRENT.with(|current| current.set(None));
    post_result(scope, id, result);
}

/// Posts file `id`'s result: its long lists in parts, then the rest.
fn post_result(scope: &DedicatedWorkerGlobalScope, id: u32, mut result: FileResult) {
    for part in split_result(&mut result) {
        post(scope, &FromWorker::Part { id, part });
    }
    post(scope, &FromWorker::Done { id, result });
}

/// Tells the page how far a large file has come. Posted as the work goes
/// on: the page receives it while the worker is busy.
fn progress(scope: &DedicatedWorkerGlobalScope, id: u32, progress: Progress) {
    if progress.bytes > PROGRESS_FROM_BYTES {
        post(scope, &FromWorker::Progress { id, progress });
    }
}

/// The bytes of the message's `blob`, or of its same-origin `url`.
async fn read_bytes(scope: &DedicatedWorkerGlobalScope, id: u32, message: &JsValue) -> Result<Vec<u8>, String> {
    let field = |key: &str| Reflect::get(message, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let buffer = if let Ok(blob) = field("blob").dyn_into::<Blob>() {
        let bytes = blob.size() as u64;
        progress(scope, id, Progress { phase: Phase::Reading, bytes, percent: None, mb_per_s: None });
        JsFuture::from(blob.array_buffer()).await.map_err(|e| format!("cannot read the file: {}", js_text(&e)))?
    } else if let Some(url) = field("url").as_string() {
        let response: Response = JsFuture::from(scope.fetch_with_str(&url))
            .await
            .map_err(|e| format!("cannot fetch {url}: {}", js_text(&e)))?
            .unchecked_into();
        if !response.ok() {
            return Err(format!("cannot fetch {url}: HTTP {}", response.status()));
        }
        let announced = response.headers().get("content-length").ok().flatten().and_then(|n| n.parse::<u64>().ok());
        if let Some(reason) = announced.and_then(|size| size_refusal(size, 0)) {
            return Err(reason);
        }
        let body = response.array_buffer().map_err(|e| js_text(&e))?;
        JsFuture::from(body).await.map_err(|e| format!("cannot read {url}: {}", js_text(&e)))?
    } else {
        return Err("nothing to read: the message has neither a file nor a URL".to_owned());
    };
    let bytes = Uint8Array::new(&buffer);
    if let Some(reason) = size_refusal(u64::from(bytes.length()), 0) {
        return Err(reason);
    }
    Ok(bytes.to_vec())
}

fn post(scope: &DedicatedWorkerGlobalScope, message: &FromWorker) {
    match serde_json::to_string(message) {
        Ok(text) => {
            if let Err(e) = scope.post_message(&JsValue::from_str(&text)) {
                web_sys::console::error_2(&"worker: cannot post a result".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot encode a result: {e}").into()),
    }
}
