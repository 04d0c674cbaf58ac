/**
 * Membership plumbing of coordinated runs (issue 13): each companion member of the spec's
 * `## Legs` gets its checkout from the caller (`--leg <member>=<path>`, the runner's `legs`),
 * the home member's checkout is the worktree, and every wrong shape is a named error (exit 2)
 * before anything is written.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { legOptions, runOptionsFromArgs } from '../../src/cli/run.js';
import { UsageError } from '../../src/common/errors.js';
import { createRunner, UNRESOLVED_STATE } from '../../src/host/runner.js';
import { createTempRepo, type TempRepo } from '../effects/temp-repo.js';

const repos: TempRepo[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'loopchart-legs-plain-'));
afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(scratch, { recursive: true, force: true });
});

const SPEC = `# Feature

## Acceptance criteria

- [ ] The page lists items.
- [ ] The API serves items.
- [ ] The API pages items.

## Legs

- web (home): 1, 2
- api: 2-3
`;

function repo(spec?: string): TempRepo {
  const made = createTempRepo('loopchart-legs-');
  repos.push(made);
  if (spec !== undefined) made.commit('spec', { 'docs/specs/feature.md': spec });
  return made;
}

async function runWith(home: TempRepo, legs?: Record<string, string>) {
  return createRunner({
    worktree: home.dir,
    spec: 'docs/specs/feature.md',
    child: 'true',
    verification: 'true',
    transcript: false,
    ...(legs === undefined ? {} : { legs }),
  }).run();
}

describe('the runner refuses a coordinated run whose checkouts do not fit (exit 2, nothing written)', () => {
  it('a companion member without a checkout: run.leg-missing, naming the member and the option', async () => {
    const home = repo(SPEC);
    const result = await runWith(home);
    expect(result).toMatchObject({
      status: 'invalid',
      exitCode: 2,
      state: UNRESOLVED_STATE,
      code: 'run.leg-missing',
    });
    expect(result.message).toContain('--leg api=<path>');
    expect(home.git('status', '--porcelain')).toBe('');
  });

  it('a member the spec does not declare: run.leg-unknown', async () => {
    const home = repo(SPEC);
    const api = repo();
    const result = await runWith(home, { api: api.dir, db: api.dir });
    expect(result).toMatchObject({ exitCode: 2, code: 'run.leg-unknown' });
    expect(result.message).toContain('"db"');
  });

  it('the home member given as a leg: run.leg-unknown (its checkout is the worktree)', async () => {
    const home = repo(SPEC);
    const api = repo();
    const result = await runWith(home, { api: api.dir, web: home.dir });
    expect(result).toMatchObject({ exitCode: 2, code: 'run.leg-unknown' });
  });

  it('a leg on a single-leg spec: run.leg-unknown', async () => {
    const home = repo('# Feature\n\n## Acceptance criteria\n\n- [ ] One thing.\n');
    const api = repo();
    const result = await runWith(home, { api: api.dir });
    expect(result).toMatchObject({ exitCode: 2, code: 'run.leg-unknown' });
  });

  it('a checkout that is not a git work tree, or does not exist: run.leg-not-worktree', async () => {
    const home = repo(SPEC);
    const plain = join(scratch, 'plain');
    mkdirSync(plain);
    expect(await runWith(home, { api: plain })).toMatchObject({ exitCode: 2, code: 'run.leg-not-worktree' });
    expect(await runWith(home, { api: join(scratch, 'absent') })).toMatchObject({
      exitCode: 2,
      code: 'run.leg-not-worktree',
    });
  });

  it('a companion checkout equal to home (also through a folder inside it): run.leg-home', async () => {
    const home = repo(SPEC);
    expect(await runWith(home, { api: home.dir })).toMatchObject({ exitCode: 2, code: 'run.leg-home' });
    expect(await runWith(home, { api: join(home.dir, 'docs') })).toMatchObject({
      exitCode: 2,
      code: 'run.leg-home',
    });
    expect(home.git('status', '--porcelain')).toBe('');
  });

  it('one checkout for two members: run.leg-shared', async () => {
    const spec = SPEC.replace('- api: 2-3', '- api: 2\n- db: 3');
    const home = repo(spec);
    const shared = repo();
    const result = await runWith(home, { api: shared.dir, db: shared.dir });
    expect(result).toMatchObject({ exitCode: 2, code: 'run.leg-shared' });
  });
});

describe('the checkouts reach the machine input', () => {
  it('home = the worktree, companions at their top level with symlinks resolved', async () => {
    const home = repo(SPEC);
    const api = repo();
    mkdirSync(join(api.dir, 'src'));
    const inputs: unknown[] = [];
    await createRunner({
      worktree: home.dir,
      spec: 'docs/specs/feature.md',
      child: 'true',
      verification: 'true',
      transcript: false,
      legs: { api: join(api.dir, 'src') },
      inspect: (event) => {
        if (event.type === '@xstate.snapshot' && inputs.length === 0) {
          const snapshot = event.snapshot as { context?: { input?: { legCheckouts?: unknown } } };
          if (snapshot.context?.input?.legCheckouts !== undefined) inputs.push(snapshot.context.input);
        }
      },
    }).run();
    expect(inputs[0]).toMatchObject({
      legCheckouts: { web: realpathSync(home.dir), api: realpathSync(api.dir) },
    });
  });
});

describe('loopchart run --leg', () => {
  it('reads <member>=<path> (repeatable), resolving a relative path from the current directory', () => {
    expect(legOptions(['api=../api', 'db=/srv/db'])).toEqual({ api: resolve('../api'), db: '/srv/db' });
    expect(legOptions([])).toBeUndefined();
    const options = runOptionsFromArgs(['--spec', 's.md', '--child', 'true', '--leg', 'api=x']);
    expect(options.legs).toEqual({ api: resolve('x') });
    expect(runOptionsFromArgs(['--spec', 's.md', '--child', 'true']).legs).toBeUndefined();
  });

  it('refuses a value without a member or a path, and a member given twice (usage, exit 2)', () => {
    expect(() => legOptions(['api'])).toThrow(UsageError);
    expect(() => legOptions(['=../api'])).toThrow(UsageError);
    expect(() => legOptions(['api='])).toThrow(UsageError);
    expect(() => legOptions(['api=a', 'api=b'])).toThrow(/given twice/);
  });
});
