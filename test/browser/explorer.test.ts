/**
 * `loopchart explore` and `loopchart run --inspect` in headless Chromium (one launch for the
 * file). The explorer walk clicks a path of the loop engine's generated suite event by event;
 * what each step must show comes from the suite (state after, projection, transitions taken) and
 * from the machine definition read here (the ordered candidates a guard outcome follows from),
 * never from the explorer's code. The live test attaches to a real run of the demo: a real
 * temporary repository, the scripted child as a real process.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { machines } from '../../machines/index.js';
import { runCli } from '../../src/cli/commands.js';
import { shellQuote } from '../../src/cli/demo.js';
import { runExplore } from '../../src/cli/explore.js';
import { models } from '../../src/graph/models/index.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathSuite, SuitePath } from '../../src/graph/path-suite-schema.js';
import { DEMO_SETTINGS, DEMO_VERIFICATION, prepareDemoRepository } from '../../src/host/demo.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { browserAvailable, launchChromium, leafIds, requireBrowserOrSkip } from './chromium.js';

requireBrowserOrSkip();

const machine = machines['loop-implementation'] as AnyStateMachine;

/** An element's data attributes, as the page sets them (this file has no DOM types). */
type Tagged = { dataset: Record<string, string | undefined> };

/**
 * The guard outcomes a step with these transitions proves, read off the machine definition: the
 * taken candidate's guard held and every guarded candidate listed before it on the same source
 * for the same event did not (XState takes the first candidate whose guard holds).
 */
function expectedGuards(keys: readonly string[]): string[] {
  const rows = new Set<string>();
  for (const key of keys) {
    const [source, eventType, index] = key.split('|') as [string, string, string];
    const node = machine.getStateNodeById(source) as AnyStateNode;
    const candidates: readonly AnyTransitionDefinition[] =
      eventType === '' ? (node.always ?? []) : (node.transitions.get(eventType) ?? []);
    const taken = Number(index);
    candidates.forEach((candidate, position) => {
      if (candidate.guard === undefined || position > taken) return;
      rows.add(`${source}|${eventType}|${position} ${position === taken}`);
    });
  }
  return [...rows].sort();
}

async function shownGuards(page: Page): Promise<string[]> {
  const rows = await page.$$eval('#ex-guards tbody tr[data-key]', (trs) =>
    trs.map((tr) => `${(tr as unknown as Tagged).dataset.key} ${(tr as unknown as Tagged).dataset.outcome}`),
  );
  return rows.sort();
}

async function shownActive(page: Page): Promise<string[]> {
  return (await page.locator('#ex-diagram svg g.lc-active > title').allTextContents()).sort();
}

/** Whether every highlighted state lies inside the diagram pane (the page keeps it in view). */
async function activeInView(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    // biome-ignore lint/suspicious/noExplicitAny: this file has no DOM types; the callback runs in the page
    const doc = (globalThis as unknown as { document: any }).document;
    const pane = doc.getElementById('ex-diagram').getBoundingClientRect();
    const active = [...doc.querySelectorAll('#ex-diagram svg g.lc-active')];
    return (
      active.length > 0 &&
      active.every((element) => {
        const rect = element.getBoundingClientRect();
        return (
          rect.left >= pane.left &&
          rect.right <= pane.right &&
          rect.top >= pane.top &&
          rect.bottom <= pane.bottom
        );
      })
    );
  });
}

async function shownProjection(page: Page): Promise<unknown> {
  return JSON.parse((await page.textContent('#ex-projection')) ?? 'null');
}

describe.runIf(browserAvailable)('explorer and live inspection in headless Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let suite: PathSuite;
  let url: string;
  const stopExplorer = new AbortController();
  let explorer: Promise<number>;
  const requests: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopchart-explorer-'));
    // The expected values: the suite `loopchart paths loop-implementation` exports.
    suite = generatePathSuite(machine, models['loop-implementation'] as never);
    const suiteFile = join(dir, 'suite.json');
    await writeFile(suiteFile, JSON.stringify(suite));
    const listening = new Promise<string>((resolve) => {
      explorer = runExplore(
        ['loop-implementation', '--suite', suiteFile],
        { stdout: { write: () => true }, stderr: { write: () => true } },
        { signal: stopExplorer.signal, onListening: resolve },
      );
    });
    url = await listening;
    context = await launchChromium(dir);
    // A ceiling, not a timing: generating the loop engine's suite takes a while on a loaded machine.
  }, 300_000);

  afterAll(async () => {
    stopExplorer.abort();
    await explorer;
    await context?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('walks a generated path by clicking events: state, guards and projection match the suite', async () => {
    const page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"][data-position="0"]');
    expect(await shownActive(page)).toEqual(leafIds(machine.id, suite.initial.state.value));
    expect(await shownProjection(page)).toEqual(suite.initial.state.projection);

    // The longest path: it passes the ordered fans where earlier guards fail.
    const path = [...suite.paths].sort((a, b) => b.steps.length - a.steps.length)[0] as SuitePath;
    let failedGuardsSeen = 0;
    for (const [index, step] of path.steps.entries()) {
      const offered = await page.$$eval('#ex-events button', (buttons) =>
        buttons.map((b) => ({
          index: (b as unknown as Tagged).dataset.index,
          event: JSON.parse((b as unknown as Tagged).dataset.event ?? 'null') as unknown,
        })),
      );
      const button = offered.find((o) => isDeepStrictEqual(o.event, step.event));
      expect(button, `step ${index + 1}: ${step.event.type} is offered`).toBeDefined();
      await page.click(`#ex-events button[data-index="${button?.index}"]`);
      await page.waitForSelector(`body[data-position="${index + 1}"]:not([data-busy])`);
      const where = `step ${index + 1} (${step.event.type})`;
      expect(await shownActive(page), where).toEqual(leafIds(machine.id, step.stateAfter.value));
      expect(await activeInView(page), `${where}: the current state is in view`).toBe(true);
      const guards = expectedGuards(step.transitions);
      failedGuardsSeen += guards.filter((g) => g.endsWith(' false')).length;
      expect(await shownGuards(page), where).toEqual(guards);
      expect(await shownProjection(page), where).toEqual(step.stateAfter.projection);
      const taken = await page.$$eval('#ex-last li[data-key]', (items) =>
        items.map((item) => (item as unknown as Tagged).dataset.key),
      );
      expect(taken, where).toEqual(step.transitions);
    }
    // The walk exercised the guard panel's failed outcomes, not only passes.
    expect(failedGuardsSeen).toBeGreaterThan(0);

    // Back restores the state before the last step; forward goes to the end again.
    const last = path.steps[path.steps.length - 1];
    await page.click('#ex-back');
    await page.waitForSelector(`body[data-position="${path.steps.length - 1}"]:not([data-busy])`);
    expect(await shownActive(page)).toEqual(leafIds(machine.id, last?.stateBefore.value));
    expect(await shownProjection(page)).toEqual(last?.stateBefore.projection);
    await page.click('#ex-forward');
    await page.waitForSelector(`body[data-position="${path.steps.length}"]:not([data-busy])`);
    expect(await shownActive(page)).toEqual(leafIds(machine.id, last?.stateAfter.value));

    // Another path loaded from the suite replays with the forward button.
    const other = suite.paths.find((p) => p.id !== path.id && p.steps.length >= 3) as SuitePath;
    await page.focus('#ex-path');
    await page.waitForSelector(`body[data-paths="${suite.paths.length}"]`);
    await page.selectOption('#ex-path', other.id);
    await page.click('#ex-load');
    await page.waitForSelector(`body[data-path="${other.id}"][data-position="0"]:not([data-busy])`);
    for (const [index, step] of other.steps.entries()) {
      await page.click('#ex-forward');
      await page.waitForSelector(`body[data-position="${index + 1}"]:not([data-busy])`);
      expect(await shownActive(page), `${other.id} step ${index + 1}`).toEqual(
        leafIds(machine.id, step.stateAfter.value),
      );
      expect(await shownGuards(page)).toEqual(expectedGuards(step.transitions));
    }

    // The coverage overlay: the suite's own summary, and one mark per drawn transition edge.
    await page.check('#ex-coverage');
    await page.waitForSelector('body[data-coverage="on"]:not([data-busy])');
    const s = suite.summary;
    expect(await page.textContent('#ex-coverage-summary')).toContain(
      `transitions ${s.transitionsCovered}/${s.transitionsTotal}`,
    );
    expect(await page.locator('#ex-diagram svg g.ex-uncovered').count()).toBe(
      s.uncoveredTransitions.length + s.uncoveredStates.length,
    );
    expect(await page.locator('#ex-diagram svg g.ex-covered').count()).toBeGreaterThan(0);
    expect(requests.filter((r) => !r.startsWith(url.split('?')[0] as string))).toEqual([]);
    await page.close();
  }, 120_000);

  it('follows a real run of the demo with run --inspect until it stops for a human', async () => {
    const repository = join(dir, 'demo');
    const demo = prepareDemoRepository(repository);
    const child = [process.execPath, await bundledScriptedChild(), demo.scriptPath].map(shellQuote).join(' ');
    const transcript = join(dir, 'demo-transcript.jsonl');
    const out = { stdout: '', stderr: '' };
    let announce: (url: string) => void = () => {};
    const inspectUrl = new Promise<string>((resolve) => {
      announce = resolve;
    });
    const io = {
      stdout: { write: (chunk: string) => (out.stdout += chunk) },
      stderr: {
        write: (chunk: string) => {
          out.stderr += chunk;
          const found = /inspect: (http:\/\/\S+)/.exec(out.stderr);
          if (found) announce(found[1] as string);
          return true;
        },
      },
    };
    // prettier-ignore
    const run = runCli(
      [
        'run',
        '--worktree',
        repository,
        '--spec',
        demo.specPath,
        '--ledger',
        demo.ledgerPath,
        '--child',
        child,
        '--reviewer',
        child,
        '--conformance-reviewer',
        child,
        '--verification',
        DEMO_VERIFICATION,
        '--allowance',
        String(DEMO_SETTINGS.allowance),
        '--escalate-after',
        String(DEMO_SETTINGS.escalateAfter),
        '--impl-model',
        DEMO_SETTINGS.implModel,
        '--transcript',
        transcript,
        '--inspect',
        '--inspect-wait',
        '--json',
      ],
      io,
    );
    const page = await context.newPage();
    await page.goto(await inspectUrl);
    await page.waitForSelector('body[data-live="ended"]', { timeout: 120_000 });
    const code = await run;
    expect(code, out.stderr).toBe(3);
    const result = JSON.parse(out.stdout) as { status: string; state: string; stop: string };
    expect(result.status).toBe('stopped');
    expect(await page.getAttribute('body', 'data-result')).toBe('stopped');

    // The page saw every event the transcript recorded, and ended where the last record is.
    const records = (await readFile(transcript, 'utf8'))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { state: unknown; transition: { key: string }[] });
    const lastRecord = records[records.length - 1];
    expect(await page.locator('#ex-live-feed li').count()).toBe(records.length);
    expect(await shownActive(page)).toEqual(leafIds(machine.id, lastRecord?.state));
    const taken = await page.$$eval('#ex-last li[data-key]', (items) =>
      items.map((item) => (item as unknown as Tagged).dataset.key),
    );
    expect(taken).toEqual(lastRecord?.transition.map((t) => t.key));
    expect(await page.getAttribute('body', 'data-state')).toBe(result.state);
    expect(await page.textContent('#ex-last')).toContain(result.stop.split('\n')[1] as string);
    await page.close();
  }, 180_000);
});
