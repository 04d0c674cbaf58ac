/**
 * The commands RPI runs: Plan and the implementer (stage commands, judged by their exit code) and
 * the validators (which print one verdict record on stdout). All of them are the user's shell
 * commands, so each runs as `/bin/sh -c <command>` through execa with `shell: false`; loopchart
 * never builds a shell string of its own.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';
import { type Finding, finding } from '../common/finding.js';
import { checkRound } from '../convergence/normalize-round.js';
import { validationLegSchema } from '../convergence/schemas.js';
import { EffectAbortedError, signalOption, throwIfAborted } from './abort.js';
import { runChildCommand } from './child-process.js';
import { CommandFailedError } from './command-error.js';
import { lastLines } from './output-tail.js';
import { signalGroup } from './process-group.js';

/** Where and how one command runs. */
export interface RpiCommandOptions {
  /** The user's shell command. */
  readonly command: string;
  /** Working directory (the worktree). */
  readonly cwd: string;
  /** Extra environment on top of this process's (LOOPCHART_ROUND, LOOPCHART_INTENT, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** File that receives the command's output (created with its directory). */
  readonly logPath: string;
  /** Kill the command after this many ms (a stage then returned nothing; a validator fails). */
  readonly timeoutMs?: number;
  /**
   * Aborting kills the command's process group and the call rejects with `EffectAbortedError`
   * (XState's actor signal: stopping the actor stops the command).
   */
  readonly signal?: AbortSignal;
}

/** How a stage command (Plan, the implementer) ended. */
export interface StageCommandResult {
  /** The stage returned something: the command exited 0. */
  readonly done: boolean;
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  /** `exit <code>` or `signal <name>`, for people. */
  readonly detail: string;
  readonly logPath: string;
}

/**
 * Runs a stage command (Plan or the implementer) in its own process group, output to `logPath`.
 * Exit 0 means the stage returned something; any other exit, or a signal, means it returned
 * nothing, which RPI reports (NOT_PLANNED, NOT_BUILT, a failed repair) rather than throws.
 *
 * @param options command, worktree, environment, log file
 * @returns whether the stage is done, with its exit code
 * @throws CommandFailedError (`rpi.command-failed`) when the command could not be started at all
 * @throws EffectAbortedError when `signal` aborted (the command's group was killed)
 */
export async function runStageCommand(options: RpiCommandOptions): Promise<StageCommandResult> {
  const what = `the command \`${options.command}\``;
  throwIfAborted(options.signal, what);
  const run = await runChildCommand({
    command: options.command,
    cwd: options.cwd,
    logPath: options.logPath,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.timeoutMs === undefined ? {} : { overallTimeoutMs: options.timeoutMs }),
    ...signalOption(options.signal),
  });
  if (run.outcome === 'aborted') throw new EffectAbortedError(what);
  if (run.outcome === 'spawn-error') {
    throw new CommandFailedError(
      'rpi.command-failed',
      { command: options.command, exitCode: null, signal: null, outputTail: run.outputTail },
      run.error ?? 'could not be started',
    );
  }
  const detail =
    run.outcome === 'timed-out'
      ? `timed out after ${Math.round((options.timeoutMs ?? 0) / 1000)} s`
      : run.exitCode !== null
        ? `exit ${run.exitCode}`
        : `signal ${run.signal ?? 'unknown'}`;
  return { done: run.exitCode === 0, exitCode: run.exitCode, detail, logPath: options.logPath };
}

/** Why a validator's output is not a verdict record (CLI exit code 2: the validator is the user's). */
export class ValidatorOutputError extends InputError {
  /**
   * @param code `rpi.validator-output-missing`, `rpi.validator-output-not-json`,
   *   `rpi.validator-record-invalid` or `rpi.validator-exit-contradicts`
   * @param message what is wrong, naming the command
   * @param findings each problem of the record
   * @param command the validator command
   * @param exitCode its exit code (null after a signal)
   * @param outputTail the last lines of its output
   */
  constructor(
    code: string,
    message: string,
    findings: readonly Finding[],
    readonly command: string,
    readonly exitCode: number | null,
    readonly outputTail: string,
  ) {
    super(code, message, findings);
  }
}

/** Options of {@link runValidatorCommand}. */
export interface ValidatorCommandOptions extends RpiCommandOptions {
  /**
   * The family written into a record that names none. Family distinctness is asserted by the
   * caller's choice of command, so each leg defaults to its own name.
   */
  readonly defaultFamily: string;
}

/** The most a validator may print on stdout. */
const MAX_VALIDATOR_OUTPUT = 16 * 1024 * 1024;

/**
 * Runs a validator and reads its verdict record: one JSON object on stdout, the snake_case
 * validation-leg shape (docs/convergence.md §1.1). The record is the whole of stdout or, when the
 * validator prints other lines first, its last non-blank line. It is checked with
 * `validationLegSchema` here, at the boundary. The exit code does not carry the verdict (a
 * validator may exit 1 on FAIL), but a PASS from a command that did not exit 0 is refused.
 *
 * @param options command, worktree, environment, log file, default family
 * @returns the leg, with `validator_family` filled in when the record named none
 * @throws ValidatorOutputError when stdout holds no record, no JSON, or a record that does not check
 * @throws CommandFailedError (`rpi.command-failed`) when the command could not be started
 * @throws EffectAbortedError when `signal` aborted (the validator's group was killed)
 */
export async function runValidatorCommand(
  options: ValidatorCommandOptions,
): Promise<Record<string, unknown>> {
  const what = `validator \`${options.command}\``;
  throwIfAborted(options.signal, what);
  // The validator runs as its own process group so that a timeout ends everything it started:
  // killing only the shell would leave its children holding stdout open.
  const subprocess = execa('/bin/sh', ['-c', options.command], {
    shell: false,
    cwd: options.cwd,
    env: { ...options.env },
    extendEnv: true,
    reject: false,
    stdin: 'ignore',
    encoding: 'utf8',
    maxBuffer: MAX_VALIDATOR_OUTPUT,
    stripFinalNewline: false,
    detached: true,
  });
  let timedOut = false;
  let aborted = false;
  const killGroup = () => {
    if (subprocess.pid === undefined) return;
    try {
      signalGroup(subprocess.pid, 'SIGKILL');
    } catch {
      // the group is already gone
    }
  };
  const timer =
    options.timeoutMs === undefined
      ? null
      : setTimeout(() => {
          timedOut = true;
          killGroup();
        }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    killGroup();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const result = await subprocess.finally(() => {
    if (timer !== null) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  });
  if (aborted) throw new EffectAbortedError(what);
  if (result.exitCode === undefined && result.signal === undefined && !timedOut) {
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    throw new CommandFailedError(
      'rpi.command-failed',
      { command: options.command, exitCode: null, signal: null, outputTail: lastLines(stderr, 20) },
      result.message ?? 'could not be started',
    );
  }
  return readValidatorRecord({
    command: options.command,
    stdout: typeof result.stdout === 'string' ? result.stdout : '',
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
    exitCode: result.exitCode ?? null,
    signal: result.signal ?? null,
    timedOut,
    logPath: options.logPath,
    defaultFamily: options.defaultFamily,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** How a validator command ended, as {@link readValidatorRecord} judges it. */
export interface ValidatorRunEnd {
  readonly command: string;
  readonly stdout: string;
  readonly stderr: string;
  /** The exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The command was killed for running longer than `timeoutMs`. */
  readonly timedOut: boolean;
  readonly timeoutMs?: number;
  /** The log written here: the command, its stdout, stderr and exit. */
  readonly logPath: string;
  readonly defaultFamily: string;
}

/**
 * Writes a validator's log and reads its verdict record from its stdout (see
 * {@link runValidatorCommand}): the checks at the boundary, shared by a live run and a run
 * settled after its runner was killed.
 *
 * @param end the command's output and exit
 * @returns the leg, with `validator_family` filled in when the record named none
 * @throws ValidatorOutputError, CommandFailedError (`rpi.validator-timed-out`)
 */
export async function readValidatorRecord(end: ValidatorRunEnd): Promise<Record<string, unknown>> {
  const options = end;
  const { stdout, stderr, exitCode } = end;
  await mkdir(dirname(options.logPath), { recursive: true });
  await writeFile(
    options.logPath,
    `$ ${options.command}\n--- stdout\n${stdout}\n--- stderr\n${stderr}\n--- ${
      exitCode !== null ? `exit ${exitCode}` : `signal ${end.signal ?? 'unknown'}`
    }\n`,
  );
  const tail = lastLines([stderr, stdout].filter((s) => s.length > 0).join('\n'), 20);
  if (end.timedOut)
    throw new CommandFailedError(
      'rpi.validator-timed-out',
      { command: options.command, exitCode: null, signal: end.signal, outputTail: tail },
      `timed out after ${Math.round((options.timeoutMs ?? 0) / 1000)} s without a verdict`,
    );
  const fail = (code: string, message: string, findings: readonly Finding[] = []): never => {
    throw new ValidatorOutputError(
      code,
      `validator \`${options.command}\` ${message} (log: ${options.logPath})`,
      findings,
      options.command,
      exitCode,
      tail,
    );
  };

  const text = stdout.trim();
  if (text === '')
    fail('rpi.validator-output-missing', `printed no verdict record (exit ${exitCode ?? 'signal'})`);
  const record = parseRecord(text);
  if (record === undefined) fail('rpi.validator-output-not-json', 'printed no JSON verdict record on stdout');
  const parsed = validationLegSchema.safeParse(record);
  if (!parsed.success) {
    // zod stops at the first structural problem of a field; the round checker names every problem
    // with its round-shape code, which is what a validator author needs to fix the record at once.
    const shape = checkRound(record);
    const findings =
      shape.length > 0
        ? shape
        : parsed.error.issues.map((issue) =>
            finding(
              'rpi.validator-record-invalid',
              0,
              issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
            ),
          );
    fail('rpi.validator-record-invalid', 'printed a record that is not a validation leg', findings);
  }
  const leg = { ...(record as Record<string, unknown>) };
  const status = leg.status ?? leg.verdict;
  if (status === 'PASS' && exitCode !== 0)
    fail('rpi.validator-exit-contradicts', `reported PASS but exited ${exitCode ?? 'by a signal'}`);
  if (leg.validator_family === undefined || leg.validator_family === null)
    leg.validator_family = options.defaultFamily;
  return leg;
}

// The whole output, else its last non-blank line; undefined when neither is JSON.
function parseRecord(text: string): unknown {
  for (const candidate of [
    text,
    text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .at(-1) ?? '',
  ]) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}
