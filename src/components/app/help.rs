//! The keyboard-shortcut help: a modal dialog listing
//! [`SHORTCUTS`](crate::hooks::shortcuts::SHORTCUTS), opened by the `?`
//! button or key through the `NodeRef` the page holds.

use crate::hooks::shortcuts::SHORTCUTS;
use web_sys::HtmlDialogElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct HelpProps {
    /// The `<dialog>`, for [`show_help`].
    pub dialog: NodeRef,
}

#[function_component(HelpDialog)]
pub fn help_dialog(props: &HelpProps) -> Html {
    let close = {
        let dialog = props.dialog.clone();
        Callback::from(move |_: MouseEvent| {
            if let Some(dialog) = dialog.cast::<HtmlDialogElement>() {
                dialog.close();
            }
        })
    };
    html! {
        <dialog class="help" id="help" ref={props.dialog.clone()} aria-labelledby="help-title">
            <h2 id="help-title">{ "Keyboard shortcuts" }</h2>
            <table>
                <tbody>
                    { for SHORTCUTS.iter().map(|(key, what)| html! { <tr><th scope="row"><kbd>{ *key }</kbd></th><td>{ *what }</td></tr> }) }
                </tbody>
            </table>
            <p class="muted">{ "Shortcuts work while no text field has the focus. Tab and Shift+Tab move between controls; Enter opens a focused run or chart cell." }</p>
            <button type="button" class="button" id="help-close" onclick={close}>{ "Close" }</button>
        </dialog>
    }
}

/// Opens the help dialog `dialog` as a modal, unless it is open already.
pub fn show_help(dialog: &NodeRef) {
    if let Some(dialog) = dialog.cast::<HtmlDialogElement>() {
        if !dialog.open() {
            let _ = dialog.show_modal();
        }
    }
}
