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

use crate::analyze::Finding;
use crate::model::{Channel, Flow, FlowEdge, FlowNode, LeakPath, LeakStep, Level};
use crate::pyunicode::strip;
use crate::tables::tables;
use crate::util::{FxMap, FxSet};
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

/// The flow roles, resolved once. The tables are bundled with the crate, so
/// a missing entry is a programming error, which the test
/// `role_table_covers_every_channel` turns into a test failure.
#[allow(clippy::panic)]
fn role_table() -> &'static RoleTable {
    static TABLE: OnceLock<RoleTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let t = tables();
        let kinds = t.flow_kind_priority.clone();
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

/// The (source, target) node id of an event on `channel` with the given
/// explicit endpoints.
fn endpoint_names<'a>(
    table: &'a RoleTable,
    agent_name: &'a str,
    channel: Channel,
    source: &'a str,
    target: &'a str,
) -> (&'a str, &'a str) {
    let (source_role, target_role) = table.by_channel[channel_index(channel)];
    (node_id(table, agent_name, source, source_role), node_id(table, agent_name, target, target_role))
}

fn node_id<'a>(table: &'a RoleTable, agent_name: &'a str, explicit: &'a str, role: usize) -> &'a str {
    let trimmed = strip(explicit);
    let placeholder =
        trimmed.is_empty() || trimmed == "?" || trimmed.chars().flat_map(char::to_lowercase).eq("unknown".chars());
    if !placeholder {
        trimmed
    } else if role == table.agent && !agent_name.is_empty() {
        agent_name
    } else {
        &table.implied[role]
    }
}

/// Node names, each numbered once.
#[derive(Default)]
struct Nodes<'a> {
    number: FxMap<&'a str, u32>,
    names: Vec<&'a str>,
}

impl<'a> Nodes<'a> {
    fn number(&mut self, name: &'a str) -> u32 {
        *self.number.entry(name).or_insert_with(|| {
            self.names.push(name);
            (self.names.len() - 1) as u32
        })
    }
}

/// Each event id's last position (later positions overwrite earlier ones).
fn last_position_by_id<E: AsFlowEvent>(events: &[E]) -> FxMap<&str, u32> {
    events.iter().enumerate().map(|(i, e)| (e.flow_event().event_id, i as u32)).collect()
}

/// For each event whose id a later event repeats, the position of the last
/// event with that id (the one a finding's event id points to, as in the
/// reference). Empty when ids are unique, as they almost always are: that
/// is checked with one set of the ids, sized up front.
fn last_with_same_id<E: AsFlowEvent>(events: &[E]) -> FxMap<u32, u32> {
    let mut seen: FxSet<&str> = FxSet::with_capacity_and_hasher(events.len(), Default::default());
    if events.iter().all(|e| seen.insert(e.flow_event().event_id)) {
        return FxMap::default();
    }
    drop(seen);
    let last = last_position_by_id(events);
    events
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let last = last[e.flow_event().event_id];
            (last as usize != i).then_some((i as u32, last))
        })
        .collect()
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

fn label(level: u8) -> String {
    if level == 0 {
        String::new()
    } else {
        format!("L{level}")
    }
}

/// `flow`, and what [`leak_paths`] needs of the events.
///
/// A finding belongs to the *last* event with its event id, as in the
/// reference. Findings made from the trace know their event's position,
/// so only repeated ids need a lookup by id (and findings whose position
/// does not hold their id: an id no event has gets the implied endpoints
/// of its channel and sorts after every event).
pub fn flow_and_placements<E: AsFlowEvent>(events: &[E], agent_name: &str, findings: &[Finding]) -> (Flow, Placements) {
    let table = role_table();
    let mut nodes = Nodes::default();
    // Per event: (source node, target node).
    let ends: Vec<(u32, u32)> = events
        .iter()
        .map(|e| {
            let e = e.flow_event();
            let (source, target) = endpoint_names(table, agent_name, e.channel, e.source, e.target);
            (nodes.number(source), nodes.number(target))
        })
        .collect();
    let on_events = nodes.names.len();
    let last_same = last_with_same_id(events);
    let mut by_id: Option<FxMap<&str, u32>> = None;
    let of_finding: Vec<(u32, u32, u32)> = findings
        .iter()
        .map(|f| {
            let p = f.event_index;
            let position = if events.get(p).is_some_and(|e| e.flow_event().event_id == &*f.event_id) {
                Some(last_same.get(&(p as u32)).copied().unwrap_or(p as u32))
            } else {
                by_id.get_or_insert_with(|| last_position_by_id(events)).get(&*f.event_id).copied()
            };
            match position {
                Some(q) => (q, ends[q as usize].0, ends[q as usize].1),
                None => {
                    let (source, target) = endpoint_names(table, agent_name, f.channel, "", "");
                    (u32::MAX, nodes.number(source), nodes.number(target))
                }
            }
        })
        .collect();
    let flow = topology(events, table, &nodes.names[..on_events], &ends, findings, &of_finding);
    let placements = Placements { nodes: nodes.names.iter().map(|&n| Arc::from(n)).collect(), of_finding };
    (flow, placements)
}

/// The nodes and edges of the events (`names` holds the events' nodes), with
/// the level of the strongest finding on each edge.
fn topology<E: AsFlowEvent>(
    events: &[E],
    table: &RoleTable,
    names: &[&str],
    ends: &[(u32, u32)],
    findings: &[Finding],
    of_finding: &[(u32, u32, u32)],
) -> Flow {
    // Node → strongest role played.
    let mut kinds: Vec<usize> = vec![usize::MAX; names.len()];
    // (source, target, channel) → edge index, edges in first-appearance order.
    let mut edge_index: FxMap<(u32, u32, Channel), usize> = FxMap::default();
    let mut edges: Vec<(u32, u32, Channel, u64, u8)> = Vec::new();
    for (event, &(source, target)) in events.iter().zip(ends) {
        let channel = event.flow_event().channel;
        let (source_role, target_role) = table.by_channel[channel_index(channel)];
        for (node, role) in [(source, source_role), (target, target_role)] {
            let kind = &mut kinds[node as usize];
            *kind = (*kind).min(role);
        }
        let i = *edge_index.entry((source, target, channel)).or_insert_with(|| {
            edges.push((source, target, channel, 0, 0));
            edges.len() - 1
        });
        edges[i].3 += 1;
    }
    for (f, &(position, source, target)) in findings.iter().zip(of_finding) {
        // The triple is the endpoints of the finding's event (by id) with the
        // finding's own channel; it need not be an edge of the events.
        if !f.channel.is_disclosure() || position == u32::MAX {
            continue;
        }
        if let Some(&i) = edge_index.get(&(source, target, f.channel)) {
            edges[i].4 = edges[i].4.max(f.level.get());
        }
    }

    let mut nodes: Vec<FlowNode> = names
        .iter()
        .zip(kinds)
        .map(|(id, kind)| FlowNode { id: (*id).to_owned(), kind: table.kinds[kind].clone(), lane: table.lanes[kind] })
        .collect();
    crate::util::sort_by(&mut nodes, |a, b| (a.lane, &a.id).cmp(&(b.lane, &b.id)));
    // Stable: equal (level, source, target) keep first appearance, whatever the channel.
    let name = |node: u32| names[node as usize];
    crate::util::sort_by(&mut edges, |a, b| {
        (Reverse(a.4), name(a.0), name(a.1)).cmp(&(Reverse(b.4), name(b.0), name(b.1)))
    });
    let edges = edges
        .into_iter()
        .map(|(source, target, channel, count, level)| FlowEdge {
            source: name(source).to_owned(),
            target: name(target).to_owned(),
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
        crate::util::sort_by_key(&mut group, |&i| placements.of_finding[i as usize].0);
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
        crate::util::sort_by_key(&mut channels, |c| c.as_str());
        channels.dedup();
        // Steps whose channel has the agent as its source role (every
        // disclosure channel, as the tables stand).
        let mut agents: Vec<&Arc<str>> = leaks()
            .filter(|(f, _)| table.by_channel[channel_index(f.channel)].0 == table.agent)
            .map(|(_, (_, source, _))| &placements.nodes[source as usize])
            .collect();
        crate::util::sort(&mut agents);
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

    #[test]
    fn role_table_covers_every_channel() {
        let table = role_table();
        assert_eq!(table.kinds[table.agent], "agent");
        assert_eq!(table.lanes.len(), table.kinds.len());
        for (c, (source, target)) in Channel::ALL.iter().zip(table.by_channel) {
            assert!(source < table.kinds.len() && target < table.kinds.len(), "{c}");
        }
    }

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

    #[test]
    fn a_repeated_event_id_places_its_findings_at_the_last_event_with_it() {
        let events = [
            event("e1", Channel::ToolCall, "bot", "crm"),
            event("e2", Channel::ToolCall, "bot", "mail"),
            event("e1", Channel::Log, "bot", "stdout"),
        ];
        // Made on the first `e1` (position 0), and one whose position does
        // not hold its id: both belong to the last `e1`.
        let mut first = finding("e1", Channel::ToolCall, "a@b.cd", 2);
        first.event_index = 0;
        let mut misplaced = finding("e1", Channel::ToolCall, "x@y.zw", 3);
        misplaced.event_index = 1;
        let mut on_e2 = finding("e2", Channel::ToolCall, "a@b.cd", 2);
        on_e2.event_index = 1;
        let findings = [first, on_e2, misplaced];
        let (flow, paths) = flow_and_leak_paths(&events, "bot", &findings, false);
        // Paths by level: x@y.zw (L3) first.
        assert_eq!((&*paths[0].steps[0].event_id, &*paths[0].steps[0].target), ("e1", "stdout"));
        let steps: Vec<(&str, &str)> = paths[1].steps.iter().map(|s| (&*s.event_id, &*s.target)).collect();
        assert_eq!(steps, vec![("e2", "mail"), ("e1", "stdout")]);
        // No (bot, stdout, tool_call) edge: only bot → mail leaked.
        let leaked: Vec<(&str, u8)> =
            flow.edges.iter().filter(|e| e.leaked).map(|e| (e.target.as_str(), e.level)).collect();
        assert_eq!(leaked, vec![("mail", 2)]);
    }
}
