// The rendered final report, checked line by line against the text format of
// docs/loop-protocol.md ("Final report", "Rendered text"). Every expected text is typed out by
// hand from that table; the reports are built by hand too (except where the point is the report
// of a transcript), inside each test so that no code under test runs while the file loads.
import { describe, expect, it } from 'vitest';
import { type FinalReport, finalReport, renderFinalReport } from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

function everyPartRecorded(): FinalReport {
  return {
    status: 'complete',
    incompleteReason: null,
    machines: ['loop-protocol', 'cybernetic'],
    baseline: { cycle: 0, summary: '3 failing tests', metric: 3, fingerprint: 'fp-0' },
    final: { cycle: 2, summary: '0 failing tests', metric: 0, fingerprint: 'fp-2' },
    finalMachineState: 'stopped',
    cyclesCompleted: 2,
    budget: { iterationsUsed: 2, iterationLimit: 6, elapsedMs: 120000, tokensUsed: 5000, costUsed: 1.25 },
    actions: {
      kept: [
        { cycle: 1, kind: 'action', summary: 'pin the clock' },
        { cycle: 2, kind: 'hypothesis', summary: 'the socket leaks' },
      ],
      discarded: [{ cycle: 2, kind: 'action', summary: 'retry the socket' }],
      skipped: [{ cycle: 2, kind: 'action', summary: 'skip the slow suite' }],
      undecided: [{ cycle: 3, kind: 'action', summary: 'bisect the fixture' }],
    },
    evaluator: { evaluator: 'npm test', verdict: 'pass', detail: '0 failures' },
    finalEvidence: ['npm test exit 0 on the final diff', 'preflight exit 0'],
    stop: { rule: 'success', success: true, reason: 'every test passes' },
    succeeded: true,
    unresolvedRisk: 'the fix relies on test ordering',
    nextHypothesis: 'the clock drift comes from the container',
    retainedState: ['two kept edits in src/'],
    cleanup: ['removed the scratch log', 'deleted the scratch branch'],
  };
}

describe('the rendered final report', () => {
  it('writes every part in the documented order when everything was recorded', () => {
    expect(renderFinalReport(everyPartRecorded())).toBe(
      [
        'Loop report (loop-protocol, cybernetic): complete',
        'Why it stopped: success (success): every test passes',
        'Baseline: cycle 0: 3 failing tests [metric 3] (fingerprint fp-0)',
        'Final state: cycle 2: 0 failing tests [metric 0] (fingerprint fp-2)',
        'Cycles completed: 2; budget used: 2 of 6 iterations, 120000 ms elapsed, 5000 tokens, cost 1.25',
        'Actions kept (2):',
        '  - cycle 1 action: pin the clock',
        '  - cycle 2 hypothesis: the socket leaks',
        'Actions discarded (1):',
        '  - cycle 2 action: retry the socket',
        'Actions skipped (1):',
        '  - cycle 2 action: skip the slow suite',
        'Actions never decided (1):',
        '  - cycle 3 action: bisect the fixture',
        'Evaluator: npm test -> pass (0 failures)',
        'Final evidence:',
        '  - npm test exit 0 on the final diff',
        '  - preflight exit 0',
        'Unresolved risk: the fix relies on test ordering',
        'Next useful hypothesis: the clock drift comes from the container',
        'Retained state:',
        '  - two kept edits in src/',
        'Cleanup performed:',
        '  - removed the scratch log',
        '  - deleted the scratch branch',
        '',
      ].join('\n'),
    );
  });

  it('says what is missing when nothing was recorded (the report of an empty transcript)', () => {
    expect(renderFinalReport(finalReport([]))).toBe(
      [
        'Loop report (no machine): INCOMPLETE: the transcript is empty',
        'Why it stopped: no terminal rule fired',
        'Baseline: (not recorded)',
        'Final state: (not recorded)',
        'Cycles completed: 0; budget used: not recorded',
        'Actions kept: none',
        'Actions discarded: none',
        'Actions skipped: none',
        'Evaluator: no verifier result recorded',
        'Final evidence: none',
        'Unresolved risk: none recorded',
        'Next useful hypothesis: none recorded',
        'Retained state: none',
        'Cleanup performed: none',
        '',
      ].join('\n'),
    );
  });

  it('leaves out each optional piece of a line that was recorded as null', () => {
    const report: FinalReport = {
      ...everyPartRecorded(),
      status: 'incomplete',
      incompleteReason: 'the transcript ends without a terminal check',
      machines: ['loop-protocol'],
      baseline: { cycle: 0, summary: 'queue of 4', metric: null, fingerprint: 'q4' },
      final: { cycle: 1, summary: 'queue of 3', metric: 3, fingerprint: null },
      cyclesCompleted: 1,
      budget: { iterationsUsed: 1, iterationLimit: null, elapsedMs: null, tokensUsed: null, costUsed: null },
      actions: {
        kept: [],
        discarded: [{ cycle: 1, kind: 'hypothesis', summary: 'the cache is stale' }],
        skipped: [],
        undecided: [],
      },
      evaluator: { evaluator: 'make check', verdict: 'unavailable', detail: null },
      finalEvidence: [],
      stop: { rule: 'budget-exhausted', success: false, reason: 'iteration budget spent' },
      succeeded: false,
      unresolvedRisk: null,
      nextHypothesis: null,
      retainedState: [],
      cleanup: [],
    };
    expect(renderFinalReport(report)).toBe(
      [
        'Loop report (loop-protocol): INCOMPLETE: the transcript ends without a terminal check',
        'Why it stopped: budget-exhausted (not a success): iteration budget spent',
        'Baseline: cycle 0: queue of 4 (fingerprint q4)',
        'Final state: cycle 1: queue of 3 [metric 3]',
        'Cycles completed: 1; budget used: 1 iterations',
        'Actions kept: none',
        'Actions discarded (1):',
        '  - cycle 1 hypothesis: the cache is stale',
        'Actions skipped: none',
        'Evaluator: make check -> unavailable',
        'Final evidence: none',
        'Unresolved risk: none recorded',
        'Next useful hypothesis: none recorded',
        'Retained state: none',
        'Cleanup performed: none',
        '',
      ].join('\n'),
    );
  });

  it('shows each budget figure that was recorded, alone, in the documented order', () => {
    const budgetLine = (budget: FinalReport['budget']) =>
      renderFinalReport({ ...everyPartRecorded(), budget })
        .split('\n')
        .find((line) => line.startsWith('Cycles completed'));
    const none = {
      iterationsUsed: 0,
      iterationLimit: null,
      elapsedMs: null,
      tokensUsed: null,
      costUsed: null,
    };
    expect(budgetLine({ ...none, elapsedMs: 0 })).toBe(
      'Cycles completed: 2; budget used: 0 iterations, 0 ms elapsed',
    );
    expect(budgetLine({ ...none, tokensUsed: 0 })).toBe(
      'Cycles completed: 2; budget used: 0 iterations, 0 tokens',
    );
    expect(budgetLine({ ...none, costUsed: 0 })).toBe(
      'Cycles completed: 2; budget used: 0 iterations, cost 0',
    );
    expect(budgetLine({ ...none, iterationLimit: 1, tokensUsed: 200000, costUsed: 20 })).toBe(
      'Cycles completed: 2; budget used: 0 of 1 iterations, 200000 tokens, cost 20',
    );
  });

  it('renders the report of a whole transcript: an interrupted cycle is listed as never decided', () => {
    const records = [
      record({
        cycle: 0,
        timestamp: '2026-03-01T10:00:00Z',
        observation: { summary: '2 failing tests', metric: 2 },
        fingerprint: 'fp-0',
        action: null,
        verifierResult: null,
        budget: null,
      }),
      record({
        cycle: 1,
        timestamp: '2026-03-01T10:01:00Z',
        observation: null,
        fingerprint: null,
        action: { kind: 'action', summary: 'pin the clock', disposition: null },
        verifierResult: null,
        budget: null,
      }),
      record({
        cycle: 1,
        timestamp: '2026-03-01T10:02:00Z',
        observation: { summary: '1 failing test', metric: 1 },
        fingerprint: 'fp-1',
        action: { kind: 'action', summary: 'pin the clock', disposition: 'kept' },
        verifierResult: { evaluator: 'npm test', verdict: 'fail', detail: '1 failure' },
        decision: 'continue',
        terminalCheck: { rule: null, success: false, reason: 'no terminal condition', evidence: [] },
        budget: { iterationsUsed: 1, iterationLimit: 3, elapsedMs: 60000, tokensUsed: null, costUsed: null },
      }),
      record({
        cycle: 2,
        timestamp: '2026-03-01T10:03:00Z',
        observation: null,
        fingerprint: null,
        action: { kind: 'hypothesis', summary: 'the fixture is shared', disposition: null },
        verifierResult: null,
        budget: null,
      }),
    ];
    expect(renderFinalReport(finalReport(records))).toBe(
      [
        'Loop report (cybernetic): INCOMPLETE: the transcript ends without a terminal check',
        'Why it stopped: no terminal rule fired',
        'Baseline: cycle 0: 2 failing tests [metric 2] (fingerprint fp-0)',
        'Final state: cycle 1: 1 failing test [metric 1] (fingerprint fp-1)',
        'Cycles completed: 1; budget used: 1 of 3 iterations, 60000 ms elapsed',
        'Actions kept (1):',
        '  - cycle 1 action: pin the clock',
        'Actions discarded: none',
        'Actions skipped: none',
        'Actions never decided (1):',
        '  - cycle 2 hypothesis: the fixture is shared',
        'Evaluator: npm test -> fail (1 failure)',
        'Final evidence: none',
        'Unresolved risk: none recorded',
        'Next useful hypothesis: none recorded',
        'Retained state: none',
        'Cleanup performed: none',
        '',
      ].join('\n'),
    );
  });
});
