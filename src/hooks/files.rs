//! Files into the worker: what a picked, dropped, embedded or published file
//! is ([`Picked`]), and the one way each reaches the worker
//! ([`use_add_files`]): numbered, sent, and queued in the state in one
//! action. Reading the bytes is the worker's.

use crate::bridge::Source;
use crate::hooks::worker::Worker;
use crate::state::{Action, Queued};
use agentrisk::workspace::FileResult;
use web_sys::FileList;
use yew::prelude::*;

/// A file to load: its name, the folder it came from, and its bytes'
/// source (or why it cannot be read).
pub struct Picked {
    pub name: String,
    pub folder: String,
    pub source: Result<Source, String>,
}

impl Picked {
    /// A file named by its path (within a picked or dropped folder, or on
    /// this site): its folder is the path's directory, which the batch
    /// groups runs by.
    pub fn at_path(path: String, source: Source) -> Picked {
        let folder = path.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned();
        Picked { name: path, folder, source: Ok(source) }
    }
}

/// Hands files to the worker and answers the ids given to them, in order
/// (an embedding parent waits for those ids' results).
pub type AddFiles = Callback<Vec<Picked>, Vec<u32>>;

/// The page's [`AddFiles`]: numbers each file, sends it to the worker, and
/// queues them all in one action; a file that cannot be sent fails at once.
#[hook]
pub fn use_add_files(worker: Worker, dispatch: Callback<Action>) -> AddFiles {
    let next_id = use_mut_ref(|| 0u32);
    Callback::from(move |items: Vec<Picked>| -> Vec<u32> {
        let mut queued = Vec::with_capacity(items.len());
        let mut refused = Vec::new();
        for Picked { name, folder, source } in items {
            let id = {
                let mut next = next_id.borrow_mut();
                *next += 1;
                *next
            };
            let sent = match (worker.as_ref(), source) {
                (Ok(bridge), Ok(source)) => bridge.send(id, &name, &folder, source),
                (Err(message), _) => Err(message.clone()),
                (_, Err(message)) => Err(message),
            };
            if let Err(message) = sent {
                refused.push(Action::Finished { id, result: FileResult::Error { message } });
            }
            queued.push(Queued { id, name, folder });
        }
        let queued_ids: Vec<u32> = queued.iter().map(|q| q.id).collect();
        // Results come back in later tasks, after these.
        if !queued.is_empty() {
            dispatch.emit(Action::Queued(queued));
        }
        for action in refused {
            dispatch.emit(action);
        }
        queued_ids
    })
}

/// The picked or dropped files. A folder pick names each file by its path
/// within the folder, keeps only `.json` and `.jsonl` files, and records
/// the folder each came from (the batch's folder grouping).
pub fn blobs_from(files: Option<FileList>) -> Vec<Picked> {
    let Some(files) = files else { return Vec::new() };
    (0..files.length())
        .filter_map(|i| files.get(i))
        .filter_map(|file| {
            let path = js_sys::Reflect::get(&file, &"webkitRelativePath".into())
                .ok()
                .and_then(|v| v.as_string())
                .unwrap_or_default();
            if path.is_empty() {
                return Some(Picked {
                    name: file.name(),
                    folder: String::new(),
                    source: Ok(Source::Blob(file.into())),
                });
            }
            if !(path.ends_with(".json") || path.ends_with(".jsonl")) {
                return None;
            }
            Some(Picked::at_path(path, Source::Blob(file.into())))
        })
        .collect()
}
