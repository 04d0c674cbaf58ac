/**
 * Issue 10 item 1: a child commit that deletes the ledger, or leaves it unparsable at HEAD, is a
 * validation miss of its target: the parent's repair commit restores the ledger from the saved
 * copy and the run goes on. Never exit 1, never a second seed of a ledger that had attempts.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/gauntlet/ledger.js';
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

const LEDGER = 'docs/plans/feature.md';
const damages = [
  { name: 'deletes the ledger', shell: `git rm -q '${LEDGER}'` },
  {
    name: 'leaves the ledger unparsable',
    shell: `printf 'not a ledger\\n' > '${LEDGER}' && git add '${LEDGER}'`,
  },
];
/** Amends the child's commit, keeping its subject and body (so it stays attributed). */
const AMEND = 'git commit -q --amend --no-edit --allow-empty';

function repoFor(): LoopRepo {
  const repo = createLoopRepo({
    spec: specWith(['The first row', 'The second row']),
    script: {
      version: 1,
      targets: {
        seed: [{ do: 'seed', evidence: { '1': 'first; failing', '2': 'second; failing' } }],
        '1': [{ do: 'done', evidence: 'first; passes' }],
        '2': [{ do: 'done', evidence: 'second; passes' }],
      },
    },
  });
  repos.push(repo);
  return repo;
}

describe('a child commit that damages the ledger', () => {
  for (const damage of damages) {
    it(`${damage.name} in a row return: row miss, the repair restores the ledger`, async () => {
      const repo = repoFor();
      const child = await hostileChild(repo, {
        whenSubject: 'loop: row 1',
        after: `${damage.shell} && ${AMEND}`,
      });
      const out = await cli('run', withChild(await repo.runArgs('--allowance', '3'), child));
      expect(out.stderr).not.toContain('internal error');
      expect(out.code).toBe(0);
      expect(repo.subjects()).toEqual([
        'loop: seed ledger',
        'loop: seed evidence',
        'loop: row 1 done',
        'loop: repair row 1',
        'loop: row 1 done',
        'loop: row 2 done',
      ]);
      // The repair commit holds the saved ledger again (one attempt spent on row 1, same base).
      const repaired = parseLedger(repo.git('show', `HEAD~2:${LEDGER}`)).ledger;
      expect(repaired?.rows.map((r) => [r.row, r.status, r.attempts])).toEqual([
        [1, 'failed', 1],
        [2, 'open', 0],
      ]);
      expect(repaired?.base).toBe(repo.git('rev-parse', 'HEAD~6').trim());
      expect(repo.git('log', '-1', '--format=%b', 'HEAD~2')).toMatch(/miss: .*ledger/);
    });

    it(`${damage.name} in a seed return: seed miss, never a second seed ledger`, async () => {
      const repo = repoFor();
      const child = await hostileChild(repo, {
        whenSubject: 'loop: seed evidence',
        after: `${damage.shell} && ${AMEND}`,
      });
      const out = await cli('run', withChild(await repo.runArgs('--allowance', '3'), child));
      expect(out.stderr).not.toContain('internal error');
      expect(out.code).toBe(0);
      expect(repo.subjects()).toEqual([
        'loop: seed ledger',
        'loop: seed evidence',
        'loop: repair seed',
        'loop: seed evidence',
        'loop: row 1 done',
        'loop: row 2 done',
      ]);
    });
  }
});
