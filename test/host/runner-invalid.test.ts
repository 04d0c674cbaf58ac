/**
 * `createRunner().run()` resolves `{ status: 'invalid' }` for input it cannot start from, as
 * docs/host.md promises, instead of rejecting: outside a git worktree, without a spec, without a
 * verification command. Nothing is written.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunner, UNRESOLVED_STATE } from '../../src/host/runner.js';
import { createTempRepo } from '../effects/temp-repo.js';

const scratch = mkdtempSync(join(tmpdir(), 'loopchart-runner-invalid-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('createRunner().run() on input it cannot start from', () => {
  it('outside a git worktree: invalid, exit code 2, the problem named', async () => {
    const result = await createRunner({ worktree: scratch, spec: 'docs/spec.md', child: 'true' }).run();
    expect(result).toMatchObject({
      status: 'invalid',
      exitCode: 2,
      state: UNRESOLVED_STATE,
      code: 'git.not-a-worktree',
    });
    expect(result.message).toContain(scratch);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('without a spec or a ledger naming one: invalid (run.spec)', async () => {
    const repo = createTempRepo('loopchart-runner-invalid-');
    try {
      repo.commit('init', { 'README.md': 'x\n' });
      const result = await createRunner({ worktree: repo.dir, child: 'true' }).run();
      expect(result).toMatchObject({ status: 'invalid', exitCode: 2, code: 'run.spec' });
      expect(repo.git('status', '--porcelain')).toBe('');
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
    }
  });

  it('without a verification command and no manifest to find one in: invalid (run.verification)', async () => {
    const repo = createTempRepo('loopchart-runner-invalid-');
    try {
      repo.commit('init', { 'docs/spec.md': '# Spec\n' });
      const result = await createRunner({ worktree: repo.dir, spec: 'docs/spec.md', child: 'true' }).run();
      expect(result).toMatchObject({ status: 'invalid', exitCode: 2, code: 'run.verification' });
      expect(result.message).toContain('--verification');
      expect(repo.git('status', '--porcelain')).toBe('');
    } finally {
      rmSync(repo.dir, { recursive: true, force: true });
    }
  });
});
