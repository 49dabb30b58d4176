//! Publishing: every data file of a fresh publication gives back the
//! numbers its manifest records (for the corpus's traces, with the
//! reference's defaults and with configs, and for red-team batches),
//! default publications hold no raw secret, any edit is found and named,
//! and a pack's embedded files decode to the published bytes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::Analyser;
use agentrisk::publish::{
    base85_decode, check_file, pack_html, publish, site_files, FileCheck, Manifest, Publication, PublishOptions,
    Source, ViewerAssets, DIST_MARKER,
};
use agentrisk::workspace::{analyser_from_settings, FileResult};
use std::path::{Path, PathBuf};

const CLOCK: &str = "2026-12-06T10:00:00.000000";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `(name, folder, bytes)` of every `.json` file right under `dir`, sorted.
fn files_in(dir: &Path, folder: &str) -> Vec<(String, String, Vec<u8>)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), folder.to_owned(), std::fs::read(&p).unwrap()))
        .collect()
}

fn examples() -> Vec<(String, String, Vec<u8>)> {
    files_in(&root().join("www/samples/traces"), "examples")
}

/// Every conformance case's trace, named after its case.
fn corpus() -> Vec<(String, String, Vec<u8>)> {
    let cases = root().join("tests/fixtures/conformance/cases");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| {
            let name = format!("{}.json", d.file_name().unwrap().to_string_lossy());
            (name, "cases".to_owned(), std::fs::read(d.join("trace.json")).unwrap())
        })
        .collect()
}

fn options(config: Option<(&str, &str)>, include_traces: bool) -> PublishOptions {
    PublishOptions {
        title: "Weekly <runs>".to_owned(),
        generated_at: CLOCK.to_owned(),
        tool_version: "0.1.0".to_owned(),
        config: config.map(|(n, y)| (n.to_owned(), y.to_owned())),
        include_traces,
        span_mapping: Default::default(),
    }
}

fn published(files: &[(String, String, Vec<u8>)], options: &PublishOptions) -> Publication {
    let sources: Vec<Source<'_>> = files.iter().map(|(name, folder, bytes)| Source { name, folder, bytes }).collect();
    publish(&sources, options).unwrap()
}

/// What the viewer does on opening: each data file analysed with the
/// manifest's config, then checked against its entry.
fn checks(publication: &Publication) -> Vec<FileCheck> {
    let manifest = Manifest::from_json(publication.manifest_json().as_bytes()).unwrap();
    assert_eq!(manifest, publication.manifest);
    let analyser = analyser_from_settings(manifest.config.yaml.as_deref().unwrap_or(""))
        .unwrap()
        .with_span_mapping(manifest.span_mapping.unwrap_or_default())
        .with_generated_at(CLOCK);
    manifest
        .files
        .iter()
        .zip(&publication.data)
        .map(|(entry, data)| {
            let Some(data) = data.as_ref() else {
                return FileCheck::Modified { problem: "not published".to_owned() };
            };
            let result = analyser.analyse_file(data, &entry.name, &entry.folder, &|_| {});
            check_file(entry, data, &result)
        })
        .collect()
}

/// Every file published verifies; only the corpus's malformed edge cases
/// (which the reference refuses too) may fail to publish. Returns how
/// many verified.
fn assert_all_verified(publication: &Publication) -> usize {
    let errors: Vec<_> = publication.errors().filter(|(name, _)| !name.starts_with("edge_")).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut verified = 0;
    for ((entry, data), check) in publication.manifest.files.iter().zip(&publication.data).zip(checks(publication)) {
        match data {
            Some(_) => {
                assert_eq!(check, FileCheck::Verified, "{}", entry.name);
                verified += 1;
            }
            None => assert!(entry.error.is_some()),
        }
    }
    verified
}

#[test]
fn the_examples_publish_as_reports_that_verify() {
    let files = examples();
    let publication = published(&files, &options(None, false));
    assert_eq!(publication.manifest.files.len(), 10);
    assert_all_verified(&publication);
    let first = &publication.manifest.files[0];
    assert_eq!(first.name, "customer_support_clean_trace.json");
    assert_eq!(first.kind, "trace");
    assert_eq!(first.data.as_ref().unwrap().kind, "report");
    assert_eq!(first.data.as_ref().unwrap().path, "data/customer_support_clean_trace.report.json");
    assert_eq!(first.sha256, agentrisk::publish::sha256_hex(&files[0].2));
    assert_eq!(first.numbers.runs.len(), 1);
    assert_eq!(publication.manifest.config.summary, "reference defaults");
    // The numbers are the trace's own.
    let healthcare = publication.manifest.files.iter().find(|f| f.name == "healthcare_trace.json").unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(root().join("www/samples/healthcare_trace.report.json")).unwrap())
            .unwrap();
    let run = &healthcare.numbers.runs[0];
    assert_eq!(run.privacy_score, report["privacy_score"].as_i64().unwrap());
    assert_eq!(run.risk_index, report["risk_index"].as_f64().unwrap());
    assert_eq!(run.verdict, report["verdict"].as_str().unwrap());
}

#[test]
fn the_corpus_verifies_with_defaults_and_with_configs() {
    let files = corpus();
    assert!(assert_all_verified(&published(&files, &options(None, false))) > 170);
    for config in ["weights_1_3_9_27.yaml", "no_block_on_critical.yaml", "level_overrides.yaml", "redact_off.yaml"] {
        let yaml = std::fs::read_to_string(root().join("tests/fixtures/conformance/configs").join(config)).unwrap();
        let publication = published(&files[..60], &options(Some((config, &yaml)), false));
        assert_eq!(publication.manifest.config.name.as_deref(), Some(config));
        assert_ne!(publication.manifest.config.summary, "reference defaults", "{config}");
        assert_all_verified(&publication);
    }
    assert_all_verified(&published(&files[..40], &options(None, true)));
}

#[test]
fn red_team_traces_keep_their_records_but_not_their_canaries() {
    let dir = root().join("tests/fixtures/redteam/public_health_a1/traces");
    let files = files_in(&dir, "public_health_a1");
    assert!(files.len() >= 5);
    let publication = published(&files, &options(None, false));
    assert_all_verified(&publication);
    for (entry, data) in publication.manifest.files.iter().zip(&publication.data) {
        assert!(entry.numbers.runs[0].redteam.is_some(), "{}", entry.name);
        let report: serde_json::Value = serde_json::from_slice(data.as_ref().unwrap()).unwrap();
        assert!(report["metadata"].is_object(), "{}", entry.name);
        assert!(report["metadata"].get("canaries").is_none(), "{}", entry.name);
    }
}

/// Every full leaked value the viewer would reveal for the examples.
fn secret_values() -> Vec<String> {
    let mut values = Vec::new();
    for (name, folder, bytes) in examples() {
        if let FileResult::Trace(trace) =
            Analyser::new().with_generated_at(CLOCK).analyse_file(&bytes, &name, &folder, &|_| {})
        {
            // Identifiers, numbers and addresses (a keyword detector's match
            // is an ordinary word that reports may use too).
            values.extend(
                trace
                    .values
                    .into_values()
                    .filter(|v| v.len() >= 8 && v.contains(|c: char| c.is_ascii_digit() || c == '@')),
            );
        }
    }
    assert!(values.len() > 10, "{values:?}");
    values
}

fn text_of(publication: &Publication) -> String {
    let mut text = publication.manifest_json();
    for data in publication.data.iter().flatten() {
        text.push_str(&String::from_utf8_lossy(data));
    }
    text
}

#[test]
fn only_publications_with_traces_hold_raw_values() {
    let secrets = secret_values();
    let reports = text_of(&published(&examples(), &options(None, false)));
    for secret in &secrets {
        assert!(!reports.contains(secret.as_str()), "{secret} published");
    }
    let traces = text_of(&published(&examples(), &options(None, true)));
    assert!(secrets.iter().all(|s| traces.contains(s.as_str())));
}

#[test]
fn edits_are_found_and_named() {
    let mut publication = published(&examples()[..3], &options(None, false));
    // One byte of a data file.
    let data = publication.data[1].as_mut().unwrap();
    let at = data.iter().position(|b| *b == b'7' || *b == b'5').unwrap();
    data[at] = if data[at] == b'7' { b'8' } else { b'6' };
    // A number in the manifest.
    publication.manifest.files[2].numbers.runs[0].privacy_score += 1;
    let checks = checks(&publication);
    assert_eq!(checks[0], FileCheck::Verified);
    match &checks[1] {
        FileCheck::Modified { problem } => assert!(problem.contains("does not match its SHA-256"), "{problem}"),
        other => panic!("{other:?}"),
    }
    match &checks[2] {
        FileCheck::Modified { problem } => assert!(problem.contains("privacy score"), "{problem}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn unreadable_sources_are_listed_not_fatal() {
    let mut files = examples()[..2].to_vec();
    files.push(("broken.json".to_owned(), String::new(), b"{\"events\": [".to_vec()));
    let publication = published(&files, &options(None, false));
    let errors: Vec<_> = publication.errors().collect();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, "broken.json");
    assert!(publication.data[2].is_none());
    assert!(publication.data[0].is_some());
}

#[test]
fn manifests_of_other_formats_are_refused_with_a_reason() {
    assert!(Manifest::from_json(b"[]").unwrap_err().contains("not an agentrisk-publication manifest"));
    let mut manifest: serde_json::Value =
        serde_json::from_str(&published(&examples()[..1], &options(None, false)).manifest_json()).unwrap();
    manifest["format_version"] = 99.into();
    assert!(Manifest::from_json(manifest.to_string().as_bytes()).unwrap_err().contains("version 99"));
    manifest["format_version"] = 1.into();
    manifest["files"][0]["data"]["path"] = "../secret.json".into();
    assert!(Manifest::from_json(manifest.to_string().as_bytes()).unwrap_err().contains("outside data/"));
}

fn fake_dist() -> Vec<(String, Vec<u8>)> {
    vec![
        ("index.html".to_owned(), b"<html><head><title>x</title></head></html>".to_vec()),
        ("sw.js".to_owned(), b"const BUILD = \"abc\";".to_vec()),
        ("style-1.css".to_owned(), b"body{color:red}".to_vec()),
        ("viewer-2.js".to_owned(), b"function __wbg_init(){}\nexport default __wbg_init;".to_vec()),
        ("viewer-2_bg.wasm".to_owned(), vec![0, 97, 115, 109, 1, 0, 0, 0]),
        ("favicon-3.svg".to_owned(), b"<svg/>".to_vec()),
    ]
}

#[test]
fn a_site_marks_its_index_and_names_its_cache_after_the_manifest() {
    let one = published(&examples()[..2], &options(None, false));
    let two = published(&examples()[..3], &options(None, false));
    let files = site_files(&fake_dist(), &one).unwrap();
    let get = |files: &[(String, Vec<u8>)], path: &str| {
        String::from_utf8(files.iter().find(|(p, _)| p == path).unwrap().1.clone()).unwrap()
    };
    assert!(get(&files, "index.html").contains(DIST_MARKER));
    assert_eq!(get(&files, "manifest.json"), one.manifest_json());
    assert!(files.iter().any(|(p, _)| p == "data/customer_support_trace.report.json"));
    let mut dist = fake_dist();
    dist.push(("samples/traces/hr_trace.json".to_owned(), b"{}".to_vec()));
    assert!(!site_files(&dist, &one).unwrap().iter().any(|(p, _)| p.starts_with("samples/")));
    let sw_one = get(&files, "sw.js");
    let sw_two = get(&site_files(&fake_dist(), &two).unwrap(), "sw.js");
    assert!(sw_one.starts_with("const BUILD = \"abc-") || sw_one.contains("-abc\""), "{sw_one}");
    assert_ne!(sw_one, sw_two);
}

#[test]
fn a_pack_holds_everything_inline_and_decodes_to_the_published_bytes() {
    let publication = published(&examples()[..3], &options(None, false));
    let assets = ViewerAssets::from_dist(&fake_dist()).unwrap();
    let html = pack_html(&assets, &publication).unwrap();
    assert!(html.contains("connect-src 'none'"));
    assert!(html.contains("<title>Weekly &lt;runs&gt;</title>"));
    assert!(!html.contains("src=\""), "no external script or image");
    for (i, data) in publication.data.iter().enumerate() {
        let open = format!("data-agentrisk-file=\"{i}\" data-length=\"");
        let start = html.find(&open).unwrap() + open.len();
        let length: usize = html[start..].split('"').next().unwrap().parse().unwrap();
        let text = html[start..].split('>').nth(1).unwrap().split('<').next().unwrap();
        let deflated = base85_decode(text, length).unwrap();
        assert_eq!(Some(&miniz_oxide::inflate::decompress_to_vec(&deflated).unwrap()), data.as_ref());
    }
    let wasm_at = html.find("id=\"agentrisk-wasm\" data-length=\"").unwrap();
    assert!(html[wasm_at..].starts_with(&format!("id=\"agentrisk-wasm\" data-length=\"{}\"", assets.wasm_length)));
    let wasm = base85_decode(&assets.wasm_text, assets.wasm_length).unwrap();
    assert_eq!(miniz_oxide::inflate::decompress_to_vec(&wasm).unwrap(), vec![0, 97, 115, 109, 1, 0, 0, 0]);
}

#[test]
fn scorecards_and_red_team_results_publish_as_they_are_and_verify() {
    use agentrisk::batch::Scorecard;
    use agentrisk::stats::IntervalMethod;
    let runs: Vec<_> = examples()
        .iter()
        .map(|(name, folder, bytes)| {
            match Analyser::new().with_generated_at(CLOCK).analyse_file(bytes, name, folder, &|_| {}) {
                FileResult::Trace(trace) => trace.facts,
                _ => panic!("{name} is a trace"),
            }
        })
        .collect();
    let card = Scorecard::new(runs, Vec::new(), IntervalMethod::new(0.95, false).unwrap(), None).to_json();
    let results = std::fs::read(root().join("tests/fixtures/redteam/public_health_a1/results.json")).unwrap();
    let files = vec![
        ("card.json".to_owned(), String::new(), card.into_bytes()),
        ("results.json".to_owned(), "redteam".to_owned(), results.clone()),
    ];
    let publication = published(&files, &options(None, false));
    assert_eq!(assert_all_verified(&publication), 2);
    let [card, records] = &publication.manifest.files[..] else { panic!() };
    assert_eq!((card.kind.as_str(), card.numbers.runs.len()), ("scorecard", 10));
    assert_eq!(records.kind, "red-team results");
    assert!(!records.numbers.redteam.is_empty());
    assert_eq!(publication.data[1].as_deref(), Some(&results[..]), "published as it is");
}

/// A span export holding two conversations publishes, by default, a
/// report per conversation (`file#conversation`, each with the export's
/// SHA-256); with the traces, the export itself, opened with the mapping
/// the manifest records. Both verify.
#[test]
fn span_exports_publish_a_report_per_conversation_or_themselves() {
    use agentrisk::spans::SpanMapping;
    let bytes = std::fs::read(root().join("tests/fixtures/spans/lc_two_sessions.otlp.json")).unwrap();
    let files = vec![("lc_two_sessions.otlp.json".to_owned(), "otel".to_owned(), bytes)];
    let publication = published(&files, &options(None, false));
    let entries: Vec<(&str, &str, usize)> = publication
        .manifest
        .files
        .iter()
        .map(|f| (f.name.as_str(), f.data.as_ref().unwrap().kind.as_str(), f.numbers.runs.len()))
        .collect();
    assert_eq!(
        entries,
        [("lc_two_sessions.otlp.json#s-1", "report", 1), ("lc_two_sessions.otlp.json#s-2", "report", 1)]
    );
    assert_eq!(publication.manifest.files[0].sha256, publication.manifest.files[1].sha256);
    assert_eq!(publication.manifest.span_mapping, Some(SpanMapping::Structural));
    assert_eq!(publication.manifest.files[1].numbers.runs[0].span_mapping, Some(SpanMapping::Structural));
    assert_eq!(assert_all_verified(&publication), 2);
    // No raw value of the export is in a default publication.
    for data in publication.data.iter().flatten() {
        assert!(!String::from_utf8_lossy(data).contains("078-05-1120"));
    }

    let mut with_traces = options(None, true);
    with_traces.span_mapping = SpanMapping::Reference;
    let publication = published(&files, &with_traces);
    assert_eq!(publication.manifest.files.len(), 1);
    let entry = &publication.manifest.files[0];
    assert_eq!((entry.kind.as_str(), entry.numbers.runs.len()), ("span export", 1), "the reference makes one trace");
    assert_eq!(publication.manifest.span_mapping, Some(SpanMapping::Reference));
    assert_eq!(assert_all_verified(&publication), 1);
}
