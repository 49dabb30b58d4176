//! Reading and writing review files (format in the module doc of
//! `review`): every refusal names the place in the file and the problem.

use super::{unknown_channel, ChannelScope, Date, Decision, DecisionKind, Review, SignOff, SignOffStatus};
use serde::Serialize;
use serde_json::{Map, Value};

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

/// True when `bytes` look like a review file: a JSON object whose
/// `"format"` is `"agentrisk-review"` (written first, so a look at the head
/// decides; or anywhere among the top-level members, for a file re-saved
/// with sorted keys).
pub fn looks_like_review(bytes: &[u8]) -> bool {
    crate::util::has_top_level(bytes, "format", REVIEW_FORMAT)
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
        let review = review_of(value)?;
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
        crate::util::sort_by(&mut decisions, |a, b| a.key().cmp(&b.key()));
        let mut runs = self.runs.clone();
        crate::util::sort_by(&mut runs, |a, b| a.run_id.cmp(&b.run_id));
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

// The file's shape is read by hand from the parsed JSON, key by key (in
// the order of the parsed object's keys), with serde's own words for a
// value of the wrong kind, an unknown key and a missing one: a derived
// reader wrapped to track its place costs the viewer's wasm some 5 kB
// gzipped, for the same messages.

const FILE_KEYS: &[&str] = &["format", "version", "decisions", "runs"];
const DECISION_KEYS: &[&str] =
    &["run_id", "data_type", "channel", "value", "decision", "rationale", "reviewer", "decided_at", "expires"];
const SIGN_OFF_KEYS: &[&str] = &["run_id", "status", "reviewer", "note", "at"];

/// A review from a parsed file whose format and version are checked.
fn review_of(value: Value) -> Result<Review, ReviewError> {
    let mut review = Review::default();
    let Value::Object(object) = value else { return Ok(review) };
    for (key, value) in object {
        match key.as_str() {
            "format" | "version" => {}
            "decisions" => review.decisions = list(value, &key, decision_of)?,
            "runs" => review.runs = list(value, &key, sign_off_of)?,
            _ => return Err(refuse(&key, unknown_key(&key, FILE_KEYS))),
        }
    }
    Ok(review)
}

fn list<T>(value: Value, place: &str, read: fn(Value, &str) -> Result<T, ReviewError>) -> Result<Vec<T>, ReviewError> {
    match value {
        Value::Array(items) => {
            items.into_iter().enumerate().map(|(i, item)| read(item, &format!("{place}[{i}]"))).collect()
        }
        other => Err(refuse(place, wrong_kind(&other, "a sequence"))),
    }
}

fn object(value: Value, place: &str, expected: &str) -> Result<Map<String, Value>, ReviewError> {
    match value {
        Value::Object(object) => Ok(object),
        other => Err(refuse(place, wrong_kind(&other, expected))),
    }
}

fn decision_of(value: Value, place: &str) -> Result<Decision, ReviewError> {
    let mut d = Decision::undecided("", "", "");
    let mut found = [false; 4];
    for (key, value) in object(value, place, "struct Decision")? {
        let at = format!("{place}.{key}");
        match key.as_str() {
            "run_id" => (d.run_id, found[0]) = (text(value, &at)?, true),
            "data_type" => (d.data_type, found[1]) = (text(value, &at)?, true),
            "channel" => {
                let name = text(value, &at)?;
                d.channel = ChannelScope::from_name(&name).ok_or_else(|| refuse(&at, unknown_channel(&name)))?;
                found[2] = true;
            }
            "value" => (d.value, found[3]) = (text(value, &at)?, true),
            "decision" => d.decision = optional(value, &at, DecisionKind::try_from)?,
            "rationale" => d.rationale = text(value, &at)?,
            "reviewer" => d.reviewer = text(value, &at)?,
            "decided_at" => d.decided_at = optional(value, &at, |t| Date::parse(&t))?,
            "expires" => d.expires = optional(value, &at, |t| Date::parse(&t))?,
            _ => return Err(refuse(at, unknown_key(&key, DECISION_KEYS))),
        }
    }
    required(place, &found, DECISION_KEYS)?;
    Ok(d)
}

fn sign_off_of(value: Value, place: &str) -> Result<SignOff, ReviewError> {
    let (mut run_id, mut status, mut reviewer, mut note, mut at) = (None, None, String::new(), String::new(), None);
    for (key, value) in object(value, place, "struct SignOff")? {
        let here = format!("{place}.{key}");
        match key.as_str() {
            "run_id" => run_id = Some(text(value, &here)?),
            "status" => {
                status = Some(SignOffStatus::try_from(text(value, &here)?).map_err(|problem| refuse(&here, problem))?)
            }
            "reviewer" => reviewer = text(value, &here)?,
            "note" => note = text(value, &here)?,
            "at" => at = Some(text(value, &here)?),
            _ => return Err(refuse(here, unknown_key(&key, SIGN_OFF_KEYS))),
        }
    }
    match (run_id, status, at) {
        (Some(run_id), Some(status), Some(at)) => Ok(SignOff { run_id, status, reviewer, note, at }),
        (run_id, status, _) => {
            let missing = if run_id.is_none() {
                "run_id"
            } else if status.is_none() {
                "status"
            } else {
                "at"
            };
            Err(refuse(place, format!("missing field `{missing}`")))
        }
    }
}

/// The first required key (of `keys`, in order) not `found`.
fn required(place: &str, found: &[bool], keys: &[&str]) -> Result<(), ReviewError> {
    match found.iter().zip(keys).find(|(found, _)| !**found) {
        Some((_, key)) => Err(refuse(place, format!("missing field `{key}`"))),
        None => Ok(()),
    }
}

fn text(value: Value, place: &str) -> Result<String, ReviewError> {
    match value {
        Value::String(text) => Ok(text),
        other => Err(refuse(place, wrong_kind(&other, "a string"))),
    }
}

/// `null` as none, else a string `read` turns into a value (or refuses).
fn optional<T>(
    value: Value,
    place: &str,
    read: impl FnOnce(String) -> Result<T, String>,
) -> Result<Option<T>, ReviewError> {
    match value {
        Value::Null => Ok(None),
        value => read(text(value, place)?).map(Some).map_err(|problem| refuse(place, problem)),
    }
}

/// serde's words for a key no field has.
fn unknown_key(key: &str, keys: &[&str]) -> String {
    let names: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    format!("unknown field `{key}`, expected one of {}", names.join(", "))
}

/// serde's words for a value of the wrong kind.
fn wrong_kind(value: &Value, expected: &str) -> String {
    let found = match value {
        Value::Null => "unit value".to_owned(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => format!("integer `{u}`"),
            (None, Some(i), _) => format!("integer `{i}`"),
            (_, _, Some(f)) if f.fract() == 0.0 && f.is_finite() => format!("floating point `{f:.1}`"),
            _ => format!("floating point `{n}`"),
        },
        Value::String(s) => format!("string {s:?}"),
        Value::Array(_) => "sequence".to_owned(),
        Value::Object(_) => "map".to_owned(),
    };
    format!("invalid type: {found}, expected {expected}")
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
