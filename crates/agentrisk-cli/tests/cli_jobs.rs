//! Many files on every core: `batch`, `run`, `site` and `pack` print and
//! write the same bytes with one thread as with several (`--jobs`, or
//! `RAYON_NUM_THREADS`), in the same order, with the same exit status. The
//! inputs mix traces in nested folders, red-team traces, a span export with
//! two conversations, a canary set and files that cannot be read, so the
//! order of runs, of errors and of data files all show.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `agentrisk` with `args` and, when given, `RAYON_NUM_THREADS`.
fn agentrisk_with(args: &[&str], threads: Option<&str>) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agentrisk"));
    command.args(args).env_remove("RAYON_NUM_THREADS");
    if let Some(threads) = threads {
        command.env("RAYON_NUM_THREADS", threads);
    }
    command.output().expect("run agentrisk")
}

/// A folder of inputs under the temp folder, made once per test.
fn inputs(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agentrisk-jobs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let runs = dir.join("runs");
    for sub in ["redteam", "team/a", "spans"] {
        std::fs::create_dir_all(runs.join(sub)).unwrap();
    }
    let redteam = root().join("tests/fixtures/redteam/public_all/traces");
    for entry in std::fs::read_dir(&redteam).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, runs.join("redteam").join(path.file_name().unwrap())).unwrap();
    }
    for entry in std::fs::read_dir(root().join("www/samples/traces")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, runs.join("team/a").join(path.file_name().unwrap())).unwrap();
    }
    let spans = root().join("tests/fixtures/spans/lc_two_sessions.otlp.json");
    std::fs::copy(spans, runs.join("spans/lc_two_sessions.otlp.json")).unwrap();
    std::fs::write(runs.join("team/broken.json"), "{\"events\": [").unwrap();
    std::fs::write(runs.join("team/canaries.json"), r#"{"obvious": ["CANARY-1"]}"#).unwrap();
    dir
}

/// `text` with the clock's traces taken out: the value of every
/// `generated_at` and of the compliance digest that hashes it, and the
/// site's cache name (a digest of its manifest).
fn without_clock(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let keys = ["\"generated_at\": \"", "\"generated_at\":\"", "\"digest\": \"", "\"digest\":\"", "const BUILD = \""];
    while let Some((at, key)) = keys.iter().filter_map(|k| rest.find(k).map(|at| (at, k))).min() {
        let value_start = at + key.len();
        let value_end = value_start + rest[value_start..].find('"').unwrap();
        out.push_str(&rest[..value_start]);
        out.push_str("CLOCK");
        rest = &rest[value_end..];
    }
    out.push_str(rest);
    out
}

/// Every file under `dir` (relative path, text without the clock), sorted.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = format!("{prefix}{}", path.file_name().unwrap().to_string_lossy());
            if path.is_dir() {
                walk(&path, &format!("{name}/"), files);
            } else {
                files.push((name, without_clock(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()))));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, "", &mut files);
    files.sort();
    files
}

/// What a command printed and its status, the clock taken out.
fn printed(o: &Output) -> (Option<i32>, String, String) {
    (o.status.code(), without_clock(&common::stdout(o)), without_clock(&common::stderr(o)))
}

#[test]
fn the_clock_is_all_that_is_taken_out() {
    let text = r#"{"generated_at": "2026-12-07T10:00:00+00:00", "digest":"ab12", "risk_index": 0.5}"#;
    assert_eq!(without_clock(text), r#"{"generated_at": "CLOCK", "digest":"CLOCK", "risk_index": 0.5}"#);
}

#[test]
fn batch_prints_the_same_with_one_thread_or_many() {
    let dir = inputs("batch");
    let runs = dir.join("runs");
    let runs = runs.to_str().unwrap();
    for flags in [&["--scorecard", "-"][..], &["--json", "--group-by", "folder"], &["--group-by", "agent"]] {
        let with = |jobs: Option<&str>, threads: Option<&str>| {
            let mut args = vec!["batch", "-q", runs];
            args.extend_from_slice(flags);
            if let Some(jobs) = jobs {
                args.extend(["--jobs", jobs]);
            }
            printed(&agentrisk_with(&args, threads))
        };
        let one = with(Some("1"), None);
        assert_eq!(one.0, Some(2), "broken.json is named and skipped: {}", one.2);
        assert!(one.2.contains("team/broken.json: "), "{}", one.2);
        assert!(one.1.contains("rt_f5_1_a850") || !flags.contains(&"--scorecard"), "{}", one.1);
        assert!(one.1.len() > 1000, "{flags:?}: {}", one.1);
        assert_eq!(with(Some("4"), None), one, "--jobs 4, {flags:?}");
        assert_eq!(with(None, Some("3")), one, "RAYON_NUM_THREADS=3, {flags:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_writes_the_same_reports_and_lines_with_one_thread_or_many() {
    let dir = inputs("run");
    let mut traces: Vec<PathBuf> =
        std::fs::read_dir(dir.join("runs/redteam")).unwrap().map(|e| e.unwrap().path()).collect();
    traces.sort();
    traces.truncate(20);
    traces.push(dir.join("runs/team/broken.json"));
    traces.push(dir.join("runs/spans/lc_two_sessions.otlp.json"));
    traces.push(dir.join("runs/missing.json"));
    // The same run id twice: the later trace's report is the one kept.
    traces.push(dir.join("runs/team/a/hr_trace.json"));
    traces.push(dir.join("runs/team/a/hr_trace.json"));
    let out = dir.join("reports");
    let with = |jobs: &str, to: &str| {
        let mut args = vec!["run", "--jobs", jobs, "-o", to];
        for trace in &traces {
            args.extend(["-t", trace.to_str().unwrap()]);
        }
        let printed = printed(&agentrisk_with(&args, None));
        let files = if to == "-" { Vec::new() } else { files_under(Path::new(to)) };
        let _ = std::fs::remove_dir_all(&out);
        (printed, files)
    };
    let one = with("1", out.to_str().unwrap());
    assert_eq!(one.0 .0, Some(2), "{}", one.0 .2);
    assert_eq!(one.1.len(), 23, "20 red-team runs, two conversations, hr_trace once: {:?}", one.1.len());
    assert!(one.0 .2.contains("broken.json: ") && one.0 .2.contains("missing.json: cannot read"), "{}", one.0 .2);
    assert_eq!(one.0 .2.lines().count(), 26, "a line per run and per error: {}", one.0 .2);
    assert_eq!(with("4", out.to_str().unwrap()), one);
    let one = with("1", "-");
    // A report's own run id is indented once; its parts name it again deeper.
    assert_eq!(one.0 .1.matches("\n  \"run_id\": ").count(), 24, "20 red-team runs, two conversations, hr_trace twice");
    assert_eq!(with("4", "-"), one);
    std::fs::remove_dir_all(&dir).ok();
}

/// A manifest without the clock: its `generated_at`, and the SHA-256 of
/// each report made from a trace (whose `generated_at` it hashes; the
/// reports themselves are compared without their clock).
#[cfg(feature = "viewer")]
fn manifest_without_clock(json: &str) -> (serde_json::Value, Vec<bool>) {
    let mut manifest: serde_json::Value = serde_json::from_str(json).unwrap();
    manifest["generated_at"] = "CLOCK".into();
    let mut reports = Vec::new();
    for file in manifest["files"].as_array_mut().unwrap() {
        let report = file["data"]["kind"] == "report";
        if report {
            file["data"]["sha256"] = "CLOCK".into();
        }
        reports.push(report);
    }
    (manifest, reports)
}

/// A pack's manifest and data blobs, in order, without the clock (a
/// report's blob is compressed, so it is left out: the site's test
/// compares the same reports as files).
#[cfg(feature = "viewer")]
fn pack_without_clock(html: &str) -> (serde_json::Value, Vec<String>) {
    let manifest_start = html.find("id=\"agentrisk-manifest\">").unwrap() + "id=\"agentrisk-manifest\">".len();
    let manifest_end = manifest_start + html[manifest_start..].find("</script>").unwrap();
    let (manifest, reports) = manifest_without_clock(&html[manifest_start..manifest_end]);
    let mut blobs = Vec::new();
    for piece in html.split("data-agentrisk-file=\"").skip(1) {
        let index: usize = piece[..piece.find('"').unwrap()].parse().unwrap();
        let blob = &piece[..piece.find("</script>").unwrap()];
        blobs.push(if reports[index] { format!("{index}: a report") } else { blob.to_owned() });
    }
    (manifest, blobs)
}

#[cfg(feature = "viewer")]
#[test]
fn site_and_pack_publish_the_same_with_one_thread_or_many() {
    let dir = inputs("publish");
    let runs = dir.join("runs");
    let out = dir.join("out");
    for extra in [&[][..], &["--include-traces"]] {
        let with = |command: &str, jobs: &str| {
            let mut args = vec![command, runs.to_str().unwrap(), "-o", out.to_str().unwrap(), "--jobs", jobs];
            args.extend_from_slice(extra);
            let printed = printed(&agentrisk_with(&args, None));
            let published = match command {
                "site" => {
                    let mut files = files_under(&out);
                    let at = files.iter().position(|(name, _)| name == "manifest.json").unwrap();
                    files.remove(at);
                    let (manifest, _) =
                        manifest_without_clock(&std::fs::read_to_string(out.join("manifest.json")).unwrap());
                    (manifest, files.into_iter().map(|(name, text)| format!("{name}\n{text}")).collect())
                }
                _ => pack_without_clock(&std::fs::read_to_string(&out).unwrap()),
            };
            let _ = std::fs::remove_dir_all(&out);
            let _ = std::fs::remove_file(&out);
            (printed, published)
        };
        for command in ["site", "pack"] {
            let one = with(command, "1");
            assert_eq!(one.0 .0, Some(1), "{command} {extra:?}: {}", one.0 .2);
            assert!(one.0 .2.contains("canaries.json: a canary set is not a run"), "{}", one.0 .2);
            assert!(one.0 .2.contains("broken.json: "), "{}", one.0 .2);
            let files = one.1 .0["files"].as_array().unwrap();
            assert!(files.len() >= 88, "{command} {extra:?}: {} files", files.len());
            assert!(files.iter().all(|f| f["numbers"]["runs"].is_array()));
            assert_eq!(with(command, "4"), one, "{command} {extra:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
