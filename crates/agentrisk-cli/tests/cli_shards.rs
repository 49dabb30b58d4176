//! A batch spread over machines: `agentrisk batch DIR --shard I/N
//! --scorecard shard-I.json` on each, then `agentrisk batch shard-*.json`
//! where they meet. The shards' scorecards, read together, give the whole
//! batch's numbers exactly: every rate with its Wilson interval, the RI and
//! privacy score statistics, the groups, and the red-team ASR, CLR and ELR.
//!
//! The batch mixes the reference's generated red-team traces (with their
//! canaries), a red-team results file, example traces and stored reports in
//! nested folders, a span export with two conversations, and a file that
//! cannot be read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{agentrisk, stderr, stdout};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn copy_all(from: &Path, to: &Path, keep: impl Fn(&str) -> bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_file() && keep(&name) {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// The batch's folder `runs` under a fresh folder of the temp folder.
fn batch_folder(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-shards-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let runs = dir.join("runs");
    copy_all(&root().join("tests/fixtures/redteam/public_all/traces"), &runs.join("redteam/public_all"), |_| true);
    std::fs::copy(root().join("tests/fixtures/redteam/public_health_a1/results.json"), runs.join("redteam/a1.json"))
        .unwrap();
    copy_all(&root().join("www/samples/traces"), &runs.join("team/traces"), |_| true);
    copy_all(&root().join("www/samples"), &runs.join("team/reports"), |name| name.ends_with(".report.json"));
    copy_all(&root().join("tests/fixtures/spans"), &runs.join("spans"), |name| name == "lc_two_sessions.otlp.json");
    std::fs::write(runs.join("team/broken.json"), "{\"events\": [").unwrap();
    dir
}

/// `agentrisk batch -q ARGS...`: its status, stdout and stderr.
fn batch(args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["batch", "-q"];
    all.extend_from_slice(args);
    let out = agentrisk(&all);
    (out.status.code(), stdout(&out), stderr(&out))
}

/// A scorecard without its clock (`generated_at`).
fn scorecard_without_clock(text: &str) -> Value {
    let mut card: Value = serde_json::from_str(text).unwrap();
    card.as_object_mut().unwrap().remove("generated_at");
    card
}

/// The Wilson score interval of `k` in `n` at 95%, worked out here apart
/// from the core's, to check the numbers a merge gives.
fn wilson_95(k: u64, n: u64) -> (f64, f64) {
    let z = 1.959_963_984_540_054_f64;
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denominator;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// A rate of the summary is `k` in `n` with its 95% Wilson interval.
fn assert_rate(rate: &Value, k: u64, n: u64) {
    assert_eq!((rate["k"].as_u64(), rate["n"].as_u64()), (Some(k), Some(n)), "{rate}");
    let (lower, upper) = wilson_95(k, n);
    let close = |key: &str, want: f64| (rate[key].as_f64().unwrap() - want).abs() < 1e-12;
    assert!(close("rate", k as f64 / n as f64) && close("lower", lower) && close("upper", upper), "{rate}");
}

/// `value` with every list sorted: the same numbers, whatever the order.
fn unordered(value: &Value) -> Value {
    match value {
        Value::Array(items) => {
            let mut items: Vec<Value> = items.iter().map(unordered).collect();
            items.sort_by_key(|item| item.to_string());
            Value::Array(items)
        }
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), unordered(v))).collect()),
        other => other.clone(),
    }
}

#[test]
fn shard_scorecards_merge_to_the_whole_batch() {
    let dir = batch_folder("merge");
    let runs = dir.join("runs");
    let runs = runs.to_str().unwrap();

    let (status, whole_card, errors) = batch(&[runs, "--scorecard", "-"]);
    assert_eq!(status, Some(2), "broken.json is named and skipped: {errors}");
    assert!(errors.contains("team/broken.json: "), "{errors}");
    let whole_card = scorecard_without_clock(&whole_card);
    let summary = &whole_card["summary"];
    // 75 red-team traces, 10 example traces, 6 reports, 2 conversations;
    // red-team records: the 75 traces' and the results file's 10.
    assert_eq!(summary["runs"], 93);
    assert_rate(&summary["leak_rate"], 86, 93);
    assert_rate(&summary["block_rate"], 82, 93);
    let redteam = &summary["redteam"];
    assert_eq!(redteam["runs"], 85);
    assert_rate(&redteam["asr"], 85, 85);
    assert!(redteam["elr"]["mean"].as_f64().unwrap() > 0.5, "{}", redteam["elr"]);
    assert!(redteam["clr_per_channel"].as_array().unwrap().len() >= 3, "{}", redteam["clr_per_channel"]);
    assert!(redteam["asr_by_family"].as_array().unwrap().len() >= 6, "{}", redteam["asr_by_family"]);

    for count in [3usize, 8] {
        let cards = dir.join(format!("cards-{count}"));
        std::fs::create_dir_all(&cards).unwrap();
        let mut shard_runs = Vec::new();
        let mut named_broken = 0;
        let mut paths = Vec::new();
        for index in 0..count {
            let path = cards.join(format!("shard-{index:02}.json"));
            let path = path.to_str().unwrap().to_owned();
            let (status, _, errors) = batch(&[runs, "--shard", &format!("{index}/{count}"), "--scorecard", &path]);
            // The shard holding the broken file names it and still writes
            // the runs of its other files.
            if errors.contains("team/broken.json: ") {
                named_broken += 1;
                assert_eq!(status, Some(2), "{errors}");
            } else {
                assert_eq!(status, Some(0), "shard {index}/{count}: {errors}");
            }
            let card: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            shard_runs.push(card["runs"].as_array().unwrap().len());
            paths.push(path);
        }
        assert_eq!(named_broken, 1, "one shard reads broken.json");
        assert_eq!(shard_runs.iter().sum::<usize>(), 93, "{count} shards: {shard_runs:?}");
        assert!(shard_runs.iter().all(|&n| n > 0), "{count} shards: {shard_runs:?}");
        let shards: Vec<&str> = paths.iter().map(String::as_str).collect();

        // Read in order, the shards are the whole batch: its scorecard (runs,
        // red-team records, summary) and its printed summaries, byte for byte.
        let merged = |extra: &[&str]| {
            let mut args = shards.clone();
            args.extend_from_slice(extra);
            let (status, out, errors) = batch(&args);
            assert_eq!(status, Some(0), "{count} shards {extra:?}: {errors}");
            out
        };
        let whole = |extra: &[&str]| {
            let mut args = vec![runs];
            args.extend_from_slice(extra);
            batch(&args).1
        };
        let merged_card = scorecard_without_clock(&merged(&["--scorecard", "-"]));
        assert_rate(&merged_card["summary"]["leak_rate"], 86, 93);
        assert_rate(&merged_card["summary"]["redteam"]["asr"], 85, 85);
        assert_eq!(merged_card, whole_card, "{count} shards");
        for extra in [
            &["--json"][..],
            &["--json", "--group-by", "folder"],
            &["--json", "--group-by", "agent", "--confidence", "0.9", "--continuity-correction"],
        ] {
            assert_eq!(merged(extra), whole(extra), "{count} shards, {extra:?}");
        }
        // The table too, but for its first line, which counts the files read
        // (the shards' scorecards here, the traces there).
        let (merged_table, whole_table) = (merged(&[]), whole(&[]));
        let first = format!("93 runs and 10 red-team results from {count} files · ");
        assert!(merged_table.starts_with(&first), "{merged_table}");
        assert_eq!(merged_table.split_once('\n').unwrap().1, whole_table.split_once('\n').unwrap().1);

        // In any order, the same numbers (lists such as the families and
        // each run's ELR follow the order the runs come in).
        let mut reversed = shards.clone();
        reversed.reverse();
        reversed.push("--json");
        let any_order: Value = serde_json::from_str(&batch(&reversed).1).unwrap();
        assert_eq!(unordered(&any_order), unordered(summary), "{count} shards read in reverse");
        for key in ["leak_rate", "block_rate", "channel_leak_rates", "level_leak_rates", "risk_index", "verdicts"] {
            assert_eq!(any_order[key], summary[key], "{count} shards read in reverse: {key}");
        }
        for key in ["asr", "elr", "scenarios", "runs", "risk_index", "privacy_score"] {
            assert_eq!(any_order["redteam"][key], redteam[key], "{count} shards read in reverse: redteam {key}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
