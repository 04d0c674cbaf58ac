import { beforeEach, describe, expect, it } from 'vitest';
import {
  beginRun,
  concludeCheckpointUnavailable,
  concludeRun,
  freezeRunContract,
  isTerminalSuccess,
  recordCandidate,
  recordRun,
  renderTerminalRecord,
  renderTerminalRecordJson,
  type TerminalRecord,
  terminalRecordToJson,
  UnsupportedConclusionError,
} from '../../src/cybernetic/index.js';
import { contractOf, executions, runFailing } from './helpers.js';

const patch = (id: string, target = 'invariant') => ({
  id,
  target,
  summary: `fix ${target}`,
  paths: ['src/store.ts'],
});

function stoppedRun() {
  const contract = contractOf({ budget: 1 });
  let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
  t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['invariant'], 'other'));
  return t;
}

describe('terminal records', () => {
  it('already-holds carries the pre-mutation results and no patch', () => {
    const contract = contractOf();
    const record = concludeRun(beginRun(contract, runFailing(contract, 0, [])));
    expect(record.status).toBe('already-holds');
    if (record.status !== 'already-holds') return;
    expect(record.baseline.run).toBe(0);
    expect(record.budget).toEqual({ limit: 5, spent: 0 });
    expect('attempts' in record).toBe(false);
    expect(isTerminalSuccess(record)).toBe(true);
  });

  it('restored carries the patches, budget, results and the final passing run', () => {
    const contract = contractOf();
    let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['invariant', 'lint']));
    t = recordCandidate(t, patch('p2'), runFailing(contract, 2, []));
    const record = concludeRun(t);
    expect(record.status).toBe('restored');
    if (record.status !== 'restored') return;
    expect(record.attempts.map((a) => a.patch.id)).toEqual(['p1', 'p2']);
    expect(record.finalRun.failingSet).toEqual([]);
    expect(record.budget).toEqual({ limit: 5, spent: 2 });
  });

  it('non-converged needs the checkpoint restored first and records the proof', () => {
    const t = stoppedRun();
    expect(() => concludeRun(t)).toThrow(UnsupportedConclusionError);
    const record = concludeRun(t, {
      kind: 'restored',
      checkpoint: 'cp-1',
      operation: 'restore checkpoint cp-1',
      remainingDelta: [],
    });
    expect(record).toMatchObject({
      status: 'non-converged',
      stopClass: 'budget-exhaustion',
      budget: { limit: 1, spent: 1 },
      restoration: { kind: 'checkpoint-restored', checkpoint: 'cp-1' },
    });
    expect(isTerminalSuccess(record)).toBe(false);
  });

  it('a failed restoration is a recovery-failure with the operation and the remaining delta', () => {
    const record = concludeRun(stoppedRun(), {
      kind: 'failed',
      checkpoint: 'cp-1',
      operation: 'restore checkpoint cp-1',
      error: 'permission denied',
      remainingDelta: ['src/store.ts'],
    });
    expect(record).toMatchObject({
      status: 'recovery-failure',
      stopClass: 'budget-exhaustion',
      failedOperation: 'restore checkpoint cp-1',
      remainingDelta: ['src/store.ts'],
    });
    expect(isTerminalSuccess(record)).toBe(false);
  });

  it('a restoration that leaves a delta is a recovery-failure, never a clean non-converged', () => {
    const record = concludeRun(stoppedRun(), {
      kind: 'restored',
      checkpoint: 'cp-1',
      operation: 'restore',
      remainingDelta: ['src/store.ts'],
    });
    expect(record.status).toBe('recovery-failure');
  });

  it('not-mutated is accepted only when no candidate was applied', () => {
    expect(() => concludeRun(stoppedRun(), { kind: 'not-mutated' })).toThrow(UnsupportedConclusionError);
    const contract = contractOf();
    const t = beginRun(contract, recordRun(contract, 0, executions(contract, { unit: 'unavailable' })));
    expect(concludeRun(t, { kind: 'not-mutated' })).toMatchObject({
      status: 'non-converged',
      stopClass: 'unavailable-check',
      restoration: { kind: 'not-mutated' },
    });
  });

  it('refuses to conclude a running run, or to restore a successful one', () => {
    const contract = contractOf();
    const running = beginRun(contract, runFailing(contract, 0, ['invariant']));
    expect(() => concludeRun(running)).toThrow(UnsupportedConclusionError);
    const holds = beginRun(contract, runFailing(contract, 0, []));
    expect(() => concludeRun(holds, { kind: 'not-mutated' })).toThrow(UnsupportedConclusionError);
  });

  it('checkpoint-unavailable stops before mutation as non-converged', () => {
    const record = concludeCheckpointUnavailable(contractOf(), 'the scope holds an untracked socket file');
    expect(record).toMatchObject({
      status: 'non-converged',
      stopClass: 'checkpoint-unavailable',
      baseline: null,
      budget: { spent: 0 },
    });
  });
});

describe('rendering terminal records', () => {
  // Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
  let records: TerminalRecord[];
  beforeEach(() => {
    const contract = contractOf();
    records = [
      concludeRun(beginRun(contract, runFailing(contract, 0, []))),
      concludeRun(stoppedRun(), {
        kind: 'restored',
        checkpoint: 'cp-1',
        operation: 'restore cp-1',
        remainingDelta: [],
      }),
      concludeRun(stoppedRun(), {
        kind: 'failed',
        checkpoint: 'cp-1',
        operation: 'restore cp-1',
        error: 'EACCES',
        remainingDelta: [],
      }),
    ];
    const refused = freezeRunContract({ budget: 0 });
    if (!refused.ok) records.push(refused.record);
  });

  it('starts the text with the status and never calls a recovery failure a success', () => {
    const [holds, nonConverged, failure, invalid] = records.map(renderTerminalRecord);
    expect(holds).toMatch(/^cybernetic run: already-holds/);
    expect(nonConverged).toMatch(/^cybernetic run: non-converged \(budget-exhaustion\)/);
    expect(nonConverged).toContain('checkpoint cp-1 restored by `restore cp-1`');
    expect(failure).toMatch(/^cybernetic run: recovery-failure/);
    expect(failure).toContain('NOT a success');
    expect(failure).toContain('remaining delta: (unknown)');
    expect(invalid).toContain('cybernetic.budget.not-positive');
  });

  it('renders every record as parseable JSON with status and success', () => {
    for (const record of records) {
      const json = JSON.parse(renderTerminalRecordJson(record));
      expect(json).toEqual(terminalRecordToJson(record));
      expect(json.status).toBe(record.status);
      expect(json.success).toBe(record.status === 'already-holds');
      expect(json.protocol).toBe('cybernetic-loop');
    }
  });

  it('spells out the contract in JSON with commands as vectors and text', () => {
    const json = terminalRecordToJson(records[0] as TerminalRecord) as {
      contract: { checks: { name: string; command: string[]; commandText: string }[] };
    };
    expect(json.contract.checks[1]).toMatchObject({
      name: 'unit',
      command: ['npm', 'test'],
      commandText: 'npm test',
    });
  });
});
