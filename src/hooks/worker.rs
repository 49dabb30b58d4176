//! The worker bridge as a hook: the page's one [`Bridge`], made on the first
//! render, with each message of the worker routed into an action. Queueing,
//! putting results back together and replacing a crashed worker are
//! `crate::bridge`'s; the messages are `crate::protocol`'s.

use crate::bridge::{Bridge, Crash};
use crate::components::download;
use crate::protocol::FromWorker;
use crate::state::Action;
use std::rc::Rc;
use yew::prelude::*;

/// The page's handle on the worker, or why there is none (a browser
/// without workers): every file added then fails with that reason.
pub type Worker = Rc<Result<Bridge, String>>;

/// Starts the worker once, when the page first renders; the same bridge
/// serves every later render.
#[hook]
pub fn use_worker_bridge(dispatch: Callback<Action>) -> Worker {
    use_memo((), move |_| {
        let on_crash = dispatch.clone();
        Bridge::new(
            Callback::from(move |message| route(message, &dispatch)),
            Callback::from(move |crash: Crash| {
                on_crash.emit(Action::WorkerFailed { message: crash.message, failed: crash.failed })
            }),
        )
    })
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
fn route(message: FromWorker, dispatch: &Callback<Action>) {
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
        FromWorker::Crashed { .. } | FromWorker::Part { .. } => return,
    };
    dispatch.emit(action);
}
