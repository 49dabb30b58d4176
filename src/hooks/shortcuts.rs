//! Keyboard shortcuts as a hook: one `keydown` listener on the window for
//! the page's life, which turns keys into actions while no text field has
//! the focus. [`SHORTCUTS`] is the list the help dialog shows.

use super::listen_on_window;
use crate::state::{Action, Tab};
use crate::theme;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The keyboard shortcuts, as the help dialog lists them.
pub const SHORTCUTS: [(&str, &str); 9] = [
    ("o", "open files"),
    ("/", "search the findings (or, in the Batch tab, set the confidence level)"),
    ("j or n", "next run"),
    ("k or p", "previous run"),
    ("r", "Runs tab"),
    ("b", "Batch tab"),
    ("t", "light or dark"),
    ("?", "this help"),
    ("Esc", "close the run view or this help"),
];

/// Listens from the first render on; `open_files` and `open_help` are what
/// `o` and `?` do.
#[hook]
pub fn use_keyboard_shortcuts(dispatch: Callback<Action>, open_files: Callback<()>, open_help: Callback<()>) {
    use_effect_with((), move |_| {
        let listener = Closure::<dyn Fn(KeyboardEvent)>::new(move |event: KeyboardEvent| {
            if event.ctrl_key() || event.meta_key() || event.alt_key() || typing(&event) {
                return;
            }
            match event.key().as_str() {
                "o" => open_files.emit(()),
                "/" => focus_search(&event),
                "j" | "n" => dispatch.emit(Action::Step(1)),
                "k" | "p" => dispatch.emit(Action::Step(-1)),
                "r" => dispatch.emit(Action::ShowTab(Tab::Runs)),
                "b" => dispatch.emit(Action::ShowTab(Tab::Batch)),
                "t" => theme::toggle(),
                "?" => open_help.emit(()),
                "Escape" => dispatch.emit(Action::CloseRun),
                _ => {}
            }
        });
        listen_on_window("keydown", listener)
    });
}

/// `/`: the findings search of an open run, or the Batch tab's confidence
/// level, whichever the page shows; the key itself is not typed into it.
fn focus_search(event: &KeyboardEvent) {
    let field = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector("#finding-search, #confidence").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    if let Some(field) = field {
        event.prevent_default();
        let _ = field.focus();
    }
}

/// True when a key goes to a text field, select or other editable element.
fn typing(event: &KeyboardEvent) -> bool {
    event.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()).is_some_and(|e| {
        matches!(e.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT")
            || e.closest("[contenteditable]").ok().flatten().is_some()
    })
}
