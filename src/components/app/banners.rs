//! The page's banners: the prompt to open the files a link names
//! (`src=` in the hash), and the note that what-if settings are active.

use crate::bridge::Source;
use crate::hooks::files::{AddFiles, Picked};
use agentrisk::config::WhatIf;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SrcPromptProps {
    /// The paths the link names, as written.
    pub src: Vec<String>,
    pub on_add: AddFiles,
    /// The reviewer answered, either way.
    pub on_answered: Callback<()>,
}

/// Asks before opening a link's files: only files of this site are opened,
/// and the others are listed with why not.
#[function_component(SrcPrompt)]
pub fn src_prompt(props: &SrcPromptProps) -> Html {
    let refused: Vec<String> = props.src.iter().filter_map(|p| same_origin_url(p).err()).collect();
    let open = {
        let (add, answered, src) = (props.on_add.clone(), props.on_answered.clone(), props.src.clone());
        Callback::from(move |_: MouseEvent| {
            answered.emit(());
            let mut picked = Vec::new();
            for path in &src {
                match same_origin_url(path) {
                    Ok(url) => picked.push(Picked::at_path(path.clone(), Source::Url(url))),
                    Err(message) => web_sys::console::warn_1(&message.into()),
                }
            }
            add.emit(picked);
        })
    };
    let dismiss = props.on_answered.reform(|_: MouseEvent| ());
    html! {
        <div class="banner" role="alertdialog" aria-labelledby="src-title" id="src-prompt">
            <p id="src-title"><strong>{ "This link asks to open files from this site:" }</strong></p>
            <ul>{ for props.src.iter().map(|p| html! { <li class="mono">{ p }</li> }) }</ul>
            if !refused.is_empty() {
                <ul class="error-message">{ for refused.iter().map(|m| html! { <li>{ m }</li> }) }</ul>
            }
            <p class="muted">{ "They are read from this site only, analysed in this tab, and never sent anywhere." }</p>
            <button type="button" class="button primary" id="src-open" onclick={open}>{ "Open them" }</button>
            { " " }
            <button type="button" class="button" id="src-dismiss" onclick={dismiss}>{ "Not now" }</button>
        </div>
    }
}

/// The absolute URL of `path` if it is a file of this site (same origin),
/// else why not.
fn same_origin_url(path: &str) -> Result<String, String> {
    let location = web_sys::window().map(|w| w.location()).ok_or("no window")?;
    let base = location.href().map_err(|_| "no page address".to_owned())?;
    let origin = location.origin().map_err(|_| "no page origin".to_owned())?;
    let url = web_sys::Url::new_with_base(path, &base).map_err(|_| format!("{path}: not a valid address"))?;
    if url.origin() != origin || !matches!(url.protocol().as_str(), "http:" | "https:") {
        return Err(format!("{path}: not a file of this site, so it is not opened"));
    }
    url.set_hash("");
    Ok(url.href())
}

#[derive(Properties, PartialEq)]
pub struct WhatIfBannerProps {
    /// The settings in force (not the reference's defaults).
    pub whatif: WhatIf,
    /// Batch runs that come from scorecards, which keep their stored numbers.
    pub scorecard_runs: usize,
    pub on_apply: Callback<WhatIf>,
}

/// Says which what-if settings are active and what they change, with a way
/// back to the reference's defaults.
#[function_component(WhatIfBanner)]
pub fn what_if_banner(props: &WhatIfBannerProps) -> Html {
    let reset = props.on_apply.reform(|_: MouseEvent| WhatIf::reference_defaults());
    let scorecard_note = match props.scorecard_runs {
        0 => None,
        n => {
            let (runs, keep) = if n == 1 { ("run", "keeps its") } else { ("runs", "keep their") };
            Some(format!(
                "{n} {runs} from scorecards {keep} stored numbers: a scorecard does not record how its runs were scored. "
            ))
        }
    };
    html! {
        <div class="banner" role="status" id="whatif-banner">
            <strong>{ "What-if settings are active: " }</strong>{ props.whatif.describe() }
            { " Traces are analysed with them; reports are re-scored with the weights, vault and gate. " }
            if let Some(note) = scorecard_note {
                <span id="whatif-scorecards">{ note }</span>
            }
            <button type="button" class="link-button" onclick={reset}>{ "Reset to reference defaults" }</button>
        </div>
    }
}
