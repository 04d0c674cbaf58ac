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
} from '../../machines/rpi.js';
import { InputError, LoopchartError, UsageError } from '../common/errors.js';
import { checkRepairRounds } from '../convergence/repair-budget.js';
import { throwIfAborted } from '../effects/abort.js';
import { createGitPort } from '../effects/git.js';
import { runStageCommand, runValidatorCommand } from '../effects/rpi-commands.js';
import { createRunDirectory } from '../effects/run-directory.js';
import { measureSubject } from '../effects/subject-measure.js';
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

async function runRpi(options: RpiRunnerOptions, repairRounds: number, risky: RiskDeclaration) {
  const { worktree, runDir, transcriptPath } = await runPaths(options, 'rpi');
  const git = createGitPort(worktree);
  const base = options.base ?? (await git.revParseHead());
  const intent = await readIntent(worktree, options);
  // The run's own files are never part of the subject, wherever the caller put them.
  const exclusions = [runDir, transcriptPath]
    .map((path) => relative(worktree, path))
    .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path))
    .map((path) => path.split(sep).join('/'));

  const commonEnv = {
    ...options.env,
    ...(intent.path === null ? {} : { LOOPCHART_INTENT: intent.path }),
    LOOPCHART_RUN_DIR: runDir,
  };
  const roundDir = (round: number) => join(runDir, `round-${round}`);
  const timeout = options.commandTimeoutMs === undefined ? {} : { timeoutMs: options.commandTimeoutMs };
  const actors = {
    plan: fromPromise<PlanOutcome, Record<string, never>>(async ({ signal }) => {
      const identity = { intentRef: intent.ref, acceptanceDigest: intent.digest };
      if (!options.plan) return { planned: true, ...identity };
      const result = await runStageCommand({
        command: options.plan,
        cwd: worktree,
        env: commonEnv,
        logPath: join(runDir, 'plan.log'),
        ...timeout,
        signal,
      });
      return result.done
        ? { planned: true, ...identity }
        : { planned: false, reason: `the plan command returned nothing (${result.detail})` };
    }),
    implement: fromPromise<ImplementOutcome, ImplementRequest>(async ({ input, signal }) => {
      throwIfAborted(signal, 'the implementer');
      const dir = roundDir(input.round);
      await mkdir(dir, { recursive: true });
      const findingsPath = join(dir, 'findings.json');
      await writeFile(findingsPath, `${JSON.stringify(input.openFindings, null, 2)}\n`);
      const result = await runStageCommand({
        command: options.implementer,
        cwd: worktree,
        env: { ...commonEnv, LOOPCHART_ROUND: String(input.round), LOOPCHART_FINDINGS: findingsPath },
        logPath: join(dir, input.round === 0 ? 'implement.log' : 'repair.log'),
        ...timeout,
        signal,
      });
      return { built: result.done, detail: result.done ? null : `the implementer ${result.detail}` };
    }),
    measureSubject: fromPromise<SubjectMeasure, { round: number }>(async () => measure()),
    finalCi: fromPromise<FinalCiOutcome, FinalCiRequest>(async ({ input, signal }) => {
      const commands = options.finalCi ?? [];
      if (commands.length === 0) return { configured: false };
      // The receipt binds to the digests measured right around the run, judged by the machine.
      const digestBefore = (await measure()).digest;
      const results: FinalCiCommandResult[] = [];
      let passed = true;
      for (const [index, command] of commands.entries()) {
        const result = await runStageCommand({
          command,
          cwd: worktree,
          env: { ...commonEnv, LOOPCHART_SUBJECT_DIGEST: input.subjectDigest },
          logPath: join(runDir, 'final-ci', `${index + 1}.log`),
          ...timeout,
          signal,
        });
        results.push({ command, exitCode: result.exitCode, detail: result.detail });
        if (!result.done) {
          passed = false;
          break;
        }
      }
      const digestAfter = (await measure()).digest;
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
  function measure() {
    return measureSubject({
      git,
      base,
      ...(options.roots === undefined ? {} : { roots: options.roots }),
      exclusions,
    });
  }
  async function validate(input: ValidateRequest, command: string, family: string, signal: AbortSignal) {
    return runValidatorCommand({
      command,
      cwd: worktree,
      env: {
        ...commonEnv,
        LOOPCHART_ROUND: String(input.round),
        LOOPCHART_LEG: input.leg,
        LOOPCHART_SUBJECT_DIGEST: input.subjectDigest,
      },
      logPath: join(roundDir(input.round), `validate-${input.leg}.log`),
      defaultFamily: family,
      ...timeout,
      signal,
    });
  }

  const input: RpiInput = { repairRounds, risky, crossFamily: Boolean(options.crossFamily) };
  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'rpi',
    project: projectRpiTranscript,
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
  return { outcome, worktree, runDir, transcriptPath, base };
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
 * The worktree, run directory and transcript of an RPI or crank run: the caller's choices, or a
 * fresh `<git dir>/loopchart/<kind>/<run id>/` holding `transcript.jsonl`.
 */
export async function runPaths(
  options: { readonly repo: string; readonly runDir?: string; readonly transcriptPath?: string },
  kind: 'rpi' | 'crank',
): Promise<{ worktree: string; runDir: string; transcriptPath: string }> {
  const runDirectory = await createRunDirectory(resolve(options.repo), kind);
  const runDir = options.runDir ? resolve(options.runDir) : runDirectory.path;
  await mkdir(runDir, { recursive: true });
  const transcriptPath = options.transcriptPath
    ? resolve(options.transcriptPath)
    : join(runDir, 'transcript.jsonl');
  return { worktree: runDirectory.worktree, runDir, transcriptPath };
}
