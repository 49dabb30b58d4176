//! A run's review in the run view: its reviewed numbers beside the
//! detected ones with what changed and why, a Confirm / False positive /
//! Accept risk control for each leaked secret (grouped as a review file
//! names them), and the run's sign-off; and, for the Runs tab, the review's
//! decisions that match no loaded run.
//!
//! Every rule is the core's: `Review::set_decision` and `add_sign_off`
//! refuse here what a review file would refuse (before the edit is sent),
//! the worker applies each edit to its workspace's review, and `RunReview`
//! says what the decisions did. Nothing of a review is stored.

use crate::components::format_ri;
use crate::components::text::shown;
use crate::protocol::ReviewEdit;
use crate::state::Run;
use agentrisk::review::{
    ChannelScope, Date, Decision, DecisionKind, Review, RunReview, SecretGroup, SignOff, SignOffStatus,
    UnmatchedDecision,
};
use agentrisk::workspace::BlockReason;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ReviewProps {
    pub run: Run,
    /// The review in force (empty: none).
    pub review: Rc<Review>,
    /// The run's reviewed numbers under it.
    pub reviewed: Option<Rc<RunReview>>,
    pub reviewer: String,
    /// The date acceptances are judged at, and decisions are dated.
    pub today: Option<Date>,
    /// Why the last edit was refused.
    pub problem: Option<String>,
    /// The detected gate's reasons, in words.
    pub detected_gate: String,
    pub on_edit: Callback<ReviewEdit>,
    pub on_reviewer: Callback<String>,
}

/// What a control builds is checked by the core as a review file would be;
/// refused, it shows why instead of being sent.
fn checked(review: &Review, edit: ReviewEdit, on_edit: &Callback<ReviewEdit>, problem: &UseStateHandle<String>) {
    let mut scratch = review.clone();
    let verdict = match &edit {
        ReviewEdit::Decide(d) => scratch.set_decision(d.clone()),
        ReviewEdit::SignOff(s) => scratch.add_sign_off(s.clone()),
        _ => Ok(()),
    };
    match verdict {
        Ok(()) => {
            problem.set(String::new());
            on_edit.emit(edit);
        }
        Err(e) => problem.set(e.problem),
    }
}

fn input_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlInputElement>().value()
}

#[function_component(ReviewPanel)]
pub fn review_panel(props: &ReviewProps) -> Html {
    let report = props.run.report();
    let secrets = props.run.secrets();
    let on_reviewer = props.on_reviewer.reform(|e: InputEvent| e.target_unchecked_into::<HtmlInputElement>().value());
    let on_date = props.on_edit.reform(|e: Event| {
        let text = input_value(&e);
        ReviewEdit::Today(Date::parse(&text).unwrap_or_else(|_| Date::from_unix_seconds(0)))
    });
    let gate = |blocked: bool, reasons: String| {
        html! { <>{ if blocked { "Blocked" } else { "Not blocked" } }<span class="muted">{ format!(" · {reasons}") }</span></> }
    };
    let reviewed_row = match &props.reviewed {
        Some(r) => {
            let reasons: Vec<String> = r.block_reasons.iter().map(BlockReason::describe).collect();
            let reasons = if reasons.is_empty() { "no blocking condition".to_owned() } else { reasons.join("; ") };
            html! {
                <tr class="reviewed-numbers" data-risk-index={r.risk_index.to_string()} data-privacy-score={r.privacy_score.to_string()}
                    data-verdict={r.verdict.as_str()} data-blocked={r.blocked.to_string()}>
                    <th scope="row">{ format!("As reviewed ({})", r.today) }</th>
                    <td class="num">{ format_ri(r.risk_index) }</td><td class="num">{ r.privacy_score }</td>
                    <td>{ r.verdict.as_str() }</td><td>{ gate(r.blocked, reasons) }</td>
                </tr>
            }
        }
        None => {
            html! { <tr><th scope="row">{ "As reviewed" }</th><td colspan="4" class="muted">{ "no decision yet: the same as detected" }</td></tr> }
        }
    };
    let date = props.today.map(|d| d.to_string()).unwrap_or_default();
    html! {
        <section class="review" id="review" aria-labelledby="review-title">
            <h3 id="review-title">{ "Review" }</h3>
            <p class="review-who screen-only">
                <label>{ "Reviewer " }<input id="reviewer" type="text" autocomplete="off" value={props.reviewer.clone()} oninput={on_reviewer} /></label>
                <label>{ "Acceptances judged as of " }<input id="review-date" type="date" value={date} onchange={on_date} /></label>
                <span class="muted">{ "Kept in this tab only: nothing of a review is stored." }</span>
            </p>
            <table class="review-numbers" id="review-numbers">
                <thead><tr><th scope="col"></th><th scope="col" class="num">{ "Risk Index" }</th><th scope="col" class="num">{ "Privacy score" }</th>
                    <th scope="col">{ "Verdict" }</th><th scope="col">{ "Gate" }</th></tr></thead>
                <tbody>
                    <tr><th scope="row">{ "As detected" }</th><td class="num">{ format_ri(report.risk_index) }</td><td class="num">{ report.privacy_score }</td>
                        <td>{ &report.verdict }</td><td>{ gate(report.blocked, props.detected_gate.clone()) }</td></tr>
                    { reviewed_row }
                </tbody>
            </table>
            if let Some(r) = &props.reviewed {
                <p id="review-summary">{ r.summary() }</p>
                <ul id="review-notes">{ for r.notes().iter().map(|n| html! { <li>{ shown(n) }</li> }) }</ul>
            }
            if let Some(problem) = &props.problem {
                <p class="error-message" role="alert">{ shown(problem) }</p>
            }
            if secrets.groups.is_empty() {
                <p class="muted">{ "Nothing leaked: no secret to decide about." }</p>
            } else {
                <table class="review-secrets" id="review-secrets">
                    <thead><tr><th scope="col">{ "Leaked secret" }</th><th scope="col">{ "Level" }</th><th scope="col">{ "Channels" }</th>
                        <th scope="col">{ "Decision" }</th></tr></thead>
                    <tbody>
                        { for secrets.groups.iter().enumerate().map(|(index, group)| {
                            let decision = props.review.decision(&secrets.run_id, &group.data_type, &group.value, ChannelScope::All).cloned();
                            // Remade when its decision changes, so that its controls show it.
                            let key = format!("{index}:{}", decision.as_ref().map(described).unwrap_or_default());
                            let others: Vec<Decision> = props.review.decisions.iter()
                                .filter(|d| d.run_id == secrets.run_id && d.data_type == group.data_type && d.value == group.value && d.channel != ChannelScope::All)
                                .cloned().collect();
                            html! {
                                <SecretRow {key} {index} run_id={secrets.run_id.clone()} group={group.clone()} {decision} {others}
                                    review={props.review.clone()} reviewer={props.reviewer.clone()} today={props.today} on_edit={props.on_edit.clone()} />
                            }
                        }) }
                    </tbody>
                </table>
            }
            <SignOffForm run_id={secrets.run_id.clone()} review={props.review.clone()} reviewer={props.reviewer.clone()}
                today={props.today} on_edit={props.on_edit.clone()} />
        </section>
    }
}

#[derive(Properties, PartialEq)]
struct SecretRowProps {
    index: usize,
    run_id: String,
    group: SecretGroup,
    /// The decision for every channel (`"*"`), which the controls edit.
    decision: Option<Decision>,
    /// Decisions for one channel of it (from a review file), shown.
    others: Vec<Decision>,
    review: Rc<Review>,
    reviewer: String,
    today: Option<Date>,
    on_edit: Callback<ReviewEdit>,
}

/// In words: "false positive (Dana, 2026-06-01; until 2030-01-01): why".
fn described(d: &Decision) -> String {
    let Some(kind) = d.decision else { return "undecided".to_owned() };
    let mut text = format!("{} ({}", kind.label(), d.reviewer);
    if let Some(at) = d.decided_at {
        text.push_str(&format!(", {at}"));
    }
    if let Some(until) = d.expires {
        text.push_str(&format!("; until {until}"));
    }
    text.push(')');
    if !d.rationale.is_empty() {
        text.push_str(&format!(": {}", d.rationale));
    }
    text
}

/// One secret group: what it is, the decision in force, and the controls
/// (a radio group, a rationale, an expiry for an accepted risk, Save and Clear).
#[function_component(SecretRow)]
fn secret_row(props: &SecretRowProps) -> Html {
    let g = &props.group;
    let decision = props.decision.as_ref();
    let kind = use_state(|| decision.and_then(|d| d.decision));
    let rationale = use_state(|| decision.map(|d| d.rationale.clone()).unwrap_or_default());
    let expires = use_state(|| decision.and_then(|d| d.expires).map(|d| d.to_string()).unwrap_or_default());
    let problem = use_state(String::new);
    let name = format!("decide-{}", props.index);
    let radio = |value: DecisionKind, label: &'static str| {
        let set = {
            let kind = kind.clone();
            Callback::from(move |_: Event| kind.set(Some(value)))
        };
        html! { <label><input type="radio" name={name.clone()} value={value.as_str()} checked={*kind == Some(value)} onchange={set} />{ label }</label> }
    };
    let save = {
        let (kind, rationale, expires, problem) = (kind.clone(), rationale.clone(), expires.clone(), problem.clone());
        let (props_run, group, reviewer, today) =
            (props.run_id.clone(), g.clone(), props.reviewer.clone(), props.today);
        let (review, on_edit) = (props.review.clone(), props.on_edit.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(chosen) = *kind else {
                problem.set("choose Confirm, False positive or Accept risk".to_owned());
                return;
            };
            let expires = match (chosen, expires.trim()) {
                (DecisionKind::AcceptedRisk, text) if !text.is_empty() => match Date::parse(text) {
                    Ok(date) => Some(date),
                    Err(e) => return problem.set(format!("expiry: {e}")),
                },
                _ => None,
            };
            let decision = Decision {
                run_id: props_run.clone(),
                data_type: group.data_type.clone(),
                channel: ChannelScope::All,
                value: group.value.clone(),
                decision: Some(chosen),
                rationale: rationale.trim().to_owned(),
                reviewer: reviewer.trim().to_owned(),
                decided_at: today,
                expires,
            };
            checked(&review, ReviewEdit::Decide(decision), &on_edit, &problem);
        })
    };
    let clear = {
        let (run_id, group) = (props.run_id.clone(), g.clone());
        props.on_edit.reform(move |_: MouseEvent| ReviewEdit::Clear {
            run_id: run_id.clone(),
            data_type: group.data_type.clone(),
            value: group.value.clone(),
            channel: ChannelScope::All,
        })
    };
    let covers = match (g.secrets, g.may_hold_more.is_empty()) {
        (n, true) if n > 1 => format!("covers {n} secrets"),
        (n, false) => format!("covers at least {n} secret{}", if n == 1 { "" } else { "s" }),
        _ => String::new(),
    };
    let subject = format!("{} {}", g.data_type, g.value);
    let state = decision.and_then(|d| d.decision).map_or("undecided", DecisionKind::as_str);
    html! {
        <tr class="secret-row" data-data-type={g.data_type.clone()} data-value={g.value.clone()} data-level={g.level.label()} data-decision={state}>
            <td>
                <span class="mono">{ shown(&g.data_type) }</span>{ " " }<span class="mono secret-value">{ shown(&g.value) }</span>
                if !covers.is_empty() { <span class="covers">{ format!(" · {covers}") }</span> }
            </td>
            <td><span class={classes!("level", g.level.badge())}>{ g.level.label() }</span></td>
            <td class="mono">{ g.channels.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ") }</td>
            <td>
                <span class="decision-text">{ decision.map_or_else(|| "undecided".to_owned(), described) }</span>
                { for props.others.iter().map(|d| html! { <span class="decision-text muted">{ format!("; on {}: {}", d.channel, described(d)) }</span> }) }
                <fieldset class="decide screen-only">
                    <legend class="visually-hidden">{ format!("Decision for {subject}") }</legend>
                    { radio(DecisionKind::Confirmed, "Confirm") }
                    { radio(DecisionKind::FalsePositive, "False positive") }
                    { radio(DecisionKind::AcceptedRisk, "Accept risk") }
                    <label>{ "Rationale " }<input type="text" class="rationale" value={(*rationale).clone()}
                        oninput={Callback::from(move |e: InputEvent| rationale.set(e.target_unchecked_into::<HtmlInputElement>().value()))} /></label>
                    <label>{ "Expires " }<input type="date" class="expires" value={(*expires).clone()} disabled={*kind != Some(DecisionKind::AcceptedRisk)}
                        onchange={Callback::from(move |e: Event| expires.set(input_value(&e)))} /></label>
                    <button type="button" class="button save-decision" onclick={save}>{ "Save" }</button>
                    if decision.is_some() { <button type="button" class="button clear-decision" onclick={clear}>{ "Clear" }</button> }
                    if !problem.is_empty() { <span class="error-message" role="alert">{ (*problem).clone() }</span> }
                </fieldset>
            </td>
        </tr>
    }
}

#[derive(Properties, PartialEq)]
struct SignOffProps {
    run_id: String,
    review: Rc<Review>,
    reviewer: String,
    today: Option<Date>,
    on_edit: Callback<ReviewEdit>,
}

/// The run's sign-off: where it stands (its last entry), and a status, a
/// note and a Sign off button for a new entry.
#[function_component(SignOffForm)]
fn sign_off_form(props: &SignOffProps) -> Html {
    let status = use_state(|| SignOffStatus::Approved);
    let note = use_state(String::new);
    let problem = use_state(String::new);
    let current = props.review.sign_off(&props.run_id);
    let now = current.map_or_else(
        || "not signed off".to_owned(),
        |s| {
            let by = if s.reviewer.is_empty() { String::new() } else { format!(" by {}", s.reviewer) };
            let note = if s.note.is_empty() { String::new() } else { format!(": {}", s.note) };
            format!("{}{by} ({}){note}", s.status.label(), s.at)
        },
    );
    let choose = {
        let status = status.clone();
        Callback::from(move |e: Event| {
            let value = input_value(&e);
            if let Some(s) = SignOffStatus::ALL.into_iter().find(|s| s.as_str() == value) {
                status.set(s);
            }
        })
    };
    let sign = {
        let (status, note, problem) = (status.clone(), note.clone(), problem.clone());
        let (run_id, reviewer, today) = (props.run_id.clone(), props.reviewer.clone(), props.today);
        let (review, on_edit) = (props.review.clone(), props.on_edit.clone());
        Callback::from(move |_: MouseEvent| {
            let Some(today) = today else { return problem.set("set the review date first".to_owned()) };
            let entry = SignOff {
                run_id: run_id.clone(),
                status: *status,
                reviewer: reviewer.trim().to_owned(),
                note: note.trim().to_owned(),
                at: today.to_string(),
            };
            checked(&review, ReviewEdit::SignOff(entry), &on_edit, &problem);
        })
    };
    html! {
        <div class="sign-off" id="sign-off" data-status={current.map_or("none", |s| s.status.as_str())}>
            <p><strong>{ "Sign-off: " }</strong><span id="sign-off-status">{ shown(&now) }</span></p>
            <p class="screen-only">
                <label>{ "Status " }
                    <select id="sign-off-choice" onchange={choose}>
                        { for SignOffStatus::ALL.into_iter().map(|s| html! { <option value={s.as_str()} selected={*status == s}>{ s.label() }</option> }) }
                    </select>
                </label>
                <label>{ " Note " }<input id="sign-off-note" type="text" value={(*note).clone()}
                    oninput={Callback::from(move |e: InputEvent| note.set(e.target_unchecked_into::<HtmlInputElement>().value()))} /></label>
                <button type="button" class="button" id="sign-off-save" onclick={sign}>{ "Sign off" }</button>
                if !problem.is_empty() { <span class="error-message" role="alert">{ (*problem).clone() }</span> }
            </p>
        </div>
    }
}

/// The review's decisions that match no loaded run, each with why (none:
/// nothing shown): a typo, a run not loaded, a secret no longer found.
pub fn unmatched_list(unmatched: &[UnmatchedDecision]) -> Html {
    if unmatched.is_empty() {
        return Html::default();
    }
    html! {
        <div class="unmatched" id="review-unmatched" role="note">
            <p><strong>{ format!("{} decision{} of the review match{} no loaded run:", unmatched.len(),
                if unmatched.len() == 1 { "" } else { "s" }, if unmatched.len() == 1 { "es" } else { "" }) }</strong></p>
            <ul>{ for unmatched.iter().map(|u| html! { <li>{ shown(&u.describe()) }</li> }) }</ul>
        </div>
    }
}

/// The browser's local date (`None` only for a date out of range).
pub fn local_today() -> Option<Date> {
    let now = js_sys::Date::new_0();
    let (year, month, day) = (now.get_full_year(), now.get_month() + 1, now.get_date());
    Date::new(u16::try_from(year).ok()?, u8::try_from(month).ok()?, u8::try_from(day).ok()?)
}
