//! The page's handle on the analysis worker.
//!
//! Messages sent before the worker has installed its handler would be lost,
//! so they wait in a queue until the worker says it is ready.

use crate::protocol::FromWorker;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{Blob, ErrorEvent, MessageEvent, Worker, WorkerOptions, WorkerType};
use yew::Callback;

/// The loader Trunk writes for the `worker` binary (`data-loader-shim`).
const WORKER_URL: &str = "./worker_loader.js";

pub struct Bridge {
    worker: Worker,
    ready: Rc<Cell<bool>>,
    queue: Rc<RefCell<Vec<JsValue>>>,
    _on_message: Closure<dyn Fn(MessageEvent)>,
    _on_error: Closure<dyn Fn(ErrorEvent)>,
}

/// What can be sent to the worker for reading.
pub enum Source {
    Blob(Blob),
    Url(String),
}

impl Bridge {
    /// Starts the worker. `on_message` gets every result; `on_crash` gets a
    /// description when the worker fails (a panic, an out-of-memory abort).
    pub fn new(on_message: Callback<FromWorker>, on_crash: Callback<String>) -> Result<Bridge, String> {
        let options = WorkerOptions::new();
        options.set_type(WorkerType::Classic);
        let worker = Worker::new_with_options(WORKER_URL, &options)
            .map_err(|e| format!("cannot start the analysis worker: {e:?}"))?;
        let ready = Rc::new(Cell::new(false));
        let queue: Rc<RefCell<Vec<JsValue>>> = Rc::default();

        let (flush_worker, flush_ready, flush_queue) = (worker.clone(), ready.clone(), queue.clone());
        let on_bad_message = on_crash.clone();
        let on_message = Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            let text = event.data().as_string().unwrap_or_default();
            match serde_json::from_str::<FromWorker>(&text) {
                Ok(FromWorker::Ready) => {
                    flush_ready.set(true);
                    for message in flush_queue.borrow_mut().drain(..) {
                        post(&flush_worker, &message);
                    }
                    on_message.emit(FromWorker::Ready);
                }
                Ok(message) => on_message.emit(message),
                Err(e) => on_bad_message.emit(format!("unreadable message from the analysis worker: {e}")),
            }
        });
        let on_error = Closure::<dyn Fn(ErrorEvent)>::new(move |event: ErrorEvent| {
            event.prevent_default();
            on_crash.emit(format!("the analysis worker stopped: {}", event.message()));
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Ok(Bridge { worker, ready, queue, _on_message: on_message, _on_error: on_error })
    }

    /// Sends one file (or sample URL) to the worker under `id`; `folder` is
    /// the folder it was picked from (empty when not known).
    pub fn send(&self, id: u32, name: &str, folder: &str, source: Source) {
        let message = js_sys::Object::new();
        let set = |key: &str, value: &JsValue| {
            // Setting a plain property on a fresh object cannot fail.
            let _ = js_sys::Reflect::set(&message, &key.into(), value);
        };
        set("id", &JsValue::from(id));
        set("name", &JsValue::from_str(name));
        set("folder", &JsValue::from_str(folder));
        match source {
            Source::Blob(blob) => set("blob", &blob),
            Source::Url(url) => set("url", &JsValue::from_str(&url)),
        }
        if self.ready.get() {
            post(&self.worker, &message);
        } else {
            self.queue.borrow_mut().push(message.into());
        }
    }
}

impl Bridge {
    /// Sends what-if settings as `agentleak.yaml` text (`""`: the
    /// reference's defaults); the worker analyses every trace again.
    pub fn send_settings(&self, yaml: &str) {
        self.post_object(&[("settings", JsValue::from_str(yaml))]);
    }

    /// Tells the worker a file was removed, so it forgets its bytes.
    pub fn forget(&self, id: u32) {
        self.post_object(&[("forget", JsValue::from(id))]);
    }

    fn post_object(&self, fields: &[(&str, JsValue)]) {
        let message = js_sys::Object::new();
        for (key, value) in fields {
            let _ = js_sys::Reflect::set(&message, &(*key).into(), value);
        }
        if self.ready.get() {
            post(&self.worker, &message);
        } else {
            self.queue.borrow_mut().push(message.into());
        }
    }
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

fn post(worker: &Worker, message: &JsValue) {
    if let Err(e) = worker.post_message(message) {
        web_sys::console::error_2(&"cannot send a file to the worker".into(), &e);
    }
}
