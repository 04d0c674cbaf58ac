/**
 * End-to-end: files the loop cannot prove it owns survive every recovery path: ignored files
 * (`clean -fd` leaves them), untracked files that were there before a dispatch, edits made while
 * the loop was stopped, and edits made after a child ended while its runner was down. Only the
 * child's own changes are ever reset, and only with provenance.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/host/child-script.js';
import { killProcessesIn } from '../support/demo-run.js';
import {
  cli,
  cliProcess,
  createLoopRepo,
  type LoopRepo,
  useGitTestEnvironment,
} from '../support/loop-repo.js';

const repos: LoopRepo[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
});

function repo(script: Record<string, Behaviour[]>): LoopRepo {
  const created = createLoopRepo({
    script: { version: 1, targets: script },
    files: { '.gitignore': 'build/\n' },
  });
  repos.push(created);
  return created;
}

const dirtySeed: Behaviour = {
  do: 'seed',
  evidence: { '1': 'one; failing' },
  files: { 'src/half.txt': 'half a change\n', 'build/child.out': 'ignored output\n' },
  commit: 'none',
};
const validSeed: Behaviour = {
  do: 'seed',
  evidence: { '1': 'one; passes', '2': 'two; passes' },
  closeOnBaseline: [1, 2],
};

describe('user files survive recovery', () => {
  it('keeps ignored files through an automatic reset and clean of an interrupted dispatch', async () => {
    const r = repo({ seed: [dirtySeed, validSeed] });
    r.write('build/cache.bin', 'the user cache\n');
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(r.subjects().slice(0, 3)).toEqual([
      'loop: seed ledger',
      'loop: repair seed',
      'loop: seed evidence',
    ]);
    expect(r.read('build/cache.bin')).toBe('the user cache\n');
    // The child's ignored output is ignored, so clean -fd leaves it too; its tracked-area change is gone.
    expect(r.read('build/child.out')).toBe('ignored output\n');
    expect(existsSync(join(r.dir, 'src/half.txt'))).toBe(false);
  });

  it('never touches untracked files that were there before the run: it stops at the dirty tree first', async () => {
    const r = repo({ seed: [dirtySeed, validSeed] });
    r.write('notes.txt', 'notes from before the run\n');
    const args = await r.runArgs('--allowance', '3');
    const first = await cli('run', args);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('Stopped: dirty tree - ?? notes.txt');
    expect(r.subjects()).toEqual([]);
    expect(r.read('notes.txt')).toBe('notes from before the run\n');
    // The person commits the notes; the run then owns the checkout and resets only the child's work.
    r.git('add', 'notes.txt');
    r.git('commit', '-q', '-m', 'notes');
    const second = await cli('run', args);
    expect(second.code).toBe(0);
    expect(r.subjects().slice(0, 4)).toEqual([
      'notes',
      'loop: seed ledger',
      'loop: repair seed',
      'loop: seed evidence',
    ]);
    expect(r.read('notes.txt')).toBe('notes from before the run\n');
    expect(existsSync(join(r.dir, 'src/half.txt'))).toBe(false);
  });

  it('does not reset edits made after the child ended while the runner was down', async () => {
    const r = repo({ seed: [dirtySeed, validSeed] });
    const args = await r.runArgs('--allowance', '3');
    // Side effects of a fresh run: 1 seed ledger commit, 2 reservation, 3 child launched, 4 child ended.
    const crashed = await cliProcess(['run', ...args], { LOOPCHART_CRASH_AFTER: '4' });
    expect(crashed.signal).toBe('SIGKILL');
    r.write('README.md', 'edited while the runner was down\n');
    const resumed = await cli('run', args);
    expect(resumed.code).toBe(3);
    expect(resumed.stdout).toContain('recovery incomplete - checkout ownership unproven');
    expect(r.read('README.md')).toBe('edited while the runner was down\n');
    expect(r.read('src/half.txt')).toBe('half a change\n');
  });

  it('resets a crashed run whose checkout nobody touched, keeping the ignored files', async () => {
    const r = repo({ seed: [dirtySeed, validSeed] });
    r.write('build/cache.bin', 'the user cache\n');
    const args = await r.runArgs('--allowance', '3');
    const crashed = await cliProcess(['run', ...args], { LOOPCHART_CRASH_AFTER: '4' });
    expect(crashed.signal).toBe('SIGKILL');
    const resumed = await cli('run', args);
    expect(resumed.code).toBe(0);
    expect(r.subjects().slice(0, 3)).toEqual([
      'loop: seed ledger',
      'loop: repair seed',
      'loop: seed evidence',
    ]);
    expect(r.read('build/cache.bin')).toBe('the user cache\n');
  });
});
