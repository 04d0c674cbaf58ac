/**
 * Issue 11: git processes per loop iteration, a count (never a time), on a real repository with the
 * real scripted child. A `git` wrapper first on PATH logs every git process the runner starts (a
 * process whose environment carries LOOPCHART_TASK belongs to the child and is not counted), and
 * the runner's side-effect hook writes a marker into the same log at every reservation, so the
 * processes between two reservations are one iteration plus the next reservation's reads.
 *
 * Bounds (issue 11): at most 3 per admitted iteration (the child commits one admitted return) and at
 * most 6 per no-op iteration (the child changes nothing and writes no return: interrupted recovery,
 * the reset and the repair commit).
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../../src/host/runner.js';
import { killProcessesIn } from '../support/demo-run.js';
import { createLoopRepo, type LoopRepo, specWith, useGitTestEnvironment } from '../support/loop-repo.js';

const MARK = '== ';
let bin: string;
let log: string;
let savedPath: string | undefined;
const repos: LoopRepo[] = [];

beforeAll(() => {
  useGitTestEnvironment();
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  bin = mkdtempSync(join(tmpdir(), 'loopchart-git-count-'));
  log = join(bin, 'git.log');
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nif [ -z "$LOOPCHART_TASK" ]; then printf 'git %s\\n' "$*" >> '${log}'; fi\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}:${savedPath ?? ''}`;
});

afterAll(() => {
  process.env.PATH = savedPath;
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
  rmSync(bin, { recursive: true, force: true });
});

/** One iteration as logged: the side effects the runner reported and the git commands it ran. */
interface Segment {
  readonly effects: string[];
  readonly git: string[];
}

/** Splits the log at every reservation; drops what precedes the first and the unfinished last. */
function iterations(text: string): Segment[] {
  const segments: Segment[] = [];
  let current: Segment | null = null;
  for (const line of text.split('\n')) {
    if (line === `${MARK}reserveDispatch`) {
      if (current !== null) segments.push(current);
      current = { effects: [], git: [] };
    } else if (current !== null && line.startsWith(MARK)) current.effects.push(line.slice(MARK.length));
    else if (current !== null && line.startsWith('git ')) current.git.push(line);
  }
  return segments;
}

const ADMITTED = ['child launched', 'dispatchChild', 'finishDispatch'];
const NO_OP = [
  'child launched',
  'dispatchChild',
  'checkProvenance',
  'cleanupJobs',
  'resetCheckout',
  'commit: loop: repair row 2',
  'finishDispatch',
];

describe('git processes per iteration', () => {
  it('stay within 3 per admitted iteration and 6 per no-op iteration', async () => {
    const repo = createLoopRepo({
      spec: specWith(['The first row', 'The second row']),
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'first; failing', '2': 'second; failing' } }],
          '1': [
            { do: 'failed', evidence: 'first; still failing' },
            { do: 'failed', evidence: 'first; still failing again' },
            { do: 'done', evidence: 'first; passes' },
          ],
          '2': [{ do: 'nothing', writeReturn: false }],
        },
      },
    });
    repos.push(repo);
    writeFileSync(log, '');
    const result = await createRunner({
      worktree: repo.dir,
      spec: repo.specPath,
      child: await repo.childCommand(),
      verification: 'true',
      transcript: false,
      // Row 1 closes on its third attempt; row 2 spends its allowance on no-op returns and the run
      // stops for a human.
      settings: { allowance: 4, escalateAfter: 10, implModel: 'test/model', killGraceMs: 500 },
      onSideEffect: (name) => appendFileSync(log, `${MARK}${name}\n`),
    }).run();
    expect(result.status).toBe('stopped');
    expect(result.state).toBe('humanStop.rowAllowance');

    const segments = iterations(readFileSync(log, 'utf8'));
    const admitted = segments.filter((s) => s.effects.join('|') === ADMITTED.join('|'));
    const noOp = segments.filter((s) => s.effects.join('|') === NO_OP.join('|'));
    // The seed and row 1's three returns are admitted; row 2's no-op returns follow: two plain
    // ones, then one the loop follows with an escalation commit (a step of its own), then the last,
    // not closed by a following reservation.
    const seen = segments.map((s) => s.effects.join(', ')).join('\n');
    expect(admitted, seen).toHaveLength(4);
    expect(noOp, seen).toHaveLength(2);
    for (const segment of admitted) expect(segment.git.length, segment.git.join('\n')).toBeLessThanOrEqual(3);
    for (const segment of noOp) expect(segment.git.length, segment.git.join('\n')).toBeLessThanOrEqual(6);
  }, 300_000);
});
