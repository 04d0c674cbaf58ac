/// <reference lib="dom" />
/**
 * The committed diagrams at human scale, measured in Chromium: every SVG under visualizations/
 * renders at most SVG_MAX_WIDTH_PX wide at its natural size with no text below 11 px, and every
 * Mermaid diagram renders (with Mermaid's own renderer, the one GitHub uses) at most
 * MERMAID_MAX_WIDTH_PX wide with no text below 11 px. One browser, one page, every diagram.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machines } from '../../machines/index.js';
import { MERMAID_MAX_WIDTH_PX, SVG_MAX_WIDTH_PX } from '../../src/viz/diagram-set.js';
import { toDot } from '../../src/viz/dot.js';
import { toSvg } from '../../src/viz/svg.js';
import { browserAvailable, launchChromium, requireBrowserOrSkip } from './chromium.js';

const root = join(import.meta.dirname, '..', '..');
const MIN_TEXT_PX = 11;

requireBrowserOrSkip();

interface Measure {
  readonly width: number;
  readonly smallestText: number;
  readonly texts: number;
  readonly error?: string;
}

/** Puts an SVG document into the page at its natural size and measures it on screen. */
async function measureSvg(page: Page, svg: string): Promise<Measure> {
  return page.evaluate((text) => {
    const host = document.getElementById('host') as HTMLElement;
    host.innerHTML = text.replace(/^[\s\S]*?(?=<svg)/, '');
    const element = host.querySelector('svg') as SVGSVGElement;
    let smallest = Number.POSITIVE_INFINITY;
    const texts = [...element.querySelectorAll('text')].filter((t) => (t.textContent ?? '').trim() !== '');
    for (const t of texts) {
      // Font size in user units times the on-screen scale of the text's coordinate system.
      const size = Number.parseFloat(getComputedStyle(t).fontSize);
      const matrix = t.getScreenCTM();
      const scale = matrix === null ? 1 : Math.hypot(matrix.a, matrix.b);
      smallest = Math.min(smallest, size * scale);
    }
    return { width: element.getBoundingClientRect().width, smallestText: smallest, texts: texts.length };
  }, svg);
}

/** Renders Mermaid text with Mermaid itself, puts the SVG into the page, and measures it. */
async function measureMermaid(page: Page, source: string): Promise<Measure> {
  return page.evaluate(async (text) => {
    const mermaid = (
      globalThis as unknown as { mermaid: { render(id: string, t: string): Promise<{ svg: string }> } }
    ).mermaid;
    const host = document.getElementById('host') as HTMLElement;
    try {
      const { svg } = await mermaid.render(`m${Math.random().toString(36).slice(2)}`, text);
      host.innerHTML = svg;
    } catch (error) {
      return { width: 0, smallestText: 0, texts: 0, error: String(error) };
    }
    const element = host.querySelector('svg') as SVGSVGElement;
    let smallest = Number.POSITIVE_INFINITY;
    // Mermaid writes labels as HTML inside foreignObject and as SVG text; both count.
    const texts = [...element.querySelectorAll('text, foreignObject span, foreignObject p')].filter(
      (t) => (t.textContent ?? '').trim() !== '' && t.getBoundingClientRect().width > 0,
    );
    for (const t of texts) smallest = Math.min(smallest, Number.parseFloat(getComputedStyle(t).fontSize));
    return { width: element.getBoundingClientRect().width, smallestText: smallest, texts: texts.length };
  }, source);
}

describe.runIf(browserAvailable)('committed diagrams in headless Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopchart-diagrams-'));
    context = await launchChromium(dir);
    page = await context.newPage();
    // Wide enough that nothing is squeezed: the diagrams show at their natural size.
    await page.setViewportSize({ width: 4000, height: 1000 });
    await page.setContent('<!doctype html><html><body style="margin:0"><div id="host"></div></body></html>');
    await page.addScriptTag({ path: join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js') });
    await page.evaluate(() =>
      (globalThis as unknown as { mermaid: { initialize(c: object): void } }).mermaid.initialize({
        startOnLoad: false,
      }),
    );
  });

  afterAll(async () => {
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`every SVG is at most ${SVG_MAX_WIDTH_PX} px wide with text of ${MIN_TEXT_PX} px or more`, async () => {
    // The check can fail: the whole loop engine in one drawing is far too wide.
    const whole = await measureSvg(page, await toSvg(toDot(machines['loop-implementation'])));
    expect(whole.width).toBeGreaterThan(SVG_MAX_WIDTH_PX);
    const files = (await readdir(join(root, 'visualizations'))).filter((f) => f.endsWith('.svg'));
    expect(files.length).toBeGreaterThanOrEqual(Object.keys(machines).length);
    const problems: string[] = [];
    for (const file of files) {
      const m = await measureSvg(page, await readFile(join(root, 'visualizations', file), 'utf8'));
      expect(m.texts, file).toBeGreaterThan(0);
      if (m.width > SVG_MAX_WIDTH_PX) problems.push(`${file}: ${Math.round(m.width)} px wide`);
      if (m.smallestText < MIN_TEXT_PX) problems.push(`${file}: text of ${m.smallestText.toFixed(1)} px`);
    }
    expect(problems).toEqual([]);
  });

  it(`every Mermaid diagram renders at most ${MERMAID_MAX_WIDTH_PX} px wide with legible text`, async () => {
    // The check can fail: a broken diagram is reported, and a wide one measures wide.
    expect((await measureMermaid(page, 'stateDiagram-v2\n  a --> : broken\n')).error).toBeDefined();
    const wide = Array.from({ length: 14 }, (_, i) => `  s --> t${i} : a label that takes room ${i}`).join(
      '\n',
    );
    expect((await measureMermaid(page, `stateDiagram-v2\n${wide}\n`)).width).toBeGreaterThan(
      MERMAID_MAX_WIDTH_PX,
    );
    const files = (await readdir(join(root, 'visualizations'))).filter((f) => f.endsWith('.mmd'));
    expect(files.length).toBe(Object.keys(machines).length);
    const problems: string[] = [];
    for (const file of files) {
      const m = await measureMermaid(page, await readFile(join(root, 'visualizations', file), 'utf8'));
      if (m.error !== undefined) problems.push(`${file}: ${m.error}`);
      else {
        expect(m.texts, file).toBeGreaterThan(0);
        if (m.width > MERMAID_MAX_WIDTH_PX) problems.push(`${file}: ${Math.round(m.width)} px wide`);
        if (m.smallestText < MIN_TEXT_PX) problems.push(`${file}: text of ${m.smallestText.toFixed(1)} px`);
      }
    }
    expect(problems).toEqual([]);
  });
});
