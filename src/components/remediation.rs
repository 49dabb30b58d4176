//! "What to do" in the run view: the report's recommendations and, per
//! channel, its remediation hints (priority, data types, advice and a code
//! fix with a Copy button). The texts are the report's own as stored (for a
//! trace analysed here, the ones the core's report builder wrote); nothing
//! here derives advice of its own.

use crate::components::text::shown;
use agentrisk::model::RemediationHint;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct WhatToDoProps {
    pub recommendations: Vec<String>,
    pub hints: Vec<RemediationHint>,
}

#[function_component(WhatToDo)]
pub fn what_to_do(props: &WhatToDoProps) -> Html {
    // Which hint's code was last copied, and how that went.
    let copied = use_state(|| None::<(usize, &'static str)>);
    if props.recommendations.is_empty() && props.hints.is_empty() {
        return html! {};
    }
    let hint = |(i, h): (usize, &RemediationHint)| {
        let onclick = {
            let (copied, code) = (copied.clone(), h.code_fix.clone());
            Callback::from(move |_: MouseEvent| {
                let copied = copied.clone();
                let code = code.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let outcome = match copy_text(&code).await {
                        Ok(()) => "Copied.",
                        Err(_) => "Cannot copy here: select the code and copy it.",
                    };
                    copied.set(Some((i, outcome)));
                });
            })
        };
        let status = copied.filter(|(at, _)| *at == i).map(|(_, s)| s).unwrap_or_default();
        let channel = h.channel.as_str();
        html! {
            <article class="hint" data-channel={channel} data-priority={h.priority.clone()}>
                <h4>
                    <span class="mono">{ channel }</span>{ " " }
                    <span class={classes!("priority", priority_class(&h.priority))}>{ "priority: " }{ shown(priority_text(&h.priority)) }</span>
                </h4>
                if !h.data_types.is_empty() {
                    <p class="hint-types">{ "Data types: " }{ for h.data_types.iter().enumerate().map(|(n, t)| html! {
                        <>if n > 0 { { ", " } }<span class="mono">{ shown(t) }</span></>
                    }) }</p>
                }
                if !h.advice.is_empty() { <p class="hint-advice">{ shown(&h.advice) }</p> }
                if !h.code_fix.is_empty() {
                    <div class="code-fix">
                        <pre><code>{ shown(&h.code_fix) }</code></pre>
                        <button type="button" class="button copy" aria-label={format!("Copy the code fix for {channel}")} {onclick}>{ "Copy" }</button>
                        <span class="copy-status" role="status">{ status }</span>
                    </div>
                }
            </article>
        }
    };
    html! {
        <section class="what-to-do" id="what-to-do" aria-labelledby="todo-title">
            <h3 id="todo-title">{ "What to do" }</h3>
            if !props.recommendations.is_empty() {
                <ol class="recommendations" id="recommendations">
                    { for props.recommendations.iter().map(|r| html! { <li>{ shown(r) }</li> }) }
                </ol>
            }
            if !props.hints.is_empty() {
                <h4 class="hints-title">{ "Remediation by channel" }</h4>
                <div class="hints" id="remediation-hints">{ for props.hints.iter().enumerate().map(hint) }</div>
            }
        </section>
    }
}

/// A priority as a badge class: the four level words the reference uses,
/// anything else plain.
fn priority_class(priority: &str) -> &'static str {
    match priority {
        "critical" => "critical",
        "high" => "high",
        "medium" => "medium",
        "low" => "low",
        _ => "other",
    }
}

fn priority_text(priority: &str) -> &str {
    if priority.is_empty() {
        "not given"
    } else {
        priority
    }
}

/// Puts `text` on the clipboard. The browser offers the clipboard only to
/// secure pages (https or localhost); elsewhere `navigator.clipboard` is
/// missing, which is an error here rather than an exception.
async fn copy_text(text: &str) -> Result<(), JsValue> {
    let navigator = web_sys::window().ok_or("no window")?.navigator();
    if js_sys::Reflect::get(&navigator, &"clipboard".into())?.is_undefined() {
        return Err("no clipboard".into());
    }
    JsFuture::from(navigator.clipboard().write_text(text)).await.map(|_| ())
}
