/**
 * `loopchart loop`'s host: the loop protocol machine (machines/loop-protocol/) run with real
 * effects over a git worktree. The person gives an entry contract and three shell commands:
 * observe (prints the authoritative source's state, a metric or a JSON line), act (the one
 * bounded action, applied by the sole writer) and verify (the evaluator, exit 0 = pass).
 *
 * The evidence ledger (the run's transcript) lives at the contract's state location: an approved
 * path, or for `task_only` a directory outside the repository. Every actor outcome is in the
 * ledger, so a run killed at any point resumes from it (`runLoopProtocol`'s replay) and ends with
 * the same report. Checkpoints are byte copies of the rollback scope kept beside the ledger;
 * rollback restores them with file operations, never with destructive git recovery. The worktree
 * lock (the loop engine's, src/host/worktree-lock.ts) keeps one mutating writer per checkout.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { execa } from 'execa';
import type {
  ActInput,
  ActOutput,
  CheckpointInput,
  CheckpointResult,
  Choice,
  LoopProtocolOutput,
  LoopProtocolStartEvent,
  Observation,
  ObserveInput,
  RollbackInput,
  RollbackResult,
  Verification,
  VerifyInput,
} from '../../machines/loop-protocol/index.js';
import { InputError } from '../common/errors.js';
import { neutralizeText } from '../common/terminal-text.js';
import { anySignal, signalOption } from '../effects/abort.js';
import { type BaselineFacts, describeCheckout, readBaselineFacts } from '../effects/baseline-facts.js';
import { CheckpointUnavailableError, createCheckpoint, loadCheckpoint } from '../effects/checkpoint.js';
import { runChildCommand } from '../effects/child-process.js';
import { createGitPort } from '../effects/git.js';
import { signalGroup } from '../effects/process-group.js';
import { resolveWorktreeRoot } from '../effects/worktree-root.js';
import { type ContractDesign, designEntryContract } from '../loop-protocol/design-contract.js';
import { type FinalReport, finalReport } from '../loop-protocol/final-report.js';
import { parseTranscript } from '../loop-protocol/transcript.js';
import type { TranscriptRecord } from '../loop-protocol/transcript-record.js';
import { resumePlan, runLoopProtocol } from './loop-protocol-runner.js';
import { withWriterLock } from './writer-lock.js';

/** What `loopchart loop` runs. */
export interface LoopCommandOptions {
  /** The contract file (its path identifies a `task_only` ledger). */
  readonly contractPath: string;
  /** The contract file's text. */
  readonly contractText: string;
  /** Any directory inside the worktree the loop runs in. */
  readonly cwd: string;
  /** Prints the authoritative source's state: a number, or a JSON line `{metric, summary, done}`. */
  readonly observe: string;
  /** The one bounded action of a cycle. */
  readonly act: string;
  /** The evaluator or guard: exit 0 passes. */
  readonly verify: string;
  /** The metric's direction, or null for a loop judged by new observations only. */
  readonly metric?: 'lower' | 'higher' | null;
  /** Success once the metric reaches this value (and the evaluator passes). */
  readonly target?: number | null;
  /** Baseline samples of the metric (default 1: a deterministic metric). */
  readonly samples?: number;
  /** Floor of the metric's tolerance (default 0). */
  readonly tolerance?: number;
  /** Repository-relative paths of the rollback boundary (default the whole worktree). */
  readonly scope?: readonly string[];
  /** A command that prints the external state the loop depends on, recorded at baseline. */
  readonly external?: string | null;
  /** Kill observe, act or verify after this many ms. */
  readonly commandTimeoutMs?: number;
  /** Aborting cancels the loop (the user-cancelled rule) after the running command is stopped. */
  readonly signal?: AbortSignal;
  /** One line per effect, for people (already neutralized). */
  readonly onProgress?: (line: string) => void;
}

/** What {@link runLoopCommand} returns. */
export interface LoopCommandResult {
  /**
   * `stopped`: the loop ran (or had already run) to a stop; `needs-direction`: material fields of
   * the contract are missing; `invalid-contract`: the contract does not parse or check.
   */
  readonly status: 'stopped' | 'needs-direction' | 'invalid-contract';
  readonly design: ContractDesign;
  readonly worktree: string;
  /** The state location: the ledger, the run identity, checkpoints and logs. */
  readonly stateDir: string | null;
  readonly transcriptPath: string | null;
  readonly report: FinalReport | null;
  readonly output: LoopProtocolOutput | null;
  /** The ledger held an interrupted run that this call resumed. */
  readonly resumed: boolean;
  /** The ledger held a finished run: its report was read back, nothing ran. */
  readonly alreadyFinished: boolean;
  readonly baseline: BaselineFacts | null;
}

/** The state location holds the ledger of a different loop. `code` is `loop.ledger-mismatch`. */
export class LedgerMismatchError extends InputError {
  constructor(stateDir: string, differences: readonly string[]) {
    super(
      'loop.ledger-mismatch',
      `the state location ${stateDir} holds the ledger of another loop (${differences.join(', ')} differ); give this loop its own state location or remove that one after reviewing it`,
    );
  }
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

function inside(path: string, directory: string): boolean {
  const rel = relative(directory, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/**
 * Where the ledger of a loop lives: the contract's approved path (relative to the worktree), or
 * for `task_only` a directory outside the repository named by the worktree and the contract file.
 */
export function stateLocationOf(worktree: string, contractPath: string, design: ContractDesign): string {
  const location = design.contract.stateLocation;
  if (location?.kind === 'approved_path') return resolve(worktree, location.path);
  const id = digest(`${worktree}\0${resolve(contractPath)}`).slice(0, 16);
  return join(tmpdir(), 'loopchart-loop', id);
}

/** A number alone on the line, or a JSON object with a numeric `metric`. */
function parseObservation(stdout: string): { metric: number | null; summary: string; done: boolean } {
  const last =
    stdout
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .pop() ?? '';
  if (last.startsWith('{')) {
    try {
      const value = JSON.parse(last) as { metric?: unknown; summary?: unknown; done?: unknown };
      const metric = typeof value.metric === 'number' && Number.isFinite(value.metric) ? value.metric : null;
      const summary = typeof value.summary === 'string' ? value.summary : last;
      return {
        metric,
        summary: neutralizeText(summary, { singleLine: true, maxLength: 200 }),
        done: value.done === true,
      };
    } catch {
      // not JSON: treated as text below
    }
  }
  const metric = /^-?\d+(\.\d+)?$/.test(last) ? Number(last) : null;
  return {
    metric,
    summary: neutralizeText(last || '(no output)', { singleLine: true, maxLength: 200 }),
    done: false,
  };
}

interface RunIdentity {
  readonly version: 1;
  readonly contract: string;
  readonly observe: string;
  readonly act: string;
  readonly verify: string;
  readonly metric: string | null;
  readonly target: number | null;
  readonly samples: number;
  readonly tolerance: number;
  readonly scope: readonly string[];
  readonly external: string | null;
}

/** The baseline facts the ledger's START recorded (a resumed run reports the original ones). */
function recordedBaseline(records: readonly TranscriptRecord[]): BaselineFacts | null {
  const start = records.find((record) => record.event === 'START');
  return (start?.data as { baseline?: BaselineFacts } | undefined)?.baseline ?? null;
}

async function readLedger(path: string): Promise<readonly TranscriptRecord[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = parseTranscript(text);
  const lines = text.split('\n');
  const lastLine = lines[lines.length - 1] === '' ? lines.length - 1 : lines.length;
  const bad = parsed.findings.filter((f) => f.code.endsWith('not-json') || f.code.endsWith('record-invalid'));
  // A kill while a line was being appended leaves that last line cut: it is dropped, and only it.
  if (bad.length === 1 && bad[0]?.line === lastLine && !text.endsWith('\n')) {
    await writeFile(path, `${lines.slice(0, lastLine - 1).join('\n')}\n`);
    return parsed.records;
  }
  if (bad.length > 0)
    throw new InputError('loop.ledger-malformed', `the ledger ${path} is not a loop transcript`, bad);
  return parsed.records;
}

/**
 * Runs (or resumes) a loop.
 *
 * @param options the contract, the commands and the run's settings
 * @returns the design, and for a loop that ran, its ledger and final report
 * @throws InputError for a worktree that is not git, a state location inside the rollback scope,
 *   another loop's ledger at the state location, a held worktree lock or a malformed ledger
 */
export async function runLoopCommand(options: LoopCommandOptions): Promise<LoopCommandResult> {
  const worktree = await resolveWorktreeRoot(options.cwd);
  const git = createGitPort(worktree);
  const facts = await readBaselineFacts(git, options.external ?? null);
  const design = designEntryContract(options.contractText, { checkout: describeCheckout(facts) });
  const none = {
    design,
    worktree,
    stateDir: null,
    transcriptPath: null,
    report: null,
    output: null,
    resumed: false,
    alreadyFinished: false,
    baseline: facts,
  };
  if (design.status === 'invalid') return { ...none, status: 'invalid-contract' };
  if (design.status === 'needs-direction') return { ...none, status: 'needs-direction' };

  const scope = [...(options.scope ?? ['.'])];
  const stateDir = stateLocationOf(worktree, options.contractPath, design);
  for (const path of scope)
    if (inside(stateDir, resolve(worktree, path)))
      throw new InputError(
        'loop.state-inside-scope',
        `the state location ${stateDir} is inside the rollback scope "${path}": a rollback would erase the ledger; approve a path outside the scope`,
      );
  return withWriterLock(worktree, () =>
    runUnderLock(options, { worktree, git, facts, design, scope, stateDir }),
  );
}

async function runUnderLock(
  options: LoopCommandOptions,
  run: {
    worktree: string;
    git: ReturnType<typeof createGitPort>;
    facts: BaselineFacts;
    design: ContractDesign;
    scope: string[];
    stateDir: string;
  },
): Promise<LoopCommandResult> {
  const { worktree, design, scope, stateDir } = run;
  const transcriptPath = join(stateDir, 'ledger.jsonl');
  const identityPath = join(stateDir, 'run.json');
  const identity: RunIdentity = {
    version: 1,
    contract: digest(options.contractText),
    observe: options.observe,
    act: options.act,
    verify: options.verify,
    metric: options.metric ?? null,
    target: options.target ?? null,
    samples: options.samples ?? 1,
    tolerance: options.tolerance ?? 0,
    scope,
    external: options.external ?? null,
  };
  await mkdir(stateDir, { recursive: true });
  const previous = await readFile(identityPath, 'utf8').then(
    (text) => JSON.parse(text) as RunIdentity,
    () => null,
  );
  if (previous !== null) {
    const differences = (Object.keys(identity) as (keyof RunIdentity)[]).filter(
      (key) => JSON.stringify(previous[key]) !== JSON.stringify(identity[key]),
    );
    if (differences.length > 0) throw new LedgerMismatchError(stateDir, differences);
  } else await writeFile(identityPath, `${JSON.stringify(identity, null, 2)}\n`);

  const records = await readLedger(transcriptPath);
  const plan = records.length > 0 ? resumePlan(records) : null;
  const base = {
    design,
    worktree,
    stateDir,
    transcriptPath,
    baseline: run.facts,
  };
  if (plan?.finished)
    return {
      ...base,
      status: 'stopped',
      report: finalReport(records),
      output: null,
      resumed: false,
      alreadyFinished: true,
      baseline: recordedBaseline(records) ?? run.facts,
    };

  const progress = options.onProgress ?? (() => {});
  const logDir = join(stateDir, 'logs');
  const checkpointDir = (id: string) => join(stateDir, 'checkpoints', id);
  // The last checkpoint the ledger confirmed: the rollback boundary.
  let current: string | null = null;
  for (const outcome of plan?.outcomes ?? [])
    if (outcome.actor === 'checkpoint' && 'output' in outcome) {
      const result = outcome.output as CheckpointResult;
      if (result.ok) current = result.checkpoint;
    }
  // A run killed while acting left part of an action in the scope: those changes are the loop's
  // own (the ledger says the action started after the last checkpoint), so they are restored away
  // before the action runs again.
  let restoreBeforeAct =
    plan !== null &&
    typeof plan.lastState === 'object' &&
    (plan.lastState as { cycle?: unknown }).cycle === 'acting';
  let cycleStartedAt = Date.now();
  const timeout =
    options.commandTimeoutMs === undefined ? {} : { overallTimeoutMs: options.commandTimeoutMs };
  // The run's signal (the user cancelled) and the actor's own (XState aborts it when the actor
  // stops) both kill the process group of the command in flight.
  const signal = (actorSignal?: AbortSignal) => signalOption(anySignal(options.signal, actorSignal));
  const env = (cycle: number) => ({
    LOOPCHART_CYCLE: String(cycle),
    LOOPCHART_LEDGER: transcriptPath,
    LOOPCHART_STATE_DIR: stateDir,
  });

  async function observeOnce(cycle: number, actorSignal?: AbortSignal) {
    const stop = anySignal(options.signal, actorSignal);
    const subprocess = execa('/bin/sh', ['-c', options.observe], {
      cwd: worktree,
      env: env(cycle),
      extendEnv: true,
      reject: false,
      stdin: 'ignore',
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
      detached: true,
      ...(options.commandTimeoutMs === undefined ? {} : { timeout: options.commandTimeoutMs }),
    });
    // The command leads its own group: an abort kills everything it started, not only the shell.
    const killGroup = () => {
      if (subprocess.pid === undefined) return;
      try {
        signalGroup(subprocess.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    stop?.addEventListener('abort', killGroup, { once: true });
    if (stop?.aborted) killGroup();
    const result = await subprocess.finally(() => stop?.removeEventListener('abort', killGroup));
    const stdout = String(result.stdout ?? '');
    return { exitCode: result.exitCode ?? null, stdout, ...parseObservation(stdout) };
  }

  async function observe(input: ObserveInput, actorSignal?: AbortSignal): Promise<Observation> {
    if (input.purpose === 'cycle') cycleStartedAt = Date.now();
    const seen = await observeOnce(input.cycle, actorSignal);
    const fingerprint = digest(seen.stdout.trim()).slice(0, 16);
    progress(`cycle ${input.cycle}: observe -> ${seen.summary}`);
    if (seen.exitCode !== 0)
      return {
        available: false,
        summary: `the observe command exited ${seen.exitCode ?? 'by a signal'}: ${seen.summary}`,
        metric: null,
        fingerprint,
        userChangesOverlap: false,
      };
    let overlap: string[] = [];
    if (input.purpose === 'cycle' && current !== null)
      overlap = (await (await loadCheckpoint(checkpointDir(current))).diff()).map((d) => d.path);
    return {
      available: true,
      summary:
        overlap.length > 0
          ? `changes the loop did not make inside its rollback boundary: ${neutralizeText(overlap.slice(0, 10).join(', '), { singleLine: true })}`
          : seen.summary,
      metric: seen.metric,
      fingerprint,
      userChangesOverlap: overlap.length > 0,
    };
  }

  async function choose(): Promise<Choice> {
    return {
      action: { kind: 'action', summary: `run the act command: ${options.act}` },
      reason: 'the contract names one bounded action, the act command',
      needsBroaderScope: false,
      pivotAvailable: false,
      permittedActionRemains: true,
      crossTurn: false,
    };
  }

  async function act(input: ActInput, actorSignal?: AbortSignal): Promise<ActOutput> {
    if (restoreBeforeAct && current !== null) {
      const report = await (await loadCheckpoint(checkpointDir(current))).restore();
      if (!report.restored)
        throw new Error(
          `the interrupted action could not be restored away: ${report.error ?? 'a difference remains'}`,
        );
      progress(`cycle ${input.cycle}: restored the interrupted action's changes to ${current}`);
    }
    restoreBeforeAct = false;
    const started = Date.now();
    const usagePath = join(logDir, `cycle-${input.cycle}-usage.json`);
    await rm(usagePath, { force: true });
    const result = await runChildCommand({
      command: options.act,
      cwd: worktree,
      env: { ...env(input.cycle), LOOPCHART_USAGE: usagePath },
      logPath: join(logDir, `cycle-${input.cycle}-act.log`),
      ...timeout,
      ...signal(actorSignal),
    });
    const usage = await readFile(usagePath, 'utf8').then(
      (text) => JSON.parse(text) as { tokens?: unknown; cost?: unknown },
      () => ({}) as { tokens?: unknown; cost?: unknown },
    );
    const tail = neutralizeText(result.outputTail.trim(), { maxLength: 2000 });
    progress(`cycle ${input.cycle}: act -> exit ${result.exitCode ?? result.outcome}`);
    if (result.exitCode !== 0)
      throw new Error(
        `the act command ended with ${result.exitCode === null ? result.outcome : `exit ${result.exitCode}`}: ${tail}`,
      );
    return {
      evidence: [`act \`${options.act}\` exit 0`],
      elapsedMs: Date.now() - Math.min(cycleStartedAt, started),
      tokens: typeof usage.tokens === 'number' && usage.tokens >= 0 ? usage.tokens : 0,
      cost: typeof usage.cost === 'number' && usage.cost >= 0 ? usage.cost : 0,
    };
  }

  async function verify(input: VerifyInput, actorSignal?: AbortSignal): Promise<Verification> {
    const result = await runChildCommand({
      command: options.verify,
      cwd: worktree,
      env: env(input.cycle),
      logPath: join(logDir, `cycle-${input.cycle}-verify.log`),
      ...timeout,
      ...signal(actorSignal),
    });
    if (result.outcome === 'spawn-error')
      throw new Error(`the verify command could not start: ${result.error ?? ''}`);
    const tail = neutralizeText(result.outputTail.trim(), { maxLength: 2000 });
    const passed = result.exitCode === 0;
    progress(
      `cycle ${input.cycle}: verify -> ${passed ? 'pass' : `fail (exit ${result.exitCode ?? result.outcome})`}`,
    );
    const evidence = [`verify \`${options.verify}\` exit ${result.exitCode ?? result.outcome}`];
    if (!passed)
      return {
        verdict: 'fail',
        detail: tail === '' ? `exit ${result.exitCode ?? result.outcome}` : tail,
        evidence,
        successEvidence: [],
        terminalFailureEvidence: [],
        claim: {},
        errorFingerprint: digest(tail).slice(0, 16),
      };
    // The evaluator passed: observe the same source state again to measure what the action did.
    const after = await observeOnce(input.cycle, actorSignal);
    const direction = options.metric ?? null;
    const target = options.target ?? null;
    const reached =
      after.exitCode === 0 &&
      (after.done ||
        (target !== null &&
          after.metric !== null &&
          (direction === 'higher' ? after.metric >= target : after.metric <= target)));
    evidence.push(`observe after the action: ${after.summary}`);
    return {
      verdict: 'pass',
      detail: null,
      evidence,
      successEvidence: reached
        ? [`the evaluator passes and the source reports the outcome reached: ${after.summary}`]
        : [],
      terminalFailureEvidence: [],
      claim:
        after.exitCode === 0 && after.metric !== null && direction !== null ? { metric: after.metric } : {},
      errorFingerprint: null,
    };
  }

  async function checkpoint(input: CheckpointInput): Promise<CheckpointResult> {
    const id = `checkpoint-${input.cycle}`;
    await rm(checkpointDir(id), { recursive: true, force: true });
    try {
      await createCheckpoint({ worktree, scope, storeDir: checkpointDir(id) });
    } catch (error) {
      if (error instanceof CheckpointUnavailableError || error instanceof InputError)
        return { ok: false, checkpoint: null, reason: error.message };
      throw error;
    }
    // Older checkpoints are dropped only once a newer one exists beside the current one.
    const keep = new Set([id, current]);
    for (const name of await readdir(join(stateDir, 'checkpoints')).catch(() => []))
      if (!keep.has(name)) await rm(checkpointDir(name), { recursive: true, force: true });
    current = id;
    progress(`cycle ${input.cycle}: checkpoint ${id} (${input.purpose})`);
    return { ok: true, checkpoint: id, reason: null };
  }

  async function rollback(input: RollbackInput): Promise<RollbackResult> {
    const id = input.checkpoint ?? current;
    if (id === null) return { restored: false, detail: 'no checkpoint to restore' };
    const report = await (await loadCheckpoint(checkpointDir(id))).restore();
    progress(`cycle ${input.cycle}: rollback to ${id} -> ${report.restored ? 'restored' : 'FAILED'}`);
    return {
      restored: report.restored,
      detail: report.restored
        ? `restored ${report.changed.length} path(s) to ${id}`
        : `${report.error ?? 'a difference remains'}: ${report.remaining.map((d) => `${d.path} (${d.change})`).join(', ')}`,
    };
  }

  const direction = options.metric ?? null;
  const start: Omit<LoopProtocolStartEvent, 'type'> = {
    contract: design.contract,
    facts: { checkout: describeCheckout(run.facts) },
    metric:
      direction === null
        ? null
        : {
            direction: direction === 'lower' ? 'lower-is-better' : 'higher-is-better',
            minSamples: options.samples ?? 1,
            minimumTolerance: options.tolerance ?? 0,
          },
  };
  const result = await runLoopProtocol({
    start,
    effects: { observe, choose, act, verify, checkpoint, rollback },
    transcriptPath,
    resume: records,
    startData: { baseline: run.facts as unknown as NonNullable<TranscriptRecord['data']>[string] },
    ...signal(),
  });
  const final = await readLedger(transcriptPath);
  return {
    ...base,
    status: 'stopped',
    report: finalReport(final),
    output: result.output,
    resumed: records.length > 0,
    alreadyFinished: false,
    baseline: recordedBaseline(final) ?? run.facts,
  };
}
