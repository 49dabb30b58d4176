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
