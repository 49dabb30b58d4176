//! In headless Chromium (wasm-bindgen-test): the core compiled to wasm32
//! gives the same numbers, and the components render what the state holds.
#![cfg(target_arch = "wasm32")]

use agentrisk::analyser::Analyser;
use agentrisk::workspace::FileResult;
use agentrisk_viewer::components::run_detail::{RunDetail, RunDetailProps};
use agentrisk_viewer::components::run_table::{RunTable, RunTableProps};
use agentrisk_viewer::protocol::{PackRequest, Phase, Source, ToWorker};
use agentrisk_viewer::state::{FileEntry, FileStatus, Progress, Run};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use yew::Callback;

wasm_bindgen_test_configure!(run_in_browser);

const HEALTHCARE: &[u8] = include_bytes!("../www/samples/healthcare_trace.report.json");
const HEALTHCARE_TRACE: &[u8] = include_bytes!("fixtures/conformance/cases/ex_healthcare_trace/trace.json");

fn analyze(bytes: &[u8]) -> FileResult {
    Analyser::new().with_generated_at("2026-12-02T12:00:00.000Z").analyse_file(bytes, "file.json", "", &|_| {})
}

fn loaded_entry(id: u32) -> FileEntry {
    match analyze(HEALTHCARE) {
        FileResult::Report(loaded) => FileEntry {
            id,
            file: id,
            name: "hc.json".into(),
            folder: String::new(),
            status: FileStatus::Loaded(Run::Report(Rc::new(*loaded))),
        },
        _ => panic!("not a report"),
    }
}

fn trace_run() -> Run {
    match analyze(HEALTHCARE_TRACE) {
        FileResult::Trace(trace) => Run::Trace(Rc::new(*trace)),
        _ => panic!("not a trace"),
    }
}

/// Lets Yew's scheduler render.
async fn tick() {
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20).unwrap();
    }))
    .await
    .unwrap();
}

fn mount_point() -> web_sys::Element {
    let document = gloo_utils_document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    root
}

#[wasm_bindgen_test]
fn the_core_in_wasm_rescores_a_report_like_native() {
    let FileResult::Report(loaded) = analyze(HEALTHCARE) else { panic!("not loaded") };
    let r = &loaded.rescore.recomputed;
    assert!(loaded.rescore.consistent);
    assert_eq!((r.wsl, r.rho_s, r.risk_index, r.privacy_score, r.blocked), (11, 25, 0.44, 56, true));
    let FileResult::Error { message } = analyze(b"{\"report\": \"agentleak\"") else { panic!("loaded garbage") };
    assert_eq!(message, "invalid JSON at line 1, column 22: EOF while parsing an object");
}

#[wasm_bindgen_test]
fn the_core_in_wasm_analyzes_a_trace_like_the_reference() {
    let FileResult::Trace(trace) = analyze(HEALTHCARE_TRACE) else { panic!("not analysed") };
    let r = &trace.report;
    assert_eq!((r.wsl, r.rho_s, r.risk_index, r.privacy_score, r.blocked), (11, 25, 0.44, 56, true));
    assert_eq!((trace.events.len(), trace.events_total, r.findings.len()), (7, 7, 6));
    assert_eq!(trace.block_reasons, vec![agentrisk::workspace::BlockReason::CriticalLeak]);
}

#[wasm_bindgen_test]
fn a_panic_shows_on_the_page_as_text_once() {
    agentrisk_viewer::show_internal_error("index out of bounds <b>at</b> src/x.rs");
    agentrisk_viewer::show_internal_error("a second panic");
    let document = web_sys::window().and_then(|w| w.document()).expect("a document");
    let banner = document.get_element_by_id("internal-error").expect("the banner is shown");
    assert_eq!(banner.get_attribute("role").as_deref(), Some("alert"));
    let text = banner.text_content().unwrap_or_default();
    assert!(text.contains("index out of bounds <b>at</b> src/x.rs") && text.contains("reload the page"), "{text}");
    assert_eq!(banner.child_element_count(), 0, "the message is text, not markup");
    assert!(!text.contains("a second panic"), "the first panic stays shown: {text}");
    banner.remove();
}

#[wasm_bindgen_test]
async fn the_run_table_renders_data_attributes_and_error_rows() {
    let root = mount_point();
    let props = RunTableProps {
        files: vec![
            loaded_entry(1),
            FileEntry {
                id: 2,
                file: 2,
                name: "bad.json".into(),
                folder: String::new(),
                status: FileStatus::Failed("invalid JSON at line 1".into()),
            },
            FileEntry {
                id: 3,
                file: 3,
                name: "trace.json".into(),
                folder: String::new(),
                status: FileStatus::Loaded(trace_run()),
            },
            FileEntry {
                id: 4,
                file: 4,
                name: "big.json".into(),
                folder: String::new(),
                status: FileStatus::Working(Some(Progress {
                    phase: Phase::Detecting,
                    bytes: 12_345_678,
                    percent: Some(42),
                    mb_per_s: Some(14.06),
                })),
            },
        ],
        selected: None,
        on_select: Callback::noop(),
        on_remove: Callback::noop(),
        reviews: Default::default(),
        review: Default::default(),
        unmatched: Default::default(),
    };
    yew::Renderer::<RunTable>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let row = root.query_selector("tr.run-row[data-kind=report]").unwrap().expect("a run row");
    let attr = |name: &str| row.get_attribute(name).unwrap_or_default();
    assert_eq!(attr("data-run-id"), "run_healthcare_001");
    assert_eq!(attr("data-risk-index"), "0.44");
    assert_eq!(attr("data-privacy-score"), "56");
    assert_eq!(attr("data-verdict"), "High risk");
    assert_eq!(attr("data-blocked"), "true");
    let error = root.query_selector("tr.error-row").unwrap().expect("an error row");
    assert_eq!(error.get_attribute("data-file").as_deref(), Some("bad.json"));
    assert!(error.text_content().unwrap_or_default().contains("invalid JSON at line 1"));

    let trace = root.query_selector("tr.run-row[data-kind=trace]").unwrap().expect("a trace row");
    let attr = |name: &str| trace.get_attribute(name).unwrap_or_default();
    assert_eq!(
        [attr("data-run-id"), attr("data-privacy-score"), attr("data-blocked"), attr("data-consistent")],
        ["run_healthcare_001", "56", "true", "true"]
    );
    assert!(trace.text_content().unwrap_or_default().contains("analysed here"));
    let working = root.query_selector("tr.reading-row").unwrap().expect("a working row");
    assert!(working.text_content().unwrap_or_default().contains("Detecting… · 42% · 14.1 MB/s · 12.3 MB"));
    let bar = working.query_selector("progress").unwrap().expect("a progress bar");
    assert_eq!(bar.get_attribute("value").as_deref(), Some("42"));
    root.remove();
}

#[wasm_bindgen_test]
async fn a_trace_run_view_lists_events_and_links_findings_to_them() {
    let root = mount_point();
    let props = RunDetailProps {
        file_name: "trace.json".into(),
        run: trace_run(),
        on_close: Callback::noop(),
        filters: Default::default(),
        on_filters: Callback::noop(),
        whatif: agentrisk::config::WhatIf::reference_defaults(),
        review: Default::default(),
        reviewed: None,
        reviewer: String::new(),
        today: None,
        review_problem: None,
        on_review: Callback::noop(),
        on_reviewer: Callback::noop(),
        on_export_trace: Callback::noop(),
        export_problem: None,
    };
    yew::Renderer::<RunDetail>::with_root_and_props(root.clone(), props).render();
    tick().await;
    // A decision control per leaked secret (data type and redacted value):
    // a radio group with a name of its own, labelled, and a Save button.
    let secrets = root.query_selector_all("#review-secrets tr.secret-row").unwrap();
    assert_eq!(secrets.length(), 4);
    let radios = root.query_selector_all("tr.secret-row[data-value='di****es'] input[type=radio]").unwrap();
    assert_eq!(radios.length(), 3);
    let labels = root.query_selector_all("tr.secret-row[data-value='di****es'] label").unwrap();
    let first = labels.get(0).and_then(|l| l.text_content()).unwrap_or_default();
    assert_eq!(first, "Confirm");
    let rows = root.query_selector_all(".events-table tbody tr.event-row").unwrap();
    assert_eq!(rows.length(), 7);
    // A trace is no span export: nothing to convert, no span column.
    assert!(root.query_selector("#export-trace").unwrap().is_none());
    assert!(root.query_selector(".span-ref").unwrap().is_none());
    let marked = root.query_selector_all("tr.event-row.has-finding").unwrap();
    assert_eq!(marked.length(), 4); // evt_002, evt_004, evt_005, evt_006
    let memo = root.query_selector("#event-3").unwrap().expect("evt_004's row");
    let memo_text = memo.text_content().unwrap_or_default();
    assert!(memo_text.contains("NAM TR********78") && !memo_text.contains("TREM12345678"), "{memo_text}");
    let headline = root.query_selector(".gate-reasons").unwrap().expect("gate reasons").text_content();
    assert_eq!(headline.as_deref(), Some("a critical (L4) secret leaked"));

    let link: web_sys::HtmlElement = root
        .query_selector("tr[data-finding-id=finding_015] a.event-link")
        .unwrap()
        .expect("finding_015 links to its event")
        .dyn_into()
        .unwrap();
    assert_eq!(link.get_attribute("data-event-index").as_deref(), Some("5"));
    link.click();
    tick().await;
    let highlighted = root.query_selector_all("tr.event-row.highlighted").unwrap();
    assert_eq!(highlighted.length(), 1);
    let row = highlighted.get(0).unwrap().dyn_into::<web_sys::Element>().unwrap();
    assert_eq!(row.get_attribute("data-event-id").as_deref(), Some("evt_006"));
    // The row takes the focus in an effect after its render: on a busy
    // machine that can be a tick later than the highlight.
    let focused = || gloo_utils_document().active_element().and_then(|e| e.get_attribute("id"));
    for _ in 0..20 {
        if focused().is_some() {
            break;
        }
        tick().await;
    }
    assert_eq!(focused().as_deref(), Some("event-5"));
    root.remove();
}

#[wasm_bindgen_test]
async fn a_span_run_view_names_its_mapping_and_each_events_span() {
    let root = mount_point();
    let spans = include_bytes!("fixtures/spans/lc_tool_args_leak.otlp.json");
    let FileResult::Spans(mut runs) = Analyser::new().with_generated_at("2026-12-02T12:00:00.000Z").analyse_file(
        spans,
        "args.otlp.json",
        "",
        &|_| {},
    ) else {
        panic!("not a span export")
    };
    let exported = std::rc::Rc::new(std::cell::Cell::new(0));
    let on_export_trace = {
        let exported = exported.clone();
        Callback::from(move |()| exported.set(exported.get() + 1))
    };
    let props = RunDetailProps {
        file_name: "args.otlp.json".into(),
        run: Run::Trace(Rc::new(runs.runs.remove(0))),
        on_close: Callback::noop(),
        filters: Default::default(),
        on_filters: Callback::noop(),
        whatif: agentrisk::config::WhatIf::reference_defaults(),
        on_export_trace,
        export_problem: Some("args.otlp.json: no longer loaded".into()),
        review: Default::default(),
        reviewed: None,
        reviewer: String::new(),
        today: None,
        review_problem: None,
        on_review: Callback::noop(),
        on_reviewer: Callback::noop(),
    };
    yew::Renderer::<RunDetail>::with_root_and_props(root.clone(), props).render();
    tick().await;
    let text =
        |selector: &str| root.query_selector(selector).unwrap().and_then(|e| e.text_content()).unwrap_or_default();
    assert!(text("#run-badges").starts_with("OTLP JSON · structural"), "{}", text("#run-badges"));
    assert_eq!(text(".run-detail .kind"), "spans, analysed here");
    assert_eq!(text("#export-trace-problem"), "args.otlp.json: no longer loaded");
    let cells = root.query_selector_all(".events-table td.span-ref").unwrap();
    assert!(cells.length() > 0);
    for i in 0..cells.length() {
        let cell = cells.get(i).unwrap().dyn_into::<web_sys::Element>().unwrap();
        let (name, span_id) = (cell.get_attribute("data-span-name"), cell.get_attribute("data-span-id"));
        assert!(name.is_some_and(|n| !n.is_empty()) && span_id.as_ref().is_some_and(|s| s.len() == 16), "{span_id:?}");
        let title = cell.get_attribute("title").unwrap_or_default();
        assert!(
            title.contains(&format!("span id {}", span_id.unwrap_or_default())) && title.contains("trace id "),
            "{title}"
        );
    }
    let button: web_sys::HtmlElement =
        root.query_selector("#export-trace").unwrap().expect("a span run exports").dyn_into().unwrap();
    button.click();
    assert_eq!(exported.get(), 1);
    root.remove();
}

/// `value` as the worker receives it from `postMessage`: a structured clone.
fn structured_clone(value: &wasm_bindgen::JsValue) -> wasm_bindgen::JsValue {
    let clone: js_sys::Function = js_sys::Reflect::get(&js_sys::global(), &"structuredClone".into()).unwrap().into();
    clone.call1(&wasm_bindgen::JsValue::UNDEFINED, value).unwrap()
}

fn get(object: &wasm_bindgen::JsValue, key: &str) -> wasm_bindgen::JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap()
}

#[wasm_bindgen_test]
async fn every_message_to_the_worker_crosses_as_a_js_object_and_back() {
    let text = "{\"run_id\": \"r1\", \"events\": []}";
    let blob = web_sys::Blob::new_with_str_sequence(&js_sys::Array::of1(&text.into())).unwrap();
    let request = PackRequest {
        title: "Nightly".into(),
        include_traces: false,
        settings: None,
        css: "body{}".into(),
        glue: "export default 1".into(),
        favicon: "data:image/svg+xml;base64,PHN2Zy8+".into(),
        wasm_deflated: Some((4, "!!!!#".into())),
    };
    let bytes: Vec<u8> = (0..=255).collect();
    let messages = [
        ToWorker::Open { id: 1, name: "a.json".into(), folder: "runs".into(), source: Source::Blob(blob.clone()) },
        ToWorker::Open { id: 2, name: "b.json".into(), folder: String::new(), source: Source::Url("/s/b.json".into()) },
        ToWorker::Settings { yaml: "scoring: {}".into() },
        ToWorker::ReadSettings { name: "agentleak.yaml".into(), bytes: bytes.clone() },
        ToWorker::Forget { id: u32::MAX },
        ToWorker::ReadCanaries { name: "c.json".into(), bytes: b"{}".to_vec() },
        ToWorker::ClearCanaries,
        ToWorker::Publication { manifest: "{\"files\": []}".into() },
        ToWorker::SavePack { request, wasm: bytes.clone() },
    ];
    for message in &messages {
        assert_eq!(ToWorker::from_js(&message.to_js()).as_ref(), Ok(message));
    }

    // The page posts the blob itself, not its bytes; bytes go as one Uint8Array.
    let open = messages[0].to_js();
    assert!(js_sys::Object::is(&get(&get(&get(&open, "open"), "source"), "blob"), &blob));
    let sent = get(&get(&messages[3].to_js(), "read_settings"), "bytes");
    assert!(sent.is_instance_of::<js_sys::Uint8Array>(), "{sent:?}");
    assert_eq!(js_sys::Uint8Array::from(sent).to_vec(), bytes);

    // Through postMessage's structured clone the worker gets a blob with the same contents.
    let Ok(ToWorker::Open { id: 1, source: Source::Blob(received), .. }) = ToWorker::from_js(&structured_clone(&open))
    else {
        panic!("not an open message with a blob")
    };
    let read = wasm_bindgen_futures::JsFuture::from(received.text()).await.unwrap();
    assert_eq!(read.as_string().as_deref(), Some(text));

    let unknown = ToWorker::from_js(&"reload".into()).unwrap_err();
    assert!(unknown.starts_with("unreadable message: ") && unknown.contains("unknown variant `reload`"), "{unknown}");
}

fn gloo_utils_document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}
