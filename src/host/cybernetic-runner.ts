/**
 * Runs the cybernetic loop against a real working tree: the statechart of
 * machines/cybernetic-loop.ts with every actor provided by the effects layer. Checks are
 * frozen commands run in the worktree; candidate patches come from a patcher child under the
 * loop engine's child conventions; the checkpoint is a byte-for-byte copy of the scope kept
 * outside the repository; scope widening is read from the working tree after each patcher run.
 * The run writes its transcript in the shared evidence-ledger shape.
 */
import { realpath } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  type ApplyCandidateInput,
  type ApplyCandidateOutput,
  type CheckpointOutcome,
  type CyberneticLoopContext,
  type CyberneticLoopOutput,
  cyberneticLoopMachine,
  type RetainedStateInput,
  type RetainedStateOutput,
  type RunChecksInput,
  type RunChecksOutput,
} from '../../machines/cybernetic-loop.js';
import { InputError, LoopchartError } from '../common/errors.js';
import { renderCheckCommand } from '../cybernetic/check-command.js';
import type { ScopeDerivation } from '../cybernetic/derive-scope.js';
import { freezeRunContract, type RunContract } from '../cybernetic/run-contract.js';
import type { RunRecord } from '../cybernetic/run-record.js';
import type { CandidateAttempt } from '../cybernetic/run-transcript.js';
import type { RestorationObservation } from '../cybernetic/terminal-record.js';
import { anySignal, signalOption, throwIfAborted } from '../effects/abort.js';
import { describePatcherRun, runCandidatePatcher } from '../effects/candidate-patcher.js';
import { type CheckEvidence, runCheckSet } from '../effects/check-runner.js';
import { CheckpointUnavailableError, createCheckpoint, loadCheckpoint } from '../effects/checkpoint.js';
import { makeTempDir, writeFileAtomic } from '../effects/files.js';
import { createGitPort } from '../effects/git.js';
import { resolveGitDir } from '../effects/git-dir.js';
import {
  createOutsideScopeWatch,
  HEAD_MOVED_PATH,
  type OutsideScopeState,
  type OutsideScopeWatch,
} from '../effects/scope-watch.js';
import { resolveWorktreeRoot } from '../effects/worktree-root.js';
import { deriveRunScope, type ScopeCheck } from './cyber-scope.js';
import { projectCyberneticTranscript } from './cybernetic-transcript.js';
import { createTranscriptRecorder } from './transcript.js';
import { withWriterLock } from './writer-lock.js';

/** Options of {@link runCyberneticLoop}. */
export interface CyberneticRunnerOptions {
  /** Absolute path of the repository's worktree; scope paths are relative to it. */
  readonly worktree: string;
  /** The caller's request (see `RunRequest`); a bad request ends as `invalid-input`. */
  readonly request: unknown;
  /** The patcher command, run as `/bin/sh -c <patcher>` in the worktree once per candidate. */
  readonly patcher: string;
  /** Where tasks, returns, logs and checkpoints go; default a fresh directory outside the worktree. */
  readonly runDir?: string;
  /** The transcript file (JSON Lines); default `<runDir>/transcript.jsonl`. */
  readonly transcriptPath?: string;
  /** Extra environment for checks, the patcher and git. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-check time limit in ms (a check killed for it failed). */
  readonly checkTimeoutMs?: number;
  /** Time limit of one patcher run in ms. */
  readonly patcherTimeoutMs?: number;
  /** Wait between TERM and KILL for checks and patchers (default 10 000 ms). */
  readonly killGraceMs?: number;
  /** Called with the frozen contract before the first mutation (the echo). */
  readonly onContract?: (contract: RunContract) => void;
  /**
   * Derive the smallest scope before the run (cyber-scope.ts): the checks to run once and the
   * person's reason for a wider declared scope. The declared and derived scopes and the reason are
   * recorded in contract.json; a wider scope without a reason is refused before anything runs.
   */
  readonly scopeCheck?: { readonly checks: readonly ScopeCheck[]; readonly reason: string | null };
  /** Called after the baseline run. */
  readonly onBaseline?: (run: RunRecord) => void;
  /** Called after each candidate's full run, with its keep-or-revert decision and verdict. */
  readonly onCandidate?: (attempt: CandidateAttempt) => void;
  /** The transcript's clock; default `new Date()`. */
  readonly now?: () => Date;
  /**
   * Interrupts the run (Ctrl-C): the running check or patcher's process group is killed, no
   * further effect starts, and the scope is restored to its pre-run checkpoint; the run then ends
   * as an effect failure whose message says it was interrupted.
   */
  readonly signal?: AbortSignal;
}

/** What {@link runCyberneticLoop} returns. */
export interface CyberneticRunResult extends CyberneticLoopOutput {
  readonly transcriptPath: string;
  readonly runDir: string;
}

/** The machine's actors or the run itself failed outside the protocol (e.g. an action threw). */
export class CyberneticRunError extends LoopchartError {
  constructor(message: string) {
    super('cybernetic.run-failed', message);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function evidenceLines(run: number, evidence: readonly CheckEvidence[]): string[] {
  return evidence.map((item) => {
    const execution = item.execution;
    const result =
      execution.kind === 'exited'
        ? `exit ${execution.exitCode}`
        : execution.kind === 'terminated'
          ? `terminated by ${execution.signal}`
          : `not executed: ${execution.reason}`;
    return `run ${run}: ${item.name}: ${renderCheckCommand(item.command)} → ${result} (log ${item.logPath})`;
  });
}

/** The task a patcher reads from `LOOPCHART_TASK`. */
function candidateTask(
  input: ApplyCandidateInput,
  worktree: string,
  returnFile: string,
  tails: ReadonlyMap<string, string>,
) {
  const [invariantCheck] = input.contract.checks;
  const check = (c: RunContract['checks'][number]) => ({
    name: c.name,
    role: c.role,
    command: [...c.command],
    commandText: renderCheckCommand(c.command),
    passExitCode: c.pass.exitCode,
  });
  return {
    version: 1,
    protocol: 'cybernetic-loop',
    attempt: input.attempt,
    worktree,
    invariant: {
      statement: input.contract.invariant.statement,
      offHappyPath: input.contract.invariant.offHappyPath,
      check: invariantCheck ? check(invariantCheck) : null,
    },
    target: input.target,
    failingChecks: input.failing.map((result) => ({
      ...result,
      run: input.retainedRun,
      outputTail: tails.get(result.name) ?? '',
    })),
    checks: input.contract.checks.map(check),
    scope: [...input.contract.scope],
    budget: {
      limit: input.budget.limit,
      spent: input.budget.spent,
      thisCandidateSpends: 1,
      remainingAfterThis: input.budget.limit - input.budget.spent - 1,
    },
    returnFile,
    rules: [
      'Make one smallest candidate patch that could make the target check pass.',
      'Change only paths inside the scope; any change outside it stops the run as scope-widening.',
      'Do not commit, reset, stash or clean; do not add, remove or weaken a check.',
      'Write {"status":"DONE","summary":"<one line>"} to the return file when done.',
    ],
  };
}

function restorationOf(
  checkpoint: string,
  scope: readonly string[],
  report: Awaited<ReturnType<Awaited<ReturnType<typeof loadCheckpoint>>['restore']>>,
  outsideDelta: readonly string[],
): RestorationObservation {
  const operation = `restore ${scope.join(', ')} byte for byte (files, modes, symlinks; FIFOs, sockets and other new paths removed; nothing outside the scope)`;
  const remainingDelta = [
    ...report.remaining.map((difference) => `${difference.path} (${difference.change})`),
    ...outsideDelta,
  ];
  if (report.error !== undefined)
    return { kind: 'failed', checkpoint, operation, error: report.error, remainingDelta };
  return { kind: 'restored', checkpoint, operation, remainingDelta };
}

/**
 * Creates the real actors of the cybernetic loop for one worktree.
 *
 * @param options worktree, patcher, limits (see {@link CyberneticRunnerOptions})
 * @param runDir where tasks, logs and checkpoints go (outside the worktree)
 * @param evidence receives each full check run's evidence lines by run number
 * @returns actors for `cyberneticLoopMachine.provide({ actors })`
 */
export function createCyberneticActors(
  options: CyberneticRunnerOptions,
  runDir: string,
  evidence: Map<number, string[]>,
  scopeDerivation: ScopeDerivation | null = null,
) {
  const worktree = resolve(options.worktree);
  const git = createGitPort(worktree, options.env === undefined ? {} : { env: options.env });
  const tailsByRun = new Map<number, Map<string, string>>();
  let scope: readonly string[] = [];
  let watch: OutsideScopeWatch | null = null;
  // The tree outside the scope when the run checkpointed it, and every outside path a candidate
  // changed: what the loop may not restore (it owns nothing outside its scope) but must report.
  let outsideAtStart: OutsideScopeState | null = null;
  const outsideTouched = new Set<string>();
  /** Outside paths candidates changed that still differ from the pre-run tree, as delta lines. */
  const outsideDelta = async (): Promise<string[]> => {
    if (outsideTouched.size === 0 || watch === null || outsideAtStart === null) return [];
    const now = await watch.observe();
    return watch
      .changedBetween(outsideAtStart, now)
      .filter((path) => outsideTouched.has(path))
      .map((path) =>
        path === HEAD_MOVED_PATH
          ? `${path} (HEAD moved from ${outsideAtStart?.head ?? 'no commit'} to ${now.head ?? 'no commit'}; outside the scope, left as the candidate made it)`
          : `${path} (outside the scope, left as the candidate made it)`,
      );
  };
  // The run's signal (Ctrl-C) and the actor's own (XState aborts it when the actor stops) both
  // kill the process group of the check or patcher in flight.
  const limits = (actorSignal: AbortSignal) => ({
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...signalOption(anySignal(options.signal, actorSignal)),
  });
  // An interrupted run starts nothing more; the machine's failure path restores the checkpoint.
  const unlessInterrupted = () => {
    if (options.signal?.aborted) throw new CyberneticRunError('interrupted (the run was cancelled)');
  };

  return {
    echoContract: fromPromise<Record<string, never>, { contract: RunContract }>(async ({ input }) => {
      scope = [...input.contract.scope];
      // The recorded scope and frozen contract, kept with the run (outside the repository).
      // The scope derivation (declared, derived, reason) is recorded with the frozen contract.
      const recorded = scopeDerivation === null ? input.contract : { ...input.contract, scopeDerivation };
      await writeFileAtomic(join(runDir, 'contract.json'), `${JSON.stringify(recorded, null, 2)}\n`);
      options.onContract?.(input.contract);
      return {};
    }),
    createCheckpoint: fromPromise<CheckpointOutcome, { contract: RunContract }>(async ({ input }) => {
      scope = [...input.contract.scope];
      try {
        const checkpoint = await createCheckpoint({
          worktree,
          scope,
          storeDir: join(runDir, 'checkpoints', 'run'),
        });
        watch = createOutsideScopeWatch(git, scope);
        outsideAtStart = await watch.observe();
        return { kind: 'created', checkpoint: checkpoint.storeDir };
      } catch (error) {
        if (error instanceof CheckpointUnavailableError || error instanceof InputError)
          return { kind: 'unavailable', reason: error.message };
        throw error;
      }
    }),
    runChecks: fromPromise<RunChecksOutput, RunChecksInput>(async ({ input, signal }) => {
      unlessInterrupted();
      throwIfAborted(signal, 'the check run');
      const run = await runCheckSet({
        checks: input.checks,
        run: input.run,
        cwd: worktree,
        logDir: join(runDir, 'checks'),
        ...limits(signal),
        ...(options.checkTimeoutMs === undefined ? {} : { timeoutMs: options.checkTimeoutMs }),
      });
      unlessInterrupted();
      throwIfAborted(signal, 'the check run');
      evidence.set(input.run, evidenceLines(input.run, run.evidence));
      tailsByRun.set(input.run, new Map(run.evidence.map((item) => [item.name, item.tail])));
      return { executions: { ...run.executions } };
    }),
    applyCandidate: fromPromise<ApplyCandidateOutput, ApplyCandidateInput>(async ({ input, signal }) => {
      unlessInterrupted();
      throwIfAborted(signal, 'the patcher');
      watch ??= createOutsideScopeWatch(git, input.contract.scope);
      const dir = join(runDir, `candidate-${input.attempt}`);
      const before = await watch.observe();
      const run = await runCandidatePatcher({
        command: options.patcher,
        worktree,
        dir,
        task: candidateTask(
          input,
          worktree,
          join(dir, 'return.json'),
          tailsByRun.get(input.retainedRun) ?? new Map(),
        ),
        ...limits(signal),
        ...(options.patcherTimeoutMs === undefined ? {} : { timeoutMs: options.patcherTimeoutMs }),
      });
      if (run.survivors === null || run.survivors.length > 0)
        throw new CyberneticRunError(
          run.survivors === null
            ? `cannot prove that every process of the patcher stopped (/proc unreadable); the tree may still change`
            : `processes of the patcher still run after TERM and KILL: ${run.survivors.join(', ')}`,
        );
      unlessInterrupted();
      throwIfAborted(signal, 'the patcher');
      const after = await watch.observe();
      const outside = watch.changedBetween(before, after);
      for (const path of outside) outsideTouched.add(path);
      const inside = (await (await loadCheckpoint(input.checkpoint)).diff()).map((d) => d.path);
      return { summary: describePatcherRun(run), changedPaths: [...new Set([...inside, ...outside])] };
    }),
    revertCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(async ({ input }) => {
      const report = await (await loadCheckpoint(input.checkpoint)).restore();
      if (!report.restored)
        throw new CyberneticRunError(
          `reverting candidate ${input.attempt} to checkpoint ${input.checkpoint} failed: ${
            report.error ?? `still differs at ${report.remaining.map((d) => d.path).join(', ')}`
          }`,
        );
      return { checkpoint: input.checkpoint };
    }),
    retainCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(async ({ input }) => {
      const checkpoint = await createCheckpoint({
        worktree,
        scope,
        storeDir: join(runDir, 'checkpoints', `retained-${input.attempt}`),
      });
      return { checkpoint: checkpoint.storeDir };
    }),
    restoreCheckpoint: fromPromise<RestorationObservation, { checkpoint: string }>(async ({ input }) => {
      try {
        const report = await (await loadCheckpoint(input.checkpoint)).restore();
        return restorationOf(input.checkpoint, scope, report, await outsideDelta());
      } catch (error) {
        return {
          kind: 'failed',
          checkpoint: input.checkpoint,
          operation: `restore ${scope.join(', ')} from checkpoint ${input.checkpoint}`,
          error: messageOf(error),
          // Not proven equal: name the whole scope and what candidates changed outside it.
          remainingDelta: [
            ...scope.map((path) => `${path} (unknown)`),
            ...[...outsideTouched].map((path) => `${path} (outside the scope, unknown)`),
          ],
        };
      }
    }),
  };
}

/**
 * Refuses a scope that holds or lies inside the repository's git directory when that directory
 * sits inside the worktree under another name than `.git` (`--separate-git-dir`, `core.worktree`):
 * a `.git` segment is refused by the pure validation already. A request that does not validate is
 * left to the machine, which ends it as `invalid-input`.
 */
async function refuseScopeOverGitDir(worktree: string, request: unknown): Promise<void> {
  const frozen = freezeRunContract(request);
  if (!frozen.ok) return;
  const [root, gitDir] = await Promise.all([
    realpath(worktree),
    resolveGitDir(worktree).then((dir) => realpath(dir)),
  ]);
  const inside = relative(root, gitDir);
  if (inside === '' || inside.startsWith('..') || inside.startsWith(sep)) return;
  const gitPath = inside.split(sep).join('/');
  const covers = (entry: string, path: string) => path === entry || path.startsWith(`${entry}/`);
  const clash = frozen.contract.scope.find((path) => covers(path, gitPath) || covers(gitPath, path));
  if (clash !== undefined)
    throw new InputError(
      'cybernetic.scope-git-dir',
      `scope path ${JSON.stringify(clash)} overlaps the repository's git directory ${gitPath}; the repository's metadata is never part of a scope`,
    );
}

/**
 * Runs one cybernetic loop to its terminal record.
 *
 * @param options worktree, request, patcher, limits, progress callbacks
 * @returns the terminal record (or the effect failure), the transcript path and the run directory
 * @throws InputError (`git.not-a-worktree`, `cybernetic.worktree-not-root`) when `worktree` is
 *   not the root of a git worktree, (`cybernetic.scope-git-dir`) when the scope overlaps a git
 *   directory that lies inside the worktree under another name than `.git`; WorktreeLockedError
 *   (`host.worktree-locked`) while another runner holds the checkout (writer-lock.ts);
 *   CyberneticRunError when the machine itself failed (a host
 *   bug), after restoring the scope to the checkpoint when one was made
 */
export async function runCyberneticLoop(options: CyberneticRunnerOptions): Promise<CyberneticRunResult> {
  return withWriterLock(options.worktree, () => runCyberneticLoopLocked(options));
}

async function runCyberneticLoopLocked(options: CyberneticRunnerOptions): Promise<CyberneticRunResult> {
  const worktree = resolve(options.worktree);
  // Scope paths are repository-relative, and scope widening is read through git: the worktree
  // must be the root of a git worktree.
  const root = await resolveWorktreeRoot(worktree);
  if ((await realpath(root)) !== (await realpath(worktree)))
    throw new InputError(
      'cybernetic.worktree-not-root',
      `${worktree} is inside the git worktree ${root}; pass the worktree root (scope paths are relative to it)`,
    );
  await refuseScopeOverGitDir(worktree, options.request);
  // A request without a list of scope paths is refused by validation later, with its findings.
  const declared = (options.request as { scope?: unknown } | null)?.scope;
  const scopeDerivation =
    options.scopeCheck !== undefined &&
    Array.isArray(declared) &&
    declared.every((p) => typeof p === 'string')
      ? await deriveRunScope(
          worktree,
          options.scopeCheck.checks,
          declared as string[],
          options.scopeCheck.reason,
          options.checkTimeoutMs,
        )
      : null;
  const runDir = options.runDir ?? (await makeTempDir('loopchart-cyber-', { outside: worktree }));
  const transcriptPath = options.transcriptPath ?? join(runDir, 'transcript.jsonl');
  const evidence = new Map<number, string[]>();
  const actors = createCyberneticActors(options, runDir, evidence, scopeDerivation);
  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'cybernetic-loop',
    project: projectCyberneticTranscript((run) => evidence.get(run)),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(cyberneticLoopMachine.provide({ actors }), { inspect: recorder.inspect });
  let reported = { baseline: false, attempts: 0 };
  actor.subscribe({
    next: (snapshot) => {
      const transcript = (snapshot.context as CyberneticLoopContext).transcript;
      if (transcript === null) return;
      if (!reported.baseline) {
        reported = { ...reported, baseline: true };
        options.onBaseline?.(transcript.baseline);
      }
      while (reported.attempts < transcript.attempts.length) {
        const attempt = transcript.attempts[reported.attempts] as CandidateAttempt;
        reported = { ...reported, attempts: reported.attempts + 1 };
        options.onCandidate?.(attempt);
      }
    },
    error: () => undefined,
  });
  actor.start();
  actor.send({ type: 'START', request: options.request });
  // waitFor rejects when the actor errors; the snapshot then says why.
  await waitFor(actor, (s) => s.status !== 'active', { timeout: Number.POSITIVE_INFINITY }).catch(
    () => undefined,
  );
  const snapshot = actor.getSnapshot();
  actor.stop();
  if (snapshot.status !== 'done') {
    const checkpoint = (snapshot.context as CyberneticLoopContext).checkpoint;
    let restored = 'nothing had been mutated';
    if (checkpoint !== null) {
      const report = await (await loadCheckpoint(checkpoint)).restore().catch((error: unknown) => ({
        restored: false,
        error: messageOf(error),
      }));
      restored = report.restored
        ? `scope restored to checkpoint ${checkpoint}`
        : `RESTORE FAILED: ${report.error}`;
    }
    throw new CyberneticRunError(`the cybernetic loop failed: ${messageOf(snapshot.error)} (${restored})`);
  }
  return { ...(snapshot.output as CyberneticLoopOutput), transcriptPath, runDir };
}
