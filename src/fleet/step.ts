/**
 * One step of a fleet run: fetch the branch into the worker's clone, run the loop engine to its next
 * stop or end (the same `createRunner` a local `loopchart run` uses), record who answered, push the
 * branch back, and read the facts `loopchart status` prints. The `loop` object journals each step
 * with `ctx.run`, so a step that completed is never run again; a step interrupted by a worker's
 * death runs again from the last pushed branch (or from the same worker's clone, whose journal the
 * loop resumes from exactly as after a local crash).
 */
import { join } from 'node:path';
import { InputError } from '../common/errors.js';
import { createGitPort } from '../effects/git.js';
import { resolveGitDir } from '../effects/git-dir.js';
import type { HumanStop } from '../gauntlet/human-stop.js';
import type { Ledger } from '../gauntlet/types.js';
import { defaultLedgerPath } from '../host/run-paths.js';
import { createRunner } from '../host/runner.js';
import { DEFAULT_ESCALATE_AFTER } from '../host/settings-actors.js';
import { configureReservations, spendReservationPrefix } from '../host/spend-reservations.js';
import { stateFilesOf } from '../host/state-files.js';
import { readLoopStatus } from '../host/status.js';
import type { RunCoordinates } from './credentials.js';
import { headOf, prepareClone, pushClone, recordAnswerNote } from './worker-clone.js';

/** A loop-engine run as `submit` describes it. Commands other than `verification` are the worker's. */
export interface FleetRunRequest extends RunCoordinates {
  /** The ledger path (default: derived from the spec, as `loopchart run` does). */
  readonly ledger?: string;
  /** The verification command a fresh ledger records (default: the repository's overrides, then discovery). */
  readonly verification?: string;
  readonly allowance?: number;
  readonly escalateAfter?: number;
  readonly implModel?: string;
  /** `--no-conformance-review`. */
  readonly waiveConformanceReview?: boolean;
}

/** What the worker was started with (`loopchart serve`). */
export interface WorkerSettings {
  /** Where the worker keeps one clone per run id. */
  readonly workDir: string;
  /**
   * The child command every loop run of this worker dispatches; absent on a worker that serves
   * only rpi runs and crank lanes (its `loop` object refuses runs: `fleet.not-configured`).
   */
  readonly child?: string;
}

/** A reply to a stop, admitted by the `answer` handler. */
export interface GivenAnswer {
  readonly reply: string;
  /** The operator who gave it. */
  readonly by: string;
}

/** The journaled result of one step (JSON only: Restate stores it). */
export interface StepOutcome {
  readonly status: 'finished' | 'stopped' | 'invalid' | 'failed';
  readonly exitCode: number;
  readonly state: string;
  /** The branch head the step pushed. */
  readonly head: string;
  readonly stopText?: string;
  readonly stop?: HumanStop;
  readonly stopLedger?: Ledger | null;
  readonly message?: string;
  readonly code?: string;
  /** What `loopchart status --json` would print for the pushed branch. */
  readonly facts: Record<string, unknown> | null;
}

/** Runs one step (see the module comment). */
export async function runFleetStep(
  settings: WorkerSettings,
  runId: string,
  request: FleetRunRequest,
  answer: GivenAnswer | undefined,
): Promise<StepOutcome> {
  const child = settings.child;
  if (child === undefined)
    throw new InputError('fleet.not-configured', 'this worker runs no loop runs: start it with --child');
  const clone = join(settings.workDir, runId);
  await prepareClone(request.remote, request.branch, clone);
  // Paid actions: a reservation in this clone is made on the remote first (F11), so a retry of this
  // step on another worker sees it.
  await configureReservations(clone, spendReservationPrefix(runId));
  const before = await headOf(clone);
  const result = await createRunner({
    worktree: clone,
    spec: request.spec,
    ...(request.ledger === undefined ? {} : { ledger: request.ledger }),
    child,
    ...(request.verification === undefined ? {} : { verification: request.verification }),
    ...(answer === undefined ? {} : { answer: answer.reply }),
    ...(request.waiveConformanceReview === true ? { waiveConformanceReview: true } : {}),
    settings: {
      ...(request.allowance === undefined ? {} : { allowance: request.allowance }),
      ...(request.escalateAfter === undefined ? {} : { escalateAfter: request.escalateAfter }),
      ...(request.implModel === undefined ? {} : { implModel: request.implModel }),
    },
  }).run();
  if (answer !== undefined && result.answered !== undefined)
    await recordAnswerNote(
      clone,
      request.branch,
      before,
      `answered-by: ${answer.by}\nreply: ${result.answered.reply}`,
    );
  await pushClone(clone, request.branch);
  const head = await headOf(clone);
  const facts = await statusFacts(clone, request).catch(() => null);
  return {
    status: result.status,
    exitCode: result.exitCode,
    state: result.state,
    head,
    ...(result.stopText === undefined ? {} : { stopText: result.stopText }),
    ...(result.stop === undefined ? {} : { stop: result.stop, stopLedger: result.ledger }),
    ...(result.message === undefined ? {} : { message: result.message }),
    ...(result.code === undefined ? {} : { code: result.code }),
    facts,
  };
}

/** The fields `loopchart status --json` prints, read from the clone. */
async function statusFacts(clone: string, request: FleetRunRequest): Promise<Record<string, unknown>> {
  const ledgerPath = request.ledger ?? defaultLedgerPath(request.spec);
  const status = await readLoopStatus({
    git: createGitPort(clone),
    files: stateFilesOf(await resolveGitDir(clone)),
    ledgerPath,
    specPath: request.spec,
    escalateAfter: request.escalateAfter ?? DEFAULT_ESCALATE_AFTER,
    implModel: request.implModel ?? null,
  });
  return {
    ledgerPath: status.ledgerPath,
    specPath: status.specPath,
    iterations: status.iterations,
    allowance: status.allowance,
    pending: status.pending,
    rows: status.rows,
    seedRepairs: status.seedRepairs,
    verificationRepairs: status.verificationRepairs,
    next: status.next,
  };
}
