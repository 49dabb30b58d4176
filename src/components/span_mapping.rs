//! The span mapping in force, in the What-if tab: how OpenTelemetry span
//! exports become runs, structural or the reference's. Picking one has the
//! worker analyse every span export again (the core's two mappings).

use agentrisk::model::SpanMapping;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SpanMappingProps {
    /// The mapping the worker has in force.
    pub in_force: SpanMapping,
    pub on_pick: Callback<SpanMapping>,
}

/// What each mapping does, in a line.
fn meaning(mapping: SpanMapping) -> &'static str {
    match mapping {
        SpanMapping::Structural => {
            "what the agent really disclosed, and to whom: a run per conversation, each event on its channel by the span tree, time and the span's role (the default)"
        }
        SpanMapping::Reference => {
            "exactly as AgentLeak 0.17.0's trace_from_spans reads the file: one run, in file order, with its quirks (for parity with the reference)"
        }
    }
}

#[function_component(SpanMappingPanel)]
pub fn span_mapping_panel(props: &SpanMappingProps) -> Html {
    let option = |mapping: SpanMapping| {
        let onchange = props.on_pick.reform(move |_: Event| mapping);
        let id = format!("span-mapping-{}", mapping.as_str());
        html! {
            <p>
                <label for={id.clone()}>
                    <input type="radio" name="span-mapping" id={id} value={mapping.as_str()}
                        checked={props.in_force == mapping} {onchange} />
                    <strong>{ format!(" {}", mapping.as_str()) }</strong>{ ": " }{ meaning(mapping) }
                </label>
            </p>
        }
    };
    html! {
        <section class="panel" id="span-mapping" aria-labelledby="span-mapping-title">
            <h3 id="span-mapping-title">{ "Span mapping" }</h3>
            <p>{ "How OpenTelemetry span exports (OTLP JSON, OTLP JSON Lines, OpenInference span lists) become runs. Changing it analyses every span export again; each span run says which mapping made it." }</p>
            <fieldset class="span-mapping-choice">
                <legend class="visually-hidden">{ "Span mapping" }</legend>
                { option(SpanMapping::Structural) }
                { option(SpanMapping::Reference) }
            </fieldset>
            <p id="span-mapping-in-force" role="status">{ format!("In force: {}", props.in_force.as_str()) }</p>
        </section>
    }
}
