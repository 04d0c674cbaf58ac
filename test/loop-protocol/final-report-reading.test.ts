// How the final report reads a transcript (docs/loop-protocol.md, "Final report": the baseline
// and final state are the first and last observations, cycles completed counts cycles >= 1 that
// recorded a decision, the last closing record wins, unrecorded lists are empty, and the exact
// reason of an incomplete report). Expected values are written by hand from that text.
import { describe, expect, it } from 'vitest';
import { finalReport } from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

describe('the final report reads the transcript', () => {
  it('takes the baseline and final state from the first and last records that observed something', () => {
    const report = finalReport([
      record({ cycle: 0, observation: null, fingerprint: null }),
      record({ cycle: 0, observation: { summary: '5 open', metric: 5 }, fingerprint: 'q5' }),
      record({ cycle: 1, observation: { summary: '4 open', metric: 4 }, fingerprint: 'q4' }),
      record({ cycle: 1, observation: null, fingerprint: null }),
    ]);
    expect(report.baseline).toEqual({ cycle: 0, summary: '5 open', metric: 5, fingerprint: 'q5' });
    expect(report.final).toEqual({ cycle: 1, summary: '4 open', metric: 4, fingerprint: 'q4' });
  });

  it('counts the distinct cycles >= 1 that recorded a decision, never the baseline cycle', () => {
    const report = finalReport([
      record({ cycle: 0, decision: 'continue' }),
      record({ cycle: 1, decision: null }),
      record({ cycle: 2, decision: 'pivot' }),
      record({ cycle: 2, decision: 'continue' }),
      record({ cycle: 3, decision: null }),
      record({ cycle: 3, decision: 'stop' }),
      record({ cycle: 4, decision: null }),
    ]);
    expect(report.cyclesCompleted).toBe(2);
  });

  it('takes unresolved risk, next hypothesis, retained state and cleanup from the last record that closes', () => {
    const report = finalReport([
      record({
        cycle: 1,
        closing: {
          unresolvedRisk: 'an early guess',
          nextHypothesis: 'an early hypothesis',
          retainedState: ['early state'],
          cleanup: ['early cleanup'],
        },
      }),
      record({
        cycle: 2,
        closing: {
          unresolvedRisk: 'the fix relies on test ordering',
          nextHypothesis: 'the clock drift comes from the container',
          retainedState: ['two kept edits in src/'],
          cleanup: ['removed the scratch log'],
        },
      }),
      record({ cycle: 2, closing: null }),
    ]);
    expect(report.unresolvedRisk).toBe('the fix relies on test ordering');
    expect(report.nextHypothesis).toBe('the clock drift comes from the container');
    expect(report.retainedState).toEqual(['two kept edits in src/']);
    expect(report.cleanup).toEqual(['removed the scratch log']);
  });

  it('leaves the evidence, retained state and cleanup empty when no record carries them', () => {
    const report = finalReport([record({ cycle: 1, terminalCheck: null })]);
    expect(report.finalEvidence).toEqual([]);
    expect(report.retainedState).toEqual([]);
    expect(report.cleanup).toEqual([]);
    expect(report.unresolvedRisk).toBeNull();
    expect(report.nextHypothesis).toBeNull();
    expect(report.stop).toBeNull();
  });

  it('gives the exact reason of each incomplete report, in the documented order', () => {
    const fired = {
      rule: 'success',
      success: true,
      reason: 'every test passes',
      evidence: ['npm test exit 0'],
    };
    const reason = (overrides: Parameters<typeof record>[0]) =>
      finalReport([record(overrides)]).incompleteReason;
    expect(finalReport([]).incompleteReason).toBe('the transcript is empty');
    expect(reason({ terminalCheck: null, decision: 'stop' })).toBe(
      'the transcript ends without a terminal check',
    );
    expect(
      reason({
        terminalCheck: { rule: null, success: false, reason: 'nothing fired', evidence: ['e'] },
        decision: 'stop',
      }),
    ).toBe('the last terminal check found no terminal condition; the loop did not finish');
    expect(
      reason({
        terminalCheck: { ...fired, rule: 'plateau', success: false, evidence: [] },
        decision: 'stop',
      }),
    ).toBe('the loop stopped (plateau) without terminal evidence; an exhausted loop is not a completed one');
    expect(reason({ terminalCheck: fired, decision: null })).toBe(
      'the terminal check fired success but the recorded decision is missing, not stop',
    );
    expect(reason({ terminalCheck: fired, decision: 'pivot' })).toBe(
      'the terminal check fired success but the recorded decision is pivot, not stop',
    );
    expect(reason({ terminalCheck: fired, decision: 'stop' })).toBeNull();
  });
});
