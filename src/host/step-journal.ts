/**
 * The step journal of a resumable run (`loopchart rpi`, `loopchart crank`): every effect the
 * statechart asks for is one step with a stable key (`implement:0`, `validate:1:fresh`,
 * `lane:parser`, …), recorded in `<run dir>/journal.jsonl` before it starts (launch intent, the
 * command's exit record path) and when it ends (its output or its error, and the worktree facts
 * right after it). The statecharts are deterministic over their actors' outputs, so a resumed run
 * creates a fresh actor and replays the recorded outputs: the actor reaches the state it was in,
 * and only the steps that never ended run. A command that ended while its runner was dead is
 * settled from the exit record its wrapper wrote (src/effects/durable-command.ts), never run again.
 *
 * The file lives in the run's directory under the git directory, outside the worktree. It is an
 * append-only run journal (run-journal.ts, shared with `loopchart cyber`): one line per change,
 * flushed to disk before the run goes on; a line cut by a kill is dropped when it is read.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from '../common/describe-value.js';
import { InputError, LoopchartError } from '../common/errors.js';
import { type Finding, formatFindings } from '../common/finding.js';
import { EffectAbortedError } from '../effects/abort.js';
import { canonicalJson } from '../effects/canonical-json.js';
import type { ChildRunResult, SpawnedChild } from '../effects/child-process.js';
import { settleLaunchedCommand } from '../effects/durable-command.js';
import { tailOfFile } from '../effects/output-tail.js';
import { appendJournal, type JournalEntry, readJournal as readJournalLines } from './run-journal.js';

/** The journal's file name inside a run directory. */
export const JOURNAL_FILE = 'journal.jsonl';

/** What the worktree looked like after a step: HEAD and the subject digest (null: not checked). */
export interface WorktreeFacts {
  readonly head: string | null;
  readonly digest: string | null;
}

/** An error a step ended with, as JSON (replayed as an error of the same class and code). */
export interface JournaledError {
  /** `input` for an InputError (CLI exit 2), `loopchart` for another LoopchartError, else `other`. */
  readonly kind: 'input' | 'loopchart' | 'other';
  readonly code: string | null;
  readonly message: string;
  readonly findings: readonly Finding[];
}

/** One step of the journal. */
export interface StepRecord {
  readonly key: string;
  /** The step may change the worktree (a stage command): while it is in flight nothing is checked. */
  readonly writes: boolean;
  /** `launching`: about to start; `launched`: its command was spawned; `done`: it ended. */
  readonly state: 'launching' | 'launched' | 'done';
  /** 1 for the first launch; a command that never ended is launched again as attempt n+1. */
  readonly attempt: number;
  /** The exit record of the attempt's command, when the step runs one. */
  readonly exitPath: string | null;
  readonly pid: number | null;
  readonly startIdentity: string | null;
  readonly result:
    | { readonly ok: true; readonly output: unknown }
    | {
        readonly ok: false;
        readonly error: JournaledError;
      }
    | null;
  readonly facts: WorktreeFacts | null;
}

/** The journal file. */
export interface JournalFile {
  readonly version: 1;
  /** The command (`rpi`, `crank`). */
  readonly kind: string;
  /** Everything the run was started with that decides what it does; a resume must match it. */
  readonly fingerprint: unknown;
  /** The worktree when the run started. */
  readonly start: WorktreeFacts;
  readonly steps: readonly StepRecord[];
  /** The run's outcome once its statechart reached a final state. */
  readonly finished: unknown;
  /** The outcome was handed to the caller (printed): a rerun starts a new run. */
  readonly reported: boolean;
  /** A person started a new run instead (`--fresh`); this one is never resumed. */
  readonly abandoned: boolean;
}

/** Durable state and the worktree disagree, or the command differs from the run it would resume. */
export class ResumeRefusedError extends InputError {}

/** Options of {@link openStepJournal}. */
export interface OpenJournalOptions {
  /** The run directory (created by the caller). */
  readonly runDir: string;
  readonly kind: string;
  readonly fingerprint: unknown;
  /** Reads the worktree's facts now (compared with the journal's on resume). */
  readonly facts: () => Promise<WorktreeFacts>;
  /** Called after every durable write and every command's end (the crash hook's side effects). */
  readonly onSideEffect?: (name: string) => void;
}

/**
 * Opens the journal of a run directory: a new one when there is none, else the recorded run,
 * checked against the command and the worktree.
 *
 * @throws ResumeRefusedError `<kind>.resume-input-changed` when the fingerprint differs,
 *   `<kind>.resume-head-moved` / `<kind>.resume-subject-changed` when nothing that may write is in
 *   flight and HEAD or the subject differs from what the last step recorded
 */
export async function openStepJournal(options: OpenJournalOptions): Promise<StepJournal> {
  const path = join(options.runDir, JOURNAL_FILE);
  const existing = await readJournal(path);
  if (existing === null) {
    const file: JournalFile = {
      version: 1,
      kind: options.kind,
      fingerprint: options.fingerprint,
      start: await options.facts(),
      steps: [],
      finished: null,
      reported: false,
      abandoned: false,
    };
    appendJournal(path, {
      kind: 'run',
      version: 1,
      command: file.kind,
      fingerprint: file.fingerprint,
      start: file.start,
    });
    options.onSideEffect?.('journal created');
    return new StepJournal(path, options, file);
  }
  if (
    existing.kind !== options.kind ||
    canonicalJson(existing.fingerprint as never) !== canonicalJson(options.fingerprint as never)
  ) {
    throw new ResumeRefusedError(
      `${options.kind}.resume-input-changed`,
      `the unfinished ${options.kind} run in ${options.runDir} was started with other options or another input; ` +
        `rerun it with the same command, or pass --fresh to leave it and start a new run (its directory is kept)`,
    );
  }
  const journal = new StepJournal(path, options, existing, true);
  if (existing.finished === null) await journal.checkWorktree();
  return journal;
}

/**
 * The newest run directory of `<kind dir>` whose journal is neither reported nor abandoned.
 *
 * @param kindDir `<git dir>/loopchart/<kind>`
 * @returns its path, or null
 */
export async function findUnfinishedRun(kindDir: string): Promise<string | null> {
  let names: string[];
  try {
    names = (await readdir(kindDir, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return null;
  }
  for (const name of names.sort().reverse()) {
    const journal = await readJournal(join(kindDir, name, JOURNAL_FILE)).catch(() => null);
    if (journal !== null && !journal.reported && !journal.abandoned) return join(kindDir, name);
  }
  return null;
}

/**
 * Marks the unfinished run of a directory abandoned (`--fresh`), keeping every file.
 *
 * @param runDir the run directory
 */
export async function abandonRun(runDir: string): Promise<void> {
  const path = join(runDir, JOURNAL_FILE);
  if ((await readJournal(path)) !== null) appendJournal(path, { kind: 'abandoned' });
}

/**
 * The journal of a run directory, or null when it has none.
 *
 * @param runDir the run directory
 * @throws InputError (`run.journal-unreadable`) when the file is not a step journal
 */
export function readStepJournal(runDir: string): Promise<JournalFile | null> {
  return readJournal(join(runDir, JOURNAL_FILE));
}

async function readJournal(path: string): Promise<JournalFile | null> {
  const entries = await readJournalLines(path);
  if (entries.length === 0) return null;
  const [first, ...rest] = entries;
  if (first?.kind !== 'run' || first.version !== 1)
    throw new InputError('run.journal-unreadable', `${path} is not a loopchart step journal`);
  let file: JournalFile = {
    version: 1,
    kind: String(first.command),
    fingerprint: first.fingerprint,
    start: first.start as WorktreeFacts,
    steps: [],
    finished: null,
    reported: false,
    abandoned: false,
  };
  for (const entry of rest) file = applyEntry(file, entry);
  return file;
}

/** The journal after one more line. */
function applyEntry(file: JournalFile, entry: JournalEntry): JournalFile {
  switch (entry.kind) {
    case 'step': {
      const record = entry.step as StepRecord;
      return { ...file, steps: [...file.steps.filter((step) => step.key !== record.key), record] };
    }
    case 'finished':
      return { ...file, finished: entry.outcome };
    case 'reported':
      return { ...file, reported: true };
    case 'abandoned':
      return { ...file, abandoned: true };
    default:
      return file;
  }
}

/** How a command step's command ended, from the live run or from its wrapper's exit record. */
export interface CommandEnd {
  /** The live run's result; null when the command was settled from its exit record after a crash. */
  readonly run: ChildRunResult | null;
  readonly exitCode: number | null;
  /** The last lines of its log. */
  readonly outputTail: string;
}

/** How a command step launches its command (the journal supplies the exit record and the spawn hook). */
export interface CommandLaunch {
  readonly exitPath: string;
  readonly onSpawned: (child: SpawnedChild) => Promise<void>;
}

/** A run's step journal (see the module comment). */
export class StepJournal {
  private file: JournalFile;

  /** @internal use {@link openStepJournal} */
  constructor(
    private readonly path: string,
    private readonly options: OpenJournalOptions,
    file: JournalFile,
    /** Whether this run continues a recorded one. */
    readonly resumed = false,
  ) {
    this.file = file;
  }

  /** The journal as last written. */
  get state(): JournalFile {
    return this.file;
  }

  /** The step recorded under `key`, if any. */
  step(key: string): StepRecord | undefined {
    return this.file.steps.find((step) => step.key === key);
  }

  /** The recorded outcome, when the statechart already reached a final state. */
  get finished(): unknown {
    return this.file.finished;
  }

  // One line, flushed before the run goes on; parallel steps (crank's lanes) append in turn.
  private async update(name: string, entry: JournalEntry): Promise<void> {
    appendJournal(this.path, entry);
    this.file = applyEntry(this.file, entry);
    this.options.onSideEffect?.(name);
  }

  private put(record: StepRecord, name: string): Promise<void> {
    return this.update(name, { kind: 'step', step: record });
  }

  /** @internal the consistency check of a resumed run */
  async checkWorktree(): Promise<void> {
    // A command that may write is in flight: the worktree is its until it is settled.
    if (this.file.steps.some((step) => step.state !== 'done' && step.writes)) return;
    const done = this.file.steps.filter((step) => step.state === 'done' && step.facts !== null);
    const expected = done.at(-1)?.facts ?? this.file.start;
    const now = await this.options.facts();
    const kind = this.file.kind;
    if (expected.head !== null && now.head !== null && expected.head !== now.head)
      throw new ResumeRefusedError(
        `${kind}.resume-head-moved`,
        `HEAD is ${now.head}, but the unfinished ${kind} run last recorded ${expected.head}; the run cannot prove the new commits are its own (pass --fresh to start a new run)`,
      );
    if (expected.digest !== null && now.digest !== null && expected.digest !== now.digest)
      throw new ResumeRefusedError(
        `${kind}.resume-subject-changed`,
        `the subject changed since the unfinished ${kind} run recorded its last step (digest ${expected.digest}, now ${now.digest}); it will not judge or repair work it cannot prove is its own (pass --fresh to start a new run)`,
      );
  }

  /**
   * A step without a command (a measurement, a lane's whole run): replayed when recorded, else run
   * and recorded.
   *
   * @param key the step's key
   * @param run the effect
   * @param facts the worktree facts to record after it
   */
  async effect<T>(
    key: string,
    run: () => Promise<T>,
    facts: (output: T | undefined) => Promise<WorktreeFacts>,
    writes = false,
  ): Promise<T> {
    const recorded = this.step(key);
    if (recorded?.state === 'done') return replay<T>(recorded);
    if (writes && recorded === undefined) await this.put(blankStep(key, writes, 1, null), `${key} launching`);
    let output: T;
    try {
      output = await run();
    } catch (error) {
      if (notAnEnd(error)) throw error;
      await this.put(
        {
          ...blankStep(key, writes, recorded?.attempt ?? 1, null),
          state: 'done',
          result: { ok: false, error: journaled(error) },
          facts: await facts(undefined).catch(() => null),
        },
        `${key} done`,
      );
      throw error;
    }
    await this.put(
      {
        ...blankStep(key, writes, recorded?.attempt ?? 1, null),
        state: 'done',
        result: { ok: true, output },
        facts: await facts(output),
      },
      `${key} done`,
    );
    return output;
  }

  /**
   * A step that runs one user command under the recording wrapper. Recorded: replayed. Launched by
   * a runner that is gone: waited for while it runs, then its exit record is used; when it never
   * ended, it is launched again (the next attempt). The end is interpreted into the step's output
   * by `interpret` (for a validator, reading its record), which may throw: the error is recorded.
   *
   * @param key the step's key
   * @param options `dir` for the exit records, `writes` whether the command may change the
   *   worktree, `launch` runs the command, `interpret` turns its end into the output, `facts`
   */
  async command<T>(
    key: string,
    options: {
      readonly dir: string;
      readonly writes: boolean;
      readonly logPath: string;
      readonly launch: (launch: CommandLaunch) => Promise<ChildRunResult>;
      readonly interpret: (end: CommandEnd) => Promise<T>;
      readonly facts: () => Promise<WorktreeFacts>;
    },
  ): Promise<T> {
    let recorded = this.step(key);
    if (recorded?.state === 'done') return replay<T>(recorded);
    let end: CommandEnd | null = null;
    let attempt = 1;
    if (recorded !== undefined && recorded.exitPath !== null) {
      const settled = await settleLaunchedCommand({
        exitPath: recorded.exitPath,
        pid: recorded.pid,
        startIdentity: recorded.startIdentity,
      });
      if (settled.ended)
        end = { run: null, exitCode: settled.exitCode, outputTail: await tailOfFile(options.logPath, 20) };
      else attempt = recorded.attempt + 1;
    }
    if (end === null) {
      const exitPath = join(options.dir, `${key.replace(/[^A-Za-z0-9._-]/g, '_')}.${attempt}.exit`);
      recorded = blankStep(key, options.writes, attempt, exitPath);
      await this.put(recorded, `${key} launching`);
      const launching = recorded;
      const run = await options.launch({
        exitPath,
        onSpawned: (child) =>
          this.put(
            { ...launching, state: 'launched', pid: child.pid, startIdentity: child.startIdentity },
            `${key} launched`,
          ),
      });
      if (run.outcome === 'aborted') throw new EffectAbortedError(`the command of step ${key}`);
      end = { run, exitCode: run.exitCode, outputTail: run.outputTail };
      this.options.onSideEffect?.(`${key} ended`);
    }
    const base = this.step(key) ?? blankStep(key, options.writes, attempt, null);
    let output: T;
    try {
      output = await options.interpret(end);
    } catch (error) {
      if (notAnEnd(error)) throw error;
      await this.put(
        {
          ...base,
          state: 'done',
          result: { ok: false, error: journaled(error) },
          facts: await options.facts(),
        },
        `${key} done`,
      );
      throw error;
    }
    await this.put(
      { ...base, state: 'done', result: { ok: true, output }, facts: await options.facts() },
      `${key} done`,
    );
    return output;
  }

  /** Records the run's outcome (the statechart's output). */
  finish(outcome: unknown): Promise<void> {
    return this.update('run finished', { kind: 'finished', outcome });
  }

  /** Records that the outcome reached the caller: a rerun of the same command starts a new run. */
  markReported(): Promise<void> {
    return this.update('run reported', { kind: 'reported' });
  }
}

/**
 * Errors that are not a step's end: the run was stopped (the step is left in flight and resumes),
 * or a nested run refused to resume (the caller must refuse too).
 */
function notAnEnd(error: unknown): boolean {
  return (
    error instanceof EffectAbortedError ||
    error instanceof ResumeRefusedError ||
    (error instanceof LoopchartError && error.code === 'run.stopped')
  );
}

function blankStep(key: string, writes: boolean, attempt: number, exitPath: string | null): StepRecord {
  return {
    key,
    writes,
    state: 'launching',
    attempt,
    exitPath,
    pid: null,
    startIdentity: null,
    result: null,
    facts: null,
  };
}

function replay<T>(record: StepRecord): T {
  const result = record.result;
  if (result === null) throw new Error(`step ${record.key} is done without a result`);
  if (result.ok) return result.output as T;
  const { kind, code, message, findings } = result.error;
  if (kind === 'input') throw new InputError(code ?? 'internal', message, findings);
  if (kind === 'loopchart') throw new LoopchartError(code ?? 'internal', message, findings);
  throw new Error(message);
}

function journaled(error: unknown): JournaledError {
  if (error instanceof LoopchartError) {
    // The message without the findings block the constructor appended (they are kept apart).
    const block = error.findings.length > 0 ? `\n${formatFindings(error.findings)}` : '';
    const message =
      block !== '' && error.message.endsWith(block) ? error.message.slice(0, -block.length) : error.message;
    return {
      kind: error instanceof InputError ? 'input' : 'loopchart',
      code: error.code,
      message,
      findings: [...error.findings],
    };
  }
  return {
    kind: 'other',
    code: null,
    message: describeError(error),
    findings: [],
  };
}
