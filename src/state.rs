//! The page state: the loaded files, in the order they were added, and the
//! selected run. One `Reducible` with an [`Action`] enum; components read it
//! through props and change it only by dispatching actions.

use crate::protocol::{FileResult, LoadedReport};
use std::rc::Rc;
use yew::Reducible;

#[derive(Debug, Clone, PartialEq)]
pub enum FileStatus {
    Reading,
    Loaded(Rc<LoadedReport>),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    pub id: u32,
    pub name: String,
    pub status: FileStatus,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct State {
    pub files: Vec<FileEntry>,
    pub selected: Option<u32>,
}

#[derive(Debug, Clone)]
pub enum Action {
    /// A file was handed to the worker.
    Queued {
        id: u32,
        name: String,
    },
    /// The worker finished a file.
    Finished {
        id: u32,
        result: FileResult,
    },
    /// The worker died: every file still being read fails with this message.
    WorkerFailed(String),
    Select(u32),
    CloseRun,
    Remove(u32),
}

impl State {
    pub fn selected_report(&self) -> Option<(&FileEntry, &Rc<LoadedReport>)> {
        let id = self.selected?;
        self.files.iter().find(|f| f.id == id).and_then(|f| match &f.status {
            FileStatus::Loaded(loaded) => Some((f, loaded)),
            _ => None,
        })
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Queued { id, name } => next.files.push(FileEntry { id, name, status: FileStatus::Reading }),
            Action::Finished { id, result } => {
                if let Some(entry) = next.files.iter_mut().find(|f| f.id == id) {
                    entry.status = match result {
                        FileResult::Report(loaded) => FileStatus::Loaded(Rc::new(*loaded)),
                        FileResult::Error { message } => FileStatus::Failed(message),
                    };
                }
            }
            Action::WorkerFailed(message) => {
                for entry in next.files.iter_mut().filter(|f| f.status == FileStatus::Reading) {
                    entry.status = FileStatus::Failed(message.clone());
                }
            }
            Action::Select(id) => next.selected = Some(id),
            Action::CloseRun => next.selected = None,
            Action::Remove(id) => {
                next.files.retain(|f| f.id != id);
                if next.selected == Some(id) {
                    next.selected = None;
                }
            }
        }
        Rc::new(next)
    }
}
