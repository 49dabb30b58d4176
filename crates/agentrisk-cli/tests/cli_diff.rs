//! `agentrisk diff` and `agentrisk history` on the reference's example
//! traces, as a CI job runs them: the ten traces against a copy with
//! planted leaks, the regression gate's exit statuses, and batches over time.

mod common;

use common::{agentrisk, cases, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

const EXAMPLES: [&str; 10] = [
    "ex_customer_support_clean_trace",
    "ex_customer_support_trace",
    "ex_education_clean_trace",
    "ex_education_trace",
    "ex_finance_clean_trace",
    "ex_finance_trace",
    "ex_healthcare_clean_trace",
    "ex_healthcare_trace",
    "ex_hr_clean_trace",
    "ex_hr_trace",
];

/// A fresh folder for one test.
fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-diff-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `root/name/` holding the ten example traces, with `plant` applied to
/// some: (case, channel of the event to change, text to put in its content).
fn examples(root: &Path, name: &str, plant: &[(&str, &str, &str)]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for case in EXAMPLES {
        let mut trace: Value =
            serde_json::from_slice(&std::fs::read(cases().join(case).join("trace.json")).unwrap()).unwrap();
        for (_, channel, text) in plant.iter().filter(|(c, _, _)| *c == case) {
            let events = trace["events"].as_array_mut().unwrap();
            let event = events.iter_mut().find(|e| e["channel"] == *channel).unwrap();
            event["content"] = Value::String((*text).to_owned());
        }
        std::fs::write(dir.join(format!("{case}.json")), serde_json::to_vec_pretty(&trace).unwrap()).unwrap();
    }
    dir
}

/// An e-mail address in the finance clean run's log (L2).
const MINOR: (&str, &str, &str) =
    ("ex_finance_clean_trace", "log", "INFO statement sent to the client at maria.lopez@example.com");
/// An SSN in the HR clean run's answer (L4).
const MAJOR: (&str, &str, &str) =
    ("ex_hr_clean_trace", "final_output", "The employee's SSN is 123-45-6789; the case is closed.");

/// A scorecard's JSON text with `format` first, as readers tell a
/// scorecard by (serde_json writes an object's keys sorted).
fn scorecard_text(mut card: Value) -> String {
    let format = card.as_object_mut().unwrap().remove("format").unwrap();
    let rest = serde_json::to_string(&card).unwrap();
    format!("{{\"format\":{format},{}", &rest[1..])
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)))
}

fn diff(base: &Path, new: &Path, extra: &[&str]) -> Output {
    agentrisk(&[&["diff", base.to_str().unwrap(), new.to_str().unwrap(), "-q"], extra].concat())
}

#[test]
fn identical_batches_have_no_regression_and_pass_every_rule() {
    let root = scratch("same");
    let (base, new) = (examples(&root, "base", &[]), examples(&root, "new", &[]));
    let rules =
        ["--fail-on", "new-leak", "--fail-on", "verdict", "--fail-on", "score-drop:0", "--fail-on", "leak-rate"];
    let o = diff(&base, &new, &[&rules[..], &["--format", "json"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let d = json(&o);
    assert_eq!(d["regressions"], Value::Array(vec![]));
    assert_eq!(d["runs"].as_array().unwrap().len(), 10);
    assert!(d["runs"].as_array().unwrap().iter().all(|r| r["matched_by"] == "run_id"
        && r["new_leaks"] == Value::Array(vec![])
        && r["resolved_leaks"] == Value::Array(vec![])
        && r["verdict_changed"] == false));
    assert_eq!(d["fail_on"].as_array().unwrap().len(), 4);
    assert!(d["fail_on"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["fired"] == false && r["unchecked"] == Value::Array(vec![])));
    // 5/10 both sides: the difference 0 with a symmetric interval;
    // statsmodels' confint_proportions_2indep(5, 10, 5, 10, method="newcomb")
    // gives ±0.3725136238199143 (each side's Wilson 0.2366–0.7634).
    let leak = &d["rates"][0];
    assert_eq!((leak["metric"].as_str(), leak["difference"].as_f64()), (Some("leak_rate"), Some(0.0)));
    assert!((leak["upper"].as_f64().unwrap() - 0.3725136238199143).abs() < 1e-12, "{leak}");
    assert!((leak["lower"].as_f64().unwrap() + 0.3725136238199143).abs() < 1e-12, "{leak}");
    let p = &d["paired"];
    assert_eq!((p["pairs"].as_u64(), p["both"].as_u64(), p["neither"].as_u64()), (Some(10), Some(5), Some(5)));
    assert_eq!(p["mcnemar_exact_p"], 1.0);

    let o = diff(&base, &new, &["--format", "markdown", "--fail-on", "new-leak:L3"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        stdout(&o).starts_with("## AgentRisk diff: `base` → `new`\n\n**No regressions** · BASE 10 runs, NEW 10 runs")
    );
}

#[test]
fn planted_leaks_fire_the_rules_that_name_them() {
    let root = scratch("planted");
    let base = examples(&root, "base", &[]);
    let minor = examples(&root, "minor", &[MINOR]);
    let major = examples(&root, "major", &[MINOR, MAJOR]);

    // The e-mail is new at L2: new-leak fires, new-leak:L3 does not.
    let o = diff(&base, &minor, &["--fail-on", "new-leak", "--format", "json"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(stderr(&o), "agentrisk: diff: new-leak:L1 fired (exit 1)\n");
    let d = json(&o);
    let run = d["runs"].as_array().unwrap().iter().find(|r| r["key"] == "run_finance_clean_001").unwrap();
    assert_eq!(
        run["new_leaks"],
        serde_json::json!([{"data_type": "email", "level": 2, "channel": "log", "redacted_value": "ma*******************om"}])
    );
    assert_eq!(
        d["fail_on"][0]["reasons"],
        serde_json::json!(["run_finance_clean_001: email (L2) on log as ma*******************om"])
    );
    let o = diff(&base, &minor, &["--fail-on", "new-leak:L3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("\n  new-leak:L3: passed\n"), "{}", stdout(&o));

    // The SSN is new at L4, in the answer: the run is blocked now.
    let o = diff(&base, &major, &["--fail-on", "new-leak:L3", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("**Fail on:** `new-leak:L3` fired\n"), "{md}");
    assert!(md.contains("| `run_hr_clean_001` | `ssn` | L4 (critical) | final_output | `12*******89` |"), "{md}");
    assert!(!md.contains("| `run_finance_clean_001` | `email`"), "L2 is not in the L3/L4 table: {md}");
    assert!(md.contains("| `run_hr_clean_001` | Pass | "), "{md}");
    let d = json(&diff(&base, &major, &["--format", "json"]));
    let hr = d["runs"].as_array().unwrap().iter().find(|r| r["key"] == "run_hr_clean_001").unwrap();
    assert_eq!((hr["base"]["verdict"].as_str(), hr["new"]["blocked"].as_bool()), (Some("Pass"), Some(true)));
    assert_eq!(hr["channel_changes"][0]["channel"], "final_output");
    let drop = -hr["privacy_score_change"].as_i64().unwrap();
    assert!(drop > 0);
    // Leak rate 5/10 → 7/10 (two clean runs leak now): statsmodels'
    // confint_proportions_2indep(7, 10, 5, 10, method="newcomb") =
    // (−0.20165494124038513, 0.5260788199975557): it holds 0, so leak-rate
    // does not fire.
    let leak = &d["rates"][0];
    assert_eq!(
        (leak["new"]["k"].as_u64(), leak["difference"].as_f64().map(|x| (x * 10.0).round())),
        (Some(7), Some(2.0))
    );
    assert!((leak["lower"].as_f64().unwrap() + 0.20165494124038513).abs() < 1e-12, "{leak}");
    assert!((leak["upper"].as_f64().unwrap() - 0.5260788199975557).abs() < 1e-12, "{leak}");
    // Paired: 2 leak only in NEW: p = 2 × ¼ = 0.5 (statsmodels' mcnemar([[5, 0], [2, 3]], exact=True)).
    assert_eq!((d["paired"]["new_only"].as_u64(), d["paired"]["mcnemar_exact_p"].as_f64()), (Some(2), Some(0.5)));
    for (rule, code) in [
        ("verdict", 1),
        (&format!("score-drop:{drop}"), 0),
        (&format!("score-drop:{}", drop - 1), 1),
        ("leak-rate", 0),
        ("new-leak:L4", 1),
    ] {
        assert_eq!(diff(&base, &major, &["--fail-on", rule]).status.code(), Some(code), "{rule}");
    }
    // Several rules: exit 1 when any fires.
    assert_eq!(diff(&base, &major, &["--fail-on", "leak-rate", "--fail-on", "verdict"]).status.code(), Some(1));
}

#[test]
fn bad_input_exits_two_with_the_file_and_the_problem() {
    let root = scratch("bad");
    let base = examples(&root, "base", &[]);
    let o = diff(&base, &root.join("missing"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing: cannot read"), "{}", stderr(&o));
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = diff(&base, &empty, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty: no runs found"), "{}", stderr(&o));
    let o = diff(&base, &base, &["--fail-on", "new-leak:L9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("new-leak:L9: the level must be L1, L2, L3 or L4"), "{}", stderr(&o));
    let broken = root.join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("x.json"), "{\"events\": [{\"channel\": \"radio\"}]}").unwrap();
    let o = diff(&base, &broken, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("x.json: events[0].channel"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());

    // A scorecard row without per-run secrets cannot answer new-leak.
    let card = root.join("card.json");
    let o = agentrisk(&["batch", base.to_str().unwrap(), "--scorecard", card.to_str().unwrap(), "-q"]);
    assert_eq!(o.status.code(), Some(0));
    let mut old: Value = serde_json::from_slice(&std::fs::read(&card).unwrap()).unwrap();
    for run in old["runs"].as_array_mut().unwrap() {
        run.as_object_mut().unwrap().remove("leaks");
    }
    std::fs::write(&card, scorecard_text(old)).unwrap();
    let o = diff(&card, &base, &["--fail-on", "new-leak"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("agentrisk: --fail-on new-leak:L1: cannot check: run_hr_001: its leaked secrets are unknown\n"),
        "{}",
        stderr(&o)
    );
    assert!(stdout(&o).contains("runs come from a scorecard written without per-run secrets"));
    // Other rules still answer: the verdicts are in every row.
    assert_eq!(diff(&card, &base, &["--fail-on", "verdict"]).status.code(), Some(0));
}

#[test]
fn history_orders_batches_by_generated_at_and_summarises_each() {
    let root = scratch("history");
    let all = examples(&root, "all", &[]);
    // Three scorecards of growing subsets, their dates set out of name order.
    let subsets: [(&str, &[&str], &str); 3] = [
        ("c.json", &EXAMPLES[..4], "2026-12-01T09:00:00+00:00"),
        ("a.json", &EXAMPLES[..7], "2026-12-08T09:00:00+00:00"),
        ("b.json", &EXAMPLES[..], "2026-12-15T09:00:00+00:00"),
    ];
    for (name, cases, at) in subsets {
        let dir = root.join(format!("part-{name}"));
        std::fs::create_dir_all(&dir).unwrap();
        for case in cases {
            std::fs::copy(all.join(format!("{case}.json")), dir.join(format!("{case}.json"))).unwrap();
        }
        let card = root.join(name);
        let o = agentrisk(&["batch", dir.to_str().unwrap(), "--scorecard", card.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0));
        let mut value: Value = serde_json::from_slice(&std::fs::read(&card).unwrap()).unwrap();
        assert!(value["generated_at"].as_str().unwrap().ends_with("+00:00"), "batch --scorecard writes the time");
        value["generated_at"] = Value::String(at.to_owned());
        std::fs::write(&card, scorecard_text(value)).unwrap();
    }
    let path = |name: &str| root.join(name).to_str().unwrap().to_owned();
    let o = agentrisk(&["history", &path("a.json"), &path("b.json"), &path("c.json"), "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let h = json(&o);
    let batches = h["batches"].as_array().unwrap();
    let names: Vec<&str> =
        batches.iter().map(|b| Path::new(b["name"].as_str().unwrap()).file_name().unwrap().to_str().unwrap()).collect();
    assert_eq!(names, ["c.json", "a.json", "b.json"]);
    // The first four examples: customer support and education, each clean
    // and leaky; education is blocked (INDEX.md): leaks 2/4, blocked 1/4.
    let first = &batches[0];
    assert_eq!(
        (first["runs"].as_u64(), first["leak_rate"]["k"].as_u64(), first["block_rate"]["k"].as_u64()),
        (Some(4), Some(2), Some(1))
    );
    // Wilson 95% of 2/4: 0.150039–0.849961 (R: binom::binom.wilson(2, 4)).
    assert!((first["leak_rate"]["lower"].as_f64().unwrap() - 0.150_039).abs() < 1e-6, "{first}");
    assert_eq!(batches[2]["verdicts"]["Pass"]["count"], 5);
    assert_eq!((batches[2]["leak_rate"]["k"].as_u64(), batches[2]["block_rate"]["k"].as_u64()), (Some(5), Some(3)));
    assert_eq!(h["method"], "Wilson score interval, 95%, no continuity correction");

    // A folder is a batch, ordered by its name next to the dated ones.
    let dated = root.join("2026-12-10");
    std::fs::create_dir_all(&dated).unwrap();
    std::fs::copy(all.join("ex_hr_trace.json"), dated.join("ex_hr_trace.json")).unwrap();
    let o = agentrisk(&[
        "history",
        &path("b.json"),
        dated.to_str().unwrap(),
        &path("c.json"),
        "--format",
        "markdown",
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    let order: Vec<usize> = ["c.json`", "`2026-12-10`", "b.json`"].iter().map(|n| md.find(n).unwrap()).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{md}");
    assert!(md.contains("| 2 | `2026-12-10` | — | 1 | 1/1 (100.0%) |"), "{md}");
    // A bad input is named and nothing is printed.
    let o = agentrisk(&["history", &path("b.json"), &path("nope.json")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("nope.json: cannot read"));
    assert!(stdout(&o).is_empty());
}
