//! Embedding: a parent page that opened the viewer (in an `<iframe>` or a
//! window) hands it files with `postMessage`.
//!
//! * On load the viewer posts `{type: "agentrisk:ready", version}` to its
//!   parent and opener, and again in answer to `{type: "agentrisk:ping"}`.
//! * `{type: "agentrisk:open", files: [{name, data, folder?}], view?, title?}`
//!   loads the files like dropped ones; once every one has a result the
//!   sender gets `{type: "agentrisk:loaded", runs: [...], errors: [...]}`.
//!
//! Messages are taken from the page's own origin, and from the origins the
//! host lists in `embed.json` beside `index.html`
//! (`{"allowed_origins": ["https://dash.example"]}`; no file, no others),
//! read only when the page has a parent or an opener;
//! any other origin is ignored with a console note. Who may *frame* the
//! page is the host's HTTP header (docs/hosting.md), not this module's.
//!
//! The files themselves go through the app's own loading path; this
//! module only translates messages and answers them.

use crate::state::{FileEntry, FileStatus, Tab};
use js_sys::{Array, Object, Reflect};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{Blob, MessageEvent};
use yew::Callback;

/// The allow-list file, fetched from the page's own origin.
const ALLOW_LIST: &str = "embed.json";

/// A file the parent sent, as a Blob ready for the loading path.
pub struct EmbeddedFile {
    pub name: String,
    pub folder: String,
    pub blob: Blob,
}

/// An `agentrisk:open` message, checked.
pub struct OpenRequest {
    pub files: Vec<EmbeddedFile>,
    pub view: Option<Tab>,
    pub reply: Reply,
    /// Entries that were not files: `(name, why)`.
    pub refused: Vec<(String, String)>,
}

/// Where an answer goes: the sending window, at its origin.
#[derive(Clone)]
pub struct Reply {
    target: JsValue,
    origin: String,
}

impl Reply {
    fn post(&self, message: &JsValue) {
        post_to(&self.target, message, &self.origin);
    }
}

/// Files of one `agentrisk:open` still loading: answered once each has a result.
pub struct Awaiting {
    pub reply: Reply,
    /// The app's file ids, with the names they were sent under.
    pub ids: Vec<(u32, String)>,
    pub refused: Vec<(String, String)>,
}

/// Posts `agentrisk:loaded` for every request whose files all have a
/// result, and forgets it. A file removed before it finished counts as an error.
pub fn answer_finished(awaiting: &RefCell<Vec<Awaiting>>, files: &[FileEntry]) {
    awaiting.borrow_mut().retain(|request| {
        // A file's rows: one, or one per run of a span export.
        let entries: Vec<(&str, Vec<&FileEntry>)> = request
            .ids
            .iter()
            .map(|(id, name)| (name.as_str(), files.iter().filter(|f| f.file == *id).collect()))
            .collect();
        if entries.iter().flat_map(|(_, rows)| rows).any(|e| matches!(e.status, FileStatus::Working(_))) {
            return true;
        }
        let (runs, errors) = (Array::new(), Array::new());
        for (file, message) in &request.refused {
            errors.push(&error_of(file, message));
        }
        for (name, rows) in entries {
            if rows.is_empty() {
                errors.push(&error_of(name, "removed before it finished loading"));
            }
            for entry in rows {
                match &entry.status {
                    FileStatus::Loaded(run) => {
                        let report = run.report();
                        let row = object(&[
                            ("file", JsValue::from_str(name)),
                            ("run_id", JsValue::from_str(&report.run_id)),
                            ("risk_index", JsValue::from_f64(report.risk_index)),
                            ("privacy_score", JsValue::from_f64(report.privacy_score as f64)),
                            ("verdict", JsValue::from_str(&report.verdict)),
                            ("blocked", JsValue::from_bool(report.blocked)),
                        ]);
                        runs.push(&row);
                    }
                    // Scorecards and red-team results feed the Batch tab only.
                    FileStatus::Batch(_) | FileStatus::Working(_) => {}
                    FileStatus::Failed(message) => {
                        errors.push(&error_of(name, message));
                    }
                }
            }
        }
        request.reply.post(&object(&[
            ("type", JsValue::from_str("agentrisk:loaded")),
            ("runs", runs.into()),
            ("errors", errors.into()),
        ]));
        false
    });
}

/// Starts listening for messages and says the viewer is ready. Called once
/// when the app mounts; the listener lives as long as the page.
pub fn listen(on_open: Callback<OpenRequest>) {
    let Some(window) = web_sys::window() else { return };
    let own_origin = window.location().origin().unwrap_or_default();
    // None until embed.json has been read; messages wait for it.
    let allowed: Rc<RefCell<Option<Vec<String>>>> = Rc::new(RefCell::new(None));
    let early: Rc<RefCell<Vec<MessageEvent>>> = Rc::new(RefCell::new(Vec::new()));

    let handle = {
        let (allowed, own_origin) = (allowed.clone(), own_origin.clone());
        Rc::new(move |event: MessageEvent| {
            let origin = event.origin();
            let permitted =
                origin == own_origin || allowed.borrow().as_ref().is_some_and(|list| list.contains(&origin));
            let kind = Reflect::get(&event.data(), &"type".into()).ok().and_then(|t| t.as_string());
            let Some(kind) = kind.filter(|k| k.starts_with("agentrisk:")) else { return };
            if !permitted {
                web_sys::console::warn_1(
                    &format!(
                        "AgentRisk: ignored a {kind} message from {origin}: that origin is not listed in {ALLOW_LIST}"
                    )
                    .into(),
                );
                return;
            }
            let Some(source) = event.source() else { return };
            let reply = Reply { target: source.into(), origin };
            match kind.as_str() {
                "agentrisk:ping" => reply.post(&ready_message()),
                "agentrisk:open" => on_open.emit(open_request(&event.data(), reply)),
                _ => {}
            }
        })
    };

    let listener = {
        let (allowed, early, handle) = (allowed.clone(), early.clone(), handle.clone());
        Closure::<dyn Fn(MessageEvent)>::new(move |event: MessageEvent| {
            if allowed.borrow().is_none() {
                early.borrow_mut().push(event);
            } else {
                handle(event);
            }
        })
    };
    let _ = window.add_event_listener_with_callback("message", listener.as_ref().unchecked_ref());
    listener.forget();

    let parent = window.parent().ok().flatten().filter(|parent| *parent != window);
    let opener = window.opener().ok().filter(|opener| !opener.is_null() && !opener.is_undefined());
    if parent.is_none() && opener.is_none() {
        // Nobody else holds this window: only its own origin can send, and
        // there is no need to ask for embed.json (nor to log its 404).
        *allowed.borrow_mut() = Some(Vec::new());
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let list = allowed_origins().await;
        *allowed.borrow_mut() = Some(list);
        for event in early.take() {
            handle(event);
        }
    });
    let ready = ready_message();
    if let Some(parent) = parent {
        post_to(&parent.into(), &ready, "*");
    }
    if let Some(opener) = opener {
        post_to(&opener, &ready, "*");
    }
}

/// The origins `embed.json` lists; none when it is missing or unreadable
/// (a note in the console says why, when it exists but cannot be used).
async fn allowed_origins() -> Vec<String> {
    let Some(window) = web_sys::window() else { return Vec::new() };
    let response = match wasm_bindgen_futures::JsFuture::from(window.fetch_with_str(ALLOW_LIST)).await {
        Ok(response) => response,
        Err(_) => return Vec::new(),
    };
    let Ok(response) = response.dyn_into::<web_sys::Response>() else { return Vec::new() };
    if !response.ok() {
        return Vec::new();
    }
    let text = match response.text() {
        Ok(promise) => wasm_bindgen_futures::JsFuture::from(promise).await.ok().and_then(|t| t.as_string()),
        Err(_) => None,
    };
    match origins_from_json(&text.unwrap_or_default()) {
        Ok(list) => list,
        Err(message) => {
            web_sys::console::warn_1(
                &format!("AgentRisk: {ALLOW_LIST}: {message}; no other origin may send files").into(),
            );
            Vec::new()
        }
    }
}

/// `{"allowed_origins": ["https://dash.example", ...]}` → the origins.
pub fn origins_from_json(text: &str) -> Result<Vec<String>, String> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct AllowList {
        allowed_origins: Vec<String>,
    }
    let list: AllowList = serde_json::from_str(text).map_err(|e| {
        format!("line {}, column {}: expected {{\"allowed_origins\": [\"https://…\"]}}: {e}", e.line(), e.column())
    })?;
    // An origin is scheme://host[:port], exactly as event.origin spells it.
    match list.allowed_origins.iter().find(|o| o.ends_with('/') || !o.contains("://") || o.as_str() == "*") {
        Some(bad) => Err(format!("allowed_origins: {bad:?} is not an origin such as \"https://dash.example\"")),
        None => Ok(list.allowed_origins),
    }
}

fn open_request(data: &JsValue, reply: Reply) -> OpenRequest {
    let get = |object: &JsValue, key: &str| Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED);
    let view = match get(data, "view").as_string().as_deref() {
        Some("runs") => Some(Tab::Runs),
        Some("batch") => Some(Tab::Batch),
        Some("compare") => Some(Tab::Compare),
        _ => None,
    };
    if let Some(title) = get(data, "title").as_string() {
        if let Some(document) = web_sys::window().and_then(|w| w.document()) {
            document.set_title(&title);
        }
    }
    let (mut files, mut refused) = (Vec::new(), Vec::new());
    let list = get(data, "files");
    let list: Array = if Array::is_array(&list) { list.unchecked_into() } else { Array::new() };
    for (i, item) in list.iter().enumerate() {
        let name = get(&item, "name").as_string().unwrap_or_else(|| format!("files[{i}]"));
        let folder = get(&item, "folder").as_string().unwrap_or_default();
        let data = get(&item, "data");
        let usable = data.is_string()
            || data.is_instance_of::<js_sys::ArrayBuffer>()
            || data.is_instance_of::<js_sys::Uint8Array>();
        let blob = if usable { Blob::new_with_buffer_source_sequence(&Array::of1(&data)).ok() } else { None };
        match blob {
            Some(blob) => files.push(EmbeddedFile { name, folder, blob }),
            None => refused.push((name, "data must be an ArrayBuffer, a Uint8Array or a string".to_owned())),
        }
    }
    OpenRequest { files, view, reply, refused }
}

fn ready_message() -> JsValue {
    object(&[("type", JsValue::from_str("agentrisk:ready")), ("version", JsValue::from_str(env!("CARGO_PKG_VERSION")))])
}

fn error_of(file: &str, message: &str) -> JsValue {
    object(&[("file", JsValue::from_str(file)), ("message", JsValue::from_str(message))])
}

fn object(pairs: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&object, &(*key).into(), value);
    }
    object.into()
}

/// `target.postMessage(message, origin)` on a window-like object.
fn post_to(target: &JsValue, message: &JsValue, origin: &str) {
    let post = Reflect::get(target, &"postMessage".into()).ok().and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(post) = post {
        let _ = post.call2(target, message, &JsValue::from_str(origin));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allow_list_takes_origins_and_names_a_bad_entry() {
        assert_eq!(
            origins_from_json(r#"{"allowed_origins": ["https://dash.example", "http://127.0.0.1:8081"]}"#),
            Ok(vec!["https://dash.example".to_owned(), "http://127.0.0.1:8081".to_owned()])
        );
        let slash =
            origins_from_json(r#"{"allowed_origins": ["https://dash.example/"]}"#).expect_err("a URL, not an origin");
        assert!(slash.starts_with("allowed_origins: \"https://dash.example/\""), "{slash}");
        assert!(origins_from_json(r#"{"allowed_origins": ["*"]}"#).is_err());
        assert!(origins_from_json(r#"{"origins": []}"#).expect_err("wrong key").starts_with("line 1"));
    }
}
