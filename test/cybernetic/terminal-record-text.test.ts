import { beforeEach, describe, expect, it } from 'vitest';
import {
  admitCandidate,
  beginRun,
  type CandidatePatch,
  concludeCheckpointUnavailable,
  concludeRun,
  type RunContract,
  type RunTranscript,
  recordCandidate,
  recordRun,
  renderTerminalRecord,
  type TerminalRecord,
} from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

// docs/cybernetic-loop.md, "The text for people, line by line" (decisions/cybernetic.md C19,
// C20). Every expected text below is typed from that section: the contract of test/cybernetic/
// helpers.ts has the checks invariant, unit and lint in that order, a budget of 5 and the scope
// src/index, src/store.ts; a failing check there exits 1.

const patch = (id: string, target: string, summary: string, paths: string[]): CandidatePatch => ({
  id,
  target,
  summary,
  paths,
});

let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf();
});

/** Baseline with the invariant failing, one reverted candidate, then a candidate outside the scope. */
function refusedAfterOneAttempt(): RunTranscript {
  let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
  t = recordCandidate(
    t,
    patch('p1', 'invariant', 'retry the rebuild', ['src/index/btree.ts']),
    runFailing(contract, 1, ['invariant'], 'other'),
  );
  const admission = admitCandidate(
    t,
    patch('p2', 'invariant', 'move the index settings', ['package.json', 'src/store.ts', 'tsconfig.json']),
  );
  if (admission.admitted) throw new Error('a patch outside the scope was admitted');
  return admission.transcript;
}

describe('the text of each terminal record', () => {
  it('already-holds: the status, the pre-mutation run, no budget spent', () => {
    const record = concludeRun(beginRun(contract, runFailing(contract, 0, [])));
    expect(renderTerminalRecord(record)).toBe(
      [
        'cybernetic run: already-holds (every frozen check passed before mutation; no patch attempted)',
        'pre-mutation results (run 0): invariant passed; unit passed; lint passed',
        'budget: 0 of 5 spent',
        '',
      ].join('\n'),
    );
  });

  it('restored: budget, baseline, every attempt in four lines, the final passing run', () => {
    let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    t = recordCandidate(
      t,
      patch('p1', 'invariant', 'rebuild the index before reading', ['src/index/btree.ts']),
      runFailing(contract, 1, ['invariant', 'lint']),
    );
    t = recordCandidate(
      t,
      patch('p2', 'invariant', 'flush the store first', ['src/index/btree.ts', 'src/store.ts']),
      runFailing(contract, 2, []),
    );
    expect(renderTerminalRecord(concludeRun(t))).toBe(
      [
        'cybernetic run: restored (every frozen check passed together in run 2)',
        'budget: 2 of 5 spent',
        'baseline (run 0): invariant failed (exit 1); unit passed; lint passed',
        'candidate 1 [p1] targeting invariant: rebuild the index before reading',
        '  paths: src/index/btree.ts',
        '  results (run 1): invariant failed (exit 1); unit passed; lint failed (exit 1)',
        '  decision: reverted: candidate-regression, broke-passing-check (broke lint); budget spent 1',
        'candidate 2 [p2] targeting invariant: flush the store first',
        '  paths: src/index/btree.ts, src/store.ts',
        '  results (run 2): invariant passed; unit passed; lint passed',
        '  decision: kept (now passing: invariant); budget spent 2',
        'final passing run (run 2): invariant passed; unit passed; lint passed',
        '',
      ].join('\n'),
    );
  });

  it('lists several checks now passing or broken, and a patch without paths as (none)', () => {
    let t = beginRun(contract, runFailing(contract, 0, ['invariant', 'unit']));
    t = recordCandidate(
      t,
      patch('p1', 'unit', 'swap the lock order', ['src/store.ts']),
      runFailing(contract, 1, ['invariant', 'unit', 'lint']),
    );
    t = recordCandidate(t, patch('p2', 'invariant', 'no file change', []), runFailing(contract, 2, []));
    const text = renderTerminalRecord(concludeRun(t)).split('\n');
    expect(text.slice(4, 11)).toEqual([
      '  paths: src/store.ts',
      '  results (run 1): invariant failed (exit 1); unit failed (exit 1); lint failed (exit 1)',
      '  decision: reverted: candidate-regression, broke-passing-check (broke lint); budget spent 1',
      'candidate 2 [p2] targeting invariant: no file change',
      '  paths: (none)',
      '  results (run 2): invariant passed; unit passed; lint passed',
      '  decision: kept (now passing: invariant, unit); budget spent 2',
    ]);
  });

  it('a candidate that broke two checks names both', () => {
    let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    t = recordCandidate(
      t,
      patch('p1', 'invariant', 'drop the cache', ['src/index']),
      runFailing(contract, 1, ['unit', 'lint']),
    );
    const text = renderTerminalRecord(
      concludeRun(
        recordCandidate(t, patch('p2', 'invariant', 'undo', ['src/index']), runFailing(contract, 2, [])),
      ),
    );
    expect(text).toContain(
      '\n  decision: reverted: candidate-regression, broke-passing-check (broke unit, lint); budget spent 1\n',
    );
  });

  it('non-converged: why, budget, baseline, attempts, the refused candidate, the restoration proof', () => {
    const record = concludeRun(refusedAfterOneAttempt(), {
      kind: 'restored',
      checkpoint: 'cp-7',
      operation: 'git restore --source=cp-7 -- src/index src/store.ts',
      remainingDelta: [],
    });
    expect(renderTerminalRecord(record)).toBe(
      [
        'cybernetic run: non-converged (scope-widening)',
        'why: candidate p2 needs package.json, tsconfig.json outside the recorded scope; it was not applied',
        'budget: 1 of 5 spent',
        'baseline (run 0): invariant failed (exit 1); unit passed; lint passed',
        'candidate 1 [p1] targeting invariant: retry the rebuild',
        '  paths: src/index/btree.ts',
        '  results (run 1): invariant failed (exit 1); unit passed; lint passed',
        '  decision: reverted: candidate-regression, no-improvement; budget spent 1',
        'refused candidate [p2] (not applied): move the index settings',
        '  paths: package.json, src/store.ts, tsconfig.json',
        'restoration: checkpoint cp-7 restored by `git restore --source=cp-7 -- src/index src/store.ts`; no delta remains',
        '',
      ].join('\n'),
    );
  });

  it('non-converged before any candidate: the restoration was not needed, and why', () => {
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const admission = admitCandidate(t, patch('p1', 'invariant', 'edit the docs', ['docs/index.md']));
    if (admission.admitted) throw new Error('a patch outside the scope was admitted');
    expect(renderTerminalRecord(concludeRun(admission.transcript, { kind: 'not-mutated' }))).toBe(
      [
        'cybernetic run: non-converged (scope-widening)',
        'why: candidate p1 needs docs/index.md outside the recorded scope; it was not applied',
        'budget: 0 of 5 spent',
        'baseline (run 0): invariant failed (exit 1); unit passed; lint passed',
        'refused candidate [p1] (not applied): edit the docs',
        '  paths: docs/index.md',
        'restoration: not needed, no candidate patch was applied',
        '',
      ].join('\n'),
    );
  });

  it('checkpoint-unavailable: no baseline line, nothing restored', () => {
    const record = concludeCheckpointUnavailable(contract, 'the scope holds an untracked socket file');
    expect(renderTerminalRecord(record)).toBe(
      [
        'cybernetic run: non-converged (checkpoint-unavailable)',
        'why: no exact checkpoint of the scope could be made: the scope holds an untracked socket file',
        'budget: 0 of 5 spent',
        'restoration: not needed, the run stopped before the first mutation',
        '',
      ].join('\n'),
    );
  });

  it('recovery-failure: says it is neither a rollback nor a success, then the operation, error and delta', () => {
    const record = concludeRun(refusedAfterOneAttempt(), {
      kind: 'failed',
      checkpoint: 'cp-7',
      operation: 'git restore --source=cp-7 -- src/index src/store.ts',
      error: 'EACCES: permission denied, open src/store.ts',
      remainingDelta: ['src/index/btree.ts', 'src/store.ts'],
    });
    expect(renderTerminalRecord(record)).toBe(
      [
        'cybernetic run: recovery-failure while stopping for scope-widening (NOT a clean rollback, NOT a success)',
        'why: candidate p2 needs package.json, tsconfig.json outside the recorded scope; it was not applied',
        'budget: 1 of 5 spent',
        'baseline (run 0): invariant failed (exit 1); unit passed; lint passed',
        'candidate 1 [p1] targeting invariant: retry the rebuild',
        '  paths: src/index/btree.ts',
        '  results (run 1): invariant failed (exit 1); unit passed; lint passed',
        '  decision: reverted: candidate-regression, no-improvement; budget spent 1',
        'refused candidate [p2] (not applied): move the index settings',
        '  paths: package.json, src/store.ts, tsconfig.json',
        'failed operation: git restore --source=cp-7 -- src/index src/store.ts (checkpoint cp-7)',
        'error: EACCES: permission denied, open src/store.ts',
        'remaining delta: src/index/btree.ts, src/store.ts',
        '',
      ].join('\n'),
    );
  });

  it('recovery-failure without a listed delta: the delta is unknown, and a checkpoint-unavailable stop has no baseline', () => {
    const record = concludeRun(refusedAfterOneAttempt(), {
      kind: 'restored',
      checkpoint: 'cp-7',
      operation: 'restore cp-7',
      remainingDelta: ['src/store.ts'],
    });
    expect(renderTerminalRecord(record).split('\n').slice(-4)).toEqual([
      'failed operation: restore cp-7 (checkpoint cp-7)',
      'error: the restoration operation completed but the working tree still differs from its pre-run state (see the remaining delta)',
      'remaining delta: src/store.ts',
      '',
    ]);
    const unknown = concludeRun(refusedAfterOneAttempt(), {
      kind: 'failed',
      checkpoint: 'cp-7',
      operation: 'restore cp-7',
      error: 'disk full',
      remainingDelta: [],
    });
    expect(renderTerminalRecord(unknown).split('\n').slice(-3)).toEqual([
      'error: disk full',
      'remaining delta: (unknown)',
      '',
    ]);
    // A recovery failure of a run stopped before its baseline (hand-built: the host cannot
    // restore what it never checkpointed, but the renderer must still leave the baseline out).
    const early: TerminalRecord = {
      ...concludeCheckpointUnavailable(contract, 'no snapshot tool'),
      status: 'recovery-failure',
      checkpoint: 'cp-0',
      failedOperation: 'restore cp-0',
      error: 'gone',
      remainingDelta: [],
    } as unknown as TerminalRecord;
    expect(renderTerminalRecord(early)).toBe(
      [
        'cybernetic run: recovery-failure while stopping for checkpoint-unavailable (NOT a clean rollback, NOT a success)',
        'why: no exact checkpoint of the scope could be made: no snapshot tool',
        'budget: 0 of 5 spent',
        'failed operation: restore cp-0 (checkpoint cp-0)',
        'error: gone',
        'remaining delta: (unknown)',
        '',
      ].join('\n'),
    );
  });

  it('invalid-input: one line per finding, with its line number when it has one', () => {
    const record: TerminalRecord = {
      status: 'invalid-input',
      findings: [
        { code: 'cybernetic.budget.not-positive', line: 0, reason: 'the budget must be at least 1' },
        { code: 'cybernetic.input.unknown-field', line: 3, reason: 'existingCheck is not a field' },
      ],
    };
    expect(renderTerminalRecord(record)).toBe(
      [
        'cybernetic run: invalid-input (refused before any mutation)',
        'the budget must be at least 1 (cybernetic.budget.not-positive)',
        'line 3: existingCheck is not a field (cybernetic.input.unknown-field)',
        '',
      ].join('\n'),
    );
  });
});

describe('the text of each check result', () => {
  it('a signal, an unavailable check with its reason, and the fallbacks of a hand-built run', () => {
    const baseline = recordRun(contract, 0, {
      invariant: { kind: 'terminated', signal: 'SIGKILL' },
      unit: { kind: 'not-executed', reason: 'program not found' },
      lint: { kind: 'exited', exitCode: 2 },
    });
    const stopped = beginRun(contract, baseline);
    const record = concludeRun(stopped, { kind: 'not-mutated' });
    expect(record.status).toBe('non-converged');
    expect(renderTerminalRecord(record).split('\n')[3]).toBe(
      'baseline (run 0): invariant failed (SIGKILL); unit unavailable (program not found); lint failed (exit 2)',
    );
    const handBuilt = {
      ...record,
      baseline: {
        ...baseline,
        results: [
          { name: 'invariant', outcome: 'failed', exitCode: null, detail: null, signature: null },
          { name: 'unit', outcome: 'unavailable', exitCode: null, detail: null, signature: null },
          { name: 'lint', outcome: 'passed', exitCode: 0, detail: null, signature: null },
        ],
      },
    } as unknown as TerminalRecord;
    expect(renderTerminalRecord(handBuilt).split('\n')[3]).toBe(
      'baseline (run 0): invariant failed (terminated); unit unavailable (could not be executed); lint passed',
    );
  });
});
