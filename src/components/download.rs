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
/// headline, profiles, channels and what to do), `expanded` (also every
/// listed finding, and only the events that have findings), `batch` (the
/// Batch tab), `compare` (the Compare tab) or `trend` (the Trend view).
pub fn print_page(mode: &str) {
    let Some(window) = web_sys::window() else { return };
    if let Some(root) = window.document().and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-print", mode);
    }
    stamp_print_date();
    let _ = window.print();
}

/// What the margins of every printed page say (`@page` in style.css reads
/// these custom properties): `title` names the run or the batch, `meta`
/// the tool's version and the scoring settings.
pub fn set_print_margins(title: &str, meta: &str) {
    let Some(root) = root_html_element() else { return };
    let style = root.style();
    let _ = style.set_property("--print-title", &css_string(title));
    let _ = style.set_property("--print-meta", &css_string(meta));
}

/// Writes the date and time of printing into the printed header
/// (`#print-date`) and the pages' margins. Called when the page is printed
/// (the browser's `beforeprint`, or a Print button) so that the date is
/// that of the printing, not of the last change on screen.
pub fn stamp_print_date() {
    let when = now_text();
    if let Some(root) = root_html_element() {
        let _ = root.style().set_property("--print-date", &css_string(&when));
    }
    if let Some(slot) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("print-date")) {
        slot.set_text_content(Some(&when));
    }
}

fn root_html_element() -> Option<web_sys::HtmlElement> {
    web_sys::window()?.document()?.document_element()?.dyn_into().ok()
}

/// The local date and time to the minute with its offset from UTC, e.g.
/// `2026-12-07 14:03 UTC+01:00`: the same on every browser, whatever its
/// language.
/// Now in UTC as a report's or scorecard's `generated_at` (the core's
/// spelling, from the browser's millisecond clock).
pub fn now_generated_at() -> String {
    let millis = js_sys::Date::now();
    let secs = (millis / 1000.0).floor();
    let micros = ((millis - secs * 1000.0) * 1000.0).round().clamp(0.0, 999_999.0) as u32;
    agentrisk::analyser::generated_at_from_unix(secs as i64, micros)
}

fn now_text() -> String {
    let now = js_sys::Date::new_0();
    // getTimezoneOffset is UTC minus local time, in minutes.
    let offset = -(now.get_timezone_offset() as i64);
    let sign = if offset < 0 { '-' } else { '+' };
    format!(
        "{:04}-{:02}-{:02} {:02}:{:02} UTC{sign}{:02}:{:02}",
        now.get_full_year(),
        now.get_month() + 1,
        now.get_date(),
        now.get_hours(),
        now.get_minutes(),
        offset.abs() / 60,
        offset.abs() % 60
    )
}

/// `text` as a CSS string literal: quotes and backslashes escaped, line
/// breaks and other control characters written as CSS escapes, so that a
/// run id from a file can only ever be text in the page margin.
pub fn css_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push_str(&format!("\\{:x} ", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::css_string;

    #[test]
    fn a_css_string_escapes_quotes_backslashes_and_line_breaks() {
        assert_eq!(css_string("run_1"), "\"run_1\"");
        assert_eq!(css_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
        assert_eq!(css_string("x\ny}"), "\"x\\a y}\"");
    }
}
