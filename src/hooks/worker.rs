//! The worker bridge as a hook: the page's one [`Bridge`], made on the first
//! render, with each message of the worker routed into an action. Queueing,
//! putting results back together and replacing a crashed worker are
//! `crate::bridge`'s; the messages are `crate::protocol`'s.

use crate::bridge::{Bridge, Crash};
use crate::components::download;
use crate::protocol::FromWorker;
use crate::state::Action;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// The page's handle on the worker, or why there is none (a browser
/// without workers): every file added then fails with that reason.
pub type Worker = Rc<Result<Bridge, String>>;

/// How long the worker's messages are gathered before the page applies
/// them together: each action copies the state and each state is drawn, so
/// a drop of a thousand small files, one message each, would copy and draw
/// the whole table a thousand times.
const GATHER_MS: i32 = 50;

/// Starts the worker once, when the page first renders; the same bridge
/// serves every later render.
#[hook]
pub fn use_worker_bridge(dispatch: Callback<Action>) -> Worker {
    use_memo((), move |_| {
        let gathered = Gathered::new(dispatch);
        let on_crash = gathered.clone();
        Bridge::new(
            Callback::from(move |message| {
                if let Some(action) = route(message) {
                    // A large file's progress shows each step as it comes.
                    let now = matches!(action, Action::Progressed { .. });
                    gathered.push(action);
                    if now {
                        gathered.flush();
                    }
                }
            }),
            Callback::from(move |crash: Crash| {
                // After what came before it, at once.
                on_crash.push(Action::WorkerFailed { message: crash.message, failed: crash.failed });
                on_crash.flush();
            }),
        )
    })
}

/// The worker's actions not yet applied, in the order they came, and the
/// timer callback that applies them.
#[derive(Clone)]
struct Gathered(Rc<GatheredInner>);

struct GatheredInner {
    actions: RefCell<Vec<Action>>,
    dispatch: Callback<Action>,
    flush_later: RefCell<Option<Closure<dyn Fn()>>>,
}

impl Gathered {
    fn new(dispatch: Callback<Action>) -> Gathered {
        let gathered = Gathered(Rc::new(GatheredInner {
            actions: RefCell::new(Vec::new()),
            dispatch,
            flush_later: RefCell::new(None),
        }));
        // Weak: the closure lives in what it points to.
        let weak = Rc::downgrade(&gathered.0);
        let flush = Closure::<dyn Fn()>::new(move || {
            if let Some(inner) = weak.upgrade() {
                Gathered(inner).flush();
            }
        });
        *gathered.0.flush_later.borrow_mut() = Some(flush);
        gathered
    }

    /// Queues `action`; the first one since the last flush sets the timer
    /// (without a timer, it is applied at once).
    fn push(&self, action: Action) {
        let first = {
            let mut actions = self.0.actions.borrow_mut();
            actions.push(action);
            actions.len() == 1
        };
        if first {
            let flush_later = self.0.flush_later.borrow();
            let timer = web_sys::window().zip(flush_later.as_ref()).is_some_and(|(window, f)| {
                window
                    .set_timeout_with_callback_and_timeout_and_arguments_0(f.as_ref().unchecked_ref(), GATHER_MS)
                    .is_ok()
            });
            if !timer {
                drop(flush_later);
                self.flush();
            }
        }
    }

    /// Applies every queued action, as one.
    fn flush(&self) {
        let mut actions = std::mem::take(&mut *self.0.actions.borrow_mut());
        match actions.len() {
            0 => {}
            1 => self.0.dispatch.emit(actions.remove(0)),
            _ => self.0.dispatch.emit(Action::Many(actions)),
        }
    }
}

/// A callback that hands its value to the worker. Without a worker it does
/// nothing: each file added already says why it cannot be analysed.
pub fn to_worker<T: 'static>(worker: &Worker, send: impl Fn(&Bridge, T) + 'static) -> Callback<T> {
    let worker = worker.clone();
    Callback::from(move |value| {
        if let Ok(bridge) = worker.as_ref() {
            send(bridge, value);
        }
    })
}

/// What a message of the worker changes on the page.
fn route(message: FromWorker) -> Option<Action> {
    let action = match message {
        FromWorker::Progress { id, progress } => Action::Progressed { id, progress },
        FromWorker::Done { id, result } => Action::Finished { id, result },
        FromWorker::Ready => Action::WorkerReady,
        FromWorker::SettingsApplied => Action::WhatIfAccepted,
        FromWorker::SettingsRejected { message } => Action::WhatIfRejected(message),
        FromWorker::SettingsRead { what_if } => Action::ApplyWhatIf(what_if),
        FromWorker::SettingsUnreadable { message } => Action::WhatIfUnreadable(message),
        FromWorker::Canaries { in_force } => Action::CanariesInForce(in_force),
        FromWorker::CanariesUnreadable { message } => Action::CanariesUnreadable(message),
        FromWorker::Checked { name, check, .. } => Action::PublishedChecked { name, check },
        FromWorker::Packed { html } => {
            download::download("agentrisk-review.html", "text/html", &html);
            Action::Saving(Some(String::new()))
        }
        FromWorker::PackFailed { message } => Action::Saving(Some(format!("Cannot save as one file: {message}"))),
        FromWorker::Reviewed { review, today, files, unmatched } => {
            Action::Reviewed { review, today, files, unmatched }
        }
        FromWorker::ReviewRefused { message } => Action::ReviewProblem(Some(message)),
        FromWorker::SpanMapping { mapping } => Action::SpanMappingInForce(mapping),
        FromWorker::Exported { name, json } => {
            download::download(&name, "application/json", &json);
            Action::TraceExported(None)
        }
        FromWorker::ExportFailed { message } => {
            Action::TraceExported(Some(format!("Cannot export as an AgentLeak trace: {message}")))
        }
        // The bridge handles a crash itself and calls `on_crash`, and puts
        // a result's parts back before its `Done`.
        FromWorker::Crashed { .. } | FromWorker::Part { .. } => return None,
    };
    Some(action)
}
