//! The page state: the loaded files, in the order they were added, and the
//! selected run. One `Reducible` with an [`Action`] enum; components read it
//! through props and change it only by dispatching actions.

use agentrisk::batch::{GroupBy, RunFacts, RunResult};
use agentrisk::config::WhatIf;
use agentrisk::model::Report;
use agentrisk::publish::FileCheck;
use agentrisk::workspace::{AnalyzedTrace, BatchOnly, CanariesUsed, FileResult, LoadedReport};
use std::rc::Rc;
use yew::Reducible;

/// A run the viewer can show: a loaded report or a trace analysed here.
#[derive(Debug, Clone)]
pub enum Run {
    Report(Rc<LoadedReport>),
    Trace(Rc<AnalyzedTrace>),
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

    /// How many findings each compliance control cites (by control id).
    pub fn control_findings(&self) -> &std::collections::BTreeMap<String, usize> {
        match self {
            Run::Report(loaded) => &loaded.control_findings,
            Run::Trace(trace) => &trace.control_findings,
        }
    }

    /// The run's key numbers for the batch.
    pub fn facts(&self) -> &RunFacts {
        match self {
            Run::Report(loaded) => &loaded.facts,
            Run::Trace(trace) => &trace.facts,
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
    /// A scorecard or red-team results: rows for the batch only.
    Batch(Rc<BatchOnly>),
    Failed(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    pub id: u32,
    pub name: String,
    /// The folder the file was picked from; empty when not known.
    pub folder: String,
    pub status: FileStatus,
}

/// The two views of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tab {
    #[default]
    Runs,
    Batch,
    Compare,
    /// Several batches (scorecards, folders) over time.
    Trend,
    Scoring,
}

/// The findings table's filters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FindingFilters {
    pub channel: String,
    pub level: String,
    pub data_type: String,
    pub detector: String,
    /// Part of the source or target.
    pub party: String,
    pub search: String,
    /// `search` is a regular expression.
    pub regex: bool,
}

/// How the Batch tab computes and draws its statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchSettings {
    /// Strictly between 0 and 1.
    pub confidence: f64,
    pub continuity_correction: bool,
    pub group_by: Option<GroupBy>,
    /// Where the forest plot draws its reference line, as a share (0 to 1).
    pub threshold: f64,
}

impl Default for BatchSettings {
    fn default() -> BatchSettings {
        BatchSettings { confidence: 0.95, continuity_correction: false, group_by: None, threshold: 0.1 }
    }
}

/// One run of the batch: its numbers, and the file to open for it (none
/// for a scorecard's rows, which have no run view).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRow {
    pub file_id: Option<u32>,
    pub facts: RunFacts,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    pub files: Vec<FileEntry>,
    pub selected: Option<u32>,
    /// The worker has said it is ready (files sent before wait in a queue).
    pub worker_ready: bool,
    pub tab: Tab,
    pub batch: BatchSettings,
    /// The what-if settings in force: the last ones the worker took.
    pub whatif: WhatIf,
    /// Settings sent to the worker and not yet answered, oldest first (it
    /// answers each in turn, taking or refusing it).
    pub whatif_sent: Vec<WhatIf>,
    /// Why the worker refused the last settings, if it did.
    pub whatif_rejected: Option<String>,
    /// A run named by the URL hash, selected once a file of that name loads.
    pub pending_run: Option<String>,
    /// Same-origin files a link's `src=` names (kept in the hash).
    pub src: Vec<String>,
    /// The reviewer has not yet answered the prompt to open them.
    pub src_prompt: bool,
    pub finding_filters: FindingFilters,
    /// The canary set in force (from a dropped or picked file); `None`:
    /// each trace's own `metadata.canaries`, if any.
    pub canaries: Option<CanariesUsed>,
    /// Why the last picked canary-set file was refused, if it was.
    pub canaries_problem: Option<String>,
    /// The publication this page opened (a report site or a review pack).
    pub publication: Option<Rc<Publication>>,
    /// "Save as one file": `Some(None)` while it is being written,
    /// `Some(Some(why))` when it could not be.
    pub saving: Option<Option<String>>,
    /// The loaded batch (a [`LoadedBatch::key`]) the Batch tab is limited
    /// to, opened from the Trend view; `None`: every loaded run.
    pub batch_scope: Option<String>,
}

/// A publication as opened: what its manifest says, and how checking its
/// files against the manifest goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    pub title: String,
    pub generated_at: String,
    pub tool_version: String,
    /// The scoring settings its numbers were computed with, in words.
    pub config: String,
    /// Its config (name, `agentleak.yaml` text) and the What-if form's values for it.
    pub settings: Option<(String, String)>,
    pub what_if: Option<WhatIf>,
    pub include_traces: bool,
    /// A single-file pack (else a site).
    pub pack: bool,
    /// How many published files there are to check.
    pub expected: usize,
    /// Files listed but not published, with why.
    pub not_published: Vec<(String, String)>,
    /// The checks so far, by file name (a file whose data cannot be had is
    /// modified too).
    pub checks: Vec<(String, FileCheck)>,
    /// Why nothing can be checked, when the manifest cannot be read.
    pub unverifiable: Option<String>,
}

impl Publication {
    /// `verified`, `modified`, `unverifiable` or, until every file is
    /// checked, `checking`.
    pub fn verification(&self) -> &'static str {
        if self.unverifiable.is_some() {
            "unverifiable"
        } else if self.modified().next().is_some() {
            "modified"
        } else if self.checks.len() >= self.expected {
            "verified"
        } else {
            "checking"
        }
    }

    /// The files that do not match the manifest, with why.
    pub fn modified(&self) -> impl Iterator<Item = (&str, &str)> {
        self.checks.iter().filter_map(|(name, check)| match check {
            FileCheck::Modified { problem } => Some((name.as_str(), problem.as_str())),
            FileCheck::Verified => None,
        })
    }
}

impl Default for State {
    fn default() -> State {
        State {
            files: Vec::new(),
            selected: None,
            worker_ready: false,
            tab: Tab::default(),
            batch: BatchSettings::default(),
            whatif: WhatIf::reference_defaults(),
            whatif_sent: Vec::new(),
            whatif_rejected: None,
            pending_run: None,
            src: Vec::new(),
            src_prompt: false,
            finding_filters: FindingFilters::default(),
            canaries: None,
            canaries_problem: None,
            publication: None,
            saving: None,
            batch_scope: None,
        }
    }
}

/// What the hash holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    pub tab: Tab,
    /// The file name of the selected run.
    pub run: Option<String>,
    pub batch: BatchSettings,
    pub whatif: WhatIf,
    /// Files of this site that the link asks to open (`src=`, repeatable),
    /// as written: paths relative to the page.
    pub src: Vec<String>,
    /// The findings table's filters.
    pub filters: FindingFilters,
}

/// A file handed to the worker under `id`.
#[derive(Debug, Clone)]
pub struct Queued {
    pub id: u32,
    pub name: String,
    pub folder: String,
}

#[derive(Debug, Clone)]
pub enum Action {
    /// Files were handed to the worker: one action for all the files picked
    /// at once, since each action copies the state.
    Queued(Vec<Queued>),
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
    /// The worker died (and was replaced): the files `failed` fail with
    /// `message`; every other file keeps its result.
    WorkerFailed {
        message: String,
        failed: Vec<u32>,
    },
    Select(u32),
    /// Selects the next (+1) or previous (−1) loaded run in table order.
    Step(i32),
    CloseRun,
    Remove(u32),
    ShowTab(Tab),
    SetBatch(BatchSettings),
    /// New what-if settings were sent to the worker.
    ApplyWhatIf(WhatIf),
    /// The worker took the oldest settings sent: they are in force.
    WhatIfAccepted,
    /// The worker refused the oldest settings sent: the message names the
    /// key; the settings in force stay.
    WhatIfRejected(String),
    /// An imported `agentleak.yaml` could not be read: the message names
    /// the file and the problem.
    WhatIfUnreadable(String),
    /// The view a link's hash describes (its what-if settings are applied
    /// separately, as they go to the worker).
    RestoreView(Box<ViewState>),
    /// The prompt for a link's `src=` files was answered.
    SrcAnswered,
    SetFindingFilters(FindingFilters),
    /// The worker's canary set in force changed (`None`: cleared).
    CanariesInForce(Option<CanariesUsed>),
    /// A picked canary-set file was refused (naming the file and place).
    CanariesUnreadable(String),
    /// The page opened as a publication.
    Published(Rc<Publication>),
    /// A published file was checked against the manifest.
    PublishedChecked {
        name: String,
        check: FileCheck,
    },
    /// "Save as one file" started (`None`) or ended (`Some(problem)`, empty when saved).
    Saving(Option<String>),
    /// Show one loaded batch (a [`LoadedBatch::key`]) in the Batch tab;
    /// `None`: every loaded run again.
    OpenBatch(Option<String>),
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

impl State {
    /// Every run of the batch, in file order (a scorecard's rows where the
    /// scorecard is), and every red-team record of red-team files and
    /// scorecards.
    pub fn batch_rows(&self) -> (Vec<BatchRow>, Vec<RunResult>) {
        let mut rows = Vec::new();
        let mut redteam = Vec::new();
        for entry in &self.files {
            match &entry.status {
                FileStatus::Loaded(run) => rows.push(BatchRow { file_id: Some(entry.id), facts: run.facts().clone() }),
                FileStatus::Batch(only) => {
                    rows.extend(only.runs.iter().map(|facts| BatchRow { file_id: None, facts: facts.clone() }));
                    redteam.extend(only.redteam.iter().cloned());
                }
                FileStatus::Working(_) | FileStatus::Failed(_) => {}
            }
        }
        (rows, redteam)
    }
}

/// A batch the page holds, as `agentrisk diff` and `history` take one: a
/// scorecard file opened on its own, or a folder (with its sub-folders).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedBatch {
    /// `file:<id>` or `folder:<path>`: what the pickers and the Trend view go by.
    pub key: String,
    /// As the CLI names the input: the scorecard's file name, the folder's path.
    pub name: String,
    /// A scorecard file (else a folder).
    pub scorecard: bool,
    /// A scorecard's `generated_at`; a folder that holds one scorecard and
    /// nothing else has that one's (the CLI's rule, `BatchRuns::generated_at`).
    pub generated_at: Option<String>,
    /// Its runs in the CLI's order (by path, as a folder is walked).
    pub rows: Vec<BatchRow>,
    pub redteam: Vec<RunResult>,
}

/// Which folders count as batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Folders {
    /// The folders the reviewer opened or dropped (a path's first part):
    /// one batch each, as `agentrisk history FOLDER` reads it.
    Opened,
    /// Every folder and sub-folder, each with what lies below it.
    Every,
}

impl State {
    /// How many batches [`State::loaded_batches`] gives for
    /// [`Folders::Opened`], without gathering their runs (the tab bar asks
    /// at every change).
    pub fn opened_batch_count(&self) -> usize {
        let has_runs = |f: &FileEntry| match &f.status {
            FileStatus::Loaded(_) => true,
            FileStatus::Batch(only) => !only.runs.is_empty(),
            FileStatus::Working(_) | FileStatus::Failed(_) => false,
        };
        let scorecards = self
            .files
            .iter()
            .filter(|f| f.folder.is_empty() && matches!(f.status, FileStatus::Batch(_)) && has_runs(f))
            .count();
        let folders: std::collections::BTreeSet<&str> = self
            .files
            .iter()
            .filter(|f| !f.folder.is_empty() && has_runs(f))
            .map(|f| f.folder.split('/').next().unwrap_or(&f.folder))
            .collect();
        scorecards + folders.len()
    }

    /// The scorecards opened on their own (with runs), in the order they
    /// were opened, then the folders by name.
    pub fn loaded_batches(&self, folders: Folders) -> Vec<LoadedBatch> {
        let mut out: Vec<LoadedBatch> = self
            .files
            .iter()
            .filter(|f| f.folder.is_empty())
            .filter_map(|f| match &f.status {
                FileStatus::Batch(only) if !only.runs.is_empty() => Some(LoadedBatch {
                    key: format!("file:{}", f.id),
                    name: f.name.clone(),
                    scorecard: true,
                    generated_at: only.generated_at.clone(),
                    rows: only.runs.iter().map(|facts| BatchRow { file_id: None, facts: facts.clone() }).collect(),
                    redteam: only.redteam.clone(),
                }),
                _ => None,
            })
            .collect();
        let mut paths: Vec<&str> = Vec::new();
        for entry in self.files.iter().filter(|f| !f.folder.is_empty()) {
            match folders {
                Folders::Opened => paths.push(entry.folder.split('/').next().unwrap_or(&entry.folder)),
                Folders::Every => paths.extend(
                    entry.folder.match_indices('/').map(|(at, _)| &entry.folder[..at]).chain([entry.folder.as_str()]),
                ),
            }
        }
        paths.sort_unstable();
        paths.dedup();
        for path in paths {
            let mut inside: Vec<&FileEntry> = self
                .files
                .iter()
                .filter(|f| f.folder == path || f.folder.strip_prefix(path).is_some_and(|rest| rest.starts_with('/')))
                .collect();
            // `agentrisk` walks a folder sorted, part by part of the path.
            inside.sort_by(|a, b| a.name.split('/').cmp(b.name.split('/')));
            let mut rows = Vec::new();
            let mut redteam = Vec::new();
            for entry in &inside {
                match &entry.status {
                    FileStatus::Loaded(run) => {
                        rows.push(BatchRow { file_id: Some(entry.id), facts: run.facts().clone() })
                    }
                    FileStatus::Batch(only) => {
                        rows.extend(only.runs.iter().map(|facts| BatchRow { file_id: None, facts: facts.clone() }));
                        redteam.extend(only.redteam.iter().cloned());
                    }
                    FileStatus::Working(_) | FileStatus::Failed(_) => {}
                }
            }
            let generated_at = match inside.as_slice() {
                [only] => match &only.status {
                    FileStatus::Batch(card) => card.generated_at.clone(),
                    _ => None,
                },
                _ => None,
            };
            if !rows.is_empty() {
                out.push(LoadedBatch {
                    key: format!("folder:{path}"),
                    name: path.to_owned(),
                    scorecard: false,
                    generated_at,
                    rows,
                    redteam,
                });
            }
        }
        out
    }
}

impl Reducible for State {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut next = (*self).clone();
        match action {
            Action::Queued(queued) => {
                next.files.extend(queued.into_iter().map(|Queued { id, name, folder }| FileEntry {
                    id,
                    name,
                    folder,
                    status: FileStatus::Working(None),
                }))
            }
            Action::Progressed { id, progress } => {
                if let Some(entry) = next.files.iter_mut().find(|f| f.id == id) {
                    if let FileStatus::Working(_) = entry.status {
                        entry.status = FileStatus::Working(Some(progress));
                    }
                }
            }
            Action::Finished { id, result } => {
                let loaded = matches!(result, FileResult::Report(_) | FileResult::Trace(_));
                let status = match result {
                    FileResult::Report(loaded) => Some(FileStatus::Loaded(Run::Report(Rc::new(*loaded)))),
                    FileResult::Trace(trace) => Some(FileStatus::Loaded(Run::Trace(Rc::new(*trace)))),
                    FileResult::Batch(only) => Some(FileStatus::Batch(Rc::new(*only))),
                    FileResult::Error { message } => Some(FileStatus::Failed(message)),
                    // A canary-set file is no run: it leaves the file list,
                    // and the What-if tab shows it (from the worker's `Canaries`).
                    FileResult::CanarySet(_) => None,
                };
                match status {
                    None => next.files.retain(|f| f.id != id),
                    Some(status) => {
                        if let Some(entry) = next.files.iter_mut().find(|f| f.id == id) {
                            if loaded && next.pending_run.as_ref() == Some(&entry.name) {
                                next.pending_run = None;
                                next.selected = Some(id);
                            }
                            entry.status = status;
                        }
                    }
                }
            }
            Action::WorkerReady => next.worker_ready = true,
            Action::WorkerFailed { message, failed } => {
                next.worker_ready = false;
                for entry in next.files.iter_mut().filter(|f| failed.contains(&f.id)) {
                    entry.status = FileStatus::Failed(message.clone());
                }
            }
            Action::Select(id) => {
                next.selected = Some(id);
                next.tab = Tab::Runs;
            }
            Action::ShowTab(tab) => next.tab = tab,
            Action::SetBatch(settings) => next.batch = settings,
            Action::ApplyWhatIf(settings) => {
                next.whatif_sent.push(settings);
                next.whatif_rejected = None;
            }
            Action::WhatIfAccepted => {
                if !next.whatif_sent.is_empty() {
                    next.whatif = next.whatif_sent.remove(0);
                }
            }
            Action::RestoreView(view) => {
                let view = *view;
                next.tab = view.tab;
                next.batch = view.batch;
                next.pending_run = view.run;
                next.src_prompt = !view.src.is_empty();
                next.src = view.src;
                next.finding_filters = view.filters;
            }
            Action::SrcAnswered => next.src_prompt = false,
            Action::SetFindingFilters(filters) => next.finding_filters = filters,
            Action::WhatIfRejected(message) => {
                if !next.whatif_sent.is_empty() {
                    next.whatif_sent.remove(0);
                }
                next.whatif_rejected = Some(message);
            }
            Action::WhatIfUnreadable(message) => next.whatif_rejected = Some(message),
            Action::Step(by) => {
                let runs: Vec<u32> =
                    next.files.iter().filter(|f| matches!(f.status, FileStatus::Loaded(_))).map(|f| f.id).collect();
                if !runs.is_empty() {
                    let at = next.selected.and_then(|id| runs.iter().position(|r| *r == id));
                    let index = match at {
                        Some(i) => (i as i64 + i64::from(by)).clamp(0, runs.len() as i64 - 1) as usize,
                        None if by < 0 => runs.len() - 1,
                        None => 0,
                    };
                    next.selected = Some(runs[index]);
                    next.tab = Tab::Runs;
                }
            }
            Action::CanariesInForce(in_force) => {
                next.canaries = in_force;
                next.canaries_problem = None;
            }
            Action::CanariesUnreadable(message) => next.canaries_problem = Some(message),
            Action::Published(publication) => next.publication = Some(publication),
            Action::PublishedChecked { name, check } => {
                // A replacement worker checks its files again.
                if let Some(publication) = &mut next.publication {
                    let checks = &mut Rc::make_mut(publication).checks;
                    checks.retain(|(known, _)| *known != name);
                    checks.push((name, check));
                }
            }
            Action::Saving(None) => next.saving = Some(None),
            Action::Saving(Some(problem)) => next.saving = (!problem.is_empty()).then_some(Some(problem)),
            Action::OpenBatch(key) => {
                if key.is_some() {
                    next.tab = Tab::Batch;
                }
                next.batch_scope = key;
            }
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
