//! AgentRisk properties over generated *traces*, end to end: parse →
//! analyse → score → report, and many such reports → a batch summary.
//!
//! The scoring-level properties (boundedness, monotonicity, severity
//! sensitivity, scale invariance, rank robustness over level profiles) live
//! in `src/score/tests.rs`; these check that the whole pipeline keeps them
//! for traces built from realistic pieces: events on the spec's channels
//! (1.3) whose texts hold emails, SSNs, credit cards, API keys, diagnoses
//! and plain chatter, as strings, objects under sensitive keys or arrays;
//! optional run metadata (scenario, task success, a red-team attack class);
//! and an optional explicit vault and channel allow-list from the config
//! (spec 4.1, 4.4 — a trace itself carries neither).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{Analyser, BatchInput, BatchRuns, Keep, Named, NamedConfig};
use agentrisk::batch::{GroupBy, Scorecard};
use agentrisk::config::{config_from_yaml, AnalysisConfig};
use agentrisk::detect::luhn;
use agentrisk::model::Report;
use agentrisk::report::report_what_if;
use agentrisk::review::{Date, Decision, DecisionKind, Review, RunSecrets};
use agentrisk::stats::IntervalMethod;
use agentrisk::{rescore_report, Channel, Verdict};
use proptest::prelude::*;
use serde_json::{json, Value};

// ---------------------------------------------------------------- pieces

const GIVEN: [&str; 6] = ["ana", "bob", "chen", "dara", "eli", "femi"];
const DIAGNOSES: [&str; 6] = ["type 2 diabetes", "asthma", "hypertension", "Diabetes", "depression", "HIV"];
const CHATTER: [&str; 6] = [
    "Thanks, I will look into it",
    "The weather is nice today",
    "Let me check the order status",
    "Meeting moved to Tuesday",
    "ok",
    "",
];
const KEYS: [&str; 6] = ["note", "email", "ssn", "card", "api_key", "diagnosis"];
const AGENTS: [&str; 3] = ["support-bot", "hr-agent", ""];
const FOLDERS: [&str; 2] = ["runs/a", "runs/b"];

/// One piece of an event's text.
#[derive(Debug, Clone)]
enum Piece {
    /// `<given><n>@example.org`.
    Email(usize, u8),
    /// `2dd-dd-dddd`.
    Ssn(u16, u16),
    /// A Luhn-valid 16-digit Visa number, written in groups of four.
    Card(u32),
    /// `sk-proj-…` with 24 characters after the prefix.
    ApiKey(u64),
    Diagnosis(usize),
    Chatter(usize),
}

impl Piece {
    fn text(&self) -> String {
        match self {
            Piece::Email(given, n) => format!("{}{n}@example.org", GIVEN[*given]),
            Piece::Ssn(a, b) => format!("2{:02}-{:02}-{:04}", a % 100, (b % 98) + 1, 1000 + b),
            Piece::Card(n) => {
                let body = format!("411111{:09}", n % 1_000_000_000);
                let digits = format!("{body}{}", luhn::check_digit(&body));
                let groups: Vec<&str> = (0..4).map(|i| &digits[i * 4..i * 4 + 4]).collect();
                groups.join(" ")
            }
            Piece::ApiKey(n) => format!("sk-proj-{n:016x}abcdefgh"),
            Piece::Diagnosis(i) => DIAGNOSES[*i].to_owned(),
            Piece::Chatter(i) => CHATTER[*i].to_owned(),
        }
    }
}

fn piece() -> impl Strategy<Value = Piece> {
    prop_oneof![
        (0..GIVEN.len(), 0u8..4).prop_map(|(g, n)| Piece::Email(g, n)),
        (0u16..100, 0u16..40).prop_map(|(a, b)| Piece::Ssn(a, b)),
        (0u32..50).prop_map(Piece::Card),
        (0u64..50).prop_map(Piece::ApiKey),
        (0..DIAGNOSES.len()).prop_map(Piece::Diagnosis),
        (0..CHATTER.len()).prop_map(Piece::Chatter),
    ]
}

/// How an event's content is written (spec 1.4 flattens all three).
#[derive(Debug, Clone, Copy)]
enum Shape {
    Text,
    /// One key per piece, from [`KEYS`].
    Object,
    Array,
}

#[derive(Debug, Clone)]
struct GenEvent {
    channel: Channel,
    source: usize,
    target: usize,
    shape: Shape,
    pieces: Vec<Piece>,
}

const NODES: [&str; 4] = ["agent", "user", "crm", "stdout"];

fn event() -> impl Strategy<Value = GenEvent> {
    (
        prop::sample::select(Channel::ALL.to_vec()),
        0..NODES.len(),
        0..NODES.len(),
        prop_oneof![Just(Shape::Text), Just(Shape::Object), Just(Shape::Array)],
        prop::collection::vec(piece(), 0..4),
    )
        .prop_map(|(channel, source, target, shape, pieces)| GenEvent { channel, source, target, shape, pieces })
}

/// A trace to generate: its top-level fields and events.
#[derive(Debug, Clone)]
struct GenTrace {
    run: u8,
    agent: usize,
    scenario: Option<u8>,
    task_success: Option<bool>,
    /// A red-team attack class in the top-level metadata (docs/batch.md).
    attack_class: Option<&'static str>,
    events: Vec<GenEvent>,
}

fn trace() -> impl Strategy<Value = GenTrace> {
    (
        any::<u8>(),
        0..AGENTS.len(),
        proptest::option::of(0u8..4),
        proptest::option::of(any::<bool>()),
        proptest::option::of(prop::sample::select(vec!["F1.1", "F2.10", "F3.2"])),
        prop::collection::vec(event(), 0..8),
    )
        .prop_map(|(run, agent, scenario, task_success, attack_class, events)| GenTrace {
            run,
            agent,
            scenario,
            task_success,
            attack_class,
            events,
        })
}

fn event_json(e: &GenEvent) -> Value {
    let texts: Vec<String> = e.pieces.iter().map(Piece::text).collect();
    let content = match e.shape {
        // Pieces joined by ", ": a sentence-final "." would be part of an email (spec 2.3).
        Shape::Text => Value::String(texts.join(", ")),
        Shape::Object => {
            let mut map = serde_json::Map::new();
            for (i, text) in texts.into_iter().enumerate() {
                map.insert(format!("{}_{i}", KEYS[i % KEYS.len()]), Value::String(text));
            }
            Value::Object(map)
        }
        Shape::Array => Value::Array(texts.into_iter().map(Value::String).collect()),
    };
    json!({
        "channel": e.channel.as_str(),
        "source": NODES[e.source],
        "target": NODES[e.target],
        "content": content,
    })
}

impl GenTrace {
    fn to_json(&self) -> Vec<u8> {
        let mut doc = json!({
            "run_id": format!("run-{}", self.run),
            "agent_name": AGENTS[self.agent],
            "events": self.events.iter().map(event_json).collect::<Vec<_>>(),
        });
        if let Some(s) = self.scenario {
            doc["scenario_id"] = json!(format!("{}_{s:03}", ["healthcare", "hr"][usize::from(s % 2)]));
        }
        if let Some(t) = self.task_success {
            doc["task_success"] = json!(t);
        }
        if let Some(class) = self.attack_class {
            doc["metadata"] = json!({"attack_class_id": class, "vertical": "healthcare"});
        }
        serde_json::to_vec(&doc).unwrap()
    }
}

// ---------------------------------------------------------------- configs

/// What the config adds: an explicit vault (counts per level, big enough
/// for any generated trace) and a channel allow-list.
#[derive(Debug, Clone)]
struct GenConfig {
    vault: Option<[u16; 4]>,
    channels: Option<Vec<Channel>>,
}

fn gen_config() -> impl Strategy<Value = GenConfig> {
    (
        proptest::option::of(prop::array::uniform4(100u16..200)),
        proptest::option::of(prop::sample::subsequence(Channel::ALL.to_vec(), 1..=Channel::ALL.len())),
    )
        .prop_map(|(vault, channels)| GenConfig { vault, channels })
}

impl GenConfig {
    /// With neither, no config file at all (the reference defaults).
    fn to_config(&self) -> AnalysisConfig {
        if self.vault.is_none() && self.channels.is_none() {
            return AnalysisConfig::default();
        }
        let mut yaml = String::from("detectors: {pii: true, secrets: true, healthcare: true, finance: true}\n");
        if let Some([a, b, c, d]) = self.vault {
            yaml.push_str(&format!("vault:\n  levels: {{1: {a}, 2: {b}, 3: {c}, 4: {d}}}\n"));
        }
        if let Some(channels) = &self.channels {
            let names: Vec<&str> = channels.iter().map(|c| c.as_str()).collect();
            yaml.push_str(&format!("channels: [{}]\n", names.join(", ")));
        }
        config_from_yaml(&yaml).unwrap()
    }
}

// ---------------------------------------------------------------- helpers

fn analyze_at(bytes: &[u8], config: &AnalysisConfig, generated_at: &str) -> Report {
    Analyser::new()
        .with_config(Some(NamedConfig { name: "agentleak.yaml".to_owned(), config: config.clone() }))
        .with_generated_at(generated_at)
        .trace_report(Named { name: "trace.json", bytes })
        .unwrap()
}

fn analyze(bytes: &[u8], config: &AnalysisConfig) -> Report {
    analyze_at(bytes, config, "2026-01-01T00:00:00Z")
}

/// The report's JSON with the clock masked: `generated_at` and the
/// compliance digest, which hashes it (spec 3.11).
fn masked_json(report: &Report) -> String {
    let mut report = report.clone();
    report.generated_at = String::new();
    if let Some(compliance) = report.compliance.as_mut() {
        compliance.integrity.digest = String::new();
    }
    serde_json::to_string(&report).unwrap()
}

/// The batch summary of `files` (name, folder, bytes), as `agentrisk batch`
/// reads them, grouped by agent.
fn batch_json(files: &[(String, &str, Vec<u8>)]) -> (String, String) {
    let analyser = Analyser::new();
    let mut batch = BatchRuns::default();
    for (name, folder, bytes) in files {
        batch.read(&analyser, BatchInput { name, folder, bytes });
    }
    assert!(batch.errors.is_empty(), "{:?}", batch.errors);
    let method = IntervalMethod::new(0.9, true).unwrap();
    let summary = batch.summary(method, Some(GroupBy::Agent));
    let scorecard: Scorecard = batch.into_scorecard(method, Some(GroupBy::Folder));
    (normalized(serde_json::to_value(&summary).unwrap()), normalized(serde_json::to_value(&scorecard.summary).unwrap()))
}

/// `value` with the red-team lists sorted: the reference lists attack
/// classes, families and channels in order of first appearance before its
/// stable sort by rate (spec 5.2), and ELR per run in input order, so only
/// their order may follow the files' order — never a number.
fn normalized(mut value: Value) -> String {
    if let Some(redteam) = value.get_mut("redteam").and_then(Value::as_object_mut) {
        for list in redteam.values_mut().filter_map(Value::as_array_mut) {
            list.sort_by_key(|item| item.to_string());
        }
    }
    value.to_string()
}

/// WSL / ρ_S as the exact fraction the report stores, for comparisons
/// without rounding: (wsl, rho_s), with RI 0 when ρ_S is 0.
fn ri_fraction(report: &Report) -> (i64, i64) {
    if report.rho_s > 0 {
        (report.wsl, report.rho_s)
    } else {
        (0, 1)
    }
}

fn cases(n: u32) -> ProptestConfig {
    ProptestConfig { cases: n, ..ProptestConfig::default() }
}

// ---------------------------------------------------------------- properties

proptest! {
    #![proptest_config(cases(128))]

    /// Analysing the same trace twice gives byte-identical reports, and a
    /// different clock changes nothing but `generated_at` and what hashes it.
    #[test]
    fn analyzing_a_trace_twice_gives_the_same_report(trace in trace(), setup in gen_config()) {
        let config = setup.to_config();
        let bytes = trace.to_json();
        let first = serde_json::to_string(&analyze(&bytes, &config)).unwrap();
        let second = serde_json::to_string(&analyze(&bytes, &config)).unwrap();
        prop_assert_eq!(&first, &second);
        let later = analyze_at(&bytes, &config, "2027-06-30T12:34:56Z");
        prop_assert_eq!(masked_json(&analyze(&bytes, &config)), masked_json(&later));
        prop_assert_eq!(later.generated_at, "2027-06-30T12:34:56Z");
    }

    /// RI stays in [0, 1], the privacy score in [0, 100], the verdict is
    /// the score's band, and the report re-scores as consistent.
    #[test]
    fn headline_numbers_stay_in_range(trace in trace(), setup in gen_config()) {
        let config = setup.to_config();
        let report = analyze(&trace.to_json(), &config);
        prop_assert!((0.0..=1.0).contains(&report.risk_index), "RI {}", report.risk_index);
        prop_assert!((0..=100).contains(&report.privacy_score), "score {}", report.privacy_score);
        prop_assert!(report.wsl >= 0 && report.wsl <= report.rho_s.max(0));
        let expected = match report.privacy_score {
            90.. => Verdict::Pass,
            70..=89 => Verdict::ConditionalPass,
            40..=69 => Verdict::HighRisk,
            _ => Verdict::Fail,
        };
        prop_assert_eq!(report.verdict.as_str(), expected.as_str());
        // The unrounded RI is WSL / ρ_S: the stored, rounded one is within half a unit of the 4th decimal.
        let (wsl, rho_s) = ri_fraction(&report);
        prop_assert!((report.risk_index - wsl as f64 / rho_s as f64).abs() <= 0.00005 + 1e-12);
        let rescore = rescore_report(&report, &config.scoring);
        prop_assert!(rescore.consistent, "{:?}", rescore.mismatches);
    }

    /// An event that leaks one more distinct secret never lowers RI: with
    /// the observed vault (ρ_S grows with it: (W + w) / (ρ + w) ≥ W / ρ as
    /// W ≤ ρ) and with an explicit vault big enough (ρ_S fixed).
    ///
    /// The new secret is an email on a domain no generated email uses, so
    /// it cannot coalesce with another value (spec 2.7: values that contain
    /// one another become one secret).
    #[test]
    fn leaking_one_more_secret_never_lowers_ri(
        trace in trace(),
        channel in prop::sample::select(Channel::ALL.iter().copied().filter(|c| c.is_disclosure()).collect::<Vec<_>>()),
        at in any::<prop::sample::Index>(),
        explicit_vault in any::<bool>(),
    ) {
        let setup = GenConfig { vault: explicit_vault.then_some([150; 4]), channels: None };
        let config = setup.to_config();
        let before = analyze(&trace.to_json(), &config);

        let leak = json!({"channel": channel.as_str(), "source": "agent", "target": "crm",
                          "content": "forwarding zq.fresh@leak-check.test as asked"});
        let mut doc: Value = serde_json::from_slice(&trace.to_json()).unwrap();
        let events = doc["events"].as_array_mut().unwrap();
        events.insert(at.index(events.len() + 1), leak);
        let after = analyze(&serde_json::to_vec(&doc).unwrap(), &config);

        prop_assert!(after.summary.leaked_secrets > before.summary.leaked_secrets,
            "{} leaked before, {} after", before.summary.leaked_secrets, after.summary.leaked_secrets);
        prop_assert!(after.wsl > before.wsl);
        let ((w0, r0), (w1, r1)) = (ri_fraction(&before), ri_fraction(&after));
        prop_assert!(w1 * r0 >= w0 * r1, "RI fell from {w0}/{r0} to {w1}/{r1}");
        prop_assert!(after.risk_index >= before.risk_index);
        prop_assert!(after.privacy_score <= before.privacy_score);
        if explicit_vault {
            prop_assert_eq!(after.rho_s, before.rho_s);
        }
    }
}

/// Scoring settings only: weights, an optional explicit vault (big enough
/// for any generated trace) and the gate, with every detector on, so that
/// detection is that of no config file.
fn scoring_yaml() -> impl Strategy<Value = String> {
    (prop::array::uniform4(1u32..=50), proptest::option::of(prop::array::uniform4(200u16..300)), 0i64..=100, any::<bool>())
        .prop_map(|([a, b, c, d], vault, fail_below, block_on_critical)| {
            let mut yaml = String::from(
                "detectors: {pii: true, secrets: true, healthcare: true, finance: true, hr: true, keyname: true}\n",
            );
            yaml.push_str(&format!(
                "scoring:\n  weights: [{a}, {b}, {c}, {d}]\n  fail_below: {fail_below}\n  block_on_critical: {block_on_critical}\n"
            ));
            if let Some([l1, l2, l3, l4]) = vault {
                yaml.push_str(&format!("vault:\n  levels: {{1: {l1}, 2: {l2}, 3: {l3}, 4: {l4}}}\n"));
            }
            yaml
        })
}

/// The parts of a report that scoring decides.
const SCORED: [&str; 11] = [
    "wsl",
    "rho_s",
    "risk_index",
    "privacy_score",
    "verdict",
    "blocked",
    "scope_def",
    "summary",
    "channel_risks",
    "agentrisk",
    "compliance",
];

fn scored(report: &Report) -> Value {
    let v = serde_json::to_value(report).unwrap();
    Value::Object(SCORED.iter().map(|&key| (key.to_owned(), v[key].clone())).collect())
}

proptest! {
    #![proptest_config(cases(128))]

    /// A report re-scored with scoring settings equals the report its trace
    /// gets when analysed with them. When redaction merges two secrets the
    /// per-channel risk cannot follow new weights: then a note says so and
    /// the headline numbers still agree.
    #[test]
    fn re_scoring_a_report_equals_analyzing_its_trace_again(trace in trace(), yaml in scoring_yaml()) {
        let bytes = trace.to_json();
        let config = config_from_yaml(&yaml).unwrap();
        let stored = analyze(&bytes, &AnalysisConfig::default());
        let direct = analyze(&bytes, &config);
        let what_if = report_what_if(&stored, &config).unwrap();
        if what_if.notes.is_empty() {
            prop_assert_eq!(scored(&what_if.report), scored(&direct));
        } else {
            prop_assert_eq!(what_if.notes.len(), 1);
            prop_assert!(what_if.notes[0].starts_with("Per-channel risk keeps its stored values"));
            let headline = |r: &Report| (r.wsl, r.rho_s, r.risk_index, r.privacy_score, r.blocked);
            prop_assert_eq!(headline(&what_if.report), headline(&direct));
        }
        prop_assert_eq!(what_if.report.blocked, !what_if.block_reasons.is_empty());
    }
}

proptest! {
    #![proptest_config(cases(32))]

    /// Shuffling the files of a batch — traces and the reports built from
    /// some of them, in two folders — changes no number of the summary,
    /// its groups or the scorecard's summary.
    #[test]
    fn shuffling_a_batch_changes_no_number(
        traces in prop::collection::vec((trace(), any::<bool>(), 0..FOLDERS.len()), 1..7),
        order in any::<u64>(),
    ) {
        let config = AnalysisConfig::default();
        let files: Vec<(String, &str, Vec<u8>)> = traces
            .iter()
            .enumerate()
            .map(|(i, (trace, as_report, folder))| {
                let bytes = trace.to_json();
                let bytes = if *as_report { serde_json::to_vec(&analyze(&bytes, &config)).unwrap() } else { bytes };
                (format!("{}/file{i}.json", FOLDERS[*folder]), FOLDERS[*folder], bytes)
            })
            .collect();
        let mut shuffled = files.clone();
        // A Fisher–Yates shuffle driven by `order` (proptest shrinks it towards no change).
        let mut state = order;
        for i in (1..shuffled.len()).rev() {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (state >> 33) as usize % (i + 1));
        }
        let (summary, scorecard) = batch_json(&files);
        let (summary_shuffled, scorecard_shuffled) = batch_json(&shuffled);
        prop_assert_eq!(summary, summary_shuffled);
        prop_assert_eq!(scorecard, scorecard_shuffled);
    }
}

/// The generators make what they claim: every piece kind is found by the
/// detectors, so the properties above are about traces with real secrets.
#[test]
fn every_piece_is_detected_as_its_data_type() {
    let pieces = [
        (Piece::Email(0, 1), "email"),
        (Piece::Ssn(12, 7), "ssn"),
        (Piece::Card(42), "credit_card"),
        (Piece::ApiKey(7), "llm_api_key"),
        (Piece::Diagnosis(0), "health_condition"),
    ];
    for (piece, data_type) in pieces {
        let trace = GenTrace {
            run: 1,
            agent: 0,
            scenario: None,
            task_success: None,
            attack_class: None,
            events: vec![GenEvent {
                channel: Channel::FinalOutput,
                source: 0,
                target: 1,
                shape: Shape::Text,
                pieces: vec![piece.clone(), Piece::Chatter(0)],
            }],
        };
        let report = analyze(&trace.to_json(), &AnalysisConfig::default());
        let types: Vec<&str> = report.findings.iter().map(|f| &*f.data_type).collect();
        assert!(types.contains(&data_type), "{} gave {types:?}", piece.text());
        assert_eq!(report.summary.leaked_secrets, 1, "{} gave {types:?}", piece.text());
    }
    let chatter = GenTrace {
        run: 1,
        agent: 0,
        scenario: None,
        task_success: None,
        attack_class: None,
        events: (0..CHATTER.len())
            .map(|i| GenEvent {
                channel: Channel::Log,
                source: 0,
                target: 3,
                shape: Shape::Text,
                pieces: vec![Piece::Chatter(i)],
            })
            .collect(),
    };
    let report = analyze(&chatter.to_json(), &AnalysisConfig::default());
    assert_eq!((report.risk_index, report.privacy_score, report.verdict.as_str()), (0.0, 100, "Pass"));
}

// ---------------------------------------------------------------- reviews

/// The analyser of `config`, with `review` judged at a fixed date.
fn reviewing(config: &AnalysisConfig, review: Review) -> Analyser {
    Analyser::new()
        .with_config(Some(NamedConfig { name: "agentleak.yaml".to_owned(), config: config.clone() }))
        .with_generated_at("2026-01-01T00:00:00Z")
        .with_review(Some(review), Date::parse("2026-06-01").unwrap())
}

/// Decisions of one kind for the secret groups `pick` selects (bit i:
/// group i), on every channel.
fn decide(secrets: &RunSecrets, pick: u64, kind: Option<DecisionKind>) -> Review {
    let decisions = secrets
        .groups
        .iter()
        .enumerate()
        .filter(|(i, _)| pick >> (i % 64) & 1 == 1)
        .map(|(_, g)| Decision {
            decision: kind,
            rationale: "property".to_owned(),
            reviewer: "proptest".to_owned(),
            decided_at: Date::parse("2026-01-02").ok(),
            ..Decision::undecided(&secrets.run_id, &g.data_type, &g.value)
        })
        .collect();
    Review { decisions, runs: Vec::new() }
}

proptest! {
    #![proptest_config(cases(128))]

    /// With no decision that changes anything — none at all, or every
    /// secret confirmed or left undecided — the reviewed numbers are the
    /// detected ones, gate reasons included, for a trace and for its
    /// stored report alike.
    #[test]
    fn with_no_decisions_the_reviewed_numbers_are_the_detected_ones(
        trace in trace(),
        setup in gen_config(),
        pick in any::<u64>(),
        confirmed in any::<bool>(),
    ) {
        let config = setup.to_config();
        let bytes = trace.to_json();
        let plain = reviewing(&config, Review::default());
        let analysis = plain.analyse_trace("trace.json", bytes.as_slice().into(), None, Keep::ReportOnly).unwrap();
        let report = &analysis.report;
        let secrets = plain.trace_secrets(report);
        let kind = confirmed.then_some(DecisionKind::Confirmed);
        for review in [Review::default(), decide(&secrets, pick, kind)] {
            let reviewed = secrets.review(&review, Date::parse("2026-06-01").unwrap());
            prop_assert_eq!(
                (reviewed.risk_index, i64::from(reviewed.privacy_score), reviewed.verdict.as_str(), reviewed.blocked),
                (report.risk_index, report.privacy_score, report.verdict.as_str(), report.blocked)
            );
            prop_assert_eq!(&reviewed.block_reasons, &analysis.block_reasons);
            prop_assert_eq!(reviewed.leaked_secrets, report.summary.leaked_secrets);
            prop_assert!(reviewed.false_positives.is_empty() && reviewed.accepted.is_empty());
            // The stored report, re-scored as `agentrisk score` does, gives the same.
            let stored = reviewing(&config, review.clone())
                .score_report(Named { name: "report.json", bytes: &serde_json::to_vec(report).unwrap() })
                .unwrap();
            prop_assert_eq!(stored.record.reviewed.as_ref(), Some(&reviewed));
        }
    }

    /// Marking secrets false positives never raises RI (nor lowers the
    /// privacy score), with the observed vault ((W − w)/(ρ − w) ≤ W/ρ as
    /// W ≤ ρ) and with an explicit one (ρ fixed); one more false positive
    /// never raises it either. Accepting secrets instead never changes RI
    /// and never blocks a run the detected gate lets through.
    #[test]
    fn a_false_positive_never_raises_ri(
        trace in trace(),
        setup in gen_config(),
        pick in any::<u64>(),
        one_more in any::<prop::sample::Index>(),
    ) {
        let config = setup.to_config();
        let report = analyze(&trace.to_json(), &config);
        let secrets = RunSecrets::of_report(&report, &config.scoring);
        let today = Date::parse("2026-06-01").unwrap();
        let fp = secrets.review(&decide(&secrets, pick, Some(DecisionKind::FalsePositive)), today);
        prop_assert!(fp.risk_index <= report.risk_index, "RI {} → {}", report.risk_index, fp.risk_index);
        prop_assert!(i64::from(fp.privacy_score) >= report.privacy_score);
        prop_assert!(fp.leaked_secrets <= report.summary.leaked_secrets);
        if !secrets.groups.is_empty() {
            let more = pick | 1 << (one_more.index(secrets.groups.len()) % 64);
            let more_fp = secrets.review(&decide(&secrets, more, Some(DecisionKind::FalsePositive)), today);
            prop_assert!(more_fp.risk_index <= fp.risk_index, "RI {} → {}", fp.risk_index, more_fp.risk_index);
        }
        let accepted = secrets.review(&decide(&secrets, pick, Some(DecisionKind::AcceptedRisk)), today);
        prop_assert_eq!((accepted.risk_index, i64::from(accepted.privacy_score)), (report.risk_index, report.privacy_score));
        prop_assert!(!accepted.blocked || report.blocked);
    }
}
