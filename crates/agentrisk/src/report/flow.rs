//! The report's `flow` topology and `leak_paths` (spec 3.10).
//!
//! Both read every event of the trace (empty and channel-filtered ones
//! included) and every finding, baseline ones included. Each channel gives
//! an event a source role and a target role (`flow_channel_roles` in the
//! tables); an endpoint's node id is the event's own `source`/`target`,
//! trimmed, unless that is empty, `unknown` or `?`, in which case the role's
//! implied name is used (the trace's agent name for the agent role).
//!
//! Everything is a pass over events or findings with hash maps, plus sorts:
//! near-linear in the size of the trace.

use crate::analyze::{Finding, FxMap, FxSet};
use crate::detect::tables::tables;
use crate::model::{Channel, Flow, FlowEdge, FlowNode, LeakPath, LeakStep, Level};
use crate::pyunicode::strip;
use std::borrow::Cow;
use std::cmp::Reverse;
use std::sync::{Arc, OnceLock};

/// What the topology needs of one trace event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowEvent<'a> {
    pub event_id: &'a str,
    pub channel: Channel,
    pub source: &'a str,
    pub target: &'a str,
}

/// Something that reads as a [`FlowEvent`]: the trace's own events are
/// read in place, so no list of 100 000 views (5.6 MB) is built for them.
pub trait AsFlowEvent {
    fn flow_event(&self) -> FlowEvent<'_>;
}

impl AsFlowEvent for FlowEvent<'_> {
    fn flow_event(&self) -> FlowEvent<'_> {
        *self
    }
}

impl AsFlowEvent for crate::trace::Event {
    fn flow_event(&self) -> FlowEvent<'_> {
        FlowEvent { event_id: &self.event_id, channel: self.channel, source: &self.source, target: &self.target }
    }
}

/// The flow tables, resolved once: roles are indices into
/// `flow_kind_priority`, so a smaller index is a stronger kind.
struct RoleTable {
    kinds: Vec<String>,
    lanes: Vec<u8>,
    implied: Vec<String>,
    agent: usize,
    /// (source role, target role) per channel, indexed like `Channel::ALL`.
    by_channel: [(usize, usize); 8],
}

fn role_table() -> &'static RoleTable {
    static TABLE: OnceLock<RoleTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let t = tables();
        let kinds = t.flow_kind_priority.clone();
        // The tables are bundled with the crate; a missing entry is a build error
        // that every test run would hit.
        let index = |role: &str| {
            kinds.iter().position(|k| k == role).unwrap_or_else(|| panic!("flow role {role} has no kind priority"))
        };
        let by_channel = Channel::ALL.map(|c| {
            let (source, target) =
                t.flow_channel_roles.get(c.as_str()).unwrap_or_else(|| panic!("no flow roles for channel {c}"));
            (index(source), index(target))
        });
        let lanes = kinds.iter().map(|k| t.flow_kind_lane.get(k).copied().unwrap_or(2)).collect();
        let implied =
            kinds.iter().map(|k| t.flow_implied_node_id.get(k).cloned().unwrap_or_else(|| k.clone())).collect();
        let agent = index("agent");
        RoleTable { kinds, lanes, implied, agent, by_channel }
    })
}

fn channel_index(channel: Channel) -> usize {
    Channel::ALL.iter().position(|&c| c == channel).unwrap_or(0)
}

/// The (source, target) node ids of events, and where each finding's event
/// id points: the *last* event with that id, as in the reference.
struct Endpoints<'a> {
    table: &'static RoleTable,
    agent_name: &'a str,
    /// Only the ids findings name (a long trace has far more events):
    /// the event's position and endpoints.
    by_id: FxMap<&'a str, (usize, (&'a str, &'a str))>,
}

impl<'a> Endpoints<'a> {
    fn new<E: AsFlowEvent>(events: &'a [E], agent_name: &'a str, findings: &[Finding]) -> Endpoints<'a> {
        let table = role_table();
        let named: FxSet<&str> = findings.iter().map(|f| &*f.event_id).collect();
        let mut e = Endpoints { table, agent_name, by_id: FxMap::default() };
        for (i, event) in events.iter().map(AsFlowEvent::flow_event).enumerate() {
            if named.contains(event.event_id) {
                let ends = e.of_event(&event);
                e.by_id.insert(event.event_id, (i, ends));
            }
        }
        e
    }

    /// The (source, target) node ids of an event.
    fn of_event(&self, event: &FlowEvent<'a>) -> (&'a str, &'a str) {
        let (source_role, target_role) = self.table.by_channel[channel_index(event.channel)];
        (self.node_id(event.source, source_role), self.node_id(event.target, target_role))
    }

    fn node_id(&self, explicit: &'a str, role: usize) -> &'a str {
        let trimmed = strip(explicit);
        let placeholder =
            trimmed.is_empty() || trimmed == "?" || trimmed.chars().flat_map(char::to_lowercase).eq("unknown".chars());
        if !placeholder {
            trimmed
        } else if role == self.table.agent && !self.agent_name.is_empty() {
            self.agent_name
        } else {
            &self.table.implied[role]
        }
    }

    /// The event position and endpoints a finding belongs to. A finding
    /// whose event id is not in the trace gets the implied endpoints of its
    /// channel and sorts after every event.
    fn of(&self, finding: &Finding) -> (usize, (&'a str, &'a str)) {
        match self.by_id.get(&*finding.event_id) {
            Some(&placed) => placed,
            None => {
                let (s, t) = self.table.by_channel[channel_index(finding.channel)];
                (usize::MAX, (self.node_id("", s), self.node_id("", t)))
            }
        }
    }
}

/// Where each finding sits in the trace, resolved while the events are at
/// hand, so that the leak paths can be built once the trace is gone.
pub struct Placements {
    /// Node names, each once.
    nodes: Vec<Arc<str>>,
    /// Per finding, in the findings' order: the position of its event
    /// (`u32::MAX` when its id is not in the trace) and its source and
    /// target nodes.
    of_finding: Vec<(u32, u32, u32)>,
}

impl Placements {
    fn new<'a>(endpoints: &Endpoints<'a>, findings: &[Finding]) -> Placements {
        let mut index: FxMap<&'a str, u32> = FxMap::default();
        let mut nodes: Vec<Arc<str>> = Vec::new();
        let mut node = |name: &'a str| -> u32 {
            *index.entry(name).or_insert_with(|| {
                nodes.push(Arc::from(name));
                (nodes.len() - 1) as u32
            })
        };
        let of_finding = findings
            .iter()
            .map(|f| {
                let (position, (source, target)) = endpoints.of(f);
                (u32::try_from(position).unwrap_or(u32::MAX), node(source), node(target))
            })
            .collect();
        Placements { nodes, of_finding }
    }
}

fn label(level: u8) -> String {
    if level == 0 {
        String::new()
    } else {
        format!("L{level}")
    }
}

/// `flow`, and what [`leak_paths`] needs of the events.
pub fn flow_and_placements<E: AsFlowEvent>(events: &[E], agent_name: &str, findings: &[Finding]) -> (Flow, Placements) {
    let endpoints = Endpoints::new(events, agent_name, findings);
    let placements = Placements::new(&endpoints, findings);
    (topology(events, &endpoints, findings, &placements), placements)
}

fn topology<'a, E: AsFlowEvent>(
    events: &'a [E],
    endpoints: &Endpoints<'a>,
    findings: &[Finding],
    placements: &Placements,
) -> Flow {
    let table = endpoints.table;
    // Node → strongest role played.
    let mut kinds: FxMap<&str, usize> = FxMap::default();
    // (source, target, channel) → edge index, edges in first-appearance order.
    let mut edge_index: FxMap<(&str, &str, Channel), usize> = FxMap::default();
    let mut edges: Vec<(&str, &str, Channel, u64, u8)> = Vec::new();
    for event in events.iter().map(AsFlowEvent::flow_event) {
        let (source, target) = endpoints.of_event(&event);
        let (source_role, target_role) = table.by_channel[channel_index(event.channel)];
        for (node, role) in [(source, source_role), (target, target_role)] {
            let kind = kinds.entry(node).or_insert(role);
            *kind = (*kind).min(role);
        }
        let i = *edge_index.entry((source, target, event.channel)).or_insert_with(|| {
            edges.push((source, target, event.channel, 0, 0));
            edges.len() - 1
        });
        edges[i].3 += 1;
    }
    for (f, &(position, source, target)) in findings.iter().zip(&placements.of_finding) {
        // The triple is the endpoints of the finding's event (by id) with the
        // finding's own channel; it need not be an edge of the events.
        if !f.channel.is_disclosure() || position == u32::MAX {
            continue;
        }
        let (source, target) = (&*placements.nodes[source as usize], &*placements.nodes[target as usize]);
        if let Some(&i) = edge_index.get(&(source, target, f.channel)) {
            edges[i].4 = edges[i].4.max(f.level.get());
        }
    }

    let mut nodes: Vec<FlowNode> = kinds
        .into_iter()
        .map(|(id, kind)| FlowNode { id: id.to_owned(), kind: table.kinds[kind].clone(), lane: table.lanes[kind] })
        .collect();
    nodes.sort_by(|a, b| (a.lane, &a.id).cmp(&(b.lane, &b.id)));
    // Stable: equal (level, source, target) keep first appearance, whatever the channel.
    edges.sort_by(|a, b| (Reverse(a.4), a.0, a.1).cmp(&(Reverse(b.4), b.0, b.1)));
    let edges = edges
        .into_iter()
        .map(|(source, target, channel, count, level)| FlowEdge {
            source: source.to_owned(),
            target: target.to_owned(),
            channel,
            count,
            leaked: level > 0,
            level,
            level_label: label(level),
        })
        .collect();
    Flow { nodes, edges }
}

/// The `leak_paths` of findings placed by [`flow_and_placements`]: one path
/// per distinct (data type, value) that reached a disclosure channel.
pub fn leak_paths(findings: &[Finding], placements: &Placements, redact_values: bool) -> Vec<LeakPath> {
    let table = role_table();
    // Sized for the worst case up front: growing a map of tens of thousands
    // of entries rehashes it again and again.
    let mut group_index: FxMap<(&str, &str), usize> =
        FxMap::with_capacity_and_hasher(findings.len(), Default::default());
    // Finding positions, by (data type, value) in first-seen order.
    let mut groups: Vec<Vec<u32>> = Vec::new();
    for (i, f) in findings.iter().enumerate() {
        let g = *group_index.entry((f.data_type.as_ref(), f.matched_value.as_str())).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i as u32);
    }
    drop(group_index);

    let node = |i: u32| placements.nodes[i as usize].clone();
    let leaks_out = |g: &[u32]| g.iter().any(|&i| findings[i as usize].channel.is_disclosure());
    // Sized exactly: a long trace has tens of thousands of paths.
    let mut paths: Vec<LeakPath> = Vec::with_capacity(groups.iter().filter(|g| leaks_out(g)).count());
    // The paths' sort keys: level and leak count descending, then data type.
    let mut keys: Vec<(Reverse<Level>, Reverse<u64>, &str)> = Vec::with_capacity(paths.capacity());
    for mut group in groups {
        if !leaks_out(&group) {
            continue;
        }
        // By event position; stable, so equal positions keep finding order.
        group.sort_by_key(|&i| placements.of_finding[i as usize].0);
        let placed = || group.iter().map(|&i| (&findings[i as usize], placements.of_finding[i as usize]));
        let steps: Vec<LeakStep> = placed()
            .map(|(f, (_, source, target))| LeakStep {
                event_id: f.event_id.clone(),
                channel: f.channel,
                source: node(source),
                target: node(target),
                kind: Cow::Borrowed(if f.channel.is_baseline() { "source" } else { "leak" }),
                level: f.level,
                level_label: Cow::Borrowed(f.level.label()),
            })
            .collect();
        let leaks = || placed().filter(|(f, _)| f.channel.is_disclosure());
        let level = leaks().map(|(f, _)| f.level).max().unwrap_or(Level::L1);
        let mut channels: Vec<Channel> = leaks().map(|(f, _)| f.channel).collect();
        channels.sort_by_key(|c| c.as_str());
        channels.dedup();
        // Steps whose channel has the agent as its source role (every
        // disclosure channel, as the tables stand).
        let mut agents: Vec<&Arc<str>> = leaks()
            .filter(|(f, _)| table.by_channel[channel_index(f.channel)].0 == table.agent)
            .map(|(_, (_, source, _))| &placements.nodes[source as usize])
            .collect();
        agents.sort_unstable();
        agents.dedup();
        let first = &findings[group[0] as usize];
        let origin = steps[0].clone();
        let leak_count = leaks().count() as u64;
        keys.push((Reverse(level), Reverse(leak_count), &first.data_type));
        paths.push(LeakPath {
            data_type: first.data_type.to_string(),
            value: if redact_values { first.redacted_value() } else { first.matched_value.clone() },
            level,
            level_label: Cow::Borrowed(level.label()),
            entered_via: first.channel.is_baseline().then_some(first.channel),
            origin,
            leak_count,
            channels,
            agents: agents.into_iter().cloned().collect(),
            steps,
        });
    }
    crate::analyze::sort_stable_in_place_by_keys(&mut paths, keys);
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Severity;

    /// `flow` and `leak_paths` of a trace. `findings` are all findings in final
    /// order; `redact_values` decides whether a path shows the raw value.
    fn flow_and_leak_paths<E: AsFlowEvent>(
        events: &[E],
        agent_name: &str,
        findings: &[Finding],
        redact_values: bool,
    ) -> (Flow, Vec<LeakPath>) {
        let (flow, placements) = flow_and_placements(events, agent_name, findings);
        (flow, leak_paths(findings, &placements, redact_values))
    }

    fn finding(event_id: &str, channel: Channel, value: &str, level: u8) -> Finding {
        Finding {
            number: 0,
            event_index: 0,
            event_id: event_id.into(),
            channel,
            source: "".into(),
            target: "".into(),
            data_type: "email".into(),
            severity: Severity::Medium,
            level: Level::clamped(i64::from(level)),
            confidence: 0.9,
            matched_value: value.to_owned(),
            detector: "".into(),
            recommendation: "".into(),
            transform: None,
        }
    }

    fn event<'a>(event_id: &'a str, channel: Channel, source: &'a str, target: &'a str) -> FlowEvent<'a> {
        FlowEvent { event_id, channel, source, target }
    }

    #[test]
    fn placeholder_endpoints_take_the_implied_names_and_explicit_ones_are_trimmed() {
        let events = [
            event("e1", Channel::UserInput, " UNKNOWN ", "?"),
            event("e2", Channel::ToolCall, "", "  crm "),
            event("e3", Channel::ToolResponse, "crm", "unknown"),
            event("e4", Channel::Log, "unknown", "unknown"),
        ];
        let (flow, _) = flow_and_leak_paths(&events, "", &[], true);
        let nodes: Vec<(&str, &str, u8)> =
            flow.nodes.iter().map(|n| (n.id.as_str(), n.kind.as_str(), n.lane)).collect();
        // `crm` was an external target and a tool source: tool ranks first.
        assert_eq!(nodes, vec![("crm", "tool", 0), ("user", "user", 0), ("agent", "agent", 1), ("logs", "log", 2)]);
        let (named, _) = flow_and_leak_paths(&events[..1], "bot", &[], true);
        assert_eq!(named.nodes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), ["user", "bot"]);
    }

    #[test]
    fn edges_sort_by_level_then_endpoints_keeping_first_appearance() {
        let events = [
            event("e1", Channel::Log, "a", "z"),
            event("e2", Channel::SharedMemory, "a", "z"),
            event("e3", Channel::ToolCall, "a", "b"),
            event("e4", Channel::Log, "a", "z"),
        ];
        let findings = [finding("e3", Channel::ToolCall, "x@y.z", 2)];
        let (flow, paths) = flow_and_leak_paths(&events, "bot", &findings, true);
        let edges: Vec<(&str, Channel, u64, u8)> =
            flow.edges.iter().map(|e| (e.target.as_str(), e.channel, e.count, e.level)).collect();
        assert_eq!(
            edges,
            vec![("b", Channel::ToolCall, 1, 2), ("z", Channel::Log, 2, 0), ("z", Channel::SharedMemory, 1, 0)]
        );
        assert_eq!((flow.edges[0].leaked, flow.edges[0].level_label.as_str()), (true, "L2"));
        assert_eq!(flow.edges[1].level_label, "");
        assert_eq!((paths.len(), paths[0].value.as_str(), paths[0].entered_via), (1, "x@*.z", None));
    }

    #[test]
    fn a_path_orders_steps_by_event_and_drops_values_that_never_leaked() {
        let events = [
            event("e1", Channel::ToolResponse, "db", "agent"),
            event("e2", Channel::FinalOutput, "agent", "user"),
            event("e3", Channel::Log, "agent", "stdout"),
        ];
        let findings = [
            finding("e3", Channel::Log, "a@b.cd", 3),
            finding("e1", Channel::ToolResponse, "a@b.cd", 3),
            // An event id that is not in the trace (our choice: implied
            // endpoints of its channel, after every event).
            finding("gone", Channel::FinalOutput, "a@b.cd", 2),
            finding("e2", Channel::FinalOutput, "a@b.cd", 3),
            finding("e1", Channel::ToolResponse, "only@base.line", 3),
        ];
        let (_, paths) = flow_and_leak_paths(&events, "bot", &findings, false);
        assert_eq!(paths.len(), 1);
        let p = &paths[0];
        let steps: Vec<(&str, &str, &str, &str)> =
            p.steps.iter().map(|s| (&*s.event_id, &*s.source, &*s.target, &*s.kind)).collect();
        assert_eq!(
            steps,
            vec![
                ("e1", "db", "agent", "source"),
                ("e2", "agent", "user", "leak"),
                ("e3", "agent", "stdout", "leak"),
                ("gone", "bot", "final output", "leak"),
            ]
        );
        assert_eq!((p.value.as_str(), p.entered_via, p.leak_count), ("a@b.cd", Some(Channel::ToolResponse), 3));
        assert_eq!(p.channels, vec![Channel::FinalOutput, Channel::Log]);
        assert_eq!(p.agents, vec![Arc::from("agent"), Arc::from("bot")]);
        assert_eq!(p.origin, p.steps[0]);
    }
}
