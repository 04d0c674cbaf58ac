/**
 * The packed tarball as a consumer gets it (docs/decisions/package.md): publint and
 * arethetypeswrong report nothing, every `exports` target ships, no source maps or internal notes
 * ship, `loopchart/core` bundles for a browser, and `loopchart/host` never reaches @viz-js.
 * Needs a fresh `npm run build` (npm test builds first); skipped with a warning when dist/ is stale.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  exports: Record<
    string,
    string | { import: { types: string; default: string }; require: { types: string; default: string } }
  >;
  os: string[];
  peerDependencies: Record<string, string>;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

function newestSource(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((newest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    return Math.max(newest, time);
  }, 0);
}
const built =
  existsSync(join(dist, 'index.js')) &&
  statSync(join(dist, 'index.js')).mtimeMs >=
    Math.max(newestSource(join(root, 'src')), newestSource(join(root, 'machines')));

describe.skipIf(!built)('the packed package (npm run build first)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'loopchart-pack-'));
  let tarball = '';
  let files: string[] = [];
  beforeAll(() => {
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', scratch], {
      cwd: root,
      stdio: 'ignore',
    });
    tarball = join(scratch, `${pkg.name}-${pkg.version}.tgz`);
    files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('publint reports nothing', () => {
    const run = spawnSync(join(root, 'node_modules', '.bin', 'publint'), ['run', tarball, '--strict'], {
      encoding: 'utf8',
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('All good!');
  }, 60_000);

  it('arethetypeswrong reports nothing for node16 (ESM and CJS) and bundlers', () => {
    // node10 resolution predates `exports`; the package needs Node >= 20 (engines), see the decision.
    const run = spawnSync(
      join(root, 'node_modules', '.bin', 'attw'),
      [tarball, '--profile', 'node16', '--format', 'json'],
      {
        encoding: 'utf8',
      },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { problems?: unknown[] | Record<string, unknown[]> };
    const problems = Array.isArray(report.problems)
      ? report.problems
      : Object.values(report.problems ?? {}).flat();
    const counted = (problems as { resolutionKind?: string }[]).filter((p) => p.resolutionKind !== 'node10');
    expect(counted).toEqual([]);
  }, 120_000);

  it('ships every exports target, no source map and no internal notes', () => {
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'string') {
        if (!target.includes('*')) expect(files, subpath).toContain(target.replace(/^\.\//, ''));
        continue;
      }
      for (const condition of [target.import, target.require])
        for (const file of [condition.types, condition.default])
          expect(files, subpath).toContain(file.replace(/^\.\//, ''));
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('docs/notes'))).toEqual([]);
    expect(files).toContain('schemas/ledger.json');
    expect(files).toContain('schemas/cli-result.v1.json');
  });

  it('declares xstate as a peer, Linux as its os, and builds on prepack, not prepare', () => {
    expect(pkg.peerDependencies.xstate).toMatch(/^\^5\./);
    expect(pkg.dependencies.xstate).toBeUndefined();
    expect(pkg.os).toEqual(['linux']);
    expect(pkg.scripts.prepare).toBeUndefined();
    expect(pkg.scripts.prepack).toBe('tsup');
  });

  /** Every file the module reaches through static and dynamic imports, and the packages it names. */
  function closure(file: string, seen = new Set<string>(), packages = new Set<string>()) {
    if (seen.has(file)) return { seen, packages };
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["']([^"']+)["']/g;
    for (const match of text.matchAll(pattern)) {
      const spec = match[1] as string;
      if (spec.startsWith('.')) closure(join(file, '..', spec), seen, packages);
      else packages.add(spec);
    }
    return { seen, packages };
  }

  it.each([['host.js'], ['host.cjs'], ['index.js'], ['core.js'], ['machines.js']])(
    '%s never reaches @viz-js, @xstate/graph or the Restate SDKs, even through a dynamic import',
    (entry) => {
      const { packages } = closure(join(dist, entry));
      expect(
        [...packages].filter(
          (p) => p.startsWith('@viz-js/') || p.startsWith('@xstate/graph') || p.startsWith('@restatedev/'),
        ),
      ).toEqual([]);
    },
  );

  it('core reaches no xstate and no node built-in', () => {
    const { packages } = closure(join(dist, 'core.js'));
    expect([...packages].filter((p) => p === 'xstate' || p.startsWith('node:') || p === 'execa')).toEqual([]);
  });

  it("bundles core's parseLedger for a browser (no node built-in)", async () => {
    const result = await build({
      stdin: {
        contents: `export { parseLedger } from ${JSON.stringify(join(dist, 'core.js'))};`,
        resolveDir: root,
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      minify: true,
      write: false,
      logLevel: 'silent',
    });
    expect(result.errors).toEqual([]);
    expect(result.outputFiles[0]?.text).toContain('parseLedger');
    // Issue 14's bound; bench/core-bundle.mjs prints the size against the root entry's.
    expect(result.outputFiles[0]?.contents.byteLength).toBeLessThanOrEqual(150 * 1024);
  });
});

if (!built)
  it('explains why the package checks were skipped', () => {
    console.warn(
      'skipped the packed-package checks: dist/ is missing or older than the sources; run `npm run build`',
    );
  });
