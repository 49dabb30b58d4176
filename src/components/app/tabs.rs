//! The tab bar: Runs, Batch (with its run count), Compare, Trend (when
//! several batches are loaded) and What-if scoring. The tab shown is the
//! state's; a click asks for another.

use crate::state::Tab;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TabsProps {
    pub tab: Tab,
    /// Runs in the batch, shown on its tab.
    pub batch_runs: usize,
    /// Batches (scorecards, folders) loaded: the Trend tab shows from two.
    pub batches: usize,
    pub on_show: Callback<Tab>,
}

#[function_component(Tabs)]
pub fn tabs(props: &TabsProps) -> Html {
    let button = |tab: Tab, id: &'static str, label: String| {
        html! {
            <button type="button" role="tab" {id} aria-selected={(props.tab == tab).to_string()}
                onclick={props.on_show.reform(move |_: MouseEvent| tab)}>{ label }</button>
        }
    };
    html! {
        <nav class="tabs" role="tablist" aria-label="Views">
            { button(Tab::Runs, "tab-runs", "Runs".to_owned()) }
            { button(Tab::Batch, "tab-batch", format!("Batch ({} runs)", props.batch_runs)) }
            { button(Tab::Compare, "tab-compare", "Compare".to_owned()) }
            if props.batches >= 2 || props.tab == Tab::Trend {
                { button(Tab::Trend, "tab-trend", format!("Trend ({} batches)", props.batches)) }
            }
            { button(Tab::Scoring, "tab-scoring", "What-if scoring".to_owned()) }
        </nav>
    }
}
