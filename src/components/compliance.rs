//! The run's compliance section (report `compliance`): the frameworks and
//! controls that the run's findings put at risk, with what each rests on,
//! and a plain statement that this is no legal advice.

use agentrisk::model::{Compliance, ControlStatus, FrameworkStatus};
use std::collections::BTreeMap;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ComplianceProps {
    /// Without its evidence lists (the page gets counts instead).
    pub compliance: Compliance,
    /// How many findings each control cites (by control id).
    pub control_findings: BTreeMap<String, usize>,
}

fn control_status(status: ControlStatus) -> &'static str {
    match status {
        ControlStatus::AtRisk => "at risk",
        ControlStatus::Ok => "ok",
        ControlStatus::Info => "for information",
        ControlStatus::NotAssessed => "not assessed",
    }
}

#[function_component(ComplianceView)]
pub fn compliance_view(props: &ComplianceProps) -> Html {
    let c = &props.compliance;
    let posture = match c.posture.status {
        FrameworkStatus::Compliant => "no control at risk".to_owned(),
        FrameworkStatus::NonCompliant => {
            format!("{} of {} frameworks have controls at risk", c.summary.non_compliant, c.summary.total)
        }
    };
    let at_risk = c
        .frameworks
        .iter()
        .flat_map(|f| f.controls.iter().filter(|k| k.status == ControlStatus::AtRisk).map(move |k| (f, k)));
    html! {
        <section class="compliance" aria-labelledby="compliance-title">
            <h3 id="compliance-title">{ "Compliance: controls to review" }</h3>
            <p class="disclaimer" role="note" id="compliance-disclaimer">
                <strong>{ "Not legal advice. " }</strong>
                { "This list maps what the detectors saw in this one run to controls of privacy frameworks, so that a reviewer knows where to look. It does not certify or attest compliance with any law or standard, and a control not listed here is not thereby shown to be met." }
            </p>
            <p>{ format!("{posture}; {} controls at risk, {} not assessed (the run holds no evidence either way).", c.summary.controls_at_risk, c.summary.controls_not_assessed) }</p>
            <table class="frameworks-table" id="frameworks-table">
                <thead><tr><th scope="col">{ "Framework" }</th><th scope="col">{ "Status" }</th><th scope="col" class="num">{ "At risk" }</th><th scope="col" class="num">{ "Not assessed" }</th></tr></thead>
                <tbody>{ for c.frameworks.iter().map(|f| html! {
                    <tr data-framework={f.id.clone()}>
                        <td>{ &f.name }</td>
                        <td>{ if f.status == FrameworkStatus::Compliant { "no control at risk" } else { "controls at risk" } }</td>
                        <td class="num">{ f.at_risk }</td><td class="num">{ f.not_assessed }</td>
                    </tr>
                }) }</tbody>
            </table>
            <div class="table-wrap">
                <table class="controls-table" id="controls-table">
                    <caption>{ "Controls at risk" }</caption>
                    <thead><tr><th scope="col">{ "Framework" }</th><th scope="col">{ "Control" }</th><th scope="col">{ "Status" }</th><th scope="col">{ "Why" }</th><th scope="col">{ "Evidence" }</th></tr></thead>
                    <tbody>{ for at_risk.map(|(f, k)| html! {
                        <tr data-control={k.id.clone()}>
                            <td>{ &f.name }</td><td>{ format!("{} — {}", k.id, k.name) }</td><td>{ control_status(k.status) }</td>
                            <td>{ &k.rationale }</td>
                            <td>{ format!("{} findings · {}", props.control_findings.get(&k.id).copied().unwrap_or(0), k.evidence.join(", ")) }</td>
                        </tr>
                    }) }</tbody>
                </table>
            </div>
        </section>
    }
}
