//! Saving text the page made (exports) as a file: a Blob, an object URL
//! and a click on a temporary link. Nothing leaves the machine.

use wasm_bindgen::JsCast;
use web_sys::{Blob, BlobPropertyBag, HtmlAnchorElement, Url};

/// Offers `text` as a download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    if let Err(e) = try_download(name, mime, text) {
        web_sys::console::error_2(&"cannot save the export".into(), &e);
    }
}

fn try_download(name: &str, mime: &str, text: &str) -> Result<(), wasm_bindgen::JsValue> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = BlobPropertyBag::new();
    options.set_type(&format!("{mime};charset=utf-8"));
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options)?;
    let url = Url::create_object_url_with_blob(&blob)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let link: HtmlAnchorElement = document.create_element("a")?.dyn_into()?;
    link.set_href(&url);
    link.set_download(name);
    link.click();
    Url::revoke_object_url(&url)?;
    Ok(())
}

/// Prints the page in a mode the print stylesheet reads: `summary` (the
/// headline, profiles and channels) or `expanded` (every listed finding,
/// and only the events that have findings).
pub fn print_page(mode: &str) {
    let Some(window) = web_sys::window() else { return };
    if let Some(root) = window.document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-print", mode);
    }
    let _ = window.print();
}
