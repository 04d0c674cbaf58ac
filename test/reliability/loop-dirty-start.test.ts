/**
 * Issue 10 item 2: a run that starts on a dirty tree (untracked and modified user files) stops at
 * the dirty-tree stop before it seeds a ledger or dispatches a child, offers only `stop`, and no
 * answer ever resets, cleans or stages the person's files. Once the person commits them, the run
 * seeds and goes on as usual.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killProcessesIn } from '../support/demo-run.js';
import { cli, createLoopRepo, type LoopRepo, specWith, useGitTestEnvironment } from '../support/loop-repo.js';
import { hostileChild, withChild } from './loop-hostile-child.js';

const repos: LoopRepo[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
});

describe('a dirty tree at a fresh entry', () => {
  it('stops before any dispatch, refuses discard, and leaves every user file as it was', async () => {
    const repo = createLoopRepo({
      spec: specWith(['The only row']),
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
          '1': [{ do: 'done', evidence: 'only; passes' }],
        },
      },
    });
    repos.push(repo);
    repo.write('notes.txt', 'my untracked notes\n');
    repo.write('README.md', 'my uncommitted edit\n');
    // A child that stages everything would take the person's files into its commit.
    const child = await hostileChild(repo, {
      after: 'git add -A && git commit -q --amend --no-edit',
      every: true,
    });
    const args = withChild(await repo.runArgs('--allowance', '3'), child);

    const first = await cli('run', args);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('Stopped: dirty tree - ');
    expect(first.stdout).toContain('?? notes.txt');
    expect(first.stdout).toContain('M README.md');
    expect(first.stdout).toContain('1 - Stop and keep the branch as it is: stop');
    expect(first.stdout).not.toMatch(/^\d+ - .*: discard$/m);
    expect(repo.subjects()).toEqual([]);
    expect(existsSync(join(repo.dir, repo.ledgerPath))).toBe(false);

    const discard = await cli('run', [...args, '--answer', 'discard']);
    expect(discard.code).not.toBe(0);
    expect(repo.read('notes.txt')).toBe('my untracked notes\n');
    expect(repo.read('README.md')).toBe('my uncommitted edit\n');
    expect(repo.subjects()).toEqual([]);
    expect(repo.status()).toBe(' M README.md\n?? notes.txt\n');

    // What the person does next (docs/human-stops.md): commit (or stash) the changes, run again.
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'my work');
    const after = await cli('run', args);
    expect(after.code).toBe(0);
    expect(repo.subjects()).toEqual([
      'my work',
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 done',
    ]);
    expect(repo.read('notes.txt')).toBe('my untracked notes\n');
  });
});
