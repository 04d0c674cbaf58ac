/**
 * `loopchart explore` over HTTP, without a browser (test/browser/explorer.test.ts clicks the
 * page): the page and its API on 127.0.0.1, steps that equal the generated path suite's, the
 * request checks, bad arguments (exit 2) and the --json result.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { runCli } from '../../src/cli/commands.js';
import { runExplore } from '../../src/cli/explore.js';
import { models } from '../../src/graph/models/index.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathSuite } from '../../src/graph/path-suite-schema.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

const crank = machines.crank as AnyStateMachine;

/** The fields of the explorer's view (and error answers) this test reads. */
interface View {
  readonly position: number;
  readonly state: { readonly value: unknown };
  readonly projection: unknown;
  readonly events: readonly { readonly index: number; readonly event: unknown }[];
  readonly last: { readonly transitions: readonly { readonly key: string }[] };
  readonly error?: string;
}

/** A raw request, so the Host and Content-Type headers can be anything. */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('loopchart explore', () => {
  let dir: string;
  let suite: PathSuite;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loopchart-explore-'));
    suite = generatePathSuite(crank, models.crank as never);
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the page and steps exactly as the path suite says, until stopped (--json)', async () => {
    const { io, out } = stringSinks();
    const stop = new AbortController();
    let announce: (url: string) => void = () => {};
    const listening = new Promise<string>((resolve) => {
      announce = resolve;
    });
    const finished = runExplore(['crank', '--json'], io, {
      signal: stop.signal,
      onListening: (u) => announce(u),
    });
    const url = await listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?machine=crank$/);
    const base = url.replace(/\?.*$/, '');
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    expect(html).toContain('<svg');
    expect(html).toContain('id="ex-config"');

    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${base}${path}?machine=crank`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as View };
    };
    let view = (await (await fetch(`${base}api/view?machine=crank`)).json()) as View;
    expect(view.state.value).toEqual(suite.initial.state.value);
    expect(view.projection).toEqual(suite.initial.state.projection);

    // Every step of the longest generated path, sent by picking the offered event.
    const path = [...suite.paths].sort((a, b) => b.steps.length - a.steps.length)[0];
    for (const [index, step] of (path?.steps ?? []).entries()) {
      const offered = view.events.find((e) => JSON.stringify(e.event) === JSON.stringify(step.event));
      expect(offered, `step ${index + 1}`).toBeDefined();
      const sent = await post('api/send', { index: offered?.index });
      expect(sent.status).toBe(200);
      view = sent.body;
      expect(view.position).toBe(index + 1);
      expect(view.state.value).toEqual(step.stateAfter.value);
      expect(view.projection).toEqual(step.stateAfter.projection);
      expect(view.last.transitions.map((t) => t.key)).toEqual(step.transitions);
    }
    expect((await post('api/reset', {})).body.position).toBe(0);

    // The server refuses what the page would never send.
    const missing = await post('api/send', { index: 999 });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/no event 999 here/);
    expect((await post('api/path', { id: 'p-nosuch' })).body.error).toMatch(/no path "p-nosuch"/);
    const port = new URL(base).port;
    expect(
      (await raw(`${base}api/view?machine=crank`, { headers: { host: `evil.example:${port}` } })).status,
    ).toBe(421);
    expect(
      (
        await raw(`${base}api/reset?machine=crank`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    expect((await fetch(`${base}api/view?machine=nosuch`)).status).toBe(400);

    stop.abort();
    expect(await finished).toBe(0);
    const result = parseCliResult(out.stdout);
    expect(result).toMatchObject({ command: 'explore', status: 'finished', url, machine: 'crank' });
    expect(result.machines).toEqual(
      Object.keys(machines).sort((a, b) => (a === 'crank' ? -1 : b === 'crank' ? 1 : 0)),
    );
    expect(out.stderr).toContain(`exploring crank at ${url}`);
  });

  it.each([
    [['crank', 'rpi'], 'name at most one machine'],
    [['nosuch'], 'nosuch'],
    [['crank', '--port', '70000'], '--port must be at most 65535'],
    [['crank', '--suite', 'SUITE_OTHER'], 'the suite is for machine "rpi"'],
    [['crank', '--suite', 'NOT_JSON'], 'is not JSON'],
  ])('explore %j exits 2: %s', async (args, message) => {
    const other = join(dir, 'other.json');
    await writeFile(
      other,
      JSON.stringify({
        machine: 'rpi',
        strategy: 'shortest',
        initial: { state: { value: 'idle', status: 'active', projection: null }, transitions: [] },
        paths: [],
        summary: {
          paths: 0,
          steps: 0,
          transitionsCovered: 0,
          transitionsTotal: 0,
          statesCovered: 0,
          statesTotal: 0,
          uncoveredTransitions: [],
          uncoveredStates: [],
        },
      }),
    );
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{ nope');
    const resolved = args.map((a) => (a === 'SUITE_OTHER' ? other : a === 'NOT_JSON' ? broken : a));
    const { io, out } = stringSinks();
    expect(await runCli(['explore', ...resolved], io)).toBe(2);
    expect(out.stderr).toContain(message);
  });
});

describe('loopchart run --inspect options', () => {
  it.each([
    [['--inspect-wait'], '--inspect-port and --inspect-wait go with --inspect'],
    [['--inspect-port', '8080'], '--inspect-port and --inspect-wait go with --inspect'],
    [['--inspect', '--inspect-port', '70000'], '--inspect-port must be at most 65535'],
    [['--inspect', '--inspect-port', 'x'], '--inspect-port must be a whole number'],
  ])('run %j exits 2 before anything runs: %s', async (extra, message) => {
    const { io, out } = stringSinks();
    expect(await runCli(['run', '--spec', 'docs/spec.md', '--child', 'true', ...extra], io)).toBe(2);
    expect(out.stderr).toContain(message);
  });
});
