//! Picking a small settings file (an `agentleak.yaml`, a canary set) with a
//! hidden `<input type="file">`: the page reads its bytes and hands them on
//! for the worker to check; a file too large to be one is refused here.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The largest settings file picked, in bytes.
const MAX_BYTES: f64 = 1e6;

/// The `change` handler of a file input: emits the picked file's name and
/// bytes, or sets `problem` to why not (too large for `what`, unreadable).
/// Read on the page's thread: such a file is a few lines, and a larger
/// file is not one.
pub fn on_small_file(
    what: &'static str,
    problem: UseStateHandle<Option<String>>,
    on_file: Callback<(String, Vec<u8>)>,
) -> Callback<Event> {
    Callback::from(move |e: Event| {
        let input: HtmlInputElement = e.target_unchecked_into();
        let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
        input.set_value("");
        let name = file.name();
        if file.size() > MAX_BYTES {
            problem.set(Some(format!(
                "{name}: {:.1} MB is too large for {what} (at most {} MB)",
                file.size() / 1e6,
                MAX_BYTES / 1e6
            )));
            return;
        }
        let (problem, on_file) = (problem.clone(), on_file.clone());
        wasm_bindgen_futures::spawn_local(async move {
            match JsFuture::from(file.array_buffer()).await {
                Ok(buffer) => {
                    problem.set(None);
                    on_file.emit((name, js_sys::Uint8Array::new(&buffer).to_vec()));
                }
                Err(_) => problem.set(Some(format!("{name}: cannot read the file"))),
            }
        });
    })
}

/// A button's handler that opens the hidden file input `input_id`.
pub fn open_file_input(input_id: &'static str) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| {
        let input = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(input_id))
            .and_then(|e| e.dyn_into::<HtmlInputElement>().ok());
        if let Some(input) = input {
            input.click();
        }
    })
}
