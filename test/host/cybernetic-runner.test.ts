/**
 * Embedding the two machines: actors that are not provided fail by name, a cybernetic run
 * persisted mid-candidate resumes from its JSON snapshot to the same terminal record, the runner
 * refuses a directory that is not a worktree root, and the loop protocol runner writes a
 * transcript whose final report is complete.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnyActorLogic, createActor, fromPromise, type Snapshot, waitFor } from 'xstate';
import { cyberneticLoopMachine } from '../../machines/cybernetic-loop.js';
import { loopProtocolMachine } from '../../machines/loop-protocol/index.js';
import { InputError } from '../../src/common/errors.js';
import { UnfrozenContractError } from '../../src/cybernetic/errors.js';
import { reviveRunContract } from '../../src/cybernetic/revive-contract.js';
import { freezeRunContract, type RunContract } from '../../src/cybernetic/run-contract.js';
import { recordRun } from '../../src/cybernetic/run-record.js';
import { beginRun, recordCandidate } from '../../src/cybernetic/run-transcript.js';
import { concludeRun } from '../../src/cybernetic/terminal-record.js';
import { CYBERNETIC_MODEL_REQUEST, CYBERNETIC_MODEL_RUNS } from '../../src/graph/models/cybernetic-loop.js';
import { runCyberneticLoop } from '../../src/host/cybernetic-runner.js';
import { runLoopProtocol } from '../../src/host/loop-protocol-runner.js';
import { finalReport } from '../../src/loop-protocol/final-report.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';

const created = { kind: 'created', checkpoint: 'cp-0' } as const;
const cleanRestore = {
  kind: 'restored',
  checkpoint: 'cp-0',
  operation: 'restore',
  remainingDelta: [],
} as const;

/** Actors that answer at once; `runs` are the check results of successive runs. */
function cannedActors(
  applyCandidate: AnyActorLogic,
  runs: readonly (typeof CYBERNETIC_MODEL_RUNS)[keyof typeof CYBERNETIC_MODEL_RUNS][],
): Record<string, AnyActorLogic> {
  let run = 0;
  return {
    echoContract: fromPromise(async () => ({})),
    createCheckpoint: fromPromise(async () => created),
    runChecks: fromPromise(async () => ({ executions: runs[run++] })),
    applyCandidate,
    revertCandidate: fromPromise(async () => ({ checkpoint: 'cp-0' })),
    retainCandidate: fromPromise(async () => ({ checkpoint: 'cp-1' })),
    restoreCheckpoint: fromPromise(async () => cleanRestore),
  };
}

describe('cybernetic-loop machine, embedded', () => {
  it('fails by name when the host did not provide an actor, before anything is mutated', async () => {
    const actor = createActor(cyberneticLoopMachine).start();
    actor.send({ type: 'START', request: CYBERNETIC_MODEL_REQUEST });
    const snapshot = await waitFor(actor, (s) => s.status !== 'active');
    expect(snapshot.value).toBe('failed');
    expect(snapshot.output?.failure).toMatchObject({ operation: 'echoContract', restoration: null });
    expect(snapshot.output?.failure?.error).toContain('actor "echoContract" was not provided');
  });

  it('resumes a run persisted mid-candidate from its JSON snapshot to the terminal record of the pure core', async () => {
    // First process: the patcher never answers; the run is persisted while it is in flight.
    const first = createActor(
      cyberneticLoopMachine.provide({
        actors: cannedActors(
          fromPromise(() => new Promise(() => undefined)),
          [CYBERNETIC_MODEL_RUNS.invariantFails],
        ),
      }),
    ).start();
    first.send({ type: 'START', request: CYBERNETIC_MODEL_REQUEST });
    await waitFor(first, (s) => s.matches({ candidate: 'applying' }));
    const persisted = JSON.parse(JSON.stringify(first.getPersistedSnapshot()));
    first.stop();

    // Second process: the contract in the snapshot is plain JSON now; the machine re-freezes it.
    const summary = { summary: 'replay the journal', changedPaths: ['src/index/rebuild.ts'] };
    const second = createActor(
      cyberneticLoopMachine.provide({
        actors: cannedActors(
          fromPromise(async () => summary),
          [CYBERNETIC_MODEL_RUNS.allPass],
        ),
      }),
      { snapshot: persisted as Snapshot<unknown> },
    ).start();
    const done = await waitFor(second, (s) => s.status !== 'active');
    expect(done.value).toBe('restored');

    const frozen = freezeRunContract(CYBERNETIC_MODEL_REQUEST);
    if (!frozen.ok) throw new Error('the model request must be valid');
    const c = frozen.contract;
    const baseline = beginRun(c, recordRun(c, 0, CYBERNETIC_MODEL_RUNS.invariantFails));
    const after = recordCandidate(
      baseline,
      { id: 'candidate-1', target: 'invariant', summary: summary.summary, paths: summary.changedPaths },
      recordRun(c, 1, CYBERNETIC_MODEL_RUNS.allPass),
    );
    expect(JSON.parse(JSON.stringify(done.output?.record))).toEqual(
      JSON.parse(JSON.stringify(concludeRun(after))),
    );
  });

  it('refuses a revived contract whose check set was changed', () => {
    const frozen = freezeRunContract(CYBERNETIC_MODEL_REQUEST);
    if (!frozen.ok) throw new Error('the model request must be valid');
    const plain = JSON.parse(JSON.stringify(frozen.contract)) as RunContract;
    expect(reviveRunContract(plain)).toEqual(frozen.contract);
    const fewer = { ...plain, checks: plain.checks.slice(0, 1) };
    expect(reviveRunContract(fewer).checks).toHaveLength(1); // a valid contract of its own
    const renamed = {
      ...plain,
      checks: plain.checks.map((check) => ({ ...check, role: 'existing' })),
    } as RunContract;
    expect(() => reviveRunContract(renamed)).toThrow(UnfrozenContractError);
  });

  it('runCyberneticLoop refuses a directory that is not the root of a git worktree', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loopchart-runner-'));
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
    mkdirSync(join(root, 'sub'));
    const options = { request: CYBERNETIC_MODEL_REQUEST, patcher: 'true' };
    await expect(runCyberneticLoop({ ...options, worktree: join(root, 'sub') })).rejects.toThrow(InputError);
    await expect(
      runCyberneticLoop({ ...options, worktree: mkdtempSync(join(tmpdir(), 'loopchart-no-git-')) }),
    ).rejects.toThrow(/not inside a git worktree/);
  });
});

describe('loop-protocol machine, embedded', () => {
  it('fails by name when the host did not provide an actor', async () => {
    const actor = createActor(loopProtocolMachine).start();
    actor.send({
      type: 'START',
      contract: {
        outcome: 'zero failing tests',
        observableSource: 'npm test',
        allowedActions: 'local edits',
        actor: 'this task',
        evaluator: 'npm test',
        iterationBudget: 2,
      },
    });
    // observe is not provided: the source cannot be observed, so the loop stops as source-lost.
    const snapshot = await waitFor(actor, (s) => s.status !== 'active');
    expect(snapshot.output?.decision?.rule).toBe('source-lost');
    expect(snapshot.context.sourceLost).toContain('actor "observe" was not provided');
  });

  it('runs with scripted effects, asks for direction, and writes a transcript whose report is complete', async () => {
    const transcriptPath = join(mkdtempSync(join(tmpdir(), 'loopchart-loop-run-')), 'loop.jsonl');
    let failing = 3;
    const asked: string[] = [];
    const result = await runLoopProtocol({
      transcriptPath,
      start: {
        contract: {
          observableSource: 'the failing-test count',
          allowedActions: 'one root-cause fix per cycle',
          actor: 'this task',
          evaluator: 'npm test',
          iterationBudget: 6,
          plateauRule: 'stop after 2 non-improving cycles',
        },
        metric: { direction: 'lower-is-better', minSamples: 2 },
      },
      direction: async (missing) => {
        asked.push(...missing.map((m) => m.label));
        return { outcome: 'zero failing tests' };
      },
      effects: {
        observe: async () => ({
          available: true,
          summary: `${failing} failing`,
          metric: failing,
          fingerprint: `failing-${failing}`,
          userChangesOverlap: false,
        }),
        choose: async ({ cycle }) => ({
          action: { kind: 'action', summary: `fix root cause ${cycle}` },
          reason: 'the first failing test',
          needsBroaderScope: false,
          pivotAvailable: false,
          permittedActionRemains: true,
          crossTurn: false,
        }),
        act: async () => {
          failing -= 1;
          return { evidence: ['edited one file'], elapsedMs: 10, tokens: 0, cost: 0 };
        },
        verify: async () => ({
          verdict: failing === 0 ? 'pass' : 'fail',
          detail: null,
          evidence: [`npm test: ${failing} failing`],
          successEvidence: failing === 0 ? ['npm test exit 0 on the final diff'] : [],
          terminalFailureEvidence: [],
          claim: { metric: failing },
          errorFingerprint: null,
        }),
        checkpoint: async ({ cycle }) => ({ ok: true, checkpoint: `cp-${cycle}`, reason: null }),
        rollback: async () => ({ restored: true, detail: null }),
      },
    });
    expect(asked).toEqual(['Outcome', 'Success']); // Success is inferred from Outcome, so it waits too
    expect(result.status).toBe('stopped');
    expect(result.output?.decision).toMatchObject({ decision: 'stop', rule: 'success' });
    expect(result.output?.completedCycles).toBe(3);
    const parsed = parseTranscript(readFileSync(transcriptPath, 'utf8'));
    expect(parsed.findings).toEqual([]);
    const report = finalReport(parsed.records);
    expect(report).toMatchObject({
      status: 'complete',
      succeeded: true,
      machines: ['loop-protocol'],
      cyclesCompleted: 3,
    });
    expect(report.actions.kept.map((a) => a.summary)).toEqual([
      'fix root cause 1',
      'fix root cause 2',
      'fix root cause 3',
    ]);
    expect(report.baseline).toMatchObject({ cycle: 0, metric: 3 });
  });

  it('says why it never started: an invalid contract, or a cancel while waiting for direction', async () => {
    const transcriptPath = () => join(mkdtempSync(join(tmpdir(), 'loopchart-loop-run-')), 'loop.jsonl');
    const invalid = await runLoopProtocol({
      transcriptPath: transcriptPath(),
      start: { contract: { outcome: 'zero failing tests', iterationBudget: 0 } },
      effects: {} as never,
    });
    expect(invalid.status).toBe('invalid-contract');
    expect(invalid.output?.findings.map((f) => f.code)).toEqual(['loop-protocol.entry.field-invalid']);
    const cancelled = await runLoopProtocol({
      transcriptPath: transcriptPath(),
      start: { contract: { outcome: 'zero failing tests' } },
      direction: async () => null,
      effects: {} as never,
    });
    expect(cancelled.status).toBe('cancelled-before-start');
  });

  it('records an effect rejecting with plain data as the machine does, so a resumed run decides the same', async () => {
    // decisions/cybernetic-machines.md M32: the rejected value as text, never "[object Object]".
    const transcriptPath = join(mkdtempSync(join(tmpdir(), 'loopchart-loop-run-')), 'loop.jsonl');
    const start = {
      contract: {
        outcome: 'zero failing tests',
        observableSource: 'the failing-test count',
        allowedActions: 'one root-cause fix per cycle',
        actor: 'this task',
        evaluator: 'npm test',
        iterationBudget: 2,
        plateauRule: 'stop after 2 non-improving cycles',
      },
    };
    const unused = async (): Promise<never> => {
      throw new Error('not reached: the baseline checkpoint fails');
    };
    const first = await runLoopProtocol({
      transcriptPath,
      start,
      effects: {
        observe: async () => ({
          available: true,
          summary: '3 failing',
          metric: null,
          fingerprint: 'failing-3',
          userChangesOverlap: false,
        }),
        checkpoint: async () => {
          throw { code: 'EIO', errno: -5 };
        },
        choose: unused,
        act: unused,
        verify: unused,
        rollback: unused,
      },
    });
    const evidence = ['no checkpoint could be confirmed: {"code":"EIO","errno":-5}'];
    expect(first.output?.decision).toMatchObject({ rule: 'terminal-failure', evidence });
    const records = parseTranscript(readFileSync(transcriptPath, 'utf8')).records;
    expect(records.find((record) => record.event === 'xstate.error.actor.checkpoint')?.data).toEqual({
      error: '{"code":"EIO","errno":-5}',
    });
    // Replayed from the ledger alone (no effect runs), the same evidence and decision.
    const resumed = await runLoopProtocol({
      transcriptPath: join(mkdtempSync(join(tmpdir(), 'loopchart-loop-run-')), 'loop.jsonl'),
      start,
      resume: records,
      effects: {
        observe: unused,
        checkpoint: unused,
        choose: unused,
        act: unused,
        verify: unused,
        rollback: unused,
      },
    });
    expect(resumed.output?.decision).toEqual(first.output?.decision);
  });

  it('ends stopped for direction when the host gives none', async () => {
    const result = await runLoopProtocol({
      transcriptPath: join(mkdtempSync(join(tmpdir(), 'loopchart-loop-run-')), 'loop.jsonl'),
      start: { contract: { outcome: 'zero failing tests' } },
      effects: {} as never,
    });
    expect(result.status).toBe('stopped-for-direction');
    expect(result.missing.map((m) => m.field)).toEqual([
      'observableSource',
      'allowedActions',
      'actor',
      'evaluator',
      'iterationBudget',
      // inferred from the iteration budget and the evaluator, which are missing too
      'timeOrCostBudget',
      'finalEvidence',
    ]);
  });
});
