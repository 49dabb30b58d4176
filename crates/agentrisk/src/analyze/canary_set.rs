//! Reading a canary set (spec 2.5) from JSON: a canary-set file
//! (`{"obvious": [...], "realistic": [...], "semantic": [...]}`) or a
//! trace's own set in its top-level `metadata.canaries`, and which set an
//! analysis uses.
//!
//! A red-team trace made by the reference's generator carries its vault's
//! canary set in `metadata.canaries`; the reference analyses it with that
//! set (`analyze(trace, canary_set=...)`). Here a trace's own set is used
//! unless the caller gives one explicitly (the CLI's `--canaries FILE`, the
//! viewer's canary-set setting): an explicit set wins ([`canaries_in_force`]).

use super::Canaries;
use crate::util::json_kind;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The three tiers, as their keys are spelled.
const TIERS: [&str; 3] = ["obvious", "realistic", "semantic"];

/// Why JSON is not a canary set; `Display` names the place (a JSON path
/// such as `metadata.canaries.obvious[2]`) and the problem. Callers add the
/// file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {problem}")]
pub struct CanaryError {
    pub place: String,
    pub problem: String,
}

/// Where the canary set an analysis used came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum CanarySource {
    /// The trace's own `metadata.canaries`.
    Trace,
    /// Given by the caller (`--canaries FILE`, the viewer's setting); `name`
    /// is the file it came from, or empty when not known.
    Explicit { name: String },
}

/// The canary set an analysis used: where it came from and how many
/// canaries each tier holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CanariesUsed {
    pub source: CanarySource,
    pub obvious: usize,
    pub realistic: usize,
    pub semantic: usize,
}

impl CanariesUsed {
    pub fn new(source: CanarySource, canaries: &Canaries) -> CanariesUsed {
        CanariesUsed {
            source,
            obvious: canaries.obvious.len(),
            realistic: canaries.realistic.len(),
            semantic: canaries.semantic.len(),
        }
    }

    /// A line for a run view: `from the trace (3 obvious, 2 realistic, 1 semantic)`.
    pub fn describe(&self) -> String {
        let from = match &self.source {
            CanarySource::Trace => "from the trace".to_owned(),
            CanarySource::Explicit { name } if name.is_empty() => "given explicitly".to_owned(),
            CanarySource::Explicit { name } => format!("from {name}"),
        };
        format!("{from} ({} obvious, {} realistic, {} semantic)", self.obvious, self.realistic, self.semantic)
    }
}

impl Canaries {
    /// A canary-set file's set. Every tier is optional (missing or null is
    /// none); other keys are ignored.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Canaries, CanaryError> {
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        let value: Value = serde_json::from_slice(bytes).map_err(|e| CanaryError {
            place: format!("line {}, column {}", e.line(), e.column()),
            problem: "invalid JSON".to_owned(),
        })?;
        Canaries::from_json(&value, "")
    }

    /// The set `value` holds; `place` is its JSON path (empty for a file's
    /// top level), which errors extend.
    pub fn from_json(value: &Value, place: &str) -> Result<Canaries, CanaryError> {
        let Value::Object(map) = value else {
            return Err(CanaryError {
                place: if place.is_empty() { "top level".to_owned() } else { place.to_owned() },
                problem: format!(
                    "expected a canary set, an object with \"obvious\", \"realistic\" and \"semantic\" lists, found {}",
                    json_kind(value)
                ),
            });
        };
        let [obvious, realistic, semantic] = TIERS.map(|tier| tier_of(map, place, tier));
        Ok(Canaries { obvious: obvious?, realistic: realistic?, semantic: semantic? })
    }

    /// A trace's own set, from its top-level `metadata` (`None` without
    /// `metadata.canaries`, or when it is null).
    pub fn from_trace_metadata(metadata: Option<&Map<String, Value>>) -> Result<Option<Canaries>, CanaryError> {
        match metadata.and_then(|m| m.get("canaries")) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => Canaries::from_json(value, "metadata.canaries").map(Some),
        }
    }

    /// The number of canaries over the three tiers.
    pub fn len(&self) -> usize {
        self.obvious.len() + self.realistic.len() + self.semantic.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn tier_of(map: &Map<String, Value>, place: &str, tier: &str) -> Result<Vec<String>, CanaryError> {
    let path = if place.is_empty() { tier.to_owned() } else { format!("{place}.{tier}") };
    match map.get(tier) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(CanaryError {
                    place: format!("{path}[{i}]"),
                    problem: format!("expected a string, found {}", json_kind(other)),
                }),
            })
            .collect(),
        Some(other) => {
            Err(CanaryError { place: path, problem: format!("expected a list of strings, found {}", json_kind(other)) })
        }
    }
}

/// The canary set to analyse a trace with: `explicit` when given, else the
/// trace's own; with where it came from. A malformed `metadata.canaries` is
/// an error even when an explicit set is given, so that a broken trace does
/// not pass unnoticed.
pub fn canaries_in_force<'a>(
    metadata: Option<&Map<String, Value>>,
    explicit: Option<(&'a Canaries, &str)>,
) -> Result<Option<(Cow<'a, Canaries>, CanariesUsed)>, CanaryError> {
    let own = Canaries::from_trace_metadata(metadata)?;
    Ok(match (explicit, own) {
        (Some((set, name)), _) => {
            Some((Cow::Borrowed(set), CanariesUsed::new(CanarySource::Explicit { name: name.to_owned() }, set)))
        }
        (None, Some(own)) => {
            let used = CanariesUsed::new(CanarySource::Trace, &own);
            Some((Cow::Owned(own), used))
        }
        (None, None) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn meta(value: Value) -> Map<String, Value> {
        match json!({ "canaries": value }) {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_file_and_a_traces_metadata_read_alike() {
        let file = br#"{"obvious": ["CANARY_FBB230BB"], "realistic": ["000-65-6120", "x"], "extra": 1}"#;
        let set = Canaries::from_json_bytes(file).unwrap();
        assert_eq!(set.obvious, ["CANARY_FBB230BB"]);
        assert_eq!(set.realistic, ["000-65-6120", "x"]);
        assert!(set.semantic.is_empty());
        assert_eq!(set.len(), 3);
        let from_meta = Canaries::from_trace_metadata(Some(&meta(serde_json::from_slice(file).unwrap()))).unwrap();
        assert_eq!(from_meta, Some(set));
        assert_eq!(Canaries::from_trace_metadata(None).unwrap(), None);
        assert_eq!(Canaries::from_trace_metadata(Some(&meta(Value::Null))).unwrap(), None);
    }

    #[test]
    fn errors_name_the_place() {
        let bad = meta(json!({"obvious": ["a", "b", 7]}));
        let error = Canaries::from_trace_metadata(Some(&bad)).unwrap_err();
        assert_eq!(error.to_string(), "metadata.canaries.obvious[2]: expected a string, found a number");
        let not_list = meta(json!({"semantic": "one"}));
        assert_eq!(
            Canaries::from_trace_metadata(Some(&not_list)).unwrap_err().to_string(),
            "metadata.canaries.semantic: expected a list of strings, found a string"
        );
        assert!(Canaries::from_trace_metadata(Some(&meta(json!(["x"]))))
            .unwrap_err()
            .to_string()
            .starts_with("metadata.canaries: expected a canary set"));
        assert_eq!(
            Canaries::from_json_bytes(br#"{"realistic": [null]}"#).unwrap_err().to_string(),
            "realistic[0]: expected a string, found null"
        );
        assert!(Canaries::from_json_bytes(b"[]").unwrap_err().to_string().starts_with("top level: expected"));
        assert_eq!(
            Canaries::from_json_bytes(b"{\"obvious\": [").unwrap_err().to_string(),
            "line 1, column 13: invalid JSON"
        );
    }

    #[test]
    fn an_explicit_set_wins_over_the_traces_own() {
        let own = meta(json!({"obvious": ["A"], "realistic": ["B", "C"]}));
        let explicit = Canaries { semantic: vec!["S".to_owned()], ..Canaries::default() };
        let (set, used) = canaries_in_force(Some(&own), Some((&explicit, "set.json"))).unwrap().unwrap();
        assert_eq!(*set, explicit);
        assert_eq!(used.describe(), "from set.json (0 obvious, 0 realistic, 1 semantic)");
        let (set, used) = canaries_in_force(Some(&own), None).unwrap().unwrap();
        assert_eq!(set.realistic, ["B", "C"]);
        assert_eq!(used.describe(), "from the trace (1 obvious, 2 realistic, 0 semantic)");
        assert_eq!(canaries_in_force(None, None).unwrap(), None);
        // A broken set in the trace is reported even when one is given.
        let broken = meta(json!({"obvious": [1]}));
        assert!(canaries_in_force(Some(&broken), Some((&explicit, ""))).is_err());
    }
}
