import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { runView } from '../../src/cli/view.js';
import { writePathTranscript } from '../browser/path-transcript.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

async function view(...args: string[]) {
  const { io, out } = stringSinks();
  const code = await runCli(['view', ...args], io);
  return { code, ...out };
}

interface EmbeddedView {
  machine: string;
  steps: {
    activeElements: string[];
    activeParentElements: string[];
    transitions: { key: string; elements: string[] }[];
    record: { event: string; transition: { key: string }[] };
  }[];
  warnings: string[];
}

/** The run view the page embeds, read back the way the page's script reads it. */
function embeddedView(html: string): EmbeddedView {
  const match = /<script id="lc-run" type="application\/json">([\s\S]*?)<\/script>/.exec(html);
  if (!match) throw new Error('no run data in the page');
  return JSON.parse(match[1] as string) as EmbeddedView;
}

/** Element ids in the page, with Graphviz's `&#45;` for `-` decoded. */
function elementIds(html: string): Set<string> {
  return new Set([...html.matchAll(/ id="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&#45;/g, '-')));
}

let dir: string;
let transcript: string;
let lines: string[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loopchart-view-'));
  transcript = join(dir, 'run.jsonl');
  await writePathTranscript(transcript, 'rpi');
  lines = (await readFile(transcript, 'utf8')).split('\n').filter((line) => line.trim() !== '');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loopchart view', () => {
  it('writes one self-contained page next to the transcript', async () => {
    const { code, stdout, stderr } = await view(transcript);
    expect(code, stderr).toBe(0);
    const page = join(dir, 'run.html');
    expect(stdout).toBe(`wrote ${page} (${lines.length} records of rpi)\n`);
    const html = await readFile(page, 'utf8');
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('<svg');
    expect(html).toContain("default-src 'none'");
    // Nothing to fetch: no external scripts, styles or images; URLs only as SVG namespaces.
    expect(html).not.toMatch(/<script[^>]+src=|<link\b|@import|<img\b/);
    const urls = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0]);
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink']));
  });

  it('maps every record onto elements that exist in the page', async () => {
    const html = await readFile(join(dir, 'run.html'), 'utf8');
    const data = embeddedView(html);
    const ids = elementIds(html);
    expect(data.machine).toBe('rpi');
    expect(data.warnings).toEqual([]);
    expect(data.steps.map((s) => s.record.event)).toEqual(
      lines.map((l) => (JSON.parse(l) as { event: string }).event),
    );
    for (const [index, step] of data.steps.entries()) {
      expect(step.activeElements.length, `record ${index + 1}`).toBeGreaterThan(0);
      for (const id of [...step.activeElements, ...step.activeParentElements])
        expect(ids.has(id), id).toBe(true);
      expect(step.transitions.map((t) => t.key)).toEqual(step.record.transition.map((t) => t.key));
      for (const t of step.transitions) {
        expect(t.elements.length).toBeGreaterThan(0);
        for (const id of t.elements) expect(ids.has(id), id).toBe(true);
      }
    }
  });

  it('keeps transcript text out of the markup', async () => {
    const record = JSON.parse(lines[0] as string) as { evidence: string[] };
    record.evidence = ['</script><script>window.owned = true</script>'];
    const file = join(dir, 'hostile.jsonl');
    await writeFile(file, `${JSON.stringify(record)}\n`);
    const out = join(dir, 'hostile.html');
    expect((await view(file, '--out', out)).code).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html).not.toContain('<script>window.owned');
    expect(JSON.stringify(embeddedView(html).steps[0]?.record)).toContain('window.owned');
  });

  it('writes to --out and reports as JSON with --json', async () => {
    const out = join(dir, 'pages', 'custom.html');
    const { code, stdout } = await view(transcript, '--out', out, '--json');
    expect(code).toBe(0);
    expect(parseCliResult(stdout)).toEqual({
      schema: 'cli-result.v1',
      command: 'view',
      status: 'finished',
      exitCode: 0,
      transcript,
      machine: 'rpi',
      records: lines.length,
      warnings: [],
      out,
    });
    expect(await readFile(out, 'utf8')).toContain('<svg');
  });

  it("draws on a host's own machine module with --machine", async () => {
    const xstate = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;
    const module = join(dir, 'my-rpi.mjs');
    await writeFile(
      module,
      `import { createMachine } from '${xstate}';\nexport default createMachine({ id: 'rpi', initial: 'x', states: { x: {} } });\n`,
    );
    const out = join(dir, 'variant.html');
    const { code } = await view(transcript, '--machine', module, '--out', out);
    expect(code).toBe(0);
    const data = embeddedView(await readFile(out, 'utf8'));
    expect(data.machine).toBe('my-rpi');
    // The variant lacks rpi's states: the page says so instead of failing.
    expect(data.warnings.length).toBeGreaterThan(0);
    expect(data.warnings[0]).toMatch(/^record 1: state ".*" is not in machine "rpi"$/);
  });

  describe('--serve', () => {
    it('serves the page on 127.0.0.1, rebuilt on reload, until stopped', async () => {
      const served = join(dir, 'served.jsonl');
      await writeFile(served, `${lines.join('\n')}\n`);
      const { io, out } = stringSinks();
      const stop = new AbortController();
      let listening: (url: string) => void = () => {};
      const url = new Promise<string>((resolve) => {
        listening = resolve;
      });
      const finished = runView([served, '--serve', '--port', '0'], io, {
        signal: stop.signal,
        onListening: listening,
      });
      const address = await Promise.race([url, finished.then((code) => `exited ${code}: ${out.stderr}`)]);
      expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(out.stdout).toContain(`serving ${address} (Ctrl-C to stop)`);

      const first = await fetch(address);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(embeddedView(await first.text()).steps).toHaveLength(lines.length);
      expect((await fetch(`${address}other`)).status).toBe(404);

      // A running loop appends records; a reload shows them.
      const last = JSON.parse(lines.at(-1) as string) as { timestamp: string };
      await appendFile(
        served,
        `${JSON.stringify({ ...last, timestamp: new Date(Date.parse(last.timestamp) + 1000).toISOString() })}\n`,
      );
      expect(embeddedView(await (await fetch(address)).text()).steps).toHaveLength(lines.length + 1);

      stop.abort();
      expect(await finished).toBe(0);
      expect(out.stdout.endsWith('stopped\n')).toBe(true);
      await expect(fetch(address)).rejects.toThrow();
      // --serve without --out writes no file.
      expect((await readdir(dir)).includes('served.html')).toBe(false);
    });

    it('names a port that is in use (exit 2)', async () => {
      const { io, out } = stringSinks();
      const stop = new AbortController();
      let listening: (url: string) => void = () => {};
      const url = new Promise<string>((resolve) => {
        listening = resolve;
      });
      const first = runView([transcript, '--serve'], io, { signal: stop.signal, onListening: listening });
      const port = new URL(await url).port;
      const second = await view(transcript, '--serve', '--port', port);
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`loopchart: port ${port} on 127.0.0.1 is in use`);
      stop.abort();
      expect(await first).toBe(0);
      expect(out.stderr).toBe('');
    });
  });

  describe('bad input (exit 2, named on stderr)', () => {
    it('names a malformed line by its number', async () => {
      const file = join(dir, 'malformed.jsonl');
      await writeFile(file, `${lines[0]}\n{"version":1,"machine":"rpi"}\nnot json\n`);
      const { code, stderr } = await view(file);
      expect(code).toBe(2);
      expect(stderr).toContain('malformed.jsonl: is not a valid transcript');
      expect(stderr).toMatch(/line 2: not a transcript record/);
      expect(stderr).toMatch(/line 3: the line is not a JSON object/);
    });

    it('names a transcript of an unknown machine, an empty one and a mixed one', async () => {
      const record = JSON.parse(lines[0] as string) as Record<string, unknown>;
      const unknown = join(dir, 'unknown.jsonl');
      await writeFile(unknown, `${JSON.stringify({ ...record, machine: 'nope' })}\n`);
      const u = await view(unknown);
      expect(u.code).toBe(2);
      expect(u.stderr).toContain('unknown machine "nope"');

      const empty = join(dir, 'empty.jsonl');
      await writeFile(empty, '\n');
      const e = await view(empty);
      expect(e.code).toBe(2);
      expect(e.stderr).toContain('empty.jsonl: has no records');

      const mixed = join(dir, 'mixed.jsonl');
      await writeFile(mixed, `${lines[0]}\n${JSON.stringify({ ...record, machine: 'crank' })}\n`);
      const m = await view(mixed);
      expect(m.code).toBe(2);
      expect(m.stderr).toContain('mixes records of several machines (rpi, crank)');
    });

    it.each([
      [[], 'give exactly one transcript file'],
      [['missing.jsonl'], 'cannot read transcript'],
      [['RUN', '--port', '8080'], '--port needs --serve'],
      [['RUN', '--serve', '--port', 'eighty'], '--port must be a whole number'],
      [['RUN', '--serve', '--port', '70000'], '--port must be at most 65535'],
      [['RUN', '--open'], "Unknown option '--open'"],
    ])('%j', async (args, message) => {
      const { code, stderr } = await view(...args.map((a) => (a === 'RUN' ? transcript : a)));
      expect(code).toBe(2);
      expect(stderr.startsWith('loopchart: ')).toBe(true);
      expect(stderr).toContain(message);
    });
  });
});
