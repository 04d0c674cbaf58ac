/**
 * What each outcome of "Before each dispatch" says about itself (gauntlet-protocol §3.4-§3.7,
 * §3.11, §3.13; docs/decisions/rules.md, docs/decisions/amendments.md): the `why` of every answer
 * must state the facts a person needs (the row, its attempts of its effective allowance, the
 * escalation threshold, the seed count, the marker the child wrote), and a human retry's hint
 * travels only with its own row.
 */

import { describe, expect, it } from 'vitest';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { evaluateRules, type RulesInput, type RulesOutcome } from '../../src/gauntlet/rules.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { ledgerOf, RunBuilder, seededRun } from './rules-fixtures.js';

function survived(): LoopHistory {
  return {
    ...emptyLoopHistory(),
    seedSurvival: {
      sha: 'a'.repeat(40),
      decision: 'row 0 done | seeded 2 rows, closed 0 on baseline | row 1',
    },
  };
}

function evaluate(ledger: Ledger, history: LoopHistory, extra: Partial<RulesInput> = {}): RulesOutcome {
  return evaluateRules({ ledger, history, escalateAfter: 2, ...extra });
}

function specFor(ledger: Ledger): Spec {
  return {
    title: 'CSV export',
    amendGrant: { kind: 'none' },
    rows: ledger.rows.map((cells) => ({
      row: cells.row,
      text: `Acceptance criterion number ${cells.row} of the CSV export`,
      line: 10 + cells.row,
      disposition: { kind: 'in-scope', explicit: false },
    })),
  };
}

describe('why the ordered table answered as it did', () => {
  it('rule 1 says the loop continues at After the loop', () => {
    const outcome = evaluate(
      ledgerOf({
        rows: [
          ['done', 1],
          ['cut', 0, 'deferred: #12'],
        ],
      }),
      survived(),
    );
    expect(outcome.kind).toBe('verify');
    expect(outcome.why).toMatch(/no open or failed row/);
    expect(outcome.why).toMatch(/After the loop/);
  });

  it('rule 2 names the stopped row and its attempts of its effective allowance', () => {
    // §6 A3: a migrated row above its allowance, 5 attempts of allowance 3.
    const outcome = evaluate(
      ledgerOf({
        rows: [
          ['done', 1],
          ['failed', 5],
        ],
        allowance: 3,
      }),
      survived(),
    );
    expect(outcome).toMatchObject({ kind: 'row-stop', row: 2 });
    expect(outcome.why).toMatch(/\brow 2\b/);
    expect(outcome.why).toMatch(/\b5 of 3\b/);
  });

  it('the seed stop states the seed line seed: <k> of <allowance>', () => {
    const run = new RunBuilder(ledgerOf({ rows: [['open', 0]], allowance: 3 }))
      .seedMiss('no evidence on row 1')
      .seedMiss('no evidence on row 1')
      .seedMiss('no evidence on row 1');
    const outcome = evaluate(run.ledger, run.history());
    expect(outcome).toMatchObject({ kind: 'seed-stop', line: 'seed: 3 of 3' });
    expect(outcome.why).toContain('seed: 3 of 3');
  });

  it('a seed dispatch says no validated seed survives and counts seed repairs of the allowance', () => {
    const run = new RunBuilder(ledgerOf({ rows: [['open', 0]], allowance: 4 })).seedMiss(
      'no evidence on row 1',
    );
    const outcome = evaluate(run.ledger, run.history());
    expect(outcome).toMatchObject({ kind: 'dispatch-seed', seedRepairs: 1, allowance: 4 });
    expect(outcome.why).toMatch(/no validated .*seed.* survives/);
    expect(outcome.why).toMatch(/seed repairs 1 of 4/);
  });

  it('a numbered dispatch says why the row was selected and where it stands (attempts of effective allowance)', () => {
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['failed', 1],
      ],
    });
    const outcome = evaluate(ledger, survived(), { escalateAfter: 3 });
    expect(outcome).toMatchObject({ kind: 'dispatch-row', row: 2, escalated: false });
    expect(outcome.why).toMatch(/\brow 2\b/);
    expect(outcome.why).toMatch(/first failed row/);
    expect(outcome.why).toMatch(/\b1 of 4\b/);
  });

  it('X1: an escalated dispatch names the round, the attempts and the threshold', () => {
    // allowance 4, escalateAfter 1: threshold = min(1, 4 - 1) = 1; row 2 has 2 attempts.
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['failed', 2],
      ],
    });
    const outcome = evaluate(ledger, survived(), { escalateAfter: 1 });
    expect(outcome).toMatchObject({ kind: 'dispatch-row', row: 2, escalated: true, threshold: 1 });
    expect(outcome.why).toMatch(/\brow 2\b/);
    expect(outcome.why).toMatch(/escalated round/);
    expect(outcome.why).toMatch(/attempts 2\b/);
    expect(outcome.why).toMatch(/threshold 1\b/);
  });

  it('a pending retry hint goes with its own row only (§6 A14, decision 11)', () => {
    const run = seededRun(3)
      .child(1, 'failed', { evidence: 'npm test; 1 failing' })
      .child(2, 'failed', { evidence: 'npm test; 2 failing' })
      .retry(1, 'hint for row one')
      .retry(2, 'hint for row two');
    expect(run.history().pendingRetries.map((pending) => pending.row)).toEqual([1, 2]);
    expect(evaluate(run.ledger, run.history())).toMatchObject({
      kind: 'dispatch-row',
      row: 2,
      target: 'retry-target',
      hint: 'hint for row two',
      hintSource: 'human-retry',
    });
  });
});

describe('why unreachable routing answered as it did (§3.13, docs/decisions/amendments.md)', () => {
  it('the bound-spent stop names the row and quotes the marker', () => {
    const run = seededRun(2).child(2, 'failed', { evidence: 'capture; bound spent: capture (1 of 1)' });
    const outcome = evaluate(run.ledger, run.history(), {
      routing: { spec: specFor(run.ledger), amendPermission: false },
    });
    expect(outcome.kind).toBe('bound-spent-stop');
    expect(outcome.why).toMatch(/\brow 2\b/);
    expect(outcome.why).toContain('bound spent: capture (1 of 1)');
  });

  it('the unreachable amend item names the row, what was unreachable and where the proof is', () => {
    const run = seededRun(3).child(3, 'failed', { evidence: 'e2e; unreachable: prod DNS - runbook §4' });
    const outcome = evaluate(run.ledger, run.history(), {
      routing: { spec: specFor(run.ledger), amendPermission: false },
    });
    expect(outcome).toMatchObject({ kind: 'unreachable-amend', row: 3, autoApply: false });
    expect(outcome.why).toMatch(/\brow 3\b/);
    expect(outcome.why).toContain('prod DNS');
    expect(outcome.why).toContain('runbook §4');
  });

  it('the redraw stop names the row and the reason the child gave', () => {
    const run = seededRun(3).child(3, 'failed', {
      evidence: 'e2e; redraw: rows 2 and 3 measure the same export twice',
    });
    const outcome = evaluate(run.ledger, run.history(), {
      routing: { spec: specFor(run.ledger), amendPermission: true },
    });
    expect(outcome).toMatchObject({ kind: 'redraw-stop', row: 3 });
    expect(outcome.why).toMatch(/\brow 3\b/);
    expect(outcome.why).toContain('rows 2 and 3 measure the same export twice');
  });

  it('an amend: item names the row, what to change and the evidence', () => {
    const run = seededRun(3).child(3, 'failed', {
      evidence: 'e2e; amend: name the header columns - the API returns snake_case keys',
    });
    const outcome = evaluate(run.ledger, run.history(), {
      routing: { spec: specFor(run.ledger), amendPermission: true },
    });
    expect(outcome).toMatchObject({ kind: 'spec-amend', row: 3, autoApply: true });
    expect(outcome.why).toMatch(/\brow 3\b/);
    expect(outcome.why).toContain('name the header columns');
    expect(outcome.why).toContain('the API returns snake_case keys');
  });

  it('a repeated amend: evidence stops naming the row and the evidence already amended', () => {
    const run = seededRun(3).child(3, 'failed', {
      evidence: 'e2e; amend: rename the column - the API returns snake_case keys',
    });
    // docs/decisions/amendments.md: an entry reads `row <n>: <what>; evidence: <evidence>`.
    const earlier = 'row 3: name the header columns; evidence: the API returns snake_case keys';
    const outcome = evaluate(run.ledger, run.history(), {
      routing: { spec: specFor(run.ledger), amendPermission: true, amendments: [earlier] },
    });
    expect(outcome).toMatchObject({ kind: 'repeated-evidence-stop', row: 3, earlier });
    expect(outcome.why).toMatch(/\brow 3\b/);
    expect(outcome.why).toContain('the API returns snake_case keys');
  });
});
