//! The report's `flow` (agent topology) and `leak_paths` sections
//! (spec 3.10), in the reference's key order.

use super::{Channel, Level};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::sync::Arc;

/// Who talked to whom: one node per endpoint, one edge per distinct
/// (source, target, channel).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Flow {
    #[serde(default)]
    pub nodes: Vec<FlowNode>,
    #[serde(default)]
    pub edges: Vec<FlowEdge>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FlowNode {
    pub id: String,
    /// `agent`, `user`, `tool`, `memory`, `external`, `file`, `log` or `output`.
    pub kind: String,
    /// Drawing column: 0 for users and tools, 1 for agents, 2 for sinks.
    #[serde(default)]
    pub lane: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FlowEdge {
    pub source: String,
    pub target: String,
    pub channel: Channel,
    /// Events on this edge.
    #[serde(default)]
    pub count: u64,
    #[serde(default)]
    pub leaked: bool,
    /// Highest level leaked along the edge; 0 when nothing leaked.
    #[serde(default)]
    pub level: u8,
    /// `L1`…`L4`, or empty when nothing leaked.
    #[serde(default)]
    pub level_label: String,
}

/// How one secret (data type + value) moved through the trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LeakPath {
    pub data_type: String,
    /// The first step's value, redacted unless the run kept raw values.
    pub value: String,
    pub level: Level,
    pub level_label: Cow<'static, str>,
    /// The baseline channel the value first appeared on, if it did.
    pub entered_via: Option<Channel>,
    /// The first step.
    pub origin: LeakStep,
    pub leak_count: u64,
    #[serde(default)]
    pub channels: Vec<Channel>,
    #[cfg_attr(feature = "typescript", ts(as = "Vec<String>"))]
    #[serde(default, with = "super::shared_strs")]
    pub agents: Vec<Arc<str>>,
    #[serde(default)]
    pub steps: Vec<LeakStep>,
}

/// One sighting of a secret. A long trace has a step per finding, and
/// steps repeat a few texts (event ids, node names, kinds, labels), so they
/// are shared, not copied per step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LeakStep {
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(with = "super::shared_str")]
    pub event_id: Arc<str>,
    pub channel: Channel,
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(with = "super::shared_str")]
    pub source: Arc<str>,
    #[cfg_attr(feature = "typescript", ts(as = "String"))]
    #[serde(with = "super::shared_str")]
    pub target: Arc<str>,
    /// `source` on a baseline channel, `leak` on a disclosure channel.
    pub kind: Cow<'static, str>,
    pub level: Level,
    pub level_label: Cow<'static, str>,
}
