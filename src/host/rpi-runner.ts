/**
 * Runs RPI against a real worktree: the rpi statechart with real effects (the user's Plan,
 * implementer and validator commands, the subject-manifest digest), a JSONL transcript, and the
 * run's own files under the git directory. `loopchart rpi` and crank's lanes use it.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type FinalCiCommandResult,
  type FinalCiOutcome,
  type FinalCiRequest,
  type ImplementOutcome,
  type ImplementRequest,
  type PlanOutcome,
  type RiskDeclaration,
  type RpiContext,
  type RpiInput,
  type RpiOutcome,
  rpiMachine,
  type SubjectMeasure,
  type ValidateRequest,
} from '../../machines/rpi/index.js';
import { InputError, LoopchartError, UsageError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';
import { checkRepairRounds } from '../convergence/repair-budget.js';
import { throwIfAborted } from '../effects/abort.js';
import { CommandFailedError } from '../effects/command-error.js';
import { runDurableCommand } from '../effects/durable-command.js';
import { createGitPort } from '../effects/git.js';
import { readValidatorRecord } from '../effects/rpi-commands.js';
import { createRunDirectory, locateRunHome } from '../effects/run-directory.js';
import { measureSubject } from '../effects/subject-measure.js';
import {
  abandonRun,
  type CommandEnd,
  findUnfinishedRun,
  openStepJournal,
  readStepJournal,
  type WorktreeFacts,
} from './step-journal.js';
import { createTranscriptRecorder, type TranscriptFields, type TranscriptStep } from './transcript.js';
import { withWriterLock } from './writer-lock.js';

/** What a host declares for one RPI run. */
export interface RpiRunnerOptions {
  /** A directory inside the worktree (its top level is used). */
  readonly repo: string;
  /** The implementer: builds the change at round 0 and repairs the open findings at round n. */
  readonly implementer: string;
  /** The fresh validator: prints one verdict record on stdout. */
  readonly validator: string;
  /** The cross-family validator, run on risky surfaces only. */
  readonly crossFamily?: string | null;
  /**
   * The full CI command set run once on the converged subject, in order, stopping at the first
   * that fails. Empty or absent: the step is skipped and the report says `final CI: not configured`.
   */
  readonly finalCi?: readonly string[];
  /** The Plan command; without one, the intent as given is the plan. */
  readonly plan?: string | null;
  /** The intent file; its exact bytes give the acceptance digest. Relative to the worktree. */
  readonly intentFile?: string | null;
  /** The intent reference reported (default: the intent file as given, else `caller`). */
  readonly intentRef?: string | null;
  /** Repair rounds (default 2). */
  readonly repairRounds?: number;
  /** Risk declaration (default `auto`). */
  readonly risky?: RiskDeclaration;
  /** Repository-relative roots of the subject (default the whole tree). */
  readonly roots?: readonly string[];
  /** The revision changes are measured against (default HEAD when the run starts). */
  readonly base?: string;
  /** Kill any Plan, implementer or validator command after this many ms (default: no limit). */
  readonly commandTimeoutMs?: number;
  /** The run's directory; default a fresh one under `<git dir>/loopchart/rpi/`. */
  readonly runDir?: string;
  /** The transcript file; default `<run dir>/transcript.jsonl`. */
  readonly transcriptPath?: string;
  /** Extra environment for every command (crank adds the lane's). */
  readonly env?: Readonly<Record<string, string>>;
  /** Called with one line per state the run enters (progress for people). */
  readonly onProgress?: (line: string) => void;
  /** The clock of the transcript. */
  readonly now?: () => Date;
  /**
   * Aborting stops the run: the statechart's actor is stopped, which kills the command in flight
   * (its process group), and `run()` rejects with {@link RunAbortedError}.
   */
  readonly signal?: AbortSignal;
  /**
   * The caller already holds the worktree's writer lock (crank, for its lanes). Otherwise the run
   * takes it and refuses to start while another runner holds the checkout.
   */
  readonly writerLockHeld?: boolean;
  /**
   * Leave the unfinished run of this worktree (it is kept, marked abandoned) and start a new one.
   * Without it, an unfinished run is resumed (see docs/rpi.md, "Resume").
   */
  readonly fresh?: boolean;
  /**
   * Keep the finished run resumable until the caller calls `markReported()` on the result (the CLI
   * does, after printing the report), so a kill between the end and the report re-delivers the same
   * outcome instead of starting over. Default: the run is marked reported when `run()` returns.
   */
  readonly holdReport?: boolean;
  /** Called after every durable step record and every command's end (the crash hook of tests). */
  readonly onSideEffect?: (name: string, count: number) => void;
}

/** What a finished RPI run returns. */
export interface RpiRunResult {
  readonly outcome: RpiOutcome;
  /** The worktree's top level. */
  readonly worktree: string;
  readonly runDir: string;
  readonly transcriptPath: string;
  /** The base revision changes were measured against. */
  readonly base: string;
  /** Whether this run continued an unfinished one from its step journal. */
  readonly resumed: boolean;
  /** Records that the outcome reached the caller (see `holdReport`). */
  markReported(): Promise<void>;
}

/** Why an RPI run produced no report (`round_rejected` or `failed`), as `loopchart rpi` reports it. */
export interface RpiRunFailure {
  /** Whether the cause is the user's input or configuration (exit code 2), else 1. */
  readonly input: boolean;
  readonly code: string;
  readonly message: string;
  readonly findings: readonly Finding[];
}

/**
 * Why the run produced no report, or `null` when it produced one. A rejected round (the validators
 * returned one that cannot be judged) counts as input.
 */
export function rpiRunFailure(outcome: RpiOutcome): RpiRunFailure | null {
  if (outcome.terminal !== 'round_rejected' && outcome.terminal !== 'failed') return null;
  return {
    input: outcome.terminal === 'round_rejected' || outcome.failure?.input === true,
    code: outcome.failure?.code ?? 'rpi.round-rejected',
    message: outcome.failure?.message ?? 'the validators returned a round that cannot be judged',
    findings: outcome.failure?.findings ?? outcome.rejection,
  };
}

/**
 * The exit code of `loopchart rpi` for an outcome (docs/rpi.md): 2 input, 1 failed, 0 converged,
 * 4 a report that is not converged. The CLI and a fleet worker both give it.
 */
export function rpiExitCode(outcome: RpiOutcome): number {
  const failure = rpiRunFailure(outcome);
  if (failure !== null) return failure.input ? 2 : 1;
  return outcome.converged ? 0 : 4;
}

/** A prepared RPI run. */
export interface RpiRunner {
  /** Runs the statechart to a final state and returns its outcome. */
  run(): Promise<RpiRunResult>;
}

/** A run was stopped through its `signal` before its statechart reached a final state. */
export class RunAbortedError extends LoopchartError {
  /** @param what the run, e.g. `rpi` */
  constructor(what: string) {
    super(
      'run.stopped',
      `the ${what} run was stopped (its signal aborted); the command in flight was killed`,
    );
  }
}

const RISK_DECLARATIONS: readonly RiskDeclaration[] = ['auto', 'yes', 'no'];

/**
 * Checks the options and prepares a run. Nothing runs until `run()` is called.
 *
 * @param options commands, intent, bound, risk, roots, paths
 * @throws UsageError for a blank command; RepairPhaseError for an invalid bound; InputError for an
 *   unknown risk declaration
 */
export function createRpiRunner(options: RpiRunnerOptions): RpiRunner {
  for (const [name, value] of [
    ['implementer', options.implementer],
    ['validator', options.validator],
  ] as const) {
    if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`rpi: --${name} is required`);
  }
  for (const [name, value] of [
    ['cross-family', options.crossFamily],
    ['plan', options.plan],
  ] as const) {
    if (value !== undefined && value !== null && value.trim() === '')
      throw new UsageError(`rpi: --${name} must not be blank`);
  }
  for (const command of options.finalCi ?? []) {
    if (typeof command !== 'string' || command.trim() === '')
      throw new UsageError('rpi: --final-ci must not be blank');
  }
  const repairRounds = checkRepairRounds(options.repairRounds);
  const risky = options.risky ?? 'auto';
  if (!RISK_DECLARATIONS.includes(risky))
    throw new InputError('rpi.risky-invalid', `risky must be auto, yes or no, got ${JSON.stringify(risky)}`);
  return {
    run: () =>
      options.writerLockHeld
        ? runRpi(options, repairRounds, risky)
        : withWriterLock(options.repo, () => runRpi(options, repairRounds, risky)),
  };
}

async function runRpi(
  options: RpiRunnerOptions,
  repairRounds: number,
  risky: RiskDeclaration,
): Promise<RpiRunResult> {
  const { worktree, runDir, transcriptPath } = await runPaths(options, 'rpi');
  const git = createGitPort(worktree);
  const intent = await readIntent(worktree, options);
  const recorded = await readStepJournal(runDir);
  // A resumed run keeps its own base: the HEAD it started on, not the HEAD its repairs moved.
  const base = options.base ?? recorded?.start.head ?? (await git.revParseHead());
  // The run's own files are never part of the subject, wherever the caller put them.
  const exclusions = [runDir, transcriptPath]
    .map((path) => relative(worktree, path))
    .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path))
    .map((path) => path.split(sep).join('/'))
    // Git never lists its own directory; naming a run directory there would only make the
    // manifest (and so the digest) depend on the run's id.
    .filter((path) => path !== '.git' && !path.startsWith('.git/'));

  const commonEnv = {
    ...options.env,
    ...(intent.path === null ? {} : { LOOPCHART_INTENT: intent.path }),
    LOOPCHART_RUN_DIR: runDir,
  };
  const roundDir = (round: number) => join(runDir, `round-${round}`);
  const stepsDir = join(runDir, 'steps');
  const timeout = options.commandTimeoutMs === undefined ? {} : { timeoutMs: options.commandTimeoutMs };
  const measure = async (): Promise<SubjectMeasure> => {
    const measured = await measureSubject({
      git,
      base,
      ...(options.roots === undefined ? {} : { roots: options.roots }),
      exclusions,
    });
    return { digest: measured.digest, changedPaths: [...measured.changedPaths] };
  };
  // Inside a crank wave the lanes share HEAD, so a lane checks only its own subject.
  const facts = async (): Promise<WorktreeFacts> => ({
    head: options.base === undefined ? await git.revParseHead() : null,
    digest: (await measure()).digest,
  });
  let sideEffects = 0;
  const journal = await openStepJournal({
    runDir,
    kind: 'rpi',
    fingerprint: rpiFingerprint(options, repairRounds, risky, intent, transcriptPath),
    facts,
    onSideEffect: (name) => options.onSideEffect?.(name, ++sideEffects),
  });
  const settle = async (result: RpiRunResult): Promise<RpiRunResult> => {
    if (!options.holdReport) await result.markReported();
    return result;
  };
  const result = (outcome: RpiOutcome): RpiRunResult => ({
    outcome,
    worktree,
    runDir,
    transcriptPath,
    base,
    resumed: journal.resumed,
    markReported: () => journal.markReported(),
  });
  if (journal.finished !== null) return settle(result(journal.finished as RpiOutcome));

  /** A stage command (Plan, the implementer, a final CI command): judged by its exit code. */
  const stage = (
    key: string,
    command: string,
    env: Record<string, string>,
    logPath: string,
    signal: AbortSignal,
  ) =>
    journal.command(key, {
      dir: stepsDir,
      writes: true,
      logPath,
      facts,
      launch: ({ exitPath, onSpawned }) =>
        runDurableCommand({ command, cwd: worktree, env, logPath, exitPath, onSpawned, signal, ...timeout }),
      interpret: async (end) => stageEnd(command, end, options.commandTimeoutMs),
    });
  const actors = {
    plan: fromPromise<PlanOutcome, Record<string, never>>(async ({ signal }) => {
      const identity = { intentRef: intent.ref, acceptanceDigest: intent.digest };
      if (!options.plan) return { planned: true, ...identity };
      const end = await stage('plan', options.plan, commonEnv, join(runDir, 'plan.log'), signal);
      return end.done
        ? { planned: true, ...identity }
        : { planned: false, reason: `the plan command returned nothing (${end.detail})` };
    }),
    implement: fromPromise<ImplementOutcome, ImplementRequest>(async ({ input, signal }) => {
      throwIfAborted(signal, 'the implementer');
      const dir = roundDir(input.round);
      await mkdir(dir, { recursive: true });
      const findingsPath = join(dir, 'findings.json');
      await writeFile(findingsPath, `${JSON.stringify(input.openFindings, null, 2)}\n`);
      const end = await stage(
        `implement:${input.round}`,
        options.implementer,
        { ...commonEnv, LOOPCHART_ROUND: String(input.round), LOOPCHART_FINDINGS: findingsPath },
        join(dir, input.round === 0 ? 'implement.log' : 'repair.log'),
        signal,
      );
      return { built: end.done, detail: end.done ? null : `the implementer ${end.detail}` };
    }),
    measureSubject: fromPromise<SubjectMeasure, { round: number }>(async ({ input }) =>
      journal.effect(`measure:${input.round}`, measure, measuredFacts),
    ),
    finalCi: fromPromise<FinalCiOutcome, FinalCiRequest>(async ({ input, signal }) => {
      const commands = options.finalCi ?? [];
      if (commands.length === 0) return { configured: false };
      // The receipt binds to the digests measured right around the run, judged by the machine.
      const digestBefore = (await journal.effect('final-ci:before', measure, measuredFacts)).digest;
      const results: FinalCiCommandResult[] = [];
      let passed = true;
      for (const [index, command] of commands.entries()) {
        const end = await stage(
          `final-ci:${index + 1}`,
          command,
          { ...commonEnv, LOOPCHART_SUBJECT_DIGEST: input.subjectDigest },
          join(runDir, 'final-ci', `${index + 1}.log`),
          signal,
        );
        results.push({ command, exitCode: end.exitCode, detail: end.detail });
        if (!end.done) {
          passed = false;
          break;
        }
      }
      const digestAfter = (await journal.effect('final-ci:after', measure, measuredFacts)).digest;
      return { configured: true, passed, digestBefore, digestAfter, commands: results };
    }),
    validateFresh: fromPromise<unknown, ValidateRequest>(async ({ input, signal }) =>
      validate(input, options.validator, 'fresh', signal),
    ),
    validateCrossFamily: fromPromise<unknown, ValidateRequest>(async ({ input, signal }) => {
      if (!options.crossFamily) throw new InputError('rpi.cross-family-missing', 'no cross-family validator');
      return validate(input, options.crossFamily, 'cross-family', signal);
    }),
  };
  async function measuredFacts(output: SubjectMeasure | undefined): Promise<WorktreeFacts> {
    return {
      head: options.base === undefined ? await git.revParseHead() : null,
      digest: output?.digest ?? (await measure()).digest,
    };
  }
  async function validate(input: ValidateRequest, command: string, family: string, signal: AbortSignal) {
    const dir = roundDir(input.round);
    const stdoutPath = join(dir, `validate-${input.leg}.stdout`);
    const stderrPath = join(dir, `validate-${input.leg}.stderr`);
    return journal.command(`validate:${input.round}:${input.leg}`, {
      dir: stepsDir,
      writes: false,
      logPath: stderrPath,
      facts,
      launch: async ({ exitPath, onSpawned }) => {
        await mkdir(dir, { recursive: true });
        await writeFile(stderrPath, '');
        return runDurableCommand({
          command,
          cwd: worktree,
          env: {
            ...commonEnv,
            LOOPCHART_ROUND: String(input.round),
            LOOPCHART_LEG: input.leg,
            LOOPCHART_SUBJECT_DIGEST: input.subjectDigest,
          },
          logPath: stderrPath,
          stdoutPath,
          exitPath,
          onSpawned,
          signal,
          // A validator that outlives its limit has no verdict to give: kill it at once.
          killGraceMs: 0,
          ...timeout,
        });
      },
      interpret: async (end) => {
        if (end.run?.outcome === 'spawn-error')
          throw new CommandFailedError(
            'rpi.command-failed',
            { command, exitCode: null, signal: null, outputTail: end.outputTail },
            end.run.error ?? 'could not be started',
          );
        return readValidatorRecord({
          command,
          stdout: await readFile(stdoutPath, 'utf8').catch(() => ''),
          stderr: await readFile(stderrPath, 'utf8').catch(() => ''),
          exitCode: end.exitCode,
          signal: end.run?.signal ?? null,
          timedOut: end.run?.outcome === 'timed-out',
          logPath: join(dir, `validate-${input.leg}.log`),
          defaultFamily: family,
          ...timeout,
        });
      },
    });
  }

  const input: RpiInput = { repairRounds, risky, crossFamily: Boolean(options.crossFamily) };
  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'rpi',
    project: projectRpiTranscript,
    alreadyWritten: journal.resumed ? await resumeTranscript(transcriptPath) : 0,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(rpiMachine.provide({ actors }), { input, inspect: recorder.inspect });
  if (options.onProgress) {
    const progress = options.onProgress;
    let last = '';
    actor.subscribe({
      next: (snapshot) => {
        const line = `rpi: ${JSON.stringify(snapshot.value)}`;
        if (line !== last) progress(line);
        last = line;
      },
      error: () => {},
    });
  }
  // The caller's signal stops the statechart; XState then aborts the running actor's signal, which
  // kills the command in flight (its process group).
  if (options.signal?.aborted) throw new RunAbortedError('rpi');
  const stopOnAbort = () => actor.stop();
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  actor.start();
  const outcome = (await toPromise(actor).finally(() =>
    options.signal?.removeEventListener('abort', stopOnAbort),
  )) as RpiOutcome;
  if (options.signal?.aborted) throw new RunAbortedError('rpi');
  await writeFile(join(runDir, 'outcome.json'), `${JSON.stringify(outcome, null, 2)}\n`);
  await journal.finish(outcome);
  return settle(result(outcome));
}

/** Everything a run was started with that decides what it does: a resume must be given the same. */
function rpiFingerprint(
  options: RpiRunnerOptions,
  repairRounds: number,
  risky: RiskDeclaration,
  intent: Intent,
  transcriptPath: string,
) {
  return {
    implementer: options.implementer,
    validator: options.validator,
    crossFamily: options.crossFamily ?? null,
    plan: options.plan ?? null,
    finalCi: [...(options.finalCi ?? [])],
    intentPath: intent.path,
    intentRef: intent.ref,
    acceptanceDigest: intent.digest,
    repairRounds,
    risky,
    roots: options.roots === undefined ? null : [...options.roots],
    base: options.base ?? null,
    transcriptPath,
    commandTimeoutMs: options.commandTimeoutMs ?? null,
    env: options.env ?? {},
  };
}

/** How a stage command ended: done when it exited 0. */
interface StageEnd {
  readonly done: boolean;
  readonly exitCode: number | null;
  readonly detail: string;
}

function stageEnd(command: string, end: CommandEnd, timeoutMs: number | undefined): StageEnd {
  const run = end.run;
  if (run?.outcome === 'spawn-error')
    throw new CommandFailedError(
      'rpi.command-failed',
      { command, exitCode: null, signal: null, outputTail: run.outputTail },
      run.error ?? 'could not be started',
    );
  const detail =
    run?.outcome === 'timed-out'
      ? `timed out after ${Math.round((timeoutMs ?? 0) / 1000)} s`
      : end.exitCode !== null
        ? `exit ${end.exitCode}`
        : `signal ${run?.signal ?? 'unknown'}`;
  return { done: end.exitCode === 0 && run?.outcome !== 'timed-out', exitCode: end.exitCode, detail };
}

/**
 * The records a resumed run's transcript already holds. A record cut off by the kill is removed
 * (the transcript is the run's own file); the replay writes it again whole.
 */
export async function resumeTranscript(path: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return 0;
  }
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete !== text) await writeFile(path, complete);
  return complete.split('\n').filter((line) => line.trim() !== '').length;
}

interface Intent {
  /** Absolute path, or null without an intent file. */
  readonly path: string | null;
  readonly ref: string;
  readonly digest: string | null;
}

async function readIntent(worktree: string, options: RpiRunnerOptions): Promise<Intent> {
  const file = options.intentFile ?? null;
  const ref = options.intentRef ?? file ?? 'caller';
  if (ref.trim() === '')
    throw new InputError('rpi.intent-ref-invalid', 'the intent reference must not be blank');
  if (file === null) return { path: null, ref, digest: null };
  const path = resolve(worktree, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InputError(
      'rpi.intent-unreadable',
      `cannot read the intent file ${file}: ${(error as Error).message}`,
    );
  }
  // The acceptance digest is over the exact bytes, never a re-serialization.
  return { path, ref, digest: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * The transcript fields of one RPI event: the round as the cycle, the verifier result of each
 * validator leg, the observation of each judged round, and on the final record the stop reason as
 * `terminalCheck.rule` with the report status and its `checked` lines as evidence.
 *
 * @param step the processed event and the snapshot after it
 * @returns the record's machine-specific fields
 */
export function projectRpiTranscript(step: TranscriptStep): TranscriptFields {
  const context = step.snapshot.context as RpiContext;
  const phase = context.phase;
  const fields: {
    -readonly [K in keyof TranscriptFields]: TranscriptFields[K];
  } = {
    cycle: phase?.roundsUsed ?? 0,
    budget: {
      iterationsUsed: phase?.roundsUsed ?? 0,
      iterationLimit: context.repairRounds > 0 ? context.repairRounds : null,
      elapsedMs: null,
      tokensUsed: null,
      costUsed: null,
    },
  };
  const type = step.event.type;
  const legName =
    type === 'xstate.done.actor.validateFresh'
      ? 'fresh validator'
      : type === 'xstate.done.actor.validateCrossFamily'
        ? 'cross-family validator'
        : null;
  if (legName !== null) {
    const leg = (step.event as { output?: { status?: unknown; verdict?: unknown } }).output ?? {};
    const verdict = String(leg.status ?? leg.verdict ?? '');
    fields.verifierResult = {
      evaluator: legName,
      verdict: verdict === 'PASS' ? 'pass' : verdict === 'FAIL' ? 'fail' : 'unavailable',
      detail: verdict,
    };
  }
  if (type === 'xstate.done.actor.implement' || type === 'xstate.done.actor.repair') {
    const built = (step.event as { output?: { built?: unknown } }).output?.built === true;
    fields.action = {
      kind: 'action',
      summary: type.endsWith('implement') ? 'implement the intent' : 'repair the open findings',
      disposition: built ? 'kept' : 'skipped',
    };
  }
  if (phase !== null) {
    fields.observation = {
      summary: `round ${phase.roundsUsed}: ${phase.current.status}, ${phase.current.openIds.length} open findings`,
      metric: phase.current.openIds.length,
    };
    fields.fingerprint = phase.current.subjectDigest;
    fields.data = {
      openIds: [...phase.current.openIds],
      closedIds: [...phase.closedIds],
      riskySurface: phase.riskySurface,
    };
  }
  if (step.snapshot.status === 'done') {
    const outcome = step.snapshot.output as RpiOutcome;
    fields.decision = 'stop';
    fields.terminalCheck = {
      // A final CI stop happens after the repair phase converged: the terminal names it.
      rule: outcome.terminal.startsWith('final_ci_')
        ? outcome.terminal
        : (outcome.stopReason ?? outcome.terminal),
      success: outcome.converged,
      reason: outcome.report
        ? `${outcome.terminal}: report status ${outcome.report.status}`
        : `${outcome.terminal}: ${outcome.failure?.message ?? outcome.rejection.map((f) => f.reason).join('; ')}`,
      // Never empty, so the protocol's final report can call the run complete.
      evidence: outcome.report
        ? [`report status ${outcome.report.status}`, ...outcome.report.checked]
        : outcome.failure
          ? [outcome.failure.code]
          : outcome.rejection.map((f) => f.code),
    };
  } else if (step.snapshot.value === 'repairing' && type !== 'xstate.init') {
    fields.decision = 'continue';
  }
  return fields;
}

/**
 * The worktree, run directory and transcript of an RPI or crank run: the caller's run directory;
 * else the unfinished run of this kind in the worktree (resumed, unless `fresh` leaves it); else a
 * fresh `<git dir>/loopchart/<kind>/<run id>/`. The transcript is the caller's, else
 * `<run dir>/transcript.jsonl`.
 */
export async function runPaths(
  options: {
    readonly repo: string;
    readonly runDir?: string;
    readonly transcriptPath?: string;
    readonly fresh?: boolean;
  },
  kind: 'rpi' | 'crank',
): Promise<{ worktree: string; runDir: string; transcriptPath: string }> {
  const { worktree, kindDir } = await locateRunHome(resolve(options.repo), kind);
  let runDir: string;
  if (options.runDir) runDir = resolve(options.runDir);
  else {
    const unfinished = await findUnfinishedRun(kindDir);
    if (unfinished !== null && options.fresh) await abandonRun(unfinished);
    runDir =
      unfinished !== null && !options.fresh
        ? unfinished
        : (await createRunDirectory(resolve(options.repo), kind)).path;
  }
  await mkdir(runDir, { recursive: true });
  const transcriptPath = options.transcriptPath
    ? resolve(options.transcriptPath)
    : join(runDir, 'transcript.jsonl');
  return { worktree, runDir, transcriptPath };
}
