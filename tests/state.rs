//! The page's reducer, natively: what each action does to the state.

use agentrisk::analyser::Analyser;
use agentrisk::config::WhatIf;
use agentrisk::workspace::FileResult;
use agentrisk_viewer::protocol::Phase;
use agentrisk_viewer::state::{Action, FileStatus, Progress, Queued, State};
use std::rc::Rc;
use yew::Reducible;

const HEALTHCARE: &[u8] = include_bytes!("../www/samples/healthcare_trace.report.json");

fn analyze(bytes: &[u8]) -> FileResult {
    Analyser::new().with_generated_at("2026-12-02T12:00:00.000Z").analyse_file(bytes, "file.json", "", &|_| {})
}

#[test]
fn the_state_keeps_other_files_when_one_fails_or_the_worker_dies() {
    let state = Rc::new(State::default());
    let queued = |id: u32, name: &str| Queued { id, name: name.into(), folder: String::new() };
    let state = state.reduce(Action::Queued(vec![queued(1, "a.json"), queued(2, "b.json")]));
    let state = state.reduce(Action::Queued(vec![queued(3, "c.json")]));
    assert_eq!(
        state.files.iter().map(|f| (f.id, f.name.as_str())).collect::<Vec<_>>(),
        [(1, "a.json"), (2, "b.json"), (3, "c.json")]
    );
    let state = state.reduce(Action::Finished { id: 1, result: analyze(HEALTHCARE) });
    let progress = Progress { phase: Phase::Detecting, bytes: 6_000_000, percent: Some(40), mb_per_s: Some(9.5) };
    let state = state.reduce(Action::Progressed { id: 2, progress });
    assert_eq!(state.files[1].status, FileStatus::Working(Some(progress)));
    let state = state.reduce(Action::WorkerReady);
    assert!(state.worker_ready);
    // The worker crashed on file 2 and was replaced: file 3 stays with the
    // new worker, file 1 keeps its result.
    let state = state.reduce(Action::WorkerFailed { message: "the analysis worker stopped".into(), failed: vec![2] });
    assert!(!state.worker_ready);
    assert!(matches!(state.files[0].status, FileStatus::Loaded(_)));
    assert_eq!(state.files[1].status, FileStatus::Failed("the analysis worker stopped".into()));
    assert_eq!(state.files[2].status, FileStatus::Working(None));
    let state = state.reduce(Action::Remove(3));
    let state = state.reduce(Action::Select(1));
    assert_eq!(state.selected_run().map(|(f, _)| f.id), Some(1));
    let state = state.reduce(Action::Remove(1));
    assert_eq!((state.files.len(), state.selected), (1, None));
}

/// Settings are in force only once the worker takes them; it answers each
/// in turn, so a refused one leaves the last taken in force, and a later
/// one still lands.
#[test]
fn what_if_settings_are_in_force_once_the_worker_takes_them() {
    let strict = WhatIf { fail_below: 80, ..WhatIf::reference_defaults() };
    let broken = WhatIf { weights: [0, 0, 0, 0], ..WhatIf::reference_defaults() };
    let state = Rc::new(State::default());
    let state = state.reduce(Action::ApplyWhatIf(strict.clone()));
    assert_eq!(state.whatif, WhatIf::reference_defaults(), "not in force before the worker answers");
    let state = state.reduce(Action::ApplyWhatIf(broken));
    let state = state.reduce(Action::ApplyWhatIf(WhatIf::reference_defaults()));
    let state = state.reduce(Action::WhatIfAccepted);
    assert_eq!((&state.whatif, state.whatif_sent.len()), (&strict, 2));
    let state = state.reduce(Action::WhatIfRejected("scoring.weights: must be positive".into()));
    assert_eq!(state.whatif, strict, "a refusal keeps the settings in force");
    assert_eq!(state.whatif_rejected.as_deref(), Some("scoring.weights: must be positive"));
    let state = state.reduce(Action::WhatIfAccepted);
    assert!(state.whatif.is_reference_default() && state.whatif_sent.is_empty());
    // A worker answering settings it was sent again after a crash changes nothing.
    let state = state.reduce(Action::WhatIfAccepted);
    assert!(state.whatif.is_reference_default());
    let state = state.reduce(Action::WhatIfUnreadable("x.yaml: line 1: bad".into()));
    assert_eq!(
        (state.whatif_rejected.as_deref(), state.whatif.is_reference_default()),
        (Some("x.yaml: line 1: bad"), true)
    );
}

/// A dropped canary-set file leaves the file list (it is no run); the
/// worker's `Canaries` puts it in force, a refused pick keeps it and says
/// why, and clearing drops it.
#[test]
fn a_canary_set_file_is_no_run_and_the_set_in_force_follows_the_worker() {
    use agentrisk::workspace::{CanariesUsed, CanarySource};
    let state = Rc::new(State::default());
    let queued = |id: u32, name: &str| Queued { id, name: name.into(), folder: String::new() };
    let state = state.reduce(Action::Queued(vec![queued(1, "a.json"), queued(2, "set.json")]));
    let result = analyze(br#"{"obvious": ["CANARY_X"], "semantic": ["a phrase", "another"]}"#);
    let FileResult::CanarySet(used) = result.clone() else { panic!("not a canary set: {result:?}") };
    let state = state.reduce(Action::Finished { id: 2, result });
    assert_eq!(state.files.iter().map(|f| f.id).collect::<Vec<_>>(), [1]);
    let state = state.reduce(Action::CanariesInForce(Some(*used)));
    let expected = CanariesUsed {
        source: CanarySource::Explicit { name: "file.json".into() },
        obvious: 1,
        realistic: 0,
        semantic: 2,
    };
    assert_eq!(state.canaries, Some(expected));
    let state = state.reduce(Action::CanariesUnreadable("bad.json: obvious[0]: expected a string, found null".into()));
    assert_eq!(state.canaries.as_ref().map(|c| c.semantic), Some(2), "a refused file keeps the set in force");
    assert!(state.canaries_problem.as_deref().is_some_and(|p| p.contains("obvious[0]")));
    let state = state.reduce(Action::CanariesInForce(None));
    assert_eq!((state.canaries.clone(), state.canaries_problem.clone()), (None, None));
}

#[test]
fn a_publication_is_checking_until_every_file_is_checked_and_names_what_was_modified() {
    use agentrisk::publish::FileCheck;
    use agentrisk_viewer::state::Publication;
    let publication = Publication {
        title: "Week 49".into(),
        generated_at: "2026-12-06T10:00:00+00:00".into(),
        tool_version: "0.1.0".into(),
        config: "reference defaults".into(),
        settings: None,
        what_if: None,
        include_traces: false,
        span_mapping: None,
        pack: true,
        expected: 2,
        not_published: Vec::new(),
        checks: Vec::new(),
        unverifiable: None,
    };
    let state = Rc::new(State::default()).reduce(Action::Published(Rc::new(publication.clone())));
    let shown = |state: &Rc<State>| state.publication.as_ref().unwrap().verification();
    assert_eq!(shown(&state), "checking");
    let state = state.reduce(Action::PublishedChecked { name: "a.json".into(), check: FileCheck::Verified });
    assert_eq!(shown(&state), "checking");
    let modified = FileCheck::Modified { problem: "data/b.json does not match its SHA-256".into() };
    let state = state.reduce(Action::PublishedChecked { name: "b.json".into(), check: modified });
    assert_eq!(shown(&state), "modified");
    let named: Vec<(&str, &str)> = state.publication.as_ref().unwrap().modified().collect();
    assert_eq!(named, [("b.json", "data/b.json does not match its SHA-256")]);
    // A replacement worker checks again: the new check replaces the old.
    let state = state.reduce(Action::PublishedChecked { name: "b.json".into(), check: FileCheck::Verified });
    assert_eq!(shown(&state), "verified");
    assert_eq!(state.publication.as_ref().unwrap().checks.len(), 2);
    let unreadable = Publication { unverifiable: Some("manifest.json is not JSON".into()), ..publication };
    let state = state.reduce(Action::Published(Rc::new(unreadable)));
    assert_eq!(shown(&state), "unverifiable");
}

/// A run's reviewed numbers live beside it in the state: taken from its
/// result, replaced by the worker's answers to each edit, gone with the
/// file; the batch rows carry them, and the run table's review column says
/// where the run's review stands.
#[test]
fn reviewed_numbers_follow_the_worker_and_the_run_table_says_where_a_review_stands() {
    use agentrisk::review::{ChannelScope, Date, Decision, DecisionKind, Review, SignOff, SignOffStatus};
    use agentrisk::workspace::Workspace;
    use agentrisk_viewer::state::review_status;
    let date = |text: &str| Date::parse(text).unwrap();
    let decide = |value: &str, data_type: &str, kind, expires: Option<&str>| Decision {
        run_id: "run_healthcare_001".into(),
        data_type: data_type.into(),
        channel: ChannelScope::All,
        value: value.into(),
        decision: Some(kind),
        rationale: "why".into(),
        reviewer: "Dana".into(),
        decided_at: Some(date("2026-06-01")),
        expires: expires.map(date),
    };
    let mut review = Review::default();
    review.set_decision(decide("di****es", "health_condition", DecisionKind::FalsePositive, None)).unwrap();
    review
        .set_decision(decide("TR********78", "health_identifier", DecisionKind::AcceptedRisk, Some("2030-01-01")))
        .unwrap();
    let mut ws = Workspace::new();
    let today = date("2026-06-01");
    let _ = ws.set_review(Some(review.clone()), today);
    let trace = include_bytes!("../www/samples/traces/healthcare_trace.json").to_vec();
    let result = ws.open(1, "healthcare_trace.json", "", trace, "2026-06-01T10:00:00Z", &|_| {});
    let state = Rc::new(State::default()).reduce(Action::Queued(vec![Queued {
        id: 1,
        name: "healthcare_trace.json".into(),
        folder: String::new(),
    }]));
    let state = state.reduce(Action::Finished { id: 1, result });
    let reviewed = state.reviews.get(&1).expect("the result's reviewed numbers are kept");
    assert_eq!((reviewed.risk_index, reviewed.blocked), (0.3333, false));
    assert_eq!(review_status(Some(reviewed)), "2 of 4 decided");
    assert_eq!(review_status(None), "not reviewed");
    let (rows, _) = state.batch_rows();
    assert_eq!(rows[0].facts.reviewed.as_ref().map(|r| r.privacy_score), Some(67));

    // The worker's answer to a sign-off: the review and numbers it sends.
    review
        .add_sign_off(SignOff {
            run_id: "run_healthcare_001".into(),
            status: SignOffStatus::Approved,
            reviewer: "Dana".into(),
            note: String::new(),
            at: "2026-06-01".into(),
        })
        .unwrap();
    let files = ws.set_review(Some(review.clone()), date("2030-01-01"));
    let state =
        state.reduce(Action::ReviewProblem(Some("a false_positive decision changes the numbers: say why".into())));
    let state = state.reduce(Action::Reviewed {
        review: Some(review.clone()),
        today: Some(date("2030-01-01")),
        files,
        unmatched: Vec::new(),
    });
    assert_eq!(
        (&*state.review, state.review_date, state.review_problem.clone()),
        (&review, Some(date("2030-01-01")), None)
    );
    let reviewed = &state.reviews[&1];
    assert_eq!(review_status(Some(reviewed)), "approved");
    // On the day the acceptance ends it blocks again, and is named.
    assert!(reviewed.blocked && reviewed.expired.len() == 1);
    // News of unmatched decisions only changes nothing else.
    let unmatched: Vec<String> = review.unmatched(&[]).iter().map(|u| u.describe()).collect();
    let state = state.reduce(Action::Reviewed { review: None, today: None, files: Vec::new(), unmatched });
    assert_eq!((state.unmatched.len(), state.reviews.len(), &*state.review), (2, 1, &review));
    // A file whose list is empty (no review) loses its numbers; so does a removed file.
    let none = ws.set_review(None, today);
    let again =
        state.clone().reduce(Action::Reviewed { review: None, today: None, files: none, unmatched: Vec::new() });
    assert!(again.reviews.is_empty());
    let state = state.reduce(Action::SetReviewer("Dana".into())).reduce(Action::Remove(1));
    assert!(state.reviews.is_empty() && state.reviewer == "Dana");
}

const TWO_SESSIONS: &[u8] = include_bytes!("fixtures/spans/lc_two_sessions.otlp.json");

fn spans(mapping: agentrisk::model::SpanMapping) -> FileResult {
    Analyser::new().with_generated_at("2026-12-02T12:00:00.000Z").with_span_mapping(mapping).analyse_file(
        TWO_SESSIONS,
        "two.otlp.json",
        "",
        &|_| {},
    )
}

/// A span export with two conversations is two rows of one file: each row
/// has its own id (selection, batch, compare), both name the worker's file;
/// a new result of the file replaces its rows where they are, keeping their
/// ids in order; removing either row removes the file.
#[test]
fn a_span_export_is_a_row_per_run_of_one_file() {
    use agentrisk::model::SpanMapping;
    let queued = |id: u32, name: &str| Queued { id, name: name.into(), folder: String::new() };
    let state = Rc::new(State::default()).reduce(Action::Queued(vec![queued(1, "two.otlp.json"), queued(2, "b.json")]));
    let progress = Progress { phase: Phase::Detecting, bytes: 6_000_000, percent: Some(10), mb_per_s: None };
    let state = state.reduce(Action::Progressed { id: 1, progress });
    assert_eq!(state.files[0].status, FileStatus::Working(Some(progress)));

    let state = state.reduce(Action::Finished { id: 1, result: spans(SpanMapping::Structural) });
    let rows = |state: &State| state.files.iter().map(|f| (f.id, f.file)).collect::<Vec<_>>();
    assert_eq!(rows(&state), [(1, 1), (3, 1), (2, 2)], "the runs' rows stay where the file was");
    let run_ids: Vec<String> = state
        .files
        .iter()
        .filter_map(|f| match &f.status {
            FileStatus::Loaded(run) => Some(run.report().run_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(run_ids.len(), 2);
    assert!(run_ids.iter().all(|id| id.starts_with("two.otlp#")), "{run_ids:?}");
    assert_eq!(state.files[1].label(), format!("two.otlp.json · {}", run_ids[1]));
    let source = state.files[1].span_source().expect("a span run");
    assert_eq!((source.format.label(), source.mapping), ("OTLP JSON", SpanMapping::Structural));
    let (batch, _) = state.batch_rows();
    assert_eq!(batch.iter().map(|r| r.row).collect::<Vec<_>>(), [Some(1), Some(3)]);
    assert!(batch
        .iter()
        .all(|r| r.facts.file == "two.otlp.json" && r.facts.span_mapping == Some(SpanMapping::Structural)));

    // The second run selected: analysed again (new settings), it stays selected.
    let state = state.reduce(Action::Select(3));
    assert_eq!((state.selected_place(), state.selected_run().map(|(f, _)| f.id)), (1, Some(3)));
    let state = state.reduce(Action::Finished { id: 1, result: spans(SpanMapping::Structural) });
    assert_eq!((rows(&state), state.selected), (vec![(1, 1), (3, 1), (2, 2)], Some(3)));
    // The reference mapping makes the file one run: the second row goes, and its selection.
    let state = state.reduce(Action::SpanMappingInForce(SpanMapping::Reference));
    assert_eq!(state.span_mapping, SpanMapping::Reference);
    let state = state.reduce(Action::Finished { id: 1, result: spans(SpanMapping::Reference) });
    assert_eq!((rows(&state), state.selected), (vec![(1, 1), (2, 2)], None));
    assert_eq!(state.files[0].label(), "two.otlp.json", "one run: the file's name");
    // Back to two runs: the new run gets a new id, never a used one.
    let state = state.reduce(Action::Finished { id: 1, result: spans(SpanMapping::Structural) });
    assert_eq!(rows(&state), [(1, 1), (4, 1), (2, 2)]);

    // A crash on the file leaves one error row; removing any row of a file removes all its rows.
    let crashed =
        state.clone().reduce(Action::WorkerFailed { message: "the analysis worker stopped".into(), failed: vec![1] });
    assert_eq!(rows(&crashed), [(1, 1), (2, 2)]);
    assert_eq!(crashed.files[0].status, FileStatus::Failed("the analysis worker stopped".into()));
    let state = state.reduce(Action::Select(1)).reduce(Action::Remove(4));
    assert_eq!((rows(&state), state.selected), (vec![(2, 2)], None));
    // A result for a file removed meanwhile adds nothing.
    let state = state.reduce(Action::Finished { id: 1, result: spans(SpanMapping::Structural) });
    assert_eq!(rows(&state), [(2, 2)]);
}

/// A link names a span export's later run by the file and its place (never
/// by the conversation id, which is read from the file): it is selected
/// once the file loads.
#[test]
fn a_link_selects_a_span_exports_run_by_its_place() {
    use agentrisk::model::SpanMapping;
    use agentrisk_viewer::hash::from_hash;
    let state = Rc::new(State::default()).reduce(Action::RestoreView(Box::new(from_hash("#run=two.otlp.json&nth=2"))));
    assert_eq!(state.pending_run, Some(("two.otlp.json".to_owned(), 1)));
    let state =
        state.reduce(Action::Queued(vec![Queued { id: 7, name: "two.otlp.json".into(), folder: String::new() }]));
    let state = state.reduce(Action::Finished { id: 7, result: spans(SpanMapping::Structural) });
    let (entry, run) = state.selected_run().expect("the linked run is selected");
    assert_eq!((entry.id, entry.file, state.selected_place(), state.pending_run.clone()), (2, 7, 1, None));
    assert_eq!(Some(run.report().run_id.as_str()), entry.label().split(" · ").nth(1));
}

/// "Export as AgentLeak trace": a failure is shown in the run view until
/// the next export or another run is picked.
#[test]
fn an_export_problem_shows_until_the_next_export_or_run() {
    let state = Rc::new(State::default()).reduce(Action::TraceExported(Some("two.otlp.json: gone".into())));
    assert_eq!(state.export_problem.as_deref(), Some("two.otlp.json: gone"));
    assert_eq!(state.clone().reduce(Action::TraceExported(None)).export_problem, None);
    assert_eq!(state.reduce(Action::Select(1)).export_problem, None);
}

/// Loaded batches, as `agentrisk diff` and `history` take inputs: a
/// scorecard opened on its own, and folders (the opened ones for the Trend
/// view, every one for Compare), each folder's runs in the CLI's order.
#[test]
fn scorecards_and_folders_are_batches_with_their_runs_in_the_clis_order() {
    use agentrisk::batch::{RunFacts, Scorecard};
    use agentrisk::stats::IntervalMethod;
    use agentrisk_viewer::state::Folders;
    let report = |name: &str| -> RunFacts {
        match analyze(HEALTHCARE) {
            FileResult::Report(loaded) => RunFacts { file: name.to_owned(), ..loaded.facts },
            other => panic!("{other:?}"),
        }
    };
    let card = Scorecard::new(vec![report("x.json")], Vec::new(), IntervalMethod::default(), None)
        .with_generated_at("2026-12-01T09:00:00+00:00")
        .to_json();
    let open = |id: u32, name: &str, folder: &str, bytes: &[u8]| {
        let queued = Action::Queued(vec![Queued { id, name: name.into(), folder: folder.into() }]);
        let result = Analyser::new().analyse_file(bytes, name, folder, &|_| {});
        move |state: Rc<State>| state.reduce(queued).reduce(Action::Finished { id, result })
    };
    let mut state = Rc::new(State::default());
    for step in [
        open(1, "week1/b.json", "week1", HEALTHCARE),
        open(2, "week1/sub/a.json", "week1/sub", HEALTHCARE),
        open(3, "week1/a-b.json", "week1", HEALTHCARE),
        open(4, "card.json", "", card.as_bytes()),
        open(5, "week2/card.json", "week2", card.as_bytes()),
        open(6, "loose.json", "", HEALTHCARE),
    ] {
        state = step(state);
    }
    let opened = state.loaded_batches(Folders::Opened);
    let keys: Vec<(&str, &str, bool)> = opened.iter().map(|b| (b.key.as_str(), b.name.as_str(), b.scorecard)).collect();
    assert_eq!(
        keys,
        [("file:4", "card.json", true), ("folder:week1", "week1", false), ("folder:week2", "week2", false)]
    );
    // A folder's runs come in the order the CLI walks it: sorted part by
    // part of the path, as `agentrisk diff` and `history` read a folder.
    let files: Vec<&str> = opened[1].rows.iter().map(|r| r.facts.file.as_str()).collect();
    assert_eq!(files, ["week1/a-b.json", "week1/b.json", "week1/sub/a.json"]);
    assert_eq!(opened[1].rows[0].row, Some(3));
    // A scorecard, or a folder holding one scorecard and nothing else, has its generated_at.
    assert_eq!(opened[0].generated_at.as_deref(), Some("2026-12-01T09:00:00+00:00"));
    assert_eq!(opened[2].generated_at.as_deref(), Some("2026-12-01T09:00:00+00:00"));
    assert_eq!(opened[1].generated_at, None);
    let every: Vec<String> = state.loaded_batches(Folders::Every).iter().map(|b| b.key.clone()).collect();
    assert_eq!(every, ["file:4", "folder:week1", "folder:week1/sub", "folder:week2"]);

    // The Trend view opens a batch in the Batch tab; "show every run" goes back.
    let state = state.reduce(Action::OpenBatch(Some("folder:week1".into())));
    assert_eq!((state.tab, state.batch_scope.as_deref()), (agentrisk_viewer::state::Tab::Batch, Some("folder:week1")));
    let state = state.reduce(Action::OpenBatch(None));
    assert_eq!(state.batch_scope, None);
}

/// Under a review, each run of a span export has its own reviewed numbers,
/// beside its own row.
#[test]
fn each_run_of_a_span_export_is_reviewed_beside_its_row() {
    use agentrisk::review::{Date, Review};
    use agentrisk::workspace::Workspace;
    let mut ws = Workspace::new();
    let _ = ws.set_review(Some(Review::default()), Date::parse("2026-06-01").unwrap());
    let result = ws.open(1, "two.otlp.json", "", TWO_SESSIONS.to_vec(), "2026-06-01T10:00:00Z", &|_| {});
    let state = Rc::new(State::default())
        .reduce(Action::Queued(vec![Queued { id: 1, name: "two.otlp.json".into(), folder: String::new() }]))
        .reduce(Action::Finished { id: 1, result });
    let rows: Vec<u32> = state.files.iter().map(|f| f.id).collect();
    assert_eq!(rows.len(), 2);
    let run_ids: Vec<&str> = rows.iter().filter_map(|r| state.reviews.get(r)).map(|r| r.run_id.as_str()).collect();
    let shown: Vec<String> = state
        .files
        .iter()
        .filter_map(|f| match &f.status {
            FileStatus::Loaded(run) => Some(run.report().run_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(run_ids, shown.iter().map(String::as_str).collect::<Vec<_>>());
    // The worker's answer for the file reaches both rows; removing one row removes the file's.
    let files = ws.set_review(Some(Review::default()), Date::parse("2030-01-01").unwrap());
    let state = state.reduce(Action::Reviewed { review: None, today: None, files, unmatched: Vec::new() });
    assert!(rows.iter().all(|r| state.reviews.get(r).is_some_and(|review| review.today.to_string() == "2030-01-01")));
    let state = state.reduce(Action::Remove(rows[1]));
    assert!(state.reviews.is_empty());
}

/// The worker's actions gathered into one (`Action::Many`) leave the state
/// exactly as each applied in turn, order included.
#[test]
fn many_actions_at_once_are_each_applied_in_turn() {
    let queued = |id: u32, name: &str| Queued { id, name: name.into(), folder: String::new() };
    let progress = Progress { phase: Phase::Parsing, bytes: 6_000_000, percent: Some(3), mb_per_s: None };
    let actions = || {
        vec![
            Action::Queued(vec![queued(1, "a.json"), queued(2, "b.json"), queued(3, "c.json")]),
            Action::Finished { id: 2, result: analyze(HEALTHCARE) },
            Action::Progressed { id: 3, progress },
            Action::Finished { id: 1, result: FileResult::Error { message: "a.json: not JSON".into() } },
            Action::Remove(3),
            Action::Select(2),
        ]
    };
    let in_turn = actions().into_iter().fold(Rc::new(State::default()), |state, action| state.reduce(action));
    let at_once = Rc::new(State::default()).reduce(Action::Many(actions()));
    // A loaded run compares by its `Rc`, made anew by each reducer: compared
    // by what it holds.
    assert_eq!(format!("{at_once:?}"), format!("{in_turn:?}"));
    assert_eq!(at_once.files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["a.json", "b.json"]);
    assert!(matches!(at_once.files[0].status, FileStatus::Failed(_)));
    assert_eq!(at_once.selected_run().map(|(f, _)| f.name.as_str()), Some("b.json"));
}
