// The malformed-input test set (issue 6): traces, config files and reports
// that are broken, oddly shaped, or merely huge, each with the outcome the
// core must give. Both the CLI test (`cli.test.mjs`) and the viewer's
// end-to-end tests read this list, so the expectations are the message
// parts the core itself produces:
//
//   { valid: false, where: 'substring of the place', what: 'substring of the problem' }
//   { valid: true, check?: (report) => string | null }
//
// `check` looks at the outcome and returns what is wrong, or null: for a
// trace or config case the report written, for a report case the record
// `agentrisk score --json` prints for it. `viewer`, where given, is the
// outcome in the viewer, which tells traces and reports apart by content. Every file is generated here (big
// ones on the fly; those carry `huge: true` and get a longer timeout), so
// the repository holds no big files. `kind: 'config'` cases are config
// files used with `configTrace`; `kind: 'report'` cases are read as
// AgentLeak reports (`agentrisk score`).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
/** A report the reference wrote (a small fixture of the repository). */
export const REFERENCE_REPORT = join(HERE, '../fixtures/conformance/cases/ex_healthcare_trace/report.default.json');

const utf8 = (text) => Buffer.from(text, 'utf8');
const json = (value) => utf8(JSON.stringify(value));

// A deliberately tiny "JSON writer" for nesting that JSON.stringify would
// refuse (it recurses) or that must not be built as an object at all.
const nested = (depth, open, inner, close) => open.repeat(depth) + inner + close.repeat(depth);

/** A small valid trace whose e-mail address and SSN leak to the final output. */
export const configTrace = {
  name: 'config-trace.json',
  bytes: () =>
    json({
      run_id: 'malformed_config_trace',
      events: [
        {
          event_id: 'e1',
          channel: 'user_input',
          source: 'user',
          target: 'agent',
          content: 'My email is jane.doe@example.com and my SSN is 123-45-6789.',
        },
        {
          event_id: 'e2',
          channel: 'final_output',
          source: 'agent',
          target: 'user',
          content: 'Done: wrote to jane.doe@example.com about SSN 123-45-6789.',
        },
      ],
    }),
};

/** The report check for "this trace parsed into a report with n events". */
const events = (n) => (report) => (report.event_count === n ? null : `event_count ${report.event_count}, expected ${n}`);

/** A finding of this data type is in the report. */
const finding = (dataType) => (report) =>
  (report.findings ?? []).some((f) => f.data_type === dataType)
    ? null
    : `no ${dataType} finding (found: ${[...new Set((report.findings ?? []).map((f) => f.data_type))].join(', ')})`;

const all = (...checks) => (report) => checks.map((c) => c(report)).find((m) => m) ?? null;

const LEAK = 'Contact jane.doe@example.com';
const leakEvent = (content) => ({ channel: 'final_output', source: 'agent', target: 'user', content });

/** A trace of one final-output event with `content` written as raw JSON text. */
const rawContentTrace = (contentJson, runId = 'malformed') =>
  utf8(`{"run_id": "${runId}", "events": [{"channel": "final_output", "content": ${contentJson}}]}`);

function utf16(text, { bom, bigEndian }) {
  const le = Buffer.from(text, 'utf16le');
  const body = bigEndian ? Buffer.from(le).swap16() : le;
  const mark = bigEndian ? Buffer.from([0xfe, 0xff]) : Buffer.from([0xff, 0xfe]);
  return bom ? Buffer.concat([mark, body]) : body;
}

const SMALL_TRACE = JSON.stringify({ run_id: 'small', events: [leakEvent(LEAK)] });

/** An OTLP/JSON request of `spans` (each `[name, kind, {key: string value}]`), one trace, parents first. */
const otlp = (spans) =>
  json({
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: spans.map(([name, kind, attrs], i) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: String(i + 1).padStart(16, '0'),
              parentSpanId: i === 0 ? '' : '0000000000000001',
              name,
              startTimeUnixNano: String(1_000 + i),
              endTimeUnixNano: String(2_000 - i),
              attributes: Object.entries({ 'openinference.span.kind': kind, ...attrs }).map(([key, v]) => ({
                key,
                value: { stringValue: v },
              })),
            })),
          },
        ],
      },
    ],
  });

export const cases = [
  // ---- invalid JSON -------------------------------------------------------
  {
    name: 'truncated inside a string',
    file: 'truncated.json',
    kind: 'trace',
    bytes: () => utf8('{"run_id": "t", "events": [{"channel": "log", "content": "half a sen'),
    expect: { valid: false, where: 'line 1, column 58', what: 'invalid JSON: this string is never closed' },
  },
  {
    name: 'truncated after a comma',
    file: 'truncated-comma.json',
    kind: 'trace',
    bytes: () => utf8('{"run_id": "t",\n "events": [{"channel": "log"},\n'),
    expect: { valid: false, where: 'line 3, column 1', what: 'invalid JSON: expected a value' },
  },
  {
    name: 'trailing garbage',
    file: 'trailing-garbage.json',
    kind: 'trace',
    bytes: () => utf8(`${SMALL_TRACE}\n}{oops`),
    expect: { valid: false, where: 'line 2, column 1', what: 'unexpected text after the end of the JSON value' },
  },
  {
    name: 'single quotes',
    file: 'single-quotes.json',
    kind: 'trace',
    bytes: () => utf8("{'run_id': 'r', 'events': []}"),
    expect: { valid: false, where: 'line 1, column 2', what: 'expected an object key in double quotes' },
  },
  {
    name: 'empty file',
    file: 'empty.json',
    kind: 'trace',
    bytes: () => Buffer.alloc(0),
    expect: { valid: false, where: 'line 1, column 1', what: 'the file is empty' },
  },
  {
    name: 'invalid UTF-8 (a Latin-1 byte)',
    file: 'invalid-utf8.json',
    kind: 'trace',
    bytes: () => Buffer.concat([utf8('{"run_id": "r",\n "events": [{"channel": "log", "content": "caf'), Buffer.from([0xe9]), utf8('"}]}')]),
    expect: { valid: false, where: 'line 2, column 47', what: 'the file is not valid UTF-8 text' },
  },
  {
    name: 'UTF-16 LE with BOM',
    file: 'utf16le-bom.json',
    kind: 'trace',
    bytes: () => utf16(SMALL_TRACE, { bom: true, bigEndian: false }),
    expect: { valid: false, where: 'line 1, column 1', what: 'the file is UTF-16 text, not UTF-8' },
  },
  {
    name: 'UTF-16 BE with BOM',
    file: 'utf16be-bom.json',
    kind: 'trace',
    bytes: () => utf16(SMALL_TRACE, { bom: true, bigEndian: true }),
    expect: { valid: false, where: 'line 1, column 1', what: 'the file is UTF-16 text, not UTF-8' },
  },
  {
    name: 'UTF-16 LE without BOM',
    file: 'utf16le-nobom.json',
    kind: 'trace',
    bytes: () => utf16(SMALL_TRACE, { bom: false, bigEndian: false }),
    expect: { valid: false, where: 'line 1, column 1', what: 'the file is UTF-16 text, not UTF-8' },
  },
  {
    name: 'UTF-16 BE without BOM',
    file: 'utf16be-nobom.json',
    kind: 'trace',
    bytes: () => utf16(SMALL_TRACE, { bom: false, bigEndian: true }),
    expect: { valid: false, where: 'line 1, column 1', what: 'the file is UTF-16 text, not UTF-8' },
  },
  {
    // The reference rejects a BOM (edge_json_bom); we skip it on purpose.
    name: 'UTF-8 BOM (accepted)',
    file: 'utf8-bom.json',
    kind: 'trace',
    bytes: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(SMALL_TRACE)]),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },

  // ---- valid JSON, wrong shape ---------------------------------------------
  {
    name: 'array at top level',
    file: 'top-level-array.json',
    kind: 'trace',
    bytes: () => json([leakEvent(LEAK)]),
    expect: { valid: false, where: 'top level', what: 'must be a JSON object with an "events" array, but the file holds an array of 1 item' },
  },
  {
    name: 'events is an object',
    file: 'events-object.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: { e1: leakEvent(LEAK) } }),
    expect: { valid: false, where: 'events', what: 'expected an array of event objects, found an object with 1 key' },
  },
  {
    name: 'events is a number',
    file: 'events-number.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: 3 }),
    expect: { valid: false, where: 'events', what: 'expected an array of event objects, found the number 3' },
  },
  {
    // A bare number as content fails pydantic in the reference (edge_content_number).
    name: 'content is a number',
    file: 'content-number.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: [leakEvent('ok'), leakEvent(4111111111111111)] }),
    expect: { valid: false, where: 'events[1].content', what: 'expected a string, an object or an array, found the number 4111111111111111' },
  },
  {
    // Inside an object any scalar is fine and flattened with Python's str().
    name: 'number inside object content (valid, flattened)',
    file: 'content-number-in-object.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: [leakEvent({ card_number: 4111111111111111, contact: 'jane.doe@example.com' })] }),
    expect: { valid: true, check: all(events(1), finding('credit_card'), finding('email')) },
  },
  {
    name: 'unknown channel',
    file: 'unknown-channel.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: [leakEvent('a'), { channel: 'telepathy', content: 'b' }] }),
    expect: { valid: false, where: 'events[1].channel', what: 'unknown channel the string "telepathy"' },
  },
  {
    name: 'missing channel',
    file: 'missing-channel.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r', events: [leakEvent('a'), leakEvent('b'), { content: 'no channel' }] }),
    expect: { valid: false, where: 'events[2].channel', what: 'missing; every event needs a channel' },
  },

  // ---- nesting -------------------------------------------------------------
  {
    // The reference accepts a few hundred levels (edge_deep_nesting: 200), more
    // than serde_json's default of 128.
    name: 'content nested 600 levels (valid)',
    file: 'deep-600.json',
    kind: 'trace',
    bytes: () => rawContentTrace(nested(300, '{"contact": [', '"jane.doe@example.com"', ']}')),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    // Python's json stops at its recursion limit near 1 000 levels
    // (RecursionError, a crash); we read up to 20 000 and refuse deeper
    // with the place.
    name: 'content nested 100 000 levels',
    file: 'deep-content.json',
    kind: 'trace',
    bytes: () => rawContentTrace(nested(100_000, '[', '"x"', ']')),
    expect: { valid: false, where: 'line 1, column 20072', what: 'nests arrays and objects more than 20000 levels deep' },
  },
  {
    name: 'top level nested 100 000 levels',
    file: 'deep-top-level.json',
    kind: 'trace',
    bytes: () => utf8(nested(100_000, '{"a": ', '1', '}')),
    expect: { valid: false, where: 'line 1, column 120001', what: 'nests arrays and objects more than 20000 levels deep' },
  },
  {
    name: 'top-level metadata nested 100 000 levels',
    file: 'deep-metadata.json',
    kind: 'trace',
    bytes: () => utf8(`{"run_id": "r", "metadata": ${nested(100_000, '{"m": ', 'null', '}')}, "events": []}`),
    expect: { valid: false, where: 'line 1, column 120023', what: 'more than 20000 levels deep' },
  },
  {
    // Deeper than the reference reads anything, but within our bound.
    name: 'content nested 10 000 levels (valid)',
    file: 'deep-10000.json',
    kind: 'trace',
    bytes: () => rawContentTrace(nested(5_000, '{"contact": [', '"jane.doe@example.com"', ']}')),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    // Only the first levels of the top-level metadata are kept (it holds the
    // run's red-team fields); deeper containers are read, then dropped.
    name: 'top-level metadata nested 2 000 levels (valid)',
    file: 'deep-metadata-2000.json',
    kind: 'trace',
    bytes: () => utf8(`{"run_id": "r", "metadata": ${nested(2_000, '{"m": ', 'null', '}')}, "events": []}`),
    expect: { valid: true, check: events(0) },
  },

  // ---- size ----------------------------------------------------------------
  {
    name: 'one 50 MB string (valid)',
    file: 'huge-string.json',
    kind: 'trace',
    huge: true,
    bytes: () => {
      const filler = 'lorem ipsum dolor sit amet '.repeat(Math.ceil((50 * 1024 * 1024) / 27));
      return rawContentTrace(JSON.stringify(`${filler.slice(0, 25 * 1024 * 1024)} ${LEAK} ${filler.slice(0, 25 * 1024 * 1024)}`));
    },
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    name: '1 000 000 tiny events (valid)',
    file: 'million-events.json',
    kind: 'trace',
    huge: true,
    bytes: () => {
      const tiny = '{"channel":"log","content":"ok"}';
      const parts = ['{"run_id": "million", "events": ['];
      for (let i = 0; i < 1_000_000; i += 10_000) {
        parts.push(Array(10_000).fill(tiny).join(','), i + 10_000 < 1_000_000 ? ',' : '');
      }
      parts.push(`, ${JSON.stringify(leakEvent(LEAK))}]}`);
      return utf8(parts.join(''));
    },
    expect: { valid: true, check: all(events(1_000_001), finding('email')) },
  },
  {
    name: '100 000 keys in one object (valid)',
    file: 'many-keys.json',
    kind: 'trace',
    huge: true,
    bytes: () => {
      const entries = [];
      for (let i = 0; i < 100_000; i++) entries.push(`"k${i}": ${i}`);
      entries.push('"contact": "jane.doe@example.com"');
      return rawContentTrace(`{${entries.join(', ')}}`);
    },
    expect: { valid: true, check: all(events(1), finding('email')) },
  },

  {
    // The reference names its report <run_id>.json and fails to write a name
    // over 255 bytes; we cut the file name (the report keeps the whole id).
    name: 'run_id of 100 000 characters (valid)',
    file: 'long-run-id.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'r'.repeat(100_000), events: [leakEvent(LEAK)] }),
    expect: { valid: true, check: (r) => (r.run_id.length === 100_000 ? null : `run_id of ${r.run_id.length} characters`) },
  },

  // ---- numbers ---------------------------------------------------------------
  {
    // Python ints keep every digit; 16 digits flattened intact still read as a card.
    name: 'arbitrary-precision integer (valid)',
    file: 'big-int.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`{"big": 123456789012345678901234567890123456789, "card": 4111111111111111, "contact": "jane.doe@example.com"}`),
    expect: { valid: true, check: all(events(1), finding('credit_card')) },
  },
  {
    name: 'integer longer than 4300 digits',
    file: 'int-4301-digits.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`{"n": ${'7'.repeat(4301)}}`),
    expect: { valid: false, where: 'line 1, column 81', what: 'an integer with 4301 digits is longer than the 4300 digits Python accepts' },
  },
  {
    name: '1e400 and -1e400 (valid, infinities)',
    file: 'float-overflow.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`{"big": 1e400, "small": -1e400, "tiny": 1e-400, "contact": "jane.doe@example.com"}`),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    name: 'NaN and Infinity literals (valid)',
    file: 'nan-infinity.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`[NaN, Infinity, -Infinity, "jane.doe@example.com"]`),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    name: 'lowercase nan is not JSON',
    file: 'nan-lowercase.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`[nan]`),
    expect: { valid: false, where: 'line 1, column 76', what: 'invalid JSON: expected a value' },
  },

  // ---- strings ---------------------------------------------------------------
  {
    // edge_lone_surrogate: accepted, and it never reaches the report here.
    name: 'lone surrogate escape in content (valid)',
    file: 'lone-surrogate-content.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`"bad \\ud83d text, mail jane.doe@example.com"`),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },
  {
    // The reference crashes writing such a source into the report.
    name: 'lone surrogate escape in an event source',
    file: 'lone-surrogate-source.json',
    kind: 'trace',
    bytes: () => utf8(`{"events": [{"channel": "final_output", "source": "agent\\udc00", "content": "mail jane.doe@example.com"}]}`),
    expect: { valid: false, where: 'event evt_001, source', what: 'the report would contain an unpaired UTF-16 surrogate' },
  },
  {
    name: 'raw control character in a string',
    file: 'raw-control.json',
    kind: 'trace',
    bytes: () => utf8('{"events": [{"channel": "log", "content": "bell\u0007here"}]}'),
    expect: { valid: false, where: 'line 1, column 48', what: 'control character U+0007 must be escaped inside a string' },
  },
  {
    name: 'raw newline in a string',
    file: 'raw-newline.json',
    kind: 'trace',
    bytes: () => utf8('{"events": [{"channel": "log",\n  "content": "two\nlines"}]}'),
    expect: { valid: false, where: 'line 2, column 18', what: 'control character U+000A must be escaped inside a string' },
  },
  {
    name: 'escaped control characters (valid)',
    file: 'escaped-control.json',
    kind: 'trace',
    bytes: () => rawContentTrace(`"tab\\there\\nnew line \\u0007 bell \\u0000 nul, mail jane.doe@example.com"`),
    expect: { valid: true, check: all(events(1), finding('email')) },
  },

  // ---- config files (used with configTrace) -----------------------------------
  {
    // The trace leaks an L4 SSN and an e-mail address: WSL 4 + 2 > 4.
    name: 'explicit vault smaller than the leaks',
    file: 'vault-undersized.yaml',
    kind: 'config',
    bytes: () => utf8('vault:\n  levels: {"4": 1}\n'),
    expect: { valid: false, where: 'vault', what: 'explicit vault is undersized: WSL = 6 > rho_s = 4' },
  },
  {
    name: 'explicit vault with a negative count',
    file: 'vault-negative.yaml',
    kind: 'config',
    bytes: () => utf8('vault:\n  levels:\n    2: 5\n    4: -3\n'),
    expect: { valid: false, where: 'vault.levels.4', what: 'the count -3 is negative' },
  },
  {
    name: 'explicit vault with a negative rho_s',
    file: 'vault-negative-rho.yaml',
    kind: 'config',
    bytes: () => utf8('vault:\n  rho_s: -10\n'),
    expect: { valid: false, where: 'vault.rho_s', what: '-10 is negative' },
  },
  {
    name: 'explicit vault large enough (valid)',
    file: 'vault-ok.yaml',
    kind: 'config',
    bytes: () => utf8('vault:\n  levels: {1: 10, 2: 10, 3: 10, 4: 10}\n'),
    expect: { valid: true, check: (r) => (r.rho_s === 100 ? null : `rho_s ${r.rho_s}, expected 100`) },
  },
  {
    name: 'weights with a zero',
    file: 'weights-zero.yaml',
    kind: 'config',
    bytes: () => utf8('scoring:\n  weights: [1, 0, 3, 4]\n'),
    expect: { valid: false, where: 'scoring.weights', what: 'four strictly positive integers are needed for L1..L4 (each at most 1000000000), got [1, 0, 3, 4]' },
  },
  {
    name: 'weights with a negative',
    file: 'weights-negative.yaml',
    kind: 'config',
    bytes: () => utf8('scoring:\n  weights: [1, 2, -3, 4]\n'),
    expect: { valid: false, where: 'scoring.weights', what: 'four strictly positive integers are needed for L1..L4 (each at most 1000000000), got [1, 2, -3, 4]' },
  },
  {
    name: 'five weights',
    file: 'weights-five.yaml',
    kind: 'config',
    bytes: () => utf8('scoring:\n  weights: [1, 2, 3, 4, 5]\n'),
    expect: { valid: false, where: 'scoring.weights', what: 'four strictly positive integers are needed for L1..L4 (each at most 1000000000), got [1, 2, 3, 4, 5]' },
  },
  {
    name: 'a weight over the bound',
    file: 'weights-huge.yaml',
    kind: 'config',
    bytes: () => utf8('scoring:\n  weights: [1, 2, 3, 10000000000]\n'),
    expect: { valid: false, where: 'scoring.weights', what: 'each at most 1000000000' },
  },
  {
    // Python's integers would hold the weighted sum; ours must not wrap.
    name: 'vault counts whose weighted sum overflows 64 bits',
    file: 'vault-overflow.yaml',
    kind: 'config',
    bytes: () => utf8('vault:\n  levels: {4: 9223372036854775807}\n'),
    expect: { valid: false, where: 'vault.levels', what: 'the counts are too large' },
  },
  {
    // The reference fails when its runner starts; we refuse before any trace.
    name: 'custom detector with an invalid regex',
    file: 'custom-bad-regex.yaml',
    kind: 'config',
    bytes: () => utf8("custom_detectors:\n  - name: ticket\n    pattern: 'TK-(\\d+'\n"),
    expect: { valid: false, where: 'custom detector "ticket"', what: 'invalid pattern' },
  },
  {
    name: 'unknown detection mode',
    file: 'detection-mode.yaml',
    kind: 'config',
    bytes: () => utf8('detection:\n  mode: turbo\n'),
    expect: { valid: false, where: 'detection.mode', what: 'unknown mode "turbo"' },
  },
  {
    name: 'YAML alias bomb (billion laughs)',
    file: 'billion-laughs.yaml',
    kind: 'config',
    bytes: () => {
      const lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
      for (let i = 1; i <= 9; i++) {
        lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(', ')}]`);
      }
      return utf8(`${lines.join('\n')}\n`);
    },
    expect: { valid: false, where: 'line 5, column 53', what: 'the YAML expands to more than 100000 values once its aliases' },
  },
  {
    name: 'a list at the top level',
    file: 'top-level-list.yaml',
    kind: 'config',
    bytes: () => utf8('- scoring\n- vault\n'),
    expect: { valid: false, where: 'top level', what: 'must be a YAML mapping of sections' },
  },
  {
    name: 'a plain string at the top level',
    file: 'top-level-string.yaml',
    kind: 'config',
    bytes: () => utf8('just some words\n'),
    expect: { valid: false, where: 'top level', what: 'must be a YAML mapping of sections' },
  },
  {
    name: 'YAML syntax error',
    file: 'syntax-error.yaml',
    kind: 'config',
    bytes: () => utf8('scoring:\n  weights: [1, 2\nvault: {\n'),
    expect: { valid: false, where: 'line 3, column 6', what: 'YAML syntax error' },
  },
  {
    name: 'YAML nested 100 000 levels',
    file: 'deep.yaml',
    kind: 'config',
    bytes: () => utf8(`x: ${nested(100_000, '[', '1', ']')}\n`),
    expect: { valid: false, where: 'line 1, column 259', what: 'recursion limit exceeded' },
  },
  {
    name: 'config that is not UTF-8',
    file: 'latin1.yaml',
    kind: 'config',
    bytes: () => Buffer.concat([utf8('project:\n  name: caf'), Buffer.from([0xe9]), utf8('\n')]),
    expect: { valid: false, where: 'line 2, column 12', what: 'the file is not valid UTF-8 text' },
  },

  // ---- reports (agentrisk score) ----------------------------------------------
  {
    // A stored count near 2^64 must not wrap when the report is re-scored.
    name: 'report with absurd level counts (valid, inconsistent)',
    file: 'report-huge-counts.json',
    kind: 'report',
    bytes: () =>
      utf8(
        readFileSync(REFERENCE_REPORT, 'utf8').replace(/"level_profile": \{\s*"L1": \d+/, '"level_profile": {"L1": 18446744073709551615'),
      ),
    expect: { valid: true, check: (record) => (record.consistent === false ? null : 'expected the report to be inconsistent') },
  },
  {
    name: 'truncated report',
    file: 'report-truncated.json',
    kind: 'report',
    bytes: () => utf8('{"report": "agentleak", "version": 2, "run_id": "r", "risk_'),
    expect: { valid: false, where: 'line 1, column 59', what: 'EOF while parsing a string' },
  },
  {
    name: 'a trace given as a report',
    file: 'report-is-trace.json',
    kind: 'report',
    bytes: () => utf8(SMALL_TRACE),
    // The viewer tells files apart by content, so it reads this as a trace.
    viewer: { valid: true },
    expect: { valid: false, where: 'top level', what: 'not an AgentLeak report: this is an AgentLeak trace' },
  },
  {
    name: 'an array given as a report',
    file: 'report-array.json',
    kind: 'report',
    bytes: () => utf8('[{"report": "agentleak"}]'),
    // The viewer tells files apart by content, so it reads this as a trace.
    viewer: { valid: false, where: 'top level', what: 'a trace must be a JSON object with an "events" array, but the file holds an array' },
    expect: { valid: false, where: 'top level', what: 'expected a JSON object at the top level, found an array' },
  },
  {
    name: 'report in UTF-16',
    file: 'report-utf16.json',
    kind: 'report',
    bytes: () => utf16('{"report": "agentleak", "version": 2}', { bom: true, bigEndian: false }),
    // The viewer tells files apart by content, so it reads this as a trace.
    viewer: { valid: false, where: 'line 1, column 1', what: 'the file is UTF-16 text, not UTF-8' },
    expect: { valid: false, where: 'byte 0', what: 'the file is UTF-16 text, not UTF-8' },
  },
  {
    name: 'report nested 100 000 levels',
    file: 'report-deep.json',
    kind: 'report',
    bytes: () => utf8(`{"report": "agentleak", "version": 2, "metadata": ${nested(100_000, '[', '1', ']')}}`),
    expect: { valid: false, where: 'line 1, column 177', what: 'recursion limit exceeded' },
  },
  // ---- OpenTelemetry span exports ------------------------------------------
  {
    name: 'binary OTLP (protobuf)',
    file: 'spans.otlp.pb',
    kind: 'trace',
    bytes: () => Buffer.from([0x0a, 0x8f, 0x02, 0x0a, 0x12, 0x00, 0x01, 0x0a, 0x0c, 0x73, 0x65, 0x72, 0x76, 0x69, 0x63, 0x65]),
    expect: { valid: false, where: 'binary OTLP', what: 'export OTLP JSON instead' },
  },
  {
    name: 'an OTLP export with no spans',
    file: 'spans-none.otlp.json',
    kind: 'trace',
    bytes: () => json({ resourceSpans: [{ scopeSpans: [{ scope: { name: 'x' }, spans: [] }] }] }),
    expect: { valid: false, where: 'no spans', what: 'nothing was analysed' },
  },
  {
    name: 'resourceSpans is not a list',
    file: 'spans-resource-string.otlp.json',
    kind: 'trace',
    bytes: () => json({ resourceSpans: 'all of them' }),
    expect: { valid: false, where: 'resourceSpans', what: 'expected a list, found a string' },
  },
  {
    name: 'a span list with a number for a span',
    file: 'spans-number.spans.json',
    kind: 'trace',
    bytes: () => json([{ name: 'a', context: { trace_id: '0x1', span_id: '0x2' }, attributes: {} }, 5]),
    expect: { valid: false, where: 'span 1', what: 'expected an object, found a number' },
  },
  {
    name: 'OTLP JSON Lines with a broken second line',
    file: 'spans-broken.otlp.jsonl',
    kind: 'trace',
    bytes: () => utf8(`${otlp([['agent', 'CHAIN', { 'input.value': 'hi' }]]).toString()}\n{"resourceSpans": [}\n`),
    expect: { valid: false, where: 'line 2, column 20', what: 'invalid JSON' },
  },
  {
    name: 'a span attribute nested 100 000 levels deep',
    file: 'spans-deep.otlp.json',
    kind: 'trace',
    bytes: () =>
      utf8(`{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x", "attributes": [{"key": "input.value", "value": ${nested(100_000, '{"arrayValue": {"values": [', '{"stringValue": "x"}', ']}}')}}]}]}]}]}`),
    expect: { valid: false, where: 'line 1, column', what: 'levels deep' },
  },
  {
    name: 'an agent run as OTLP JSON: the SSN in the tool arguments is found on tool_call',
    file: 'spans-leak.otlp.json',
    kind: 'trace',
    bytes: () =>
      otlp([
        ['agent', 'CHAIN', { 'input.value': 'Find my record', 'output.value': 'Done.' }],
        ['lookup', 'TOOL', { 'tool.name': 'lookup', 'tool.parameters': '{"type": "object"}', 'input.value': '{"ssn": "123-45-6789"}' }],
      ]),
    expect: {
      valid: true,
      check: all(events(3), (r) =>
        r.findings.some((f) => f.channel === 'tool_call' && f.data_type === 'ssn') && r.span_source?.mapping === 'structural'
          ? null
          : `no ssn finding on tool_call from the structural mapping: ${JSON.stringify(r.findings.map((f) => [f.channel, f.data_type]))}`),
    },
  },
  {
    name: 'a trace with no events: the Pass the reference gives, and a warning',
    file: 'no-events.json',
    kind: 'trace',
    bytes: () => json({ run_id: 'empty', events: [] }),
    expect: { valid: true, check: all(events(0), (r) => (r.verdict === 'Pass' ? null : `verdict ${r.verdict}`)) },
  },
  {
    name: '60 000 spans as OTLP JSON Lines (about 34 MB)',
    file: 'spans-many.otlp.jsonl',
    kind: 'trace',
    huge: true,
    bytes: () => {
      const line = (i) =>
        `{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "${String(i + 2).padStart(16, '0')}", "parentSpanId": "0000000000000001", "name": "lookup", "startTimeUnixNano": "${1000 + i}", "endTimeUnixNano": "${1001 + i}", "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "TOOL"}}, {"key": "tool.name", "value": {"stringValue": "lookup"}}, {"key": "input.value", "value": {"stringValue": "{\\"customer\\": ${i}, \\"email\\": \\"user${i % 1000}@example.com\\"}"}}, {"key": "output.value", "value": {"stringValue": "record ${i} found"}}]}]}]}]}`;
      const lines = [otlp([['agent', 'CHAIN', { 'input.value': 'go', 'output.value': 'Done.' }]]).toString()];
      for (let i = 0; i < 60_000; i++) lines.push(line(i));
      return utf8(lines.join('\n') + '\n');
    },
    expect: { valid: true, check: all(events(120_002), finding('email')) },
  },
];

/** Writes every case's file (and the config trace) into `dir`; returns `dir`. */
export function writeCases(dir, { only } = {}) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, configTrace.name), configTrace.bytes());
  for (const c of cases) {
    if (only && !only(c)) continue;
    writeFileSync(join(dir, c.file), c.bytes());
  }
  return dir;
}
