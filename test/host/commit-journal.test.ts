import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitPort, type GitPort } from '../../src/effects/git.js';
import { recoverCommitIntent, writeCommitIntent } from '../../src/host/commit-journal.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';

let repo: TempRepo;
let git: GitPort;
let journal: string;
beforeEach(() => {
  repo = createTempRepo('loopchart-journal-');
  git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
  journal = join(repo.dir, '.git', 'journal.json');
});
afterEach(() => repo.remove());

describe('the commit journal', () => {
  it('rolls back a parent commit that was written but not committed, staged or not', async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    await writeCommitIntent(journal, {
      version: 1,
      headBefore: head,
      subject: 'loop: retry row 1',
      files: [
        { path: 'README.md', before: 'hello\n', after: 'changed by the loop\n' },
        { path: 'plans/new.md', before: null, after: 'a new ledger\n' },
      ],
    });
    repo.write('README.md', 'changed by the loop\n');
    repo.write('plans/new.md', 'a new ledger\n');
    repo.git('add', 'README.md', 'plans/new.md');
    expect(await recoverCommitIntent(journal, git)).toBe('rolled-back');
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(repo.dir, 'plans/new.md'))).toBe(false);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(existsSync(journal)).toBe(false);
  });

  it('rolls back a redraw that deleted the ledger but did not commit (after: null)', async () => {
    repo.write('plans/ledger.md', 'the ledger\n');
    repo.git('add', 'plans/ledger.md');
    repo.git('commit', '-q', '-m', 'ledger');
    const head = repo.git('rev-parse', 'HEAD').trim();
    await writeCommitIntent(journal, {
      version: 1,
      headBefore: head,
      subject: 'loop: redraw',
      files: [{ path: 'plans/ledger.md', before: 'the ledger\n', after: null }],
    });
    repo.git('rm', '-q', 'plans/ledger.md');
    expect(await recoverCommitIntent(journal, git)).toBe('rolled-back');
    expect(readFileSync(join(repo.dir, 'plans/ledger.md'), 'utf8')).toBe('the ledger\n');
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('only clears the journal when the commit was made', async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    await writeCommitIntent(journal, {
      version: 1,
      headBefore: head,
      subject: 'loop: raise allowance',
      files: [{ path: 'README.md', before: 'hello\n', after: 'raised\n' }],
    });
    repo.commit('loop: raise allowance', { 'README.md': 'raised\n' });
    expect(await recoverCommitIntent(journal, git)).toBe('committed');
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('raised\n');
  });

  it('leaves a file alone when someone else changed it after the loop wrote it', async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    await writeCommitIntent(journal, {
      version: 1,
      headBefore: head,
      subject: 'loop: amend',
      files: [{ path: 'README.md', before: 'hello\n', after: 'amended\n' }],
    });
    writeFileSync(join(repo.dir, 'README.md'), 'a person edited this\n');
    expect(await recoverCommitIntent(journal, git)).toBe('abandoned');
    expect(readFileSync(join(repo.dir, 'README.md'), 'utf8')).toBe('a person edited this\n');
  });
});
