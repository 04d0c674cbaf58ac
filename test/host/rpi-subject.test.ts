/**
 * RPI's subject on a real repository: the digest moves exactly when the subject's bytes, kinds or
 * executable bits move, changed paths come from commits and the working tree, and a lane's roots
 * keep another lane's edits out of its digest. The run directory lives under .git.
 */
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { createGitPort } from '../../src/effects/git.js';
import { createRunDirectory } from '../../src/effects/run-directory.js';
import { measureSubject } from '../../src/effects/subject-measure.js';
import { laneSubjectRoots } from '../../src/host/crank-runner.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function repository(): { repo: TempRepo; base: string } {
  const repo = createTempRepo('loopchart-rpi-subject-');
  repos.push(repo);
  const base = repo.commit('subject', {
    'src/a/app.ts': 'a\n',
    'src/b/lib.ts': 'b\n',
    'tests/app.test.ts': 't\n',
  });
  return { repo, base };
}

describe('measureSubject', () => {
  it('moves the digest with content and the executable bit, not with committing', async () => {
    const { repo, base } = repository();
    const git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
    const before = await measureSubject({ git, base });
    expect(before).toEqual({ digest: expect.stringMatching(/^[0-9a-f]{64}$/), changedPaths: [] });
    expect(await measureSubject({ git, base })).toEqual(before);

    repo.write('src/a/app.ts', 'a2\n');
    const edited = await measureSubject({ git, base });
    expect(edited.digest).not.toBe(before.digest);
    expect(edited.changedPaths).toEqual(['src/a/app.ts']);

    repo.commit('edit');
    const committed = await measureSubject({ git, base });
    expect(committed.digest).toBe(edited.digest);
    expect(committed.changedPaths).toEqual(['src/a/app.ts']);

    chmodSync(join(repo.dir, 'src/a/app.ts'), 0o755);
    expect((await measureSubject({ git, base })).digest).not.toBe(edited.digest);
  });

  it('lists untracked files and keeps changes outside the roots out of digest and paths', async () => {
    const { repo, base } = repository();
    const git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
    const laneA = await measureSubject({ git, base, roots: ['src/a'] });
    repo.write('src/b/new.ts', 'n\n');
    repo.write('tests/new.test.ts', 'n\n');
    expect(await measureSubject({ git, base, roots: ['src/a'] })).toEqual(laneA);
    const whole = await measureSubject({ git, base });
    expect(whole.changedPaths).toEqual(['src/b/new.ts', 'tests/new.test.ts']);
    const excluded = await measureSubject({ git, base, exclusions: ['tests'] });
    expect(excluded.changedPaths).toEqual(['src/b/new.ts']);
  });
});

describe('laneSubjectRoots', () => {
  const lane = (scope: string[], regenSurfaces: string[] | null) => ({
    id: 'l',
    scope,
    brief: 'b',
    acceptance: ['true'],
    regenSurfaces,
  });

  it('is the literal prefixes of the write scope and the regen surfaces', () => {
    expect(laneSubjectRoots(lane(['src/parser/**', 'src/parser/*.ts'], ['docs/api/**']))).toEqual([
      'src/parser',
      'docs/api',
    ]);
  });

  it('is the whole repository when an entry has no literal prefix', () => {
    expect(laneSubjectRoots(lane(['src/**'], ['**/*.md']))).toEqual(['.']);
  });
});

describe('createRunDirectory', () => {
  it('creates the run directory under the git directory, outside the subject', async () => {
    const { repo, base } = repository();
    const run = await createRunDirectory(
      join(repo.dir, 'src'),
      'rpi',
      () => new Date('2026-01-02T03:04:05.678Z'),
    );
    expect(run.path.startsWith(join(repo.dir, '.git', 'loopchart', 'rpi', '20260102T030405Z-'))).toBe(true);
    expect(existsSync(run.path)).toBe(true);
    const git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
    expect((await measureSubject({ git, base })).changedPaths).toEqual([]);
  });

  it('names a directory that is not in a repository', async () => {
    const error = await createRunDirectory('/', 'rpi').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('rpi.not-a-repository');
  });
});
