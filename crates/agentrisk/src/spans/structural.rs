//! The structural mapping: spans → one trace per conversation, each event
//! on the channel where the agent really disclosed it (`docs/spans.md`).
//!
//! A span's role comes from OpenInference's `openinference.span.kind`, OTel
//! GenAI's `gen_ai.operation.name`, or Traceloop's `traceloop.span.kind`
//! ([`Role::of`]). Events are ordered by time: what a span takes in at its
//! start, what it gives out at its end, ties broken by the span tree.
//!
//! * `user_input`: each root span's input, and user messages a model is
//!   given that were not seen before in the conversation;
//! * `tool_call`: every tool call's arguments — each call of a model's
//!   output (parallel calls included), and each tool span's input unless it
//!   is the same call (by call id, else by tool name and arguments);
//!   never a tool's schema;
//! * `tool_response`: tool outputs, retrieved documents, and tool messages
//!   a model is given that no tool span traced;
//! * `inter_agent_message`: an agent span's input and output when the
//!   conversation has more than one agent, and model text turns that are
//!   not the final answer;
//! * `final_output`: each root's answer — its output, or when that is a
//!   message list or graph state, the last assistant message in it; with
//!   no output, the last model text by time;
//! * `log`: span events (exceptions: message and stack trace) and guardrail
//!   outputs;
//! * not mapped: inner chain, prompt, embedding and reranker spans,
//!   system prompts, tool schemas.

use super::Span;
use crate::model::Channel;
use crate::trace::{parse_json, Event, PyValue, Trace};
use crate::util::{FxMap, FxSet};
use std::sync::Arc;

/// What a span does in the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Model,
    Tool,
    Agent,
    Chain,
    Retriever,
    Guardrail,
    /// Embeddings, rerankers, prompt templates, evaluators: not mapped.
    Plumbing,
}

impl Role {
    pub fn of(span: &Span) -> Role {
        if let Some(kind) = span.text("openinference.span.kind") {
            return match kind.to_ascii_uppercase().as_str() {
                "LLM" => Role::Model,
                "TOOL" => Role::Tool,
                "AGENT" => Role::Agent,
                "RETRIEVER" => Role::Retriever,
                "GUARDRAIL" => Role::Guardrail,
                "EMBEDDING" | "RERANKER" | "PROMPT" | "EVALUATOR" => Role::Plumbing,
                _ => Role::Chain,
            };
        }
        if let Some(op) = span.text("gen_ai.operation.name") {
            return match op {
                "chat" | "text_completion" | "generate_content" => Role::Model,
                "execute_tool" => Role::Tool,
                "invoke_agent" | "create_agent" => Role::Agent,
                "embeddings" => Role::Plumbing,
                _ => Role::Chain,
            };
        }
        if let Some(kind) = span.text("traceloop.span.kind") {
            return match kind {
                "agent" => Role::Agent,
                "tool" => Role::Tool,
                _ => Role::Chain,
            };
        }
        if span.text("llm.request.type").is_some() {
            return Role::Model;
        }
        if span.text("tool.name").or_else(|| span.text("gen_ai.tool.name")).is_some() {
            return Role::Tool;
        }
        Role::Chain
    }

    fn label(self) -> &'static str {
        match self {
            Role::Model => "model",
            Role::Tool => "tool",
            Role::Agent => "agent",
            Role::Chain => "chain",
            Role::Retriever => "retriever",
            Role::Guardrail => "guardrail",
            Role::Plumbing => "plumbing",
        }
    }
}

/// The traces of `spans`, one per conversation, with the number of spans
/// each was made from and its conversation key (`None` when the file holds
/// one conversation). Runs are named `stem`, or `stem#key` when several.
pub fn traces(spans: &[Span], stem: &str) -> Vec<(Trace, u64, Option<String>)> {
    let conversations = conversations(spans);
    let several = conversations.len() > 1;
    conversations
        .into_iter()
        .map(|(key, members)| {
            let run_id = if several { format!("{stem}#{key}") } else { stem.to_owned() };
            let count = members.len() as u64;
            let trace = Conversation::new(spans, members).trace(run_id);
            (trace, count, several.then_some(key))
        })
        .collect()
}

/// Spans grouped by conversation: by `session.id` or
/// `gen_ai.conversation.id` (a trace takes the first one any of its spans
/// carries), else by trace id; ordered by their first span's start. Each
/// comes with the key that names it: the session id, or the trace id's
/// first 8 digits (all of it when two conversations share those).
fn conversations(spans: &[Span]) -> Vec<(String, Vec<usize>)> {
    let mut session_of_trace: FxMap<&str, String> = FxMap::default();
    for span in spans {
        if session_of_trace.contains_key(span.trace_id.as_str()) {
            continue;
        }
        let session = ["session.id", "gen_ai.conversation.id"].iter().find_map(|k| span.attr(k)).map(super::py_str);
        if let Some(session) = session.filter(|s| !s.is_empty()) {
            session_of_trace.insert(&span.trace_id, session);
        }
    }
    // (is a session, key) → members.
    let mut groups: Vec<((bool, String), Vec<usize>)> = Vec::new();
    let mut index_of: FxMap<(bool, String), usize> = FxMap::default();
    for (i, span) in spans.iter().enumerate() {
        let key = match session_of_trace.get(span.trace_id.as_str()) {
            Some(session) => (true, session.clone()),
            None => (false, span.trace_id.clone()),
        };
        let at = *index_of.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        groups[at].1.push(i);
    }
    groups.sort_by_key(|(_, members)| members.iter().map(|&i| (spans[i].start, spans[i].order)).min());
    let short = |id: &str| -> String { id.chars().take(8).collect() };
    let mut prefixes: FxMap<String, usize> = FxMap::default();
    for ((session, id), _) in &groups {
        if !session {
            *prefixes.entry(short(id)).or_default() += 1;
        }
    }
    groups
        .into_iter()
        .map(|((session, id), members)| {
            let name = match (session, id.is_empty()) {
                (true, _) => id,
                (false, true) => "no-trace-id".to_owned(),
                (false, false) if prefixes.get(&short(&id)) == Some(&1) => short(&id),
                (false, false) => id,
            };
            (name, members)
        })
        .collect()
}

/// One event before ordering: when it happened, where in the tree, and
/// its place among the span's own events.
struct Pending {
    time: u64,
    tree: usize,
    seq: usize,
    channel: Channel,
    text: String,
    source: String,
    target: String,
    span: usize,
}

/// A model text turn, kept until the final answers are known.
struct Turn {
    span: usize,
    root: usize,
    text: String,
}

/// The tool calls models made, which tool spans may trace again: by call
/// id, else by tool name and arguments (each call traced once).
#[derive(Default)]
struct Calls {
    by_id: FxMap<String, usize>,
    by_call: FxMap<(String, String), Vec<usize>>,
    ids: Vec<Option<String>>,
    traced: Vec<bool>,
}

impl Calls {
    fn add(&mut self, id: Option<String>, name: String, arguments: String) {
        let n = self.ids.len();
        if let Some(id) = &id {
            self.by_id.entry(id.clone()).or_insert(n);
        }
        self.by_call.entry((name, arguments)).or_default().push(n);
        self.ids.push(id);
        self.traced.push(false);
    }

    /// Marks the call a tool span traces: `None` when no model made it,
    /// else the call's id (when it had one).
    fn trace(&mut self, id: Option<&str>, name: &str, arguments: &str) -> Option<Option<String>> {
        let by_id = id.and_then(|id| self.by_id.get(id)).copied().filter(|&n| !self.traced[n]);
        let found = by_id.or_else(|| {
            let candidates = self.by_call.get(&(name.to_owned(), arguments.to_owned()))?;
            candidates.iter().copied().find(|&n| !self.traced[n])
        })?;
        self.traced[found] = true;
        Some(self.ids[found].clone())
    }
}

struct Conversation<'a> {
    spans: &'a [Span],
    /// Members in tree order (parents before children, siblings by start).
    members: Vec<usize>,
    parent: FxMap<usize, usize>,
    roles: FxMap<usize, Role>,
    tree_pos: FxMap<usize, usize>,
}

impl<'a> Conversation<'a> {
    fn new(spans: &'a [Span], members: Vec<usize>) -> Conversation<'a> {
        let by_id: FxMap<&str, usize> = members
            .iter()
            .filter(|&&i| !spans[i].span_id.is_empty())
            .map(|&i| (spans[i].span_id.as_str(), i))
            .collect();
        let mut parent = FxMap::default();
        let mut children: FxMap<usize, Vec<usize>> = FxMap::default();
        let mut roots = Vec::new();
        for &i in &members {
            match spans[i].parent_id.as_deref().and_then(|p| by_id.get(p)).filter(|&&p| p != i) {
                Some(&p) => {
                    parent.insert(i, p);
                    children.entry(p).or_default().push(i);
                }
                None => roots.push(i),
            }
        }
        let when = |i: &usize| (spans[*i].start, spans[*i].order);
        roots.sort_by_key(when);
        // Pre-order walk; a cycle of parents has no root and is walked
        // from its first span.
        let mut ordered = Vec::with_capacity(members.len());
        let mut seen = vec![false; spans.len()];
        let mut starts: Vec<usize> = roots.clone();
        starts.extend(members.iter().copied());
        for start in starts {
            let mut stack = vec![start];
            while let Some(i) = stack.pop() {
                if std::mem::replace(&mut seen[i], true) {
                    continue;
                }
                ordered.push(i);
                if let Some(kids) = children.get_mut(&i) {
                    kids.sort_by_key(when);
                    stack.extend(kids.iter().rev().copied());
                }
            }
        }
        let roles = members.iter().map(|&i| (i, Role::of(&spans[i]))).collect();
        let tree_pos = ordered.iter().enumerate().map(|(pos, &i)| (i, pos)).collect();
        Conversation { spans, members: ordered, parent, roles, tree_pos }
    }

    fn is_root(&self, i: usize) -> bool {
        !self.parent.contains_key(&i)
    }

    fn root_of(&self, mut i: usize) -> usize {
        let mut steps = 0;
        while let Some(&p) = self.parent.get(&i) {
            i = p;
            steps += 1;
            if steps > self.members.len() {
                break;
            }
        }
        i
    }

    /// The agent a span works for: its nearest agent span (itself
    /// included), else its root.
    fn agent_of(&self, i: usize) -> String {
        let mut at = Some(i);
        let mut steps = 0;
        while let Some(s) = at {
            if self.roles[&s] == Role::Agent {
                return agent_name(&self.spans[s]);
            }
            at = self.parent.get(&s).copied();
            steps += 1;
            if steps > self.members.len() {
                break;
            }
        }
        let root = &self.spans[self.root_of(i)];
        if root.name.is_empty() {
            "agent".to_owned()
        } else {
            agent_name(root)
        }
    }

    /// The agent above an agent span's own (the one that handed it work).
    fn caller_of(&self, i: usize) -> String {
        match self.parent.get(&i) {
            Some(&p) => self.agent_of(p),
            None => "user".to_owned(),
        }
    }

    fn trace(&self, run_id: String) -> Trace {
        let spans = self.spans;
        let agents: std::collections::BTreeSet<String> = self
            .members
            .iter()
            .filter(|&&i| self.roles[&i] == Role::Agent && !self.is_root(i))
            .map(|&i| agent_name(&spans[i]))
            .collect();
        let several_agents = agents.len() > 1;
        let mut out: Vec<Pending> = Vec::new();
        let mut turns: Vec<Turn> = Vec::new();
        let mut calls = Calls::default();
        // What the conversation already carries, so that a model's input
        // history (every earlier message, sent again on each turn) adds
        // nothing twice: user texts, tool texts, and each root's input.
        let mut seen_user: FxSet<String> = FxSet::default();
        let mut seen_tool: FxSet<String> = FxSet::default();
        let mut root_input: FxMap<usize, String> = FxMap::default();
        let mut answers: FxMap<usize, String> = FxMap::default();

        // Tool spans' call ids and outputs (as returned, and the content of
        // a tool message a framework wrapped them in), to tell which tool
        // messages a model is given were traced as spans.
        let mut traced_ids: FxSet<String> = FxSet::default();
        let mut tool_outputs: FxSet<String> = FxSet::default();
        for &i in self.members.iter().filter(|&&i| self.roles[&i] == Role::Tool) {
            if let Some(id) = first_text(&spans[i], &["tool_call.id", "gen_ai.tool.call.id"]) {
                traced_ids.insert(id);
            }
            if let Some(output) = tool_output(&spans[i]) {
                if let Some(content) = answer_of(&output).or_else(|| wrapped_content(&output)) {
                    tool_outputs.insert(content.trim().to_owned());
                }
                tool_outputs.insert(output.trim().to_owned());
            }
        }

        for &i in &self.members {
            let span = &spans[i];
            let role = self.roles[&i];
            let agent = self.agent_of(i);
            let start = span.start;
            let end = span.end.max(span.start);
            let mut seq = 0;
            let mut push = |time: u64, channel: Channel, text: String, source: &str, target: &str| {
                if text.trim().is_empty() {
                    return;
                }
                seq += 1;
                out.push(Pending {
                    time,
                    tree: self.tree_pos[&i],
                    seq,
                    channel,
                    text,
                    source: source.to_owned(),
                    target: target.to_owned(),
                    span: i,
                });
            };
            let root = self.is_root(i);
            // A model or tool at the root has no input of its own beyond
            // its messages and arguments.
            if root && !matches!(role, Role::Tool | Role::Model) {
                if let Some(input) = first_value_text(span, &["input.value", "gen_ai.prompt", "traceloop.entity.input"])
                {
                    root_input.insert(i, input.clone());
                    push(start, Channel::UserInput, input, "user", &agent);
                }
            }
            match role {
                Role::Model => {
                    for message in input_messages(span) {
                        let text = message.text.trim().to_owned();
                        if text.is_empty() {
                            continue;
                        }
                        match message.role.as_str() {
                            "user" | "human" => {
                                let in_root = root_input.get(&self.root_of(i)).is_some_and(|r| r.contains(&text));
                                if !in_root && seen_user.insert(text.clone()) {
                                    push(start, Channel::UserInput, text, "user", &agent);
                                }
                            }
                            "tool" | "function" => {
                                let traced = message.call_id.as_ref().is_some_and(|id| traced_ids.contains(id))
                                    || tool_outputs.contains(&text);
                                if !traced && seen_tool.insert(text.clone()) {
                                    let tool = message.name.clone().unwrap_or_else(|| "tool".to_owned());
                                    push(start, Channel::ToolResponse, text, &tool, &agent);
                                }
                            }
                            _ => {}
                        }
                    }
                    let output = output_messages(span);
                    for call in output.iter().flat_map(|m| &m.calls) {
                        let name = call.name.clone().unwrap_or_else(|| "tool".to_owned());
                        push(end, Channel::ToolCall, call.arguments.clone(), &agent, &name);
                        calls.add(call.id.clone(), name, canonical_json(&call.arguments));
                    }
                    let text =
                        output.iter().rev().map(|m| m.text.trim()).find(|t| !t.is_empty()).map(str::to_owned).or_else(
                            || {
                                if output.is_empty() {
                                    first_value_text(span, &["output.value", "gen_ai.completion"])
                                        .map(|v| answer_of(&v).unwrap_or(v))
                                } else {
                                    None
                                }
                            },
                        );
                    if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
                        turns.push(Turn { span: i, root: self.root_of(i), text });
                    }
                }
                Role::Tool => {
                    let id = first_text(span, &["tool_call.id", "gen_ai.tool.call.id"]);
                    let name = first_text(span, &["tool.name", "gen_ai.tool.name", "tool_call.function.name"])
                        .unwrap_or_else(|| if span.name.is_empty() { "tool".to_owned() } else { span.name.clone() });
                    if let Some(arguments) = first_value_text(
                        span,
                        &[
                            "input.value",
                            "gen_ai.tool.call.arguments",
                            "tool_call.function.arguments",
                            "traceloop.entity.input",
                        ],
                    ) {
                        // The same call as a model's: traced once, and the
                        // tool message that answers it is this span's output.
                        match calls.trace(id.as_deref(), &name, &canonical_json(&arguments)) {
                            Some(Some(call_id)) => {
                                traced_ids.insert(call_id);
                            }
                            Some(None) => {}
                            None => push(start, Channel::ToolCall, arguments, &agent, &name),
                        }
                    }
                    if let Some(output) = tool_output(span) {
                        push(end, Channel::ToolResponse, output, &name, &agent);
                    }
                }
                Role::Retriever => {
                    let documents = retrieved_documents(span)
                        .or_else(|| first_value_text(span, &["output.value", "traceloop.entity.output"]));
                    if let Some(documents) = documents {
                        let source = if span.name.is_empty() { "retriever" } else { span.name.as_str() };
                        push(end, Channel::ToolResponse, documents, source, &agent);
                    }
                }
                Role::Guardrail => {
                    let value = first_value_text(span, &["output.value", "input.value"]);
                    if let Some(value) = value {
                        push(end, Channel::Log, value, &agent, "guardrail");
                    }
                }
                Role::Agent if several_agents && !root => {
                    let caller = self.caller_of(i);
                    let input = first_value_text(span, &["input.value", "gen_ai.prompt", "traceloop.entity.input"]);
                    if let Some(input) = input {
                        push(start, Channel::InterAgentMessage, input, &caller, &agent);
                    }
                    let output =
                        first_value_text(span, &["output.value", "gen_ai.completion", "traceloop.entity.output"]);
                    if let Some(output) = output.map(|v| answer_of(&v).unwrap_or(v)) {
                        push(end, Channel::InterAgentMessage, output, &agent, &caller);
                    }
                }
                Role::Agent | Role::Chain | Role::Plumbing => {}
            }
            if root && !matches!(role, Role::Tool | Role::Model) {
                let output = first_value_text(span, &["output.value", "gen_ai.completion", "traceloop.entity.output"]);
                if let Some(answer) = output.map(|v| answer_of(&v).unwrap_or(v)).filter(|a| !a.trim().is_empty()) {
                    answers.insert(i, answer.trim().to_owned());
                    push(end.max(1), Channel::FinalOutput, answer, &agent, "user");
                }
            }
            for event in &span.events {
                if let Some(text) = event_text(event) {
                    let source = if span.name.is_empty() { agent.clone() } else { span.name.clone() };
                    push(event.time.max(start), Channel::Log, text, &source, "log");
                }
            }
        }

        // Model text turns: the one that is a root's answer counts once,
        // as that root's final output; a root with no output of its own
        // answers with its last model text; every other turn is a
        // message between agents.
        let mut final_turn: FxMap<usize, usize> = FxMap::default();
        for (t, turn) in turns.iter().enumerate() {
            match answers.get(&turn.root) {
                Some(answer) if *answer == turn.text.trim() => {
                    final_turn.insert(turn.root, t);
                }
                Some(_) => {}
                None => {
                    let better = final_turn.get(&turn.root).is_none_or(|&f| {
                        let (a, b) = (&spans[turns[f].span], &spans[turn.span]);
                        (b.end, self.tree_pos[&turn.span]) >= (a.end, self.tree_pos[&turns[f].span])
                    });
                    if better {
                        final_turn.insert(turn.root, t);
                    }
                }
            }
        }
        for (t, turn) in turns.into_iter().enumerate() {
            let span = &spans[turn.span];
            let agent = self.agent_of(turn.span);
            let is_final = final_turn.get(&turn.root) == Some(&t);
            if is_final && answers.contains_key(&turn.root) {
                continue;
            }
            let (channel, target) = if is_final {
                (Channel::FinalOutput, "user".to_owned())
            } else {
                (Channel::InterAgentMessage, agent.clone())
            };
            out.push(Pending {
                time: span.end.max(span.start),
                tree: self.tree_pos[&turn.span],
                seq: usize::MAX,
                channel,
                text: turn.text,
                source: agent,
                target,
                span: turn.span,
            });
        }

        out.sort_by_key(|p| (p.time, p.tree, p.seq));
        let events = out
            .into_iter()
            .enumerate()
            .map(|(n, p)| {
                let span = &spans[p.span];
                let kind = original_kind(span).unwrap_or_else(|| self.roles[&p.span].label().to_owned());
                let metadata = vec![
                    ("span_name".to_owned(), PyValue::Str(span.name.clone())),
                    ("span_kind".to_owned(), PyValue::Str(kind)),
                    ("span_id".to_owned(), PyValue::Str(span.span_id.clone())),
                    ("trace_id".to_owned(), PyValue::Str(span.trace_id.clone())),
                    ("mapping".to_owned(), PyValue::Str("structural".to_owned())),
                ];
                Event {
                    event_id: Arc::from(format!("evt_{:03}", n + 1)),
                    channel: p.channel,
                    source: Arc::from(p.source),
                    target: Arc::from(p.target),
                    metadata: metadata.into_boxed_slice(),
                    text: p.text.into_boxed_str(),
                }
            })
            .collect();
        let agent_name = self
            .members
            .first()
            .map(|&i| agent_name(&spans[i]))
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| "otel_agent".to_owned());
        Trace {
            run_id,
            agent_name,
            scenario_id: None,
            subject: String::new(),
            task_success: None,
            events,
            metadata: None,
        }
    }
}

/// An agent span's name: `agent.name`, `gen_ai.agent.name`,
/// `graph.node.id`, else the span's name.
fn agent_name(span: &Span) -> String {
    first_text(span, &["agent.name", "gen_ai.agent.name", "graph.node.id"]).unwrap_or_else(|| span.name.clone())
}

/// The kind as the export wrote it, for the event's metadata.
fn original_kind(span: &Span) -> Option<String> {
    ["openinference.span.kind", "gen_ai.operation.name", "traceloop.span.kind"]
        .iter()
        .find_map(|k| span.text(k))
        .map(str::to_owned)
}

/// The first non-empty string attribute under `keys`.
fn first_text(span: &Span, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| span.text(k)).map(str::to_owned)
}

/// The first attribute under `keys` that holds something, as text.
fn first_value_text(span: &Span, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| span.attr(k).filter(|v| v.is_truthy())).map(|v| {
        if let PyValue::Str(s) = v {
            s.clone()
        } else {
            value_text(v)
        }
    })
}

/// A non-string value as JSON text (what an exporter would have written).
fn value_text(value: &PyValue) -> String {
    serde_json::to_string(&value.to_json()).unwrap_or_default()
}

fn tool_output(span: &Span) -> Option<String> {
    first_value_text(span, &["output.value", "gen_ai.tool.call.result", "traceloop.entity.output"])
}

/// JSON text re-written compactly (key order kept), so that the same
/// arguments written with other spacing compare equal; other text as it is.
fn canonical_json(text: &str) -> String {
    match parse_json(text.as_bytes()) {
        Ok(value) => value_text(&value),
        Err(_) => text.trim().to_owned(),
    }
}

/// A message a model was given or gave.
#[derive(Debug, Default, Clone, PartialEq)]
struct Message {
    role: String,
    text: String,
    name: Option<String>,
    call_id: Option<String>,
    calls: Vec<ToolCall>,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct ToolCall {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
}

fn input_messages(span: &Span) -> Vec<Message> {
    let mut messages = flattened_messages(span, "llm.input_messages.");
    if messages.is_empty() {
        messages = flattened_messages(span, "gen_ai.prompt.");
    }
    if messages.is_empty() {
        messages = json_messages(span, "gen_ai.input.messages");
    }
    messages
}

fn output_messages(span: &Span) -> Vec<Message> {
    let mut messages = flattened_messages(span, "llm.output_messages.");
    if messages.is_empty() {
        messages = flattened_messages(span, "gen_ai.completion.");
    }
    if messages.is_empty() {
        messages = json_messages(span, "gen_ai.output.messages");
    }
    messages
}

/// Messages written as flattened attributes: OpenInference's
/// `<prefix><i>.message.{role,content,name,tool_call_id}`,
/// `<prefix><i>.message.contents.<j>.message_content.text` and
/// `<prefix><i>.message.tool_calls.<j>.tool_call.{id,function.name,function.arguments}`;
/// Traceloop's `<prefix><i>.{role,content,tool_calls.<j>.{id,name,arguments}}`.
fn flattened_messages(span: &Span, prefix: &str) -> Vec<Message> {
    let mut messages: std::collections::BTreeMap<u64, Message> = std::collections::BTreeMap::new();
    let mut calls: std::collections::BTreeMap<(u64, u64), ToolCall> = std::collections::BTreeMap::new();
    let mut parts: std::collections::BTreeMap<(u64, u64), String> = std::collections::BTreeMap::new();
    for (key, value) in &span.attributes {
        let Some(rest) = key.strip_prefix(prefix) else { continue };
        let Some((index, tail)) = rest.split_once('.') else { continue };
        let Ok(index) = index.parse::<u64>() else { continue };
        let tail = tail.strip_prefix("message.").unwrap_or(tail);
        let text = || match value {
            PyValue::Str(s) => s.clone(),
            other => value_text(other),
        };
        let message = messages.entry(index).or_default();
        if let Some(call) = tail.strip_prefix("tool_calls.") {
            let Some((j, field)) = call.split_once('.') else { continue };
            let Ok(j) = j.parse::<u64>() else { continue };
            let field = field.strip_prefix("tool_call.").unwrap_or(field);
            let entry = calls.entry((index, j)).or_default();
            match field {
                "id" => entry.id = Some(text()),
                "function.name" | "name" => entry.name = Some(text()),
                "function.arguments" | "arguments" => entry.arguments = text(),
                _ => {}
            }
        } else if let Some(content) = tail.strip_prefix("contents.") {
            let Some((j, field)) = content.split_once('.') else { continue };
            let Ok(j) = j.parse::<u64>() else { continue };
            if field == "message_content.text" {
                parts.insert((index, j), text());
            }
        } else {
            match tail {
                "role" => message.role = text().to_ascii_lowercase(),
                "content" => message.text = text(),
                "name" => message.name = Some(text()),
                "tool_call_id" => message.call_id = Some(text()),
                _ => {}
            }
        }
    }
    for ((index, _), text) in parts {
        if let Some(m) = messages.get_mut(&index) {
            if m.text.is_empty() {
                m.text = text;
            } else {
                m.text.push('\n');
                m.text.push_str(&text);
            }
        }
    }
    for ((index, _), call) in calls {
        if let Some(m) = messages.get_mut(&index) {
            m.calls.push(call);
        }
    }
    messages.into_values().collect()
}

/// Messages written as one JSON attribute (OTel GenAI's
/// `gen_ai.input.messages` / `gen_ai.output.messages`): a list of
/// `{role, parts: [{type: text, content} | {type: tool_call, id, name,
/// arguments} | {type: tool_call_response, id, response}]}`, or of
/// `{role, content}`.
fn json_messages(span: &Span, key: &str) -> Vec<Message> {
    let value = match span.attr(key) {
        Some(PyValue::Str(text)) => match parse_json(text.as_bytes()) {
            Ok(value) => value,
            Err(_) => return Vec::new(),
        },
        Some(other) => other.clone(),
        None => return Vec::new(),
    };
    match &value {
        PyValue::Array(items) => items.iter().filter_map(message_of_value).collect(),
        _ => Vec::new(),
    }
}

/// One message from a JSON value, in any of the common shapes: OpenAI
/// (`role`, `content`, `tool_calls`), OTel GenAI (`role`, `parts`),
/// LangChain (`type` or a constructor's `id`, with `kwargs`), a
/// `[role, content]` pair.
fn message_of_value(value: &PyValue) -> Option<Message> {
    if let PyValue::Array(pair) = value {
        if let [PyValue::Str(role), content] = pair.as_slice() {
            return Some(Message { role: normal_role(role), text: content_text(content), ..Message::default() });
        }
        return None;
    }
    let value = match value.get("kwargs") {
        Some(kwargs @ PyValue::Object(_)) => {
            let role = value
                .get("id")
                .and_then(|id| match id {
                    PyValue::Array(parts) => parts.last().and_then(PyValue::as_str),
                    _ => None,
                })
                .or_else(|| kwargs.get("type").and_then(PyValue::as_str))
                .unwrap_or_default();
            let mut message = message_of_value(kwargs)?;
            if !role.is_empty() {
                message.role = normal_role(role);
            }
            return Some(message);
        }
        _ => value,
    };
    let PyValue::Object(_) = value else { return None };
    let role =
        value.get("role").or_else(|| value.get("type")).and_then(PyValue::as_str).map(normal_role).unwrap_or_default();
    let mut message = Message { role, ..Message::default() };
    if let Some(content) = value.get("content") {
        message.text = content_text(content);
    }
    if let Some(PyValue::Array(parts)) = value.get("parts") {
        let mut texts = Vec::new();
        for part in parts {
            match part.get("type").and_then(PyValue::as_str) {
                Some("tool_call") => message.calls.push(ToolCall {
                    id: part.get("id").and_then(PyValue::as_str).map(str::to_owned),
                    name: part.get("name").and_then(PyValue::as_str).map(str::to_owned),
                    arguments: part
                        .get("arguments")
                        .map(|a| a.as_str().map_or_else(|| value_text(a), str::to_owned))
                        .unwrap_or_default(),
                }),
                Some("tool_call_response") => {
                    message.call_id = part.get("id").and_then(PyValue::as_str).map(str::to_owned);
                    if let Some(response) = part.get("response") {
                        texts.push(response.as_str().map_or_else(|| value_text(response), str::to_owned));
                    }
                }
                _ => {
                    if let Some(text) = part.get("content").or_else(|| part.get("text")) {
                        texts.push(content_text(text));
                    }
                }
            }
        }
        if message.text.is_empty() {
            message.text = texts.join("\n");
        }
    }
    if let Some(PyValue::Array(calls)) = value.get("tool_calls") {
        for call in calls {
            let function = call.get("function").unwrap_or(call);
            message.calls.push(ToolCall {
                id: call.get("id").and_then(PyValue::as_str).map(str::to_owned),
                name: function.get("name").and_then(PyValue::as_str).map(str::to_owned),
                arguments: function
                    .get("arguments")
                    .or_else(|| function.get("args"))
                    .map(|a| a.as_str().map_or_else(|| value_text(a), str::to_owned))
                    .unwrap_or_default(),
            });
        }
    }
    if let Some(id) = value.get("tool_call_id").and_then(PyValue::as_str) {
        message.call_id = Some(id.to_owned());
    }
    if let Some(name) = value.get("name").and_then(PyValue::as_str) {
        message.name = Some(name.to_owned());
    }
    Some(message)
}

fn normal_role(role: &str) -> String {
    match role {
        "ai" | "AIMessage" | "AIMessageChunk" | "model" | "assistant" => "assistant".to_owned(),
        "human" | "HumanMessage" | "user" => "user".to_owned(),
        "ToolMessage" | "tool" | "function" => "tool".to_owned(),
        "SystemMessage" | "system" | "developer" => "system".to_owned(),
        other => other.to_ascii_lowercase(),
    }
}

/// A message's content as text: a string, or the text parts of a list.
fn content_text(content: &PyValue) -> String {
    match content {
        PyValue::Str(s) => s.clone(),
        PyValue::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                PyValue::Str(s) => Some(s.clone()),
                other => {
                    other.get("text").or_else(|| other.get("content")).and_then(PyValue::as_str).map(str::to_owned)
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        PyValue::Null => String::new(),
        other => value_text(other),
    }
}

/// The answer a user sees in an output: the last assistant message of a
/// message list or a state with `messages`; the `output`/`answer` text of
/// an agent executor's result; `None` for other text (used as it is).
fn answer_of(output: &str) -> Option<String> {
    let trimmed = output.trim_start();
    if !trimmed.starts_with('{') && !trimmed.starts_with('[') {
        return None;
    }
    let value = parse_json(output.as_bytes()).ok()?;
    let messages = match &value {
        PyValue::Array(items) => Some(items),
        PyValue::Object(_) => match value.get("messages") {
            Some(PyValue::Array(items)) => Some(items),
            _ => None,
        },
        _ => None,
    };
    if let Some(messages) = messages {
        return Some(
            messages
                .iter()
                .filter_map(message_of_value)
                .rev()
                .find(|m| m.role == "assistant" && !m.text.trim().is_empty())
                .map(|m| m.text)
                .unwrap_or_default(),
        );
    }
    ["output", "answer", "final_answer", "content", "text", "result"]
        .iter()
        .find_map(|k| value.get(k).and_then(PyValue::as_str))
        .map(str::to_owned)
}

/// The content of a tool message a framework wrapped a tool's output in
/// (LangChain's `{"type": "tool", "data": {"content": …}}`).
fn wrapped_content(output: &str) -> Option<String> {
    if !output.trim_start().starts_with('{') {
        return None;
    }
    let value = parse_json(output.as_bytes()).ok()?;
    let data = value.get("data").unwrap_or(&value);
    data.get("content").or_else(|| data.get("kwargs").and_then(|k| k.get("content"))).map(content_text)
}

/// Retrieved documents' contents, in document order, joined by a blank line.
fn retrieved_documents(span: &Span) -> Option<String> {
    let mut documents: Vec<(u64, String)> = span
        .attributes
        .iter()
        .filter_map(|(k, v)| {
            let rest = k.strip_prefix("retrieval.documents.")?;
            let (index, field) = rest.split_once('.')?;
            (field == "document.content").then(|| (index.parse().ok(), v))
        })
        .filter_map(|(index, v)| Some((index?, v.as_str().map_or_else(|| value_text(v), str::to_owned))))
        .collect();
    documents.sort_by_key(|(i, _)| *i);
    let joined = documents.into_iter().map(|(_, d)| d).collect::<Vec<_>>().join("\n\n");
    (!joined.trim().is_empty()).then_some(joined)
}

/// A span event's text for the log: an exception's type, message and
/// stack trace; other events' string attributes. Events that carry
/// message content of a model call (older GenAI conventions) are left to
/// the model's attributes.
fn event_text(event: &super::SpanEvent) -> Option<String> {
    if event.name.starts_with("gen_ai.") {
        return None;
    }
    let get = |k: &str| event.attributes.iter().find(|(key, _)| key == k).and_then(|(_, v)| v.as_str());
    let text = if event.name == "exception" {
        [get("exception.type"), get("exception.message"), get("exception.stacktrace")]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        event.attributes.iter().filter_map(|(_, v)| v.as_str()).filter(|s| !s.is_empty()).collect::<Vec<_>>().join("\n")
    };
    (!text.trim().is_empty()).then_some(text)
}
