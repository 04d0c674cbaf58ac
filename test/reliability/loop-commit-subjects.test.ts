/**
 * Issue 10 item 6: the protocol matches a child's commit subject exactly. A real child commits
 * its return and then rewrites the subject with a leading space, a tab or a byte-order mark; the
 * loop must treat that return as a validation miss (a parent repair), never admit it.
 */
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

const cases = [
  { name: 'a leading space', prefix: ' ', shown: '" loop: row 1 done"' },
  { name: 'a tab', prefix: '\\t', shown: '"\\tloop: row 1 done"' },
  { name: 'a byte-order mark', prefix: '\\357\\273\\277', shown: '"\\ufeffloop: row 1 done"' },
];

describe('commit subjects are matched exactly', () => {
  for (const c of cases)
    it(`repairs a row return whose subject starts with ${c.name}`, async () => {
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
      // The first row return is rewritten: same body (the attribution lines), prefixed subject.
      const child = await hostileChild(repo, {
        whenSubject: 'loop: row',
        after: `s=$(git log -1 --format=%s); b=$(git log -1 --format=%b)
git commit -q --amend --cleanup=verbatim -m "$(printf '${c.prefix}%s\\n\\n%s\\n' "$s" "$b")"`,
      });
      const out = await cli('run', withChild(await repo.runArgs('--allowance', '3'), child));
      expect(out.code).toBe(0);
      // Hand-written: the rewritten return is a miss, the parent repairs it, the retry is admitted.
      const prefix = c.prefix === ' ' ? ' ' : c.prefix === '\\t' ? '\t' : '\ufeff';
      expect(repo.subjects()).toEqual([
        'loop: seed ledger',
        'loop: seed evidence',
        `${prefix}loop: row 1 done`,
        'loop: repair row 1',
        'loop: row 1 done',
      ]);
      const repairBody = repo.git('log', '-1', '--format=%b', 'HEAD~1');
      expect(repairBody).toContain(`commit subject is ${c.shown}`);
      expect(repo.ledger()).toMatch(/\| 1 \| done \| 2 \|/);
    });
});
