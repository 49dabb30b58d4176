//! The analysis worker: receives files from the page, reads their bytes,
//! runs the core, and posts back finished results. Everything that touches
//! file contents happens here, off the page's main thread.

use crate::js_text;
use crate::protocol::{
    split_result, FromWorker, PackRequest, Phase, Progress, ReviewEdit, Source, ToWorker, PROGRESS_FROM_BYTES,
};
use agentrisk::batch::{detect_kind, FileKind};
use agentrisk::publish::{self, Manifest, PublishOptions, ViewerAssets};
use agentrisk::review::{Date, UnmatchedDecision};

/// The decisions that match no held run, in words, as the page lists them.
fn unmatched_words(ws: &Workspace) -> Vec<String> {
    ws.unmatched_decisions().iter().map(UnmatchedDecision::describe).collect()
}
use agentrisk::workspace::{size_refusal, what_if_from_file, CanarySetting, FileId, FileResult, Workspace};
use js_sys::Uint8Array;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent, Response};

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
    let _ = agentrisk::workspace::warm_up();
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
    /// The files and what-if settings; traces and reports are kept so that
    /// new settings analyse or re-score them again.
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::new());
    /// The publication being opened, and the files of it checked so far
    /// (by name and folder): each is checked once, when first analysed,
    /// with the manifest's settings.
    static PUBLICATION: RefCell<Option<Opening>> = const { RefCell::new(None) };
    /// The unmatched decisions last told to the page: told again only when
    /// they change, not after every file of a batch.
    static UNMATCHED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// The size of each picked file taken (read, or being read: files are
    /// read side by side) until the page forgets it: what the tab holds,
    /// checked against `MAX_TAB_BYTES` before a file is read.
    static SIZES: RefCell<BTreeMap<u32, u64>> = const { RefCell::new(BTreeMap::new()) };
}

/// A publication's manifest and its files checked so far (name, folder).
type Opening = (Manifest, Vec<(String, String)>);

async fn handle(scope: &DedicatedWorkerGlobalScope, message: JsValue) {
    let message = match ToWorker::from_js(&message) {
        Ok(message) => message,
        Err(problem) => {
            web_sys::console::error_1(&format!("worker: {problem}").into());
            return;
        }
    };
    match message {
        ToWorker::Open { id, name, folder, source } => match read_bytes(scope, id, source).await {
            Ok(bytes) => {
                // A review file is not held as a file (it becomes the
                // review in force), but a publication's is checked.
                let review_bytes = (detect_kind(&bytes) == FileKind::Review).then(|| bytes.clone());
                let result = observed(scope, id, bytes.len() as u64, |generated_at, progress| {
                    WORKSPACE.with_borrow_mut(|ws| ws.open(id, &name, &folder, bytes, generated_at, progress))
                });
                // A canary-set file is no run: the workspace took it as its
                // canary set, and every trace is analysed with it again.
                let in_force = match &result {
                    FileResult::CanarySet(used) => Some((**used).clone()),
                    _ => None,
                };
                let check = WORKSPACE.with_borrow(|ws| {
                    check_published(&name, &folder, ws.held_bytes(id).or(review_bytes.as_deref()), &result)
                });
                let review_taken = matches!(result, FileResult::Review(_));
                post_result(scope, id, result);
                if let Some(check) = check {
                    post(scope, &check);
                }
                // A review file changes every held run's reviewed numbers;
                // a run may match decisions that matched nothing before.
                if review_taken {
                    post(scope, &WORKSPACE.with_borrow(|ws| reviewed(ws, ws.reviewed_files(), true)));
                } else {
                    post_unmatched(scope);
                }
                if let Some(used) = in_force {
                    post(scope, &FromWorker::Canaries { in_force: Some(used) });
                    let traces = WORKSPACE.with_borrow(Workspace::held_traces);
                    reanalyze(scope, traces);
                }
            }
            Err(message) => {
                let result = FileResult::Error { message };
                let check = check_published(&name, &folder, None, &result);
                post_result(scope, id, result);
                if let Some(check) = check {
                    post(scope, &check);
                }
            }
        },
        ToWorker::Settings { yaml } => apply_settings(scope, &yaml),
        // An imported file's settings are applied at once, as the page
        // applies the form's: told first, so that the page knows what
        // `SettingsApplied` answers.
        ToWorker::ReadSettings { name, bytes } => match what_if_from_file(&bytes) {
            Ok(what_if) => {
                let yaml = what_if.to_settings_yaml();
                post(scope, &FromWorker::SettingsRead { what_if });
                apply_settings(scope, &yaml);
            }
            Err(e) => post(scope, &FromWorker::SettingsUnreadable { message: format!("{name}: {e}") }),
        },
        ToWorker::Forget { id } => {
            WORKSPACE.with_borrow_mut(|ws| ws.forget(id));
            SIZES.with_borrow_mut(|sizes| sizes.remove(&id));
            post_unmatched(scope);
        }
        ToWorker::Review { edit } => {
            // Read as bytes, as the page reads the answers: one decoder of the review types.
            let answer = match serde_json::from_slice::<ReviewEdit>(edit.as_bytes()) {
                Ok(edit) => WORKSPACE.with_borrow_mut(|ws| edit_review(ws, edit)),
                Err(e) => FromWorker::ReviewRefused { message: format!("unreadable review edit: {e}") },
            };
            post(scope, &answer);
        }
        ToWorker::ReadCanaries { name, bytes } => match CanarySetting::from_file(&name, &bytes) {
            Ok(setting) => apply_canaries(scope, Some(setting)),
            Err(e) => post(scope, &FromWorker::CanariesUnreadable { message: format!("{name}: {e}") }),
        },
        ToWorker::ClearCanaries => apply_canaries(scope, None),
        ToWorker::SpanMapping { mapping } => {
            let spans = WORKSPACE.with_borrow_mut(|ws| ws.set_span_mapping(mapping));
            post(scope, &FromWorker::SpanMapping { mapping });
            reanalyze(scope, spans);
        }
        ToWorker::ExportTrace { id, run_id } => {
            let message = match WORKSPACE.with_borrow(|ws| exported_trace(ws, id, &run_id)) {
                Ok((name, json)) => FromWorker::Exported { name, json },
                Err(message) => FromWorker::ExportFailed { message },
            };
            post(scope, &message);
        }
        ToWorker::Publication { manifest } => {
            // The page read it already; a manifest it could not read sends nothing.
            if let Ok(manifest) = Manifest::from_json(manifest.as_bytes()) {
                // Its reviewed numbers were judged at the day it was made:
                // checked at that date, not this tab's today.
                if let Some(used) = &manifest.review {
                    let today = used.date;
                    post(
                        scope,
                        &WORKSPACE.with_borrow_mut(|ws| {
                            ws.set_review_date(Some(today));
                            reviewed(ws, Vec::new(), false)
                        }),
                    );
                }
                PUBLICATION.with_borrow_mut(|p| *p = Some((manifest, Vec::new())));
            }
        }
        ToWorker::SavePack { request, wasm } => {
            let message = match save_pack(&request, &wasm) {
                Ok(html) => FromWorker::Packed { html },
                Err(message) => FromWorker::PackFailed { message },
            };
            post(scope, &message);
        }
    }
}

/// The check of a publication's file `name` in `folder` (its `bytes` as
/// held), the first time it is analysed; `None` for any other file or time.
fn check_published(name: &str, folder: &str, bytes: Option<&[u8]>, result: &FileResult) -> Option<FromWorker> {
    PUBLICATION.with_borrow_mut(|publication| {
        let (manifest, checked) = publication.as_mut()?;
        let entry = manifest.files.iter().find(|f| f.name == name && f.folder == folder)?;
        let key = (name.to_owned(), folder.to_owned());
        if checked.contains(&key) {
            return None;
        }
        checked.push(key);
        let check = match (bytes, result) {
            (Some(bytes), _) => publish::check_file(entry, bytes, result),
            (None, FileResult::Error { message }) => publish::FileCheck::Modified { problem: message.clone() },
            (None, _) => publish::FileCheck::Modified { problem: "its data cannot be read".to_owned() },
        };
        Some(FromWorker::Checked { name: name.to_owned(), folder: folder.to_owned(), check })
    })
}

/// Run `run_id` of span export `id` as an AgentLeak trace under the
/// mapping in force: its file name and JSON.
fn exported_trace(ws: &Workspace, id: FileId, run_id: &str) -> Result<(String, String), String> {
    let mut traces = ws.export_traces(id).ok_or("this file is no longer loaded as a span export")??;
    // The names are the run ids made safe as file names (one run: the file's).
    let wanted = format!("{}.trace.json", agentrisk::spans::safe_file_stem(run_id));
    let at = traces.iter().position(|(name, _)| *name == wanted).or((traces.len() == 1).then_some(0));
    match at {
        Some(at) => Ok(traces.swap_remove(at)),
        None => Err(format!(
            "run {run_id} is not in this file under the {} span mapping; it was analysed again",
            ws.span_mapping().as_str()
        )),
    }
}

/// A review pack of every file held, with the viewer's own code.
fn save_pack(request: &PackRequest, wasm: &[u8]) -> Result<String, String> {
    let assets = match &request.wasm_deflated {
        Some((length, text)) => ViewerAssets {
            css: request.css.clone(),
            glue: request.glue.clone(),
            favicon: request.favicon.clone(),
            wasm_length: *length,
            wasm_text: text.clone(),
        },
        None => ViewerAssets::from_files(request.css.clone(), request.glue.clone(), request.favicon.as_bytes(), wasm),
    };
    let options = PublishOptions {
        title: request.title.clone(),
        generated_at: String::from(js_sys::Date::new_0().to_iso_string()),
        tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        config: request.settings.clone(),
        include_traces: request.include_traces,
        span_mapping: WORKSPACE.with_borrow(|ws| ws.span_mapping()),
    };
    WORKSPACE.with_borrow(|ws| {
        let sources: Vec<publish::Source<'_>> =
            ws.held().map(|(name, folder, bytes)| publish::Source { name, folder, bytes }).collect();
        if sources.is_empty() {
            return Err("there is nothing loaded to save".to_owned());
        }
        let publication = publish::publish(&sources, &options).map_err(|e| e.to_string())?;
        publish::pack_html(&assets, &publication)
    })
}

/// Applies a review edit with the core's rules and answers every held
/// run's reviewed numbers (no file is analysed again), or why the edit was
/// refused.
fn edit_review(ws: &mut Workspace, edit: ReviewEdit) -> FromWorker {
    let mut today = ws.review_date().unwrap_or_else(|| {
        Date::of_timestamp(&String::from(js_sys::Date::new_0().to_iso_string()))
            .unwrap_or_else(|| Date::from_unix_seconds(0))
    });
    let mut review = ws.review().cloned().unwrap_or_default();
    let applied = match edit {
        ReviewEdit::Decide(decision) => review.set_decision(decision),
        ReviewEdit::Clear { run_id, data_type, value, channel } => {
            review.clear_decision(&run_id, &data_type, &value, channel);
            Ok(())
        }
        ReviewEdit::SignOff(sign_off) => review.add_sign_off(sign_off),
        ReviewEdit::Today(date) if ws.review().is_none() => {
            // No review yet: only the date, for the first review to come.
            ws.set_review_date(Some(date));
            return reviewed(ws, Vec::new(), false);
        }
        ReviewEdit::Today(date) => {
            today = date;
            Ok(())
        }
        ReviewEdit::Restore { review: restored, today: date } => {
            (review, today) = (restored, date);
            Ok(())
        }
    };
    match applied {
        Ok(()) => {
            let files = ws.set_review(Some(review), today);
            reviewed(ws, files, true)
        }
        Err(e) => FromWorker::ReviewRefused { message: e.to_string() },
    }
}

/// The page's news of the review: `files`' reviewed numbers, the review in
/// force when `with_review`, its date, and what matches nothing.
fn reviewed(ws: &Workspace, files: Vec<agentrisk::workspace::ReviewedFile>, with_review: bool) -> FromWorker {
    let unmatched = unmatched_words(ws);
    UNMATCHED.with_borrow_mut(|told| told.clone_from(&unmatched));
    FromWorker::Reviewed {
        review: if with_review { ws.review().cloned() } else { None },
        today: ws.review_date(),
        files,
        unmatched,
    }
}

/// Tells the page the decisions that match no held run, when they changed.
fn post_unmatched(scope: &DedicatedWorkerGlobalScope) {
    let unmatched = WORKSPACE.with_borrow(unmatched_words);
    if UNMATCHED.with_borrow(|told| *told != unmatched) {
        UNMATCHED.with_borrow_mut(|told| told.clone_from(&unmatched));
        post(scope, &FromWorker::Reviewed { review: None, today: None, files: Vec::new(), unmatched });
    }
}

/// Takes a canary set (`None`: each trace's own) and analyses every kept
/// trace with it.
fn apply_canaries(scope: &DedicatedWorkerGlobalScope, setting: Option<CanarySetting>) {
    let in_force = setting.as_ref().map(CanarySetting::used);
    let traces = WORKSPACE.with_borrow_mut(|ws| ws.set_canaries(setting));
    post(scope, &FromWorker::Canaries { in_force });
    reanalyze(scope, traces);
}

/// Analyses files `ids` again with the settings in force, posting each result.
fn reanalyze(scope: &DedicatedWorkerGlobalScope, ids: Vec<FileId>) {
    for id in ids {
        let size = WORKSPACE.with_borrow(|ws| ws.held_size(id)).unwrap_or(0);
        let result = observed(scope, id, size, |generated_at, progress| {
            WORKSPACE.with_borrow_mut(|ws| ws.reanalyze(id, generated_at, progress))
        });
        if let Some(result) = result {
            post_result(scope, id, result);
        }
    }
    post_unmatched(scope);
}

/// Takes new what-if settings (`""`: the reference's defaults) and analyses
/// every kept trace, and re-scores every kept report, with them; refused
/// settings change nothing.
fn apply_settings(scope: &DedicatedWorkerGlobalScope, yaml: &str) {
    match WORKSPACE.with_borrow_mut(|ws| ws.set_settings(yaml)) {
        Err(e) => post(scope, &FromWorker::SettingsRejected { message: e.to_string() }),
        Ok(held) => {
            post(scope, &FromWorker::SettingsApplied);
            reanalyze(scope, held);
        }
    }
}

/// Runs `work` on file `id` of `size` bytes with the report time and a
/// progress callback that posts the file's progress, marking the file as
/// the one being worked on for a crash report.
fn observed<T>(
    scope: &DedicatedWorkerGlobalScope,
    id: FileId,
    size: u64,
    work: impl FnOnce(&str, &dyn Fn(agentrisk::workspace::Progress)) -> T,
) -> T {
    let started = js_sys::Date::now();
    // Posted at each new stage and each further percent; the page
    // receives them while this worker is still busy.
    let last: Cell<Option<(Phase, u8)>> = Cell::new(None);
    let on_progress = |p: agentrisk::workspace::Progress| {
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
    let result = work(&generated_at, &on_progress);
    CURRENT.with(|current| current.set(None));
    result
}

/// Posts file `id`'s result: its long lists in parts, then the rest.
fn post_result(scope: &DedicatedWorkerGlobalScope, id: u32, mut result: FileResult) {
    for (run, part) in split_result(&mut result) {
        post(scope, &FromWorker::Part { id, run, part });
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

/// The bytes of a file's blob, or of a same-origin URL.
async fn read_bytes(scope: &DedicatedWorkerGlobalScope, id: u32, source: Source) -> Result<Vec<u8>, String> {
    let buffer = match source {
        Source::Blob(blob) => {
            // Checked here, not by the page: asking a picked file its size
            // can wait on the browser's file system (0.6 ms a file, most
            // of the page's work when a thousand files are dropped).
            let bytes = blob.size() as u64;
            let held = SIZES.with_borrow(|sizes| sizes.values().sum());
            if let Some(reason) = size_refusal(bytes, held) {
                return Err(reason);
            }
            SIZES.with_borrow_mut(|sizes| sizes.insert(id, bytes));
            progress(scope, id, Progress { phase: Phase::Reading, bytes, percent: None, mb_per_s: None });
            JsFuture::from(blob.array_buffer()).await.map_err(|e| format!("cannot read the file: {}", js_text(&e)))?
        }
        Source::Url(url) => {
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
        }
    };
    let bytes = Uint8Array::new(&buffer);
    if let Some(reason) = size_refusal(u64::from(bytes.length()), 0) {
        return Err(reason);
    }
    Ok(bytes.to_vec())
}

/// Posts `message` as the bytes of its JSON, their buffer handed over
/// rather than copied: a JS string would be decoded here and encoded again
/// by the page (a tenth of each side's work on a drop of small traces).
fn post(scope: &DedicatedWorkerGlobalScope, message: &FromWorker) {
    match serde_json::to_vec(message) {
        Ok(json) => {
            let bytes = Uint8Array::from(json.as_slice());
            if let Err(e) = scope.post_message_with_transfer(&bytes, &js_sys::Array::of1(&bytes.buffer())) {
                web_sys::console::error_2(&"worker: cannot post a result".into(), &e);
            }
        }
        Err(e) => web_sys::console::error_1(&format!("worker: cannot encode a result: {e}").into()),
    }
}
