//! Embedding as a hook: a parent page's `agentrisk:open` files go the way
//! dropped files go, and the parent is answered once each has a result.
//! The messages, the origin allow-list and the answers are `crate::embed`'s.

use crate::bridge::Source;
use crate::embed::{self, Awaiting, OpenRequest};
use crate::hooks::files::{AddFiles, Picked};
use crate::state::{Action, FileEntry};
use std::cell::RefCell;
use yew::prelude::*;

/// Listens to a parent page from the first render on, and answers each of
/// its requests whose files have all finished as `files` changes.
#[hook]
pub fn use_embedding(add: AddFiles, dispatch: Callback<Action>, files: Vec<FileEntry>) {
    let awaiting = use_mut_ref(Vec::<Awaiting>::new);
    {
        let awaiting = awaiting.clone();
        use_effect_with((), move |_| {
            embed::listen(Callback::from(move |request| open(request, &add, &dispatch, &awaiting)));
        });
    }
    use_effect_with(files, move |files| embed::answer_finished(&awaiting, files));
}

/// Loads a request's files, shows the view it asks for, and waits for the
/// files' results (or answers at once when none could be loaded).
fn open(request: OpenRequest, add: &AddFiles, dispatch: &Callback<Action>, awaiting: &RefCell<Vec<Awaiting>>) {
    let names: Vec<String> = request.files.iter().map(|f| f.name.clone()).collect();
    let picked = request
        .files
        .into_iter()
        .map(|f| Picked { name: f.name, folder: f.folder, source: Ok(Source::Blob(f.blob)) })
        .collect();
    let ids = add.emit(picked);
    if let Some(tab) = request.view {
        dispatch.emit(Action::ShowTab(tab));
    }
    let request =
        Awaiting { reply: request.reply, ids: ids.into_iter().zip(names).collect(), refused: request.refused };
    if request.ids.is_empty() {
        embed::answer_finished(&RefCell::new(vec![request]), &[]);
    } else {
        awaiting.borrow_mut().push(request);
    }
}
