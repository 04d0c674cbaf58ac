/**
 * The review-return contract's edges (docs/review-contract.md), the durable fix-round record in
 * branch history (docs/decisions.md, "Verify reviews"), which gaps the fix loop works on, and the
 * closure block's optional parts (gauntlet-protocol §3.18 steps 2-4). Expected values are written
 * by hand from those texts.
 */
import { describe, expect, it } from 'vitest';
import {
  type ConformanceReturn,
  fixCommitIndex,
  fixRoundBody,
  fixRoundCounts,
  fixRoundSubject,
  isCarriedOpenInventory,
  isFixGap,
  legHeadLines,
  parseReviewReturn,
  renderClosure,
  renderWaivedClosure,
} from '../../src/gauntlet/review.js';
import { ledger, row } from './validation-fixtures.js';

const conformance = (fields: Record<string, unknown>) =>
  parseReviewReturn('conformance', JSON.stringify({ role: 'conformance', ...fields }));
const wholeDiff = (fields: Record<string, unknown>) =>
  parseReviewReturn('whole-diff', JSON.stringify({ role: 'whole-diff', ...fields }));

describe('the return file', () => {
  it('an empty or blank return file is "no return", not "not JSON"', () => {
    for (const text of ['', '  \n'])
      expect(parseReviewReturn('conformance', text)).toEqual({
        ok: false,
        miss: 'review miss: the conformance reviewer wrote no return',
      });
  });

  it('a JSON value that is not an object is malformed at the return itself', () => {
    const result = parseReviewReturn('whole-diff', '[]');
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.miss).toMatch(/^review miss: the whole-diff return is malformed at return: \S/);
  });

  it('SHIP without minors carries none; REVISE with a fix task is valid', () => {
    expect(wholeDiff({ verdict: 'SHIP' })).toEqual({
      ok: true,
      review: { role: 'whole-diff', verdict: 'SHIP', minors: [], fixTasks: [] },
    });
    expect(wholeDiff({ verdict: 'REVISE', fixTasks: ['split the writer'] })).toEqual({
      ok: true,
      review: { role: 'whole-diff', verdict: 'REVISE', minors: [], fixTasks: ['split the writer'] },
    });
  });

  it('minors and fix tasks are one line each', () => {
    expect(wholeDiff({ verdict: 'SHIP', minors: ['rename tmp\nand tmp2'] })).toEqual({
      ok: false,
      miss: 'review miss: the whole-diff return is malformed at minors.0: one line each',
    });
  });

  it('a happy path is a nonempty text', () => {
    expect(conformance({ verdict: 'CONFORMS', happyPath: 'exported the sample report' })).toEqual({
      ok: true,
      review: {
        role: 'conformance',
        verdict: 'CONFORMS',
        openGaps: [],
        fixTasks: [],
        happyPath: 'exported the sample report',
      },
    });
    const empty = conformance({ verdict: 'CONFORMS', happyPath: '' });
    expect(empty.ok).toBe(false);
    if (!empty.ok)
      expect(empty.miss).toMatch(/^review miss: the conformance return is malformed at happyPath: /);
  });
});

describe('gaps', () => {
  it('gap ids are G<n>: several digits are fine, anything before or after is not', () => {
    expect(conformance({ verdict: 'GAPS', openGaps: [{ id: 'G12', text: 'row 12 has no test' }] }).ok).toBe(
      true,
    );
    for (const id of ['xG1', 'G1x'])
      expect(conformance({ verdict: 'GAPS', openGaps: [{ id, text: 'x' }] })).toEqual({
        ok: false,
        miss: 'review miss: the conformance return is malformed at openGaps.0.id: a gap id is G<n>',
      });
  });

  it('gap ids are unique', () => {
    expect(
      conformance({
        verdict: 'GAPS',
        openGaps: [
          { id: 'G1', text: 'row 2 has no test' },
          { id: 'G1', text: 'row 3 has no test' },
        ],
      }),
    ).toEqual({
      ok: false,
      miss: 'review miss: the conformance return is malformed at openGaps: gap ids are unique',
    });
  });

  it('only an UNAUTHORIZED gap is refused a rescope', () => {
    const gap = { id: 'G1', text: 'bulk export belongs to T-12', verdict: 'MISSING', recommended: 'rescope' };
    expect(conformance({ verdict: 'GAPS', openGaps: [gap] })).toEqual({
      ok: true,
      review: { role: 'conformance', verdict: 'GAPS', openGaps: [gap], fixTasks: [] },
    });
  });

  it('the fix loop works on a gap that is not UNAUTHORIZED and is recommended fix or nothing', () => {
    expect(isFixGap({ id: 'G1', text: 'x' })).toBe(true);
    expect(isFixGap({ id: 'G1', text: 'x', recommended: 'fix' })).toBe(true);
    expect(isFixGap({ id: 'G1', text: 'x', verdict: 'PARTIAL' })).toBe(true);
    expect(isFixGap({ id: 'G1', text: 'x', verdict: 'DRIFTED', recommended: 'fix' })).toBe(true);
    expect(isFixGap({ id: 'G1', text: 'x', verdict: 'UNAUTHORIZED' })).toBe(false);
    expect(isFixGap({ id: 'G1', text: 'x', verdict: 'UNAUTHORIZED', recommended: 'fix' })).toBe(false);
    expect(isFixGap({ id: 'G1', text: 'x', recommended: 'accept' })).toBe(false);
    expect(isFixGap({ id: 'G1', text: 'x', verdict: 'MISSING', recommended: 'rescope' })).toBe(false);
  });

  it('a carried-open inventory is a GAPS verdict with at least one gap, every one carried open', () => {
    const accept = { id: 'G1', text: 'CSV only', recommended: 'accept' as const };
    const counts = { used: 0, granted: 0 };
    const settings = { maxFixRounds: 5, enforce: true };
    const of = (
      verdict: 'GAPS' | 'CONFORMS',
      openGaps: ConformanceReturn['openGaps'],
    ): ConformanceReturn => ({
      role: 'conformance',
      verdict,
      openGaps,
      fixTasks: [],
    });
    expect(isCarriedOpenInventory(of('GAPS', [accept]), counts, settings)).toBe(true);
    expect(isCarriedOpenInventory(of('CONFORMS', []), counts, settings)).toBe(false);
    // values the return schema refuses are still no inventory
    expect(isCarriedOpenInventory(of('GAPS', []), counts, settings)).toBe(false);
    expect(isCarriedOpenInventory(of('CONFORMS', [accept]), counts, settings)).toBe(false);
  });
});

describe('the fix-round record in branch history', () => {
  const sha = (c: string) => c.repeat(40);
  it('a round marker is `loop: <role> fix round <k>`, its body the tasks then the fix commits (or none)', () => {
    expect(fixRoundSubject('conformance', 2)).toBe('loop: conformance fix round 2');
    expect(fixRoundSubject('whole-diff', 1)).toBe('loop: whole-diff fix round 1');
    expect(fixRoundBody(['G1: row 2 has no test', 'G3: totals'], [])).toBe(
      'task: G1: row 2 has no test\ntask: G3: totals\nfix commit: none',
    );
    expect(fixRoundBody(['split the writer'], [`${sha('a')} fix: split`, `${sha('b')} fix: names`])).toBe(
      `task: split the writer\nfix commit: ${sha('a')} fix: split\nfix commit: ${sha('b')} fix: names`,
    );
  });

  it('counts only exact markers: several-digit rounds, a subject read with its line end, nothing around it', () => {
    const commits = [
      { sha: sha('a'), subject: 'loop: conformance fix round 12', body: `fix commit: ${sha('1')} fix: a` },
      { sha: sha('b'), subject: 'loop: conformance fix round 13\n', body: `fix commit: ${sha('2')} fix: b` },
      { sha: sha('c'), subject: 'revert: loop: conformance fix round 13', body: `fix commit: ${sha('3')} x` },
      {
        sha: sha('d'),
        subject: 'loop: conformance fix round 14 (partial)',
        body: `fix commit: ${sha('4')} y`,
      },
    ];
    expect(fixRoundCounts(commits, 'conformance')).toEqual({ used: 2, granted: 0 });
    expect(fixCommitIndex(commits)).toEqual([
      `conformance round 12: ${sha('1')} fix: a`,
      `conformance round 13: ${sha('2')} fix: b`,
    ]);
  });

  it('grants come only from `loop: fund conformance rounds` commits and their exact `rounds: <n>` line', () => {
    const commits = [
      {
        sha: sha('a'),
        subject: 'loop: fund conformance rounds',
        body: 'reason: extra rounds: 9\nrounds: 12',
      },
      {
        sha: sha('b'),
        subject: 'loop: fund conformance rounds',
        body: 'rounds: 3 (of the allowance)\nreason: x',
      },
      { sha: sha('c'), subject: 'loop: conformance fix round 1', body: 'rounds: 4\nfix commit: none' },
      { sha: sha('d'), subject: 'loop: fund conformance rounds\n', body: 'rounds: 2\nreason: y' },
    ];
    expect(fixRoundCounts(commits, 'conformance')).toEqual({ used: 1, granted: 14 });
    expect(fixRoundCounts(commits, 'whole-diff')).toEqual({ used: 0, granted: 0 });
  });
});

describe('the closure block', () => {
  const HEAD = 'f'.repeat(40);
  const conforms: ConformanceReturn = {
    role: 'conformance',
    verdict: 'CONFORMS',
    openGaps: [],
    fixTasks: [],
  };

  it('lists only cut rows whose evidence starts with a disposition, and nothing when there is none', () => {
    const rows = ledger({
      rows: [
        row(1, 'done', 1, 'deferred: flush check; 3 passed'),
        row(2, 'cut', 0, 'moved out, see deferred: ABC-1'),
        row(3, 'cut', 0, 'elsewhere: api'),
      ],
    });
    expect(
      renderClosure({ review: conforms, auditedBase: HEAD, ledger: rows, fixCommits: [], minors: [] }),
    ).toBe(
      [
        '## Closure / conformance',
        'status: CONFORMS (0 open)',
        `audited-base: ${HEAD}`,
        'Deferred/deviates per spec:',
        '- row 3: elsewhere: api',
        'fix commits: none',
        'whole-diff minors: none',
        '',
      ].join('\n'),
    );
    const none = ledger({ rows: [row(1, 'done', 1, 'npm test; ok')] });
    expect(
      renderWaivedClosure({ verifiedHead: HEAD, ledger: none, fixCommits: [], minors: [] }).split('\n'),
    ).toEqual([
      '## Closure / conformance',
      'status: not audited (waived)',
      'audited-base: none',
      `verified-head: ${HEAD}`,
      'fix commits: none',
      'whole-diff minors: none',
      '',
    ]);
  });

  it('a coordinated closure names each leg’s verified HEAD after the audited base', () => {
    const web = 'a'.repeat(40);
    const api = 'b'.repeat(40);
    const legHeads = [
      { leg: 'web', head: web },
      { leg: 'api', head: api },
    ];
    expect(legHeadLines(legHeads)).toEqual([`verified-head web: ${web}`, `verified-head api: ${api}`]);
    expect(legHeadLines(undefined)).toEqual([]);
    const text = renderClosure({
      review: conforms,
      auditedBase: HEAD,
      ledger: ledger({ rows: [row(1, 'done', 1, 'npm test; ok')] }),
      fixCommits: [],
      minors: [],
      legHeads,
    });
    expect(text.split('\n').slice(1, 5)).toEqual([
      'status: CONFORMS (0 open)',
      `audited-base: ${HEAD}`,
      `verified-head web: ${web}`,
      `verified-head api: ${api}`,
    ]);
  });
});
