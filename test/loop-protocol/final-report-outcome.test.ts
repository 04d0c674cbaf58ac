// Two more readings of docs/loop-protocol.md's "Final report": the evaluator reported is the last
// verifier result recorded, and `succeeded` needs a complete report (terminal evidence and a stop
// decision), not only a terminal check that calls itself a success. Expected values by hand.
import { describe, expect, it } from 'vitest';
import { finalReport } from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

describe('the final report outcome', () => {
  it('reports the last verifier result recorded, even when later records carry none', () => {
    const report = finalReport([
      record({ cycle: 1, verifierResult: { evaluator: 'npm test', verdict: 'fail', detail: '2 failures' } }),
      record({ cycle: 2, verifierResult: { evaluator: 'npm test', verdict: 'pass', detail: null } }),
      record({ cycle: 2, verifierResult: null }),
    ]);
    expect(report.evaluator).toEqual({ evaluator: 'npm test', verdict: 'pass', detail: null });
  });

  it('does not call a loop successful when its success check lacks terminal evidence or a stop decision', () => {
    const success = { rule: 'success', success: true, reason: 'every test passes' };
    const withoutEvidence = finalReport([
      record({ decision: 'stop', terminalCheck: { ...success, evidence: [] } }),
    ]);
    expect(withoutEvidence.status).toBe('incomplete');
    expect(withoutEvidence.succeeded).toBe(false);
    const notStopped = finalReport([
      record({ decision: 'continue', terminalCheck: { ...success, evidence: ['npm test exit 0'] } }),
    ]);
    expect(notStopped.status).toBe('incomplete');
    expect(notStopped.succeeded).toBe(false);
    const stopped = finalReport([
      record({ decision: 'stop', terminalCheck: { ...success, evidence: ['npm test exit 0'] } }),
    ]);
    expect(stopped.succeeded).toBe(true);
  });
});
