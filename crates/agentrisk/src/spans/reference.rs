//! The reference's span mapping (`agentleak.integrations.otel`'s
//! `trace_from_spans`, 0.17.0), re-derived from its behaviour for parity;
//! the structural mapping is the one to trust (`docs/spans.md` lists why).
//!
//! The whole file is one trace (`run_id` = the file's stem, `agent_name`
//! `otel_agent`); spans are read in file order and each becomes events by
//! its kind — the first of `openinference.span.kind`, `span.kind`,
//! `gen_ai.operation.name` that is set, upper-cased:
//!
//! * `TOOL` (or no kind and a tool name): a `tool_call` with the first of
//!   `tool.parameters`, `tool_call.function.arguments`, `input.value`
//!   (quirk: `tool.parameters` is the tool's JSON schema in OpenInference,
//!   so the real arguments are missed when it is set), and a
//!   `tool_response` with the output;
//! * `RETRIEVER`: one `tool_response` with the documents' contents joined
//!   by a blank line, in key order as text sorts (quirk: document 10 comes
//!   before document 2), or the output;
//! * `GUARDRAIL`: a `log` with the output, else the input;
//! * `LLM`: a `tool_call` per output message that names a tool (quirk: only
//!   its first tool call: parallel calls are lost), then an
//!   `inter_agent_message` with the last output message's content, or the
//!   output;
//! * `CHAIN`, `AGENT` or no kind: the input as `user_input` when no event
//!   came before it, the output as `inter_agent_message`;
//! * any other kind is dropped (quirk: OTel GenAI's `chat`,
//!   `execute_tool`, `invoke_agent` are all dropped).
//!
//! The last model or chain output in file order becomes the `final_output`
//! (quirk: OTLP groups spans by instrumentation scope, so that can be an
//! inner model call). A value that is not a string becomes Python's
//! `str()` of it ([`py_str`]): `True`, `1.5`, `{'a': 1}`.

use super::py_str;
use crate::model::Channel;
use crate::trace::{Event, PyValue, Trace};
use std::sync::Arc;

const KIND_KEYS: [&str; 3] = ["openinference.span.kind", "span.kind", "gen_ai.operation.name"];
const INPUT_KEYS: [&str; 3] = ["input.value", "gen_ai.prompt", "traceloop.entity.input"];
const OUTPUT_KEYS: [&str; 3] = ["output.value", "gen_ai.completion", "traceloop.entity.output"];
const TOOL_NAME_KEYS: [&str; 3] = ["tool.name", "gen_ai.tool.name", "tool_call.function.name"];
const TOOL_ARGS_KEYS: [&str; 3] = ["tool.parameters", "tool_call.function.arguments", "input.value"];
const AGENT_KEYS: [&str; 4] = ["agent.name", "graph.node.name", "graph.node.id", "gen_ai.agent.name"];

/// The first value under `keys` that is neither null nor `""` (the
/// reference's lookup; `0`, `false`, `[]` count as set).
fn first<'a>(attrs: &'a [(String, PyValue)], keys: &[&str]) -> Option<&'a PyValue> {
    keys.iter().find_map(|key| {
        attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| !matches!(v, PyValue::Null) && !is_empty_str(v))
    })
}

fn is_empty_str(value: &PyValue) -> bool {
    matches!(value, PyValue::Str(s) if s.is_empty())
}

/// A span's attributes as the reference reads them: an object as it is,
/// an OTLP key/value list unwrapped; anything else none.
fn attrs_of(span: &PyValue) -> Vec<(String, PyValue)> {
    let set = |key: &str| span.get(key).filter(|v| !matches!(v, PyValue::Null) && !is_empty_str(v));
    match set("attributes").or_else(|| set("attr")) {
        Some(PyValue::Object(entries)) => entries.clone(),
        Some(PyValue::Array(items)) => {
            let mut out: Vec<(String, PyValue)> = Vec::new();
            for item in items {
                if let (Some(PyValue::Str(key)), true) = (item.get("key"), matches!(item, PyValue::Object(_))) {
                    let value = item.get("value").cloned().map(super::read::otlp_value).unwrap_or_default();
                    match out.iter_mut().find(|(k, _)| k == key) {
                        Some(slot) => slot.1 = value,
                        None => out.push((key.clone(), value)),
                    }
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// One rebuilt output message.
#[derive(Default)]
struct Message {
    content: Option<String>,
    tool_name: Option<String>,
    tool_args: Option<String>,
}

/// `llm.output_messages.<i>.message.*` back into messages, by index (an
/// index is read as a number: `01` and `1` are one message).
fn output_messages(attrs: &[(String, PyValue)]) -> Vec<Message> {
    const PREFIX: &str = "llm.output_messages.";
    let mut by_index: std::collections::BTreeMap<String, Message> = std::collections::BTreeMap::new();
    let mut order: Vec<(u128, String)> = Vec::new();
    for (key, value) in attrs {
        let Some(rest) = key.strip_prefix(PREFIX) else { continue };
        let (index, tail) = rest.split_once('.').unwrap_or((rest, ""));
        if index.is_empty() || !index.chars().all(crate::pyunicode::is_decimal) {
            continue;
        }
        let number: String =
            index.chars().filter_map(crate::pyunicode::decimal_value).map(|d| char::from(b'0' + d as u8)).collect();
        let number = number.trim_start_matches('0').to_owned();
        if !by_index.contains_key(&number) {
            let sort_key = if number.len() > 38 { u128::MAX } else { number.parse().unwrap_or(u128::MAX) };
            order.push((sort_key, number.clone()));
        }
        let message = by_index.entry(number).or_default();
        // A role is read (and its message made) but not used.
        let is_role = tail.ends_with("message.role");
        if !is_role && tail.ends_with("message.content") {
            message.content = Some(py_str(value));
        } else if !is_role && tail.contains("tool_call") && tail.ends_with("function.name") {
            message.tool_name.get_or_insert_with(|| py_str(value));
        } else if !is_role && tail.contains("tool_call") && tail.ends_with("function.arguments") {
            message.tool_args.get_or_insert_with(|| py_str(value));
        }
    }
    crate::util::sort(&mut order);
    order.into_iter().filter_map(|(_, number)| by_index.remove(&number)).collect()
}

/// Documents' contents, in key order, joined by a blank line.
fn retrieved_documents(attrs: &[(String, PyValue)]) -> String {
    let mut keys: Vec<&(String, PyValue)> = attrs
        .iter()
        .filter(|(k, _)| k.starts_with("retrieval.documents.") && k.ends_with("document.content"))
        .collect();
    crate::util::sort_by(&mut keys, |a, b| a.0.cmp(&b.0));
    keys.iter().map(|(_, v)| py_str(v)).collect::<Vec<_>>().join("\n\n")
}

struct Builder {
    events: Vec<Event>,
}

impl Builder {
    fn add(&mut self, channel: Channel, content: String, source: &str, target: &str, meta: &[(&str, &str)]) -> usize {
        let id = format!("evt_{:03}", self.events.len() + 1);
        self.events.push(Event {
            event_id: Arc::from(id),
            channel,
            source: Arc::from(source),
            target: Arc::from(target),
            metadata: meta.iter().map(|(k, v)| ((*k).to_owned(), PyValue::Str((*v).to_owned()))).collect(),
            text: content.into_boxed_str(),
        });
        self.events.len() - 1
    }
}

/// The trace the reference makes of `spans` (in file order), named `run_id`.
pub fn trace_from_spans(spans: &[PyValue], run_id: &str) -> Trace {
    let mut b = Builder { events: Vec::new() };
    let mut last_model: Option<usize> = None;
    for span in spans {
        let attrs = attrs_of(span);
        let kind = first(&attrs, &KIND_KEYS).filter(|v| v.is_truthy()).map(py_str).unwrap_or_default().to_uppercase();
        let name = span
            .get("name")
            .filter(|v| !matches!(v, PyValue::Null) && !is_empty_str(v))
            .filter(|v| v.is_truthy())
            .map(py_str)
            .unwrap_or_default();
        let agent = match first(&attrs, &AGENT_KEYS).filter(|v| v.is_truthy()) {
            Some(v) => py_str(v),
            None if !name.is_empty() => name.clone(),
            None => "agent".to_owned(),
        };
        let tool_named = first(&attrs, &TOOL_NAME_KEYS);
        if kind == "TOOL" || (kind.is_empty() && tool_named.is_some_and(PyValue::is_truthy)) {
            let tool = match tool_named {
                Some(v) => py_str(v),
                None if !name.is_empty() => name.clone(),
                None => "tool".to_owned(),
            };
            let span_kind = if kind.is_empty() { "TOOL" } else { kind.as_str() };
            if let Some(args) = first(&attrs, &TOOL_ARGS_KEYS) {
                let meta = [("tool_name", tool.as_str()), ("span_kind", span_kind), ("origin", "otel")];
                b.add(Channel::ToolCall, py_str(args), &agent, &tool, &meta);
            }
            if let Some(out) = first(&attrs, &OUTPUT_KEYS) {
                let meta = [("tool_name", tool.as_str()), ("origin", "otel")];
                b.add(Channel::ToolResponse, py_str(out), &tool, &agent, &meta);
            }
        } else if kind == "RETRIEVER" {
            let mut docs = retrieved_documents(&attrs);
            if docs.is_empty() {
                docs = first(&attrs, &OUTPUT_KEYS).map(py_str).unwrap_or_default();
            }
            if !docs.is_empty() {
                let source = if name.is_empty() { "retriever" } else { name.as_str() };
                b.add(Channel::ToolResponse, docs, source, &agent, &[("span_kind", "RETRIEVER"), ("origin", "otel")]);
            }
        } else if kind == "GUARDRAIL" {
            let keys = [OUTPUT_KEYS, INPUT_KEYS].concat();
            if let Some(value) = first(&attrs, &keys) {
                b.add(
                    Channel::Log,
                    py_str(value),
                    &agent,
                    "guardrail",
                    &[("span_kind", "GUARDRAIL"), ("origin", "otel")],
                );
            }
        } else if kind == "LLM" {
            let messages = output_messages(&attrs);
            for m in &messages {
                let args = m.tool_args.as_deref().filter(|a| !a.is_empty());
                let name = m.tool_name.as_deref().filter(|n| !n.is_empty());
                if args.is_some() || name.is_some() {
                    let content = args.or(name).unwrap_or_default().to_owned();
                    let target = m.tool_name.as_deref().unwrap_or("tool");
                    b.add(Channel::ToolCall, content, &agent, target, &[("span_kind", "LLM"), ("origin", "otel")]);
                }
            }
            let text = match messages.iter().rev().find_map(|m| m.content.as_deref().filter(|c| !c.is_empty())) {
                Some(text) => Some(text.to_owned()),
                None => first(&attrs, &OUTPUT_KEYS).filter(|v| v.is_truthy()).map(py_str),
            };
            if let Some(text) = text {
                let meta = [("span_kind", "LLM"), ("origin", "otel")];
                last_model = Some(b.add(Channel::InterAgentMessage, text, &agent, "agent", &meta));
            }
        } else if kind == "CHAIN" || kind == "AGENT" || kind.is_empty() {
            let span_kind = if kind.is_empty() { "CHAIN" } else { kind.as_str() };
            if let Some(input) = first(&attrs, &INPUT_KEYS) {
                if b.events.is_empty() {
                    let meta = [("span_kind", span_kind), ("origin", "otel")];
                    b.add(Channel::UserInput, py_str(input), "user", &agent, &meta);
                }
            }
            if let Some(out) = first(&attrs, &OUTPUT_KEYS) {
                let meta = [("span_kind", span_kind), ("origin", "otel")];
                last_model = Some(b.add(Channel::InterAgentMessage, py_str(out), &agent, "agent", &meta));
            }
        }
    }
    if let Some(i) = last_model {
        if let Some(event) = b.events.get_mut(i) {
            event.channel = Channel::FinalOutput;
            event.target = Arc::from("user");
            let mut metadata = std::mem::take(&mut event.metadata).into_vec();
            metadata.push(("promoted_to".to_owned(), PyValue::Str("final_output".to_owned())));
            event.metadata = metadata.into_boxed_slice();
        }
    }
    Trace {
        run_id: run_id.to_owned(),
        agent_name: "otel_agent".to_owned(),
        scenario_id: None,
        subject: String::new(),
        task_success: None,
        events: b.events,
        metadata: None,
    }
}
