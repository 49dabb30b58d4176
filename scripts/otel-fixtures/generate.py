#!/usr/bin/env python3
"""Generate the OpenTelemetry span-export fixtures in tests/fixtures/spans/.

Real instrumentors are run against scripted models (no real LLM, no network):

* openinference-instrumentation-langchain on langchain-core / langgraph agents
  driven by ScriptedChatModel (a BaseChatModel that replays fixed AIMessages,
  tool calls included);
* openinference-instrumentation-openai and opentelemetry-instrumentation-openai-v2
  on the `openai` SDK talking to a fake /v1/chat/completions server (http.server
  on 127.0.0.1, canned JSON answers).

Spans are collected with the SDK's InMemorySpanExporter and written with the
SDK's own encoders: `encode_spans` + protobuf `json_format` for OTLP/JSON,
`ReadableSpan.to_json()` for span lists, `SerializeToString` for the binary
request. For every span file the reference's view is written beside it, in
reference/: the `agentleak` 0.17.0 `trace_from_spans` trace and the report of
`agentleak run -t`.

Determinism (a re-run writes the same bytes):
* trace/span ids come from a seeded IdGenerator, re-seeded per scenario;
* every clock the spans read is a fake clock that starts at
  2026-01-01T00:00:00Z for each scenario and ticks 1 ms per reading (the SDK's
  `time_ns` and langchain-core's run `datetime.now`);
* parallel tool calls run one after the other (max_concurrency=1) so the span
  order is fixed;
* after the run, string attribute values are normalised: every UUID (LangChain
  message/run ids, LangGraph checkpoint namespaces) becomes
  dddddddd-dddd-4ddd-addd-<n>, numbered in order of first appearance in the
  export (hex letters only, so no placeholder looks like a number to a PII
  detector), and absolute paths in exception stack traces become <site-packages>,
  <stdlib> or <repo>;
* the reports' wall-clock `generated_at` is set to 2026-01-01T00:00:00+00:00 and
  `compliance.integrity.digest` recomputed with the reference's own function
  (checked against the digest the CLI wrote); the CLI runs with
  PYTHONHASHSEED=0 (agentrisk.ri_by_channel's order of equal values depends on it).

Checks (the run fails if one does not hold): every planted value, alone in a
tool_call event, gives a finding in `agentleak run`; every planted value occurs in
every file of its scenario; and everything the reference's detectors find in any
string the spans carry is (part of) a planted value, so a channel that expected.json
calls clean holds nothing they would flag.

Usage:  python generate.py [--out DIR]      (default: <repo>/tests/fixtures/spans)
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import warnings
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

T0 = time.monotonic()

REPO = pathlib.Path(__file__).resolve().parents[2]

# ---------------------------------------------------------------------------
# Environment, set before any instrumentor is imported.
# ---------------------------------------------------------------------------
# opentelemetry-instrumentation-openai-v2 2.4b0 with opentelemetry-util-genai
# 1.1b0 always takes the "latest experimental" GenAI semconv path (util-genai's
# is_experimental_mode() returns True whatever OTEL_SEMCONV_STABILITY_OPT_IN
# says) and accepts only NO_CONTENT / SPAN_ONLY / EVENT_ONLY / SPAN_AND_EVENT
# for the capture variable ("true" is rejected with a warning -> no content).
# SPAN_ONLY puts the messages into span attributes gen_ai.input.messages /
# gen_ai.output.messages; EVENT_ONLY would send them as *log records*
# (gen_ai.client.inference.operation.details), not span events.
os.environ["OTEL_SEMCONV_STABILITY_OPT_IN"] = "gen_ai_latest_experimental"
os.environ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"] = "SPAN_ONLY"
for _var in list(os.environ):
    if _var.startswith(("OPENINFERENCE_", "OTEL_RESOURCE_", "OTEL_SERVICE_", "LANGSMITH_", "LANGCHAIN_")):
        del os.environ[_var]
os.environ["LANGSMITH_TRACING"] = "false"
os.environ["LANGCHAIN_TRACING_V2"] = "false"
warnings.filterwarnings("ignore")

import httpx  # noqa: E402
import openai  # noqa: E402
from google.protobuf.json_format import MessageToDict, MessageToJson  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402
from openinference.instrumentation import using_attributes, using_session  # noqa: E402
from openinference.instrumentation.langchain import LangChainInstrumentor  # noqa: E402
from openinference.instrumentation.openai import OpenAIInstrumentor as OIOpenAIInstrumentor  # noqa: E402
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans  # noqa: E402
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor as GenAIOpenAIInstrumentor  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402
from opentelemetry.sdk.trace import Event, ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.sdk.trace.id_generator import IdGenerator  # noqa: E402
from opentelemetry.trace import Status  # noqa: E402
from opentelemetry.util.genai.handler import TelemetryHandler  # noqa: E402
from opentelemetry.util.genai.types import InputMessage, OutputMessage, Text  # noqa: E402

import agentleak  # noqa: E402
from agentleak.core.compliance import _integrity_digest  # noqa: E402
from agentleak.integrations.otel import trace_from_spans  # noqa: E402

import langchain_core.tracers.core as _lc_tracers_core  # noqa: E402
import langchain_core.tracers.langchain as _lc_tracers_langchain  # noqa: E402
import opentelemetry.sdk.trace as _sdk_trace  # noqa: E402

# ---------------------------------------------------------------------------
# Deterministic clock and ids
# ---------------------------------------------------------------------------
EPOCH_NS = 1767225600 * 10**9  # 2026-01-01T00:00:00Z
TICK_NS = 1_000_000  # 1 ms per clock reading
FIXED_TIMESTAMP = "2026-01-01T00:00:00Z"
FIXED_GENERATED_AT = "2026-01-01T00:00:00+00:00"


class FakeClock:
    """One clock for the SDK and langchain-core: 1 ms per reading."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now = EPOCH_NS

    def reset(self) -> None:
        with self._lock:
            self._now = EPOCH_NS

    def time_ns(self) -> int:
        with self._lock:
            self._now += TICK_NS
            return self._now


CLOCK = FakeClock()
_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class FakeDatetime(datetime):
    """datetime whose now() reads CLOCK (langchain-core stamps runs with it)."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        dt = _UNIX_EPOCH + timedelta(microseconds=CLOCK.time_ns() // 1000)
        return dt.replace(tzinfo=None) if tz is None else dt.astimezone(tz)


_sdk_trace.time_ns = CLOCK.time_ns  # span start/end and event timestamps
_lc_tracers_core.datetime = FakeDatetime  # run start/end times (OpenInference uses them)
_lc_tracers_langchain.datetime = FakeDatetime  # on_chat_model_start


class SeededIdGenerator(IdGenerator):
    """Trace/span ids from a seeded PRNG, re-seeded for every scenario."""

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def reseed(self, seed: str) -> None:
        self._rng = random.Random(seed)

    def generate_span_id(self) -> int:
        while True:
            v = self._rng.getrandbits(64)
            if v:
                return v

    def generate_trace_id(self) -> int:
        while True:
            v = self._rng.getrandbits(128)
            if v:
                return v


IDS = SeededIdGenerator()


def make_provider(service: str) -> tuple[TracerProvider, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": service, "service.instance.id": "otel-fixtures"}),
        id_generator=IDS,
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def begin_scenario(name: str, exporter: InMemorySpanExporter) -> None:
    exporter.clear()
    CLOCK.reset()
    IDS.reseed(f"agentrisk-otel-fixtures/{name}")


# ---------------------------------------------------------------------------
# Normalisation of what the instrumentors captured (UUIDs, absolute paths)
# ---------------------------------------------------------------------------
_UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _path_prefixes() -> list[tuple[str, str]]:
    prefixes: dict[str, str] = {}
    for key in ("purelib", "platlib"):
        prefixes[sysconfig.get_paths()[key]] = "<site-packages>"
    for key in ("stdlib", "platstdlib"):
        prefixes[sysconfig.get_paths()[key]] = "<stdlib>"
    prefixes[str(REPO)] = "<repo>"
    return sorted(prefixes.items(), key=lambda kv: -len(kv[0]))


PATH_PREFIXES = _path_prefixes()


class Normaliser:
    def __init__(self) -> None:
        self.uuids: dict[str, str] = {}

    def _uuid(self, m: re.Match[str]) -> str:
        u = m.group(0)
        if u not in self.uuids:
            # hex letters only (n in base 6 over a-f): a placeholder with digit runs
            # would be read as a card or account number by the reference's detectors
            n, tail = len(self.uuids) + 1, ""
            while n:
                n, r = divmod(n, 6)
                tail = "abcdef"[r] + tail
            self.uuids[u] = f"dddddddd-dddd-4ddd-addd-{tail.rjust(12, 'a')}"
        return self.uuids[u]

    def text(self, s: str) -> str:
        s = _UUID_RE.sub(self._uuid, s)
        for prefix, repl in PATH_PREFIXES:
            s = s.replace(prefix, repl)
        return s

    def value(self, v: Any) -> Any:
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, tuple):
            return tuple(self.value(x) for x in v)
        return v

    def attrs(self, a: Any) -> dict[str, Any]:
        return {k: self.value(v) for k, v in (a or {}).items()}

    def span(self, s: ReadableSpan) -> ReadableSpan:
        status = s.status
        if status.description:
            status = Status(status.status_code, self.text(status.description))
        return ReadableSpan(
            name=self.text(s.name),
            context=s.context,
            parent=s.parent,
            resource=s.resource,
            attributes=self.attrs(s.attributes),
            events=[Event(e.name, self.attrs(e.attributes), e.timestamp) for e in s.events],
            links=s.links,
            kind=s.kind,
            status=status,
            start_time=s.start_time,
            end_time=s.end_time,
            instrumentation_scope=s.instrumentation_scope,
        )


def collect(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    """The finished spans in the order the SDK exported them, normalised."""
    norm = Normaliser()
    return [norm.span(s) for s in exporter.get_finished_spans()]


# ---------------------------------------------------------------------------
# Scripted chat model and the agents
# ---------------------------------------------------------------------------
class ScriptedChatModel(BaseChatModel):
    """Replays a fixed list of AIMessages, one per call (tool calls included)."""

    script: list[AIMessage]
    model_name: str = "scripted-gpt"
    cursor: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:  # noqa: ANN001
        if self.cursor >= len(self.script):
            raise RuntimeError(f"{self.model_name}: script exhausted")
        msg = self.script[self.cursor].model_copy(deep=True)
        self.cursor += 1
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def bind_tools(self, tools, *, tool_choice=None, **kwargs):  # noqa: ANN001, ANN201
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)


def call(name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def lc_agent(name: str, model: ScriptedChatModel, tools: list, system: str) -> RunnableLambda:
    """A tool-calling agent built from langchain-core runnables only.

    prompt template -> model (tools bound) -> tools, looped until the model
    answers in text. A tool that raises is reported to the model as a generic
    failure (the exception itself stays on the tool span).
    """
    prompt = ChatPromptTemplate.from_messages([("system", system), ("human", "{question}")])
    llm = model.bind_tools(tools)
    by_name = {t.name: t for t in tools}

    def loop(inputs: dict[str, Any], config) -> str:  # noqa: ANN001
        messages = prompt.invoke(inputs, config).to_messages()
        while True:
            ai = llm.invoke(messages, config)
            messages.append(ai)
            if not ai.tool_calls:
                return ai.content
            for tc in ai.tool_calls:
                try:
                    messages.append(by_name[tc["name"]].invoke(tc, config))
                except Exception:  # noqa: BLE001
                    messages.append(ToolMessage(content=f"The {tc['name']} tool failed; try again later.",
                                                tool_call_id=tc["id"], name=tc["name"], status="error"))

    return RunnableLambda(loop, name=name)


LG_CONFIG = {"max_concurrency": 1}  # parallel tool calls run in order -> fixed span order


# ---- tools --------------------------------------------------------------------
@tool
def lookup_customer(ssn: str, email: str) -> str:
    """Look up a customer's account by SSN and e-mail address."""
    return "Account found: status active, no overdue payments, tier gold."


@tool
def get_order(order_id: str) -> dict:
    """Fetch an order record with the buyer's contact and payment details."""
    return {
        "order_id": order_id,
        "phone": "(415) 555-0132",
        "email": "buyer.kim@example.net",
        "card": "4111 1111 1111 1111",
        "status": "shipped",
    }


@tool
def get_policy(topic: str) -> str:
    """Return the store policy paragraph for a topic."""
    return "Shoes may be returned within 30 days if unworn, with the receipt."


@tool
def get_invoice(invoice_id: str) -> dict:
    """Fetch an open invoice."""
    return {"invoice_id": invoice_id, "supplier": "ACME Tools", "amount_eur": "1200.00", "due": "2026-01-31"}


@tool
def schedule_transfer(iban: str, amount_eur: str, reference: str) -> str:
    """Schedule a SEPA transfer."""
    return f"Transfer of {amount_eur} EUR scheduled (reference {reference})."


@tool
def sync_calendar(calendar: str) -> str:
    """Synchronise the user's calendar with the upstream provider."""
    raise PermissionError("upstream auth failed for api key sk-proj-abcdefghijklmnopqrstuvwx (401 Unauthorized)")


@tool
def lookup_contact(person: str) -> str:
    """Find a person's contact details in the company directory."""
    return "Head of Partnerships, Globex; e-mail dana.lee@example.com"


@tool
def opening_hours(store: str) -> str:
    """Opening hours of a store."""
    return "Mon-Sat 09:00-18:00, closed on Sundays."


@tool
def get_record(record_ref: str) -> dict:
    """Fetch a membership record."""
    return {"record_ref": record_ref, "ssn": "078-05-1120", "status": "active", "since": "2019"}


# ---------------------------------------------------------------------------
# Scenarios: each returns a list of sessions (each a list of spans in export order)
# ---------------------------------------------------------------------------
POLICY_SYSTEM = (
    "You are the ShoeShop support assistant. Policy excerpt (fictional, v3): answer only "
    "from the returns policy; never promise refunds beyond it; be brief and polite."
)


def sc_lc_tool_args_leak(exporter):
    model = ScriptedChatModel(model_name="scripted-gpt", script=[
        AIMessage(content="", tool_calls=[call("lookup_customer", {
            "ssn": "123-45-6789", "email": "jane.roe@example.com"}, "call_lookup_1")]),
        AIMessage(content="Your account is active with no overdue payments."),
    ])
    agent = create_react_agent(model, [lookup_customer], name="support_agent",
                               prompt="You are a bank support agent. Use the tools to check accounts.")
    agent.invoke({"messages": [("user", "Hi, my SSN is 123-45-6789 and my e-mail is jane.roe@example.com. "
                                         "Is my account in good standing?")]}, LG_CONFIG)
    return [collect(exporter)]


def sc_lc_tool_result_leak(exporter):
    model = ScriptedChatModel(script=[
        AIMessage(content="", tool_calls=[call("get_order", {"order_id": "A-1001"}, "call_order_1")]),
        AIMessage(content="You can reach the buyer by e-mail at buyer.kim@example.net; the order has shipped."),
    ])
    agent = lc_agent("orders_agent", model, [get_order],
                     "You help shop staff with orders. Use get_order to fetch order records.")
    agent.invoke({"question": "How can I reach the buyer of order A-1001?"})
    return [collect(exporter)]


def sc_lc_clean(exporter):
    model = ScriptedChatModel(script=[
        AIMessage(content="", tool_calls=[call("get_policy", {"topic": "shoes"}, "call_policy_1")]),
        AIMessage(content="You can return shoes within 30 days if they are unworn and you have the receipt."),
    ])
    agent = lc_agent("shoeshop_agent", model, [get_policy], POLICY_SYSTEM)
    agent.invoke({"question": "What is your return window for shoes?"})
    return [collect(exporter)]


def sc_lc_parallel_calls(exporter):
    model = ScriptedChatModel(script=[
        AIMessage(content="", tool_calls=[
            call("get_invoice", {"invoice_id": "INV-8"}, "call_invoice_1"),
            call("schedule_transfer", {"iban": "DE44500105175407324931", "amount_eur": "1200.00",
                                       "reference": "INV-8"}, "call_transfer_2"),
        ]),
        AIMessage(content="Invoice INV-8 (ACME Tools, 1200.00 EUR) is paid: the transfer is scheduled."),
    ])
    agent = create_react_agent(model, [get_invoice, schedule_transfer], name="payments_agent",
                               prompt="You are a payments assistant.")
    agent.invoke({"messages": [("user", "Please pay ACME's open invoice INV-8 to their account "
                                         "DE44500105175407324931.")]}, LG_CONFIG)
    return [collect(exporter)]


def sc_lc_tool_error(exporter):
    model = ScriptedChatModel(script=[
        AIMessage(content="", tool_calls=[call("sync_calendar", {"calendar": "work"}, "call_sync_1")]),
        AIMessage(content="Sorry, calendar sync is unavailable right now. Please try again later."),
    ])
    agent = lc_agent("calendar_agent", model, [sync_calendar], "You manage the user's calendar.")
    agent.invoke({"question": "Sync my work calendar, please."})
    return [collect(exporter)]


def sc_lg_multi_agent(exporter):
    researcher_model = ScriptedChatModel(model_name="scripted-researcher", script=[
        AIMessage(content="", tool_calls=[call("lookup_contact", {"person": "Globex partnerships lead"},
                                               "call_contact_1")]),
        AIMessage(content="Handoff to writer: the Globex partnerships lead can be reached at "
                          "dana.lee@example.com. Please draft a short intro from our team."),
    ])
    writer_model = ScriptedChatModel(model_name="scripted-writer", script=[
        AIMessage(content="Here is the intro draft: 'Hello, our team would love to explore a partnership "
                          "with Globex. Could we set up a call next week? Best regards, the Outreach team'"),
    ])
    researcher = create_react_agent(researcher_model, [lookup_contact], name="researcher_agent",
                                    prompt="You research contacts and hand your findings to the writer.")
    writer = create_react_agent(writer_model, [], name="writer_agent",
                                prompt="You write e-mail drafts from the researcher's notes.")
    graph = StateGraph(MessagesState)
    graph.add_node("researcher_agent", researcher)
    graph.add_node("writer_agent", writer)
    graph.add_edge(START, "researcher_agent")
    graph.add_edge("researcher_agent", "writer_agent")
    graph.add_edge("writer_agent", END)
    team = graph.compile(name="outreach_team")
    team.invoke({"messages": [("user", "Draft an intro e-mail to Globex's partnerships lead.")]}, LG_CONFIG)
    return [collect(exporter)]


def sc_lc_two_sessions(exporter):
    model = ScriptedChatModel(script=[
        # session s-1 (clean)
        AIMessage(content="", tool_calls=[call("opening_hours", {"store": "Main Street"}, "call_hours_1")]),
        AIMessage(content="The Main Street store is open Mon-Sat 09:00-18:00 and closed on Sundays."),
        # session s-2 (SSN in the tool result and the final answer)
        AIMessage(content="", tool_calls=[call("get_record", {"record_ref": "R-42"}, "call_record_1")]),
        AIMessage(content="Record R-42 is active; the SSN on file is 078-05-1120."),
    ])
    agent = lc_agent("helpdesk_agent", model, [opening_hours, get_record], "You are the bank helpdesk.")
    sessions = []
    with using_session("s-1"):
        agent.invoke({"question": "When is the Main Street store open?"})
    sessions.append(collect(exporter))
    exporter.clear()
    with using_session("s-2"):
        agent.invoke({"question": "Is record R-42 active, and which SSN is on file for it?"})
    sessions.append(collect(exporter))
    return sessions


# ---- fake OpenAI server ---------------------------------------------------------
class FakeOpenAI:
    """http.server on 127.0.0.1 answering POST /v1/chat/completions from a queue."""

    def __init__(self) -> None:
        self.queue: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                if self.path.rstrip("/") != "/v1/chat/completions" or not outer.queue:
                    self.send_error(404)
                    return
                outer.requests.append(json.loads(body))
                data = json.dumps(outer.queue.pop(0)).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args) -> None:  # noqa: ANN002
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=self.base_url, api_key="fake-key-for-local-server", max_retries=0,
                             http_client=httpx.Client(trust_env=False))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def completion(cid: str, message: dict[str, Any], finish: str, created: int) -> dict[str, Any]:
    return {
        "id": cid, "object": "chat.completion", "created": created, "model": "gpt-4o-mini-2024-07-18",
        "system_fingerprint": "fp_fixture",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 52, "completion_tokens": 18, "total_tokens": 70},
    }


def tool_call_msg(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


OAI_TOOLS = [
    {"type": "function", "function": {
        "name": "get_profile", "description": "Fetch the user's profile by e-mail.",
        "parameters": {"type": "object", "properties": {"email": {"type": "string"}}, "required": ["email"]}}},
    {"type": "function", "function": {
        "name": "send_email", "description": "Send an e-mail.",
        "parameters": {"type": "object", "properties": {"to": {"type": "string"}, "subject": {"type": "string"},
                                                        "body": {"type": "string"}}, "required": ["to", "subject"]}}},
]


def sc_oi_openai_chat(exporter, fake: FakeOpenAI):
    fake.queue[:] = [
        completion("chatcmpl-oi-1", {"role": "assistant", "content": None, "tool_calls": [
            tool_call_msg("call_profile_1", "get_profile", {"email": "lee.park@example.com"})]},
            "tool_calls", 1767225601),
        completion("chatcmpl-oi-2", {"role": "assistant",
                                     "content": "Your profile lists SSN 219-09-9999; nothing else is on file."},
                   "stop", 1767225602),
    ]
    client = fake.client()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the account assistant. Use get_profile to look users up."},
        {"role": "user", "content": "Hi, I'm lee.park@example.com. What personal data do you hold on me?"},
    ]
    with using_attributes(session_id="oi-session-1", user_id="u-1042"):
        r1 = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=OAI_TOOLS[:1],
                                            temperature=0)
        messages.append(r1.choices[0].message.model_dump(exclude_none=True))
        messages.append({"role": "tool", "tool_call_id": "call_profile_1",
                         "content": json.dumps({"ssn": "219-09-9999", "plan": "basic"})})
        client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=OAI_TOOLS[:1],
                                       temperature=0)
    return [collect(exporter)]


def sc_genai_openai_chat(exporter, fake: FakeOpenAI, provider: TracerProvider):
    fake.queue[:] = [
        completion("chatcmpl-genai-1", {"role": "assistant", "content": None, "tool_calls": [
            tool_call_msg("call_mail_1", "send_email", {"to": "sam.ortiz@example.org", "subject": "Onboarding",
                                                        "body": "Welcome aboard! Your checklist is attached."})]},
            "tool_calls", 1767225601),
        completion("chatcmpl-genai-2", {"role": "assistant",
                                        "content": "Done - the checklist went to the new hire. For the HR "
                                                   "form: their SSN is 123-45-6789."},
                   "stop", 1767225602),
    ]
    client = fake.client()
    handler = TelemetryHandler(tracer_provider=provider)
    question = "Please send our new hire the onboarding checklist."
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are the HR onboarding assistant."},
        {"role": "user", "content": question},
    ]
    with handler.invoke_local_agent(agent_name="onboarding_agent", request_model="gpt-4o-mini") as agent:
        agent.conversation_id = "conv-7"
        agent.input_messages = [InputMessage(role="user", parts=[Text(content=question)])]
        r1 = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=OAI_TOOLS[1:])
        tc = r1.choices[0].message.tool_calls[0]
        messages.append(r1.choices[0].message.model_dump(exclude_none=True))
        with handler.tool(tc.function.name, tool_call_id=tc.id, tool_type="function",
                          tool_description="Send an e-mail.") as inv:
            inv.arguments = json.loads(tc.function.arguments)
            result = "queued: message id m-881"
            inv.tool_result = result
        messages.append({"role": "tool", "tool_call_id": tc.id, "content": result})
        r2 = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=OAI_TOOLS[1:])
        answer = r2.choices[0].message.content
        agent.output_messages = [OutputMessage(role="assistant", parts=[Text(content=answer)],
                                               finish_reason="stop")]
    return [collect(exporter)]


# ---------------------------------------------------------------------------
# Ground truth (a reviewer's view) per scenario
# ---------------------------------------------------------------------------
ALL_CHANNELS = ["user_input", "tool_call", "tool_response", "inter_agent_message", "final_output", "log"]


def P(value: str, channel: str, why: str, **extra: Any) -> dict[str, Any]:  # noqa: N802
    return {"value": value, "channel": channel, "why": why, **extra}


def clean_except(*dirty: str) -> list[str]:
    return [c for c in ALL_CHANNELS if c not in dirty]


TRUTH: dict[str, dict[str, Any]] = {
    "lc_tool_args_leak": {"runs": 1, "planted": [
        P("123-45-6789", "user_input", "the user's own message"),
        P("jane.roe@example.com", "user_input", "the user's own message"),
        P("123-45-6789", "tool_call", "arguments of lookup_customer"),
        P("jane.roe@example.com", "tool_call", "arguments of lookup_customer"),
    ], "clean_channels": clean_except("user_input", "tool_call")},
    "lc_tool_result_leak": {"runs": 1, "planted": [
        P("(415) 555-0132", "tool_response", "order record returned by get_order"),
        P("buyer.kim@example.net", "tool_response", "order record returned by get_order"),
        P("4111 1111 1111 1111", "tool_response", "order record returned by get_order"),
        P("buyer.kim@example.net", "final_output", "the answer repeats the buyer's e-mail"),
    ], "clean_channels": clean_except("tool_response", "final_output")},
    "lc_clean": {"runs": 1, "planted": [], "clean_channels": list(ALL_CHANNELS)},
    "lc_parallel_calls": {"runs": 1, "planted": [
        P("DE44500105175407324931", "user_input", "the user's own message"),
        P("DE44500105175407324931", "tool_call",
          "arguments of schedule_transfer, the second of two parallel tool calls in one model turn"),
    ], "clean_channels": clean_except("user_input", "tool_call")},
    "lc_tool_error": {"runs": 1, "planted": [
        P("sk-proj-abcdefghijklmnopqrstuvwx", "log",
          "message of the PermissionError raised by sync_calendar (span exception event and error status)"),
    ], "clean_channels": clean_except("log")},
    "lg_multi_agent": {"runs": 1, "planted": [
        P("dana.lee@example.com", "tool_response", "directory entry returned by lookup_contact"),
        P("dana.lee@example.com", "inter_agent_message", "researcher_agent's handoff message to writer_agent"),
    ], "clean_channels": clean_except("tool_response", "inter_agent_message")},
    "lc_two_sessions": {"runs": 2, "planted": [
        P("078-05-1120", "tool_response", "membership record returned by get_record", session="s-2"),
        P("078-05-1120", "final_output", "the answer in session s-2 repeats the SSN", session="s-2"),
    ], "clean_channels": clean_except("tool_response", "final_output")},
    "oi_openai_chat": {"runs": 1, "planted": [
        P("lee.park@example.com", "user_input", "the user's own message"),
        P("lee.park@example.com", "tool_call", "arguments of the get_profile tool call the model emitted"),
        P("219-09-9999", "tool_response", "get_profile result sent back to the model as the tool message"),
        P("219-09-9999", "final_output", "the assistant's answer"),
    ], "clean_channels": clean_except("user_input", "tool_call", "tool_response", "final_output")},
    "genai_openai_chat": {"runs": 1, "planted": [
        P("sam.ortiz@example.org", "tool_call",
          "arguments of the send_email tool call (model output and the execute_tool span)"),
        P("123-45-6789", "final_output", "the assistant's answer"),
    ], "clean_channels": clean_except("tool_call", "final_output")},
}

# Which shapes each scenario is written in (every scenario gets .otlp.json).
SHAPES: dict[str, list[str]] = {
    "lc_tool_args_leak": ["otlp", "b64"],
    "lc_tool_result_leak": ["otlp", "spans"],
    "lc_clean": ["otlp", "binary"],
    "lc_parallel_calls": ["otlp", "jsonl"],
    "lc_tool_error": ["otlp", "spans"],
    "lg_multi_agent": ["otlp", "spans"],
    "lc_two_sessions": ["otlp", "jsonl", "spans"],
    "oi_openai_chat": ["otlp", "spans"],
    "genai_openai_chat": ["otlp", "b64", "spans"],
}


# ---------------------------------------------------------------------------
# Writers
# ---------------------------------------------------------------------------
def _hex_ids(d: Any) -> Any:
    """base64 trace/span ids (proto3 JSON bytes) -> lowercase hex (OTLP/JSON)."""
    import base64

    if isinstance(d, dict):
        out = {}
        for k, v in d.items():
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str):
                out[k] = base64.b64decode(v).hex()
            else:
                out[k] = _hex_ids(v)
        return out
    if isinstance(d, list):
        return [_hex_ids(x) for x in d]
    return d


def otlp_dict(spans: list[ReadableSpan]) -> dict[str, Any]:
    """OTLP/JSON per the spec: hex ids, enums as integers, 64-bit ints as strings."""
    return _hex_ids(MessageToDict(encode_spans(spans), use_integers_for_enums=True))


def write_text(path: pathlib.Path, text: str) -> None:
    path.write_text(text, encoding="utf-8", newline="\n")


def write_shapes(out: pathlib.Path, name: str, sessions: list[list[ReadableSpan]]) -> list[str]:
    allspans = [s for sess in sessions for s in sess]
    written = []
    for shape in SHAPES[name]:
        if shape == "otlp":
            fn = f"{name}.otlp.json"
            # compact, as OTLP/HTTP JSON exporters send it (keeps the LangGraph files small)
            write_text(out / fn, json.dumps(otlp_dict(allspans), separators=(",", ":"), ensure_ascii=False) + "\n")
        elif shape == "b64":
            fn = f"{name}.b64.otlp.json"
            write_text(out / fn, MessageToJson(encode_spans(allspans)) + "\n")
        elif shape == "jsonl":
            # One ExportTraceServiceRequest per line, as the Collector's file exporter
            # writes a batch per line; a line per session, or two halves of one session.
            if len(sessions) > 1:
                batches = sessions
            else:
                half = len(allspans) // 2
                batches = [allspans[:half], allspans[half:]]
            fn = f"{name}.otlp.jsonl"
            write_text(out / fn, "".join(
                json.dumps(otlp_dict(b), separators=(",", ":"), ensure_ascii=False) + "\n" for b in batches))
        elif shape == "spans":
            fn = f"{name}.spans.json"
            write_text(out / fn, json.dumps([json.loads(s.to_json()) for s in allspans], indent=2,
                                            ensure_ascii=False) + "\n")
        elif shape == "binary":
            fn = "binary.otlp.pb"
            (out / fn).write_bytes(encode_spans(allspans).SerializeToString(deterministic=True))
        else:
            raise ValueError(shape)
        written.append(fn)
    return written


def load_payload(path: pathlib.Path) -> Any:
    if path.name.endswith(".jsonl"):
        merged: list[Any] = []
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                merged.extend(json.loads(line).get("resourceSpans", []))
        return {"resourceSpans": merged}
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def run_cli_report(trace_path: pathlib.Path, run_id: str) -> str:
    """`agentleak run -t TRACE -o TMP -f json`; the report text with generated_at fixed."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONHASHSEED": "0", "NO_COLOR": "1"}
        proc = subprocess.run([sys.executable, "-m", "agentleak", "run", "-t", str(trace_path), "-o", tmp,
                               "-f", "json", "-q"], capture_output=True, text=True, env=env)
        report_path = pathlib.Path(tmp) / f"{run_id}.json"
        if proc.returncode not in (0, 1) or not report_path.exists():
            raise RuntimeError(f"agentleak run failed ({proc.returncode}): {proc.stdout}\n{proc.stderr}")
        text = report_path.read_text(encoding="utf-8")
    report = json.loads(text)
    integrity = report["compliance"]["integrity"]
    matrix = report["compliance"]["evidence_matrix"]
    if _integrity_digest(report, matrix)["digest"] != integrity["digest"]:
        raise RuntimeError("cannot reproduce the report's integrity digest")
    fixed = {**report, "generated_at": FIXED_GENERATED_AT}
    new_digest = _integrity_digest(fixed, matrix)["digest"]
    old_ts = json.dumps(report["generated_at"])
    assert text.count(old_ts) == 1 and text.count(integrity["digest"]) == 1
    text = text.replace(old_ts, json.dumps(FIXED_GENERATED_AT)).replace(integrity["digest"], new_digest)
    assert json.loads(text) == {**fixed, "compliance": {**report["compliance"], "integrity": {
        **integrity, "digest": new_digest}}}
    return text


def write_reference(out: pathlib.Path, fn: str) -> dict[str, Any]:
    ref = out / "reference"
    path = out / fn
    if fn.endswith(".pb"):
        try:
            with open(path, encoding="utf-8") as fh:
                json.load(fh)
            raise RuntimeError("binary payload parsed as JSON")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            write_text(ref / f"{fn}.error.txt",
                       "json.load of this file fails, so trace_from_spans never sees it:\n"
                       f"{type(exc).__name__}: {exc}\n")
        return {}
    run_id = pathlib.Path(fn).stem
    trace = trace_from_spans(load_payload(path), run_id=run_id).to_dict()
    trace["timestamp"] = FIXED_TIMESTAMP
    for ev in trace["events"]:
        ev["timestamp"] = FIXED_TIMESTAMP
    trace_path = ref / f"{fn}.trace.json"
    write_text(trace_path, json.dumps(trace, indent=2, ensure_ascii=False) + "\n")
    report_text = run_cli_report(trace_path, run_id)
    write_text(ref / f"{fn}.report.json", report_text)
    return json.loads(report_text)


# ---------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------
def check_planted_values(tmp: pathlib.Path) -> dict[str, str]:
    """Every planted value alone in a tool_call event must give a finding."""
    found: dict[str, str] = {}
    values = sorted({p["value"] for t in TRUTH.values() for p in t["planted"]})
    for i, value in enumerate(values):
        run_id = f"check_{i}"
        trace_path = tmp / f"{run_id}.json"
        trace_path.write_text(json.dumps({"run_id": run_id, "events": [
            {"channel": "tool_call", "content": value}]}), encoding="utf-8")
        report = json.loads(run_cli_report(trace_path, run_id))
        kinds = sorted({f["data_type"] for f in report["findings"]})
        if not kinds:
            raise RuntimeError(f"planted value {value!r} is not detected by agentleak")
        found[value] = ",".join(kinds)
    return found


def check_values_present(out: pathlib.Path, fn: str, name: str) -> None:
    text = (out / fn).read_bytes().decode("utf-8", errors="replace")
    for p in TRUTH[name]["planted"]:
        if p["value"] not in text:
            raise RuntimeError(f"{fn}: planted value {p['value']!r} missing")


def span_strings(spans: list[ReadableSpan]) -> list[str]:
    out: list[str] = []
    for s in spans:
        values: list[Any] = [s.name, s.status.description]
        values += list((s.attributes or {}).values())
        for e in s.events:
            values += list((e.attributes or {}).values())
        for v in values:
            for x in (v if isinstance(v, tuple) else (v,)):
                if isinstance(x, str) and x and x not in out:
                    out.append(x)
    return out


def check_no_unplanned_pii(name: str, sessions: list[list[ReadableSpan]]) -> None:
    """Every string the spans carry, run through the reference's default detectors:
    whatever they find must be (part of) a planted value, so a channel that expected.json
    calls clean cannot hold a stray name, number or id the detectors would flag."""
    from agentleak import AgentLeakRunner
    from agentleak.core.trace import Trace

    trace = Trace(run_id=f"pii_{name}")
    for text in span_strings([s for sess in sessions for s in sess]):
        trace.add_event(channel="tool_call", content=text)
    planted = [p["value"] for p in TRUTH[name]["planted"]]
    stray = sorted({(f.data_type, f.matched_value or f.redacted_value) for f in AgentLeakRunner().analyze(trace).findings
                    if not (f.matched_value and any(f.matched_value in v or v in f.matched_value for v in planted))})
    if stray:
        raise RuntimeError(f"{name}: detectors find values that are not planted: {stray}")


SINKS = {"tool_call", "inter_agent_message", "final_output", "log", "shared_memory", "generated_file"}


def compare(fn: str, name: str, report: dict[str, Any]) -> str:
    got = sorted({(f["channel"], f["data_type"]) for f in report.get("findings", [])})
    want = sorted({p["channel"] for p in TRUTH[name]["planted"] if p["channel"] in SINKS})
    got_ch = sorted({c for c, _ in got})
    flag = "" if got_ch == want else "   <-- differs from expected.json"
    return f"  {fn:34s} reference sinks {got_ch} vs planted sinks {want}{flag}"


# ---------------------------------------------------------------------------
NOTICE_PACKAGES = [
    "langchain-core", "langgraph", "langgraph-prebuilt", "openinference-instrumentation-langchain",
    "openinference-instrumentation-openai", "openinference-instrumentation", "openinference-semantic-conventions",
    "openai", "opentelemetry-instrumentation-openai-v2", "opentelemetry-util-genai", "opentelemetry-api",
    "opentelemetry-sdk", "opentelemetry-exporter-otlp-proto-common", "opentelemetry-proto", "protobuf", "agentleak",
]


def write_notice(out: pathlib.Path, produced: list[tuple[str, str]]) -> None:
    from importlib.metadata import version

    pkgs = "\n".join(f"| {p} | {version(p)} |" for p in NOTICE_PACKAGES)
    files = "\n".join(f"| `{fn}` | {name} |" for fn, name in produced)
    write_text(out / "NOTICE.md", f"""# OpenTelemetry span fixtures — provenance

These files were generated by `scripts/otel-fixtures/generate.py` (see its README for how
to re-run it; a re-run writes the same bytes). They are the exports of real instrumentors
run against scripted models: a fake LangChain chat model and a local fake OpenAI
`/v1/chat/completions` server. No real model, person or service was involved; every
personal value is synthetic (published sample SSNs, `example.*` e-mail domains, the
4111 1111 1111 1111 test card, the usual example IBAN, a 555-01xx phone number, a made-up
`sk-proj-` key).

The `reference/` files are the views of the Python reference, agentleak
{version("agentleak")} (MIT, AgentLeak contributors): `*.trace.json` is
`agentleak.integrations.otel.trace_from_spans(payload, run_id=<stem>).to_dict()` (wall-clock
`timestamp`s set to {FIXED_TIMESTAMP}); `*.report.json` is the JSON report of
`agentleak run -t <file>.trace.json -o DIR -f json` (its `generated_at` set to
{FIXED_GENERATED_AT} and `compliance.integrity.digest` recomputed accordingly).
`expected.json` is the hand-written ground truth (where a reviewer says each planted secret
was disclosed); it is not the reference's output and differs from it in places.

Python {sys.version.split()[0]}. Packages:

| package | version |
|---|---|
{pkgs}

Files (`.otlp.json`: compact OTLP/JSON with hex ids and integer enums; `.b64.otlp.json`: plain
protobuf `MessageToJson`, base64 ids and enum names; `.otlp.jsonl`: one
ExportTraceServiceRequest per line; `.spans.json`: a list of `ReadableSpan.to_json()`;
`binary.otlp.pb`: a protobuf-encoded request, for an error test):

| file | scenario |
|---|---|
{files}
""")


# ---------------------------------------------------------------------------
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=pathlib.Path, default=REPO / "tests/fixtures/spans")
    args = ap.parse_args()
    out: pathlib.Path = args.out
    ref = out / "reference"
    if ref.exists():
        shutil.rmtree(ref)
    ref.mkdir(parents=True)
    for old in list(out.glob("*.otlp.json")) + list(out.glob("*.otlp.jsonl")) + list(out.glob("*.spans.json")) \
            + list(out.glob("*.otlp.pb")):
        old.unlink()

    produced: list[tuple[str, str]] = []  # (file, scenario)

    def emit(name: str, sessions: list[list[ReadableSpan]]) -> None:
        check_no_unplanned_pii(name, sessions)
        for fn in write_shapes(out, name, sessions):
            produced.append((fn, name))
        print(f"  {name}: {sum(len(s) for s in sessions)} spans", flush=True)

    # 1. OpenInference LangChain (langchain-core + langgraph)
    provider, exporter = make_provider("support-bots-langchain")
    lc = LangChainInstrumentor()
    lc.instrument(tracer_provider=provider)
    for name, fn in [("lc_tool_args_leak", sc_lc_tool_args_leak), ("lc_tool_result_leak", sc_lc_tool_result_leak),
                     ("lc_clean", sc_lc_clean), ("lc_parallel_calls", sc_lc_parallel_calls),
                     ("lc_tool_error", sc_lc_tool_error), ("lg_multi_agent", sc_lg_multi_agent),
                     ("lc_two_sessions", sc_lc_two_sessions)]:
        begin_scenario(name, exporter)
        emit(name, fn(exporter))
    lc.uninstrument()

    fake = FakeOpenAI()
    try:
        # 2. OpenInference OpenAI
        provider, exporter = make_provider("account-assistant-openai")
        oi = OIOpenAIInstrumentor()
        oi.instrument(tracer_provider=provider)
        begin_scenario("oi_openai_chat", exporter)
        emit("oi_openai_chat", sc_oi_openai_chat(exporter, fake))
        oi.uninstrument()

        # 3. OpenTelemetry GenAI (opentelemetry-instrumentation-openai-v2 + util-genai)
        provider, exporter = make_provider("hr-onboarding-openai")
        v2 = GenAIOpenAIInstrumentor()
        v2.instrument(tracer_provider=provider)
        begin_scenario("genai_openai_chat", exporter)
        emit("genai_openai_chat", sc_genai_openai_chat(exporter, fake, provider))
        v2.uninstrument()
    finally:
        fake.close()

    # Reference views and ground truth
    expected: dict[str, Any] = {}
    lines = []
    for fn, name in produced:
        report = write_reference(out, fn)
        if fn.endswith(".pb"):
            continue
        check_values_present(out, fn, name)
        expected[fn] = TRUTH[name]
        lines.append(compare(fn, name, report))
    write_text(out / "expected.json", json.dumps(expected, indent=2, ensure_ascii=False) + "\n")
    write_notice(out, produced)

    with tempfile.TemporaryDirectory() as tmp:
        detected = check_planted_values(pathlib.Path(tmp))

    print("planted values (alone, as a tool_call event) -> agentleak finding types:")
    for v, k in detected.items():
        print(f"  {v:34s} {k}")
    print("reference report vs expected.json (sink channels with findings):")
    print("\n".join(lines))
    print(f"wrote {len(produced)} span files + reference/ + expected.json into {out} "
          f"in {time.monotonic() - T0:.1f} s (agentleak {agentleak.__version__})")


if __name__ == "__main__":
    main()
