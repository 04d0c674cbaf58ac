/**
 * Runs crank against a real worktree: the crank statechart, whose `runLane` actor runs the RPI
 * runner once per lane (with the lane as its intent and the lane's write scope and regen surfaces
 * as the subject's roots) and whose `runAcceptance` actor runs the wave acceptance as a gate set.
 * Every lane and the wave write their own JSONL transcripts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type AcceptanceResult,
  type CrankContext,
  crankMachine,
  type LaneRequest,
  type LaneReturn,
  laneIdOfEvent,
  type WaveEvidence,
} from '../../machines/crank.js';
import type { RiskDeclaration } from '../../machines/rpi/index.js';
import { UsageError } from '../common/errors.js';
import { scopePrefix, WHOLE_REPOSITORY } from '../crank/scope.js';
import type { Lane, Wave } from '../crank/wave.js';
import { parseWave } from '../crank/wave-input.js';
import { throwIfAborted } from '../effects/abort.js';
import { runDurableCommand } from '../effects/durable-command.js';
import { createGitPort } from '../effects/git.js';
import { measureSubject } from '../effects/subject-measure.js';
import { createRpiRunner, RunAbortedError, resumeTranscript, runPaths } from './rpi-runner.js';
import { openStepJournal, ResumeRefusedError, readStepJournal, type WorktreeFacts } from './step-journal.js';
import { createTranscriptRecorder, type TranscriptFields, type TranscriptStep } from './transcript.js';
import { withWriterLock } from './writer-lock.js';

/** What a host declares for one crank run. The repair bound comes from the wave, never from here. */
export interface CrankRunnerOptions {
  /** A directory inside the worktree. */
  readonly repo: string;
  /** The caller's wave (untrusted JSON, checked with `parseWave`). */
  readonly wave: unknown;
  /** The implementer every lane's RPI runs (it reads LOOPCHART_LANE and LOOPCHART_INTENT). */
  readonly implementer: string;
  /** The fresh validator every lane's RPI runs. */
  readonly validator: string;
  readonly crossFamily?: string | null;
  readonly plan?: string | null;
  /** Risk declaration for every lane (default `auto`). */
  readonly risky?: RiskDeclaration;
  /** The wave's directory; default a fresh one under `<git dir>/loopchart/crank/`. */
  readonly runDir?: string;
  /** The wave's transcript; default `<run dir>/transcript.jsonl`. */
  readonly transcriptPath?: string;
  /** Extra environment for every command. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill any command (a lane's Plan, implementer or validator, an acceptance command) after this many ms (default: no limit). */
  readonly commandTimeoutMs?: number;
  /** Called with one line per lane start and return, for people. */
  readonly onProgress?: (line: string) => void;
  readonly now?: () => Date;
  /**
   * Aborting stops the wave: the statechart's actor is stopped, which stops the running lane's RPI
   * (its command in flight is killed) or the acceptance command, and `run()` rejects with
   * `RunAbortedError`.
   */
  readonly signal?: AbortSignal;
  /** Leave the worktree's unfinished wave (kept, marked abandoned) and start a new one. */
  readonly fresh?: boolean;
  /** Keep the finished wave resumable until `markReported()` (see `RpiRunnerOptions.holdReport`). */
  readonly holdReport?: boolean;
  /** Called after every durable step record and every command's end, the lanes' included. */
  readonly onSideEffect?: (name: string, count: number) => void;
  /**
   * Runs a lane somewhere else instead of in this worktree (the fleet: each lane ran on a worker,
   * on its own branch, and this returns what it returned). Its return is journaled like a local
   * lane's. Default: {@link runWaveLane} in this worktree.
   */
  readonly runLane?: (request: LaneRequest, signal: AbortSignal) => Promise<LaneReturn>;
}

/** What {@link runWaveLane} needs: the wave's commands and where the lane runs. */
export interface WaveLaneOptions
  extends Pick<
    CrankRunnerOptions,
    | 'implementer'
    | 'validator'
    | 'crossFamily'
    | 'plan'
    | 'risky'
    | 'env'
    | 'commandTimeoutMs'
    | 'onProgress'
    | 'now'
    | 'signal'
    | 'onSideEffect'
  > {
  /** The worktree's top level. */
  readonly worktree: string;
  /** The lane's own directory: its intent, its RPI's journal, logs and transcript. */
  readonly laneDir: string;
  readonly lane: Lane;
  /** The wave's `repair_rounds`. */
  readonly repairRounds: number;
  /** The revision the lane measures its changes against (HEAD when the wave started). */
  readonly base: string;
  /** Whether the caller holds the worktree's writer lock (the local wave does, for its lanes). */
  readonly writerLockHeld: boolean;
  /**
   * Called with the lane's return before its RPI is marked reported (see
   * `RpiRunnerOptions.holdReport`): a kill before it returns re-delivers the same return on the
   * next call instead of starting the lane's RPI over. The fleet pushes the lane's branch here.
   */
  readonly beforeReported?: (laneReturn: LaneReturn) => Promise<void>;
}

/** The name of a lane's directory under the wave's `lanes/`: its position and its id. */
export function laneDirName(wave: Wave, lane: Lane): string {
  return `${wave.lanes.indexOf(lane) + 1}-${lane.id.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/**
 * Runs one lane of a wave: its RPI, with the lane (as JSON) as the intent, `lane:<id>` as the
 * intent reference, the lane's scope and regen surfaces as the subject's roots and
 * `LOOPCHART_LANE` set. The lane's RPI keeps its own journal in `laneDir`, so a lane killed
 * mid-way resumes there. What the local wave runs per lane, and what a fleet worker runs for one.
 */
export async function runWaveLane(options: WaveLaneOptions): Promise<LaneReturn> {
  const { lane, laneDir: dir } = options;
  const progress = options.onProgress ?? (() => {});
  await mkdir(dir, { recursive: true });
  // The lane is its RPI's intent; its bytes give the lane's acceptance digest.
  const intentPath = join(dir, 'intent.json');
  await writeFile(
    intentPath,
    `${JSON.stringify(
      {
        id: lane.id,
        scope: lane.scope,
        brief: lane.brief,
        acceptance: lane.acceptance,
        regen_surfaces: lane.regenSurfaces,
      },
      null,
      2,
    )}\n`,
  );
  progress(`crank: lane ${lane.id} started`);
  const result = await createRpiRunner({
    repo: options.worktree,
    implementer: options.implementer,
    validator: options.validator,
    crossFamily: options.crossFamily ?? null,
    plan: options.plan ?? null,
    intentFile: intentPath,
    intentRef: `lane:${lane.id}`,
    repairRounds: options.repairRounds,
    risky: options.risky ?? 'auto',
    roots: laneSubjectRoots(lane),
    base: options.base,
    runDir: dir,
    writerLockHeld: options.writerLockHeld,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    env: { ...options.env, LOOPCHART_LANE: lane.id },
    ...(options.onSideEffect === undefined ? {} : { onSideEffect: options.onSideEffect }),
    ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    holdReport: true,
  }).run();
  const { outcome, transcriptPath: laneTranscript } = result;
  progress(`crank: lane ${lane.id} returned ${outcome.report?.status ?? outcome.terminal}`);
  const laneReturn: LaneReturn = {
    terminal: outcome.terminal,
    status: outcome.report?.status ?? null,
    stopReason: outcome.stopReason,
    openFindings: outcome.openFindings,
    subjectDigest: outcome.report?.subject_manifest_digest ?? null,
    report: outcome.report,
    error:
      outcome.report !== null
        ? null
        : {
            code: outcome.failure?.code ?? 'rpi.round-rejected',
            message:
              outcome.failure?.message ?? outcome.rejection.map((f) => `${f.reason} (${f.code})`).join('; '),
          },
    transcript: laneTranscript,
  };
  await options.beforeReported?.(laneReturn);
  await result.markReported();
  return laneReturn;
}

/**
 * The exit code of a finished wave, as `loopchart crank` returns it: 1 when the acceptance could
 * not run, 0 when every lane is PASS and the acceptance passed, else 4.
 */
export function crankExitCode(evidence: WaveEvidence, terminal: CrankRunResult['terminal']): number {
  if (terminal === 'acceptance_failed') return 1;
  const lanesPass = evidence.lanes.every((lane) => lane.status === 'PASS');
  return lanesPass && evidence.acceptance?.passed === true ? 0 : 4;
}

/** What a finished crank run returns. */
export interface CrankRunResult {
  readonly evidence: WaveEvidence;
  /** How the statechart ended: `evidenced`, or `acceptance_failed` when the acceptance could not run. */
  readonly terminal: 'evidenced' | 'acceptance_failed';
  readonly worktree: string;
  readonly runDir: string;
  readonly transcriptPath: string;
  /** The revision every lane measured its changes against (HEAD when the wave started). */
  readonly base: string;
  /** Whether this run continued an unfinished wave from its step journal. */
  readonly resumed: boolean;
  /** Records that the evidence reached the caller (see `holdReport`). */
  markReported(): Promise<void>;
}

/** A prepared crank run. */
export interface CrankRunner {
  /** The checked wave. */
  readonly wave: Wave;
  run(): Promise<CrankRunResult>;
}

/**
 * The roots of a lane's subject: the literal prefixes of its write scope and regen surfaces, so a
 * lane measures only what it may change and a parallel lane's edits never move its digest.
 *
 * @param lane a checked lane
 * @returns unique repository-relative roots, or `['.']` when any entry reaches the whole repository
 */
export function laneSubjectRoots(lane: Lane): string[] {
  const prefixes = [...lane.scope, ...(lane.regenSurfaces ?? [])].map(scopePrefix);
  if (prefixes.includes(WHOLE_REPOSITORY)) return [WHOLE_REPOSITORY];
  return [...new Set(prefixes)];
}

/**
 * Checks the wave and the options and prepares a run. Nothing runs until `run()` is called.
 *
 * @param options the wave, the commands, paths
 * @throws WaveUnrunnableError for an unrunnable wave; UsageError for a blank command
 */
export function createCrankRunner(options: CrankRunnerOptions): CrankRunner {
  const wave = parseWave(options.wave);
  for (const [name, value] of [
    ['implementer', options.implementer],
    ['validator', options.validator],
  ] as const) {
    if (typeof value !== 'string' || value.trim() === '')
      throw new UsageError(`crank: --${name} is required`);
  }
  // The wave holds the checkout's writer lock; its lanes run under it (disjoint write scopes).
  return { wave, run: () => withWriterLock(options.repo, () => runCrank(options, wave)) };
}

async function runCrank(options: CrankRunnerOptions, wave: Wave): Promise<CrankRunResult> {
  const { worktree, runDir, transcriptPath } = await runPaths(options, 'crank');
  const git = createGitPort(worktree);
  const recorded = await readStepJournal(runDir);
  // A resumed wave keeps the base its lanes measure against.
  const base = recorded?.start.head ?? (await git.revParseHead());
  const progress = options.onProgress ?? (() => {});
  const exclusions = [runDir, transcriptPath]
    .map((path) => relative(worktree, path))
    .filter((path) => path !== '' && !path.startsWith('..') && !isAbsolute(path))
    .map((path) => path.split(sep).join('/'))
    // Git never lists its own directory; naming a run directory there would only make the
    // manifest (and so the digest) depend on the run's id.
    .filter((path) => path !== '.git' && !path.startsWith('.git/'));
  // The wave's facts: HEAD and the whole worktree, checked on resume when no lane is in flight.
  const facts = async (): Promise<WorktreeFacts> => ({
    head: await git.revParseHead(),
    digest: (await measureSubject({ git, base, exclusions })).digest,
  });
  let sideEffects = 0;
  const sideEffect = (name: string) => options.onSideEffect?.(name, ++sideEffects);
  const journal = await openStepJournal({
    runDir,
    kind: 'crank',
    fingerprint: {
      wave,
      implementer: options.implementer,
      validator: options.validator,
      crossFamily: options.crossFamily ?? null,
      plan: options.plan ?? null,
      risky: options.risky ?? 'auto',
      transcriptPath,
      commandTimeoutMs: options.commandTimeoutMs ?? null,
      env: options.env ?? {},
    },
    facts,
    onSideEffect: sideEffect,
  });
  const result = (evidence: WaveEvidence, terminal: CrankRunResult['terminal']): CrankRunResult => ({
    evidence,
    terminal,
    worktree,
    runDir,
    transcriptPath,
    base,
    resumed: journal.resumed,
    markReported: () => journal.markReported(),
  });
  const settle = async (done: CrankRunResult) => {
    if (!options.holdReport) await done.markReported();
    return done;
  };
  if (journal.finished !== null) {
    const finished = journal.finished as { evidence: WaveEvidence; terminal: CrankRunResult['terminal'] };
    return settle(result(finished.evidence, finished.terminal));
  }

  // Lanes that returned before the kill are replayed in the order they returned, and before any
  // lane still running returns, so the statechart starts lanes in the same order as before.
  const replayOrder = journal.state.steps
    .filter((step) => step.key.startsWith('lane:') && step.state === 'done')
    .map((step) => step.key.slice('lane:'.length));
  const delivered = new Map<string, { promise: Promise<void>; resolve: () => void }>();
  for (const id of replayOrder) {
    let resolve = () => {};
    const promise = new Promise<void>((r) => {
      resolve = r;
    });
    delivered.set(id, { promise, resolve });
  }
  const turn = (laneId: string) => {
    const index = replayOrder.indexOf(laneId);
    const before = index >= 0 ? replayOrder.slice(0, index) : replayOrder;
    return Promise.all(before.map((id) => delivered.get(id)?.promise));
  };

  let refuse: (error: ResumeRefusedError) => void = () => {};
  const refused = new Promise<never>((_, reject) => {
    refuse = (error) => {
      actor.stop();
      reject(error);
    };
  });
  refused.catch(() => undefined);

  const laneDir = (lane: Lane) => join(runDir, 'lanes', laneDirName(wave, lane));
  const runLane = (input: LaneRequest, signal: AbortSignal): Promise<LaneReturn> =>
    options.runLane !== undefined
      ? options.runLane(input, signal)
      : runWaveLane({
          ...options,
          worktree,
          laneDir: laneDir(input.lane),
          lane: input.lane,
          repairRounds: input.repairRounds,
          base,
          writerLockHeld: true,
          signal,
          onSideEffect: (name) => sideEffect(`lane ${input.lane.id}: ${name}`),
        });
  const actors = {
    runLane: fromPromise<LaneReturn, LaneRequest>(async ({ input, signal }) => {
      throwIfAborted(signal, `lane ${input.lane.id}`);
      // A lane that returned is never run again: its recorded return is replayed.
      const laneReturn = await journal
        .effect(
          `lane:${input.lane.id}`,
          () => runLane(input, signal),
          () => facts(),
          true,
        )
        .catch((error: unknown) => {
          // A lane whose durable state disagrees with the worktree stops the whole wave (exit 2).
          if (error instanceof ResumeRefusedError) refuse(error);
          throw error;
        });
      await turn(input.lane.id);
      return laneReturn;
    }),
    runAcceptance: fromPromise<AcceptanceResult, { commands: readonly string[] }>(
      async ({ input, signal }) => {
        throwIfAborted(signal, 'the wave acceptance');
        progress('crank: wave acceptance');
        const logDir = join(runDir, 'acceptance');
        for (const [i, command] of input.commands.entries()) {
          const logPath = join(logDir, `gate-${i + 1}.log`);
          // Each acceptance command runs once; one that ended while the wave was dead is not rerun.
          const end = await journal.command(`acceptance:${i + 1}`, {
            dir: join(runDir, 'steps'),
            writes: true,
            logPath,
            facts,
            launch: async ({ exitPath, onSpawned }) => {
              await mkdir(logDir, { recursive: true });
              await writeFile(logPath, '');
              return runDurableCommand({
                command,
                cwd: worktree,
                logPath,
                exitPath,
                onSpawned,
                signal,
                ...(options.env === undefined ? {} : { env: options.env }),
                ...(options.commandTimeoutMs === undefined ? {} : { timeoutMs: options.commandTimeoutMs }),
              });
            },
            interpret: async (end) => ({
              exitCode: end.exitCode ?? shellExitCode(end.run?.signal ?? null),
              tail:
                end.run?.outcome === 'spawn-error' && end.outputTail === ''
                  ? (end.run.error ?? '')
                  : end.outputTail,
              passed: end.exitCode === 0 && end.run?.outcome !== 'timed-out',
            }),
          });
          if (!end.passed)
            return {
              passed: false,
              commands: [...input.commands],
              failure: { command, exitCode: end.exitCode, logPath, tail: end.tail },
            };
        }
        return { passed: true, commands: [...input.commands], failure: null };
      },
    ),
  };

  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'crank',
    project: projectCrankTranscript,
    alreadyWritten: journal.resumed ? await resumeTranscript(transcriptPath) : 0,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(crankMachine.provide({ actors }), { input: { wave }, inspect: recorder.inspect });
  actor.subscribe({
    next: (snapshot) => {
      for (const id of snapshot.context.returned) delivered.get(id)?.resolve();
    },
    error: () => {},
  });
  if (options.signal?.aborted) throw new RunAbortedError('crank');
  const stopOnAbort = () => actor.stop();
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  actor.start();
  const evidence = (await Promise.race([toPromise(actor), refused]).finally(() =>
    options.signal?.removeEventListener('abort', stopOnAbort),
  )) as WaveEvidence;
  if (options.signal?.aborted) throw new RunAbortedError('crank');
  const terminal = actor.getSnapshot().value as CrankRunResult['terminal'];
  await writeFile(join(runDir, 'evidence.json'), `${JSON.stringify(evidence, null, 2)}\n`);
  await journal.finish({ evidence, terminal });
  return settle(result(evidence, terminal));
}

/** The exit code a shell reports for a command ended by `signal` (127 when it never ran). */
function shellExitCode(signal: string | null): number {
  const number = signal === null ? undefined : constants.signals[signal as NodeJS.Signals];
  return number === undefined ? 127 : 128 + number;
}

/**
 * The transcript fields of one crank event: each lane's return as evidence, the acceptance as the
 * verifier result, and on the final record the terminal check. Crank mints no verdict: the check
 * is a success only when every lane's own report is PASS and the acceptance passed.
 *
 * @param step the processed event and the snapshot after it
 */
export function projectCrankTranscript(step: TranscriptStep): TranscriptFields {
  const context = step.snapshot.context as CrankContext;
  const fields: { -readonly [K in keyof TranscriptFields]: TranscriptFields[K] } = {
    cycle: context.returned.length,
    data: { started: [...context.started], returned: [...context.returned] },
  };
  const laneId = laneIdOfEvent(step.event.type);
  if (laneId !== null) {
    const evidence = context.evidence[laneId];
    fields.evidence = [
      `lane ${laneId}: ${evidence?.status ?? evidence?.error?.code ?? 'no status'}${
        evidence?.stopReason ? ` (${evidence.stopReason})` : ''
      }`,
    ];
  }
  if (context.acceptance !== null) {
    fields.verifierResult = {
      evaluator: 'wave acceptance',
      verdict: context.acceptance.passed ? 'pass' : 'fail',
      detail: context.acceptance.failure?.command ?? null,
    };
  }
  if (step.snapshot.status === 'done') {
    const evidence = step.snapshot.output as WaveEvidence;
    const allPass = evidence.lanes.every((lane) => lane.status === 'PASS');
    fields.decision = 'stop';
    fields.terminalCheck = {
      rule: String(step.snapshot.value),
      success: allPass && evidence.acceptance?.passed === true,
      reason: `${evidence.lanes.length} lanes returned; wave acceptance ${
        evidence.acceptance === null ? 'not run' : evidence.acceptance.passed ? 'passed' : 'failed'
      }`,
      evidence: evidence.lanes.map((lane) => `lane ${lane.id}: ${lane.status ?? lane.error?.code ?? 'none'}`),
    };
  }
  return fields;
}
