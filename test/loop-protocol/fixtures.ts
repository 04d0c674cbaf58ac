import type { TranscriptRecord } from '../../src/loop-protocol/index.js';

/** A valid mid-cycle transcript record of the cybernetic machine; override any field. */
export function record(overrides: Partial<TranscriptRecord> = {}): TranscriptRecord {
  return {
    version: 1,
    machine: 'cybernetic',
    cycle: 1,
    timestamp: '2026-03-01T10:00:00.000Z',
    state: { candidate: 'verifying' },
    event: 'checks.done',
    transition: [
      {
        key: 'cybernetic.candidate.running|checks.done|0',
        source: 'cybernetic.candidate.running',
        event: 'checks.done',
        index: 0,
        targets: ['cybernetic.candidate.verifying'],
        description: 'R1',
      },
    ],
    observation: { summary: 'invariant fails, unit passes', metric: 1 },
    fingerprint: 'fp-1',
    action: { kind: 'action', summary: 'guard the rebuild against a missing page', disposition: null },
    evidence: ['node scripts/check-index.js exit 1'],
    progressDelta: null,
    verifierResult: { evaluator: 'node scripts/check-index.js', verdict: 'fail', detail: 'exit 1' },
    decision: null,
    terminalCheck: null,
    budget: { iterationsUsed: 1, iterationLimit: 5, elapsedMs: null, tokensUsed: null, costUsed: null },
    ...overrides,
  };
}
