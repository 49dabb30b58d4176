//! The page's handle on the analysis worker.
//!
//! Messages sent before the worker has installed its handler would be lost,
//! so they wait in a queue until the worker says it is ready.
//!
//! A worker that panics or dies (an out-of-memory abort, an uncaught
//! error) is replaced: the file it was working on fails with the reason,
//! every other file it holds is sent to the new worker again (with the
//! current what-if settings, canary set and span mapping), and files
//! already shown keep their results.

use crate::protocol::{join_result, FromWorker, PackRequest, ResultPart, ReviewEdit, ToWorker};
use agentrisk::model::SpanMapping;
use agentrisk::workspace::FileResult;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use web_sys::{ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

/// The worker's bootstrap (`www/worker.js`): it runs this same binary.
const WORKER_URL: &str = "./worker.js";

#[wasm_bindgen]
extern "C" {
    /// Where this module's wasm-bindgen glue was loaded from.
    #[wasm_bindgen(thread_local_v2, js_namespace = ["import", "meta"], js_name = url)]
    static GLUE_URL: JsValue;
}

/// A new worker running this binary's worker half. A single-file review
/// pack has no worker file to load: its bootstrap defines
/// `agentriskPackWorker()`, which starts one from the pack's own text.
/// Either way the worker gets this page's compiled module, so the code is
/// neither fetched nor compiled twice.
fn new_worker() -> Result<Worker, JsValue> {
    let pack_worker = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("agentriskPackWorker"))?;
    let worker: Worker = match pack_worker.dyn_into::<js_sys::Function>() {
        Ok(start) => start.call0(&JsValue::NULL)?.dyn_into()?,
        Err(_) => {
            let options = WorkerOptions::new();
            options.set_type(WorkerType::Module);
            Worker::new_with_options(WORKER_URL, &options)?
        }
    };
    let start = js_sys::Object::new();
    js_sys::Reflect::set(&start, &JsValue::from_str("glue"), &GLUE_URL.with(JsValue::clone))?;
    js_sys::Reflect::set(&start, &JsValue::from_str("module"), &wasm_bindgen::module())?;
    worker.post_message(&start)?;
    Ok(worker)
}

pub use crate::protocol::Source;

/// A file the worker holds (or will): sent again to a replacement worker.
#[derive(Clone)]
struct Sent {
    name: String,
    folder: String,
    source: Source,
}

/// The worker died: `message` says why, `failed` are the files that fail
/// with it (the one it was working on, or every unfinished one when it
/// cannot say which).
pub struct Crash {
    pub message: String,
    pub failed: Vec<u32>,
}

pub struct Bridge {
    inner: Rc<RefCell<Inner>>,
}

struct Inner {
    /// `None` only while a replacement is being started.
    running: Option<Running>,
    ready: bool,
    queue: Vec<JsValue>,
    /// Every file sent and not forgotten, by id.
    sent: BTreeMap<u32, Sent>,
    /// Files sent whose result has not come back yet.
    unfinished: BTreeSet<u32>,
    /// Parts of results whose `Done` has not come yet, by file id.
    parts: BTreeMap<u32, Vec<(u32, ResultPart)>>,
    /// The last what-if settings sent (`""`: the reference's defaults).
    settings: String,
    /// The message that set the canary set in force (a picked file's
    /// `ReadCanaries`, or a dropped file's `Open`), for a replacement worker.
    canaries: Option<JsValue>,
    /// The span mapping chosen (`None`: the default, never changed), for a
    /// replacement worker.
    span_mapping: Option<SpanMapping>,
    /// The publication being opened, for a replacement worker.
    publication: Option<JsValue>,
    /// The review in force and its date, as the worker last told them, for
    /// a replacement worker (review files are not sent again: their
    /// decisions are in it).
    review: Option<JsValue>,
    /// Counts the workers started; a dead worker's late events (its error
    /// after its panic message) carry an old number and are ignored.
    generation: u32,
    /// Why no worker runs, once one died before it was ready.
    stopped: Option<String>,
    /// Dead workers' handlers: a worker dies inside one of them, so they
    /// are kept (one pair per death) rather than dropped while running.
    retired: Vec<Running>,
    on_message: Callback<FromWorker>,
    on_crash: Callback<Crash>,
}

/// A worker and the handlers it calls.
struct Running {
    worker: Worker,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

impl Bridge {
    /// Starts the worker. `on_message` gets every result; `on_crash` is told
    /// when a worker died and which files failed with it.
    pub fn new(on_message: Callback<FromWorker>, on_crash: Callback<Crash>) -> Result<Bridge, String> {
        let inner = Rc::new(RefCell::new(Inner {
            running: None,
            ready: false,
            queue: Vec::new(),
            sent: BTreeMap::new(),
            unfinished: BTreeSet::new(),
            parts: BTreeMap::new(),
            settings: String::new(),
            canaries: None,
            span_mapping: None,
            publication: None,
            review: None,
            generation: 0,
            stopped: None,
            retired: Vec::new(),
            on_message,
            on_crash,
        }));
        let running = start_worker(&Rc::downgrade(&inner), 0)?;
        inner.borrow_mut().running = Some(running);
        Ok(Bridge { inner })
    }

    /// Sends one file (or sample URL) to the worker under `id`; `folder` is
    /// the folder it was picked from (empty when not known). The worker
    /// refuses a file over the size limits (`size_refusal`) with the reason.
    pub fn send(&self, id: u32, name: &str, folder: &str, source: Source) -> Result<(), String> {
        let mut inner = self.inner.borrow_mut();
        if let Some(message) = inner.stopped.clone() {
            return Err(message);
        }
        let sent = Sent { name: name.to_owned(), folder: folder.to_owned(), source };
        inner.unfinished.insert(id);
        inner.sent.insert(id, sent.clone());
        inner.post(file_message(id, &sent));
        Ok(())
    }

    /// Sends what-if settings as `agentleak.yaml` text (`""`: the
    /// reference's defaults); the worker analyses every trace, and re-scores
    /// every report, again.
    pub fn send_settings(&self, yaml: &str) {
        let mut inner = self.inner.borrow_mut();
        inner.settings = yaml.to_owned();
        inner.post(ToWorker::Settings { yaml: yaml.to_owned() }.to_js());
    }

    /// Asks the worker to read an imported `agentleak.yaml` into the
    /// what-if form's values (answered with `SettingsRead` or `SettingsUnreadable`).
    pub fn read_settings(&self, name: &str, bytes: Vec<u8>) {
        self.inner.borrow_mut().post(ToWorker::ReadSettings { name: name.to_owned(), bytes }.to_js());
    }

    /// Sends a picked canary-set file for the worker to apply (answered with
    /// `Canaries` or `CanariesUnreadable`); kept for a replacement worker.
    pub fn read_canaries(&self, name: &str, bytes: Vec<u8>) {
        let mut inner = self.inner.borrow_mut();
        let message = ToWorker::ReadCanaries { name: name.to_owned(), bytes };
        inner.canaries = Some(message.to_js());
        inner.post(message.to_js());
    }

    /// Asks the worker to drop its canary set.
    pub fn clear_canaries(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.canaries = None;
        inner.post(ToWorker::ClearCanaries.to_js());
    }

    /// Sets how span exports become runs; the worker analyses every span
    /// export again (answered by `SpanMapping`).
    pub fn send_span_mapping(&self, mapping: SpanMapping) {
        let mut inner = self.inner.borrow_mut();
        inner.span_mapping = Some(mapping);
        inner.post(ToWorker::SpanMapping { mapping }.to_js());
    }

    /// Asks the worker for run `run_id` of span export `id` as an
    /// AgentLeak trace (answered by `Exported` or `ExportFailed`).
    pub fn export_trace(&self, id: u32, run_id: &str) {
        self.inner.borrow_mut().post(ToWorker::ExportTrace { id, run_id: run_id.to_owned() }.to_js());
    }

    /// Tells the worker the files that follow are a publication's, to be
    /// checked against `manifest` (its JSON text).
    pub fn publication(&self, manifest: &str) {
        let mut inner = self.inner.borrow_mut();
        let message = ToWorker::Publication { manifest: manifest.to_owned() }.to_js();
        inner.publication = Some(message.clone());
        inner.post(message);
    }

    /// Sends an edit of the review in force (answered with `Reviewed` or
    /// `ReviewRefused`).
    pub fn review(&self, edit: &ReviewEdit) {
        self.inner.borrow_mut().post(edit.to_message().to_js());
    }

    /// Asks the worker for a review pack of everything it holds
    /// (answered by `Packed` or `PackFailed`).
    pub fn save_pack(&self, request: PackRequest, wasm: Vec<u8>) {
        self.inner.borrow_mut().post(ToWorker::SavePack { request, wasm }.to_js());
    }

    /// Tells the worker a file was removed, so it forgets its bytes.
    pub fn forget(&self, id: u32) {
        let mut inner = self.inner.borrow_mut();
        inner.sent.remove(&id);
        inner.unfinished.remove(&id);
        inner.parts.remove(&id);
        inner.post(ToWorker::Forget { id }.to_js());
    }
}

/// A new worker whose messages and errors go to the bridge behind `weak`.
fn start_worker(weak: &Weak<RefCell<Inner>>, generation: u32) -> Result<Running, String> {
    let worker = new_worker().map_err(|e| format!("cannot start the analysis worker: {e:?}"))?;
    let for_messages = weak.clone();
    let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
        // The worker posts the bytes of a message's JSON (`worker::post`);
        // JSON text is read as well.
        let data = event.data();
        let json = match data.dyn_ref::<js_sys::Uint8Array>() {
            Some(bytes) => bytes.to_vec(),
            None => data.as_string().unwrap_or_default().into_bytes(),
        };
        if let Some(inner) = for_messages.upgrade().filter(|inner| inner.borrow().generation == generation) {
            // Read as bytes, as the worker reads reports (`report::load_report`):
            // one copy of the report's decoder in the wasm, not two.
            match serde_json::from_slice::<FromWorker>(&json) {
                Ok(message) => received(&inner, message),
                Err(e) => crashed(&inner, None, format!("unreadable message from the analysis worker: {e}")),
            }
        }
    });
    let for_errors = weak.clone();
    let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
        event.prevent_default();
        if let Some(inner) = for_errors.upgrade().filter(|inner| inner.borrow().generation == generation) {
            crashed(&inner, None, format!("the analysis worker stopped: {}", event.message()));
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Running { worker, _on_message: on_message, _on_error: on_error })
}

/// One message from the worker. Callbacks run after the bridge is released,
/// so a view that sends a file in response does not find it borrowed.
/// A result's parts are kept until its `Done`, which gets them back.
fn received(inner: &Rc<RefCell<Inner>>, mut message: FromWorker) {
    if let FromWorker::Part { id, run, part } = message {
        inner.borrow_mut().parts.entry(id).or_default().push((run, part));
        return;
    }
    let on_message = {
        let mut state = inner.borrow_mut();
        match &mut message {
            FromWorker::Ready => {
                state.ready = true;
                let queue = std::mem::take(&mut state.queue);
                if let Some(running) = &state.running {
                    for queued in &queue {
                        post(&running.worker, queued);
                    }
                }
            }
            FromWorker::Done { id, result } => {
                state.unfinished.remove(id);
                // A dropped canary-set file is no run: a replacement worker
                // gets it back as the canary set, not as a file.
                if let (FileResult::CanarySet(_), Some(sent)) = (&*result, state.sent.remove(id)) {
                    state.canaries = Some(file_message(*id, &sent));
                }
                if let Some(parts) = state.parts.remove(id) {
                    join_result(result, parts);
                }
            }
            FromWorker::Reviewed { review: Some(review), today: Some(today), .. } => {
                let restore = ReviewEdit::Restore { review: review.clone(), today: *today };
                state.review = Some(restore.to_message().to_js());
            }
            // Imported settings the worker applies: a replacement worker gets them too.
            FromWorker::SettingsRead { what_if } => state.settings = what_if.to_settings_yaml(),
            FromWorker::Crashed { id, message } => {
                let (id, message) = (*id, message.clone());
                drop(state);
                crashed(inner, id, format!("the analysis worker failed: {message}"));
                return;
            }
            _ => {}
        }
        state.on_message.clone()
    };
    on_message.emit(message);
}

/// Replaces a dead worker: fails the files it was working on and sends the
/// others, with the current settings, to a new one. A worker that dies
/// before it was ever ready is not replaced (it would only die again); every
/// unfinished file fails with the reason.
fn crashed(inner: &Rc<RefCell<Inner>>, id: Option<u32>, message: String) {
    let (crash, on_crash) = {
        let mut state = inner.borrow_mut();
        if let Some(dead) = state.running.take() {
            dead.worker.terminate();
            state.retired.push(dead);
        }
        let restart = state.ready;
        let failed: Vec<u32> = match id {
            Some(id) if restart => vec![id],
            _ => state.unfinished.iter().copied().collect(),
        };
        for id in &failed {
            state.unfinished.remove(id);
            state.sent.remove(id);
        }
        state.ready = false;
        state.queue.clear();
        // Parts the dead worker sent belong to results it will not finish.
        state.parts.clear();
        state.generation += 1;
        if restart {
            match start_worker(&Rc::downgrade(inner), state.generation) {
                Ok(running) => {
                    state.running = Some(running);
                    if !state.settings.is_empty() {
                        let settings = ToWorker::Settings { yaml: state.settings.clone() };
                        state.queue.push(settings.to_js());
                    }
                    if let Some(canaries) = state.canaries.clone() {
                        state.queue.push(canaries);
                    }
                    if let Some(mapping) = state.span_mapping {
                        state.queue.push(ToWorker::SpanMapping { mapping }.to_js());
                    }
                    if let Some(publication) = state.publication.clone() {
                        state.queue.push(publication);
                    }
                    if let Some(review) = state.review.clone() {
                        state.queue.push(review);
                    }
                    let resend: Vec<JsValue> = state.sent.iter().map(|(id, sent)| file_message(*id, sent)).collect();
                    let ids: Vec<u32> = state.sent.keys().copied().collect();
                    state.unfinished.extend(ids);
                    state.queue.extend(resend);
                }
                Err(start_error) => state.stopped = Some(start_error),
            }
        } else {
            state.stopped = Some(message.clone());
        }
        (Crash { message, failed }, state.on_crash.clone())
    };
    on_crash.emit(crash);
}

impl Inner {
    fn post(&mut self, message: JsValue) {
        match &self.running {
            Some(running) if self.ready => post(&running.worker, &message),
            _ => self.queue.push(message),
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.worker.terminate();
        }
    }
}

fn file_message(id: u32, sent: &Sent) -> JsValue {
    let Sent { name, folder, source, .. } = sent.clone();
    ToWorker::Open { id, name, folder, source }.to_js()
}

fn post(worker: &Worker, message: &JsValue) {
    if let Err(e) = worker.post_message(message) {
        web_sys::console::error_2(&"cannot send a file to the worker".into(), &e);
    }
}
