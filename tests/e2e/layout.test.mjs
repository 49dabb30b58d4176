// Layout at the common laptop widths, with runs loaded: no tab makes the
// page wider than the window, identifiers from files wrap only after their
// separators, and chart text shows at 12 CSS pixels or more on both chart
// backends (SVG for small heatmaps, <canvas> for large ones). In the run
// table at 1366 px no run id or file name wraps at all.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { dropFiles } from "./chromium.mjs";
import { cases, openViewer, outDir, serveViewer, traceOf } from "./fixture.mjs";

/** Fixture traces in name order; their run ids are long (`trace_agentleak_cor_00833`). */
const traceCases = readdirSync(cases).filter((n) => existsSync(join(cases, n, "trace.json"))).sort();

const VIEWPORTS = [{ width: 1366, height: 900 }, { width: 1024, height: 768 }];
/** The smallest chart text allowed, in CSS pixels at 100 % zoom. */
const MIN_TEXT_PX = 12;

serveViewer("agentrisk-layout-");

/** The bundled sample reports and example traces, and `extra` fixture traces with long ids. */
async function loadSamples(page, extra) {
  await page.click("#load-example");
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 6);
  await page.click("#load-example-traces");
  await page.waitForFunction(() => document.querySelectorAll("tr.run-row").length === 16);
  await dropFiles(page, extra.map((name) => ({ name: `${name}.json`, text: traceOf(name) })));
  const total = 16 + extra.length;
  await page.waitForFunction((n) => document.querySelectorAll("tr.run-row, tr.error-row").length === n, total, { timeout: 120_000 });
  return page.$$eval("tr.run-row", (rows) => rows.length);
}

/** How far the page is wider than the window, and what sticks out (for the message). */
function overflow(page) {
  return page.evaluate(() => {
    const doc = document.documentElement;
    const limit = doc.clientWidth;
    const wide = [...document.querySelectorAll("body *")]
      .filter((e) => e.getBoundingClientRect().right > limit + 0.5)
      // The outermost culprits only.
      .filter((e) => !(e.parentElement && e.parentElement.getBoundingClientRect().right > limit + 0.5))
      .slice(0, 5)
      .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${[...e.classList].join(".")} right=${Math.round(e.getBoundingClientRect().right)}`);
    return { scrollWidth: doc.scrollWidth, clientWidth: limit, wide };
  });
}

async function assertFits(page, where) {
  const o = await overflow(page);
  assert.ok(o.scrollWidth <= o.clientWidth, `${where}: the page is ${o.scrollWidth} px wide in a ${o.clientWidth} px window; sticking out: ${o.wide.join("; ")}`);
}

async function showTab(page, id, ready) {
  await page.click(`#${id}`);
  await page.waitForSelector(ready);
  // Charts are drawn once their width is measured (after the first render).
  await page.waitForTimeout(100);
}

/**
 * For each identifier cell: where its lines break, as the character before
 * each break. Measured per character with Range.getClientRects, so it is the
 * layout the reader sees, not the markup.
 */
function lineBreaks(page, selector) {
  return page.$$eval(selector, (spans) => spans.map((span) => {
    const after = [];
    let previous = null;
    let previousTop = null;
    const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect) continue;
        if (previousTop !== null && rect.top > previousTop + 2) after.push(previous);
        previous = node.data[i];
        previousTop = rect.top;
      }
    }
    const style = getComputedStyle(span);
    return { text: span.textContent, after, overflowWrap: style.overflowWrap, wordBreak: style.wordBreak,
      wbr: [...span.childNodes].map((n) => (n.nodeName === "WBR" ? "|" : n.textContent)).join("") };
  }));
}

/** Every text of the SVG charts in `selector` with its size on screen (font size × the SVG's scale). */
function svgTextSizes(page, selector) {
  return page.$$eval(`${selector} svg:not(.hit) text`, (texts) => texts.map((t) => {
    const svg = t.ownerSVGElement;
    const drawn = svg.viewBox.baseVal?.width || svg.width.baseVal.value;
    const scale = svg.getBoundingClientRect().width / drawn;
    return { text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * scale };
  }));
}

test("with 40 runs loaded, no tab is wider than the window at 1366 and 1024 px, run ids and file names do not wrap at 1366 px and wrap only at separators at 1024 px, chart text is 12 px or more", async () => {
  const { page, errors } = await openViewer();
  // Long names on both sides of a separator: bench_agentleak_*, dojo_*__user_task_*.
  const extra = [...traceCases.filter((n) => n.startsWith("bench_")).slice(0, 12), ...traceCases.filter((n) => n.startsWith("dojo_")).slice(0, 12)];
  assert.equal(extra.length, 24);
  const runs = await loadSamples(page, extra);
  assert.ok(runs >= 36, `${runs} runs`);
  mkdirSync(outDir, { recursive: true });

  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    const at = `${viewport.width} px`;

    await showTab(page, "tab-runs", "tr.run-row");
    await assertFits(page, `Runs tab at ${at}`);
    // The run table itself fits too: no sideways scrolling to reach a run's check.
    const table = await page.$eval(".runs .table-wrap", (w) => [w.scrollWidth, w.clientWidth]);
    assert.ok(table[0] <= table[1], `${at}: the run table is ${table[0]} px wide in ${table[1]} px`);
    // Run ids and file names (the id above its file): a <wbr> after every
    // separator; at 1366 px not one of them wraps (a search finds each
    // whole), in a narrower window they break only there.
    const cells = await lineBreaks(page, "tr.run-row td.run-id .ident");
    assert.equal(cells.length, runs * 2);
    for (const c of cells) {
      assert.equal(c.wbr, c.text.replace(/([_\-/])(?!$)/g, "$1|"), c.text);
      assert.deepEqual([c.overflowWrap, c.wordBreak], ["normal", "normal"], c.text);
      if (viewport.width === 1366) assert.deepEqual(c.after, [], `${at}: "${c.text}" wraps`);
      for (const before of c.after) assert.match(before, /[_\-/\s]/, `${at}: "${c.text}" breaks after "${before}"`);
    }
    if (viewport.width === 1024) {
      // The check above did look at wrapped ids: some long names take two lines here.
      assert.ok(cells.some((c) => c.after.length > 0), "no identifier wrapped at 1024 px");
    }
    await page.screenshot({ path: join(outDir, `layout-runs-${viewport.width}.png`), fullPage: true });

    await page.click('tr.run-row[data-run-id="trace_agentleak_cor_00833"]');
    await page.waitForSelector('.run-detail[data-run-id="trace_agentleak_cor_00833"]');
    await assertFits(page, `run view at ${at}`);

    await showTab(page, "tab-batch", "#heat-run rect.cell");
    assert.equal(await page.getAttribute("#heat-run", "data-render"), "svg");
    await assertFits(page, `Batch tab at ${at}`);
    for (const chart of ["#heat-run", "#heat-level", "#forest"]) {
      const sizes = await svgTextSizes(page, chart);
      assert.ok(sizes.length >= 4, `${chart}: ${sizes.length} texts`);
      const small = sizes.filter((s) => s.px < MIN_TEXT_PX - 1e-6);
      assert.deepEqual(small, [], `${chart} at ${at}: text below ${MIN_TEXT_PX} px`);
    }
    // The batch table's ids wrap the same way.
    for (const c of await lineBreaks(page, "#batch-run-table .ident")) {
      for (const before of c.after) assert.match(before, /[_\-/\s]/, `${at}: "${c.text}" breaks after "${before}"`);
    }
    await page.screenshot({ path: join(outDir, `layout-batch-${viewport.width}.png`), fullPage: true });

    await showTab(page, "tab-compare", "#compare-a");
    const option = (name) => page.$eval("#compare-a", (s, name) => [...s.options].find((o) => o.textContent === `run ${name}`).value, name);
    await page.selectOption("#compare-a", await option(`${extra[0]}.json`));
    await page.selectOption("#compare-b", await option(`${extra[12]}.json`));
    await page.waitForSelector("#compare-deltas");
    await assertFits(page, `Compare tab at ${at}`);

    await showTab(page, "tab-scoring", ".scoring-form");
    await assertFits(page, `What-if scoring tab at ${at}`);
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("a batch too large for SVG is drawn on a canvas at its shown size, so its 12 px text stays 12 px, and fits the window", async () => {
  const { page, errors } = await openViewer();
  const runs = await loadSamples(page, traceCases.slice(0, 110));
  // More than 100 runs × 6 channels: past the SVG cell limit.
  assert.ok(runs > 100, `${runs} runs`);
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    await showTab(page, "tab-batch", "#heat-run canvas");
    assert.equal(await page.getAttribute("#heat-run", "data-render"), "canvas");
    await page.waitForFunction(() => {
      const c = document.querySelector("#heat-run canvas");
      return Math.abs(c.width - c.getBoundingClientRect().width) <= 1;
    });
    const canvas = await page.$eval("#heat-run canvas", (c) => ({
      drawn: c.width, shown: c.getBoundingClientRect().width, font: c.getContext("2d").font,
    }));
    // One canvas pixel per CSS pixel: text drawn at 12 px shows at 12 px.
    assert.ok(Math.abs(canvas.drawn - canvas.shown) <= 1, JSON.stringify(canvas));
    assert.ok(parseFloat(canvas.font) >= MIN_TEXT_PX, canvas.font);
    await assertFits(page, `Batch tab with ${runs} runs at ${viewport.width} px`);
    for (const chart of ["#heat-level", "#forest"]) {
      const small = (await svgTextSizes(page, chart)).filter((s) => s.px < MIN_TEXT_PX - 1e-6);
      assert.deepEqual(small, [], `${chart} at ${viewport.width} px`);
    }
    await page.screenshot({ path: join(outDir, `layout-batch-canvas-${viewport.width}.png`), fullPage: true });
  }
  assert.deepEqual(errors, []);
  await page.close();
});

test("the batch run table sorts by the column whose header is clicked, numbers as numbers", async () => {
  const { page, errors } = await openViewer();
  await loadSamples(page, []);
  await showTab(page, "tab-batch", "#batch-run-table tbody tr");
  const column = (title) => page.$$eval("#batch-run-table thead th", (ths, title) => ths.findIndex((th) => th.textContent === title), title);
  const values = async (title) => {
    const i = await column(title);
    return page.$$eval("#batch-run-table tbody tr", (rows, i) => rows.map((r) => r.cells[i].textContent), i);
  };
  const ascending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] <= x);
  // By file name first.
  assert.ok(ascending(await values("File")));
  await page.click('#batch-run-table th button:text-is("Privacy score")');
  assert.equal(await page.$eval('#batch-run-table th[aria-sort="ascending"]', (th) => th.textContent), "Privacy score");
  const scores = (await values("Privacy score")).map(Number);
  assert.ok(ascending(scores), scores.join(" "));
  // 100 (the clean runs) after 60: compared as numbers, not as text.
  assert.ok(scores.includes(100) && scores.includes(60));
  await page.click('#batch-run-table th button:text-is("Privacy score")');
  assert.equal(await page.getAttribute('#batch-run-table th:has(button:text-is("Privacy score"))', "aria-sort"), "descending");
  assert.deepEqual((await values("Privacy score")).map(Number), [...scores].sort((a, b) => b - a));
  assert.deepEqual(errors, []);
  await page.close();
});
