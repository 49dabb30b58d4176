//! Printing as a hook: every printed page's margins carry the view's title
//! and settings, and the date is stamped when printing starts, from the
//! page's Print buttons or the browser's own menu. The margins and the
//! stamp are written by `components::download`.

use super::listen_on_window;
use crate::components::download;
use wasm_bindgen::prelude::*;
use yew::prelude::*;

/// Sets the margins' `(title, meta)` whenever they change, and stamps the
/// date on every `beforeprint` for the page's life.
#[hook]
pub fn use_print_margins(margins: (String, String)) {
    use_effect_with(margins, |(title, meta)| {
        download::set_print_margins(title, meta);
        download::stamp_print_date();
    });
    // Printing from the browser's own menu stamps the date too.
    use_effect_with((), |_| listen_on_window("beforeprint", Closure::<dyn Fn()>::new(download::stamp_print_date)));
}
