/**
 * createRunner's human-stop dialogue: a host that asks a person gets the stop text, is told why a
 * reply was refused, and the loop goes on with the reply it accepts.
 */

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { HumanReplyRejection } from '../../src/gauntlet/human-stop.js';
import { createRunner } from '../../src/host/runner.js';
import { createLoopRepo, type LoopRepo, useGitTestEnvironment } from '../support/loop-repo.js';

let repo: LoopRepo;
beforeAll(() => useGitTestEnvironment());
afterEach(() => repo?.remove());

describe('createRunner', () => {
  it('asks at a stop, explains a refused reply, and continues with an accepted one', async () => {
    repo = createLoopRepo({
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'one; failing', '2': 'two; passes' }, closeOnBaseline: [2] }],
          '1': [
            { do: 'failed', evidence: 'one; still failing' },
            { do: 'done', evidence: 'one; passes with the hint' },
          ],
        },
      },
    });
    const asked: { stopText: string; rejection: HumanReplyRejection | null }[] = [];
    const replies = ['discard', 'retry 1 | try the other fixture'];
    const notices: string[] = [];
    const result = await createRunner({
      worktree: repo.dir,
      spec: repo.specPath,
      child: await repo.childCommand(),
      verification: 'true',
      transcript: false,
      settings: { allowance: 1, implModel: 'test/model' },
      // Not about closure: waive the conformance audit, so the run finishes after the retry.
      waiveConformanceReview: true,
      ask: async (stopText, rejection) => {
        asked.push({ stopText, rejection });
        return replies.shift() ?? null;
      },
      onNotice: (text) => notices.push(text),
    }).run();
    expect(result.status).toBe('finished');
    expect(result.exitCode).toBe(0);
    expect(asked).toHaveLength(2);
    expect(asked[0]?.stopText.split('\n').slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(asked[0]?.rejection).toBeNull();
    expect(asked[1]?.rejection?.code).toBe('reply.not-offered');
    expect(result.answered?.choice).toEqual({ kind: 'retry', row: 1, hint: 'try the other fixture' });
    expect(result.ledger?.decisions).toContain('row 1 retry | try the other fixture | allowed attempts 2');
    expect(result.gitProcesses).toBeGreaterThan(0);
  });
});
