/**
 * The run viewer on a coordinated run (issue 13, docs/decisions/legs.md L19), in headless
 * Chromium: the transcript of `loopchart demo --legs` (two real repositories, the scripted child)
 * shows which leg each dispatch, verification repair or failed gate targets (a badge on the
 * timeline, a `leg` line in the details) and the per-leg table of rows. Skipped without
 * /usr/bin/chromium unless LOOPCHART_REQUIRE_BROWSER=1.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { shellQuote } from '../../src/cli/demo.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { stringSinks } from '../support/string-sinks.js';
import { browserAvailable, launchChromium, requireBrowserOrSkip } from './chromium.js';

requireBrowserOrSkip();

interface Target {
  readonly leg: string;
  readonly what: string;
}

describe.runIf(browserAvailable)('run viewer on a coordinated run (headless Chromium)', () => {
  let dir: string;
  let context: BrowserContext;
  let page: Page;
  let html: string;
  let targets: (Target | null)[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopchart-viewer-legs-'));
    const demoDir = join(dir, 'demo');
    const child = [
      process.execPath,
      await bundledScriptedChild(),
      join(demoDir, 'web', '.loopchart', 'demo-script.json'),
    ]
      .map(shellQuote)
      .join(' ');
    const demo = stringSinks();
    const code = await runCli(['demo', '--legs', '--dir', demoDir, '--child', child], demo.io);
    expect(code, demo.out.stderr).toBe(0);
    const transcript = /^transcript: (.+)$/m.exec(demo.out.stdout)?.[1];
    if (transcript === undefined) throw new Error(`the demo named no transcript:\n${demo.out.stdout}`);
    targets = (await readFile(transcript, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => (JSON.parse(line) as { data?: { target?: Target } }).data?.target ?? null);
    html = join(dir, 'run.html');
    const view = stringSinks();
    expect(await runCli(['view', transcript, '--out', html], view.io), view.out.stderr).toBe(0);
    context = await launchChromium(dir);
    page = await context.newPage();
  }, 240_000);

  afterAll(async () => {
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('badges each record whose dispatch, repair or failed gate is in a leg, and names the leg in the details', async () => {
    await page.goto(pathToFileURL(html).href);
    await page.waitForSelector('body[data-ready="true"]');
    // The demo dispatches api's row 2 and repairs api's failing gate in the api checkout.
    const repair = targets.findIndex((t) => t?.leg === 'api' && t.what === 'verification repair');
    const failedGate = targets.findIndex((t) => t?.leg === 'api' && /^gate \d+ failed$/.test(t.what));
    const companionRow = targets.findIndex((t) => t?.leg === 'api' && t.what === 'dispatch row 2');
    expect(
      [repair, failedGate, companionRow].every((i) => i >= 0),
      JSON.stringify(targets),
    ).toBe(true);

    const badges = await page.locator('#lc-timeline-body tr[data-index] .lc-leg').count();
    expect(badges).toBe(targets.filter((t) => t !== null).length);

    await page.click(`#lc-timeline-body tr[data-index="${repair}"]`);
    expect(await page.getAttribute('body', 'data-step')).toBe(String(repair));
    const badge = await page.textContent(`#lc-timeline-body tr[data-index="${repair}"] .lc-leg`);
    expect(badge).toBe('leg api: verification repair');
    const details = (await page.textContent('#lc-details')) ?? '';
    expect(details).toContain('api (verification repair)');

    // The per-leg table: one row per member, the api row says what happens there now.
    const legRows = await page.evaluate(() => {
      // biome-ignore lint/suspicious/noExplicitAny: this file has no DOM types; the callback runs in the page
      const doc = (globalThis as unknown as { document: any }).document;
      const heading = Array.from(doc.querySelectorAll('#lc-details h3')).find(
        // biome-ignore lint/suspicious/noExplicitAny: page DOM
        (h: any) => h.textContent === 'legs',
      ) as
        | { nextElementSibling: { querySelectorAll(s: string): ArrayLike<{ textContent: string }> } }
        | undefined;
      if (heading === undefined) return null;
      return Array.from(heading.nextElementSibling.querySelectorAll('tr')).map((tr) => tr.textContent);
    });
    expect(legRows).not.toBeNull();
    expect(legRows?.length).toBe(3); // header, web, api
    expect(legRows?.[1]).toContain('web');
    expect(legRows?.[1]).toContain('home');
    expect(legRows?.[2]).toContain('api');
    expect(legRows?.[2]).toContain('verification repair');

    await page.click(`#lc-timeline-body tr[data-index="${companionRow}"]`);
    expect(await page.textContent(`#lc-timeline-body tr[data-index="${companionRow}"] .lc-leg`)).toBe(
      'leg api: dispatch row 2',
    );
  }, 120_000);
});
