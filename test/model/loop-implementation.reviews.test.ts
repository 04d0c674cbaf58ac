/**
 * Verify steps 2-5 on the statechart (gauntlet-protocol §3.18, docs/review-contract.md "What
 * follows a verdict", docs/human-stops.md `closure-carried-open`), driven through the real machine
 * by a scripted in-memory host on a single-leg ledger whose rows are closed: the tasks a fix round
 * hands the fixer, how verify ends on CONFORMS and on a carried-open GAPS, and the closure block.
 * Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import type { ReviewReport } from '../../machines/loop-implementation/index.js';
import type { ReviewReturn } from '../../src/gauntlet/review.js';
import {
  SINGLE_LEG_LEDGER,
  SINGLE_LEG_SPEC,
  sha,
  startVerifyRun,
  type VerifyScript,
} from '../support/verify-host.js';

const run = (script: Partial<VerifyScript>) =>
  startVerifyRun({ ledgerText: SINGLE_LEG_LEDGER, specText: SINGLE_LEG_SPEC, head: sha('1'), ...script });

/** A report of a reviewer that ran and returned `review`, on `head`, after `used` fix rounds. */
function reviewed(
  review: ReviewReturn,
  head: string,
  options: { used?: number; fixCommits?: string[] } = {},
): ReviewReport {
  return {
    ran: true,
    role: review.role,
    returned: { ok: true, review },
    counts: { used: options.used ?? 0, granted: 0 },
    settings: { maxFixRounds: 5, enforce: true },
    head,
    fixCommits: options.fixCommits ?? [],
  };
}

/** The lines of a finished run's closure block. */
function closureLines(output: unknown): string[] {
  return String((output as { closure?: unknown }).closure).split('\n');
}

const CONFORMS: ReviewReturn = { role: 'conformance', verdict: 'CONFORMS', openGaps: [], fixTasks: [] };

describe('fix rounds', () => {
  it('a conformance fix round gets the open fix gaps and the fix tasks, never a gap carried open', async () => {
    const gaps: ReviewReturn = {
      role: 'conformance',
      verdict: 'GAPS',
      openGaps: [
        { id: 'G1', text: 'row 2 has no test' },
        { id: 'G2', text: 'XLSX export dropped', recommended: 'accept' },
        { id: 'G3', text: 'adds an unrequested cache', verdict: 'UNAUTHORIZED' },
        { id: 'G4', text: 'empty report writes no header', verdict: 'PARTIAL', recommended: 'fix' },
      ],
      fixTasks: ['name the export test after the row'],
    };
    const fixCommit = `${sha('f')} test: row 2`;
    const r = run({
      gates: [
        { passed: true, head: sha('2') },
        { passed: true, head: sha('3') },
      ],
      reviews: [
        { ran: false, role: 'whole-diff' },
        reviewed(gaps, sha('2')),
        reviewed(CONFORMS, sha('3'), { used: 1, fixCommits: [`conformance round 1: ${fixCommit}`] }),
      ],
      commitHeads: [sha('3')],
    });
    const end = await r.settled();
    expect(r.inputsOf('runFixRound')).toEqual([
      {
        role: 'conformance',
        round: 1,
        tasks: [
          'G1: row 2 has no test',
          'G4: empty report writes no header',
          'name the export test after the row',
        ],
      },
    ]);
    // The full gate set runs again after the round, then the conformance reviewer again.
    expect(r.inputsOf('runGates')).toHaveLength(2);
    expect(r.inputsOf('runReview').map((i) => i.role)).toEqual(['whole-diff', 'conformance', 'conformance']);
    expect(end.output).toMatchObject({ status: 'finished' });
    // The index's entry layout under `fix commits:` is the renderer's; the round's commit is listed.
    const closure = closureLines(end.output);
    expect(closure.slice(0, 4)).toEqual([
      '## Closure / conformance',
      'status: CONFORMS (0 open)',
      `audited-base: ${sha('3')}`,
      'fix commits:',
    ]);
    expect(closure[4]).toContain(`conformance round 1: ${fixCommit}`);
    expect(closure.slice(5)).toEqual(['whole-diff minors: none', '']);
  });

  it('a whole-diff fix round gets the REVISE fix tasks; SHIP carries its minors to the closure', async () => {
    const r = run({
      gates: [
        { passed: true, head: sha('2') },
        { passed: true, head: sha('3') },
      ],
      reviews: [
        reviewed(
          { role: 'whole-diff', verdict: 'REVISE', minors: [], fixTasks: ['split the writer'] },
          sha('2'),
        ),
        reviewed({ role: 'whole-diff', verdict: 'SHIP', minors: ['one line each'], fixTasks: [] }, sha('3'), {
          used: 1,
        }),
        reviewed(CONFORMS, sha('3')),
      ],
      commitHeads: [sha('3')],
    });
    const end = await r.settled();
    expect(r.inputsOf('runFixRound')).toEqual([
      { role: 'whole-diff', round: 1, tasks: ['split the writer'] },
    ]);
    expect(end.output).toMatchObject({ status: 'finished' });
    const closure = closureLines(end.output);
    expect(closure.slice(0, 5)).toEqual([
      '## Closure / conformance',
      'status: CONFORMS (0 open)',
      `audited-base: ${sha('3')}`,
      'fix commits: none',
      'whole-diff minors:',
    ]);
    expect(closure[5]).toContain('one line each');
    expect(closure.slice(6)).toEqual(['']);
  });
});

describe('how verify ends', () => {
  it('CONFORMS finishes the run (exit 0) after the step-5 hook', async () => {
    const r = run({
      gates: [{ passed: true, head: sha('2') }],
      reviews: [{ ran: false, role: 'whole-diff' }, reviewed(CONFORMS, sha('2'))],
    });
    const end = await r.settled();
    expect(end.value).toBe('finished');
    expect(end.context.stop).toBeNull();
    expect(r.inputsOf('finishBranch')).toHaveLength(1);
  });

  it('GAPS whose every gap is carried open runs the step-5 hook, then stops at the finishing gate', async () => {
    const gaps: ReviewReturn = {
      role: 'conformance',
      verdict: 'GAPS',
      openGaps: [{ id: 'G2', text: 'XLSX export dropped', recommended: 'accept' }],
      fixTasks: [],
    };
    const r = run({
      gates: [{ passed: true, head: sha('2') }],
      reviews: [{ ran: false, role: 'whole-diff' }, reviewed(gaps, sha('2'))],
    });
    const end = await r.settled();
    // docs/human-stops.md, `closure-carried-open`.
    const closure = [
      '## Closure / conformance',
      'status: GAPS (1 open)',
      `audited-base: ${sha('2')}`,
      'open G2: XLSX export dropped',
      '  recommended: accept',
      '  carried open: recommended accept: deferred to the finishing gate',
      'fix commits: none',
      'whole-diff minors: none',
      '',
    ].join('\n');
    expect(r.inputsOf('finishBranch')).toEqual([{ closure, head: sha('2') }]);
    expect(end.value).toEqual({ humanStop: 'closureCarriedOpen' });
    expect(end.context.stop).toEqual({
      kind: 'closure-carried-open',
      openGaps: ['G2: XLSX export dropped'],
      closure,
    });
  });

  it('GAPS at the fix-round cap without funding stops at step 6, quoting each open gap as id: text', async () => {
    // docs/human-stops.md, `conformance-step6`: 5 rounds used against a cap of 5, no amend grant.
    const gaps: ReviewReturn = {
      role: 'conformance',
      verdict: 'GAPS',
      openGaps: [
        { id: 'G1', text: 'row 2 not covered' },
        { id: 'G3', text: 'adds an unrequested cache', verdict: 'UNAUTHORIZED' },
      ],
      fixTasks: ['cover row 2'],
    };
    const r = run({
      gates: [{ passed: true, head: sha('2') }],
      reviews: [{ ran: false, role: 'whole-diff' }, reviewed(gaps, sha('2'), { used: 5 })],
    });
    const end = await r.settled();
    expect(end.value).toEqual({ humanStop: 'conformanceStep6' });
    expect(end.context.stop).toEqual({
      kind: 'conformance-step6',
      used: 5,
      cap: 5,
      openGaps: ['G1: row 2 not covered', 'G3: adds an unrequested cache'],
    });
    expect(r.inputsOf('finishBranch')).toEqual([]);
  });
});
