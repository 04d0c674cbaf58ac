/**
 * Host actors of verify steps 2-5 (gauntlet-protocol §3.18): `runReview` dispatches the role's
 * reviewer command under the review contract (docs/review-contract.md), `runFixRound` runs the
 * child on a review's fix tasks and records the round durably, `finishBranch` is the step-5 hook.
 *
 * The rounds and grants a review reports are read from branch history on every review (the
 * `loop: <role> fix round <k>` markers and `loop: fund conformance rounds` commits since the ledger
 * base), never from a counter held here, so a crashed or resumed run reports the same counts.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fromPromise } from 'xstate';
import type { FixRoundRequest, ReviewReport } from '../../machines/loop-implementation/index.js';
import { LoopchartError } from '../common/errors.js';
import { runChildCommand } from '../effects/child-process.js';
import { readFileIfExists, writeFileAtomic } from '../effects/files.js';
import {
  type ClosureReviewSettings,
  DEFAULT_MAX_FIX_ROUNDS,
  fixCommitIndex,
  fixRoundBody,
  fixRoundCounts,
  fixRoundSubject,
  normalizeMaxFixRounds,
  parseReviewReturn,
  type ReviewRole,
  type ReviewTask,
} from '../gauntlet/review.js';
import { completedSideEffect, type HostSession, unlessInterrupted } from './host-session.js';

/** Environment variables of the review contract (docs/review-contract.md). */
export const REVIEW_ENV = {
  /** Absolute path of the review task JSON file. */
  task: 'LOOPCHART_REVIEW_TASK',
  /** Absolute path where the reviewer writes its JSON return. */
  return: 'LOOPCHART_REVIEW_RETURN',
  /** `whole-diff` or `conformance` for a reviewer; `fix` for a fix round's child. */
  role: 'LOOPCHART_ROLE',
  /** Absolute path of a fix round's task JSON file (the fixer's task). */
  fixTask: 'LOOPCHART_FIX_TASK',
} as const;

/** `closureReview` settings from the host options (default maxFixRounds 5, enforce true). */
export function closureSettingsOf(session: HostSession): ClosureReviewSettings {
  const raw = session.options.closureReview;
  return {
    maxFixRounds: normalizeMaxFixRounds(raw?.maxFixRounds ?? DEFAULT_MAX_FIX_ROUNDS),
    enforce: raw?.enforce ?? true,
  };
}

function reviewerOf(session: HostSession, role: ReviewRole): string | null {
  return role === 'whole-diff'
    ? (session.options.reviewer ?? null)
    : (session.options.conformanceReviewer ?? null);
}

/** A fix round left the worktree in a state the loop does not own (exit 1; the next run's entry stops on it). */
export class FixRoundError extends LoopchartError {
  /** @param message one sentence naming what the fixer left */
  constructor(message: string) {
    super('fix-round.boundary', message);
  }
}

/** `runReview`: runs the role's reviewer, validates its return, reads the role's counts from history. */
export function runReviewActor(session: HostSession) {
  return fromPromise<ReviewReport, { role: ReviewRole; base: string; specPath: string; ledgerPath: string }>(
    async ({ input, signal }) => {
      unlessInterrupted(session);
      const command = reviewerOf(session, input.role);
      const { git } = session;
      if (command === null) {
        if (input.role !== 'conformance' || session.options.waiveConformanceReview !== true)
          return { ran: false, role: input.role };
        // The caller waived the audit: verify closes on this HEAD, and the closure still indexes
        // the whole-diff fix commits.
        const head = await git.revParseHead();
        const fixCommits = fixCommitIndex(await git.logSince(input.base));
        return { ran: false, role: 'conformance', waived: true, head, fixCommits };
      }
      const head = await git.revParseHead();
      const commits = await git.logSince(input.base);
      const counts = fixRoundCounts(commits, input.role);
      const settings = closureSettingsOf(session);
      const folder = join(session.files.root, 'reviews', `${input.role}-${head.slice(0, 12)}`);
      await rm(folder, { recursive: true, force: true });
      await mkdir(folder, { recursive: true });
      const returnFile = join(folder, 'return.json');
      const taskFile = join(folder, 'task.json');
      const task: ReviewTask = {
        version: 1,
        role: input.role,
        worktree: session.options.worktree,
        base: input.base,
        head,
        spec: input.specPath,
        ledger: input.ledgerPath,
        diffCommand: `git diff ${input.base}..${head}`,
        fixRoundsUsed: counts.used,
        fixRoundCap: settings.maxFixRounds + counts.granted,
        returnFile,
      };
      await writeFileAtomic(taskFile, `${JSON.stringify(task, null, 2)}\n`);
      const run = await runChildCommand({
        command,
        cwd: session.options.worktree,
        env: {
          ...session.options.childEnv,
          [REVIEW_ENV.task]: taskFile,
          [REVIEW_ENV.return]: returnFile,
          [REVIEW_ENV.role]: input.role,
        },
        logPath: join(folder, 'reviewer.log'),
        silenceTimeoutMs: session.options.silenceTimeoutMs,
        overallTimeoutMs: session.options.timeoutMs,
        killGraceMs: session.options.killGraceMs,
        signal:
          session.options.interrupt === undefined
            ? signal
            : AbortSignal.any([signal, session.options.interrupt]),
      });
      completedSideEffect(session, `${input.role} review`);
      unlessInterrupted(session);
      const fixCommits = fixCommitIndex(commits);
      const base = { ran: true as const, role: input.role, counts, settings, head, fixCommits };
      const miss = (what: string) => ({
        ...base,
        returned: { ok: false as const, miss: `review miss: ${what}` },
      });
      // A reviewer reads; it never changes the checkout it reviews.
      if ((await git.revParseHead()) !== head) return miss(`the ${input.role} reviewer made commits`);
      if ((await git.statusPorcelain()).length > 0)
        return miss(`the ${input.role} reviewer left the tree dirty`);
      if (run.outcome !== 'exited' || run.exitCode !== 0)
        return miss(
          `the ${input.role} reviewer ${run.outcome === 'exited' ? `exited ${run.exitCode}` : run.outcome}`,
        );
      return { ...base, returned: parseReviewReturn(input.role, await readFileIfExists(returnFile)) };
    },
  );
}

/**
 * `runFixRound`: runs the child command with the fix task (role `fix`), then commits the empty
 * marker `loop: <role> fix round <k>` naming the tasks and the fixer's commits. The marker is the
 * durable record of the round: it is written even when the fixer committed nothing.
 *
 * @throws FixRoundError when the fixer left uncommitted changes or edited the ledger
 */
export function runFixRoundActor(session: HostSession) {
  return fromPromise<{ head: string }, FixRoundRequest>(async ({ input, signal }) => {
    unlessInterrupted(session);
    const child = session.options.child;
    if (child === null) throw new FixRoundError('a fix round needs the child command (--child)');
    const { git } = session;
    const before = await git.revParseHead();
    const folder = join(session.files.root, 'fix-rounds', `${input.role}-${input.round}`);
    await mkdir(folder, { recursive: true });
    const taskFile = join(folder, 'task.json');
    await writeFileAtomic(
      taskFile,
      `${JSON.stringify(
        {
          version: 1,
          role: 'fix',
          review: input.role,
          round: input.round,
          tasks: input.tasks,
          worktree: session.options.worktree,
          ledger: session.options.ledgerPath,
          spec: session.options.specPath,
        },
        null,
        2,
      )}\n`,
    );
    const run = await runChildCommand({
      command: child,
      cwd: session.options.worktree,
      env: {
        ...session.options.childEnv,
        [REVIEW_ENV.fixTask]: taskFile,
        [REVIEW_ENV.role]: 'fix',
      },
      logPath: join(folder, 'fixer.log'),
      silenceTimeoutMs: session.options.silenceTimeoutMs,
      overallTimeoutMs: session.options.timeoutMs,
      killGraceMs: session.options.killGraceMs,
      signal:
        session.options.interrupt === undefined
          ? signal
          : AbortSignal.any([signal, session.options.interrupt]),
    });
    const dirt = await git.statusPorcelain();
    if (dirt.length > 0)
      throw new FixRoundError(
        `${input.role} fix round ${input.round} left uncommitted changes (${dirt.map((e) => e.path).join(', ')}); the loop does not own them`,
      );
    const commits = await git.logSince(before);
    if (commits.some((c) => c.paths.includes(session.options.ledgerPath)))
      throw new FixRoundError(`${input.role} fix round ${input.round} changed the ledger`);
    const marker = await git.commitFiles({
      paths: [],
      subject: fixRoundSubject(input.role, input.round),
      body: fixRoundBody(
        [
          ...input.tasks,
          ...(run.outcome === 'exited' && run.exitCode === 0
            ? []
            : [`fixer ended: ${run.outcome} ${run.exitCode ?? ''}`.trim()]),
        ],
        commits.map((c) => `${c.sha} ${c.subject}`),
      ),
      allowEmpty: true,
    });
    completedSideEffect(session, 'runFixRound');
    return { head: marker };
  });
}

/** `finishBranch` (step 5): the host's hook, or nothing. The hook gets the actor's `signal`. */
export function finishBranchActor(session: HostSession) {
  return fromPromise<Record<string, never>, { closure: string; head: string }>(async ({ input, signal }) => {
    await session.options.finishBranch?.({ ...input, signal });
    return {};
  });
}
