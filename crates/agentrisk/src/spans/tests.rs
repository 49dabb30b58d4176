//! The structural rules, one by one, on hand-made span trees; the
//! reference mapping's quirks on small inputs.

use super::*;
use crate::model::Channel;

/// A hand-made span: span id, parent id, start, end, name, attributes as
/// (key, string value).
type HandSpan<'a> = (&'a str, &'a str, u64, u64, &'a str, &'a [(&'a str, &'a str)]);

/// An OTLP/JSON request of `spans`, in one trace.
fn otlp(spans: &[HandSpan<'_>]) -> Vec<u8> {
    let spans: Vec<serde_json::Value> = spans
        .iter()
        .map(|(id, parent, start, end, name, attrs)| {
            let attributes: Vec<serde_json::Value> =
                attrs.iter().map(|(k, v)| serde_json::json!({"key": k, "value": {"stringValue": v}})).collect();
            serde_json::json!({
                "traceId": "0af7651916cd43dd8448eb211c80319c",
                "spanId": format!("{id:0>16}"),
                "parentSpanId": if parent.is_empty() { String::new() } else { format!("{parent:0>16}") },
                "name": name,
                "startTimeUnixNano": start.to_string(),
                "endTimeUnixNano": end.to_string(),
                "attributes": attributes,
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})).unwrap()
}

/// (channel, text) of each event of the one run.
fn events(bytes: &[u8]) -> Vec<(Channel, String)> {
    let runs = runs_from_spans(bytes, "t", SpanMapping::Structural).unwrap();
    assert_eq!(runs.len(), 1);
    runs[0].trace.events.iter().map(|e| (e.channel, e.text.to_string())).collect()
}

const KIND: &str = "openinference.span.kind";

/// A ReAct agent as OpenInference's LangChain instrumentor exports it
/// (children before parents, as spans end): the root chain, a model turn
/// that calls a tool (its schema set, its real arguments in `input.value`),
/// the tool, and the model's answer.
fn react_agent() -> Vec<u8> {
    otlp(&[
        (
            "3",
            "1",
            30,
            40,
            "lookup",
            &[
                (KIND, "TOOL"),
                ("tool.name", "lookup"),
                ("tool.parameters", r#"{"type": "object", "properties": {"ssn": {"type": "string"}}}"#),
                ("input.value", r#"{"ssn": "123-45-6789"}"#),
                ("output.value", "record: phone (415) 555-0132"),
            ],
        ),
        (
            "2",
            "1",
            10,
            20,
            "ChatModel",
            &[
                (KIND, "LLM"),
                ("llm.input_messages.0.message.role", "system"),
                ("llm.input_messages.0.message.content", "You are a careful assistant."),
                ("llm.input_messages.1.message.role", "user"),
                ("llm.input_messages.1.message.content", "Look up 123-45-6789 for ana@example.com"),
                ("llm.output_messages.0.message.role", "assistant"),
                ("llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_1"),
                ("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup"),
                ("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", r#"{"ssn":"123-45-6789"}"#),
            ],
        ),
        (
            "4",
            "1",
            50,
            60,
            "ChatModel",
            &[
                (KIND, "LLM"),
                ("llm.input_messages.0.message.role", "user"),
                ("llm.input_messages.0.message.content", "Look up 123-45-6789 for ana@example.com"),
                ("llm.input_messages.1.message.role", "tool"),
                ("llm.input_messages.1.message.content", "record: phone (415) 555-0132"),
                ("llm.output_messages.0.message.role", "assistant"),
                ("llm.output_messages.0.message.content", "The record is on file."),
            ],
        ),
        (
            "1",
            "",
            0,
            70,
            "AgentExecutor",
            &[
                (KIND, "CHAIN"),
                ("input.value", r#"{"input": "Look up 123-45-6789 for ana@example.com"}"#),
                ("output.value", r#"{"output": "The record is on file."}"#),
            ],
        ),
    ])
}

#[test]
fn a_react_agent_maps_to_what_it_disclosed() {
    let got = events(&react_agent());
    let want = [
        (Channel::UserInput, r#"{"input": "Look up 123-45-6789 for ana@example.com"}"#),
        // The model's call, once: the tool span traces the same call.
        (Channel::ToolCall, r#"{"ssn":"123-45-6789"}"#),
        (Channel::ToolResponse, "record: phone (415) 555-0132"),
        // The answer counts once, as the root's final output; the tool
        // result the model was given again is not a second response.
        (Channel::FinalOutput, "The record is on file."),
    ];
    let got: Vec<(Channel, &str)> = got.iter().map(|(c, t)| (*c, t.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn a_tool_span_with_no_model_call_gives_its_real_arguments_never_its_schema() {
    let bytes = otlp(&[
        ("1", "", 0, 10, "run", &[(KIND, "CHAIN"), ("input.value", "hi")]),
        (
            "2",
            "1",
            1,
            5,
            "lookup",
            &[
                (KIND, "TOOL"),
                ("tool.parameters", r#"{"properties": {"email": {}}}"#),
                ("input.value", "ana@example.com"),
            ],
        ),
    ]);
    let got = events(&bytes);
    assert_eq!(got[1], (Channel::ToolCall, "ana@example.com".to_owned()));
    assert!(!got.iter().any(|(_, t)| t.contains("properties")), "{got:?}");
}

#[test]
fn parallel_tool_calls_each_become_an_event() {
    let bytes = otlp(&[(
        "1",
        "",
        0,
        10,
        "turn",
        &[
            (KIND, "LLM"),
            ("llm.output_messages.0.message.role", "assistant"),
            ("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "a"),
            ("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", "{\"x\": 1}"),
            ("llm.output_messages.0.message.tool_calls.1.tool_call.function.name", "b"),
            (
                "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments",
                "{\"iban\": \"DE44500105175407324931\"}",
            ),
        ],
    )]);
    let calls: Vec<String> =
        events(&bytes).into_iter().filter(|(c, _)| *c == Channel::ToolCall).map(|(_, t)| t).collect();
    assert_eq!(calls, ["{\"x\": 1}", "{\"iban\": \"DE44500105175407324931\"}"]);
}

#[test]
fn a_graph_state_answer_is_its_last_assistant_message_and_inner_turns_are_inter_agent() {
    let state = r#"{"messages": [{"type": "human", "content": "hi"},
        {"type": "tool", "content": "ssn 123-45-6789"},
        {"type": "ai", "content": "Done, nothing to share."}]}"#;
    let bytes = otlp(&[
        ("1", "", 0, 100, "LangGraph", &[(KIND, "CHAIN"), ("input.value", "hi"), ("output.value", state)]),
        (
            "2",
            "1",
            10,
            20,
            "ChatModel",
            &[
                (KIND, "LLM"),
                ("llm.output_messages.0.message.role", "assistant"),
                ("llm.output_messages.0.message.content", "Checking the file of ana@example.com first."),
            ],
        ),
        (
            "3",
            "1",
            30,
            40,
            "ChatModel",
            &[
                (KIND, "LLM"),
                ("llm.output_messages.0.message.role", "assistant"),
                ("llm.output_messages.0.message.content", "Done, nothing to share."),
            ],
        ),
    ]);
    let got = events(&bytes);
    assert!(got.contains(&(Channel::InterAgentMessage, "Checking the file of ana@example.com first.".to_owned())));
    let finals: Vec<&String> = got.iter().filter(|(c, _)| *c == Channel::FinalOutput).map(|(_, t)| t).collect();
    assert_eq!(finals, ["Done, nothing to share."], "the tool result in the state is not shown to the user");
}

#[test]
fn with_no_root_output_the_last_model_text_by_time_is_the_answer() {
    // File order puts the later turn first: time decides.
    let bytes = otlp(&[
        ("3", "1", 30, 40, "late", &[(KIND, "LLM"), ("output.value", "final words")]),
        ("2", "1", 10, 20, "early", &[(KIND, "LLM"), ("output.value", "first words")]),
        ("1", "", 0, 50, "root", &[(KIND, "CHAIN"), ("input.value", "hi")]),
    ]);
    let got = events(&bytes);
    assert!(got.contains(&(Channel::FinalOutput, "final words".to_owned())), "{got:?}");
    assert!(got.contains(&(Channel::InterAgentMessage, "first words".to_owned())), "{got:?}");
}

#[test]
fn agent_spans_are_inter_agent_traffic_only_between_distinct_agents() {
    let two = otlp(&[
        ("1", "", 0, 100, "supervisor", &[(KIND, "CHAIN"), ("input.value", "go")]),
        (
            "2",
            "1",
            10,
            20,
            "researcher",
            &[(KIND, "AGENT"), ("input.value", "find it"), ("output.value", "mail ana@example.com")],
        ),
        ("3", "1", 30, 40, "writer", &[(KIND, "AGENT"), ("input.value", "write it up"), ("output.value", "written")]),
    ]);
    let got = events(&two);
    assert!(got.contains(&(Channel::InterAgentMessage, "mail ana@example.com".to_owned())), "{got:?}");
    let one = otlp(&[
        ("1", "", 0, 100, "graph", &[(KIND, "CHAIN"), ("input.value", "go")]),
        ("2", "1", 10, 20, "agent", &[(KIND, "AGENT"), ("input.value", "step 1"), ("output.value", "a")]),
        ("3", "1", 30, 40, "agent", &[(KIND, "AGENT"), ("input.value", "step 2"), ("output.value", "b")]),
    ]);
    assert!(!events(&one).iter().any(|(c, _)| *c == Channel::InterAgentMessage));
}

#[test]
fn exceptions_and_guardrails_are_logs_and_plumbing_is_not_mapped() {
    let mut bytes = otlp(&[
        ("1", "", 0, 100, "root", &[(KIND, "CHAIN"), ("input.value", "hi"), ("output.value", "ok")]),
        ("2", "1", 10, 20, "format_docs", &[(KIND, "CHAIN"), ("output.value", "template with 123-45-6789")]),
        ("3", "1", 30, 40, "embed", &[(KIND, "EMBEDDING"), ("output.value", "[0.1, 0.2]")]),
        ("4", "1", 50, 60, "guard", &[(KIND, "GUARDRAIL"), ("output.value", "blocked ana@example.com")]),
    ]);
    // An exception event on the root.
    let mut doc: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["events"] = serde_json::json!([{
        "timeUnixNano": "5", "name": "exception",
        "attributes": [{"key": "exception.message", "value": {"stringValue": "bad key sk-proj-abcdefghijklmnopqrstuvwx"}}]
    }]);
    bytes = serde_json::to_vec(&doc).unwrap();
    let got = events(&bytes);
    assert!(got.contains(&(Channel::Log, "bad key sk-proj-abcdefghijklmnopqrstuvwx".to_owned())), "{got:?}");
    assert!(got.contains(&(Channel::Log, "blocked ana@example.com".to_owned())), "{got:?}");
    assert!(!got.iter().any(|(_, t)| t.contains("template") || t.contains("0.1")), "{got:?}");
}

#[test]
fn conversations_are_runs_by_session_else_by_trace() {
    let mut doc: serde_json::Value = serde_json::from_slice(&react_agent()).unwrap();
    let spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap().clone();
    let mut second = spans.clone();
    for span in &mut second {
        span["traceId"] = "1111111111111111aaaaaaaaaaaaaaaa".into();
        span["attributes"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"key": "session.id", "value": {"stringValue": "s-2"}}));
    }
    let mut all = spans;
    all.extend(second);
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = all.into();
    let runs = runs_from_spans(&serde_json::to_vec(&doc).unwrap(), "chat.otlp", SpanMapping::Structural).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.trace.run_id.as_str()).collect();
    assert_eq!(ids, ["chat.otlp#0af76519", "chat.otlp#s-2"]);
    assert_eq!(runs[1].source.conversation.as_deref(), Some("s-2"));
    assert_eq!(runs[0].source.spans, 4);
    let meta = &runs[0].trace.events[0].metadata;
    assert!(meta.iter().any(|(k, v)| k == "span_id" && v.as_str() == Some("0000000000000001")), "{meta:?}");
}

#[test]
fn genai_spans_are_read_by_their_operation() {
    let bytes = otlp(&[
        (
            "1",
            "",
            0,
            100,
            "invoke_agent helper",
            &[("gen_ai.operation.name", "invoke_agent"), ("gen_ai.agent.name", "helper")],
        ),
        (
            "2",
            "1",
            10,
            20,
            "chat gpt",
            &[
                ("gen_ai.operation.name", "chat"),
                (
                    "gen_ai.input.messages",
                    r#"[{"role": "user", "parts": [{"type": "text", "content": "I am ana@example.com"}]}]"#,
                ),
                (
                    "gen_ai.output.messages",
                    r#"[{"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "find", "arguments": {"q": "bob@example.org"}}]}]"#,
                ),
            ],
        ),
        (
            "3",
            "1",
            30,
            40,
            "execute_tool find",
            &[
                ("gen_ai.operation.name", "execute_tool"),
                ("gen_ai.tool.name", "find"),
                ("gen_ai.tool.call.id", "c1"),
                ("gen_ai.tool.call.result", "found"),
            ],
        ),
        (
            "4",
            "1",
            50,
            60,
            "chat gpt",
            &[
                ("gen_ai.operation.name", "chat"),
                (
                    "gen_ai.output.messages",
                    r#"[{"role": "assistant", "parts": [{"type": "text", "content": "SSN 123-45-6789"}]}]"#,
                ),
            ],
        ),
    ]);
    let got = events(&bytes);
    let want = [
        (Channel::UserInput, "I am ana@example.com"),
        (Channel::ToolCall, r#"{"q":"bob@example.org"}"#),
        (Channel::ToolResponse, "found"),
        (Channel::FinalOutput, "SSN 123-45-6789"),
    ];
    let got: Vec<(Channel, &str)> = got.iter().map(|(c, t)| (*c, t.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn an_export_with_no_spans_is_an_error_not_a_pass() {
    let empty = br#"{"resourceSpans": [{"scopeSpans": [{"spans": []}]}]}"#;
    assert_eq!(runs_from_spans(empty, "x", SpanMapping::Structural).unwrap_err(), SpanError::NoSpans);
    assert_eq!(runs_from_spans(empty, "x", SpanMapping::Reference).unwrap_err(), SpanError::NoSpans);
    let message =
        runs_from_spans(b"\x0a\x8f\x02\x0a\x12\x00\x01", "x", SpanMapping::Structural).unwrap_err().to_string();
    assert!(message.contains("binary OTLP") && message.contains("OTLP JSON"), "{message}");
}

#[test]
fn the_reference_mapping_keeps_its_quirks() {
    // The schema in tool.parameters wins over the arguments; only the first
    // tool call of a model message is kept; GenAI chat spans are dropped;
    // non-string values are written as Python prints them; the last model
    // or chain output in file order is the final output.
    let doc = br#"[
        {"name": "lookup", "attributes": {"openinference.span.kind": "TOOL", "tool.name": "lookup",
            "tool.parameters": {"type": "object", "required": ["ssn"], "strict": true},
            "input.value": "{\"ssn\": \"123-45-6789\"}", "output.value": 7}},
        {"name": "turn", "attributes": {"openinference.span.kind": "LLM",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "a",
            "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "first",
            "llm.output_messages.0.message.tool_calls.1.tool_call.function.arguments": "second",
            "llm.output_messages.0.message.content": "inner"}},
        {"name": "chat", "attributes": {"gen_ai.operation.name": "chat", "gen_ai.completion": "SSN 123-45-6789"}},
        {"name": "root", "attributes": {"openinference.span.kind": "CHAIN", "input.value": "hi", "output.value": 1.0}}
    ]"#;
    let runs = runs_from_spans(doc, "spans", SpanMapping::Reference).unwrap();
    let trace = &runs[0].trace;
    assert_eq!((trace.run_id.as_str(), trace.agent_name.as_str()), ("spans", "otel_agent"));
    let got: Vec<(Channel, &str, &str)> = trace.events.iter().map(|e| (e.channel, &*e.source, &*e.text)).collect();
    assert_eq!(
        got,
        [
            (Channel::ToolCall, "lookup", "{'type': 'object', 'required': ['ssn'], 'strict': True}"),
            (Channel::ToolResponse, "lookup", "7"),
            (Channel::ToolCall, "turn", "first"),
            (Channel::InterAgentMessage, "turn", "inner"),
            (Channel::FinalOutput, "root", "1.0"),
        ]
    );
    assert_eq!(trace.events[4].meta("promoted_to").and_then(PyValue::as_str), Some("final_output"));
}

#[test]
fn file_stems_are_pythons() {
    assert_eq!(file_stem("runs/a.otlp.json"), "a.otlp");
    assert_eq!(file_stem(".hidden"), ".hidden");
    assert_eq!(file_stem("a."), "a.");
    assert_eq!(file_stem("plain"), "plain");
}

#[test]
fn conversations_whose_trace_ids_share_a_prefix_keep_apart() {
    let mut doc: serde_json::Value = serde_json::from_slice(&react_agent()).unwrap();
    let spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"].as_array().unwrap().clone();
    let mut second = spans.clone();
    for span in &mut second {
        span["traceId"] = "0af76519ffffffffffffffffffffffff".into();
    }
    let mut all = spans;
    all.extend(second);
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = all.into();
    let runs = runs_from_spans(&serde_json::to_vec(&doc).unwrap(), "t", SpanMapping::Structural).unwrap();
    let ids: Vec<&str> = runs.iter().map(|r| r.trace.run_id.as_str()).collect();
    assert_eq!(ids, ["t#0af7651916cd43dd8448eb211c80319c", "t#0af76519ffffffffffffffffffffffff"]);
}
