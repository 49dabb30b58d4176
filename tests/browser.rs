//! In headless Chromium (wasm-bindgen-test): the core compiled to wasm32
//! gives the same numbers, and the components render what the state holds.
#![cfg(target_arch = "wasm32")]

use agentrisk_viewer::components::run_table::{RunTable, RunTableProps};
use agentrisk_viewer::protocol::{analyze_bytes, FileResult};
use agentrisk_viewer::state::{Action, FileEntry, FileStatus, State};
use std::rc::Rc;
use wasm_bindgen_test::*;
use yew::{Callback, Reducible};

wasm_bindgen_test_configure!(run_in_browser);

const HEALTHCARE: &[u8] = include_bytes!("../www/samples/healthcare_trace.report.json");

fn loaded_entry(id: u32) -> FileEntry {
    match analyze_bytes(HEALTHCARE) {
        FileResult::Report(loaded) => {
            FileEntry { id, name: "hc.json".into(), status: FileStatus::Loaded(Rc::new(*loaded)) }
        }
        FileResult::Error { message } => panic!("{message}"),
    }
}

#[wasm_bindgen_test]
fn the_core_in_wasm_rescores_a_report_like_native() {
    let FileResult::Report(loaded) = analyze_bytes(HEALTHCARE) else { panic!("not loaded") };
    let r = &loaded.rescore.recomputed;
    assert!(loaded.rescore.consistent);
    assert_eq!((r.wsl, r.rho_s, r.risk_index, r.privacy_score, r.blocked), (11, 25, 0.44, 56, true));
    let FileResult::Error { message } = analyze_bytes(b"{\"report\": 1") else { panic!("loaded garbage") };
    assert_eq!(message, "invalid JSON at line 1, column 12: EOF while parsing an object");
}

#[wasm_bindgen_test]
fn the_state_keeps_other_files_when_one_fails_or_the_worker_dies() {
    let state = Rc::new(State::default());
    let state = state.reduce(Action::Queued { id: 1, name: "a.json".into() });
    let state = state.reduce(Action::Queued { id: 2, name: "b.json".into() });
    let state = state.reduce(Action::Finished { id: 1, result: analyze_bytes(HEALTHCARE) });
    let state = state.reduce(Action::WorkerFailed("the analysis worker stopped".into()));
    assert!(matches!(state.files[0].status, FileStatus::Loaded(_)));
    assert_eq!(state.files[1].status, FileStatus::Failed("the analysis worker stopped".into()));
    let state = state.reduce(Action::Select(1));
    assert_eq!(state.selected_report().map(|(f, _)| f.id), Some(1));
    let state = state.reduce(Action::Remove(1));
    assert_eq!((state.files.len(), state.selected), (1, None));
}

#[wasm_bindgen_test]
async fn the_run_table_renders_data_attributes_and_error_rows() {
    let document = gloo_utils_document();
    let root = document.create_element("div").unwrap();
    document.body().unwrap().append_child(&root).unwrap();
    let props = RunTableProps {
        files: vec![
            loaded_entry(1),
            FileEntry { id: 2, name: "bad.json".into(), status: FileStatus::Failed("invalid JSON at line 1".into()) },
        ],
        selected: None,
        on_select: Callback::noop(),
        on_remove: Callback::noop(),
    };
    yew::Renderer::<RunTable>::with_root_and_props(root.clone(), props).render();
    // Let Yew's scheduler render.
    wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20).unwrap();
    }))
    .await
    .unwrap();
    let row = root.query_selector("tr.run-row").unwrap().expect("a run row");
    let attr = |name: &str| row.get_attribute(name).unwrap_or_default();
    assert_eq!(attr("data-run-id"), "run_healthcare_001");
    assert_eq!(attr("data-risk-index"), "0.44");
    assert_eq!(attr("data-privacy-score"), "56");
    assert_eq!(attr("data-verdict"), "High risk");
    assert_eq!(attr("data-blocked"), "true");
    let error = root.query_selector("tr.error-row").unwrap().expect("an error row");
    assert_eq!(error.get_attribute("data-file").as_deref(), Some("bad.json"));
    assert!(error.text_content().unwrap_or_default().contains("invalid JSON at line 1"));
    root.remove();
}

fn gloo_utils_document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}
