/**
 * Host actors of After the loop (gauntlet-protocol §3.18): `runGates` (verify step 1's gate set)
 * (the reviews of steps 2-5 are in review-actors.ts).
 */
import { fromPromise } from 'xstate';
import type { GateRun } from '../../machines/loop-implementation/index.js';
import { anySignal, signalOption, throwIfAborted } from '../effects/abort.js';
import { createLogDir, type Gate, runGateSet } from '../effects/gates.js';
import type { Ledger } from '../gauntlet/types.js';
import { completedSideEffect, type HostSession, unlessInterrupted } from './host-session.js';

/** Subject of the commit that records tracked changes a gate set produced (§6 A30). */
export const VERIFICATION_CHANGES_SUBJECT = 'loop: verification changes';

/**
 * The gate set of a ledger: gate 1 is its `verification:` command, then each extra gate in order.
 *
 * @param ledger the ledger
 * @param extra extra gate commands (`--gate`)
 */
export function gateSetOf(ledger: Ledger, extra: readonly string[]): Gate[] {
  return [
    { index: 1, name: 'verification', command: ledger.verification },
    ...extra.map((command, i) => ({ index: i + 2, name: `gate ${i + 2}`, command })),
  ];
}

/**
 * `runGates` (verify step 1): runs the gate set fail-fast in the worktree, logs in one folder per
 * verify session (`LOG_DIR`, minted at the session's first gate run). After the run, passing or
 * failing, tracked changes the gates produced are committed as `loop: verification changes`; the
 * ledger is never part of that commit. The result carries HEAD after that commit.
 */
export function runGatesActor(session: HostSession) {
  return fromPromise<GateRun, { ledger: Ledger }>(async ({ input, signal }) => {
    unlessInterrupted(session);
    throwIfAborted(signal, 'the gate set');
    const { worktree, gates, ledgerPath } = session.options;
    session.logDir ??= await createLogDir(worktree);
    const result = await runGateSet({
      gates: gateSetOf(input.ledger, gates),
      cwd: worktree,
      logDir: session.logDir,
      // Stopping the actor (XState's signal) or interrupting the run kills the running gate's group.
      ...signalOption(anySignal(signal, session.options.interrupt)),
    });
    // A gate stopped by the interrupt is not a failed gate: end the run instead of repairing.
    unlessInterrupted(session);
    throwIfAborted(signal, 'the gate set');
    // §3.18 step 1: "Commit verification-produced tracked changes, including gate-produced
    // changes", after a failing run too; the HEAD returned includes that commit, so a verification
    // repair plans on it (docs/notes/machine-issues.md item 5).
    const produced = (await session.git.statusPorcelain())
      .filter((entry) => entry.xy !== '??' && entry.path !== ledgerPath)
      .map((entry) => entry.path);
    const head =
      produced.length > 0
        ? await session.git.commitFiles({ paths: produced, subject: VERIFICATION_CHANGES_SUBJECT, body: '' })
        : await session.git.revParseHead();
    if (!result.passed) {
      const gate = gateSetOf(input.ledger, gates).find((g) => g.index === result.index);
      const failure = {
        passed: false as const,
        head,
        gate: result.index,
        command: gate?.command ?? result.name,
        exitCode: result.exitCode,
        logPath: result.logPath,
        tail: result.tail,
      };
      session.lastGateFailure = failure;
      completedSideEffect(session, 'runGates');
      return failure;
    }
    session.lastGateFailure = null;
    completedSideEffect(session, 'runGates');
    return { passed: true, head };
  });
}
