//! Reading and writing review files (format in the module doc of
//! `review`): every refusal names the place in the file and the problem.

use super::{ChannelScope, Date, Decision, DecisionKind, Review, SignOff, SignOffStatus};
use serde::{Deserialize, Serialize};

/// The format name a review file declares first.
pub const REVIEW_FORMAT: &str = "agentrisk-review";
/// The format version this build reads and writes.
pub const REVIEW_VERSION: u64 = 1;

/// Why a review file (or an edit of a review) is refused: the place — a
/// key path such as `decisions[2].expires`, or `line 3, column 7` for bad
/// JSON — and the problem. `Display` is `place: problem`; callers add the
/// file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {problem}")]
pub struct ReviewError {
    pub place: String,
    pub problem: String,
}

fn refuse(place: impl Into<String>, problem: impl Into<String>) -> ReviewError {
    ReviewError { place: place.into(), problem: problem.into() }
}

/// True when `bytes` look like a review file: a JSON object whose first
/// key is `"format": "agentrisk-review"` (written first, so a look at the
/// head decides).
pub fn looks_like_review(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(512)];
    let compact: String = String::from_utf8_lossy(head).chars().filter(|c| !c.is_whitespace()).collect();
    compact.trim_start_matches('\u{FEFF}').starts_with(&format!("{{\"format\":\"{REVIEW_FORMAT}\""))
}

/// The whole file, as read.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileIn {
    #[allow(dead_code)]
    format: String,
    #[allow(dead_code)]
    version: serde_json::Value,
    #[serde(default)]
    decisions: Vec<Decision>,
    #[serde(default)]
    runs: Vec<SignOff>,
}

/// The whole file, as written: format and version first.
#[derive(Serialize)]
struct FileOut<'a> {
    format: &'static str,
    version: u64,
    decisions: &'a [Decision],
    runs: &'a [SignOff],
}

impl Review {
    /// Reads a review file. Refused with the place and the problem: bad
    /// JSON, another format or a newer version, an unknown key, a value of
    /// the wrong kind (an unknown decision, a bad date, a missing `run_id`
    /// …), a value that is not in redacted form, a decision without its
    /// reviewer, date or rationale, or two different decisions for one
    /// secret and channel.
    pub fn from_json(bytes: &[u8]) -> Result<Review, ReviewError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| refuse(format!("line {}, column {}", e.line(), e.column()), format!("invalid JSON: {e}")))?;
        let Some(object) = value.as_object() else {
            return Err(refuse(
                "top level",
                format!("a review file is a JSON object with \"format\": {REVIEW_FORMAT:?}"),
            ));
        };
        match object.get("format").and_then(|f| f.as_str()) {
            Some(REVIEW_FORMAT) => {}
            Some(other) => return Err(refuse("format", format!("expected {REVIEW_FORMAT:?}, found {other:?}"))),
            None => {
                return Err(refuse(
                    "format",
                    format!("missing; a review file starts with \"format\": {REVIEW_FORMAT:?}"),
                ))
            }
        }
        match object.get("version") {
            Some(serde_json::Value::Number(n)) if n.as_u64() == Some(REVIEW_VERSION) => {}
            Some(serde_json::Value::Number(n)) if n.as_u64().is_some_and(|v| v > REVIEW_VERSION) => {
                return Err(refuse(
                    "version",
                    format!("review file version {n} is newer than this agentrisk reads (version {REVIEW_VERSION}); update agentrisk"),
                ))
            }
            Some(other) => return Err(refuse("version", format!("expected {REVIEW_VERSION}, found {other}"))),
            None => return Err(refuse("version", format!("missing; this agentrisk reads version {REVIEW_VERSION}"))),
        }
        let file: FileIn = serde_path_to_error::deserialize(value).map_err(|e| {
            let place = e.path().to_string();
            refuse(if place == "." { "top level".to_owned() } else { place }, e.inner().to_string())
        })?;
        let review = Review { decisions: file.decisions, runs: file.runs };
        check(&review)?;
        Ok(review)
    }

    /// The review as a file: pretty JSON with a final newline, format and
    /// version first, decisions sorted by run, data type, value and channel
    /// (`"*"` first), sign-offs by run (each run's in their order). The same
    /// review always gives the same bytes, and reading them back gives the
    /// same decisions and statuses.
    pub fn to_json(&self) -> String {
        let mut decisions = self.decisions.clone();
        decisions.sort_by(|a, b| a.key().cmp(&b.key()));
        let mut runs = self.runs.clone();
        runs.sort_by(|a, b| a.run_id.cmp(&b.run_id));
        let out = FileOut { format: REVIEW_FORMAT, version: REVIEW_VERSION, decisions: &decisions, runs: &runs };
        // Plain data (strings, dates, enums) always serialises.
        let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Several review files as one: their decisions (the same decision in
    /// two files is kept once) and their sign-offs, file after file (so a
    /// later file's entry is a run's status). Refused, naming the file at
    /// fault (the later one) with the place and the problem, when two files
    /// decide the same secret and channel differently.
    pub fn combined<'a>(files: impl IntoIterator<Item = (&'a str, Review)>) -> Result<Review, (String, ReviewError)> {
        let mut out = Review::default();
        let mut origin: Vec<(&'a str, usize)> = Vec::new();
        for (name, review) in files {
            for (i, decision) in review.decisions.into_iter().enumerate() {
                match out.decisions.iter().position(|d| d.key() == decision.key()) {
                    Some(j) if out.decisions.get(j) == Some(&decision) => {}
                    Some(j) => {
                        let (first_file, first_index) = origin.get(j).copied().unwrap_or((name, 0));
                        return Err((
                            name.to_owned(),
                            refuse(
                                format!("decisions[{i}]"),
                                format!(
                                    "decides {} of run {} differently from {first_file}'s decisions[{first_index}]; \
                                     keep one of them",
                                    decision.subject(),
                                    decision.run_id
                                ),
                            ),
                        ));
                    }
                    None => {
                        out.decisions.push(decision);
                        origin.push((name, i));
                    }
                }
            }
            out.runs.extend(review.runs);
        }
        Ok(out)
    }
}

/// Every rule the format sets beyond the shape serde reads.
fn check(review: &Review) -> Result<(), ReviewError> {
    for (i, decision) in review.decisions.iter().enumerate() {
        let place = format!("decisions[{i}]");
        check_decision(decision, &place)?;
        if let Some(j) = review.decisions[..i].iter().position(|d| d.key() == decision.key()) {
            if review.decisions.get(j) != Some(decision) {
                return Err(refuse(
                    place,
                    format!(
                        "a second decision for {} of run {} (decisions[{j}] is another); keep one",
                        decision.subject(),
                        decision.run_id
                    ),
                ));
            }
        }
    }
    for (i, sign_off) in review.runs.iter().enumerate() {
        check_sign_off(sign_off, &format!("runs[{i}]"))?;
    }
    Ok(())
}

/// A decision's own rules; `place` is where it sits (`decisions[2]`).
pub(super) fn check_decision(d: &Decision, place: &str) -> Result<(), ReviewError> {
    let at = |key: &str| format!("{place}.{key}");
    if d.run_id.is_empty() {
        return Err(refuse(at("run_id"), "must name the run (its report's run_id)"));
    }
    if d.data_type.is_empty() {
        return Err(refuse(at("data_type"), "must name the data type, as the report's finding does"));
    }
    if !is_redacted(&d.value) {
        return Err(refuse(
            at("value"),
            format!(
                "{} is not a redacted value: a review file holds only the report's redacted form (up to four \
                 characters become *, longer values keep their first and last two characters, e.g. 12*******89), \
                 never a raw secret",
                if d.value.is_empty() {
                    "an empty value".to_owned()
                } else {
                    format!("a value of {} characters", d.value.chars().count())
                }
            ),
        ));
    }
    let Some(kind) = d.decision else {
        return Ok(());
    };
    if d.reviewer.trim().is_empty() {
        return Err(refuse(at("reviewer"), format!("a {} decision needs the name of its reviewer", kind.as_str())));
    }
    if d.decided_at.is_none() {
        return Err(refuse(
            at("decided_at"),
            format!("a {} decision needs the date it was made (YYYY-MM-DD)", kind.as_str()),
        ));
    }
    if kind != DecisionKind::Confirmed && d.rationale.trim().is_empty() {
        return Err(refuse(at("rationale"), format!("a {} decision changes the numbers: say why", kind.as_str())));
    }
    if kind != DecisionKind::AcceptedRisk && d.expires.is_some() {
        return Err(refuse(
            at("expires"),
            format!("only an accepted_risk expires; set it to null for {}", kind.as_str()),
        ));
    }
    Ok(())
}

/// A sign-off's own rules; `place` is where it sits (`runs[0]`).
pub(super) fn check_sign_off(s: &SignOff, place: &str) -> Result<(), ReviewError> {
    if s.run_id.is_empty() {
        return Err(refuse(format!("{place}.run_id"), "must name the run (its report's run_id)"));
    }
    if s.status != SignOffStatus::InReview && s.reviewer.trim().is_empty() {
        return Err(refuse(
            format!("{place}.reviewer"),
            format!("a run {} needs the name of its reviewer", s.status.label()),
        ));
    }
    check_time(&s.at).map_err(|problem| refuse(format!("{place}.at"), problem))
}

/// A date, or a date and time as RFC 3339 writes it
/// (`2026-03-02T14:05:00Z`, `2026-03-02T14:05:00.123+01:00`).
fn check_time(text: &str) -> Result<(), String> {
    let wrong = || format!("expected a date (YYYY-MM-DD) or a date and time (YYYY-MM-DDTHH:MM:SSZ), found {text:?}");
    Date::parse(text.get(..10).ok_or_else(wrong)?).map_err(|_| wrong())?;
    let rest = &text[10..];
    if rest.is_empty() {
        return Ok(());
    }
    let time = rest.strip_prefix('T').ok_or_else(wrong)?.as_bytes();
    let two_digits = |at: usize, max: u8| match time.get(at..at + 2) {
        Some(&[a, b]) if a.is_ascii_digit() && b.is_ascii_digit() => (a - b'0') * 10 + (b - b'0') <= max,
        _ => false,
    };
    if !(two_digits(0, 23)
        && time.get(2) == Some(&b':')
        && two_digits(3, 59)
        && time.get(5) == Some(&b':')
        && two_digits(6, 60))
    {
        return Err(wrong());
    }
    let mut at = 8;
    if time.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while time.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return Err(wrong());
        }
    }
    match &time[at.min(time.len())..] {
        [b'Z'] | [b'z'] => Ok(()),
        [b'+' | b'-', ..]
            if time.len() == at + 6
                && two_digits(at + 1, 23)
                && time.get(at + 3) == Some(&b':')
                && two_digits(at + 4, 59) =>
        {
            Ok(())
        }
        _ => Err(wrong()),
    }
}

/// True when `value` has the shape of the reference's redaction
/// (`analyze::redact`): up to four characters, all `*`; longer, every
/// character but the first two and the last two a `*`.
pub(super) fn is_redacted(value: &str) -> bool {
    let n = value.chars().count();
    if n == 0 {
        return false;
    }
    if n <= 4 {
        return value.chars().all(|c| c == '*');
    }
    value.chars().skip(2).take(n - 4).all(|c| c == '*')
}

impl ChannelScope {
    /// The scope named `"*"` or a channel name, as the file writes it.
    pub fn from_name(name: &str) -> Option<ChannelScope> {
        if name == "*" {
            Some(ChannelScope::All)
        } else {
            crate::model::Channel::from_name(name).map(ChannelScope::Only)
        }
    }
}
