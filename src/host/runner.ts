/**
 * `createRunner`: runs the loop engine statechart against a real worktree, with real effects,
 * until it finishes or stops for a human, and resumes from disk and branch history alone.
 *
 * The runner takes the worktree lock, provides the machine's actors (loop-actors.ts), writes the
 * run transcript, turns the machine's `notice` events into lines for the host, and answers a human
 * stop with a given reply (`answer`) or by asking (`ask`, for a terminal). A reply the stop does
 * not offer is refused with its reason, and nothing is applied.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { createActor, type InspectionEvent, waitFor } from 'xstate';
import {
  type HumanEvent,
  type LoopContext,
  type LoopOutput,
  loopImplementationMachine,
} from '../../machines/loop-implementation/index.js';
import { InputError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';
import { effectiveAllowance } from '../gauntlet/allowance.js';
import {
  type HumanChoice,
  type HumanReplyRejection,
  type HumanStop,
  parseHumanReply,
  renderHumanStop,
} from '../gauntlet/human-stop.js';
import { checkLedger, parseLedger } from '../gauntlet/ledger.js';
import { homeMember, isCoordinated } from '../gauntlet/leg-entries.js';
import { legacyAllowance } from '../gauntlet/legacy-allowance.js';
import { effectiveImplModel } from '../gauntlet/model-fallback.js';
import { DEFAULT_ALLOWANCE } from '../gauntlet/seed.js';
import { parseSpec } from '../gauntlet/spec.js';
import type { Ledger, Spec } from '../gauntlet/types.js';
import { recoverCommitIntent } from './commit-journal.js';
import {
  DEFAULT_CHILD_TIMEOUT_MS,
  DEFAULT_KILL_GRACE_MS,
  DEFAULT_SILENCE_TIMEOUT_MS,
  type HostOptions,
  type HostSession,
} from './host-session.js';
import { resolveLegCheckouts } from './leg-checkouts.js';
import { createLoopActors, openHostSession } from './loop-actors.js';
import { createLoopRecordProjector, isResting, stateLabel } from './loop-transcript.js';
import {
  checkLedgerBase,
  checkRunPaths,
  defaultLedgerPath,
  repoRelative,
  resolveVerification,
  specOfLedger,
  worktreeRootOf,
} from './run-paths.js';
import { DEFAULT_ESCALATE_AFTER } from './settings-actors.js';
import { readLoopStatus } from './status.js';
import { createTranscriptRecorder } from './transcript.js';
import { forgetWorktree } from './worktree-facts.js';
import { readWorktreeFile } from './worktree-view.js';

/** Settings of a run. Every field has a documented default (docs/host.md). */
export interface LoopRunnerSettings {
  /** Allowance of a fresh ledger (default 4). An existing ledger keeps its own. */
  readonly allowance?: number;
  /** `loopEngine.escalateAfter` (default 2). */
  readonly escalateAfter?: number;
  /**
   * `escalationLoop.implModel`; when unset, `mainModel` is used. Without either an escalated round
   * or a verification repair stops with the missing-model stop.
   */
  readonly implModel?: string | null;
  /** The main-loop model: the fallback of `implModel` (§3.21). */
  readonly mainModel?: string | null;
  /** `closureReview.maxFixRounds` (default 5; negatives floor at 0; non-integers give 5). */
  readonly maxFixRounds?: unknown;
  /** `closureReview.enforce` (default true). */
  readonly enforceClosureCap?: boolean;
  /** Kill a child that printed nothing for this long (default 600 000 ms). */
  readonly silenceTimeoutMs?: number;
  /** Kill a child that runs longer than this (default 3 600 000 ms). */
  readonly timeoutMs?: number;
  /** Wait between TERM and KILL (default 10 000 ms). */
  readonly killGraceMs?: number;
}

/** Options of {@link createRunner}. */
export interface LoopRunnerOptions {
  /** The worktree (any folder inside it). */
  readonly worktree: string;
  /** The spec, absolute or relative to the worktree. Optional on resume when `ledger` is given. */
  readonly spec?: string;
  /** The ledger, absolute or relative to the worktree (default: derived from the spec path). */
  readonly ledger?: string;
  /** The child command, run with `/bin/sh -c` in the worktree. */
  readonly child?: string;
  /** Extra gates after the ledger's verification command. */
  readonly gates?: readonly string[];
  /**
   * Coordinated runs: each companion leg's gate commands, run in its checkout (member to commands,
   * in order); a companion without commands runs the ledger's verification command.
   */
  readonly legGates?: Readonly<Record<string, readonly string[]>>;
  /** The verification command a fresh ledger records (default: the overrides file, then discovered, e.g. `npm test`). */
  readonly verification?: string;
  /**
   * The overrides file whose `## verification-before-completion` section supplies a fresh ledger's
   * verification command (default `.loopchart/overrides.md`, read only when it exists).
   */
  readonly overrides?: string;
  readonly settings?: LoopRunnerSettings;
  /** The transcript file (default `<git dir>/loopchart/transcript.jsonl`); `false` for none. */
  readonly transcript?: string | false;
  /** The reply to the first human stop the run reaches. */
  readonly answer?: string;
  /**
   * Asks a person for a reply at a stop (a terminal). Returning `null` leaves the stop standing.
   * Called again with the rejection reason when a reply is refused.
   */
  readonly ask?: (stopText: string, rejection: HumanReplyRejection | null) => Promise<string | null>;
  /** Lines the loop prints without stopping (`terminated 1 child jobs`, `amended the spec: …`). */
  readonly onNotice?: (text: string) => void;
  /** Progress lines (current row, attempt, iteration, elapsed time). */
  readonly onProgress?: (line: string) => void;
  /** Verify step 2 reviewer command (docs/review-contract.md); without it step 2 does not run. */
  readonly reviewer?: string;
  /**
   * Verify step 3 reviewer command. With it verify finishes only on CONFORMS. Without it the run
   * stops (`Stopped: verification passed; closure not audited`, exit 3) unless
   * `waiveConformanceReview` is set.
   */
  readonly conformanceReviewer?: string;
  /**
   * The library form of `--no-conformance-review`: without a conformance reviewer, verify
   * finishes (exit 0) and its closure block records the waiver (`status: not audited (waived)`).
   * Ignored when `conformanceReviewer` is given.
   */
  readonly waiveConformanceReview?: boolean;
  /** Step 5 (finishing the branch): called with the closure block once verify closed. */
  readonly finishBranch?: (input: { readonly closure: string; readonly head: string }) => Promise<void>;
  /** Called after every side effect (see crash-hook.ts for the test hook built on it). */
  readonly onSideEffect?: (name: string, count: number) => void;
  /** Extra environment for the child. */
  readonly childEnv?: Readonly<Record<string, string>>;
  /** Extra environment for the runner's git processes. */
  readonly gitEnv?: Readonly<Record<string, string>>;
  /**
   * Aborting it interrupts the run (what `loopchart run` does on Ctrl-C or SIGTERM): a running
   * child or gate is stopped, an interrupted dispatch is recovered and repaired as usual, and the
   * run ends, status `failed` with code `run.interrupted`, before another dispatch or gate run.
   */
  readonly interrupt?: AbortSignal;
  /**
   * Receives every XState inspection event of the running actor (and of the actors it invokes),
   * as `createActor(machine, { inspect })` reports them: what `loopchart run --inspect` streams to
   * the explorer. It observes only; the transcript stays the durable record. An exception thrown
   * here is caught and ignored, so a failing observer never changes the run.
   */
  readonly inspect?: (event: InspectionEvent) => void;
  /**
   * The checkouts of a coordinated run's companion members (member name -> checkout path; a
   * relative path resolves from the current directory). The home member's checkout is `worktree`.
   * Required for every non-home member of the spec's `## Legs` when it lists more than one member;
   * refused (exit 2) for an unknown member, a path outside a git work tree, the home worktree, or
   * one checkout given to two members (docs/host.md, docs/decisions/legs.md).
   */
  readonly legs?: Readonly<Record<string, string>>;
}

/** How a run ended. */
export type LoopRunStatus = 'finished' | 'stopped' | 'invalid' | 'failed';

/** The result of {@link Runner.run}. */
export interface LoopRunResult {
  readonly status: LoopRunStatus;
  /** 0 finished, 3 stopped for a human, 2 invalid input or configuration, 1 internal error. */
  readonly exitCode: 0 | 1 | 2 | 3;
  /** The machine state the run ended in, e.g. `finished` or `humanStop.rowAllowance`. */
  readonly state: string;
  /** The stop text (first line `gauntlet: question`) when the run stopped for a human. */
  readonly stopText?: string;
  readonly stop?: HumanStop;
  /** What was wrong, for `invalid` and `failed`. */
  readonly message?: string;
  readonly findings: readonly Finding[];
  /** The ledger as the run left it on disk (parsed), or `null`. */
  readonly ledger: Ledger | null;
  readonly ledgerPath: string;
  readonly specPath: string;
  readonly worktree: string;
  readonly transcriptPath: string | null;
  /** The reply the run applied, when it applied one. */
  readonly answered?: { readonly reply: string; readonly choice: HumanChoice };
  /**
   * The reply given (`answer`) that the run never used because it reached no stop: the run went on
   * (or ended) without it.
   */
  readonly unusedAnswer?: string;
  /** Why a reply was refused (status `invalid`). */
  readonly rejection?: HumanReplyRejection;
  /**
   * The stable name of the problem when the run could not start (state {@link UNRESOLVED_STATE}):
   * e.g. `git.not-a-worktree`, `run.spec`, `run.verification`.
   */
  readonly code?: string;
  /** Notices printed during the run. */
  readonly notices: readonly string[];
  /**
   * The `## Closure / conformance` block, when verify closed: on CONFORMS or a waived audit (the run
   * finished), or at the `closure-carried-open` stop (`status: GAPS (N open)`, the block the
   * finishing hook received; the stop text quotes it too).
   */
  readonly closure?: string;
  /** Side effects the run completed. */
  readonly sideEffects: number;
  /** Git processes the run's git port spawned (benchmarks report them per iteration). */
  readonly gitProcesses: number;
}

/** A runner for one worktree. */
export interface LoopRunner {
  /** Runs (fresh or resumed) until the loop finishes or stops for a human. */
  run(): Promise<LoopRunResult>;
}

/** The cycle of the last record of an existing transcript, so a resumed run continues it (0 when none). */
function lastRecordedCycle(path: string): number {
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const last = text.trimEnd().split('\n').at(-1);
  if (last === undefined || last === '') return 0;
  try {
    const cycle = (JSON.parse(last) as { cycle?: unknown }).cycle;
    return typeof cycle === 'number' && Number.isSafeInteger(cycle) && cycle >= 0 ? cycle : 0;
  } catch {
    return 0;
  }
}

/** The machine event of an accepted reply. */
export function humanEventOf(choice: HumanChoice): HumanEvent {
  switch (choice.kind) {
    case 'retry':
      return { type: 'human.retry', row: choice.row, hint: choice.hint };
    case 'raise':
      return { type: 'human.raise', amount: choice.amount, words: choice.words };
    case 'amend':
      return { type: 'human.amend', amendment: choice.amendment };
    case 'redraw':
      return { type: 'human.redraw', reason: choice.reason };
    case 'discard':
      return { type: 'human.discard' };
    case 'return':
      return { type: 'human.return' };
    case 'stop':
      return { type: 'human.stop' };
  }
}

interface ResolvedRun {
  readonly worktree: string;
  readonly specPath: string;
  readonly ledgerPath: string;
  readonly verification: string;
  /** Where a fresh ledger's verification command came from (printed once), `null` on resume. */
  readonly verificationSource: string | null;
  /** Every member's checkout (home = the worktree) of a coordinated run; absent for one leg. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
}

async function resolveRun(options: LoopRunnerOptions): Promise<ResolvedRun> {
  const worktree = await worktreeRootOf(resolve(options.worktree));
  let ledgerPath = options.ledger === undefined ? null : repoRelative(worktree, options.ledger, 'ledger');
  let specPath = options.spec === undefined ? null : repoRelative(worktree, options.spec, 'spec');
  if (specPath === null && ledgerPath !== null) specPath = await specOfLedger(worktree, ledgerPath);
  if (specPath === null)
    throw new InputError(
      'run.spec',
      'no spec: give the spec (--spec), or a ledger whose **Spec:** header names it',
    );
  ledgerPath ??= defaultLedgerPath(specPath);
  await checkRunPaths(worktree, { specPath, ledgerPath });
  const specText = await readWorktreeFile(worktree, specPath);
  const parsedSpec = specText === null ? null : parseSpec(specText);
  const spec = parsedSpec === null || parsedSpec.findings.length > 0 ? null : parsedSpec.spec;
  // A spec that does not read is the machine's to report (its findings); legs need a readable one.
  const legCheckouts = spec === null ? undefined : await resolveLegCheckouts(worktree, spec, options.legs);
  const legPart = legCheckouts === undefined ? {} : { legCheckouts };
  checkLegGates(options.legGates, legCheckouts, spec);
  const ledgerText = await readWorktreeFile(worktree, ledgerPath);
  const parsedLedger = ledgerText === null ? null : parseLedger(ledgerText);
  // A legacy `cap:` ledger is admitted: the machine's restore migrates it (`loop: migrate allowance`).
  const legacy = ledgerText !== null && parsedLedger?.ledger === null ? legacyAllowance(ledgerText) : null;
  const existing = parsedLedger?.ledger ?? (legacy?.kind === 'migrate' ? legacy.ledger : null);
  if (parsedLedger !== null && existing === null)
    throw new InputError(
      'run.ledger',
      `${ledgerPath} is not a loop ledger (${parsedLedger.findings[0]?.reason ?? 'it does not parse'}); name the ledger with --ledger, or move the file`,
      parsedLedger.findings,
    );
  if (existing !== null) await checkLedgerBase(worktree, ledgerPath, existing.base);
  if (existing !== null && spec !== null) checkLedgerLegs(ledgerPath, existing, spec);
  // A resumed ledger keeps its own command; a fresh one resolves it in the protocol's order.
  if (existing !== null && options.verification === undefined)
    return {
      worktree,
      specPath,
      ledgerPath,
      verification: existing.verification,
      verificationSource: null,
      ...legPart,
    };
  const choice = resolveVerification(worktree, {
    ...(options.verification === undefined ? {} : { explicit: options.verification }),
    ...(options.overrides === undefined ? {} : { overrides: options.overrides }),
  });
  return {
    worktree,
    specPath,
    ledgerPath,
    verification: choice.command,
    // The caller's own command needs no source line; the overrides file and discovery do.
    verificationSource: existing === null && options.verification === undefined ? choice.source : null,
    ...legPart,
  };
}

/** The spec checks of a ledger that decide which leg is which (docs/decisions/legs.md L4, L20). */
const LEG_IDENTITY_CHECKS = new Set([
  'ledger.check.legs-missing',
  'ledger.check.legs-unexpected',
  'ledger.check.members',
  'ledger.check.home-base',
  'ledger.check.leg-mapping',
]);

/**
 * Refuses a resumed ledger whose legs do not match the spec before anything runs (`run.ledger`,
 * exit 2): its members, its mapping, or a home that its bases do not name alone (L20). A tuple of
 * such a ledger could be validated, recorded and recovered as another leg's.
 */
function checkLedgerLegs(ledgerPath: string, ledger: Ledger, spec: Spec): void {
  const findings = checkLedger(ledger, spec).filter((finding) => LEG_IDENTITY_CHECKS.has(finding.code));
  if (findings.length > 0)
    throw new InputError(
      'run.ledger',
      `${ledgerPath} does not match the spec's legs (${findings[0]?.code}: ${findings[0]?.reason}); fix the ledger's leg lines or the spec's ## Legs`,
      findings,
    );
}

/**
 * The `state` of a run that could not start: the worktree, spec, ledger or verification command
 * could not be resolved (status `invalid`, exit code 2, `code` names the problem). No effect ran.
 */
export const UNRESOLVED_STATE = 'unresolved';

function unresolvedResult(options: LoopRunnerOptions, error: InputError): LoopRunResult {
  return {
    status: 'invalid',
    exitCode: 2,
    state: UNRESOLVED_STATE,
    message: error.message,
    code: error.code,
    findings: error.findings,
    ledger: null,
    ledgerPath: options.ledger ?? '',
    specPath: options.spec ?? '',
    worktree: resolve(options.worktree),
    transcriptPath: null,
    notices: [],
    sideEffects: 0,
    gitProcesses: 0,
  };
}

/**
 * Creates a runner. `run()` resolves every outcome the loop can name, including input it cannot
 * start from (not a git worktree, no spec, no verification command): `{ status: 'invalid',
 * state: 'unresolved', code, message }`. It rejects only for an internal error.
 *
 * @param options worktree, spec, ledger, child, gates, settings, transcript, answer and hooks
 */
export function createRunner(options: LoopRunnerOptions): LoopRunner {
  return { run: () => runLoop(options) };
}

async function runLoop(options: LoopRunnerOptions): Promise<LoopRunResult> {
  let run: ResolvedRun;
  try {
    run = await resolveRun(options);
  } catch (error) {
    if (error instanceof InputError) return unresolvedResult(options, error);
    throw error;
  }
  const settings = options.settings ?? {};
  const host: HostOptions = {
    worktree: run.worktree,
    ledgerPath: run.ledgerPath,
    specPath: run.specPath,
    child: options.child ?? null,
    gates: options.gates ?? [],
    ...(options.legGates === undefined ? {} : { legGates: options.legGates }),
    allowance: settings.allowance ?? DEFAULT_ALLOWANCE,
    escalateAfter: settings.escalateAfter ?? DEFAULT_ESCALATE_AFTER,
    implModel: effectiveImplModel(settings.implModel, settings.mainModel),
    silenceTimeoutMs: settings.silenceTimeoutMs ?? DEFAULT_SILENCE_TIMEOUT_MS,
    timeoutMs: settings.timeoutMs ?? DEFAULT_CHILD_TIMEOUT_MS,
    killGraceMs: settings.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    ...(options.childEnv === undefined ? {} : { childEnv: options.childEnv }),
    ...(options.reviewer === undefined ? {} : { reviewer: options.reviewer }),
    ...(options.conformanceReviewer === undefined
      ? {}
      : { conformanceReviewer: options.conformanceReviewer }),
    ...(options.waiveConformanceReview === true ? { waiveConformanceReview: true } : {}),
    ...(options.finishBranch === undefined ? {} : { finishBranch: options.finishBranch }),
    closureReview: {
      maxFixRounds: settings.maxFixRounds,
      ...(settings.enforceClosureCap === undefined ? {} : { enforce: settings.enforceClosureCap }),
    },
    ...(options.onSideEffect === undefined ? {} : { onSideEffect: options.onSideEffect }),
    ...(options.interrupt === undefined ? {} : { interrupt: options.interrupt }),
    ...(run.legCheckouts === undefined ? {} : { legCheckouts: run.legCheckouts }),
  };
  const session = await openHostSession(host, options.gitEnv === undefined ? {} : { env: options.gitEnv });
  // Reading actors share HEAD and status between the loop's own writes (worktree-facts.ts); a human
  // reply below forgets them, since the person may have changed the tree while the run waited.
  session.shareObservations = true;
  try {
    return await drive(options, run, session);
  } finally {
    await session.lock.release();
  }
}

async function drive(
  options: LoopRunnerOptions,
  run: ResolvedRun,
  session: HostSession,
): Promise<LoopRunResult> {
  const notices: string[] = [];
  session.notify = (text) => {
    notices.push(text);
    options.onNotice?.(text);
  };
  const transcriptPath =
    options.transcript === false
      ? null
      : options.transcript === undefined
        ? session.files.transcript
        : isAbsolute(options.transcript)
          ? options.transcript
          : resolve(run.worktree, options.transcript);
  const base = {
    ledgerPath: run.ledgerPath,
    specPath: run.specPath,
    worktree: run.worktree,
    transcriptPath,
    notices,
  };
  const diskLedger = async () => {
    const text = await readWorktreeFile(run.worktree, run.ledgerPath);
    return text === null ? null : parseLedger(text).ledger;
  };

  // A reply to a stop the loop can already see from disk is checked before anything runs, so a
  // reply the stop does not offer changes nothing at all.
  if (options.answer !== undefined) {
    // The loop's own half-made commit is undone first, exactly as the machine's entry does.
    await recoverCommitIntent(session.files.journal, session.git);
    const status = await readLoopStatus({
      git: session.git,
      files: session.files,
      ledgerPath: run.ledgerPath,
      specPath: run.specPath,
      escalateAfter: session.options.escalateAfter,
      implModel: session.options.implModel,
    }).catch(() => null);
    if (status?.next.kind === 'stop') {
      const parsed = parseHumanReply(options.answer, status.next.stop, status.ledger ?? undefined);
      if (!parsed.ok)
        return {
          ...base,
          status: 'invalid',
          exitCode: 2,
          state: 'humanStop',
          stop: status.next.stop,
          stopText: status.next.stopText,
          message: parsed.rejection.reason,
          rejection: parsed.rejection,
          findings: [],
          ledger: status.ledger,
          sideEffects: 0,
          gitProcesses: session.git.processCount,
        };
    }
  }

  const machine = loopImplementationMachine.provide({ actors: createLoopActors(session) });
  const recorder =
    transcriptPath === null
      ? null
      : createTranscriptRecorder({
          path: transcriptPath,
          machine: 'loop-implementation',
          project: createLoopRecordProjector(lastRecordedCycle(transcriptPath)),
        });
  const observer = options.inspect;
  const inspect =
    observer === undefined
      ? recorder?.inspect
      : (event: InspectionEvent) => {
          recorder?.inspect(event);
          try {
            observer(event);
          } catch {
            // An observer never changes the run (see LoopRunnerOptions.inspect).
          }
        };
  const actor = createActor(machine, {
    input: {
      ledgerPath: run.ledgerPath,
      specPath: run.specPath,
      verification: run.verification,
      ...(run.legCheckouts === undefined ? {} : { legCheckouts: run.legCheckouts }),
    },
    ...(inspect === undefined ? {} : { inspect }),
  });
  actor.on('notice', (event) => {
    notices.push(event.text);
    options.onNotice?.(event.text);
  });
  // §3.1 step 1: print where a fresh ledger's verification command came from.
  if (run.verificationSource !== null && (await diskLedger()) === null) {
    const text = `verification: ${run.verification} (source: ${run.verificationSource})`;
    notices.push(text);
    options.onNotice?.(text);
  }
  const started = performance.now();
  if (options.onProgress !== undefined) {
    const progress = options.onProgress;
    let last = '';
    actor.subscribe((snapshot) => {
      const label = stateLabel(snapshot.value);
      if (label === last) return;
      last = label;
      const line = progressLine(snapshot.context as LoopContext, label, performance.now() - started);
      if (line !== null) progress(line);
    });
  }

  let answer = options.answer;
  let answered: LoopRunResult['answered'];
  actor.start();
  try {
    for (;;) {
      let snapshot: ReturnType<typeof actor.getSnapshot>;
      try {
        snapshot = await waitFor(actor, isResting);
      } catch (error) {
        return {
          ...base,
          status: 'failed',
          exitCode: 1,
          state: stateLabel(actor.getSnapshot().value),
          message: error instanceof Error ? error.message : String(error),
          findings: [],
          ledger: await diskLedger(),
          sideEffects: session.sideEffects,
          gitProcesses: session.git.processCount,
          ...(answered === undefined ? {} : { answered }),
          ...(answer === undefined ? {} : { unusedAnswer: answer }),
        };
      }
      const context = snapshot.context as LoopContext;
      const state = stateLabel(snapshot.value);
      if (snapshot.status !== 'active') {
        const common = {
          ...base,
          state,
          ledger: await diskLedger(),
          sideEffects: session.sideEffects,
          gitProcesses: session.git.processCount,
          ...(answer === undefined ? {} : { unusedAnswer: answer }),
        };
        const extra = answered === undefined ? {} : { answered };
        // The machine says how the run ended (its final state's output); the host maps it to an exit code.
        const output: LoopOutput =
          snapshot.status === 'done'
            ? snapshot.output
            : {
                status: 'failed',
                message: snapshot.error instanceof Error ? snapshot.error.message : 'the run failed',
              };
        switch (output.status) {
          case 'finished':
            return {
              ...common,
              ...extra,
              status: 'finished',
              exitCode: 0,
              findings: [],
              ...(output.closure === null ? {} : { closure: output.closure }),
            };
          case 'stopped':
            return {
              ...common,
              ...extra,
              status: 'stopped',
              exitCode: 3,
              stopText: output.text,
              findings: [],
            };
          case 'invalid':
            return {
              ...common,
              ...extra,
              status: 'invalid',
              exitCode: 2,
              message: output.message,
              findings: output.findings,
            };
          default:
            return {
              ...common,
              ...extra,
              status: 'failed',
              exitCode: 1,
              message: output.message,
              findings: [],
            };
        }
      }

      // A human stop.
      const stop = context.stop as HumanStop;
      const stopLedger = context.stopLedger;
      const stopText = renderHumanStop(stop, stopLedger);
      let reply = answer;
      answer = undefined;
      let rejection: HumanReplyRejection | null = null;
      let choice: HumanChoice | null = null;
      for (;;) {
        if (reply === undefined && options.ask !== undefined)
          reply = (await options.ask(stopText, rejection)) ?? undefined;
        if (reply === undefined) break;
        const parsed = parseHumanReply(reply, stop, stopLedger ?? undefined);
        if (parsed.ok) {
          choice = parsed.choice;
          break;
        }
        rejection = parsed.rejection;
        if (options.ask === undefined) break;
        reply = undefined;
      }
      const common = {
        ...base,
        state,
        stop,
        stopText,
        ledger: await diskLedger(),
        sideEffects: session.sideEffects,
        gitProcesses: session.git.processCount,
        ...(context.closure === null ? {} : { closure: context.closure }),
      };
      if (choice === null && rejection !== null)
        return {
          ...common,
          status: 'invalid',
          exitCode: 2,
          message: rejection.reason,
          rejection,
          findings: [],
        };
      if (choice === null || reply === undefined)
        return { ...common, status: 'stopped', exitCode: 3, findings: [] };
      forgetWorktree(session);
      actor.send(humanEventOf(choice));
      const after = actor.getSnapshot();
      if (
        after.matches('humanStop') &&
        stateLabel(after.value) === state &&
        (after.context as LoopContext).stop === stop
      )
        return {
          ...common,
          status: 'invalid',
          exitCode: 2,
          message: `the loop cannot apply "${reply}" to this ledger`,
          findings: [],
        };
      answered = { reply, choice };
    }
  } finally {
    actor.stop();
  }
}

function progressLine(context: LoopContext, label: string, elapsedMs: number): string | null {
  if (!label.endsWith('.running')) return null;
  const plan = context.plan;
  if (plan === null) return null;
  const elapsed = `${Math.round(elapsedMs / 1000)}s`;
  const ledger = plan.saved;
  if (typeof plan.target === 'number') {
    const row = ledger.rows.find((r) => r.row === plan.target);
    const of = effectiveAllowance(ledger, plan.target);
    return `row ${plan.target}: attempt ${(row?.attempts ?? 0) + 1} of ${of}, iteration ${plan.iteration}, ${elapsed}`;
  }
  return `${plan.target}: iteration ${plan.iteration}, ${elapsed}`;
}

/**
 * `legGates` names only companion members of a coordinated spec (docs/decisions/legs.md).
 *
 * @throws InputError `run.leg-gate` (exit 2) for a member that is home, unknown, or of a
 *   single-leg spec, or an empty command list
 */
function checkLegGates(
  legGates: Readonly<Record<string, readonly string[]>> | undefined,
  legCheckouts: Readonly<Record<string, string>> | undefined,
  spec: Spec | null,
): void {
  if (legGates === undefined) return;
  const home = spec === null || !isCoordinated(spec) ? null : homeMember(spec);
  for (const [member, commands] of Object.entries(legGates)) {
    if (legCheckouts === undefined || home === null)
      throw new InputError('run.leg-gate', `--leg-gate ${member}: the spec declares no coordinated legs`);
    if (member === home)
      throw new InputError(
        'run.leg-gate',
        `--leg-gate ${member}: ${member} is the home member; its gates are the ledger's verification command and --gate`,
      );
    if (!Object.hasOwn(legCheckouts, member))
      throw new InputError(
        'run.leg-gate',
        `--leg-gate ${member}: the spec's ## Legs declares no member "${member}" (companions: ${Object.keys(
          legCheckouts,
        )
          .filter((name) => name !== home)
          .join(', ')})`,
      );
    if (commands.length === 0 || commands.some((command) => command.trim() === ''))
      throw new InputError('run.leg-gate', `--leg-gate ${member}: give a non-empty command`);
  }
}
