/**
 * Runs the cybernetic loop against a real working tree: the statechart of
 * machines/cybernetic-loop.ts with every actor provided by the effects layer. Checks are
 * frozen commands run in the worktree; candidate patches come from a patcher child under the
 * loop engine's child conventions; the checkpoint is a byte-for-byte copy of the scope kept
 * outside the repository; scope widening is read from the working tree after each patcher run.
 * The run writes its transcript in the shared evidence-ledger shape.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, rm, truncate } from 'node:fs/promises';
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
import { describeError } from '../common/describe-value.js';
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
import {
  CheckpointUnavailableError,
  createCheckpoint,
  loadCheckpoint,
  observeScope,
} from '../effects/checkpoint.js';
import { writeFileAtomic } from '../effects/files.js';
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
import {
  type BeginEntry,
  CYBER_RUN_MARKER,
  CyberJournalReplayError,
  type CyberJournalSession,
  type CyberResumePlan,
  type CyberRunIdentity,
  createCyberJournalSession,
  cyberResumePlan,
  cyberRunsDir,
  findOpenCyberRun,
  identityDifferences,
  journalPathOf,
  pointAtRun,
  releasePointer,
  type StepFacts,
  UnfinishedCyberRunError,
  verifyResumable,
} from './cybernetic-journal.js';
import { projectCyberneticTranscript } from './cybernetic-transcript.js';
import { appendJournal, readJournal } from './run-journal.js';
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
  /**
   * Where the journal, tasks, returns, logs and checkpoints go; default a fresh
   * `<git dir>/loopchart/cyber/<run id>/`. A resumed run uses the directory of the run it resumes.
   */
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
  /**
   * Called after every durable side effect (a journal line, a check or patcher launched, a path
   * restored), with a running count; the crash hook (crash-hook.ts) kills the process here.
   */
  readonly onSideEffect?: (name: string, count: number) => void;
  /** Called before a run that an earlier process of the same command left unfinished resumes. */
  readonly onResume?: (info: {
    readonly runDir: string;
    readonly steps: number;
    readonly ended: boolean;
  }) => void;
  /**
   * Reports the result (prints it) before the run is closed, still under the worktree lock: a
   * kill before the report ends leaves the run open, so a rerun of the same command reports it
   * again instead of starting a new run.
   */
  readonly beforeClose?: (result: CyberneticRunResult) => void | Promise<void>;
}

/** What {@link runCyberneticLoop} returns. */
export interface CyberneticRunResult extends CyberneticLoopOutput {
  readonly transcriptPath: string;
  readonly runDir: string;
  /** The run was left unfinished by an earlier process of the same command, and this call resumed it. */
  readonly resumed: boolean;
}

/** The machine's actors or the run itself failed outside the protocol (e.g. an action threw). */
export class CyberneticRunError extends LoopchartError {
  constructor(message: string) {
    super('cybernetic.run-failed', message);
  }
}

const messageOf = describeError;

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

/** How one effect runs live, and how a replayed outcome rebuilds the host's state. */
interface JournaledEffect<I, O> {
  /** Facts recorded before the effect runs (e.g. the tree outside the scope before a patcher). */
  readonly startFacts?: (input: I) => Promise<StepFacts>;
  /**
   * Runs the effect. `recovering` is set when a killed run left this very step in flight: the
   * effect first undoes what the loop provably owns of the interrupted attempt.
   */
  readonly live: (
    input: I,
    signal: AbortSignal,
    startFacts: StepFacts,
    recovering: boolean,
  ) => Promise<{ readonly output: O; readonly facts?: StepFacts }>;
  /** Rebuilds the host's state from a recorded outcome (also for a recorded error: output undefined). */
  readonly replay?: (input: I, output: O | undefined, facts: StepFacts) => void;
}

/** The outside-scope state as JSON (the journal's form of {@link OutsideScopeState}). */
interface OutsideStateJson {
  readonly head: string | null;
  readonly entries: readonly (readonly [string, string])[];
}

function outsideToJson(state: OutsideScopeState): OutsideStateJson {
  return { head: state.head, entries: [...state.entries] };
}

function outsideFromJson(json: unknown): OutsideScopeState | null {
  if (typeof json !== 'object' || json === null) return null;
  const value = json as OutsideStateJson;
  return { head: value.head, entries: new Map(value.entries.map(([path, id]) => [path, id])) };
}

/**
 * Creates the real actors of the cybernetic loop for one worktree.
 *
 * @param options worktree, patcher, limits (see {@link CyberneticRunnerOptions})
 * @param runDir where tasks, logs and checkpoints go (outside the worktree)
 * @param evidence receives each full check run's evidence lines by run number
 * @param scopeDerivation the recorded scope derivation, written with the contract
 * @param session the run's journal: each effect is recorded before and after it runs, and a
 *   resumed run replays the recorded outcomes instead of running them again; null runs unjournaled
 * @returns actors for `cyberneticLoopMachine.provide({ actors })`
 */
export function createCyberneticActors(
  options: CyberneticRunnerOptions,
  runDir: string,
  evidence: Map<number, string[]>,
  scopeDerivation: ScopeDerivation | null = null,
  session: CyberJournalSession | null = null,
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
  // Every check and patcher carries the run's marker; with a journal, each launch is a side effect.
  const childEnv = session === null ? options.env : { ...options.env, [CYBER_RUN_MARKER]: runDir };
  const spawned = (what: 'check' | 'patcher') =>
    session === null ? {} : { onSpawned: () => session.sideEffect(`spawned ${what}`) };
  // The run's signal (Ctrl-C) and the actor's own (XState aborts it when the actor stops) both
  // kill the process group of the check or patcher in flight.
  const limits = (actorSignal: AbortSignal) => ({
    ...(childEnv === undefined ? {} : { env: childEnv }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...signalOption(anySignal(options.signal, actorSignal)),
  });
  // An interrupted run starts nothing more; the machine's failure path restores the checkpoint.
  const unlessInterrupted = () => {
    if (options.signal?.aborted) throw new CyberneticRunError('interrupted (the run was cancelled)');
  };
  // Each path a restoration rewrites is a side effect too (named for the step: a crash test can
  // interrupt a revert or the final restoration half-way).
  const restoring = (what: 'recovered' | 'reverted' | 'restored') =>
    session === null ? {} : { onChanged: () => session.sideEffect(`${what} path`) };
  /** HEAD and every path of the scope now: what a resumed run compares the worktree with. */
  const stateFacts = async (): Promise<StepFacts> => ({
    head: await headOf(git),
    ...(scope.length === 0 ? {} : { scope: await observeScope(worktree, scope) }),
  });

  const journaled = <I, O>(name: string, effect: JournaledEffect<I, O>) =>
    fromPromise<O, I>(async ({ input, signal }) => {
      if (session === null) return (await effect.live(input, signal, {}, false)).output;
      const recorded = session.take(name, input);
      if (recorded?.outcome != null) {
        const outcome = recorded.outcome;
        effect.replay?.(input, outcome.kind === 'done' ? (outcome.output as O) : undefined, outcome.facts);
        if (outcome.kind === 'error') throw new Error(outcome.error);
        return outcome.output as O;
      }
      const startFacts = recorded?.startFacts ?? (await effect.startFacts?.(input)) ?? {};
      const seq = recorded?.seq ?? session.start(name, input, startFacts);
      let result: { readonly output: O; readonly facts?: StepFacts };
      try {
        result = await effect.live(input, signal, startFacts, recorded !== null);
      } catch (error) {
        const state = await stateFacts().catch((failure: unknown) => ({
          stateUnreadable: messageOf(failure),
        }));
        session.finish(seq, name, { error: messageOf(error) }, state);
        throw error;
      }
      // The outcome is journaled whatever happens next: a step that started always ends in the journal.
      const state = await stateFacts().catch((error: unknown) => ({ stateUnreadable: messageOf(error) }));
      session.finish(seq, name, { output: result.output }, { ...result.facts, ...state });
      return result.output;
    });

  const rememberChecks = (run: number, facts: StepFacts) => {
    evidence.set(run, [...((facts.evidence as string[] | undefined) ?? [])]);
    tailsByRun.set(run, new Map(Object.entries((facts.tails as Record<string, string> | undefined) ?? {})));
  };
  const adoptCheckpoint = (contract: RunContract, outside: unknown) => {
    scope = [...contract.scope];
    watch = createOutsideScopeWatch(git, scope);
    outsideAtStart = outsideFromJson(outside);
  };

  return {
    echoContract: journaled<{ contract: RunContract }, Record<string, never>>('echoContract', {
      live: async (input) => {
        scope = [...input.contract.scope];
        // The recorded scope and frozen contract, kept with the run (outside the repository).
        // The scope derivation (declared, derived, reason) is recorded with the frozen contract.
        const recorded = scopeDerivation === null ? input.contract : { ...input.contract, scopeDerivation };
        await writeFileAtomic(join(runDir, 'contract.json'), `${JSON.stringify(recorded, null, 2)}\n`);
        options.onContract?.(input.contract);
        return { output: {} };
      },
      replay: (input) => {
        scope = [...input.contract.scope];
        options.onContract?.(input.contract);
      },
    }),
    createCheckpoint: journaled<{ contract: RunContract }, CheckpointOutcome>('createCheckpoint', {
      live: async (input) => {
        scope = [...input.contract.scope];
        const storeDir = join(runDir, 'checkpoints', 'run');
        // A store a killed run left half-written is the run's own; it is made again from the tree.
        if (session !== null) await rm(storeDir, { recursive: true, force: true });
        try {
          const checkpoint = await createCheckpoint({ worktree, scope, storeDir });
          watch = createOutsideScopeWatch(git, scope);
          outsideAtStart = await watch.observe();
          return {
            output: { kind: 'created', checkpoint: checkpoint.storeDir },
            facts: { outside: outsideToJson(outsideAtStart) },
          };
        } catch (error) {
          if (error instanceof CheckpointUnavailableError || error instanceof InputError)
            return { output: { kind: 'unavailable', reason: error.message } };
          throw error;
        }
      },
      replay: (input, _output, facts) => adoptCheckpoint(input.contract, facts.outside),
    }),
    runChecks: journaled<RunChecksInput, RunChecksOutput>('runChecks', {
      live: async (input, signal) => {
        unlessInterrupted();
        throwIfAborted(signal, 'the check run');
        const run = await runCheckSet({
          checks: input.checks,
          run: input.run,
          cwd: worktree,
          logDir: join(runDir, 'checks'),
          ...limits(signal),
          ...spawned('check'),
          ...(options.checkTimeoutMs === undefined ? {} : { timeoutMs: options.checkTimeoutMs }),
        });
        unlessInterrupted();
        throwIfAborted(signal, 'the check run');
        const facts = {
          evidence: evidenceLines(input.run, run.evidence),
          tails: Object.fromEntries(run.evidence.map((item) => [item.name, item.tail])),
        };
        rememberChecks(input.run, facts);
        return { output: { executions: { ...run.executions } }, facts };
      },
      replay: (input, _output, facts) => rememberChecks(input.run, facts),
    }),
    applyCandidate: journaled<ApplyCandidateInput, ApplyCandidateOutput>('applyCandidate', {
      startFacts: async (input) => {
        watch ??= createOutsideScopeWatch(git, input.contract.scope);
        return { before: outsideToJson(await watch.observe()) };
      },
      live: async (input, signal, startFacts, recovering) => {
        unlessInterrupted();
        throwIfAborted(signal, 'the patcher');
        watch ??= createOutsideScopeWatch(git, input.contract.scope);
        const dir = join(runDir, `candidate-${input.attempt}`);
        if (recovering) {
          // The journal says this patcher ran after the retained state was recorded: whatever it
          // left in the scope is the interrupted candidate's, and goes before the attempt runs again.
          const report = await (await loadCheckpoint(input.checkpoint)).restore(restoring('recovered'));
          if (!report.restored)
            throw new CyberneticRunError(
              `restoring the interrupted candidate ${input.attempt} to ${input.checkpoint} failed: ${
                report.error ?? `still differs at ${report.remaining.map((d) => d.path).join(', ')}`
              }`,
            );
        }
        // The tree outside the scope before this attempt, as recorded when it first started.
        const before = outsideFromJson(startFacts.before) ?? (await watch.observe());
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
          ...spawned('patcher'),
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
        return {
          output: { summary: describePatcherRun(run), changedPaths: [...new Set([...inside, ...outside])] },
          facts: { outside },
        };
      },
      replay: (_input, _output, facts) => {
        for (const path of (facts.outside as string[] | undefined) ?? []) outsideTouched.add(path);
      },
    }),
    revertCandidate: journaled<RetainedStateInput, RetainedStateOutput>('revertCandidate', {
      live: async (input) => {
        const report = await (await loadCheckpoint(input.checkpoint)).restore(restoring('reverted'));
        if (!report.restored)
          throw new CyberneticRunError(
            `reverting candidate ${input.attempt} to checkpoint ${input.checkpoint} failed: ${
              report.error ?? `still differs at ${report.remaining.map((d) => d.path).join(', ')}`
            }`,
          );
        return { output: { checkpoint: input.checkpoint } };
      },
    }),
    retainCandidate: journaled<RetainedStateInput, RetainedStateOutput>('retainCandidate', {
      live: async (input) => {
        const storeDir = join(runDir, 'checkpoints', `retained-${input.attempt}`);
        if (session !== null) await rm(storeDir, { recursive: true, force: true });
        const checkpoint = await createCheckpoint({ worktree, scope, storeDir });
        return { output: { checkpoint: checkpoint.storeDir } };
      },
    }),
    restoreCheckpoint: journaled<{ checkpoint: string }, RestorationObservation>('restoreCheckpoint', {
      live: async (input) => {
        try {
          const report = await (await loadCheckpoint(input.checkpoint)).restore(restoring('restored'));
          return { output: restorationOf(input.checkpoint, scope, report, await outsideDelta()) };
        } catch (error) {
          return {
            output: {
              kind: 'failed',
              checkpoint: input.checkpoint,
              operation: `restore ${scope.join(', ')} from checkpoint ${input.checkpoint}`,
              error: messageOf(error),
              // Not proven equal: name the whole scope and what candidates changed outside it.
              remainingDelta: [
                ...scope.map((path) => `${path} (unknown)`),
                ...[...outsideTouched].map((path) => `${path} (outside the scope, unknown)`),
              ],
            },
          };
        }
      },
    }),
  };
}

/** HEAD's object name, or null in a repository without commits. */
async function headOf(git: ReturnType<typeof createGitPort>): Promise<string | null> {
  return git.revParse('HEAD').catch(() => null);
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
  const gitDir = await resolveGitDir(worktree);
  const identity: CyberRunIdentity = {
    version: 1,
    request: options.request ?? null,
    patcher: options.patcher,
    scopeCheck: options.scopeCheck ?? null,
    checkTimeoutMs: options.checkTimeoutMs ?? null,
    patcherTimeoutMs: options.patcherTimeoutMs ?? null,
    transcriptPath: options.transcriptPath ?? null,
  };
  let count = 0;
  const sideEffect = (name: string) => {
    count += 1;
    options.onSideEffect?.(name, count);
  };

  // An open run of this worktree is resumed when it is this command's, refused when it is not.
  const open = await findOpenCyberRun(gitDir);
  let plan: CyberResumePlan | null = null;
  let runDir: string;
  let transcriptPath: string;
  let scopeDerivation: ScopeDerivation | null;
  if (open !== null) {
    plan = cyberResumePlan(open.entries);
    const differences = identityDifferences(plan.begin.identity, identity);
    if (differences.length > 0) throw new UnfinishedCyberRunError(open.runDir, differences);
    runDir = open.runDir;
    transcriptPath = plan.begin.transcriptPath;
    scopeDerivation = plan.begin.derivation;
    await verifyResumable(plan, worktree, runDir);
    options.onResume?.({ runDir, steps: plan.completed.length, ended: plan.ended });
  } else {
    // A request without a list of scope paths is refused by validation later, with its findings.
    const declared = (options.request as { scope?: unknown } | null)?.scope;
    scopeDerivation =
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
    runDir = options.runDir ?? join(cyberRunsDir(gitDir), newRunId(options.now ?? (() => new Date())));
    await mkdir(runDir, { recursive: true });
    if ((await readJournal(journalPathOf(runDir))).length > 0)
      throw new InputError(
        'cybernetic.run-dir-used',
        `${runDir} already holds the journal of another cybernetic run; give this run its own directory`,
      );
    transcriptPath = options.transcriptPath ?? join(runDir, 'transcript.jsonl');
    const begin: BeginEntry = {
      kind: 'begin',
      version: 1,
      identity,
      derivation: scopeDerivation,
      head: await createGitPort(worktree)
        .revParse('HEAD')
        .catch(() => null),
      transcriptPath,
    };
    appendJournal(journalPathOf(runDir), begin);
    await pointAtRun(gitDir, runDir);
    sideEffect('begin');
  }
  const session = createCyberJournalSession(journalPathOf(runDir), plan, sideEffect);
  const close = async () => {
    appendJournal(journalPathOf(runDir), { kind: 'closed' });
    await releasePointer(gitDir, runDir);
  };

  const evidence = new Map<number, string[]>();
  const actors = createCyberneticActors(options, runDir, evidence, scopeDerivation, session);
  // The transcript records a resumed run already wrote are replayed, not written again.
  const written = plan === null ? [] : await transcriptEvents(transcriptPath);
  let processed = 0;
  let divergence: string | null = null;
  const project = projectCyberneticTranscript((run) => evidence.get(run));
  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'cybernetic-loop',
    project: (step) => {
      const index = processed++;
      const recorded = written[index];
      if (recorded === undefined) return project(step);
      if (recorded !== step.event.type && divergence === null)
        divergence = `transcript record ${index + 1} is ${recorded}, the replay processed ${step.event.type}`;
      return null;
    },
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
  actor.send({ type: 'START', request: plan === null ? options.request : plan.begin.identity.request });
  // waitFor rejects when the actor errors; the snapshot then says why.
  await waitFor(actor, (s) => s.status !== 'active', { timeout: Number.POSITIVE_INFINITY }).catch(
    () => undefined,
  );
  const snapshot = actor.getSnapshot();
  actor.stop();
  if (snapshot.status === 'error' && snapshot.error instanceof CyberJournalReplayError) throw snapshot.error;
  if (divergence !== null) throw new CyberJournalReplayError(divergence);
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
    await close();
    throw new CyberneticRunError(`the cybernetic loop failed: ${messageOf(snapshot.error)} (${restored})`);
  }
  if (plan === null || !plan.ended) session.end();
  const result = {
    ...(snapshot.output as CyberneticLoopOutput),
    transcriptPath,
    runDir,
    resumed: plan !== null,
  };
  await options.beforeClose?.(result);
  await close();
  return result;
}

/** A run id: a UTC timestamp and a random suffix (as run-directory.ts names RPI and crank runs). */
function newRunId(now: () => Date): string {
  const stamp = now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * The event of every complete record of a transcript; a line a kill cut short is removed first.
 *
 * @param path the transcript file
 */
async function transcriptEvents(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.length !== text.length) await truncate(path, Buffer.byteLength(complete));
  return complete
    .split('\n')
    .slice(0, -1)
    .map((line) => String((JSON.parse(line) as { event?: unknown }).event));
}

export {
  CyberJournalReplayError,
  CyberResumeMismatchError,
  UnfinishedCyberRunError,
} from './cybernetic-journal.js';
