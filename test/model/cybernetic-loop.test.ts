/**
 * Model-based tests of the cybernetic loop: every generated path runs as its own test against a
 * live actor whose effects the test settles. After each step the live context is compared with
 * an oracle that replays the same check results and patches through the pure core alone
 * (recordRun, beginRun, recordCandidate, concludeRun); the file fails unless every transition and
 * every state of the machine was taken.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cyberneticLoopMachine } from '../../machines/cybernetic-loop.js';
import type { CheckExecution } from '../../src/cybernetic/check.js';
import { freezeRunContract, type RunContract } from '../../src/cybernetic/run-contract.js';
import { recordRun } from '../../src/cybernetic/run-record.js';
import {
  beginRun,
  type CandidatePatch,
  type RunTranscript,
  recordCandidate,
} from '../../src/cybernetic/run-transcript.js';
import {
  concludeCheckpointUnavailable,
  concludeRun,
  type RestorationObservation,
  type TerminalRecord,
} from '../../src/cybernetic/terminal-record.js';
import { createAssertionTally } from '../../src/graph/assertion-tally.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { cyberneticLoopModel } from '../../src/graph/models/cybernetic-loop.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathStep } from '../../src/graph/path-suite-schema.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { cyberneticReference } from '../oracles/cybernetic-loop.js';
import { dotted, oracleOf, reportAndRequireFull } from '../oracles/harness.js';

const suite = generatePathSuite(cyberneticLoopMachine, cyberneticLoopModel);
const run = createSuiteRun(cyberneticLoopMachine, cyberneticLoopModel, suite);

/** What the pure core says after the same events. */
interface Oracle {
  contract: RunContract | null;
  transcript: RunTranscript | null;
  pending: CandidatePatch | null;
  record: TerminalRecord | null;
  failedOperation: string | null;
}

const ERROR = 'xstate.error.actor.';
const DONE = 'xstate.done.actor.';

function message(error: unknown): string {
  return (error as { message: string }).message;
}

function firstFailing(transcript: RunTranscript): string {
  return transcript.retained.results.find((result) => result.outcome !== 'passed')?.name ?? '';
}

function allUnavailable(contract: RunContract, reason: string): Record<string, CheckExecution> {
  return Object.fromEntries(
    contract.checks.map((check) => [
      check.name,
      { kind: 'not-executed' as const, reason: `the check runner failed: ${reason}` },
    ]),
  );
}

/** Replays the events of `steps` through the pure core, following the protocol's procedure. */
function replay(steps: readonly PathStep[]): Oracle {
  const o: Oracle = { contract: null, transcript: null, pending: null, record: null, failedOperation: null };
  const finishIfSuccess = () => {
    const verdict = o.transcript?.verdict.kind;
    if (o.transcript && (verdict === 'already-holds' || verdict === 'restored'))
      o.record = concludeRun(o.transcript);
  };
  for (const { event } of steps) {
    const type = event.type;
    if (type === 'START') {
      const frozen = freezeRunContract(event.request);
      if (frozen.ok) o.contract = frozen.contract;
      else o.record = frozen.record;
    } else if (type === `${DONE}createCheckpoint`) {
      const output = event.output as { kind: string; reason?: string };
      if (output.kind === 'unavailable' && o.contract)
        o.record = concludeCheckpointUnavailable(o.contract, output.reason ?? '');
    } else if (type === `${ERROR}createCheckpoint` && o.contract) {
      o.record = concludeCheckpointUnavailable(o.contract, message(event.error));
    } else if ((type === `${DONE}runChecks` || type === `${ERROR}runChecks`) && o.contract) {
      const executions =
        type === `${DONE}runChecks`
          ? (event.output as { executions: Record<string, CheckExecution> }).executions
          : allUnavailable(o.contract, message(event.error));
      if (o.transcript === null) o.transcript = beginRun(o.contract, recordRun(o.contract, 0, executions));
      else if (o.pending) {
        const k = o.transcript.attempts.length + 1;
        o.transcript = recordCandidate(o.transcript, o.pending, recordRun(o.contract, k, executions));
        o.pending = null;
      }
      finishIfSuccess();
    } else if (type === `${DONE}applyCandidate` && o.transcript) {
      const output = event.output as { summary: string; changedPaths: string[] };
      o.pending = {
        id: `candidate-${o.transcript.attempts.length + 1}`,
        target: firstFailing(o.transcript),
        summary: output.summary,
        paths: output.changedPaths,
      };
    } else if (
      type.startsWith(ERROR) &&
      /applyCandidate|retainCandidate|revertCandidate|echoContract/.test(type)
    ) {
      o.failedOperation = type.slice(ERROR.length);
    } else if (type === `${DONE}restoreCheckpoint` || type === `${ERROR}restoreCheckpoint`) {
      if (o.failedOperation !== null || o.transcript === null) continue; // abandoning: no terminal record
      const observation: RestorationObservation =
        type === `${DONE}restoreCheckpoint`
          ? (event.output as RestorationObservation)
          : {
              kind: 'failed',
              checkpoint: 'cp-0',
              operation: 'restoreCheckpoint',
              error: message(event.error),
              remainingDelta: [],
            };
      o.record = concludeRun(o.transcript, observation);
    }
  }
  return o;
}

/** The final state each terminal status ends in. */
const FINAL_STATE: Record<TerminalRecord['status'], string> = {
  'invalid-input': 'invalidInput',
  'already-holds': 'alreadyHolds',
  restored: 'restored',
  'non-converged': 'nonConverged',
  'recovery-failure': 'recoveryFailure',
};

const tally = createAssertionTally(cyberneticLoopMachine);
const independent = oracleOf(tally);

describe(`${suite.machine}: ${suite.paths.length} generated paths`, () => {
  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step, { index, invocations }) => {
          // Independent: the state a reference of the skill's procedure (test/oracles) expects.
          const expected = cyberneticReference(path.steps.slice(0, index + 1)).at(-1);
          independent.same(
            step,
            'state after the step (reference procedure)',
            dotted(snapshot.value),
            expected,
          );
          // Consistency with the pure core (not counted as an independent assertion).
          const oracle = replay(path.steps.slice(0, index + 1));
          const { context } = snapshot;
          // The run as the machine holds it equals the pure core's run for the same results.
          expect(context.transcript).toEqual(oracle.transcript);
          expect(context.record).toEqual(oracle.record);
          if (context.transcript)
            expect(context.transcript.budgetSpent).toBeLessThanOrEqual(context.transcript.contract.budget);
          // A candidate always aims at a check that fails in the retained state.
          const lastApply = invocations.filter((i) => i.src === 'applyCandidate').at(-1);
          if (lastApply && oracle.pending)
            expect((lastApply.input as { target: string }).target).toBe(oracle.pending.target);
          // After a candidate's run, the next effect follows the pure decision: keep → retain,
          // revert → revert, a stop → restore the checkpoint.
          const event = path.steps[index]?.event.type ?? '';
          const attempt = oracle.transcript?.attempts.at(-1);
          if (/actor\.runChecks$/.test(event) && attempt && oracle.transcript?.baseline !== undefined) {
            const verdict = oracle.transcript.verdict.kind;
            const next = invocations.at(-1)?.src;
            if (verdict === 'continue')
              expect(next).toBe(attempt.decision.decision === 'keep' ? 'retainCandidate' : 'revertCandidate');
            else if (verdict === 'stop') expect(next).toBe('restoreCheckpoint');
          }
          if (snapshot.status === 'done') {
            if (oracle.record) expect(snapshot.value).toBe(FINAL_STATE[oracle.record.status]);
            else {
              expect(snapshot.value).toBe('failed');
              expect(context.failure?.operation).toBe(oracle.failedOperation);
            }
            // Nothing but a clean rollback or a success may be reported as such.
            if (
              context.record?.status === 'non-converged' &&
              context.record.restoration.kind === 'checkpoint-restored'
            )
              expect(path.steps.at(-1)?.event.type).toBe(`${DONE}restoreCheckpoint`);
          }
        },
      });
    });
  }

  it('reaches every stop class of procedure step 8 and every terminal status', () => {
    const finals = new Set(suite.paths.map((p) => JSON.stringify(p.steps.at(-1)?.stateAfter.value)));
    for (const state of [...Object.values(FINAL_STATE), 'failed'])
      expect(finals).toContain(JSON.stringify(state));
    const verdicts = new Set(
      suite.paths.flatMap((p) =>
        p.steps.map((s) => (s.stateAfter.projection as { verdict: string | null }).verdict),
      ),
    );
    for (const verdict of [
      'scope-widening',
      'unavailable-check',
      'repeated-equivalent-failure',
      'oscillation',
      'budget-exhaustion',
      'restored',
      'already-holds',
    ])
      expect(verdicts).toContain(verdict);
  });

  afterAll(() => {
    reportAndRequireFull(
      cyberneticLoopMachine,
      transitionCoverage(cyberneticLoopMachine, run.collected()),
      tally,
      run.collected().transitions,
    );
  });
});
