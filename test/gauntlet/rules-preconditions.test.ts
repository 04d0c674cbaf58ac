/**
 * The configuration stops of "Before each dispatch" (gauntlet-protocol §3.4 steps 3-4, §3.2,
 * §3.13; docs/decisions/rules.md 17, 19, 21, 22, 26): each stop is asserted by its named problem,
 * the named code of its finding and what its message must tell the person who fixes the input.
 * Exact texts are asserted only where the protocol or a decision fixes them.
 */

import { describe, expect, it } from 'vitest';
import { finding } from '../../src/common/finding.js';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { evaluateRules, ledgerPreconditionStop, type RulesOutcome } from '../../src/gauntlet/rules.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { ledgerOf, seededRun } from './rules-fixtures.js';

// Fixed texts: gauntlet-protocol §4 (allowance, escalateAfter) and docs/decisions/rules.md 21 (checks).
const NO_ALLOWANCE = 'ledger has no allowance: line - resume through /skill:gauntlet-resume';
const NO_CHECKS = 'ledger has no checks: line - add `checks: commands` after the verification: header';
const NO_ESCALATE_AFTER =
  'cannot resolve escalation threshold: settings tool unavailable (loopEngine.escalateAfter)';

const BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';

/** A small valid ledger file (§1.2-§1.5) with its header lines replaced or dropped. */
function ledgerText(header: { checks?: string | null; base?: string | null; extra?: string } = {}): string {
  const lines = ['# Loop ledger', '**Spec:** doc/specs/2026-11-02-csv-export.md'];
  if (header.base !== null) lines.push(header.base ?? `base: ${BASE}`);
  lines.push('verification: npm test');
  if (header.checks !== null) lines.push(header.checks ?? 'checks: commands');
  if (header.extra !== undefined) lines.push(header.extra);
  lines.push(
    'iterations: 0',
    'allowance: 4',
    '',
    '| row | status | attempts | evidence |',
    '|---|---|---|---|',
    '| 1 | open | 0 | npm test; 1 failing |',
    '',
    '## Decisions',
    '',
  );
  return lines.join('\n');
}

function survived(): LoopHistory {
  return {
    ...emptyLoopHistory(),
    seedSurvival: {
      sha: 'a'.repeat(40),
      decision: 'row 0 done | seeded 1 rows, closed 0 on baseline | row 1',
    },
  };
}

function stopOf(outcome: RulesOutcome | null) {
  if (outcome === null || outcome.kind !== 'configuration-stop')
    throw new Error(`expected a configuration stop, got ${outcome === null ? 'null' : outcome.kind}`);
  return outcome;
}

function fromText(text: string, escalateAfter: number | null = 2): RulesOutcome {
  const parsed = parseLedger(text);
  return evaluateRules({
    ledger: parsed.ledger,
    ledgerFindings: parsed.findings,
    history: survived(),
    escalateAfter,
  });
}

describe('the checks: precondition (§3.4 step 3, decision 21)', () => {
  it('a ledger file without its checks: line stops with the fixed checks text and the parser finding', () => {
    // The sanity half: the same file with the line parses and dispatches row 1.
    expect(fromText(ledgerText())).toMatchObject({ kind: 'dispatch-row', row: 1 });
    const stop = stopOf(fromText(ledgerText({ checks: null })));
    expect(stop.problem).toBe('checks-missing');
    expect(stop.message).toBe(NO_CHECKS);
    expect(stop.findings.map((f) => f.code)).toEqual(['ledger.header.missing']);
    expect(stop.findings[0]?.reason).toContain('checks:');
  });

  it('another missing header is an invalid ledger, not a missing checks: line', () => {
    const stop = stopOf(fromText(ledgerText({ base: null })));
    expect(stop.problem).toBe('ledger-invalid');
    expect(stop.findings.map((f) => f.code)).toEqual(['ledger.header.missing']);
    expect(stop.findings[0]?.reason).toContain('base:');
  });

  it('a finding that names checks: without saying it is missing is an invalid ledger', () => {
    // The checks: line is there (twice): the problem is the duplicate, not a missing line.
    const stop = stopOf(fromText(ledgerText({ extra: 'checks: commands' })));
    expect(stop.findings.length).toBeGreaterThan(0);
    expect(stop.findings.some((f) => f.code === 'ledger.header.missing')).toBe(false);
    expect(stop.findings.some((f) => f.reason.includes('checks:'))).toBe(true);
    expect(stop.problem).toBe('ledger-invalid');
  });

  it('a hand-built ledger with no checks value stops (never throws) with a rules.checks-missing finding', () => {
    const { checks: _checks, ...rest } = ledgerOf({ rows: [['open', 0]] });
    const noChecks = rest as unknown as Ledger;
    const stop = stopOf(evaluateRules({ ledger: noChecks, history: survived(), escalateAfter: 2 }));
    expect(stop.problem).toBe('checks-missing');
    expect(stop.message).toBe(NO_CHECKS);
    expect(stop.findings).toHaveLength(1);
    expect(stop.findings[0]?.code).toBe('rules.checks-missing');
    expect(stop.findings[0]?.reason).toBe(NO_CHECKS);
    const blank = stopOf(ledgerPreconditionStop({ ...ledgerOf({ rows: [['open', 0]] }), checks: '' }));
    expect(blank.findings.map((f) => f.code)).toEqual(['rules.checks-missing']);
  });
});

describe('the allowance: precondition (§3.4 step 4, decision 17)', () => {
  it('a negative allowance stops with the no-allowance text and a rules.allowance-missing finding', () => {
    const stop = stopOf(
      evaluateRules({
        ledger: ledgerOf({ rows: [['open', 0]], allowance: -1 }),
        history: survived(),
        escalateAfter: 2,
      }),
    );
    expect(stop.problem).toBe('allowance-missing');
    expect(stop.message).toBe(NO_ALLOWANCE);
    expect(stop.findings).toHaveLength(1);
    expect(stop.findings[0]?.code).toBe('rules.allowance-missing');
    expect(stop.findings[0]?.reason).toBe(NO_ALLOWANCE);
  });

  it('a fractional allowance is no allowance either; 0 is a real allowance (rule 2 stops)', () => {
    const fractional = ledgerPreconditionStop(ledgerOf({ rows: [['open', 0]], allowance: 1.5 }));
    expect(fractional).toMatchObject({ kind: 'configuration-stop', problem: 'allowance-missing' });
    expect(ledgerPreconditionStop(ledgerOf({ rows: [['open', 0]], allowance: 0 }))).toBeNull();
    expect(
      evaluateRules({
        ledger: ledgerOf({ rows: [['open', 0]], allowance: 0 }),
        history: survived(),
        escalateAfter: 2,
      }),
    ).toMatchObject({ kind: 'row-stop', row: 1 });
  });
});

describe('an invalid or missing ledger (decision 22)', () => {
  it('no ledger and no findings stops as invalid with a rules.ledger-missing finding saying so', () => {
    const stop = stopOf(ledgerPreconditionStop(null));
    expect(stop.problem).toBe('ledger-invalid');
    expect(stop.message).toMatch(/not valid/);
    expect(stop.findings).toHaveLength(1);
    expect(stop.findings[0]?.code).toBe('rules.ledger-missing');
    expect(stop.findings[0]?.reason).toMatch(/no ledger/);
    const viaTable = stopOf(evaluateRules({ ledger: null, history: emptyLoopHistory(), escalateAfter: 2 }));
    expect(viaTable.findings.map((f) => f.code)).toEqual(['rules.ledger-missing']);
  });

  it('parser findings beside a ledger value still stop the table, naming every finding', () => {
    const findings = [
      finding('ledger.table.status', 12, 'status "opne" is not one of open, done, failed, cut'),
    ];
    const ledger = ledgerOf({ rows: [['open', 0]] });
    const stop = stopOf(
      evaluateRules({ ledger, ledgerFindings: findings, history: survived(), escalateAfter: 2 }),
    );
    expect(stop.problem).toBe('ledger-invalid');
    expect(stop.message).toMatch(/not valid/);
    expect(stop.findings).toEqual(findings);
    // Without the findings the same ledger dispatches.
    expect(evaluateRules({ ledger, history: survived(), escalateAfter: 2 }).kind).toBe('dispatch-row');
  });
});

describe('escalateAfter (§3.2, decision 19)', () => {
  it('an unavailable settings tool stops with the fixed text and a rules.escalate-after finding', () => {
    const stop = stopOf(
      evaluateRules({ ledger: ledgerOf({ rows: [['open', 0]] }), history: survived(), escalateAfter: null }),
    );
    expect(stop.message).toBe(NO_ESCALATE_AFTER);
    expect(stop.findings).toHaveLength(1);
    expect(stop.findings[0]?.code).toBe('rules.escalate-after');
    expect(stop.findings[0]?.reason).toBe(NO_ESCALATE_AFTER);
  });

  it('an invalid value stops naming the setting and the value it got, with a rules.escalate-after finding', () => {
    for (const [value, shown] of [
      [-1, '-1'],
      [1.5, '1.5'],
    ] as const) {
      const stop = stopOf(
        evaluateRules({
          ledger: ledgerOf({ rows: [['open', 0]] }),
          history: survived(),
          escalateAfter: value,
        }),
      );
      expect(stop.problem).toBe('escalate-after-unresolved');
      expect(stop.message).toContain('escalateAfter');
      expect(stop.message).toContain(shown);
      expect(stop.findings).toHaveLength(1);
      expect(stop.findings[0]?.code).toBe('rules.escalate-after');
      expect(stop.findings[0]?.reason).toContain(shown);
    }
  });
});

describe('a spec without the admitted failed row (decision 26)', () => {
  function specWithout(ledger: Ledger, missing: number): Spec {
    return {
      title: 'CSV export',
      amendGrant: { kind: 'none' },
      rows: ledger.rows
        .filter((cells) => cells.row !== missing)
        .map((cells) => ({
          row: cells.row,
          text: `Acceptance criterion number ${cells.row}`,
          line: 10 + cells.row,
          disposition: { kind: 'in-scope', explicit: false },
        })),
    };
  }

  it('stops naming the ledger row, with a rules.spec-row-missing finding naming it too', () => {
    const run = seededRun(3).child(3, 'failed', { evidence: 'e2e; 1 failing' });
    const stop = stopOf(
      evaluateRules({
        ledger: run.ledger,
        history: run.history(),
        escalateAfter: 2,
        routing: { spec: specWithout(run.ledger, 3), amendPermission: false },
      }),
    );
    expect(stop.problem).toBe('spec-row-missing');
    expect(stop.rule).toBe('unreachable');
    expect(stop.message).toMatch(/\brow 3\b/);
    expect(stop.message).toMatch(/criterion/);
    expect(stop.findings).toHaveLength(1);
    expect(stop.findings[0]?.code).toBe('rules.spec-row-missing');
    expect(stop.findings[0]?.reason).toMatch(/\brow 3\b/);
  });

  it('a done admission is not routed, so a spec lacking its row does not stop the table', () => {
    const run = seededRun(3).child(3, 'done', { evidence: 'e2e; 3 passed' });
    const outcome = evaluateRules({
      ledger: run.ledger,
      history: run.history(),
      escalateAfter: 2,
      routing: { spec: specWithout(run.ledger, 3), amendPermission: false },
    });
    expect(outcome).toMatchObject({ kind: 'dispatch-row', row: 1 });
  });

  it('an answered failed admission is not routed again, so a spec lacking its row does not stop', () => {
    const run = seededRun(3)
      .child(3, 'failed', { evidence: 'e2e; 1 failing' })
      .retry(3, 'use the local fixture');
    expect(run.history().latestAdmission?.answeredBy).not.toBeNull();
    const outcome = evaluateRules({
      ledger: run.ledger,
      history: run.history(),
      escalateAfter: 2,
      routing: { spec: specWithout(run.ledger, 3), amendPermission: false },
    });
    expect(outcome).toMatchObject({ kind: 'dispatch-row', row: 3, hint: 'use the local fixture' });
  });

  it('an admission for a row the ledger no longer holds is not routed', () => {
    const run = seededRun(3).child(3, 'failed', { evidence: 'e2e; unreachable: prod DNS - runbook' });
    const history = run.history();
    expect(history.latestAdmission).toMatchObject({ row: 3, status: 'failed', answeredBy: null });
    // The ledger on disk holds rows 1 and 2 only (both open), as does its spec.
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['open', 0],
      ],
    });
    const outcome = evaluateRules({
      ledger,
      history,
      escalateAfter: 2,
      routing: { spec: specWithout(ledger, 3), amendPermission: true },
    });
    expect(outcome).toMatchObject({ kind: 'dispatch-row', row: 1 });
  });
});
