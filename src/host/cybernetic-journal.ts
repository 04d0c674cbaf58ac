/**
 * The durable journal of a cybernetic run (`loopchart cyber`), and what a resumed run reads out of
 * it. The run directory lives at `<git dir>/loopchart/cyber/<run id>/` (outside the working tree,
 * never part of a scope, and found again from the worktree alone); `current.json` beside it names
 * the run that is not closed yet. The journal (`journal.jsonl`, src/host/run-journal.ts) holds:
 *
 * - `begin`: the run's identity (the command that started it), its scope derivation and HEAD;
 * - `start` / `done` / `error`: each effect (a named actor of machines/cybernetic-loop.ts) with
 *   its input before it runs, and its outcome after, each with the facts the host needs to
 *   rebuild its own state and to prove later that the worktree is still where the step left it
 *   (HEAD and the state of every path in the scope);
 * - `end`: the machine reached its terminal record;
 * - `closed`: the record was handed back to the caller; a rerun after that is a new run.
 *
 * The machine is deterministic given the outcomes of its actors, so replaying the recorded
 * outcomes in order brings it back to where the killed run stood without running anything again.
 * The rules for the step that was in flight are in docs/decisions/cybernetic.md ("Resume").
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../common/errors.js';
import type { ScopeDerivation } from '../cybernetic/derive-scope.js';
import {
  compareScopeEntries,
  loadCheckpoint,
  observeScope,
  type ScopeDifference,
  type ScopeEntry,
} from '../effects/checkpoint.js';
import { writeFileAtomic } from '../effects/files.js';
import { createGitPort } from '../effects/git.js';
import { terminateMarkedProcesses } from '../effects/marked-processes.js';
import { appendJournal, type JournalEntry, readJournal } from './run-journal.js';

/** The marker every check and patcher of a journaled run carries, so a resumed run finds what a kill left running. */
export const CYBER_RUN_MARKER = 'LOOPCHART_CYBER_RUN';

/** What makes two `loopchart cyber` invocations "the same command" for resuming. */
export interface CyberRunIdentity {
  readonly version: 1;
  /** The request as given (JSON). */
  readonly request: unknown;
  readonly patcher: string;
  /** The scope derivation's checks and reason, or null when the scope was not derived. */
  readonly scopeCheck: unknown;
  readonly checkTimeoutMs: number | null;
  readonly patcherTimeoutMs: number | null;
  /** The transcript path the caller chose, or null for the run directory's. */
  readonly transcriptPath: string | null;
}

/** The facts recorded with a step: HEAD and the scope's state after it, plus the actor's own. */
export type StepFacts = Readonly<Record<string, unknown>>;

/** One effect as the journal recorded it. */
export interface RecordedStep {
  readonly seq: number;
  readonly actor: string;
  readonly input: unknown;
  /** The facts recorded when the step started. */
  readonly startFacts: StepFacts;
  /** The outcome, or null for the step that was in flight when the run was killed. */
  readonly outcome:
    | { readonly kind: 'done'; readonly output: unknown; readonly facts: StepFacts }
    | { readonly kind: 'error'; readonly error: string; readonly facts: StepFacts }
    | null;
}

/** The journal's first line. */
export interface BeginEntry extends JournalEntry {
  readonly kind: 'begin';
  readonly version: 1;
  readonly identity: CyberRunIdentity;
  readonly derivation: ScopeDerivation | null;
  readonly head: string | null;
  readonly transcriptPath: string;
}

/** What a journal tells a resumed run. */
export interface CyberResumePlan {
  readonly begin: BeginEntry;
  /** Every step with an outcome, in order. */
  readonly completed: readonly RecordedStep[];
  /** The step that started and has no outcome (killed mid-effect), if any. */
  readonly inFlight: RecordedStep | null;
  /** The machine reached its terminal record. */
  readonly ended: boolean;
  readonly closed: boolean;
}

/**
 * An unfinished cybernetic run of another command holds this worktree. `code` is
 * `cybernetic.unfinished-run` (exit 2): rerun the command that started it to finish it.
 */
export class UnfinishedCyberRunError extends InputError {
  constructor(runDir: string, differences: readonly string[]) {
    super(
      'cybernetic.unfinished-run',
      `an unfinished cybernetic run of another command holds this worktree (${runDir}; ${differences.join(', ')} differ): rerun the command that started it to finish it (its journal.jsonl begins with it), or review and remove that directory and its current.json pointer to give it up`,
    );
  }
}

/**
 * The worktree is not where the journal of the run being resumed left it (HEAD moved, the scope
 * changed in a way the loop cannot prove is its own). `code` is `cybernetic.resume-mismatch`
 * (exit 2): the run refuses to guess, and changes nothing.
 */
export class CyberResumeMismatchError extends InputError {
  constructor(runDir: string, why: string) {
    super(
      'cybernetic.resume-mismatch',
      `cannot resume the cybernetic run in ${runDir}: ${why}; nothing was changed. Put the worktree back as the run left it and rerun, or review and remove the run directory and its current.json pointer to give the run up (the scope's checkpoint is in its checkpoints/run)`,
    );
  }
}

/** The journal cannot be replayed as this run (an outcome out of order, a diverging input). */
export class CyberJournalReplayError extends InputError {
  constructor(message: string) {
    super('cybernetic.journal-not-replayable', message);
  }
}

/** `<git dir>/loopchart/cyber`: the cybernetic runs of one worktree. */
export function cyberRunsDir(gitDir: string): string {
  return join(gitDir, 'loopchart', 'cyber');
}

/** The pointer naming the run directory of the run that is not closed yet. */
export function currentRunPointer(gitDir: string): string {
  return join(cyberRunsDir(gitDir), 'current.json');
}

/** The journal file of a run directory. */
export function journalPathOf(runDir: string): string {
  return join(runDir, 'journal.jsonl');
}

/**
 * The run directory `current.json` names, when that run is not closed; a pointer to a closed run,
 * a missing journal or an empty one (a kill before the first line) is removed and ignored.
 *
 * @param gitDir the worktree's absolute git directory
 * @returns the open run's directory and journal entries, or null
 */
export async function findOpenCyberRun(
  gitDir: string,
): Promise<{ readonly runDir: string; readonly entries: readonly JournalEntry[] } | null> {
  const pointer = currentRunPointer(gitDir);
  let runDir: string;
  try {
    runDir = (JSON.parse(await readFile(pointer, 'utf8')) as { runDir: string }).runDir;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError('cybernetic.run-pointer', `${pointer} is damaged: ${(error as Error).message}`);
  }
  const entries = await readJournal(journalPathOf(runDir));
  if (entries.length === 0 || entries.some((entry) => entry.kind === 'closed')) {
    await rm(pointer, { force: true });
    return null;
  }
  return { runDir, entries };
}

/**
 * Names `runDir` as the worktree's open run (written after the journal's first line).
 *
 * @param gitDir the worktree's absolute git directory
 * @param runDir the run directory
 */
export async function pointAtRun(gitDir: string, runDir: string): Promise<void> {
  await writeFileAtomic(currentRunPointer(gitDir), `${JSON.stringify({ runDir })}\n`);
}

/**
 * Removes the pointer when it still names `runDir` (a newer run's pointer is left alone).
 *
 * @param gitDir the worktree's absolute git directory
 * @param runDir the run directory being closed
 */
export async function releasePointer(gitDir: string, runDir: string): Promise<void> {
  const pointer = currentRunPointer(gitDir);
  const named = await readFile(pointer, 'utf8').then(
    (text) => (JSON.parse(text) as { runDir?: unknown }).runDir,
    () => null,
  );
  if (named === runDir) await rm(pointer, { force: true });
}

/**
 * The fields in which two identities differ (empty: the same command).
 *
 * @param recorded the identity the journal began with
 * @param given this invocation's
 */
export function identityDifferences(recorded: CyberRunIdentity, given: CyberRunIdentity): string[] {
  return (Object.keys(given) as (keyof CyberRunIdentity)[]).filter(
    (key) => JSON.stringify(recorded[key] ?? null) !== JSON.stringify(given[key] ?? null),
  );
}

/**
 * Reads the steps out of a journal.
 *
 * @param entries the journal's entries, in order
 * @returns the begin entry, the completed steps, the step in flight, whether the run ended
 * @throws CyberJournalReplayError when the journal does not begin with `begin`, or an outcome
 *   does not follow its start
 */
export function cyberResumePlan(entries: readonly JournalEntry[]): CyberResumePlan {
  const [first] = entries;
  if (first?.kind !== 'begin' || (first as BeginEntry).version !== 1)
    throw new CyberJournalReplayError('the run journal does not begin with a version 1 begin line');
  const completed: RecordedStep[] = [];
  let open: RecordedStep | null = null;
  let ended = false;
  let closed = false;
  entries.slice(1).forEach((entry, index) => {
    const line = index + 2;
    if (entry.kind === 'start') {
      if (open !== null)
        throw new CyberJournalReplayError(`line ${line}: a step starts before ${open.actor} ended`);
      open = {
        seq: Number(entry.seq),
        actor: String(entry.actor),
        input: entry.input,
        startFacts: (entry.facts ?? {}) as StepFacts,
        outcome: null,
      };
    } else if (entry.kind === 'done' || entry.kind === 'error') {
      const started: RecordedStep | null = open;
      if (started === null || started.seq !== entry.seq || started.actor !== entry.actor)
        throw new CyberJournalReplayError(
          `line ${line}: an outcome of ${String(entry.actor)} that never started`,
        );
      const facts = (entry.facts ?? {}) as StepFacts;
      completed.push({
        ...started,
        outcome:
          entry.kind === 'done'
            ? { kind: 'done', output: entry.output ?? null, facts }
            : { kind: 'error', error: String(entry.error), facts },
      });
      open = null;
    } else if (entry.kind === 'end') ended = true;
    else if (entry.kind === 'closed') closed = true;
    else throw new CyberJournalReplayError(`line ${line}: unknown journal entry ${entry.kind}`);
  });
  return { begin: first as BeginEntry, completed, inFlight: open, ended, closed };
}

/** The journal a run writes while it runs, and replays from when it resumes. */
export interface CyberJournalSession {
  /**
   * The next recorded step for `actor`: a completed one to replay, the one that was in flight, or
   * null when the journal is used up and the step runs live.
   *
   * @throws CyberJournalReplayError when the journal recorded another actor or another input here
   */
  take(actor: string, input: unknown): RecordedStep | null;
  /** Records that `actor` starts with `input`; returns the step's sequence number. */
  start(actor: string, input: unknown, facts: StepFacts): number;
  /** Records the outcome of step `seq`. */
  finish(
    seq: number,
    actor: string,
    outcome: { readonly output: unknown } | { readonly error: string },
    facts: StepFacts,
  ): void;
  /** Records that the machine reached its terminal record. */
  end(): void;
  /** Reports a side effect that is not a journal line (a child launched, a path restored). */
  sideEffect(name: string): void;
}

/**
 * A journal session over `path`: replays `plan`'s steps in order (the in-flight one last), then
 * records new steps. Every line written, and every other side effect, is reported to `onAppend`.
 *
 * @param path the journal file
 * @param plan what the journal already holds (null for a fresh run)
 * @param onAppend told after each line is on disk (the crash hook counts these)
 */
export function createCyberJournalSession(
  path: string,
  plan: CyberResumePlan | null,
  onAppend: (kind: string) => void,
): CyberJournalSession {
  const queue: RecordedStep[] = [...(plan?.completed ?? []), ...(plan?.inFlight ? [plan.inFlight] : [])];
  let seq = Math.max(0, ...queue.map((step) => step.seq));
  const append = (entry: JournalEntry) => {
    appendJournal(path, entry);
    onAppend(
      entry.kind === 'start' || entry.kind === 'done' || entry.kind === 'error'
        ? `${entry.kind} ${String(entry.actor)}`
        : entry.kind,
    );
  };
  return {
    take(actor, input) {
      const next = queue.shift();
      if (next === undefined) return null;
      if (next.actor !== actor)
        throw new CyberJournalReplayError(
          `the journal recorded ${next.actor} (step ${next.seq}) where the run now runs ${actor}`,
        );
      if (JSON.stringify(next.input) !== JSON.stringify(input))
        throw new CyberJournalReplayError(
          `step ${next.seq} (${actor}) was recorded with another input than the replay gives it`,
        );
      return next;
    },
    start(actor, input, facts) {
      seq += 1;
      append({ kind: 'start', seq, actor, input, facts });
      return seq;
    },
    finish(step, actor, outcome, facts) {
      append(
        'output' in outcome
          ? { kind: 'done', seq: step, actor, output: outcome.output, facts }
          : { kind: 'error', seq: step, actor, error: outcome.error, facts },
      );
    },
    end() {
      append({ kind: 'end' });
    },
    sideEffect(name) {
      onAppend(name);
    },
  };
}

/** A leftover temporary file of a restoration killed between its copy and its rename (checkpoint.ts). */
const RESTORE_TEMPORARY = /\.loopchart-\d+-\d+\.tmp$/;

/**
 * Proves that the worktree is where the journal left it before a run resumes, and stops what the
 * killed run left running (every check and patcher carries {@link CYBER_RUN_MARKER}). The rules:
 * HEAD is the one recorded after the last step; the scope equals the state recorded after the
 * last step, except while a patcher was in flight (whatever it changed in the scope is the
 * interrupted candidate's, and goes) or a revert or restoration was (each path is either as the
 * last step left it or as the checkpoint being restored holds it).
 *
 * @param plan the journal's plan (a run that ended needs nothing: it is only reported again)
 * @param worktree the worktree root
 * @param runDir the run's directory
 * @throws CyberResumeMismatchError when the worktree is not where the journal left it
 */
export async function verifyResumable(
  plan: CyberResumePlan,
  worktree: string,
  runDir: string,
): Promise<void> {
  if (plan.ended) return;
  const stopped = await terminateMarkedProcesses(CYBER_RUN_MARKER, runDir, { graceMs: 2000 });
  if (stopped !== null && stopped.survivors.length > 0)
    throw new CyberResumeMismatchError(
      runDir,
      `processes of the interrupted run still run after TERM and KILL: ${stopped.survivors.join(', ')}`,
    );
  const withFacts = [...plan.completed]
    .reverse()
    .find((step) => step.outcome !== null && 'head' in step.outcome.facts);
  const facts = withFacts?.outcome?.facts ?? {};
  const unreadable = plan.completed.at(-1)?.outcome?.facts.stateUnreadable;
  if (unreadable !== undefined)
    throw new CyberResumeMismatchError(
      runDir,
      `the worktree could not be read after the run's last recorded step (${String(unreadable)}), so nothing proves where it stood`,
    );
  const recordedHead = 'head' in facts ? (facts.head as string | null) : plan.begin.head;
  const head = await createGitPort(worktree)
    .revParse('HEAD')
    .catch(() => null);
  if (head !== recordedHead)
    throw new CyberResumeMismatchError(
      runDir,
      `HEAD moved from ${recordedHead ?? 'no commit'} to ${head ?? 'no commit'} since the run's last recorded step`,
    );
  const echo = plan.completed.find((step) => step.actor === 'echoContract');
  const scope = (echo?.input as { contract?: { scope?: string[] } } | undefined)?.contract?.scope;
  const last = facts.scope as ScopeEntry[] | undefined;
  if (scope === undefined || last === undefined) return;
  const inFlight = plan.inFlight;
  if (inFlight?.actor === 'applyCandidate') return;
  const now = await observeScope(worktree, scope);
  const changedSinceLast = compareScopeEntries(last, now);
  if (inFlight?.actor === 'revertCandidate' || inFlight?.actor === 'restoreCheckpoint') {
    const target = (await loadCheckpoint((inFlight.input as { checkpoint: string }).checkpoint)).entries;
    const kinds = new Map(now.map((entry) => [entry.path, entry.kind]));
    const notLast = new Set(changedSinceLast.map((d) => d.path));
    const foreign = compareScopeEntries(target, now).filter(
      (d) =>
        notLast.has(d.path) &&
        !RESTORE_TEMPORARY.test(d.path) &&
        // Restoring lifts a directory's owner bits for a while (checkpoint.ts, step 0).
        !(d.change === 'mode' && kinds.get(d.path) === 'directory'),
    );
    if (foreign.length > 0)
      throw new CyberResumeMismatchError(
        runDir,
        `${describe(foreign)} in the scope ${foreign.length === 1 ? 'is' : 'are'} neither as the run's last recorded step left ${foreign.length === 1 ? 'it' : 'them'} nor as the checkpoint being restored holds ${foreign.length === 1 ? 'it' : 'them'}`,
      );
    return;
  }
  if (changedSinceLast.length > 0)
    throw new CyberResumeMismatchError(
      runDir,
      `the scope changed since the run's last recorded step (${describe(changedSinceLast)}); the loop cannot prove the change is its own`,
    );
}

function describe(differences: readonly ScopeDifference[]): string {
  const shown = differences.slice(0, 10).map((d) => `${d.path} (${d.change})`);
  return differences.length > 10
    ? `${shown.join(', ')} and ${differences.length - 10} more`
    : shown.join(', ');
}
