/**
 * What every host actor of one run shares: the worktree, its git port and state files, the held
 * worktree lock, the run's options, and a few facts the last actor observed (the commits of the
 * latest refresh, the dispatch in flight, the verify session's log folder).
 *
 * Nothing here is loop state: the machine rebuilds its state from disk and branch history, and so
 * does a resumed run. The observed facts only spare a second read of the same git objects within
 * one run (commits are immutable, so a parsed ledger per commit is cached by its SHA).
 */

import { LoopchartError } from '../common/errors.js';
import type { GitPort, LoggedCommit, StatusEntry } from '../effects/git.js';
import type { DispatchPlan } from '../gauntlet/dispatch.js';
import type { Ledger } from '../gauntlet/types.js';
import type { StateFiles } from './state-files.js';
import type { HeldLock } from './worktree-lock.js';

/** Default silence limit of a child: ten minutes without output (the protocol's `timeout` bound). */
export const DEFAULT_SILENCE_TIMEOUT_MS = 600_000;
/** Default overall limit of a child: one hour. */
export const DEFAULT_CHILD_TIMEOUT_MS = 3_600_000;
/** Default wait between TERM and KILL when a child or job is stopped. */
export const DEFAULT_KILL_GRACE_MS = 10_000;

/**
 * The step-5 hook: called with the closure block once verify closed on CONFORMS, and the actor's
 * `signal` (aborted when the actor is stopped: stop what the hook started then).
 */
export type FinishBranchHook = (input: {
  readonly closure: string;
  readonly head: string;
  readonly signal?: AbortSignal;
}) => Promise<void>;

/** Options of one run that the actors read. */
export interface HostOptions {
  /** Absolute path of the worktree. */
  readonly worktree: string;
  /** Repo-relative ledger path. */
  readonly ledgerPath: string;
  /** Repo-relative spec path. */
  readonly specPath: string;
  /** The child command (a shell command, run with `/bin/sh -c`), or `null` when none was given. */
  readonly child: string | null;
  /** Extra gates after the ledger's `verification:` command, as shell commands. */
  readonly gates: readonly string[];
  /**
   * Coordinated runs: the gate commands of each companion leg, run in its checkout (`--leg-gate`);
   * a companion without commands runs the `verification:` header (docs/decisions/legs.md).
   */
  readonly legGates?: Readonly<Record<string, readonly string[]>>;
  /** Allowance of a fresh ledger. */
  readonly allowance: number;
  /** `loopEngine.escalateAfter`. */
  readonly escalateAfter: number;
  /** `escalationLoop.implModel`, or `null` when none is configured. */
  readonly implModel: string | null;
  readonly silenceTimeoutMs: number;
  readonly timeoutMs: number;
  readonly killGraceMs: number;
  /**
   * Every member's checkout (absolute; the home member's is `worktree`) of a coordinated run, as
   * the runner resolved and checked them; absent for a single-leg run.
   */
  readonly legCheckouts?: Readonly<Record<string, string>>;
  /** Extra environment for the child (on top of this process's and the LOOPCHART_* variables). */
  readonly childEnv?: Readonly<Record<string, string>>;
  /** Verify step 2 reviewer command (docs/review-contract.md); without it step 2 does not run. */
  readonly reviewer?: string | null;
  /**
   * Verify step 3 reviewer command. Without it verify stops (`closure-not-audited`) unless
   * `waiveConformanceReview` is set.
   */
  readonly conformanceReviewer?: string | null;
  /**
   * Without a conformance reviewer, finish verify unaudited with a closure block that records the
   * waiver (`--no-conformance-review`), instead of the `closure-not-audited` stop.
   */
  readonly waiveConformanceReview?: boolean;
  /** `closureReview` settings (raw; normalized by the review actor). */
  readonly closureReview?: { readonly maxFixRounds?: unknown; readonly enforce?: boolean };
  /** Step 5 (finishing the branch): a host hook; nothing by default. */
  readonly finishBranch?: FinishBranchHook;
  /**
   * Called after every side effect the host completes, with its name and running count. The CLI's
   * crash hook (LOOPCHART_CRASH_AFTER) uses it; it must not throw.
   */
  readonly onSideEffect?: (name: string, count: number) => void;
  /**
   * Interrupts the run (Ctrl-C): a running child or gate is stopped (its process group killed),
   * the interrupted dispatch is recovered and repaired as usual, and no new dispatch or gate run
   * starts afterwards (the run ends as failed with an {@link InterruptedRunError}).
   */
  readonly interrupt?: AbortSignal;
}

/** A run stopped on purpose (Ctrl-C, SIGTERM) before it could start another dispatch or gate run. */
export class InterruptedRunError extends LoopchartError {
  /** @param reason what interrupted the run, e.g. `SIGINT` */
  constructor(reason: string) {
    super('run.interrupted', `interrupted by ${reason}: no new dispatch or gate run was started`);
  }
}

/**
 * Throws {@link InterruptedRunError} when the run was interrupted: called by every actor that would
 * start new work (a reservation, a gate run), never by recovery or repairs, so an interrupted
 * dispatch is still made durable before the run ends.
 */
export function unlessInterrupted(session: HostSession): void {
  const signal = session.options.interrupt;
  if (signal?.aborted) throw new InterruptedRunError(String(signal.reason ?? 'an interrupt'));
}

/** A failed gate as last run, for the verification repair's task. */
export interface LastGateFailure {
  readonly gate: number;
  readonly command: string;
  readonly exitCode: number;
  readonly logPath: string;
}

/** HEAD and, when read with it and not changed since, the status entries (worktree-facts.ts). */
export interface WorktreeObservation {
  /** Full object name of HEAD. */
  readonly head: string;
  /** The `status --porcelain` entries, or `null` when only HEAD is known (after a commit). */
  readonly entries: readonly StatusEntry[] | null;
}

/** The shared state of one run's host actors. */
export interface HostSession {
  readonly options: HostOptions;
  readonly git: GitPort;
  readonly gitDir: string;
  readonly files: StateFiles;
  readonly lock: HeldLock;
  /** The verify session's log folder, minted at its first gate run. */
  logDir: string | null;
  /** The folder of the history caches (`git rev-parse --git-path loopchart/history`), once asked. */
  historyCacheRoot?: string;
  /** Parsed ledger per commit SHA (immutable objects, so safe to keep for the run). */
  readonly ledgerByCommit: Map<string, Ledger | null>;
  /**
   * HEAD and status as last read or produced, until something may have changed them
   * (worktree-facts.ts); `null` or absent when unknown.
   */
  observed?: WorktreeObservation | null;
  /**
   * Whether actors that only read may reuse {@link observed} (createRunner sets it and forgets the
   * observation on every human reply); otherwise each reads afresh.
   */
  shareObservations?: boolean;
  /**
   * Ledgers the run committed itself, parsed, by the object name of their blob: a refresh that meets
   * such a blob in a new commit needs no blob read (content-addressed, so safe to keep).
   */
  readonly ledgerByBlob: Map<string, Ledger | null>;
  /** Commits of `from..to` by the pair of object names (immutable, kept for the run). */
  readonly commitRanges: Map<string, readonly LoggedCommit[]>;
  /** Ancestry answers by the pair of object names (immutable, kept for the run). */
  readonly ancestry: Map<string, boolean>;
  /** The dispatch in flight as the last actor saw it. */
  plan: DispatchPlan | null;
  /** The last failing gate (for the verification repair's task). */
  lastGateFailure: LastGateFailure | null;
  /** Side effects completed so far. */
  sideEffects: number;
  /**
   * Prints a line without stopping, as the machine's `notice` events do (e.g. the processes a
   * dispatch left running that the host terminated). Set by the runner; absent means not shown.
   */
  notify?: (text: string) => void;
}

/**
 * Records one completed side effect and calls the options' hook.
 *
 * @param session the run
 * @param name the side effect (usually the actor's name)
 */
export function completedSideEffect(session: HostSession, name: string): void {
  session.sideEffects += 1;
  session.options.onSideEffect?.(name, session.sideEffects);
}
