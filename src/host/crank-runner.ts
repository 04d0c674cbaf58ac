/**
 * Runs crank against a real worktree: the crank statechart, whose `runLane` actor runs the RPI
 * runner once per lane (with the lane as its intent and the lane's write scope and regen surfaces
 * as the subject's roots) and whose `runAcceptance` actor runs the wave acceptance as a gate set.
 * Every lane and the wave write their own JSONL transcripts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
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
import type { RiskDeclaration } from '../../machines/rpi.js';
import { UsageError } from '../common/errors.js';
import { scopePrefix, WHOLE_REPOSITORY } from '../crank/scope.js';
import type { Lane, Wave } from '../crank/wave.js';
import { parseWave } from '../crank/wave-input.js';
import { throwIfAborted } from '../effects/abort.js';
import { runGateSet } from '../effects/gates.js';
import { createGitPort } from '../effects/git.js';
import { createRpiRunner, RunAbortedError, runPaths } from './rpi-runner.js';
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
  const base = await createGitPort(worktree).revParseHead();
  const progress = options.onProgress ?? (() => {});

  const laneDir = (lane: Lane) =>
    join(runDir, 'lanes', `${wave.lanes.indexOf(lane) + 1}-${lane.id.replace(/[^A-Za-z0-9._-]/g, '_')}`);
  const actors = {
    runLane: fromPromise<LaneReturn, LaneRequest>(async ({ input, signal }) => {
      throwIfAborted(signal, `lane ${input.lane.id}`);
      const { lane } = input;
      const dir = laneDir(lane);
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
      const { outcome, transcriptPath: laneTranscript } = await createRpiRunner({
        repo: worktree,
        implementer: options.implementer,
        validator: options.validator,
        crossFamily: options.crossFamily ?? null,
        plan: options.plan ?? null,
        intentFile: intentPath,
        intentRef: `lane:${lane.id}`,
        repairRounds: input.repairRounds,
        risky: options.risky ?? 'auto',
        roots: laneSubjectRoots(lane),
        base,
        runDir: dir,
        writerLockHeld: true,
        signal,
        env: { ...options.env, LOOPCHART_LANE: lane.id },
        ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }),
        ...(options.now === undefined ? {} : { now: options.now }),
      }).run();
      progress(`crank: lane ${lane.id} returned ${outcome.report?.status ?? outcome.terminal}`);
      return {
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
                  outcome.failure?.message ??
                  outcome.rejection.map((f) => `${f.reason} (${f.code})`).join('; '),
              },
        transcript: laneTranscript,
      };
    }),
    runAcceptance: fromPromise<AcceptanceResult, { commands: readonly string[] }>(
      async ({ input, signal }) => {
        throwIfAborted(signal, 'the wave acceptance');
        progress('crank: wave acceptance');
        const result = await runGateSet({
          gates: input.commands.map((command, i) => ({ index: i + 1, name: `acceptance ${i + 1}`, command })),
          cwd: worktree,
          logDir: join(runDir, 'acceptance'),
          signal,
          ...(options.env === undefined ? {} : { env: options.env }),
          ...(options.commandTimeoutMs === undefined ? {} : { timeoutMs: options.commandTimeoutMs }),
        });
        return {
          passed: result.passed,
          commands: [...input.commands],
          failure: result.passed
            ? null
            : {
                command: input.commands[result.index - 1] ?? result.name,
                exitCode: result.exitCode,
                logPath: result.logPath,
                tail: result.tail,
              },
        };
      },
    ),
  };

  const recorder = createTranscriptRecorder({
    path: transcriptPath,
    machine: 'crank',
    project: projectCrankTranscript,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(crankMachine.provide({ actors }), { input: { wave }, inspect: recorder.inspect });
  if (options.signal?.aborted) throw new RunAbortedError('crank');
  const stopOnAbort = () => actor.stop();
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  actor.start();
  const evidence = (await toPromise(actor).finally(() =>
    options.signal?.removeEventListener('abort', stopOnAbort),
  )) as WaveEvidence;
  if (options.signal?.aborted) throw new RunAbortedError('crank');
  const terminal = actor.getSnapshot().value as CrankRunResult['terminal'];
  await writeFile(join(runDir, 'evidence.json'), `${JSON.stringify(evidence, null, 2)}\n`);
  return { evidence, terminal, worktree, runDir, transcriptPath, base };
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
