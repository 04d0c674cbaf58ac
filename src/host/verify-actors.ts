/**
 * Host actors of After the loop (gauntlet-protocol §3.18): `runGates` (verify step 1's gate set)
 * (the reviews of steps 2-5 are in review-actors.ts).
 */
import { fromPromise } from 'xstate';
import type { GateRun, RunGatesInput } from '../../machines/loop-implementation/index.js';
import { LoopchartError } from '../common/errors.js';
import { anySignal, signalOption, throwIfAborted } from '../effects/abort.js';
import { createLogDir, type Gate, runGateSet } from '../effects/gates.js';
import { createGitPort, type GitPort } from '../effects/git.js';
import { gateScope, gateSet, pairsByLeg } from '../gauntlet/gate-set.js';
import { HOME, type Ledger } from '../gauntlet/types.js';
import { completedSideEffect, type HostSession, unlessInterrupted } from './host-session.js';
import { writeVerifiedHeads } from './verified-heads.js';

/** Subject of the commit that records tracked changes a gate set produced (§6 A30). */
export const VERIFICATION_CHANGES_SUBJECT = 'loop: verification changes';

/**
 * The gate set of a ledger on a single leg: gate 1 is its `verification:` command, then each extra
 * gate in order (every pair in leg `home`; coordinated runs: {@link gateSet}).
 *
 * @param ledger the ledger
 * @param extra extra gate commands (`--gate`)
 */
export function gateSetOf(ledger: Ledger, extra: readonly string[]): Gate[] {
  return gateSet(ledger, { home: HOME, extra }).map(({ index, name, command }) => ({ index, name, command }));
}

/** A companion leg's checkout is not known to the run. */
export class LegCheckoutError extends LoopchartError {
  /** @param leg the member without a checkout */
  constructor(leg: string) {
    super('run.leg-checkout', `no checkout is given for leg ${leg} (loopchart run --leg ${leg}=<path>)`);
  }
}

/**
 * The checkout of a leg: the worktree for home, else the companion checkout given to the run.
 *
 * @param session the host session
 * @param leg the member
 * @param home the home member's name
 * @throws LegCheckoutError when a companion has no checkout
 */
export function legCheckoutOf(session: HostSession, leg: string, home: string): string {
  if (leg === home) return session.options.worktree;
  const path = session.options.legCheckouts?.[leg];
  if (path === undefined) throw new LegCheckoutError(leg);
  return path;
}

/**
 * `runGates` (verify step 1): runs the gate set fail-fast, each leg's pairs in that leg's checkout
 * (§3.20), logs in one folder per verify session (`LOG_DIR`, minted at the session's first gate
 * run). The scope is the rerun scope ({@link gateScope}): the repaired leg first, then the legs not
 * yet verified in this session. After each leg's pairs ran, passing or failing, the tracked changes
 * they produced are committed in that checkout as `loop: verification changes` (never the ledger).
 * A leg whose pairs passed is verified on its checkout's HEAD; the heads are kept in the state
 * folder for `loopchart status`. The result carries home's HEAD and, on a failure, the failing
 * leg and its HEAD.
 */
export function runGatesActor(session: HostSession) {
  return fromPromise<GateRun, RunGatesInput>(async ({ input, signal }) => {
    unlessInterrupted(session);
    throwIfAborted(signal, 'the gate set');
    const { worktree, gates, ledgerPath } = session.options;
    const coordinated = input.ledger.legs !== undefined;
    const home = coordinated ? (input.home ?? HOME) : HOME;
    const pairs = gateSet(input.ledger, {
      home,
      extra: gates,
      ...(coordinated && session.options.legGates !== undefined
        ? { legGates: session.options.legGates }
        : {}),
    });
    const scope = gateScope(pairs, input.verified ?? {}, input.failing ?? null);
    session.logDir ??= await createLogDir(worktree);
    const verified: Record<string, string> = {};
    for (const group of pairsByLeg(scope)) {
      const cwd = legCheckoutOf(session, group.leg, home);
      const result = await runGateSet({
        gates: group.pairs.map(({ index, name, command }) => ({ index, name, command })),
        cwd,
        logDir: session.logDir,
        // Stopping the actor (XState's signal) or interrupting the run kills the running gate's group.
        ...signalOption(anySignal(signal, session.options.interrupt)),
      });
      // A gate stopped by the interrupt is not a failed gate: end the run instead of repairing.
      unlessInterrupted(session);
      throwIfAborted(signal, 'the gate set');
      // §3.18 step 1: "Commit verification-produced tracked changes, including gate-produced
      // changes", after a failing run too; the HEAD returned includes that commit, so a
      // verification repair plans on it (docs/notes/machine-issues.md item 5).
      const legHead = await commitProduced(
        cwd === worktree ? session.git : createGitPort(cwd),
        cwd === worktree ? ledgerPath : null,
      );
      if (!result.passed) {
        const pair = pairs.find((g) => g.index === result.index);
        const head = group.leg === home ? legHead : await session.git.revParseHead();
        const failure = {
          passed: false as const,
          head,
          ...(coordinated ? { verified, leg: group.leg, legHead } : {}),
          gate: result.index,
          command: pair?.command ?? result.name,
          exitCode: result.exitCode,
          logPath: result.logPath,
          tail: result.tail,
        };
        session.lastGateFailure = failure;
        if (coordinated) await recordVerified(session, input.ledger.base, input.verified ?? {}, verified);
        completedSideEffect(session, 'runGates');
        return failure;
      }
      verified[group.leg] = legHead;
    }
    session.lastGateFailure = null;
    if (coordinated) await recordVerified(session, input.ledger.base, input.verified ?? {}, verified);
    completedSideEffect(session, 'runGates');
    const head = Object.hasOwn(verified, home)
      ? (verified[home] as string)
      : await session.git.revParseHead();
    return coordinated ? { passed: true, head, verified } : { passed: true, head };
  });
}

/** Commits the tracked changes a leg's gates produced (never the ledger); returns the checkout's HEAD. */
async function commitProduced(git: GitPort, ledgerPath: string | null): Promise<string> {
  const produced = (await git.statusPorcelain())
    .filter((entry) => entry.xy !== '??' && entry.path !== ledgerPath)
    .map((entry) => entry.path);
  return produced.length > 0
    ? await git.commitFiles({ paths: produced, subject: VERIFICATION_CHANGES_SUBJECT, body: '' })
    : await git.revParseHead();
}

/** Keeps the verified heads of this session in the state folder (`loopchart status` reads them). */
async function recordVerified(
  session: HostSession,
  base: string,
  before: Readonly<Record<string, string>>,
  now: Readonly<Record<string, string>>,
): Promise<void> {
  await writeVerifiedHeads(session.files.verifiedHeads, { base, heads: { ...before, ...now } });
}
