/**
 * Verify steps 2-4 rules (gauntlet-protocol §3.18, conformance-check step 6): review returns,
 * the fix-round cap, funding, the durable fix-round record and the closure block. Expected values
 * are written from the protocol text.
 */
import { describe, expect, it } from 'vitest';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import {
  type ClosureReviewSettings,
  type ConformanceReturn,
  capBlockText,
  carriedOpenReason,
  fixCommitIndex,
  fixRoundBody,
  fixRoundCounts,
  grantBody,
  isCarriedOpenInventory,
  nextReviewStep,
  normalizeMaxFixRounds,
  type OpenGap,
  parseReviewReturn,
  type ReviewReturn,
  renderClosure,
  renderWaivedClosure,
} from '../../src/gauntlet/review.js';
import { ledger, row } from './validation-fixtures.js';

const gaps: ReviewReturn = {
  role: 'conformance',
  verdict: 'GAPS',
  openGaps: [{ id: 'G1', text: 'row 2 not covered' }],
  fixTasks: [],
};
const revise: ReviewReturn = {
  role: 'whole-diff',
  verdict: 'REVISE',
  minors: [],
  fixTasks: ['split writer'],
};
const GRANT = 'The loop may fund conformance rounds from the allowance.';

describe('parseReviewReturn', () => {
  it('accepts the two verdicts of each role', () => {
    expect(parseReviewReturn('whole-diff', '{"role":"whole-diff","verdict":"SHIP","minors":["m1"]}')).toEqual(
      {
        ok: true,
        review: { role: 'whole-diff', verdict: 'SHIP', minors: ['m1'], fixTasks: [] },
      },
    );
    const g = parseReviewReturn('conformance', JSON.stringify(gaps));
    expect(g.ok && g.review.verdict).toBe('GAPS');
  });
  it.each([
    [null, 'review miss: the conformance reviewer wrote no return'],
    ['not json', 'review miss: the conformance return is not JSON'],
    [
      '{"role":"whole-diff","verdict":"SHIP"}',
      'review miss: the return is for role "whole-diff", expected "conformance"',
    ],
    [
      '{"role":"conformance","verdict":"GAPS","openGaps":[]}',
      'review miss: the conformance return is malformed at openGaps: CONFORMS has no open gap and GAPS has at least one',
    ],
    [
      '{"role":"conformance","verdict":"CONFORMS","openGaps":[{"id":"G1","text":"x"}]}',
      'review miss: the conformance return is malformed at openGaps: CONFORMS has no open gap and GAPS has at least one',
    ],
    [
      '{"role":"conformance","verdict":"MAYBE"}',
      /^review miss: the conformance return is malformed at verdict: /,
    ],
    [
      '{"role":"conformance","verdict":"GAPS","openGaps":[{"id":"gap one","text":"x"}]}',
      /malformed at openGaps\.0\.id: a gap id is G<n>/,
    ],
  ])('names a malformed conformance return: %s', (text, miss) => {
    const result = parseReviewReturn('conformance', text);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.miss).toMatch(miss instanceof RegExp ? miss : new RegExp(`^${escapeRegex(miss)}$`));
  });
  it('a REVISE names at least one fix task', () => {
    const result = parseReviewReturn('whole-diff', '{"role":"whole-diff","verdict":"REVISE"}');
    expect(result).toEqual({
      ok: false,
      miss: 'review miss: the whole-diff return is malformed at fixTasks: REVISE names at least one fix task',
    });
  });
});

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('normalizeMaxFixRounds (default 5, negatives floor at 0, missing or non-integer 5)', () => {
  it.each([
    [undefined, 5],
    [null, 5],
    ['3', 5],
    [2.5, 5],
    [Number.NaN, 5],
    [-3, 0],
    [0, 0],
    [7, 7],
  ])('%s -> %s', (raw, cap) => expect(normalizeMaxFixRounds(raw)).toBe(cap));
});

describe('nextReviewStep', () => {
  const facts = (
    review: ReviewReturn,
    used: number,
    granted = 0,
    amendGrant: string | null = null,
    enforce = true,
  ) =>
    nextReviewStep({
      review,
      counts: { used, granted },
      settings: { maxFixRounds: 2, enforce },
      allowance: 4,
      amendGrant,
    });
  it('SHIP and CONFORMS are accepted', () => {
    expect(facts({ role: 'whole-diff', verdict: 'SHIP', minors: [], fixTasks: [] }, 9).kind).toBe('accept');
    expect(facts({ role: 'conformance', verdict: 'CONFORMS', openGaps: [], fixTasks: [] }, 9).kind).toBe(
      'accept',
    );
  });
  it('runs the next fix round below the cap', () => {
    expect(facts(gaps, 1)).toEqual({ kind: 'fix', round: 2 });
    expect(facts(revise, 0)).toEqual({ kind: 'fix', round: 1 });
  });
  it('GAPS at the cap without amend permission takes the step-6 stop with the block text', () => {
    expect(facts(gaps, 2)).toEqual({
      kind: 'step-6',
      used: 2,
      cap: 2,
      block: '2 fix round(s) used against a cap of 2',
    });
  });
  it('under amend permission funds allowance - used once, then stops at the allowance', () => {
    expect(facts(gaps, 2, 0, GRANT)).toEqual({
      kind: 'fund',
      rounds: 2,
      notice: 'funded 2 conformance rounds under the grant',
    });
    // the granted rounds raise the cap: the next block's <used> includes them
    expect(facts(gaps, 3, 2, GRANT)).toEqual({ kind: 'fix', round: 4 });
    expect(facts(gaps, 4, 2, GRANT).kind).toBe('step-6');
  });
  it('enforce false continues without a grant under amend permission', () => {
    expect(facts(gaps, 2, 0, GRANT, false)).toEqual({ kind: 'fix', round: 3 });
    expect(facts(gaps, 4, 0, GRANT, false).kind).toBe('step-6');
  });
  it('a whole-diff REVISE at the cap stops without funding', () => {
    expect(facts(revise, 2, 0, GRANT)).toEqual({ kind: 'review-cap', used: 2, cap: 2 });
  });
});

describe('the durable record in branch history', () => {
  const commits = [
    { sha: 'a'.repeat(40), subject: 'fix: conformance review, round 1', body: '' },
    {
      sha: 'b'.repeat(40),
      subject: 'loop: conformance fix round 1',
      body: fixRoundBody(['G1: x'], [`${'a'.repeat(40)} fix: one`]),
    },
    { sha: 'c'.repeat(40), subject: 'loop: fund conformance rounds', body: grantBody(3, GRANT) },
    { sha: 'd'.repeat(40), subject: 'loop: whole-diff fix round 1', body: 'task: t\nfix commit: none' },
    { sha: 'e'.repeat(40), subject: 'loop: conformance fix round 2', body: 'fix commit: none' },
  ];
  it('counts each role’s rounds and the grants', () => {
    expect(fixRoundCounts(commits, 'conformance')).toEqual({ used: 2, granted: 3 });
    expect(fixRoundCounts(commits, 'whole-diff')).toEqual({ used: 1, granted: 0 });
  });
  it('indexes the fix commits of every round', () => {
    expect(fixCommitIndex(commits)).toEqual([`conformance round 1: ${'a'.repeat(40)} fix: one`]);
  });
  it('the cap-block text is the protocol’s', () => {
    expect(capBlockText(1, 5)).toBe('1 fix round(s) used against a cap of 5');
  });
});

describe('renderClosure', () => {
  const closed = ledger({
    rows: [
      row(1, 'done', 1, 'npm test; ok'),
      row(2, 'cut', 0, 'deferred: ACME-1'),
      row(3, 'cut', 0, 'reopened'),
    ],
  });
  it('writes the exact schema on CONFORMS', () => {
    expect(
      renderClosure({
        review: {
          role: 'conformance',
          verdict: 'CONFORMS',
          openGaps: [],
          fixTasks: [],
          happyPath: 'export ran',
        },
        auditedBase: 'f'.repeat(40),
        ledger: closed,
        fixCommits: ['conformance round 1: abc fix'],
        minors: [],
      }),
    ).toBe(
      [
        '## Closure / conformance',
        'status: CONFORMS (0 open)',
        `audited-base: ${'f'.repeat(40)}`,
        'happy-path: export ran',
        'Deferred/deviates per spec:',
        '- row 2: deferred: ACME-1',
        'fix commits:',
        '- conformance round 1: abc fix',
        'whole-diff minors: none',
        '',
      ].join('\n'),
    );
  });
  it('GAPS shows the open count and gaps, no happy path when not run', () => {
    const text = renderClosure({
      review: gaps as never,
      auditedBase: 'f'.repeat(40),
      ledger: closed,
      fixCommits: [],
      minors: ['m'],
    });
    expect(text.split('\n').slice(0, 3)).toEqual([
      '## Closure / conformance',
      'status: GAPS (1 open)',
      `audited-base: ${'f'.repeat(40)}`,
    ]);
    expect(text).not.toContain('happy-path');
    expect(text).toContain('open G1: row 2 not covered\nfix commits: none\nwhole-diff minors:\n- m\n');
  });
});

describe('the step-6 stop', () => {
  it('starts with the gate line alone, then its header and the cap block', () => {
    const text = renderHumanStop(
      { kind: 'conformance-step6', used: 5, cap: 5, openGaps: ['G1: row 2 not covered'] },
      ledger({ rows: [row(1, 'done', 1, 'ok')] }),
    );
    expect(text.split('\n').slice(0, 4)).toEqual([
      'gauntlet: gate=verification-before-completion/step-6',
      'Stopped: conformance review answers GAPS at the fix-round cap',
      '5 fix round(s) used against a cap of 5',
      "Preserve every row's attempts.",
    ]);
    expect(text).toContain('Problem: G1: row 2 not covered');
  });
});

describe('a verify with no conformance reviewer', () => {
  const closed = ledger({
    rows: [row(1, 'done', 1, 'npm test; 3 passed'), row(2, 'cut', 0, 'deferred: T-9')],
  });

  it('without a waiver stops and says how to go on: audit with a reviewer or waive the audit', () => {
    const text = renderHumanStop({ kind: 'closure-not-audited' }, closed);
    expect(text.split('\n')).toEqual([
      'gauntlet: question',
      'Stopped: verification passed; closure not audited',
      "Preserve every row's attempts.",
      "Problem: no conformance reviewer was given, so verify step 3 did not audit the diff against the spec's acceptance rows",
      'Recommendation: run again with --conformance-reviewer "<command>" (or --conformance-reviewer-agent <agent>) to audit the closure',
      'Or waive the audit: run again with --no-conformance-review; the run then finishes and its closure block records the waiver',
      '1 - Stop and keep the branch as it is: stop',
      '',
    ]);
  });

  it('with a waiver writes a closure block that keeps the field names and claims no audit', () => {
    const head = 'e'.repeat(40);
    expect(
      renderWaivedClosure({ verifiedHead: head, ledger: closed, fixCommits: [], minors: ['rename tmp'] }),
    ).toBe(
      [
        '## Closure / conformance',
        'status: not audited (waived)',
        'audited-base: none',
        `verified-head: ${head}`,
        'Deferred/deviates per spec:',
        '- row 2: deferred: T-9',
        'fix commits: none',
        'whole-diff minors:',
        '- rename tmp',
        '',
      ].join('\n'),
    );
  });
});

/*
 * §3.18 step 4: "complete verify only on current CONFORMS or valid carried-open deferred
 * inventory"; "a started positive-cap fix loop blocking/failing/exhausting with an open fix gap
 * stops, never completes verify". What is carried open follows the conformance reference's
 * partition: UNAUTHORIZED gaps and gaps recommended accept or rescope defer to the finishing gate;
 * a fix gap is carried open only when its loop never started (cap 0). Examples written by hand.
 */
describe('carried-open deferred inventory', () => {
  const cap5: ClosureReviewSettings = { maxFixRounds: 5, enforce: true };
  const cap0: ClosureReviewSettings = { maxFixRounds: 0, enforce: true };
  const none = { used: 0, granted: 0 };
  const gapsOf = (...openGaps: OpenGap[]): ConformanceReturn => ({
    role: 'conformance',
    verdict: 'GAPS',
    openGaps,
    fixTasks: [],
  });
  const accept = { id: 'G1', text: 'CSV only, XLSX dropped', recommended: 'accept' as const };
  const rescope = { id: 'G2', text: 'bulk export belongs to T-12', recommended: 'rescope' as const };
  const scopeCreep = { id: 'G3', text: 'adds an unrequested cache', verdict: 'UNAUTHORIZED' as const };
  const fix = { id: 'G4', text: 'row 2 has no test' };
  const step = (review: ReviewReturn, counts = none, settings = cap5) =>
    nextReviewStep({ review, counts, settings, allowance: 4, amendGrant: null });

  it('accept, rescope and UNAUTHORIZED gaps alone complete verify with their gaps open', () => {
    expect(step(gapsOf(accept, rescope, scopeCreep))).toEqual({ kind: 'carried-open' });
    // even after rounds were spent on other gaps, and at the cap
    expect(step(gapsOf(accept), { used: 5, granted: 0 })).toEqual({ kind: 'carried-open' });
  });

  it('one open fix gap with a positive cap runs the fix loop instead', () => {
    expect(step(gapsOf(accept, fix))).toEqual({ kind: 'fix', round: 1 });
  });

  it('a started loop that reaches its cap with an open fix gap stops (step 6), never completes', () => {
    expect(step(gapsOf(accept, fix), { used: 5, granted: 0 })).toMatchObject({ kind: 'step-6' });
  });

  it('a fix gap is carried open when the loop never starts (maxFixRounds 0, nothing granted or used)', () => {
    expect(step(gapsOf(fix, accept), none, cap0)).toEqual({ kind: 'carried-open' });
    // under amend permission too: an audit-only cap never blocks, so nothing is funded
    expect(
      nextReviewStep({
        review: gapsOf(fix),
        counts: none,
        settings: cap0,
        allowance: 4,
        amendGrant: GRANT,
      }),
    ).toEqual({ kind: 'carried-open' });
    // a granted round or a used round means the loop started: exhausted, it stops
    expect(step(gapsOf(fix), { used: 1, granted: 0 }, cap0)).toMatchObject({ kind: 'step-6' });
    expect(step(gapsOf(fix), { used: 0, granted: 1 }, cap0)).toEqual({ kind: 'fix', round: 1 });
  });

  it('names why each gap is carried open', () => {
    expect(carriedOpenReason(accept, none, cap5)).toBe('recommended accept: deferred to the finishing gate');
    expect(carriedOpenReason(rescope, none, cap5)).toBe(
      'recommended rescope: deferred to the finishing gate',
    );
    expect(carriedOpenReason(scopeCreep, none, cap5)).toBe('UNAUTHORIZED: deferred to the finishing gate');
    expect(carriedOpenReason(fix, none, cap0)).toBe('fix loop not started: maxFixRounds 0');
    expect(carriedOpenReason(fix, none, cap5)).toBeNull();
    expect(isCarriedOpenInventory(gapsOf(accept, fix), none, cap5)).toBe(false);
  });

  it('the return contract takes the gap fields and refuses a rescoped UNAUTHORIZED gap', () => {
    const parsed = parseReviewReturn(
      'conformance',
      JSON.stringify({ role: 'conformance', verdict: 'GAPS', openGaps: [accept, scopeCreep] }),
    );
    expect(parsed).toEqual({
      ok: true,
      review: { role: 'conformance', verdict: 'GAPS', openGaps: [accept, scopeCreep], fixTasks: [] },
    });
    const bad = parseReviewReturn(
      'conformance',
      JSON.stringify({
        role: 'conformance',
        verdict: 'GAPS',
        openGaps: [{ ...scopeCreep, recommended: 'rescope' }],
      }),
    );
    expect(bad).toEqual({
      ok: false,
      miss: 'review miss: the conformance return is malformed at openGaps.0.recommended: an UNAUTHORIZED gap has no origin requirement to rescope',
    });
  });

  it('the GAPS closure lists each carried gap with its fields and reason, after the deferred rows', () => {
    const closed = ledger({ rows: [row(1, 'done', 1, 'ok'), row(2, 'cut', 0, 'deferred: ABC-9')] });
    const text = renderClosure({
      review: gapsOf(accept, scopeCreep),
      carried: {
        G1: 'recommended accept: deferred to the finishing gate',
        G3: 'UNAUTHORIZED: deferred to the finishing gate',
      },
      auditedBase: 'f'.repeat(40),
      ledger: closed,
      fixCommits: [],
      minors: [],
    });
    expect(text).toBe(
      [
        '## Closure / conformance',
        'status: GAPS (2 open)',
        `audited-base: ${'f'.repeat(40)}`,
        'Deferred/deviates per spec:',
        '- row 2: deferred: ABC-9',
        'open G1: CSV only, XLSX dropped',
        '  recommended: accept',
        '  carried open: recommended accept: deferred to the finishing gate',
        'open G3: adds an unrequested cache',
        '  verdict: UNAUTHORIZED',
        '  carried open: UNAUTHORIZED: deferred to the finishing gate',
        'fix commits: none',
        'whole-diff minors: none',
        '',
      ].join('\n'),
    );
  });

  it('the stop after such a closure says so, prints the closure and never offers more than Stop', () => {
    const closure = '## Closure / conformance\nstatus: GAPS (1 open)\naudited-base: x\n';
    const text = renderHumanStop(
      { kind: 'closure-carried-open', openGaps: ['G1: CSV only, XLSX dropped'], closure },
      ledger({ rows: [row(1, 'done', 1, 'ok')] }),
    );
    expect(text.split('\n')).toEqual([
      'gauntlet: question',
      'Stopped: verification complete with 1 open gap(s) carried to the finishing gate',
      "Preserve every row's attempts.",
      'Problem: G1: CSV only, XLSX dropped',
      '## Closure / conformance',
      'status: GAPS (1 open)',
      'audited-base: x',
      'Recommendation: decide each open gap at the finishing gate (fix it, accept or rescope it into the spec, or follow it up), then run again',
      '1 - Stop and keep the branch as it is: stop',
      '',
    ]);
  });
});
