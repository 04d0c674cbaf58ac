/**
 * The run viewer and the Mermaid diagrams in a real browser: Debian's Chromium, driven by
 * playwright-core, with nothing installed or downloaded at run time. Without /usr/bin/chromium the
 * suite is skipped, unless LOOPCHART_REQUIRE_BROWSER=1 (CI), where that is a failure.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { runCli } from '../../src/cli/commands.js';
import { shellQuote } from '../../src/cli/demo.js';
import { toMermaid } from '../../src/viz/mermaid.js';
import { MIN_REGION_ZOOM } from '../../src/viz/viewer/zoom.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { stringSinks } from '../support/string-sinks.js';
import { browserAvailable, launchChromium, leafIds, requireBrowserOrSkip } from './chromium.js';

const root = join(import.meta.dirname, '..', '..');
requireBrowserOrSkip();

interface RecordLine {
  machine: string;
  event: string;
  state: string | Record<string, unknown>;
  transition: { source: string; targets: string[] }[];
  terminalCheck: { success: boolean } | null;
}

describe.runIf(browserAvailable)('run viewer in headless Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let page: Page;
  let records: RecordLine[];
  let html: string;
  let demoStdout: string;
  const requests: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopchart-viewer-'));
    // The demo's own run: a sample repository, the scripted child, a human stop and its answer.
    const repository = join(dir, 'demo');
    const child = [
      process.execPath,
      await bundledScriptedChild(),
      join(repository, '.loopchart', 'demo-script.json'),
    ]
      .map(shellQuote)
      .join(' ');
    const demo = stringSinks();
    const demoCode = await runCli(['demo', '--dir', repository, '--child', child], demo.io);
    expect(demoCode, demo.out.stderr).toBe(0);
    const transcript = /^transcript: (.+)$/m.exec(demo.out.stdout)?.[1];
    if (transcript === undefined) throw new Error(`the demo named no transcript:\n${demo.out.stdout}`);
    records = (await readFile(transcript, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RecordLine);
    html = join(dir, 'run.html');
    const { io, out } = stringSinks();
    const code = await runCli(['view', transcript, '--out', html], io);
    expect(code, out.stderr).toBe(0);
    demoStdout = demo.out.stdout;
    context = await launchChromium(dir);
    page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
  });

  afterAll(async () => {
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('highlights the state and the transitions of every record, step by step', async () => {
    expect(records.length).toBeGreaterThan(5);
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-ready="true"]');
    const machine = records[0]?.machine as string;
    for (const [index, record] of records.entries()) {
      const shown = {
        step: await page.getAttribute('body', 'data-step'),
        position: await page.textContent('#lc-position'),
        // Graphviz's <title> of a node is the DOT node name, i.e. the state id.
        active: await page.locator('#lc-diagram svg g.lc-active > title').allTextContents(),
        // An edge's <title> is `<tail>-><head>`.
        taken: await page.locator('#lc-diagram svg g.lc-taken > title').allTextContents(),
        details: (await page.textContent('#lc-details')) ?? '',
      };
      expect(shown.step).toBe(String(index));
      expect(shown.position).toBe(`step ${index + 1} / ${records.length}`);
      expect(shown.active.sort(), `record ${index + 1}`).toEqual(leafIds(machine, record.state).sort());
      const edges = record.transition.flatMap((t) =>
        (t.targets.length > 0 ? t.targets : [t.source]).map((target) => `${t.source}->${target}`),
      );
      expect(shown.taken.sort(), `record ${index + 1}`).toEqual([...new Set(edges)].sort());
      expect(shown.details).toContain(record.event);
      if (index === Math.floor(records.length / 2)) {
        await mkdir(join(root, 'test-output'), { recursive: true });
        await page.screenshot({ path: join(root, 'test-output', 'viewer.png') });
      }
      if (index < records.length - 1) await page.click('#lc-next');
    }
    expect(await page.isDisabled('#lc-next')).toBe(true);
  });

  it('jumps from the timeline and plays to the end', async () => {
    const target = Math.floor(records.length / 3);
    await page.click(`#lc-timeline-body tr[data-index="${target}"]`);
    expect(await page.getAttribute('body', 'data-step')).toBe(String(target));
    await page.click('#lc-first');
    expect(await page.getAttribute('body', 'data-step')).toBe('0');
    await page.selectOption('#lc-speed', '300');
    await page.click('#lc-play');
    await page.waitForSelector(`body[data-step="${records.length - 1}"]`, { timeout: 60_000 });
    expect(await page.textContent('#lc-play')).toContain('play');
  });

  it('shows the stop as the person read it, marks each session, and opens zoomed on the active region', async () => {
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-ready="true"]');
    // Fitted zoom: the active state is in the pane, its label legible, larger than "fit" would be.
    const zoomed = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: this file has no DOM types; the callback runs in the page
      const doc = (globalThis as unknown as { document: any }).document;
      const pane = doc.getElementById('lc-diagram').getBoundingClientRect();
      const active = doc.querySelector('#lc-diagram svg g.lc-active');
      const rect = active.getBoundingClientRect();
      const label = active.querySelector('text').getBoundingClientRect();
      const svg = doc.querySelector('#lc-diagram svg');
      const natural = svg.viewBox.baseVal.width * (4 / 3);
      return {
        select: doc.getElementById('lc-zoom').value as string,
        inside:
          rect.left >= pane.left &&
          rect.right <= pane.right &&
          rect.top >= pane.top &&
          rect.bottom <= pane.bottom,
        labelHeight: label.height as number,
        factor: Number(doc.body.dataset.zoom),
        fitFactor: pane.width / natural,
      };
    });
    expect(zoomed.select).toBe('region');
    expect(zoomed.inside).toBe(true);
    expect(zoomed.factor).toBeGreaterThanOrEqual(MIN_REGION_ZOOM);
    expect(zoomed.factor).toBeGreaterThan(zoomed.fitFactor);
    // 11 pt state labels at 0.75 or more: at least 11 px tall.
    expect(zoomed.labelHeight).toBeGreaterThanOrEqual(11);

    // Sessions: the demo ran twice (stop, then resume with the answer); each run starts at xstate.init.
    let session = 0;
    const expectedSessions = records.map((record) => (record.event === 'xstate.init' ? ++session : session));
    expect(session).toBe(2);
    expect(await page.locator('#lc-timeline-body tr.lc-session-start').count()).toBe(2);
    const shownSessions = await page.$$eval('#lc-timeline-body tr[data-index]', (rows) =>
      rows.map((row) => Number((row as unknown as { dataset: { session: string } }).dataset.session)),
    );
    expect(shownSessions).toEqual(expectedSessions);

    // The stop: the text the first run printed (the demo's stdout starts with it), and its menu.
    const stopIndex = records.findIndex((r) => r.terminalCheck !== null && r.terminalCheck.success === false);
    expect(stopIndex).toBeGreaterThan(0);
    const printed = demoStdout.slice(0, demoStdout.indexOf('\nA person answers the stop'));
    expect(printed.startsWith('gauntlet: question\n')).toBe(true);
    await page.click(`#lc-timeline-body tr[data-index="${stopIndex}"]`);
    expect(await page.getAttribute('body', 'data-session')).toBe('1');
    expect(await page.textContent('#lc-details .lc-stop-text')).toBe(printed);
    const menuLines = printed
      .split('\n')
      .map((line) => /^(\d+) - (.*)$/.exec(line))
      .filter((m) => m !== null)
      .map((m) => `${m[1]}. ${m[2]}`);
    expect(menuLines.length).toBeGreaterThan(1);
    const menu = await page.$$eval('#lc-details .lc-stop-menu li', (items) =>
      items.map(
        (li) =>
          `${(li as unknown as { value: number }).value}. ${(li as unknown as { textContent: string }).textContent}`,
      ),
    );
    expect(menu).toEqual(menuLines);
    expect(await page.textContent('#lc-details')).not.toContain('{"kind"');
  });

  it('fetches nothing from the network', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
  });

  it("parses every registered machine's Mermaid diagram with Mermaid's own parser", async () => {
    const mermaidPage = await context.newPage();
    await mermaidPage.addScriptTag({ path: join(root, 'node_modules', 'mermaid', 'dist', 'mermaid.min.js') });
    const parse = (text: string) =>
      mermaidPage.evaluate(async (source) => {
        const mermaid = (globalThis as unknown as { mermaid: { parse(t: string): Promise<unknown> } })
          .mermaid;
        try {
          await mermaid.parse(source);
          return 'ok';
        } catch (error) {
          return String(error instanceof Error ? error.message : error);
        }
      }, text);
    // The check can fail: a transition without a target is not Mermaid.
    expect(await parse('stateDiagram-v2\n  a --> : broken\n')).not.toBe('ok');
    for (const [name, machine] of Object.entries(machines)) {
      expect(await parse(toMermaid(machine as AnyStateMachine)), name).toBe('ok');
    }
    await mermaidPage.close();
  });
});
