//! `agentrisk site` and `agentrisk pack` as a user runs them: what a binary
//! without the viewer says, usage and config errors, and (with the
//! `viewer` feature) what a published site holds.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{agentrisk, stderr};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn examples() -> String {
    root().join("www/samples/traces").to_string_lossy().into_owned()
}

/// A fresh, missing path under the temp folder.
fn scratch(tag: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("agentrisk-publish-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    let _ = std::fs::remove_file(&path);
    path
}

#[cfg(not(feature = "viewer"))]
#[test]
fn without_the_viewer_site_and_pack_say_how_to_get_it_in_one_line() {
    let out = scratch("noviewer");
    let out = out.to_str().unwrap();
    for command in ["site", "pack"] {
        let o = agentrisk(&[command, &examples(), "-o", out]);
        assert_eq!(o.status.code(), Some(2), "{command}: {}", stderr(&o));
        assert!(o.stdout.is_empty());
        assert_eq!(
            stderr(&o),
            "agentrisk: this agentrisk was built without the viewer; build one with it: bash scripts/build-cli.sh\n",
            "{command}"
        );
        assert!(!Path::new(out).exists(), "{command} wrote nothing");
    }
}

#[test]
fn site_and_pack_need_an_output_and_an_input() {
    for (command, value) in [("site", "<OUT>"), ("pack", "<REVIEW.html>")] {
        let o = agentrisk(&[command, &examples()]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!(
                "agentrisk: the following required arguments were not provided:\n  --output {value}\n"
            )),
            "{command}: {err}"
        );
        let o = agentrisk(&[command, "-o", "x"]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert!(stderr(&o).contains("  <FILE_OR_DIR>...\n"), "{command}: {}", stderr(&o));
    }
}

#[test]
fn a_bad_config_is_named_and_nothing_is_written() {
    let dir = scratch("badconfig");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("agentleak.yaml");
    std::fs::write(&bad, "scoring:\n  weights: [1, 2\n").unwrap();
    let missing = dir.join("missing.yaml");
    let out = dir.join("out");
    for command in ["site", "pack"] {
        let o = agentrisk(&[command, &examples(), "-o", out.to_str().unwrap(), "-c", bad.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        let err = stderr(&o);
        assert!(err.starts_with(&format!("agentrisk: {}: line ", bad.display())), "{command}: {err}");
        assert_eq!(err.lines().count(), 1, "{command}: {err}");

        let o = agentrisk(&[command, &examples(), "-o", out.to_str().unwrap(), "-c", missing.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert!(
            stderr(&o).starts_with(&format!("agentrisk: {}: cannot read: ", missing.display())),
            "{command}: {}",
            stderr(&o)
        );
        assert!(!out.exists(), "{command} wrote nothing");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A review of the example healthcare trace: its health condition a false
/// positive, its health identifier an accepted risk that never expires,
/// the run approved (docs/review.md).
const REVIEW: &str = r#"{"format": "agentrisk-review", "version": 1,
  "decisions": [
    {"run_id": "run_healthcare_001", "data_type": "health_condition", "channel": "*", "value": "di****es",
     "decision": "false_positive", "rationale": "a leaflet's text", "reviewer": "Dana", "decided_at": "2026-05-20", "expires": null},
    {"run_id": "run_healthcare_001", "data_type": "health_identifier", "channel": "*", "value": "TR********78",
     "decision": "accepted_risk", "rationale": "test patient", "reviewer": "Dana", "decided_at": "2026-05-20", "expires": null}
  ],
  "runs": [{"run_id": "run_healthcare_001", "status": "approved", "reviewer": "Dana", "note": "", "at": "2026-05-21"}]
}"#;

#[test]
fn a_bad_review_file_is_named_and_nothing_is_written() {
    let dir = scratch("badreview");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("review.json");
    std::fs::write(
        &bad,
        REVIEW.replace("\"2026-05-20\", \"expires\": null}\n  ]", "\"2026-02-30\", \"expires\": null}\n  ]"),
    )
    .unwrap();
    let out = dir.join("out");
    for command in ["site", "pack"] {
        let o = agentrisk(&[command, &examples(), "-o", out.to_str().unwrap(), "--review", bad.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{command}");
        assert_eq!(
            stderr(&o),
            format!(
                "agentrisk: {}: decisions[1].decided_at: expected a date as YYYY-MM-DD, found \"2026-02-30\" (no such \
                 day)\n",
                bad.display()
            ),
            "{command}"
        );
        assert!(!out.exists(), "{command} wrote nothing");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn help_shows_the_publishing_flags_and_examples() {
    for (command, example) in
        [("site", "  agentrisk site runs/ -o site/\n"), ("pack", "  agentrisk pack runs/ -o review.html\n")]
    {
        let o = agentrisk(&[command, "--help"]);
        assert_eq!(o.status.code(), Some(0));
        let help = String::from_utf8_lossy(&o.stdout).into_owned();
        for flag in [
            "-o, --output",
            "--title <TEXT>",
            "[default: \"AgentRisk review\"]",
            "-c, --config",
            "--include-traces",
            "--review <FILE>",
        ] {
            assert!(help.contains(flag), "{command}: {flag} in:\n{help}");
        }
        assert!(help[help.rfind("\nExamples:\n").unwrap()..].contains(example), "{command}:\n{help}");
    }
}

/// Values of the example traces that the reports redact (an ID number and
/// a social insurance number from healthcare_trace.json).
#[cfg(feature = "viewer")]
const SECRETS: [&str; 2] = ["TREM12345678", "123-456-789"];

/// Every file under `dir` (relative `/`-separated path, bytes), sorted.
#[cfg(feature = "viewer")]
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(dir: &Path, prefix: &str, files: &mut Vec<(String, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            if path.is_dir() {
                walk(&path, &relative, files);
            } else {
                files.push((relative, std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, "", &mut files);
    files.sort();
    files
}

#[cfg(feature = "viewer")]
fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[cfg(feature = "viewer")]
#[test]
fn a_site_of_the_examples_lists_them_with_matching_digests_and_no_secret() {
    use agentrisk::publish::sha256_hex;

    let out = scratch("site");
    let o = agentrisk(&["site", &examples(), "-o", out.to_str().unwrap(), "--title", "Examples"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(": 10 runs from 10 published files\n"), "{err}");
    assert!(err.contains("reports only (redacted values)"), "{err}");

    let files = files_under(&out);
    let file = |path: &str| &files.iter().find(|(p, _)| p == path).unwrap_or_else(|| panic!("no {path}")).1;
    let manifest: serde_json::Value = serde_json::from_slice(file("manifest.json")).unwrap();
    assert_eq!(manifest["format"], "agentrisk-publication");
    assert_eq!(manifest["title"], "Examples");
    assert_eq!(manifest["tool_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(manifest["include_traces"], false);
    let listed = manifest["files"].as_array().unwrap();
    assert_eq!(listed.len(), 10);
    for entry in listed {
        let name = entry["name"].as_str().unwrap();
        let source = std::fs::read(root().join("www/samples/traces").join(name)).unwrap();
        assert_eq!(entry["sha256"], sha256_hex(&source), "{name}");
        // The folder named starts each run's folder (`agentrisk::batch::folder_of`).
        assert_eq!(entry["folder"], "traces", "{name}");
        assert_eq!(entry["data"]["kind"], "report", "{name}");
        let data = file(entry["data"]["path"].as_str().unwrap());
        assert_eq!(entry["data"]["sha256"], sha256_hex(data), "{name}");
        assert_eq!(entry["data"]["size"], data.len(), "{name}");
    }
    assert!(file("index.html").starts_with(b"<!DOCTYPE html>") || file("index.html").starts_with(b"<!doctype html>"));
    assert!(contains(file("index.html"), agentrisk::publish::DIST_MARKER));
    // No file holds a raw value (the viewer's examples are not copied).
    assert!(!files.iter().any(|(path, _)| path.starts_with("samples/")));
    for (path, bytes) in &files {
        for secret in SECRETS {
            assert!(!contains(bytes, secret), "{secret} in {path}");
        }
    }

    // Re-publishing into the site replaces it: with the raw traces now.
    std::fs::write(out.join("data/stale.json"), "{}").unwrap();
    let o = agentrisk(&["site", &examples(), "-o", out.to_str().unwrap(), "--include-traces", "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let files = files_under(&out);
    assert!(!files.iter().any(|(p, _)| p == "data/stale.json"), "the old site's files are gone");
    let healthcare = files.iter().find(|(p, _)| p == "data/healthcare_trace.json").unwrap();
    assert!(SECRETS.iter().all(|s| contains(&healthcare.1, s)), "--include-traces publishes the raw trace");
    std::fs::remove_dir_all(&out).ok();
}

#[cfg(feature = "viewer")]
#[test]
fn a_folder_that_is_not_a_site_is_kept() {
    let out = scratch("keep");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    let o = agentrisk(&["site", &examples(), "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .starts_with(&format!("agentrisk: {}: the folder is not empty and holds no agentrisk site", out.display())),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 1);
    std::fs::remove_dir_all(&out).ok();
}

#[cfg(feature = "viewer")]
#[test]
fn a_pack_is_written_even_when_an_input_fails_and_names_it() {
    let dir = scratch("pack");
    std::fs::create_dir_all(dir.join("runs/week1")).unwrap();
    std::fs::copy(root().join("www/samples/traces/hr_trace.json"), dir.join("runs/week1/hr_trace.json")).unwrap();
    std::fs::write(dir.join("runs/broken.json"), "{\"events\": [").unwrap();
    let review = dir.join("review.html");
    let missing = dir.join("missing.json");
    let o = agentrisk(&[
        "pack",
        dir.join("runs").to_str().unwrap(),
        missing.to_str().unwrap(),
        "-o",
        review.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains(&format!("agentrisk: {}: cannot read: ", missing.display())), "{err}");
    assert!(err.contains(&format!("agentrisk: {}: ", dir.join("runs/broken.json").display())), "{err}");
    assert!(err.contains(": 1 runs from 1 published files; 1 not published\n"), "{err}");
    let html = std::fs::read_to_string(&review).unwrap();
    assert!(html.starts_with("<!doctype html>"));
    let start = html.find(r#"<script type="application/json" id="agentrisk-manifest">"#).unwrap();
    let json = &html[html[start..].find('>').unwrap() + start + 1..];
    let manifest: serde_json::Value = serde_json::from_str(&json[..json.find("</script>").unwrap()]).unwrap();
    let files = manifest["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!((files[0]["name"].as_str(), files[0]["folder"].as_str()), (Some("broken.json"), Some("runs")));
    assert!(files[0]["error"].is_string());
    assert_eq!((files[1]["name"].as_str(), files[1]["folder"].as_str()), (Some("hr_trace.json"), Some("runs/week1")));
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(feature = "viewer")]
#[test]
fn a_site_inside_its_input_folder_does_not_publish_itself() {
    let dir = scratch("inside");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["hr_trace.json", "finance_clean_trace.json"] {
        std::fs::copy(root().join("www/samples/traces").join(name), dir.join(name)).unwrap();
    }
    let out = dir.join("site");
    for round in 0..2 {
        let o = agentrisk(&["site", dir.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "round {round}: {}", stderr(&o));
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
        let names: Vec<&str> =
            manifest["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["finance_clean_trace.json", "hr_trace.json"], "round {round}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `site --review`: the review file is published first, as itself; the
/// manifest lists it with its SHA-256, names the review and gives each run
/// its reviewed numbers beside the detected ones.
#[cfg(feature = "viewer")]
#[test]
fn a_site_with_a_review_carries_the_record() {
    use agentrisk::publish::sha256_hex;

    let dir = scratch("reviewed");
    std::fs::create_dir_all(&dir).unwrap();
    let review = dir.join("review.json");
    std::fs::write(&review, REVIEW).unwrap();
    let out = dir.join("site");
    let o = agentrisk(&["site", &examples(), "-o", out.to_str().unwrap(), "--review", review.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(": 10 runs from 11 published files, with the review review.json (2 decisions, 1 sign-offs; reviewed numbers as of "),
        "{err}"
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["review"]["files"], serde_json::json!(["review.json"]));
    assert_eq!(manifest["review"]["decisions"], 2);
    let files = manifest["files"].as_array().unwrap();
    assert_eq!((files[0]["name"].as_str(), files[0]["kind"].as_str()), (Some("review.json"), Some("review")));
    assert_eq!(files[0]["sha256"], sha256_hex(REVIEW.as_bytes()));
    assert_eq!(files[0]["data"]["path"], "data/review.json");
    assert_eq!(std::fs::read_to_string(out.join("data/review.json")).unwrap(), REVIEW);
    let healthcare = files.iter().find(|f| f["name"] == "healthcare_trace.json").unwrap();
    let run = &healthcare["numbers"]["runs"][0];
    assert_eq!((run["privacy_score"].as_i64(), run["blocked"].as_bool()), (Some(56), Some(true)));
    let reviewed = &run["reviewed"];
    assert_eq!(
        (reviewed["privacy_score"].as_i64(), reviewed["blocked"].as_bool(), reviewed["status"].as_str()),
        (Some(67), Some(false), Some("approved"))
    );
    // Runs the review does not name get reviewed numbers too (their detected ones).
    let hr = files.iter().find(|f| f["name"] == "hr_trace.json").unwrap();
    assert_eq!(hr["numbers"]["runs"][0]["reviewed"]["privacy_score"], hr["numbers"]["runs"][0]["privacy_score"]);
    std::fs::remove_dir_all(&dir).ok();
}
