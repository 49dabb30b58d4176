//! Light or dark: the reviewer's choice, kept as one word in localStorage
//! and applied as the root element's `data-theme`. Without a saved choice
//! the page follows the system's (the CSS's `prefers-color-scheme`); this
//! module never stores anything read from a file.

/// Where the chosen theme is kept: only this word, never anything loaded.
const THEME_KEY: &str = "agentrisk-theme";

fn root_element() -> Option<web_sys::Element> {
    web_sys::window()?.document()?.document_element()
}

/// Shows the theme chosen last time, if any.
pub fn apply_saved() {
    let saved = web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten());
    if let (Some(theme @ ("light" | "dark")), Some(root)) = (saved.as_deref(), root_element()) {
        let _ = root.set_attribute("data-theme", theme);
    }
}

/// Light if the page shows dark now, else dark; remembered for next time.
pub fn toggle() {
    let Some(root) = root_element() else { return };
    let system_dark = web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches());
    let dark_now = match root.get_attribute("data-theme").as_deref() {
        Some("dark") => true,
        Some("light") => false,
        _ => system_dark,
    };
    let theme = if dark_now { "light" } else { "dark" };
    let _ = root.set_attribute("data-theme", theme);
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(THEME_KEY, theme);
    }
}
