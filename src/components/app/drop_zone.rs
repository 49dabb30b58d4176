//! The drop zone: the whole page takes dropped files and folders, with an
//! overlay while something is dragged over it, and hands them to
//! `on_add`. Walking a dropped folder is `crate::dropped`'s. Also the
//! empty page, which says where to drop.

use crate::bridge::Source;
use crate::dropped;
use crate::hooks::files::{blobs_from, AddFiles, Picked};
use web_sys::DragEvent;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DropZoneProps {
    /// Shown as `data-worker` (`ready` or `starting`), which the tests wait for.
    pub worker_ready: bool,
    pub on_add: AddFiles,
    /// The page.
    pub children: Html,
}

#[function_component(DropZone)]
pub fn drop_zone(props: &DropZoneProps) -> Html {
    let dragging = use_state(|| false);
    let on_drag_over = {
        let dragging = dragging.clone();
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            if !*dragging {
                dragging.set(true);
            }
        })
    };
    let on_drag_leave = {
        let dragging = dragging.clone();
        Callback::from(move |event: DragEvent| {
            // Only a leave towards outside the window ends the drag.
            if event.related_target().is_none() {
                dragging.set(false);
            }
        })
    };
    let on_drop = {
        let (dragging, add) = (dragging.clone(), props.on_add.clone());
        Callback::from(move |event: DragEvent| {
            event.prevent_default();
            dragging.set(false);
            let Some(transfer) = event.data_transfer() else { return };
            let entries = dropped::entries(&transfer);
            if !entries.iter().any(|e| e.is_directory()) {
                add.emit(blobs_from(transfer.files()));
                return;
            }
            let add = add.clone();
            wasm_bindgen_futures::spawn_local(async move {
                add.emit(picked_from(entries).await);
            });
        })
    };
    html! {
        <div id="dropzone" class="page" data-worker={if props.worker_ready { "ready" } else { "starting" }}
            ondragover={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
            { props.children.clone() }
            if *dragging {
                <div class="drop-overlay" aria-hidden="true"><p>{ "Drop files to load them" }</p></div>
            }
        </div>
    }
}

/// The files of a drop that holds folders, each named by its path.
async fn picked_from(entries: Vec<web_sys::FileSystemEntry>) -> Vec<Picked> {
    dropped::files_of(entries)
        .await
        .into_iter()
        .map(|file| match file {
            Ok((path, file)) => Picked::at_path(path, Source::Blob(file.into())),
            Err((path, message)) => Picked { name: path, folder: String::new(), source: Err(message) },
        })
        .collect()
}

/// The page before any file is loaded: where files go, and the examples.
#[function_component(Welcome)]
pub fn welcome() -> Html {
    html! {
        <section class="empty">
            <h2>{ "Drop AgentLeak traces or reports anywhere on this page" }</h2>
            <p>{ "Or use Open files to pick one or many JSON files: traces (recorded agent runs) or reports (what `agentleak run -f json` writes). Each file gets a row with its Risk Index, privacy score, verdict and gate decision. A trace is analysed here, with AgentLeak's default detectors; a report's numbers are recomputed and a report whose stored numbers disagree is flagged inconsistent." }</p>
            <p>{ "OpenTelemetry span exports load the same way (OTLP JSON, the Collector's JSON Lines, OpenInference span lists): each conversation becomes a run, and each event names the span it came from." }</p>
            <p>{ "New here? Load example adds six reports of AgentLeak's own example traces; Load example traces adds those ten traces themselves, analysed in this tab." }</p>
        </section>
    }
}
