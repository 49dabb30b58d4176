//! Folders dropped on the page. A drop hands over files and folders as
//! entries; a folder's files are found by walking it, and each keeps its
//! path within the dropped folder, as **Open folder** does, so the batch can
//! group runs by folder either way.

use crate::js_text;
use js_sys::{Array, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DataTransfer, File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry};

/// The drop's entries. Read while the drop event lasts: the browser empties
/// the transfer after it.
pub fn entries(transfer: &DataTransfer) -> Vec<FileSystemEntry> {
    let items = transfer.items();
    (0..items.length())
        .filter_map(|i| items.get(i))
        .filter(|item| item.kind() == "file")
        .filter_map(|item| item.webkit_get_as_entry().ok().flatten())
        .collect()
}

/// A file of the drop: its path (`folder/sub/run.json`; a file dropped on
/// its own has its name), or why it could not be read.
pub type DroppedFile = Result<(String, File), (String, String)>;

/// Every file of the dropped entries: files dropped on their own, and the
/// `.json` and `.jsonl` files anywhere inside dropped folders. Folders are
/// walked with a list, not by recursion, so a deep tree cannot exhaust the
/// stack.
pub async fn files_of(entries: Vec<FileSystemEntry>) -> Vec<DroppedFile> {
    let mut found = Vec::new();
    let mut pending: Vec<(FileSystemEntry, bool)> = entries.into_iter().rev().map(|e| (e, false)).collect();
    while let Some((entry, inside_folder)) = pending.pop() {
        let path = entry.full_path().trim_start_matches('/').to_owned();
        if entry.is_directory() {
            let directory: FileSystemDirectoryEntry = entry.unchecked_into();
            match children(&directory).await {
                Ok(mut children) => {
                    agentrisk::util::sort_by_key(&mut children, |child| child.name());
                    pending.extend(children.into_iter().rev().map(|child| (child, true)));
                }
                Err(e) => found.push(Err((path, format!("cannot read this folder: {}", js_text(&e))))),
            }
        } else if !inside_folder || path.ends_with(".json") || path.ends_with(".jsonl") {
            let name = if inside_folder { path } else { entry.name() };
            let file_entry: FileSystemFileEntry = entry.unchecked_into();
            found.push(file(&file_entry).await.map(|f| (name.clone(), f)).map_err(|e| (name, js_text(&e))));
        }
    }
    found
}

/// All entries of a folder: the reader gives them in batches until an empty one.
async fn children(directory: &FileSystemDirectoryEntry) -> Result<Vec<FileSystemEntry>, JsValue> {
    let reader = directory.create_reader();
    let mut all = Vec::new();
    loop {
        let batch = Promise::new(&mut |resolve, reject| {
            if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        });
        let batch: Array = JsFuture::from(batch).await?.unchecked_into();
        if batch.length() == 0 {
            return Ok(all);
        }
        all.extend(batch.iter().map(JsCast::unchecked_into::<FileSystemEntry>));
    }
}

async fn file(entry: &FileSystemFileEntry) -> Result<File, JsValue> {
    let file = Promise::new(&mut |resolve, reject| entry.file_with_callback_and_callback(&resolve, &reject));
    Ok(JsFuture::from(file).await?.unchecked_into())
}
