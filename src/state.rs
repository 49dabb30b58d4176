//! The page state: the loaded files, in the order they were added, and the
//! selected run. One `Reducible` with an [`Action`] enum; components read it
//! through props and change it only by dispatching actions.

use crate::protocol::{AnalysedTrace, FileResult, LoadedReport};
use agentrisk::model::Report;
use std::rc::Rc;
use yew::Reducible;

/// A run the viewer can show: a loaded report or a trace analysed here.
#[derive(Debug, Clone)]
pub enum Run {
    Report(Rc<LoadedReport>),
    Trace(Rc<AnalysedTrace>),
}

impl PartialEq for Run {
    /// A loaded run never changes, so its identity is its allocation: props
    /// holding runs compare in constant time, not over every finding and event.
    fn eq(&self, other: &Run) -> bool {
        match (self, other) {
            (Run::Report(a), Run::Report(b)) => Rc::ptr_eq(a, b),
            (Run::Trace(a), Run::Trace(b)) => Rc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Run {
    /// The report shown: the file itself, or the one computed for a trace.
    pub fn report(&self) -> &Report {
        match self {
            Run::Report(loaded) => &loaded.report,
            Run::Trace(trace) => &trace.report,
        }
    }

    /// How many findings the run has (the report may list fewer).
    pub fn findings_total(&self) -> usize {
        match self {
            Run::Report(loaded) => loaded.findings_total,
            Run::Trace(trace) => trace.findings_total,
        }
    }

    /// `"report"` or `"trace"`, as the run table's `data-kind` says.
    pub fn kind(&self) -> &'static str {
        match self {
            Run::Report(_) => "report",
            Run::Trace(_) => "trace",
        }
    }
}

pub use crate::protocol::Progress;

#[derive(Debug, Clone, PartialEq)]
pub enum FileStatus {
    /// With the worker; large files report their phase.
    Working(Option<Progress>),
    Loaded(Run),
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
    /// The worker has said it is ready (files sent before wait in a queue).
    pub worker_ready: bool,
}

#[derive(Debug, Clone)]
pub enum Action {
    /// A file was handed to the worker.
    Queued {
        id: u32,
        name: String,
    },
    /// The worker started a phase of a large file.
    Progressed {
        id: u32,
        progress: Progress,
    },
    /// The worker finished a file.
    Finished {
        id: u32,
        result: FileResult,
    },
    /// The worker installed its handler and takes files.
    WorkerReady,
    /// The worker died: every file still with it fails with this message.
    WorkerFailed(String),
    Select(u32),
    CloseRun,
    Remove(u32),
}

impl State {
    pub fn selected_run(&self) -> Option<(&FileEntry, &Run)> {
        let id = self.selected?;
        self.files.iter().find(|f| f.id == id).and_then(|f| match &f.status {
            FileStatus::Loaded(run) => Some((f, run)),
            _ => None,
        })
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Queued { id, name } => next.files.push(FileEntry { id, name, status: FileStatus::Working(None) }),
            Action::Progressed { id, progress } => {
                if let Some(entry) = next.files.iter_mut().find(|f| f.id == id) {
                    if let FileStatus::Working(_) = entry.status {
                        entry.status = FileStatus::Working(Some(progress));
                    }
                }
            }
            Action::Finished { id, result } => {
                if let Some(entry) = next.files.iter_mut().find(|f| f.id == id) {
                    entry.status = match result {
                        FileResult::Report(loaded) => FileStatus::Loaded(Run::Report(Rc::new(*loaded))),
                        FileResult::Trace(trace) => FileStatus::Loaded(Run::Trace(Rc::new(*trace))),
                        FileResult::Error { message } => FileStatus::Failed(message),
                    };
                }
            }
            Action::WorkerReady => next.worker_ready = true,
            Action::WorkerFailed(message) => {
                next.worker_ready = false;
                for entry in next.files.iter_mut().filter(|f| matches!(f.status, FileStatus::Working(_))) {
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
