/**
 * Local use never loads Restate (issue 19, docs/decisions/scale-out.md F1): the Restate SDKs are
 * optional peer dependencies, imported only by `serve`, `submit`, `answer` and `runs`.
 *
 * Two checks. Statically: the modules the library entries and the CLI's `run` reach through static
 * imports include none of @restatedev. At run time: the whole CLI, bundled with the SDKs external,
 * runs a real local `loopchart run` under a module hook that records every @restatedev module node
 * is asked to load; the hook sees none. A positive control, `loopchart submit`, proves the hook
 * does see the SDK when a fleet command loads it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { createLoopRepo, GIT_TEST_ENV } from '../support/loop-repo.js';

const root = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'loopchart-lazy-sdk-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every module reachable from `entry` through static imports (dynamic imports not followed). */
async function staticClosure(entry: string): Promise<Set<string>> {
  const result = await build({
    entryPoints: [join(root, entry)],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const inputs = (result.metafile as Metafile).inputs;
  const reached = new Set<string>();
  const visit = (path: string) => {
    if (reached.has(path)) return;
    reached.add(path);
    for (const imported of inputs[path]?.imports ?? [])
      if (imported.kind === 'import-statement' || imported.kind === 'require-call') visit(imported.path);
  };
  visit(relative(process.cwd(), join(root, entry)));
  return reached;
}

describe('without serve, nothing imports the Restate SDK', () => {
  for (const entry of ['src/index.ts', 'src/entry-host.ts', 'src/cli/main.ts', 'src/cli/run.ts']) {
    it(`${entry} reaches no @restatedev module through static imports`, async () => {
      const reached = [...(await staticClosure(entry))];
      expect(reached.length).toBeGreaterThan(1);
      expect(reached.filter((path) => path.includes('@restatedev'))).toEqual([]);
      expect(reached.filter((path) => path.includes('src/fleet/'))).toEqual([]);
    });
  }

  it('a local loopchart run loads no @restatedev module; loopchart submit does', async () => {
    // The CLI bundle lives under node_modules/.cache so node resolves the external SDKs.
    const outdir = join(root, 'node_modules', '.cache', 'loopchart-lazy-sdk');
    mkdirSync(outdir, { recursive: true });
    const cli = join(outdir, `cli-${process.pid}.mjs`);
    await build({
      entryPoints: [join(root, 'src/cli/main.ts')],
      outfile: cli,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      external: ['@restatedev/*'],
      define: { __LOOPCHART_VERSION__: '"test"' },
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
    const log = join(scratch, 'loaded.log');
    const hooks = join(scratch, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@restatedev/')) appendFileSync(${JSON.stringify(log)}, specifier + '\\n');
  return next(specifier, context);
}
`,
    );
    const register = join(scratch, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(`file://${hooks}`)});\n`,
    );
    const node = (args: readonly string[]) =>
      spawnSync(process.execPath, ['--import', register, cli, ...args], {
        env: { ...process.env, ...GIT_TEST_ENV },
        encoding: 'utf8',
      });
    const loaded = () => {
      try {
        return readFileSync(log, 'utf8');
      } catch {
        return '';
      }
    };

    const repo = createLoopRepo({
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'one; failing', '2': 'two; passes' }, closeOnBaseline: [2] }],
          '1': [{ do: 'done', evidence: 'one; passes now' }],
        },
      },
    });
    try {
      const run = node(await repo.runArgs().then((args) => ['run', ...args]));
      expect(run.status, run.stderr).toBe(0);
      expect(repo.subjects().length).toBeGreaterThan(1);
      expect(loaded()).toBe('');
    } finally {
      repo.remove();
    }

    const credential = join(scratch, 'credential');
    writeFileSync(credential, 'alice 0123456789abcdef0123\n');
    // Port 9 (discard) on loopback: nothing listens, so the call fails after the SDK is loaded.
    const submit = node([
      'submit',
      '--ingress',
      'http://127.0.0.1:9',
      '--credential',
      credential,
      '--remote',
      'r',
      '--spec',
      's',
      '--branch',
      'b',
    ]);
    expect(submit.status).toBe(2);
    expect(loaded()).toContain('@restatedev/restate-sdk-clients');
  }, 60_000);
});
