// Runs every malformed-input case (cases.mjs) through the release
// `agentrisk` binary under a memory limit and a timeout: a bad file exits 2
// and says `agentrisk: FILE: where: what`; a valid one gets a real report.
// Build first: cargo build --release -p agentrisk-cli.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cases, configTrace, writeCases } from './cases.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.AGENTRISK_BIN ?? join(ROOT, 'target/release/agentrisk');
/** Virtual memory bound, KiB (`ulimit -v`): a runaway allocation aborts instead of swapping. */
const MEMORY_KB = 3_000_000;
const SMALL_TIMEOUT_MS = 10_000;
const HUGE_TIMEOUT_MS = 60_000;

const dir = mkdtempSync(join(tmpdir(), 'agentrisk-malformed-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

/** Runs the binary in `cwd` with bounded memory and time. */
function agentrisk(args, { cwd, timeout }) {
  const result = spawnSync('bash', ['-c', `ulimit -v ${MEMORY_KB}; exec "$0" "$@"`, BIN, ...args], {
    cwd,
    encoding: 'utf8',
    timeout,
    maxBuffer: 64 * 1024 * 1024,
  });
  assert.equal(result.error, undefined, `agentrisk ${args.join(' ')} did not finish: ${result.error}`);
  return result;
}

function assertNoCrash(stderr) {
  for (const sign of ['panicked', 'RUST_BACKTRACE', 'stack overflow', 'memory allocation', 'fatal runtime error']) {
    assert.ok(!stderr.includes(sign), `stderr shows a crash (${sign}):\n${stderr.slice(0, 2000)}`);
  }
}

function assertError(result, c) {
  assertNoCrash(result.stderr);
  assert.equal(result.status, 2, `exit status (signal ${result.signal}); stderr:\n${result.stderr.slice(0, 2000)}`);
  const line = result.stderr.split('\n').find((l) => l.startsWith(`agentrisk: ${c.file}: `));
  assert.ok(line, `no line "agentrisk: ${c.file}: …" in stderr:\n${result.stderr.slice(0, 2000)}`);
  assert.ok(line.includes(c.expect.where), `the place ${JSON.stringify(c.expect.where)} is not in:\n${line}`);
  assert.ok(line.includes(c.expect.what), `the problem ${JSON.stringify(c.expect.what)} is not in:\n${line}`);
  assert.ok(line.indexOf(c.expect.where) < line.indexOf(c.expect.what) || c.expect.what.includes(c.expect.where), `the place comes before the problem:\n${line}`);
}

test('the release binary is built', () => {
  assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release -p agentrisk-cli`);
});

writeCases(dir);

for (const c of cases) {
  const timeout = c.huge ? HUGE_TIMEOUT_MS : SMALL_TIMEOUT_MS;
  test(`${c.kind}: ${c.name}`, { skip: !existsSync(BIN) && 'no binary' }, () => {
    const out = mkdtempSync(join(dir, 'out-'));
    let args;
    if (c.kind === 'trace') args = ['run', '-t', c.file, '-o', out, '-q'];
    else if (c.kind === 'config') args = ['run', '-t', configTrace.name, '-c', c.file, '-o', out, '-q'];
    else args = ['score', '--json', c.file];
    const result = agentrisk(args, { cwd: dir, timeout });
    if (!c.expect.valid) {
      assertError(result, c);
      if (c.kind !== 'report') assert.deepEqual(readdirSync(out), [], 'no report is written for a bad input');
      return;
    }
    assertNoCrash(result.stderr);
    assert.ok([0, 1].includes(result.status), `exit status ${result.status} (signal ${result.signal}); stderr:\n${result.stderr.slice(0, 2000)}`);
    let value;
    if (c.kind === 'report') {
      const records = JSON.parse(result.stdout);
      assert.equal(records.length, 1);
      value = records[0];
    } else {
      const written = readdirSync(out);
      assert.equal(written.length, 1, `one report is written, got ${written}`);
      value = JSON.parse(readFileSync(join(out, written[0]), 'utf8'));
      assert.equal(value.report, 'agentleak');
      assert.equal(result.status, value.blocked ? 1 : 0, 'the exit status follows the gate');
    }
    const problem = c.expect.check?.(value) ?? null;
    assert.equal(problem, null, problem);
  });
}

test('batch: bad files are named, good ones counted', { skip: !existsSync(BIN) && 'no binary' }, () => {
  const folder = join(dir, 'batch');
  mkdirSync(folder);
  const pick = ['truncated.json', 'utf16le-bom.json', 'deep-content.json', 'top-level-array.json', 'utf8-bom.json', 'big-int.json'];
  for (const file of pick) writeFileSync(join(folder, file), readFileSync(join(dir, file)));
  writeFileSync(join(folder, configTrace.name), configTrace.bytes());
  const result = agentrisk(['batch', 'batch', '--json'], { cwd: dir, timeout: SMALL_TIMEOUT_MS });
  assertNoCrash(result.stderr);
  assert.equal(result.status, 2, result.stderr);
  for (const file of ['truncated.json', 'utf16le-bom.json', 'deep-content.json', 'top-level-array.json']) {
    const c = cases.find((x) => x.file === file);
    const line = result.stderr.split('\n').find((l) => l.startsWith(`agentrisk: ${join('batch', file)}: `));
    assert.ok(line, `${file} is not named:\n${result.stderr}`);
    assert.ok(line.includes(c.expect.where) && line.includes(c.expect.what), `${file}: ${line}`);
  }
  for (const file of ['utf8-bom.json', 'big-int.json', configTrace.name]) {
    assert.ok(!result.stderr.includes(file), `${file} is valid and must not be named:\n${result.stderr}`);
  }
  const summary = JSON.parse(result.stdout);
  assert.equal(summary.runs, 3, 'the three good traces are counted');
});
