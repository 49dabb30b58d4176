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

/// An edit a control built, checked by the core as a review file would be
/// (before it is sent): the edit, or why it is refused.
fn checked(review: &Review, edit: ReviewEdit) -> Result<ReviewEdit, String> {
    let mut scratch = review.clone();
    let verdict = match &edit {
        ReviewEdit::Decide(d) => scratch.set_decision(d.clone()),
        ReviewEdit::SignOff(s) => scratch.add_sign_off(s.clone()),
        _ => Ok(()),
    };
    verdict.map(|()| edit).map_err(|e| e.problem)
}

fn input_value(event: &Event) -> String {
    event.target_unchecked_into::<HtmlInputElement>().value()
}

/// What a control shows before it is saved: a secret's chosen decision,
/// rationale, expiry and why saving was refused; or the sign-off's.
#[derive(Clone, Default)]
struct Draft {
    kind: Option<DecisionKind>,
    rationale: String,
    expires: String,
    problem: String,
}

impl Draft {
    fn of(decision: Option<&Decision>) -> Draft {
        Draft {
            kind: decision.and_then(|d| d.decision),
            rationale: decision.map(|d| d.rationale.clone()).unwrap_or_default(),
            expires: decision.and_then(|d| d.expires).map(|d| d.to_string()).unwrap_or_default(),
            problem: String::new(),
        }
    }
}

/// The panel's unsaved controls: one draft per secret group (none until
/// touched, and again once saved), and the sign-off's status, note and
/// problem. Held in one place, so that the rows need no component each.
struct Drafts {
    rows: Vec<Option<Draft>>,
    spare: Draft,
    status: SignOffStatus,
    note: String,
    sign_off_problem: String,
}

impl Default for Drafts {
    fn default() -> Drafts {
        Drafts {
            rows: Vec::new(),
            spare: Draft::default(),
            status: SignOffStatus::Approved,
            note: String::new(),
            sign_off_problem: String::new(),
        }
    }
}

type Shared = Rc<std::cell::RefCell<Drafts>>;

#[function_component(ReviewPanel)]
pub fn review_panel(props: &ReviewProps) -> Html {
    let drafts: Shared = use_mut_ref(Drafts::default);
    let redraw = use_force_update();
    let report = props.run.report();
    let secrets = props.run.secrets();
    // A change to row `index`'s draft (made from `saved` on first touch),
    // from the value of the event's target; then drawn again.
    let row_change = |index: usize, saved: Option<&Decision>, f: fn(&mut Draft, String)| {
        let (drafts, redraw, saved) = (drafts.clone(), redraw.clone(), saved.cloned());
        Callback::from(move |e: InputEvent| {
            f(row_draft(&mut drafts.borrow_mut(), index, saved.as_ref()), input_value(&e));
            redraw.force_update();
        })
    };
    let sign_off_change = |f: fn(&mut Drafts, String)| {
        let (drafts, redraw) = (drafts.clone(), redraw.clone());
        Callback::from(move |e: InputEvent| {
            f(&mut drafts.borrow_mut(), input_value(&e));
            redraw.force_update();
        })
    };
    let on_reviewer = props.on_reviewer.reform(|e: InputEvent| input_value(&e));
    // Sent once the field holds a whole date.
    let on_date = {
        let on_edit = props.on_edit.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(date) = Date::parse(&input_value(&e)) {
                on_edit.emit(ReviewEdit::Today(date));
            }
        })
    };
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
    let rows = secrets.groups.iter().enumerate().map(|(index, g)| {
        let decision = props.review.decision(&secrets.run_id, &g.data_type, &g.value, ChannelScope::All);
        let draft = drafts.borrow().rows.get(index).cloned().flatten().unwrap_or_else(|| Draft::of(decision));
        let radio = |value: DecisionKind, label: &'static str| {
            let (drafts, redraw, saved) = (drafts.clone(), redraw.clone(), decision.cloned());
            let onchange = Callback::from(move |_: Event| {
                row_draft(&mut drafts.borrow_mut(), index, saved.as_ref()).kind = Some(value);
                redraw.force_update();
            });
            html! { <label><input type="radio" name={format!("decide-{index}")} value={value.as_str()} checked={draft.kind == Some(value)} {onchange} />{ label }</label> }
        };
        let save = {
            let (drafts, redraw, review, on_edit) = (drafts.clone(), redraw.clone(), props.review.clone(), props.on_edit.clone());
            let (run_id, group, reviewer, today, saved) =
                (secrets.run_id.clone(), g.clone(), props.reviewer.clone(), props.today, decision.cloned());
            Callback::from(move |_: MouseEvent| {
                let mut all = drafts.borrow_mut();
                let draft = row_draft(&mut all, index, saved.as_ref());
                match decided(&run_id, &group, draft, &reviewer, today).and_then(|d| checked(&review, ReviewEdit::Decide(d))) {
                    Ok(edit) => {
                        // Shown from the saved decision once the worker answers.
                        if let Some(slot) = all.rows.get_mut(index) {
                            *slot = None;
                        }
                        on_edit.emit(edit);
                    }
                    Err(problem) => draft.problem = problem,
                }
                drop(all);
                redraw.force_update();
            })
        };
        let clear = {
            let (run_id, group) = (secrets.run_id.clone(), g.clone());
            props.on_edit.reform(move |_: MouseEvent| ReviewEdit::Clear {
                run_id: run_id.clone(),
                data_type: group.data_type.clone(),
                value: group.value.clone(),
                channel: ChannelScope::All,
            })
        };
        let covers = match (g.secrets, g.may_hold_more.is_empty()) {
            (n, true) if n > 1 => format!(" · covers {n} secrets"),
            (n, false) => format!(" · covers at least {n} secret{}", if n == 1 { "" } else { "s" }),
            _ => String::new(),
        };
        let others = props.review.decisions.iter().filter(|d| {
            d.run_id == secrets.run_id && d.data_type == g.data_type && d.value == g.value && d.channel != ChannelScope::All
        });
        html! {
            <tr class="secret-row" data-value={g.value.clone()} data-level={g.level.label()}
                data-decision={decision.and_then(|d| d.decision).map_or("undecided", DecisionKind::as_str)}>
                <td><span class="mono">{ shown(&g.data_type) }</span>{ " " }<span class="mono secret-value">{ shown(&g.value) }</span>
                    <span class="covers">{ covers }</span></td>
                <td><span class={classes!("level", g.level.badge())}>{ g.level.label() }</span></td>
                <td class="mono">{ g.channels.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ") }</td>
                <td>
                    <span class="decision-text">{ shown(&decision.map_or_else(|| "undecided".to_owned(), described)) }</span>
                    { for others.map(|d| html! { <span class="decision-text muted">{ shown(&format!("on {}: {}", d.channel, described(d))) }</span> }) }
                    <fieldset class="decide screen-only">
                        <legend class="visually-hidden">{ format!("Decision for {} {}", g.data_type, g.value) }</legend>
                        { radio(DecisionKind::Confirmed, "Confirm") }
                        { radio(DecisionKind::FalsePositive, "False positive") }
                        { radio(DecisionKind::AcceptedRisk, "Accept risk") }
                        <label>{ "Rationale " }<input type="text" class="rationale" value={draft.rationale.clone()}
                            oninput={row_change(index, decision, |d, v| d.rationale = v)} /></label>
                        <label>{ "Expires " }<input type="date" class="expires" value={draft.expires.clone()}
                            disabled={draft.kind != Some(DecisionKind::AcceptedRisk)} oninput={row_change(index, decision, |d, v| d.expires = v)} /></label>
                        <button type="button" class="button save-decision" onclick={save}>{ "Save" }</button>
                        if decision.is_some() { <button type="button" class="button clear-decision" onclick={clear}>{ "Clear" }</button> }
                        if !draft.problem.is_empty() { <span class="error-message" role="alert">{ draft.problem.clone() }</span> }
                    </fieldset>
                </td>
            </tr>
        }
    });
    let current = props.review.sign_off(&secrets.run_id);
    let now = current.map_or_else(
        || "not signed off".to_owned(),
        |s| {
            let by = if s.reviewer.is_empty() { String::new() } else { format!(" by {}", s.reviewer) };
            let note = if s.note.is_empty() { String::new() } else { format!(": {}", s.note) };
            format!("{}{by} ({}){note}", s.status.label(), s.at)
        },
    );
    let sign = {
        let (drafts, redraw, review, on_edit) =
            (drafts.clone(), redraw.clone(), props.review.clone(), props.on_edit.clone());
        let (run_id, reviewer, today) = (secrets.run_id.clone(), props.reviewer.clone(), props.today);
        Callback::from(move |_: MouseEvent| {
            let mut all = drafts.borrow_mut();
            let entry = SignOff {
                run_id: run_id.clone(),
                status: all.status,
                reviewer: reviewer.trim().to_owned(),
                note: all.note.trim().to_owned(),
                at: today.map(|d| d.to_string()).unwrap_or_default(),
            };
            all.sign_off_problem = match checked(&review, ReviewEdit::SignOff(entry)) {
                Ok(edit) => {
                    on_edit.emit(edit);
                    String::new()
                }
                Err(problem) => problem,
            };
            drop(all);
            redraw.force_update();
        })
    };
    let (status, note, sign_off_problem) = {
        let d = drafts.borrow();
        (d.status, d.note.clone(), d.sign_off_problem.clone())
    };
    html! {
        <section class="review" id="review" aria-labelledby="review-title">
            <h3 id="review-title">{ "Review" }</h3>
            <p class="review-who screen-only">
                <label>{ "Reviewer " }<input id="reviewer" type="text" autocomplete="off" value={props.reviewer.clone()} oninput={on_reviewer} /></label>
                <label>{ "Acceptances judged as of " }<input id="review-date" type="date" value={date} oninput={on_date} /></label>
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
                    <tbody>{ for rows }</tbody>
                </table>
            }
            <div class="sign-off" id="sign-off" data-status={current.map_or("none", |s| s.status.as_str())}>
                <p><strong>{ "Sign-off: " }</strong><span id="sign-off-status">{ shown(&now) }</span></p>
                <p class="screen-only">
                    <label>{ "Status " }
                        <select id="sign-off-choice" oninput={sign_off_change(|d, v| {
                            d.status = SignOffStatus::ALL.into_iter().find(|s| s.as_str() == v).unwrap_or(d.status);
                        })}>
                            { for SignOffStatus::ALL.into_iter().map(|s| html! { <option value={s.as_str()} selected={status == s}>{ s.label() }</option> }) }
                        </select>
                    </label>
                    <label>{ " Note " }<input id="sign-off-note" type="text" value={note} oninput={sign_off_change(|d, v| d.note = v)} /></label>
                    <button type="button" class="button" id="sign-off-save" onclick={sign}>{ "Sign off" }</button>
                    if !sign_off_problem.is_empty() { <span class="error-message" role="alert">{ sign_off_problem }</span> }
                </p>
            </div>
        </section>
    }
}

/// Row `index`'s draft, made from its saved decision on first touch.
fn row_draft<'a>(drafts: &'a mut Drafts, index: usize, saved: Option<&Decision>) -> &'a mut Draft {
    if drafts.rows.len() <= index {
        drafts.rows.resize(index + 1, None);
    }
    match drafts.rows.get_mut(index) {
        Some(slot) => slot.get_or_insert_with(|| Draft::of(saved)),
        // Not reached: the rows were just made long enough.
        None => &mut drafts.spare,
    }
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

/// The decision a row's draft makes (about every channel, dated `today`),
/// or why it cannot be made yet.
fn decided(
    run_id: &str,
    group: &SecretGroup,
    draft: &Draft,
    reviewer: &str,
    today: Option<Date>,
) -> Result<Decision, String> {
    let Some(kind) = draft.kind else { return Err("choose Confirm, False positive or Accept risk".to_owned()) };
    let expires = match (kind, draft.expires.trim()) {
        (DecisionKind::AcceptedRisk, text) if !text.is_empty() => {
            Some(Date::parse(text).map_err(|e| format!("expiry: {e}"))?)
        }
        _ => None,
    };
    Ok(Decision {
        run_id: run_id.to_owned(),
        data_type: group.data_type.clone(),
        channel: ChannelScope::All,
        value: group.value.clone(),
        decision: Some(kind),
        rationale: draft.rationale.trim().to_owned(),
        reviewer: reviewer.trim().to_owned(),
        decided_at: today,
        expires,
    })
}

/// The review's decisions that match no loaded run, each with why (none:
/// nothing shown): a typo, a run not loaded, a secret no longer found.
pub fn unmatched_list(unmatched: &[String]) -> Html {
    if unmatched.is_empty() {
        return Html::default();
    }
    html! {
        <div class="unmatched" id="review-unmatched" role="note">
            <p><strong>{ format!("{} decision{} of the review match{} no loaded run:", unmatched.len(),
                if unmatched.len() == 1 { "" } else { "s" }, if unmatched.len() == 1 { "es" } else { "" }) }</strong></p>
            <ul>{ for unmatched.iter().map(|u| html! { <li>{ shown(u) }</li> }) }</ul>
        </div>
    }
}

/// The browser's local date (`None` only for a date out of range).
pub fn local_today() -> Option<Date> {
    let now = js_sys::Date::new_0();
    let (year, month, day) = (now.get_full_year(), now.get_month() + 1, now.get_date());
    Date::new(u16::try_from(year).ok()?, u8::try_from(month).ok()?, u8::try_from(day).ok()?)
}
