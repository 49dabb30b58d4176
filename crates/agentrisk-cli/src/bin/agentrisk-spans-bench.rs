//! `agentrisk-spans-bench`: how long an OpenTelemetry span export takes
//! to analyse, against the AgentLeak traces of the same content.
//!
//! It writes an OTLP JSON Lines export of about `--mb` megabytes, shaped as
//! OpenInference's LangChain instrumentor writes agent runs (a chain root,
//! model turns with their input history and tool calls, tool spans with
//! arguments and results, some holding personal data), one conversation
//! per line. The same content as AgentLeak traces is what the structural
//! mapping makes of it (`agentrisk::spans::trace_json`, one trace per
//! conversation). Both are analysed end to end, as `agentrisk run` does
//! (bytes → runs → reports → JSON), on one thread; the figures are printed,
//! not asserted.

#[path = "../malloc.rs"]
mod malloc;

use agentrisk::analyser::{Analyser, Keep};
use agentrisk::spans::{runs_from_spans, trace_json, SpanMapping};
use agentrisk::util::ByteCount;
use std::borrow::Cow;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: agentrisk-spans-bench [--mb N] [--runs N] [--turns N]
  --mb N      size of the OTLP JSON Lines export, in MB (default 100)
  --turns N   model turns per conversation (default 4)
  --runs N    timed runs of each input; the median is shown (default 3)";

fn main() -> ExitCode {
    malloc::configure();
    let (mut mb, mut runs, mut turns) = (100usize, 3usize, 4usize);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let target = match arg.as_str() {
            "--mb" => &mut mb,
            "--runs" => &mut runs,
            "--turns" => &mut turns,
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        };
        match iter.next().and_then(|v| v.replace('_', "").parse().ok()).filter(|&n: &usize| n > 0) {
            Some(n) => *target = n,
            None => {
                eprintln!("{arg} needs a count above 0\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }

    let export = export_of(mb * 1_000_000, turns);
    let conversations = export.iter().filter(|&&b| b == b'\n').count();
    let converted = match runs_from_spans(&export, "bench.otlp", SpanMapping::Structural) {
        Ok(runs) => runs,
        Err(e) => {
            eprintln!("agentrisk-spans-bench: the generated export does not read: {e}");
            return ExitCode::FAILURE;
        }
    };
    let traces: Vec<Vec<u8>> = converted.iter().map(|run| trace_json(&run.trace).into_bytes()).collect();
    let events: usize = converted.iter().map(|run| run.trace.events.len()).sum();
    drop(converted);
    let trace_bytes: usize = traces.iter().map(Vec::len).sum();

    let analyser = Analyser::new().with_generated_at("2026-12-07T00:00:00+00:00");
    let time = |f: &dyn Fn() -> (usize, usize)| {
        let mut seconds: Vec<(f64, (usize, usize))> = (0..runs)
            .map(|_| {
                let started = Instant::now();
                let out = f();
                (started.elapsed().as_secs_f64(), out)
            })
            .collect();
        seconds.sort_by(|a, b| a.0.total_cmp(&b.0));
        // The runs give the same output; the median time is the figure.
        seconds[seconds.len() / 2]
    };
    // Each report written as `agentrisk run` writes it, into a byte
    // counter; the findings counted, to check both inputs found the same.
    let written = |reports: Vec<agentrisk::analyser::TraceAnalysis>| -> (usize, usize) {
        reports
            .iter()
            .map(|a| {
                let mut out = ByteCount::default();
                (serde_json::to_writer_pretty(&mut out, &a.report).map_or(0, |()| out.0), a.report.findings.len())
            })
            .fold((0, 0), |(b, f), (b2, f2)| (b + b2, f + f2))
    };
    let (span_s, span_out) = time(&|| {
        analyser
            .analyse_runs("bench.otlp.jsonl", Cow::Borrowed(&export), None, Keep::ReportOnly)
            .map_or((0, 0), written)
    });
    let (trace_s, trace_out) = time(&|| {
        traces
            .iter()
            .map(|t| {
                analyser.analyse_runs("bench.json", Cow::Borrowed(t), None, Keep::ReportOnly).map_or((0, 0), written)
            })
            .fold((0, 0), |(b, f), (b2, f2)| (b + b2, f + f2))
    });
    if span_out.1 != trace_out.1 || span_out.1 == 0 {
        eprintln!("agentrisk-spans-bench: the two inputs gave {} and {} findings", span_out.1, trace_out.1);
        return ExitCode::FAILURE;
    }
    let span_out = span_out.0;
    let per_mb = |s: f64, bytes: usize| s / (bytes as f64 / 1e6);
    println!(
        "OTLP JSON Lines export: {:.1} MB, {conversations} conversations, {events} events after the structural mapping",
        export.len() as f64 / 1e6
    );
    println!("the same content as AgentLeak traces: {:.1} MB in {} files", trace_bytes as f64 / 1e6, traces.len());
    let build = if cfg!(debug_assertions) { "debug build: figures mean little" } else { "release build" };
    println!("median of {runs} runs, one thread, {build}; reports {:.1} MB", span_out as f64 / 1e6);
    println!(
        "  span export     {span_s:>8.3} s   {:>7.4} s/MB   {:>6.1} MB/s",
        per_mb(span_s, export.len()),
        export.len() as f64 / 1e6 / span_s
    );
    println!(
        "  AgentLeak       {trace_s:>8.3} s   {:>7.4} s/MB   {:>6.1} MB/s",
        per_mb(trace_s, trace_bytes),
        trace_bytes as f64 / 1e6 / trace_s
    );
    println!(
        "  time per byte, span export / AgentLeak traces: {:.2}× (target ≤ 1.5×); whole time: {:.2}×",
        per_mb(span_s, export.len()) / per_mb(trace_s, trace_bytes),
        span_s / trace_s
    );
    ExitCode::SUCCESS
}

/// An export of about `target` bytes: one conversation per line.
fn export_of(target: usize, turns: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 64 * 1024);
    let mut conversation = 0u64;
    while out.len() < target {
        conversation_line(&mut out, conversation, turns);
        conversation += 1;
    }
    out
}

/// A deterministic stream of numbers (xorshift), so every run writes the same export.
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// One conversation as one OTLP request line: a chain root, then per turn
/// a model span (its input history, a tool call) and the tool's span, then
/// the model's answer.
fn conversation_line(out: &mut Vec<u8>, conversation: u64, turns: usize) {
    let mut rng = Numbers(conversation.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let trace_id = format!("{:016x}{:016x}", conversation + 1, rng.next());
    let mut spans: Vec<String> = Vec::new();
    let mut clock = 1_767_225_600_000_000_000u64 + conversation * 10_000_000_000;
    let mut span_no = 0u64;
    let mut next_id = || {
        span_no += 1;
        format!("{:08x}{span_no:08x}", conversation as u32)
    };
    let root_id = next_id();
    let customer = rng.next() % 100_000;
    let question = format!(
        "Hi, I am customer {customer}. Please check order {} and write to me at user{customer}@example.com.",
        rng.next() % 1_000_000
    );
    let root_start = clock;
    let mut history = vec![
        ("system", "You are a support agent. Use the tools; never repeat personal data back to the user.".to_owned()),
        ("user", question.clone()),
    ];
    for turn in 0..turns {
        clock += 1_000_000;
        let model_id = next_id();
        let call_id = format!("call_{conversation}_{turn}");
        let leaky = rng.next() % 7 == 0;
        let arguments = if leaky {
            format!(
                r#"{{"customer_id": {customer}, "ssn": "{}-{:02}-{:04}"}}"#,
                100 + rng.next() % 600,
                10 + rng.next() % 89,
                1000 + rng.next() % 8999
            )
        } else {
            format!(r#"{{"customer_id": {customer}, "order": {}}}"#, rng.next() % 1_000_000)
        };
        let mut attrs = vec![attr("openinference.span.kind", "LLM"), attr("llm.model_name", "gpt-4o-mini")];
        for (i, (role, content)) in history.iter().enumerate() {
            attrs.push(attr(&format!("llm.input_messages.{i}.message.role"), role));
            attrs.push(attr(&format!("llm.input_messages.{i}.message.content"), content));
        }
        attrs.push(attr("llm.output_messages.0.message.role", "assistant"));
        attrs.push(attr("llm.output_messages.0.message.tool_calls.0.tool_call.id", &call_id));
        attrs.push(attr("llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup_order"));
        attrs.push(attr("llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments", &arguments));
        attrs.push(attr("llm.invocation_parameters", r#"{"temperature": 0.0, "max_tokens": 512}"#));
        spans.push(span(&trace_id, &model_id, &root_id, "ChatOpenAI", clock, clock + 800_000, &attrs));
        clock += 1_000_000;
        let result = format!(
            r#"{{"order": {}, "status": "shipped", "carrier": "UPS", "contact": "{}"}}"#,
            rng.next() % 1_000_000,
            if rng.next() % 5 == 0 { format!("(415) 555-{:04}", rng.next() % 10_000) } else { "on file".to_owned() }
        );
        let tool_id = next_id();
        let attrs = [
            attr("openinference.span.kind", "TOOL"),
            attr("tool.name", "lookup_order"),
            attr("tool.description", "Looks an order up by customer and order number."),
            attr("tool.parameters", r#"{"type": "object", "properties": {"customer_id": {"type": "integer"}}}"#),
            attr("input.value", &arguments),
            attr("output.value", &result),
        ];
        spans.push(span(&trace_id, &tool_id, &root_id, "lookup_order", clock, clock + 500_000, &attrs));
        history.push(("assistant", String::new()));
        history.push(("tool", result));
    }
    clock += 1_000_000;
    let answer = if rng.next() % 9 == 0 {
        format!("Your order shipped; we wrote to user{customer}@example.com.")
    } else {
        "Your order has shipped and is on its way.".to_owned()
    };
    let mut attrs = vec![attr("openinference.span.kind", "LLM")];
    for (i, (role, content)) in history.iter().enumerate() {
        attrs.push(attr(&format!("llm.input_messages.{i}.message.role"), role));
        attrs.push(attr(&format!("llm.input_messages.{i}.message.content"), content));
    }
    attrs.push(attr("llm.output_messages.0.message.role", "assistant"));
    attrs.push(attr("llm.output_messages.0.message.content", &answer));
    let final_id = next_id();
    spans.push(span(&trace_id, &final_id, &root_id, "ChatOpenAI", clock, clock + 900_000, &attrs));
    let root_attrs = [
        attr("openinference.span.kind", "CHAIN"),
        attr("input.value", &serde_json::json!({ "input": question }).to_string()),
        attr("output.value", &serde_json::json!({ "output": answer }).to_string()),
        attr("session.id", &format!("session-{conversation}")),
    ];
    spans.push(span(&trace_id, &root_id, "", "AgentExecutor", root_start, clock + 1_000_000, &root_attrs));
    out.extend_from_slice(br#"{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"support-agent"}}]},"scopeSpans":[{"scope":{"name":"openinference.instrumentation.langchain"},"spans":["#);
    out.extend_from_slice(spans.join(",").as_bytes());
    out.extend_from_slice(b"]}]}]}\n");
}

fn attr(key: &str, value: &str) -> String {
    format!(
        r#"{{"key":{},"value":{{"stringValue":{}}}}}"#,
        serde_json::Value::from(key),
        serde_json::Value::from(value)
    )
}

fn span(trace: &str, id: &str, parent: &str, name: &str, start: u64, end: u64, attrs: &[String]) -> String {
    format!(
        r#"{{"traceId":"{trace}","spanId":"{id}","parentSpanId":"{parent}","name":"{name}","kind":1,"startTimeUnixNano":"{start}","endTimeUnixNano":"{end}","attributes":[{}],"status":{{}}}}"#,
        attrs.join(",")
    )
}
