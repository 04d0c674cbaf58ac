/**
 * What the cybernetic loop hands its effects and what it makes of their failures, driven with
 * scripted actors: the attempt and run numbers of each candidate (1-based, the run number equal
 * to the attempt's), the target, failing results, retained run, budget and checkpoint a candidate
 * is applied against, the retained checkpoint a keep or revert gets, a candidate that breaks a
 * passing check being reverted, and an effect failure's operation, message and restoration.
 * Expected values are written by hand from docs/cybernetic-loop.md (procedure steps 5-9, the
 * actor table) and docs/decisions/cybernetic-machines.md (M12: an effect failure restores the
 * pre-run checkpoint and ends in `failed`).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type ApplyCandidateInput,
  type ApplyCandidateOutput,
  type CheckpointOutcome,
  type CreateCheckpointInput,
  type CyberneticLoopOutput,
  cyberneticLoopMachine,
  type EchoContractInput,
  type RestoreCheckpointInput,
  type RetainedStateInput,
  type RetainedStateOutput,
  type RunChecksInput,
  type RunChecksOutput,
} from '../../machines/cybernetic-loop.js';
import type { CheckExecution } from '../../src/cybernetic/check.js';
import type { RestorationObservation } from '../../src/cybernetic/terminal-record.js';

/** Two checks: the invariant's (always first) and the repository's `unit`; budget 3. */
const REQUEST = {
  invariant: {
    statement: 'after an interrupted rebuild every stored key is found',
    offHappyPath: 'index recovery after a crash mid-rebuild',
    check: { command: ['node', 'scripts/check-index.js'] },
  },
  budget: 3,
  scope: ['src/index'],
  existingChecks: [{ name: 'unit', command: ['npm', 'test'] }],
};

const PASS: CheckExecution = { kind: 'exited', exitCode: 0 };
const fail = (signature: string): CheckExecution => ({ kind: 'exited', exitCode: 1, signature });

/** One check result as the run records it (exit code 1 with the host's signature, or a pass). */
const failedResult = (name: string, signature: string) => ({
  name,
  outcome: 'failed',
  exitCode: 1,
  detail: null,
  signature,
});
const passedResult = (name: string) => ({
  name,
  outcome: 'passed',
  exitCode: 0,
  detail: null,
  signature: null,
});

const CLEAN_RESTORE: RestorationObservation = {
  kind: 'restored',
  checkpoint: 'cp-0',
  operation: 'restore scope',
  remainingDelta: [],
};

/** A scripted answer: the value to resolve with, or `{ reject }` to reject with that value. */
type Answer<T> = T | { readonly reject: unknown };

interface Script {
  /** The executions of each check run, in call order (baseline first). */
  readonly runs: readonly Readonly<Record<string, CheckExecution>>[];
  /** The patcher's answer per candidate, in call order (default: one in-scope path). */
  readonly patches?: readonly Answer<ApplyCandidateOutput>[];
  readonly retain?: Answer<RetainedStateOutput>;
  readonly restore?: Answer<RestorationObservation>;
}

interface Call {
  readonly src: string;
  readonly input: unknown;
}

function settle<T>(answer: Answer<T>): T {
  if (typeof answer === 'object' && answer !== null && 'reject' in answer) throw answer.reject;
  return answer as T;
}

/** Runs one valid request against scripted effects; returns the output, final state and every call. */
async function runScripted(script: Script) {
  const calls: Call[] = [];
  let run = 0;
  let patch = 0;
  const machine = cyberneticLoopMachine.provide({
    actors: {
      echoContract: fromPromise<Record<string, never>, EchoContractInput>(async ({ input }) => {
        calls.push({ src: 'echoContract', input });
        return {};
      }),
      createCheckpoint: fromPromise<CheckpointOutcome, CreateCheckpointInput>(async ({ input }) => {
        calls.push({ src: 'createCheckpoint', input });
        return { kind: 'created', checkpoint: 'cp-0' };
      }),
      runChecks: fromPromise<RunChecksOutput, RunChecksInput>(async ({ input }) => {
        calls.push({ src: 'runChecks', input });
        const executions = script.runs[run];
        run += 1;
        if (executions === undefined) throw new Error('the script has no further check run');
        return { executions };
      }),
      applyCandidate: fromPromise<ApplyCandidateOutput, ApplyCandidateInput>(async ({ input }) => {
        calls.push({ src: 'applyCandidate', input });
        const answer = script.patches?.[patch] ?? {
          summary: `candidate ${patch + 1}`,
          changedPaths: ['src/index/rebuild.ts'],
        };
        patch += 1;
        return settle(answer);
      }),
      retainCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(async ({ input }) => {
        calls.push({ src: 'retainCandidate', input });
        return settle(script.retain ?? { checkpoint: `cp-kept-${input.attempt}` });
      }),
      revertCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(async ({ input }) => {
        calls.push({ src: 'revertCandidate', input });
        return { checkpoint: input.checkpoint };
      }),
      restoreCheckpoint: fromPromise<RestorationObservation, RestoreCheckpointInput>(async ({ input }) => {
        calls.push({ src: 'restoreCheckpoint', input });
        return settle(script.restore ?? CLEAN_RESTORE);
      }),
    },
  });
  const actor = createActor(machine);
  actor.start();
  actor.send({ type: 'START', request: REQUEST });
  const output = (await toPromise(actor)) as CyberneticLoopOutput;
  const of = (src: string) => calls.filter((call) => call.src === src).map((call) => call.input);
  return { output, state: actor.getSnapshot().value, calls, of };
}

describe('cybernetic loop: what each candidate is applied and checked with', () => {
  it('a kept candidate, then a passing one: attempts 1 and 2, runs 0, 1 and 2, the kept checkpoint', async () => {
    const { output, state, calls, of } = await runScripted({
      runs: [
        { invariant: fail('a'), unit: fail('u') }, // baseline: both fail
        { invariant: PASS, unit: fail('u') }, // candidate 1 fixes the invariant: kept
        { invariant: PASS, unit: PASS }, // candidate 2 fixes unit: restored
      ],
    });
    expect(state).toBe('restored');
    expect(output.record?.status).toBe('restored');
    expect(output.failure).toBeNull();
    expect(calls.map((call) => call.src)).toEqual([
      'echoContract',
      'createCheckpoint',
      'runChecks',
      'applyCandidate',
      'runChecks',
      'retainCandidate',
      'applyCandidate',
      'runChecks',
    ]);
    // The baseline is run 0; candidate k is checked as run k.
    expect(of('runChecks').map((input) => (input as RunChecksInput).run)).toEqual([0, 1, 2]);
    for (const input of of('runChecks'))
      expect((input as RunChecksInput).checks.map((check) => check.name)).toEqual(['invariant', 'unit']);

    const [first, second] = of('applyCandidate') as ApplyCandidateInput[];
    expect(first).toMatchObject({
      attempt: 1,
      target: 'invariant',
      failing: [failedResult('invariant', 'a'), failedResult('unit', 'u')],
      retainedRun: 0,
      budget: { limit: 3, spent: 0 },
      checkpoint: 'cp-0',
    });
    expect(first?.contract.checks.map((check) => check.name)).toEqual(['invariant', 'unit']);
    // The kept candidate 1 became the retained state, under the checkpoint retain reported.
    expect(of('retainCandidate')).toEqual([{ attempt: 1, checkpoint: 'cp-0' }]);
    expect(second).toMatchObject({
      attempt: 2,
      target: 'unit',
      failing: [failedResult('unit', 'u')],
      retainedRun: 1,
      budget: { limit: 3, spent: 1 },
      checkpoint: 'cp-kept-1',
    });
  });

  it('a candidate that breaks a passing check is reverted; the next is attempt 2 against the baseline', async () => {
    const { output, state, of } = await runScripted({
      runs: [
        { invariant: fail('a'), unit: PASS }, // baseline: only the invariant fails
        { invariant: PASS, unit: fail('u') }, // candidate 1 fixes it but breaks unit
        { invariant: PASS, unit: PASS }, // candidate 2: every check passes together
      ],
    });
    expect(state).toBe('restored');
    expect(output.record?.status).toBe('restored');
    expect(of('revertCandidate')).toEqual([{ attempt: 1, checkpoint: 'cp-0' }]);
    expect(of('retainCandidate')).toEqual([]);
    expect(of('runChecks').map((input) => (input as RunChecksInput).run)).toEqual([0, 1, 2]);
    const [first, second] = of('applyCandidate') as ApplyCandidateInput[];
    expect(first).toMatchObject({ attempt: 1, target: 'invariant', retainedRun: 0, budget: { spent: 0 } });
    // The reverted candidate spent its unit; the retained state is still the baseline.
    expect(second).toMatchObject({
      attempt: 2,
      target: 'invariant',
      failing: [failedResult('invariant', 'a')],
      retainedRun: 0,
      budget: { limit: 3, spent: 1 },
      checkpoint: 'cp-0',
    });
    if (output.record?.status !== 'restored') throw new Error('expected a restored record');
    expect(output.record.attempts.map((attempt) => attempt.decision.decision)).toEqual(['revert', 'keep']);
    expect(output.record.finalRun.results).toEqual([passedResult('invariant'), passedResult('unit')]);
  });

  it('a stop restores the pre-run checkpoint, whatever was retained since', async () => {
    const { state, output, of } = await runScripted({
      runs: [
        { invariant: fail('a'), unit: fail('u') },
        { invariant: PASS, unit: fail('u') }, // kept
        { invariant: PASS, unit: { kind: 'not-executed', reason: 'npm: command not found' } },
      ],
    });
    expect(state).toBe('nonConverged');
    expect(of('retainCandidate')).toEqual([{ attempt: 1, checkpoint: 'cp-0' }]);
    expect(of('restoreCheckpoint')).toEqual([{ checkpoint: 'cp-0' }]);
    expect(output.record?.status).toBe('non-converged');
  });
});

describe('cybernetic loop: an effect that fails outside the protocol (M12)', () => {
  const BASELINE_FAILS = [{ invariant: fail('a'), unit: PASS }] as const;

  // The error text follows the rule crank uses for a lane (decisions/cybernetic-machines.md M32):
  // the rejection's own string message, else the rejected value as text.
  it('carries the own string message of an error, else the rejected value as text', async () => {
    const cases: [unknown, string][] = [
      [new Error('the task file cannot be written'), 'the task file cannot be written'],
      [{ message: 'patcher exited with 3' }, 'patcher exited with 3'],
      ['the patcher was killed', 'the patcher was killed'],
      [42, '42'],
      [null, 'null'],
      [undefined, 'undefined'],
      [{ message: 42 }, '{"message":42}'],
      [{ code: 'EIO' }, '{"code":"EIO"}'],
    ];
    for (const [rejection, message] of cases) {
      const { state, output, of } = await runScripted({
        runs: BASELINE_FAILS,
        patches: [{ reject: rejection }],
      });
      expect(state).toBe('failed');
      expect(output.record).toBeNull();
      expect(output.failure).toEqual({
        operation: 'applyCandidate',
        error: message,
        restoration: CLEAN_RESTORE,
      });
      expect(of('restoreCheckpoint')).toEqual([{ checkpoint: 'cp-0' }]);
    }
  });

  it('a rejection that String() cannot print still restores the checkpoint and ends in failed', async () => {
    // String() throws for both; before M32 the run stopped in `applying` with the candidate applied.
    const cases: [unknown, string][] = [
      [Object.create(null), '{}'],
      [{ toString: false }, '{"toString":false}'],
    ];
    for (const [rejection, message] of cases) {
      const { state, output, of } = await runScripted({
        runs: BASELINE_FAILS,
        patches: [{ reject: rejection }],
      });
      expect(state).toBe('failed');
      expect(of('restoreCheckpoint')).toEqual([{ checkpoint: 'cp-0' }]);
      expect(output.failure).toEqual({
        operation: 'applyCandidate',
        error: message,
        restoration: CLEAN_RESTORE,
      });
    }
  });

  it('a keep that fails restores the pre-run checkpoint and names retainCandidate', async () => {
    const { state, output, of } = await runScripted({
      runs: [
        { invariant: fail('a'), unit: fail('u') },
        { invariant: PASS, unit: fail('u') },
      ],
      retain: { reject: new Error('a socket cannot be checkpointed') },
    });
    expect(state).toBe('failed');
    expect(of('retainCandidate')).toEqual([{ attempt: 1, checkpoint: 'cp-0' }]);
    expect(output.failure).toEqual({
      operation: 'retainCandidate',
      error: 'a socket cannot be checkpointed',
      restoration: CLEAN_RESTORE,
    });
  });

  it('when restoring the checkpoint then fails too: the restore operation, its error and no listed delta', async () => {
    const { state, output, of } = await runScripted({
      runs: BASELINE_FAILS,
      patches: [{ reject: new Error('the patcher was killed') }],
      restore: { reject: new Error('EACCES: permission denied, open src/index/rebuild.ts') },
    });
    expect(state).toBe('failed');
    expect(of('restoreCheckpoint')).toEqual([{ checkpoint: 'cp-0' }]);
    expect(output.failure).toEqual({
      operation: 'applyCandidate',
      error: 'the patcher was killed',
      restoration: {
        kind: 'failed',
        checkpoint: 'cp-0',
        operation: 'restoreCheckpoint',
        error: 'EACCES: permission denied, open src/index/rebuild.ts',
        remainingDelta: [],
      },
    });
  });
});
