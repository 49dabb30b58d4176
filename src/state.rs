//! The page state: the loaded files, in the order they were added, and the
//! selected run. One `Reducible` with an [`Action`] enum; components read it
//! through props and change it only by dispatching actions.
//!
//! A row of the run table ([`FileEntry`]) is one file, except a span export
//! with several conversations, which has a row per run. Rows have their own
//! ids (selection, the batch and compare name rows); the worker's messages
//! name files, and a file's new result replaces all its rows.

use agentrisk::batch::{GroupBy, Reading, RunFacts, RunResult};
use agentrisk::config::WhatIf;
use agentrisk::model::{Report, SpanMapping, SpanSource};
use agentrisk::publish::FileCheck;
use agentrisk::review::{Date, Review, RunReview, RunSecrets, SignOffStatus};
use agentrisk::workspace::{AnalyzedTrace, BatchOnly, CanariesUsed, FileResult, LoadedReport, ReviewedFile};
use std::collections::BTreeMap;
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

    /// The run's leaked secrets as a review names them (its decision controls).
    pub fn secrets(&self) -> &RunSecrets {
        match self {
            Run::Report(loaded) => &loaded.secrets,
            Run::Trace(trace) => &trace.secrets,
        }
    }

    /// `"report"` or `"trace"`, as the run table's `data-kind` says.
    pub fn kind(&self) -> &'static str {
        match self {
            Run::Report(_) => "report",
            Run::Trace(_) => "trace",
        }
    }

    /// Where a run made from OpenTelemetry spans came from (the export's
    /// shape, the mapping): analysed here, or a report of such a run (as a
    /// site publishes a span export without its spans); `None` for any
    /// other run.
    pub fn span_source(&self) -> Option<&SpanSource> {
        self.report().span_source.as_ref()
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

/// A row of the run table: a file, or one run of a span export.
#[derive(Debug, Clone, PartialEq)]
pub struct FileEntry {
    /// The row's own id, never reused while the page lives.
    pub id: u32,
    /// The worker's id of the file (the rows of one span export share it).
    pub file: u32,
    /// The file's name.
    pub name: String,
    /// The folder the file was picked from; empty when not known.
    pub folder: String,
    pub status: FileStatus,
}

impl FileEntry {
    /// The row as a picker names it: its file, and for one of several runs
    /// of a span export analysed here, the run too.
    pub fn label(&self) -> String {
        match &self.status {
            FileStatus::Loaded(run @ Run::Trace(_))
                if run.span_source().is_some_and(|source| source.conversation.is_some()) =>
            {
                format!("{} · {}", self.name, run.report().run_id)
            }
            _ => self.name.clone(),
        }
    }

    /// Where the row's run came from, when it was made from spans.
    pub fn span_source(&self) -> Option<&SpanSource> {
        match &self.status {
            FileStatus::Loaded(run) => run.span_source(),
            _ => None,
        }
    }
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
    /// The rates as detected, or as reviewed (each reviewed run with its
    /// reviewed numbers).
    pub reading: Reading,
}

impl Default for BatchSettings {
    fn default() -> BatchSettings {
        BatchSettings {
            confidence: 0.95,
            continuity_correction: false,
            group_by: None,
            threshold: 0.1,
            reading: Reading::AsDetected,
        }
    }
}

/// One run of the batch: its numbers, and the run table row to open for
/// it (none for a scorecard's rows, which have no run view).
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRow {
    pub row: Option<u32>,
    pub facts: RunFacts,
}

#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The run table's rows, in the order their files were added.
    pub files: Vec<FileEntry>,
    /// The last row id given out.
    pub last_row: u32,
    /// The selected row.
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
    /// A run named by the URL hash (a file name, and the run's place among
    /// a span export's runs), selected once a file of that name loads.
    pub pending_run: Option<(String, usize)>,
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
    /// The review in force, as the worker last told it (empty: none). Held
    /// in this tab only, never stored.
    pub review: Rc<Review>,
    /// Each loaded run's reviewed numbers under it, by row id (a span export's runs have a row each).
    pub reviews: BTreeMap<u32, Rc<RunReview>>,
    /// The date acceptances are judged at (the worker's, once told).
    pub review_date: Option<Date>,
    /// The reviewer's name, typed once per visit (never stored).
    pub reviewer: String,
    /// The review's decisions that match no loaded run, each with why.
    pub unmatched: Rc<Vec<String>>,
    /// Why the last review edit was refused, if it was.
    pub review_problem: Option<String>,
    /// How span exports become runs: the mapping the worker has in force.
    pub span_mapping: SpanMapping,
    /// Why the last "Export as AgentLeak trace" gave no file, if it did not.
    pub export_problem: Option<String>,
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
    /// How its span exports became runs, when it has any.
    pub span_mapping: Option<SpanMapping>,
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
            last_row: 0,
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
            review: Rc::default(),
            reviews: BTreeMap::new(),
            review_date: None,
            reviewer: String::new(),
            unmatched: Rc::default(),
            review_problem: None,
            span_mapping: SpanMapping::default(),
            export_problem: None,
            batch_scope: None,
        }
    }
}

/// What the hash holds.
#[derive(Debug, Clone, PartialEq)]
pub struct ViewState {
    pub tab: Tab,
    /// The selected run, by its file's name…
    pub run: Option<String>,
    /// … and its place among the runs of that file (a span export's
    /// conversations; 0 for any other file). Never the conversation's own
    /// id, which is read from the file.
    pub run_place: usize,
    pub batch: BatchSettings,
    pub whatif: WhatIf,
    /// Files of this site that the link asks to open (`src=`, repeatable),
    /// as written: paths relative to the page.
    pub src: Vec<String>,
    /// The findings table's filters.
    pub filters: FindingFilters,
}

/// A file handed to the worker under `id` (its row gets an id of its own).
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
    /// The worker started a phase of large file `id`.
    Progressed {
        id: u32,
        progress: Progress,
    },
    /// Several actions applied in turn to one copy of the state, with one
    /// render after (the worker's messages, gathered for a moment).
    Many(Vec<Action>),
    /// The worker finished file `id` (its rows show the result).
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
    /// Selects a row.
    Select(u32),
    /// Selects the next (+1) or previous (−1) loaded run in table order.
    Step(i32),
    CloseRun,
    /// Removes a row's file: every row of it (all runs of a span export).
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
    /// The worker has this span mapping in force (and analyses the span
    /// exports again with it).
    SpanMappingInForce(SpanMapping),
    /// "Export as AgentLeak trace" saved a file (`None`) or could not (why).
    TraceExported(Option<String>),
    /// Show one loaded batch (a [`LoadedBatch::key`]) in the Batch tab;
    /// `None`: every loaded run again.
    OpenBatch(Option<String>),
    /// The worker's news of the review (see `FromWorker::Reviewed`).
    Reviewed {
        review: Option<Review>,
        today: Option<Date>,
        files: Vec<ReviewedFile>,
        unmatched: Vec<String>,
    },
    /// A review edit was refused (naming the field and the problem), or an
    /// edit was sent (`None`).
    ReviewProblem(Option<String>),
    /// The reviewer's name, as typed.
    SetReviewer(String),
}

/// Where a run's review stands, in the run table's words: `not reviewed`,
/// `n of m decided`, `in review`, `approved` or `changes needed`.
pub fn review_status(review: Option<&RunReview>) -> String {
    let Some(r) = review else { return "not reviewed".to_owned() };
    match r.sign_off.as_ref().map(|s| s.status) {
        Some(SignOffStatus::Approved) => "approved".to_owned(),
        Some(SignOffStatus::ChangesNeeded) => "changes needed".to_owned(),
        None if r.decided == 0 => "not reviewed".to_owned(),
        Some(SignOffStatus::InReview) if r.decided == 0 => "in review".to_owned(),
        _ => format!("{} of {} decided", r.decided, r.secret_groups),
    }
}

impl State {
    /// The selected row's place among its file's rows (0 but for a span
    /// export's later runs).
    pub fn selected_place(&self) -> usize {
        let Some((entry, _)) = self.selected_run() else { return 0 };
        self.files.iter().filter(|f| f.file == entry.file).position(|f| f.id == entry.id).unwrap_or(0)
    }

    /// The selected row and its run.
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
                FileStatus::Loaded(run) => {
                    let mut facts = run.facts().clone();
                    facts.reviewed = self.reviews.get(&entry.id).map(|r| r.numbers());
                    rows.push(BatchRow { row: Some(entry.id), facts });
                }
                FileStatus::Batch(only) => {
                    rows.extend(only.runs.iter().map(|facts| BatchRow { row: None, facts: facts.clone() }));
                    redteam.extend(only.redteam.iter().cloned());
                }
                FileStatus::Working(_) | FileStatus::Failed(_) => {}
            }
        }
        (rows, redteam)
    }

    /// A new row id.
    fn new_row(&mut self) -> u32 {
        self.last_row += 1;
        self.last_row
    }

    /// Puts rows with `statuses` in place of file `file`'s rows, where
    /// they were, keeping their ids in order (so a file analysed again keeps
    /// its selected run); rows left over go, with their selection. With
    /// `loaded`, a row the URL hash names is selected.
    /// The reviewed numbers of file `file`'s runs, in run order (a
    /// missing one, or none: the row has none), beside its rows.
    fn set_reviews(&mut self, file: u32, reviews: impl Iterator<Item = Option<RunReview>>) {
        let rows: Vec<u32> = self.files.iter().filter(|f| f.file == file).map(|f| f.id).collect();
        let mut reviews = reviews;
        for row in rows {
            match reviews.next().flatten() {
                Some(review) => self.reviews.insert(row, Rc::new(review)),
                None => self.reviews.remove(&row),
            };
        }
    }

    fn replace_rows(&mut self, file: u32, statuses: Vec<FileStatus>, loaded: bool) {
        // A file removed before its result came has no rows left.
        let Some(at) = self.files.iter().position(|f| f.file == file) else { return };
        let (old, kept): (Vec<FileEntry>, Vec<FileEntry>) =
            std::mem::take(&mut self.files).into_iter().partition(|f| f.file == file);
        self.files = kept;
        let Some(first) = old.first() else { return };
        let (name, folder) = (first.name.clone(), first.folder.clone());
        let mut rows = Vec::with_capacity(statuses.len());
        for (i, status) in statuses.into_iter().enumerate() {
            let id = match old.get(i) {
                Some(row) => row.id,
                None => self.new_row(),
            };
            rows.push(FileEntry { id, file, name: name.clone(), folder: folder.clone(), status });
        }
        if old.iter().skip(rows.len()).any(|row| self.selected == Some(row.id)) {
            self.selected = None;
        }
        let named = self.pending_run.as_ref().filter(|(wanted, _)| loaded && *wanted == name);
        if let Some(row) = named.and_then(|(_, place)| rows.get(*place)) {
            self.selected = Some(row.id);
            self.pending_run = None;
        }
        self.files.splice(at..at, rows);
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
        let folders = agentrisk::util::btree_set(
            self.files
                .iter()
                .filter(|f| !f.folder.is_empty() && has_runs(f))
                .map(|f| f.folder.split('/').next().unwrap_or(&f.folder)),
        );
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
                    rows: only.runs.iter().map(|facts| BatchRow { row: None, facts: facts.clone() }).collect(),
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
        agentrisk::util::sort(&mut paths);
        paths.dedup();
        for path in paths {
            let mut inside: Vec<&FileEntry> = self
                .files
                .iter()
                .filter(|f| f.folder == path || f.folder.strip_prefix(path).is_some_and(|rest| rest.starts_with('/')))
                .collect();
            // `agentrisk` walks a folder sorted, part by part of the path.
            agentrisk::util::sort_by(&mut inside, |a, b| a.name.split('/').cmp(b.name.split('/')));
            let mut rows = Vec::new();
            let mut redteam = Vec::new();
            for entry in &inside {
                match &entry.status {
                    FileStatus::Loaded(run) => rows.push(BatchRow { row: Some(entry.id), facts: run.facts().clone() }),
                    FileStatus::Batch(only) => {
                        rows.extend(only.runs.iter().map(|facts| BatchRow { row: None, facts: facts.clone() }));
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
        next.apply(action);
        Rc::new(next)
    }
}

impl State {
    /// Applies one action to this copy of the state (`Many`: each in turn).
    fn apply(&mut self, action: Action) {
        let next = self;
        match action {
            Action::Many(actions) => {
                for action in actions {
                    next.apply(action);
                }
            }
            Action::Queued(queued) => {
                for Queued { id: file, name, folder } in queued {
                    let id = next.new_row();
                    next.files.push(FileEntry { id, file, name, folder, status: FileStatus::Working(None) });
                }
            }
            Action::Progressed { id, progress } => {
                for entry in next.files.iter_mut().filter(|f| f.file == id) {
                    if let FileStatus::Working(_) = entry.status {
                        entry.status = FileStatus::Working(Some(progress));
                    }
                }
            }
            Action::Finished { id, mut result } => {
                let loaded = matches!(result, FileResult::Report(_) | FileResult::Trace(_) | FileResult::Spans(_));
                // A run's reviewed numbers live beside its row (they change
                // with each decision); the run itself never changes.
                let mut reviews: Vec<Option<RunReview>> = match &mut result {
                    FileResult::Report(loaded) => vec![loaded.review.take()],
                    FileResult::Trace(trace) => vec![trace.review.take()],
                    FileResult::Spans(spans) => spans.runs.iter_mut().map(|run| run.review.take()).collect(),
                    _ => Vec::new(),
                };
                let statuses = match result {
                    FileResult::Spans(spans) if spans.runs.is_empty() => {
                        vec![FileStatus::Failed("no runs: nothing was analysed".to_owned())]
                    }
                    FileResult::Spans(spans) => {
                        spans.runs.into_iter().map(|run| FileStatus::Loaded(Run::Trace(Rc::new(run)))).collect()
                    }
                    FileResult::Report(loaded) => vec![FileStatus::Loaded(Run::Report(Rc::new(*loaded)))],
                    FileResult::Trace(trace) => vec![FileStatus::Loaded(Run::Trace(Rc::new(*trace)))],
                    FileResult::Batch(only) => vec![FileStatus::Batch(Rc::new(*only))],
                    FileResult::Error { message } => vec![FileStatus::Failed(message)],
                    // A canary-set file is no run: it leaves the file list,
                    // and the What-if tab shows it (from the worker's `Canaries`).
                    FileResult::CanarySet(_) => Vec::new(),
                    // A review file is no run either: the worker's workspace
                    // holds it as its review (`Workspace::open`).
                    FileResult::Review(_) => Vec::new(),
                };
                next.replace_rows(id, statuses, loaded);
                next.set_reviews(id, reviews.drain(..));
            }
            Action::WorkerReady => next.worker_ready = true,
            Action::WorkerFailed { message, failed } => {
                next.worker_ready = false;
                for file in failed {
                    next.replace_rows(file, vec![FileStatus::Failed(message.clone())], false);
                }
            }
            Action::Select(id) => {
                next.selected = Some(id);
                next.tab = Tab::Runs;
                next.export_problem = None;
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
                next.pending_run = view.run.map(|run| (run, view.run_place));
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
                    next.selected = runs.get(index).copied();
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
            Action::Reviewed { review, today, files, unmatched } => {
                if let Some(review) = review {
                    next.review = Rc::new(review);
                    next.review_problem = None;
                }
                if today.is_some() {
                    next.review_date = today;
                }
                for file in files {
                    next.set_reviews(file.id, file.runs.into_iter().map(Some));
                }
                next.unmatched = Rc::new(unmatched);
            }
            Action::ReviewProblem(problem) => next.review_problem = problem,
            Action::SetReviewer(name) => next.reviewer = name,
            Action::OpenBatch(key) => {
                if key.is_some() {
                    next.tab = Tab::Batch;
                }
                next.batch_scope = key;
            }
            Action::CloseRun => next.selected = None,
            Action::Remove(id) => {
                if let Some(file) = next.files.iter().find(|f| f.id == id).map(|f| f.file) {
                    next.files.retain(|f| f.file != file);
                    next.reviews.retain(|row, _| next.files.iter().any(|f| f.id == *row));
                }
                if next.selected.is_some_and(|s| !next.files.iter().any(|f| f.id == s)) {
                    next.selected = None;
                }
            }
            Action::SpanMappingInForce(mapping) => next.span_mapping = mapping,
            Action::TraceExported(problem) => next.export_problem = problem,
        }
    }
}
