//! Parity with the reference: every conformance case × every stored
//! configuration. For traces the reference accepted, our report equals its
//! report on every compared field and our full finding list equals its
//! finding dump; for traces it rejected, we reject too. Zero mismatches,
//! no skipped case; a mismatch prints the differing fields.
//!
//! `compliance`, `flow` and `leak_paths` are compared in full, the
//! compliance integrity digest included: each report is built with the
//! reference report's own `generated_at`, which the digest hashes.
//!
//! Not compared, by design: free-text wording that is ours (recommendation
//! and advice sentences, warning and policy messages, flow reasons, control
//! rationales, the integrity note and the disclaimer's text and scope —
//! their number and structure are compared).
// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agentrisk::analyser::{Analyser, CanarySetting, Named, NamedConfig};
use agentrisk::analyze::Canaries;
use agentrisk::config::{config_from_yaml, AnalysisConfig};
use agentrisk::trace::parse_trace;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/conformance")
}

/// Python's `json` rejects a BOM; we accept one (the issue allows it). The
/// only case whose reference outcome we deliberately do not share.
const ACCEPTED_BOM_CASE: &str = "edge_json_bom";

fn config_for(variant: &str) -> AnalysisConfig {
    match variant {
        "default" | "pack" => AnalysisConfig::default(),
        "cli_fail_under_95" => {
            let mut c = AnalysisConfig::default();
            c.scoring.fail_below = 95;
            c
        }
        name => {
            let text = std::fs::read_to_string(corpus().join("configs").join(format!("{name}.yaml"))).expect("config");
            config_from_yaml(&text).expect("corpus config loads")
        }
    }
}

fn canaries(case: &Path) -> Option<Canaries> {
    let v: Value = serde_json::from_str(&std::fs::read_to_string(case.join("canaries.json")).ok()?).ok()?;
    let list = |k: &str| {
        v[k].as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect()).unwrap_or_default()
    };
    Some(Canaries { obvious: list("obvious"), realistic: list("realistic"), semantic: list("semantic") })
}

/// Removes what is not compared and turns our-wording fields into counts.
fn normalize(mut r: Value) -> Value {
    let obj = r.as_object_mut().expect("report object");
    if let Some(c) = obj.get_mut("compliance").and_then(Value::as_object_mut) {
        for fw in c.get_mut("frameworks").and_then(Value::as_array_mut).into_iter().flatten() {
            for control in fw.get_mut("controls").and_then(Value::as_array_mut).into_iter().flatten() {
                control.as_object_mut().map(|c| c.remove("rationale"));
            }
        }
        c.get_mut("integrity").and_then(Value::as_object_mut).map(|i| i.remove("note"));
        if let Some(d) = c.get_mut("disclaimer").and_then(Value::as_object_mut) {
            d.remove("text");
            d.remove("scope");
        }
    }
    let count = |v: &Value| json!(v.as_array().map_or(0, Vec::len));
    let recs = count(&obj["recommendations"]);
    obj.insert("recommendations".into(), recs);
    let warns = count(&obj["warnings"]);
    obj.insert("warnings".into(), warns);
    for f in obj["findings"].as_array_mut().into_iter().flatten() {
        f.as_object_mut().map(|f| f.remove("recommendation"));
    }
    for h in obj["remediation_hints"].as_array_mut().into_iter().flatten() {
        if let Some(h) = h.as_object_mut() {
            h.remove("advice");
            h.remove("code_fix");
        }
    }
    if let Some(p) = obj.get_mut("privacy_policy").and_then(Value::as_object_mut) {
        for v in p.get_mut("violations").and_then(Value::as_array_mut).into_iter().flatten() {
            v.as_object_mut().map(|v| v.remove("message"));
        }
        if let Some(flows) = p.get_mut("flows").and_then(Value::as_object_mut) {
            for v in flows.get_mut("violations").and_then(Value::as_array_mut).into_iter().flatten() {
                v.as_object_mut().map(|v| v.remove("reason"));
            }
        }
    }
    // Equal values are ordered by Python set iteration: compare as a map.
    if let Some(a) = obj.get_mut("agentrisk").and_then(Value::as_object_mut) {
        if let Some(m) = a.get("ri_by_channel").and_then(Value::as_object) {
            let sorted: serde_json::Map<String, Value> = m
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<std::collections::BTreeMap<_, _>>()
                .into_iter()
                .collect();
            a.insert("ri_by_channel".into(), Value::Object(sorted));
        }
    }
    r
}

/// The differing places of two reports, by JSON path (at most 8 per
/// top-level key), key order included.
fn diff(ours: &Value, theirs: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (ours.as_object(), theirs.as_object()) else { return vec!["not objects".into()] };
    let mut out = Vec::new();
    for (k, v) in b {
        match a.get(k) {
            None => out.push(format!("    {k}: missing in ours")),
            Some(mine) if mine != v => {
                let mut places = Vec::new();
                diff_at(k, mine, v, &mut places);
                let more = places.len().saturating_sub(8);
                places.truncate(8);
                out.extend(places);
                if more > 0 {
                    out.push(format!("    … and {more} more differences under {k}"));
                }
            }
            Some(_) => {}
        }
    }
    for k in a.keys().filter(|k| !b.contains_key(*k)) {
        out.push(format!("    {k}: only in ours"));
    }
    out
}

fn diff_at(path: &str, ours: &Value, theirs: &Value, out: &mut Vec<String>) {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get(k) {
                    Some(mine) => diff_at(&format!("{path}.{k}"), mine, v, out),
                    None => out.push(format!("    {path}.{k}: missing in ours")),
                }
            }
            for k in a.keys().filter(|k| !b.contains_key(*k)) {
                out.push(format!("    {path}.{k}: only in ours"));
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_at(&format!("{path}[{i}]"), x, y, out);
            }
        }
        (a, b) if a != b => {
            out.push(format!("    {path}:\n      ours   {}\n      theirs {}", cut(&a.to_string()), cut(&b.to_string())))
        }
        _ => {}
    }
}

fn cut(s: &str) -> String {
    if s.len() > 600 {
        format!("{}…", &s[..s.char_indices().nth(600).map_or(s.len(), |(i, _)| i)])
    } else {
        s.to_owned()
    }
}

/// A JSON document reduced to its objects' keys in document order
/// (`serde_json::Value` sorts keys, so order is checked on this).
enum Keys {
    Leaf,
    List(Vec<Keys>),
    Map(Vec<(String, Keys)>),
}

impl<'de> serde::Deserialize<'de> for Keys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Keys, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Keys;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("JSON")
            }
            fn visit_bool<E>(self, _: bool) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_str<E>(self, _: &str) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_unit<E>(self) -> Result<Keys, E> {
                Ok(Keys::Leaf)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Keys, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(Keys::List(items))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(Keys::Map(entries))
            }
        }
        d.deserialize_any(V)
    }
}

/// The first place where two documents list an object's keys in a
/// different order (only where both have the same keys and array lengths).
fn key_order_difference(path: &str, ours: &Keys, theirs: &Keys) -> Option<String> {
    match (ours, theirs) {
        // Ordered by Python set iteration among equal values (compared as a map).
        _ if path == "report.agentrisk.ri_by_channel" => None,
        (Keys::Map(a), Keys::Map(b)) => {
            let (ka, kb): (Vec<&str>, Vec<&str>) =
                (a.iter().map(|(k, _)| k.as_str()).collect(), b.iter().map(|(k, _)| k.as_str()).collect());
            if ka != kb {
                return Some(format!("    {path}: key order\n      ours   {ka:?}\n      theirs {kb:?}"));
            }
            a.iter().zip(b).find_map(|((k, x), (_, y))| key_order_difference(&format!("{path}.{k}"), x, y))
        }
        (Keys::List(a), Keys::List(b)) => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| key_order_difference(&format!("{path}[{i}]"), x, y))
        }
        _ => None,
    }
}

/// (data type, value, channel, event id, level, confidence, detector), in order.
fn finding_rows(findings: &[Value]) -> Vec<String> {
    findings
        .iter()
        .map(|f| {
            format!(
                "{} {} {} {:?} L{} {} {}",
                f["finding_id"].as_str().unwrap_or(""),
                f["event_id"].as_str().unwrap_or(""),
                f["channel"].as_str().unwrap_or(""),
                f["matched_value"].as_str().unwrap_or(""),
                f["level"],
                f["confidence"].as_f64().unwrap_or(-1.0),
                f["data_type"].as_str().unwrap_or("").to_owned() + " " + f["detector"].as_str().unwrap_or(""),
            )
        })
        .collect()
}

#[test]
fn every_case_and_config_matches_the_reference() {
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(corpus().join("cases")).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    let (mut compared, mut rejected, mut finding_lists) = (0, 0, 0);
    let mut failures: Vec<String> = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(case.join("trace.json")).unwrap();
        let parsed = parse_trace(&bytes);
        let mut variants: Vec<(String, bool)> = std::fs::read_dir(case)
            .unwrap()
            .filter_map(|e| {
                let file = e.unwrap().file_name().to_string_lossy().into_owned();
                if let Some(v) = file.strip_prefix("report.").and_then(|f| f.strip_suffix(".json")) {
                    Some((v.to_owned(), true))
                } else {
                    file.strip_prefix("error.").and_then(|f| f.strip_suffix(".txt")).map(|v| (v.to_owned(), false))
                }
            })
            .collect();
        variants.sort();
        for (variant, has_report) in variants {
            let label = format!("{name} [{variant}]");
            let config = config_for(&variant);
            let canary_set = if variant == "pack" { canaries(case) } else { None };
            let theirs: Option<Value> = has_report.then(|| {
                serde_json::from_slice(&std::fs::read(case.join(format!("report.{variant}.json"))).unwrap()).unwrap()
            });
            // The digest hashes generated_at: build ours at the same instant.
            let generated_at = theirs.as_ref().and_then(|t| t["generated_at"].as_str()).unwrap_or_default().to_owned();
            let analyser = Analyser::new()
                .with_config(Some(NamedConfig { name: format!("{variant}.yaml"), config }))
                .with_canaries(canary_set.map(|canaries| CanarySetting { name: "canaries.json".to_owned(), canaries }))
                .with_generated_at(generated_at);
            let outcome = analyser.trace_report(Named { name: "trace.json", bytes: &bytes }).map_err(|e| e.to_string());
            match (has_report, outcome) {
                (true, Ok(report)) => {
                    compared += 1;
                    let theirs = theirs.expect("read with the variant");
                    for key in ["compliance", "flow", "leak_paths"] {
                        assert!(theirs.get(key).is_some(), "{label}: the reference report has no {key}");
                    }
                    let ours = serde_json::to_value(&report).unwrap();
                    let d = diff(&normalize(ours), &normalize(theirs));
                    if !d.is_empty() {
                        failures.push(format!("{label}: report differs\n{}", d.join("\n")));
                    } else {
                        let their_bytes = std::fs::read(case.join(format!("report.{variant}.json"))).unwrap();
                        let theirs: Keys = serde_json::from_slice(&their_bytes).unwrap();
                        let ours: Keys = serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
                        if let Some(d) = key_order_difference("report", &ours, &theirs) {
                            failures.push(format!("{label}: key order differs\n{d}"));
                        }
                    }
                }
                (true, Err(e)) => failures.push(format!("{label}: the reference wrote a report, we failed: {e}")),
                (false, Err(message)) => {
                    rejected += 1;
                    assert!(!message.is_empty());
                }
                (false, Ok(_)) if name == ACCEPTED_BOM_CASE => {}
                (false, Ok(_)) => {
                    failures.push(format!("{label}: the reference rejected this trace, we wrote a report"))
                }
            }
        }
        for variant in ["default", "pack"] {
            let Ok(text) = std::fs::read_to_string(case.join(format!("findings.{variant}.json"))) else { continue };
            let Ok(trace) = &parsed else { continue };
            let dump: Value = serde_json::from_str(&text).unwrap();
            let config = AnalysisConfig::default();
            let canary_set = if variant == "pack" { canaries(case) } else { None };
            let detection = Analyser::new().detection_settings().unwrap();
            let found = agentrisk::analyze::findings_from_events(
                &trace.events,
                &detection,
                &config.scoring,
                canary_set.as_ref(),
            );
            let ours: Vec<Value> = found
                .iter()
                .map(|f| json!({"finding_id": f.finding_id(), "event_id": &*f.event_id, "channel": f.channel.as_str(), "matched_value": f.matched_value, "level": f.level.get(), "confidence": f.confidence, "data_type": f.data_type, "detector": f.detector}))
                .collect();
            let (a, b) = (finding_rows(&ours), finding_rows(dump["findings"].as_array().unwrap()));
            finding_lists += 1;
            if a != b {
                let first = a.iter().zip(&b).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                failures.push(format!(
                    "{name} findings.{variant}: {} ours vs {} theirs; first difference at #{first}:\n      ours   {}\n      theirs {}",
                    a.len(),
                    b.len(),
                    a.get(first).map_or("<none>", String::as_str),
                    b.get(first).map_or("<none>", String::as_str)
                ));
            }
        }
    }
    eprintln!("compared {compared} reports, {rejected} rejections, {finding_lists} finding lists");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    assert_eq!((compared, rejected, finding_lists), (654, 28, 372));
}

/// OpenTelemetry span exports read with `--span-mapping reference` give
/// the reference's trace (`trace_from_spans(payload, run_id=<stem>)`,
/// event by event) and its report, on every fixture made by real
/// instrumentors (`tests/fixtures/spans`, `scripts/otel-fixtures/`).
#[test]
fn span_exports_under_the_reference_mapping_match_the_reference() {
    use agentrisk::analyser::Keep;
    use agentrisk::spans::SpanMapping;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/spans");
    let mut names: Vec<String> = std::fs::read_dir(dir.join("reference"))
        .unwrap()
        .filter_map(|e| e.unwrap().file_name().to_str()?.strip_suffix(".report.json").map(str::to_owned))
        .collect();
    names.sort();
    assert!(names.len() >= 19, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let read = |file: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(dir.join("reference").join(file)).unwrap()).unwrap()
        };
        let theirs = read(&format!("{name}.report.json"));
        let their_trace = read(&format!("{name}.trace.json"));
        let analyser = Analyser::new()
            .with_span_mapping(SpanMapping::Reference)
            .with_generated_at(theirs["generated_at"].as_str().unwrap());
        let analysis = analyser.analyse_trace(name, bytes.into(), None, Keep::Trace).unwrap();
        let trace = analysis.trace.unwrap();
        let ours_events: Vec<Value> = trace
            .events
            .iter()
            .map(|e| {
                let metadata: serde_json::Map<String, Value> =
                    e.metadata.iter().map(|(k, v)| (k.clone(), v.to_json())).collect();
                json!({"event_id": &*e.event_id, "channel": e.channel.as_str(), "source": &*e.source,
                       "target": &*e.target, "content": &*e.text, "metadata": metadata})
            })
            .collect();
        let their_events: Vec<Value> = their_trace["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                json!({"event_id": e["event_id"], "channel": e["channel"], "source": e["source"],
                       "target": e["target"], "content": e["content"], "metadata": e["metadata"]})
            })
            .collect();
        if ours_events != their_events || trace.run_id != their_trace["run_id"] {
            failures.push(format!(
                "{name}: the trace differs ({} events here, {} there)",
                ours_events.len(),
                their_events.len()
            ));
            continue;
        }
        let mut ours = serde_json::to_value(&analysis.report).unwrap();
        let source = ours.as_object_mut().unwrap().remove("span_source").unwrap();
        assert_eq!(source["mapping"], "reference", "{name}");
        let differences = diff(&normalize(ours), &normalize(theirs));
        if !differences.is_empty() {
            failures.push(format!("{name}:\n{}", differences.join("\n")));
        }
    }
    assert!(failures.is_empty(), "{} of {} span exports differ:\n{}", failures.len(), names.len(), failures.join("\n"));
}
