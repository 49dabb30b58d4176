//! `agentrisk batch` on the reference's example traces, as a user runs it.

mod common;

use common::{agentrisk, cases};
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

/// A fresh folder holding the ten example traces (and `extra` files).
fn batch_dir(tag: &str, extra: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-batch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    for case in EXAMPLES {
        std::fs::copy(cases().join(case).join("trace.json"), dir.join("examples").join(format!("{case}.json")))
            .unwrap();
    }
    for (name, text) in extra {
        std::fs::write(dir.join(name), text).unwrap();
    }
    dir
}

fn json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 5e-5)
}

#[test]
fn the_example_traces_summarize_to_the_reference_verdicts() {
    let dir = batch_dir("examples", &[]);
    let o = agentrisk(&["batch", dir.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let s = json(&o);
    // INDEX.md: five leaky examples (customer support, education, finance,
    // healthcare, hr) and their five clean twins; education, finance and
    // healthcare are blocked; verdicts Pass ×5, High risk ×3, Fail ×2.
    assert_eq!(s["runs"], 10);
    assert_eq!((s["leak_rate"]["k"].as_u64(), s["leak_rate"]["n"].as_u64()), (Some(5), Some(10)));
    // Wilson 95% for 5/10: 0.2366–0.7634 (e.g. R: binom::binom.wilson(5, 10)).
    assert!(close(&s["leak_rate"]["lower"], 0.2366) && close(&s["leak_rate"]["upper"], 0.7634), "{}", s["leak_rate"]);
    assert_eq!(s["block_rate"]["k"], 3);
    let counts: Vec<u64> = ["Pass", "Conditional pass", "High risk", "Fail"]
        .iter()
        .map(|v| s["verdicts"][v]["count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [5, 0, 3, 2]);
    // Every run is a trace, so per-channel n counts runs with events there.
    assert_eq!(s["channel_leak_rates"]["final_output"]["n_from_reports"], false);
    assert!(s["channel_leak_rates"]["final_output"]["n"].as_u64().unwrap() >= 5);
    // Top-level keys in the documented order (serde_json's map would sort
    // them, so read them off the pretty-printed text: two-space indent).
    let text = String::from_utf8_lossy(&o.stdout);
    let keys: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("  \"").and_then(|rest| rest.split('"').next())).collect();
    assert_eq!(
        keys,
        [
            "runs",
            "confidence",
            "continuity_correction",
            "leak_rate",
            "block_rate",
            "verdicts",
            "channel_leak_rates",
            "level_leak_rates",
            "risk_index",
            "privacy_score"
        ]
    );

    // The table says the same and names the method.
    let o = agentrisk(&["batch", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.starts_with("10 runs from 10 files · Wilson score interval, 95%, no continuity correction\n"),
        "{text}"
    );
    assert!(text.contains("\n(all runs)  Leak rate                         5  10  50.0%  23.7–76.3%\n"), "{text}");
}

#[test]
fn a_bad_file_is_named_and_skipped_and_the_exit_status_says_so() {
    let dir = batch_dir("bad", &[("broken.json", "{\"events\": [{\"channel\": \"radio\"}]}")]);
    let o = agentrisk(&["batch", dir.to_str().unwrap(), "--json", "--group-by", "folder"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("broken.json: events[0].channel"), "{err}");
    let s = json(&o);
    assert_eq!(s["runs"], 10);
    let folders: Vec<&String> = s["groups"].as_object().unwrap().keys().collect();
    // The folder named starts the path: the examples lie in `<dir>/examples`.
    let named = dir.file_name().unwrap().to_string_lossy();
    assert_eq!(folders, [&format!("{named}/examples")]);
}

#[test]
fn a_scorecard_reads_back_to_the_same_summary() {
    let dir = batch_dir("card", &[]);
    let card = dir.join("card.json");
    let examples = dir.join("examples");
    let args = ["--confidence", "0.9", "--continuity-correction", "--group-by", "agent"];
    let o =
        agentrisk(&[&["batch", examples.to_str().unwrap(), "--scorecard", card.to_str().unwrap()], &args[..]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let written: Value = serde_json::from_slice(&std::fs::read(&card).unwrap()).unwrap();
    assert_eq!((written["format"].as_str(), written["version"].as_u64()), (Some("agentrisk-scorecard"), Some(1)));
    assert_eq!(written["runs"].as_array().unwrap().len(), 10);
    assert_eq!(written["settings"]["confidence"], 0.9);

    let direct = json(&agentrisk(&[&["batch", examples.to_str().unwrap(), "--json"], &args[..]].concat()));
    let reread = json(&agentrisk(&[&["batch", card.to_str().unwrap(), "--json"], &args[..]].concat()));
    assert_eq!(direct, reread);
    assert_eq!(direct, written["summary"]);
    assert_eq!(direct["continuity_correction"], true);
}

#[test]
fn redteam_results_give_asr_with_intervals() {
    let line = |id: &str, class: &str, found: &str| {
        format!(
            r#"{{"scenario_id": "{id}", "attack_class_id": "{class}", "attack_family_id": "{}", "primary_channel": "tool_call", "vault_field_count": 11, "expected_leaks": ["ssn", "email"], "detected_leaks": [{found}], "detected_on_primary": [{found}], "risk_index": 0.5, "privacy_score": 50}}"#,
            &class[..2]
        )
    };
    let text = [line("s1", "F2.1", "\"ssn\""), line("s2", "F2.1", ""), line("s3", "F3.1", "\"email\"")].join("\n");
    let dir = std::env::temp_dir().join(format!("agentrisk-redteam-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("results.jsonl");
    std::fs::write(&file, text).unwrap();
    let o = agentrisk(&["batch", file.to_str().unwrap(), "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rt = &json(&o)["redteam"];
    // s1 and s3 succeed: ASR 2/3; F2 1/2, F3 1/1; ELR 1/11 for both.
    assert_eq!((rt["asr"]["k"].as_u64(), rt["asr"]["n"].as_u64()), (Some(2), Some(3)));
    assert_eq!(rt["asr_by_family"][0]["id"], "F3");
    assert!(close(&rt["elr"]["median"], 1.0 / 11.0));
    assert!(rt["asr"]["lower"].as_f64().unwrap() > 0.0);
}

#[test]
fn usage_errors_exit_two() {
    for args in [&["batch"][..], &["batch", "x", "--confidence", "1.5"], &["batch", "x", "--group-by", "colour"]] {
        let o = agentrisk(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("agentrisk: "));
    }
    let missing = Path::new("/nonexistent/run.json");
    let o = agentrisk(&["batch", missing.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("/nonexistent/run.json: cannot read"));
}

fn redteam(batch: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redteam").join(batch)
}

/// The reference's `compute_metrics` of the healthcare batch
/// (tests/fixtures/redteam/public_health_a1/expected.json), from the traces
/// alone: each is analysed with its own metadata.canaries.
#[test]
fn red_team_traces_give_the_reference_metrics() {
    let traces = redteam("public_health_a1").join("traces");
    let o = agentrisk(&["batch", traces.to_str().unwrap(), "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rt = json(&o)["redteam"].clone();
    let expected: Value =
        serde_json::from_slice(&std::fs::read(redteam("public_health_a1").join("expected.json")).unwrap()).unwrap();
    assert_eq!((rt["runs"].as_u64(), rt["scenarios"].as_u64()), (Some(10), Some(10)));
    assert_eq!(rt["runs"], expected["total_runs"]);
    assert_eq!(rt["scenarios"], expected["total_scenarios"]);
    assert!(close(&rt["asr"]["rate"], expected["overall_asr"].as_f64().unwrap()));
    assert!(close(&rt["elr"]["mean"], expected["mean_elr"].as_f64().unwrap()));
    assert!(close(&rt["elr"]["median"], expected["median_elr"].as_f64().unwrap()));
    assert!(close(&rt["risk_index"]["mean"], expected["mean_risk_index"].as_f64().unwrap()));
    let clr: Vec<(String, u64, f64, f64)> = rt["clr_per_channel"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let n = c["n"].as_u64().unwrap();
            (
                c["channel"].as_str().unwrap().to_owned(),
                n,
                c["rate"].as_f64().unwrap(),
                c["avg_leaked_fields"].as_f64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, f64, f64)> = expected["clr_per_channel"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["channel"].as_str().unwrap().to_owned(),
                c["run_count"].as_u64().unwrap(),
                c["leak_rate"].as_f64().unwrap(),
                c["avg_leaked_fields"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(clr, want);
    let classes: Vec<(&str, u64, u64)> = rt["asr_by_class"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["k"].as_u64().unwrap(), a["n"].as_u64().unwrap()))
        .collect();
    let want_classes: Vec<(&str, u64, u64)> = expected["asr_by_class"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["successful"].as_u64().unwrap(), a["total"].as_u64().unwrap()))
        .collect();
    assert_eq!(classes, want_classes);
    let families: Vec<&str> =
        rt["asr_by_family"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap()).collect();
    assert_eq!(families, ["F6", "F4", "F1", "F5", "F3", "F2"]);
}

/// `--canaries FILE` wins over each trace's own set: an empty set finds no
/// canary, so each run leaks 8 of its 11 vault fields instead of 9.
#[test]
fn batch_canaries_flag_overrides_the_traces_own() {
    let dir = std::env::temp_dir().join(format!("agentrisk-batch-canaries-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.json");
    std::fs::write(&empty, r#"{"obvious": [], "realistic": [], "semantic": []}"#).unwrap();
    let traces = redteam("public_health_a1").join("traces");
    let o = agentrisk(&["batch", traces.to_str().unwrap(), "--json", "-q", "--canaries", empty.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let rt = json(&o)["redteam"].clone();
    let leaked: Vec<u64> =
        rt["elr_per_run"].as_array().unwrap().iter().map(|e| e["leaked"].as_u64().unwrap()).collect();
    assert_eq!(leaked, vec![8; 10]);
    assert!(close(&rt["elr"]["mean"], 8.0 / 11.0));

    // A malformed canary file is refused, naming the file and the place.
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"obvious": ["x", 2]}"#).unwrap();
    let o = agentrisk(&["batch", traces.to_str().unwrap(), "--canaries", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("bad.json: obvious[1]: expected a string, found a number"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder of canary-set files holds no runs: each file is read and skipped.
#[test]
fn canary_set_files_in_a_batch_folder_are_skipped() {
    let canaries = redteam("public_health_a1").join("canaries");
    let o = agentrisk(&["batch", canaries.to_str().unwrap(), "--json", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let s = json(&o);
    assert_eq!(s["runs"], 0);
    assert!(s.get("redteam").is_none());
}

/// The fixture `tests/fixtures/batch-shells/` (its NOTICE.md says what it holds).
fn shells_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/batch-shells")
}

/// What the viewer's workspace gives for the files of `dir`, named by their
/// path from the folder named (as a dropped folder names them), with the
/// canary set in force: the batch summary of every run it reads.
fn workspace_batch(dir: &Path, canaries: &Path) -> Value {
    use agentrisk::analyser::{group_by_from_name, interval_method, CanarySetting};
    use agentrisk::batch::folder_of;
    use agentrisk::workspace::{FileResult, Workspace};
    fn walk(dir: &Path, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            let inner = format!("{name}/{}", path.file_name().unwrap().to_string_lossy());
            if path.is_dir() {
                walk(&path, &inner, out);
            } else if path.extension().is_some_and(|e| e == "json") {
                out.push((inner, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, &dir.file_name().unwrap().to_string_lossy(), &mut files);
    let mut workspace = Workspace::new();
    let set = CanarySetting::from_file("canaries.json", &std::fs::read(canaries).unwrap()).unwrap();
    workspace.set_canaries(Some(set));
    let (mut runs, mut redteam) = (Vec::new(), Vec::new());
    for (id, (name, bytes)) in files.into_iter().enumerate() {
        match workspace.open(id as u32, &name, folder_of(&name), bytes, "", &|_| {}) {
            FileResult::Trace(t) => runs.push(t.facts),
            FileResult::Report(r) => runs.push(r.facts),
            FileResult::Spans(s) => runs.extend(s.runs.into_iter().map(|t| t.facts)),
            FileResult::Batch(b) => {
                runs.extend(b.runs);
                redteam.extend(b.redteam);
            }
            FileResult::CanarySet(_) | FileResult::Review(_) | FileResult::Error { .. } => {}
        }
    }
    let method = interval_method(0.9, false).unwrap();
    let summary = agentrisk::batch::summarize(&runs, &redteam, method, Some(group_by_from_name("folder").unwrap()));
    serde_json::to_value(summary).unwrap()
}

/// The same folder through the CLI and the viewer's workspace gives the
/// same batch JSON, equal to the committed `expected.json` that the
/// JavaScript package is checked against too (tests/js/package.test.mjs):
/// canaries count in both, and runs group by their folder from the folder
/// named (`runs`, `runs/clinic`, `runs/bank/week2`).
#[test]
fn the_cli_and_the_workspace_give_the_same_batch_json() {
    let fixture = shells_fixture();
    let (runs, canaries) = (fixture.join("runs"), fixture.join("canaries.json"));
    let args = ["batch", "--json", "-q", "--group-by", "folder", "--confidence", "0.9", "--canaries"];
    let o = agentrisk(&[&args[..], &[canaries.to_str().unwrap(), runs.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(2), "broken.json is skipped: {}", common::stderr(&o));
    assert!(common::stderr(&o).contains("broken.json: events[0].channel"), "{}", common::stderr(&o));
    let cli: Value = serde_json::from_slice(&o.stdout).unwrap();
    let workspace = workspace_batch(&runs, &canaries);
    assert_eq!(cli, workspace);

    let groups: Vec<&String> = cli["groups"].as_object().unwrap().keys().collect();
    assert_eq!(groups, ["runs", "runs/bank", "runs/bank/week2", "runs/clinic"]);
    assert_eq!(cli["runs"], 8);
    // The canary set counts: the clean HR run discloses "Daniel Roy", an
    // obvious canary, which blocks it (5 runs blocked with the set, 4 without).
    let plain = agentrisk(&[&args[..7], &[runs.to_str().unwrap()]].concat());
    let plain: Value = serde_json::from_slice(&plain.stdout).unwrap();
    assert_eq!((cli["block_rate"]["k"].as_u64(), plain["block_rate"]["k"].as_u64()), (Some(5), Some(4)));

    let expected_path = fixture.join("expected.json");
    let pretty = serde_json::to_string_pretty(&cli).unwrap() + "\n";
    if std::env::var_os("UPDATE_EXPECTED").is_some() {
        std::fs::write(&expected_path, &pretty).unwrap();
    }
    let expected: Value = serde_json::from_slice(&std::fs::read(&expected_path).unwrap()).unwrap();
    assert_eq!(cli, expected, "run with UPDATE_EXPECTED=1 to accept a change");
}

/// `batch -c`, `score -c` and `run -c` load a config with the one loader:
/// a custom rule whose pattern does not compile is refused before any file
/// is read, naming the config (`batch -c` once took it and failed per trace).
#[test]
fn every_command_checks_the_configs_detection_settings() {
    let dir = batch_dir("badrule", &[]);
    let config = dir.join("agentleak.yaml");
    std::fs::write(
        &config,
        "custom_detectors:\n  - name: broken\n    pattern: \"([a-z\"\n    severity: high\n    data_type: x\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let examples = dir.join("examples");
    let trace = examples.join("ex_hr_trace.json");
    for args in [
        vec!["batch", "-q", examples.to_str().unwrap(), "-c", config],
        vec!["run", "-q", "-t", trace.to_str().unwrap(), "-o", "-", "-c", config],
        vec!["score", "-c", config, trace.to_str().unwrap()],
    ] {
        let o = agentrisk(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let err = common::stderr(&o);
        assert!(err.starts_with(&format!("agentrisk: {config}: ")) && err.contains("broken"), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: nothing analysed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Beyond one machine: a batch split into shards, each shard's scorecard
/// written on its own (`batch --scorecard`), and the scorecards merged by
/// one `batch` gives the whole batch's numbers — every rate, interval,
/// group and red-team metric (docs/scale.md).
#[test]
fn shard_scorecards_merge_into_the_whole_batch() {
    let traces = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/redteam/public_all/traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&traces).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert_eq!(files.len(), 75);
    let dir = std::env::temp_dir().join(format!("agentrisk-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut cards = Vec::new();
    for (shard, chunk) in files.chunks(25).enumerate() {
        let folder = dir.join(format!("shard{shard}"));
        std::fs::create_dir_all(&folder).unwrap();
        for file in chunk {
            std::fs::copy(file, folder.join(file.file_name().unwrap())).unwrap();
        }
        let card = dir.join(format!("shard{shard}.json"));
        let o = agentrisk(&["batch", "-q", "--scorecard", card.to_str().unwrap(), folder.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        cards.push(card.to_string_lossy().into_owned());
    }
    for flags in [&["--json", "-q"][..], &["--json", "-q", "--group-by", "agent", "--confidence", "0.9"]] {
        let mut merged_args: Vec<&str> = vec!["batch"];
        merged_args.extend_from_slice(flags);
        merged_args.extend(cards.iter().map(String::as_str));
        let merged = agentrisk(&merged_args);
        assert_eq!(merged.status.code(), Some(0), "{}", String::from_utf8_lossy(&merged.stderr));
        let mut whole_args: Vec<&str> = vec!["batch"];
        whole_args.extend_from_slice(flags);
        whole_args.push(traces.to_str().unwrap());
        let whole = agentrisk(&whole_args);
        let (merged, whole): (Value, Value) =
            (serde_json::from_slice(&merged.stdout).unwrap(), serde_json::from_slice(&whole.stdout).unwrap());
        assert_eq!(merged["runs"], 75);
        assert!(merged["redteam"].is_object(), "the red-team metrics are there: {merged}");
        assert_eq!(merged, whole, "{flags:?}");
    }
}
