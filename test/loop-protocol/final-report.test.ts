import { describe, expect, it } from 'vitest';
import { finalReport, renderFinalReport, type TranscriptRecord } from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00Z`;

const baseline = record({
  cycle: 0,
  timestamp: at(0),
  event: 'baseline.done',
  observation: { summary: '3 failing tests', metric: 3 },
  fingerprint: 'fp-0',
  action: null,
  verifierResult: { evaluator: 'npm test', verdict: 'fail', detail: '3 failures' },
  budget: { iterationsUsed: 0, iterationLimit: 4, elapsedMs: 0, tokensUsed: null, costUsed: null },
});

function cycle(n: number, summary: string, disposition: 'kept' | 'discarded' | 'skipped', metric: number) {
  return [
    record({
      cycle: n,
      timestamp: at(n * 2 - 1),
      action: { kind: 'action', summary, disposition: null },
      observation: null,
      fingerprint: null,
      verifierResult: null,
      budget: null,
    }),
    record({
      cycle: n,
      timestamp: at(n * 2),
      action: { kind: 'action', summary, disposition },
      observation: { summary: `${metric} failing tests`, metric },
      fingerprint: `fp-${n}`,
      verifierResult: { evaluator: 'npm test', verdict: metric === 0 ? 'pass' : 'fail', detail: null },
      decision: 'continue',
      terminalCheck: { rule: null, success: false, reason: 'no terminal condition', evidence: [] },
      budget: {
        iterationsUsed: n,
        iterationLimit: 4,
        elapsedMs: n * 60_000,
        tokensUsed: null,
        costUsed: null,
      },
    }),
  ];
}

const stopSuccess: Partial<TranscriptRecord> = {
  decision: 'stop',
  terminalCheck: {
    rule: 'success',
    success: true,
    reason: 'every test passes',
    evidence: ['npm test exit 0 on the final diff', 'preflight exit 0'],
  },
  closing: {
    unresolvedRisk: 'the fix relies on test ordering',
    nextHypothesis: null,
    retainedState: ['two kept edits in src/'],
    cleanup: ['removed the scratch log'],
  },
};

describe('the final report', () => {
  const records = [
    baseline,
    ...cycle(1, 'pin the clock', 'kept', 2),
    ...cycle(2, 'retry the socket', 'discarded', 2),
    ...cycle(3, 'skip the slow suite', 'skipped', 2),
  ];
  const last = records.at(-1) as TranscriptRecord;
  records[records.length - 1] = {
    ...last,
    ...stopSuccess,
    observation: { summary: '0 failing tests', metric: 0 },
  };

  it('reports a transcript that ends with a terminal check and evidence as complete', () => {
    const report = finalReport(records);
    expect(report.status).toBe('complete');
    expect(report.succeeded).toBe(true);
    expect(report.machines).toEqual(['cybernetic']);
    expect(report.baseline).toMatchObject({ cycle: 0, summary: '3 failing tests', metric: 3 });
    expect(report.final).toMatchObject({ cycle: 3, summary: '0 failing tests', metric: 0 });
    expect(report.cyclesCompleted).toBe(3);
    expect(report.budget?.iterationsUsed).toBe(3);
    expect(report.actions.kept.map((a) => a.summary)).toEqual(['pin the clock']);
    expect(report.actions.discarded.map((a) => a.summary)).toEqual(['retry the socket']);
    expect(report.actions.skipped.map((a) => a.summary)).toEqual(['skip the slow suite']);
    expect(report.actions.undecided).toEqual([]);
    expect(report.evaluator?.evaluator).toBe('npm test');
    expect(report.finalEvidence).toEqual(['npm test exit 0 on the final diff', 'preflight exit 0']);
    expect(report.stop).toEqual({ rule: 'success', success: true, reason: 'every test passes' });
    expect(report.unresolvedRisk).toBe('the fix relies on test ordering');
    expect(report.retainedState).toEqual(['two kept edits in src/']);
    expect(report.cleanup).toEqual(['removed the scratch log']);
  });

  it('renders every part of the report', () => {
    const text = renderFinalReport(finalReport(records));
    expect(text).toMatch(/^Loop report \(cybernetic\): complete/);
    for (const part of [
      'Why it stopped: success (success)',
      'Baseline: cycle 0: 3 failing tests [metric 3]',
      'Final state: cycle 3: 0 failing tests',
      'Cycles completed: 3',
      '3 of 4 iterations',
      'cycle 1 action: pin the clock',
      'Actions discarded (1)',
      'Actions skipped (1)',
      'Evaluator: npm test -> fail',
      'preflight exit 0',
      'Unresolved risk: the fix relies on test ordering',
      'removed the scratch log',
    ])
      expect(text).toContain(part);
  });

  it('reports a transcript that ends without a terminal check as incomplete', () => {
    const interrupted = [baseline, ...cycle(1, 'pin the clock', 'kept', 2)];
    interrupted.push(
      record({ cycle: 2, timestamp: at(5), action: { kind: 'action', summary: 'x', disposition: null } }),
    );
    const report = finalReport(interrupted);
    expect(report.status).toBe('incomplete');
    expect(report.incompleteReason).toContain('without a terminal check');
    expect(report.succeeded).toBe(false);
    expect(report.actions.undecided.map((a) => a.summary)).toEqual(['x']);
    expect(renderFinalReport(report)).toContain('INCOMPLETE: the transcript ends without a terminal check');
  });

  it('reports an exhausted loop without terminal evidence as incomplete, not finished', () => {
    const exhausted = [
      baseline,
      record({
        cycle: 1,
        decision: 'stop',
        terminalCheck: {
          rule: 'budget-exhausted',
          success: false,
          reason: 'iteration budget spent',
          evidence: [],
        },
      }),
    ];
    const report = finalReport(exhausted);
    expect(report.status).toBe('incomplete');
    expect(report.incompleteReason).toContain('without terminal evidence');
    expect(report.stop?.rule).toBe('budget-exhausted');
  });

  it('reports a stop with terminal evidence that is not a success as complete but not succeeded', () => {
    const report = finalReport([
      baseline,
      record({
        cycle: 1,
        decision: 'stop',
        terminalCheck: {
          rule: 'budget-exhausted',
          success: false,
          reason: 'iteration budget spent',
          evidence: ['npm test: 2 failures on the final diff'],
        },
      }),
    ]);
    expect(report.status).toBe('complete');
    expect(report.succeeded).toBe(false);
  });

  it('reports an empty transcript, a terminal check that found nothing, and a stop rule without a stop decision', () => {
    expect(finalReport([]).incompleteReason).toBe('the transcript is empty');
    const open = cycle(1, 'a', 'kept', 1);
    expect(finalReport(open).incompleteReason).toContain('no terminal condition');
    const contradictory = record({
      decision: 'continue',
      terminalCheck: { rule: 'success', success: true, reason: 'ok', evidence: ['e'] },
    });
    expect(finalReport([contradictory]).status).toBe('incomplete');
  });
});
