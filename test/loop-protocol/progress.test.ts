import { describe, expect, it } from 'vitest';
import {
  assessProgress,
  type NoisyBaseline,
  PROGRESS_KINDS,
  startProgressLedger,
} from '../../src/loop-protocol/index.js';

// Samples 10, 12, 11: median 11, tolerance 2 (the spread). Written out rather than aggregated
// while the file loads, so that no baseline code runs outside a test.
const baseline: NoisyBaseline = {
  direction: 'lower-is-better',
  samples: [10, 12, 11],
  median: 11,
  spread: { min: 10, max: 12 },
  tolerance: 2,
};

describe('the six kinds of progress', () => {
  it('names the six kinds of the protocol', () => {
    expect(PROGRESS_KINDS).toHaveLength(6);
  });

  it('counts each kind when it is new', () => {
    const ledger = startProgressLedger(baseline, 'obs-0', 5);
    const result = assessProgress(
      {
        closedCriteria: ['AC1'],
        metric: 8,
        eliminatedHypotheses: ['cache is stale'],
        queueLength: 4,
        evidenceFingerprints: ['log-1'],
        observationFingerprint: 'obs-1',
      },
      ledger,
      baseline,
    );
    expect(result.kinds).toEqual([...PROGRESS_KINDS]);
    expect(result.notProgress).toEqual([]);
    expect(result.ledger.bestMetric).toBe(8);
  });

  it('does not count repeated activity: the same claims again earn nothing', () => {
    const claim = {
      closedCriteria: ['AC1'],
      metric: 8,
      eliminatedHypotheses: ['h1'],
      queueLength: 4,
      evidenceFingerprints: ['log-1'],
      observationFingerprint: 'obs-1',
    };
    const first = assessProgress(claim, startProgressLedger(baseline, 'obs-0', 5), baseline);
    const second = assessProgress(claim, first.ledger, baseline);
    expect(second.kinds).toEqual([]);
    expect(second.notProgress.map((n) => n.kind).sort()).toEqual([...PROGRESS_KINDS].sort());
  });

  it('measures metric progress against the best known value, not the baseline', () => {
    const first = assessProgress({ metric: 8 }, startProgressLedger(baseline, null), baseline);
    expect(first.kinds).toEqual(['metric-improved-beyond-tolerance']);
    // 7 beats the baseline median by 4 but the best known (8) only by 1 < tolerance 2.
    expect(assessProgress({ metric: 7 }, first.ledger, baseline).kinds).toEqual([]);
    expect(assessProgress({ metric: 5 }, first.ledger, baseline).kinds).toEqual([
      'metric-improved-beyond-tolerance',
    ]);
  });

  it('does not count a return to a state already observed as a state transition', () => {
    let ledger = startProgressLedger(null, 'A');
    ledger = assessProgress({ observationFingerprint: 'B' }, ledger).ledger;
    expect(assessProgress({ observationFingerprint: 'A' }, ledger).kinds).toEqual([]);
  });

  it('does not count a metric claim without a baseline, or a queue that did not shrink', () => {
    const result = assessProgress({ metric: 1, queueLength: 5 }, startProgressLedger(null, null, 5));
    expect(result.kinds).toEqual([]);
    expect(result.notProgress.map((n) => n.kind)).toEqual([
      'metric-improved-beyond-tolerance',
      'queue-reduced',
    ]);
  });
});
