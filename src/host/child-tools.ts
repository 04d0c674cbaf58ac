/**
 * The effects behind `loopchart child …` (docs/agents.md): read the dispatch a child runs in from
 * `LOOPCHART_TASK`, apply the pure ledger edits of src/gauntlet/child-edits.ts to the ledger on
 * disk, append action records to the jobs file, run the loop's own return validation on the
 * working tree, commit, and write the return. Every tool refuses, with a named error, what the
 * child contract forbids.
 */
import { dirname, join } from 'node:path';
import { InputError } from '../common/errors.js';
import { readFileIfExists, writeFileAtomic } from '../effects/files.js';
import { createGitPort, type GitPort } from '../effects/git.js';
import { parseJobsFile, recordActionLine } from '../effects/jobs.js';
import { parseActionRecord } from '../gauntlet/action-records.js';
import { childTaskSchema } from '../gauntlet/child-contract.js';
import { type ChildCommitMessage, ChildEditError, childCommitMessage } from '../gauntlet/child-edits.js';
import { companionReturnLines, validateLegReturn } from '../gauntlet/companion.js';
import type { ChildTask } from '../gauntlet/dispatch.js';
import { parseLedger, parsePending, serializeLedger } from '../gauntlet/ledger.js';
import { ledgerRowTexts } from '../gauntlet/leg-amendments.js';
import { parseSpec } from '../gauntlet/spec.js';
import type { ActionRecord, Ledger, PendingTuple, SpecRow } from '../gauntlet/types.js';
import type { MissCode } from '../gauntlet/validate.js';
import { validateVerificationReturn } from '../gauntlet/verify.js';
import { CHILD_ENV } from './child-environment.js';
import { unexpectedDirt } from './worktree-view.js';

/** Everything a child tool knows about the dispatch it runs in. */
export interface ChildDispatch {
  readonly taskFile: string;
  readonly task: ChildTask;
  /** The dispatch's tuple, read from the task's first commit-body line. */
  readonly pending: PendingTuple;
  /**
   * Absolute path the tools write the edited ledger to: the ledger itself, or on a companion
   * dispatch the draft beside the return file (the home ledger is never written from a companion).
   */
  readonly ledgerPath: string;
  /** The ledger as the child's work stands: the file on disk, or a companion's draft once recorded. */
  readonly ledgerText: string;
  /** The checkout the child works in (a companion's own checkout on a companion dispatch). */
  readonly git: GitPort;
  /**
   * On a companion dispatch (docs/decisions/legs.md L21): the home checkout, the home ledger on
   * disk (the reserved one, read only) and home's HEAD when the dispatch was reserved (the task's
   * `leg.homeHead`, L22); `null` otherwise.
   */
  readonly home: { readonly git: GitPort; readonly ledgerText: string; readonly headBefore: string } | null;
  /** Action-record lines of the jobs file (spends of this dispatch), in file order. */
  readonly spent: readonly string[];
}

/**
 * Reads the dispatch from `LOOPCHART_TASK`.
 *
 * @param env the environment
 * @throws InputError `child.environment` outside a dispatch, `child.task` for an unreadable task
 */
export async function loadChildDispatch(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<ChildDispatch> {
  const taskFile = env[CHILD_ENV.task];
  if (taskFile === undefined || taskFile === '')
    throw new InputError(
      'child.environment',
      `${CHILD_ENV.task} is not set: the child tools run inside a loop dispatch (loopchart run starts the child with it)`,
    );
  const text = await readFileIfExists(taskFile);
  if (text === null) throw new InputError('child.task', `the task file ${taskFile} does not exist`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('child.task', `the task file ${taskFile} is not JSON: ${(error as Error).message}`);
  }
  const parsed = childTaskSchema.safeParse(value);
  if (!parsed.success)
    throw new InputError('child.task', `the task file ${taskFile} is not a task: ${parsed.error.message}`);
  const task = parsed.data as ChildTask;
  const pending = parsePending(task.commitBody[0]);
  if (pending === null)
    throw new InputError(
      'child.task',
      `the task's first commit-body line is not a pending tuple: ${task.commitBody[0]}`,
    );
  const jobs = await readFileIfExists(task.jobsFile);
  const spent = jobs === null ? [] : parseJobsFile(jobs).actionRecordLines;
  const git = createGitPort(task.worktree);
  const leg = task.leg;
  if (leg?.companion === true) {
    // A companion reads the home ledger and spec; its edits go to a draft beside the return file.
    if (leg.homeHead === undefined)
      throw new InputError(
        'child.task',
        `the companion task ${taskFile} does not name home's HEAD at the dispatch (leg.homeHead): the check cannot fence home without it`,
      );
    const homeLedger = await readFileIfExists(leg.homeLedger);
    if (homeLedger === null)
      throw new InputError('child.task', `the home ledger ${leg.homeLedger} does not exist`);
    const ledgerPath = companionDraftPath(task);
    const draft = await readFileIfExists(ledgerPath);
    return {
      taskFile,
      task,
      pending,
      ledgerPath,
      ledgerText: draft ?? homeLedger,
      git,
      home: { git: createGitPort(leg.home), ledgerText: homeLedger, headBefore: leg.homeHead },
      spent,
    };
  }
  const ledgerPath = join(task.worktree, task.ledger);
  const ledgerText = await readFileIfExists(ledgerPath);
  if (ledgerText === null) throw new InputError('child.task', `the ledger ${task.ledger} does not exist`);
  return { taskFile, task, pending, ledgerPath, ledgerText, git, home: null, spent };
}

/**
 * Where `child record` and `child seed` keep a companion's edited ledger: a draft in the
 * dispatch's return folder (outside both checkouts, removed with the dispatch). `child commit`
 * turns it into the companion commit's body lines.
 */
export function companionDraftPath(task: ChildTask): string {
  return join(dirname(task.returnFile), 'companion-ledger.md');
}

/**
 * The ledger on disk, parsed.
 *
 * @throws InputError (`child.ledger`) when it does not parse
 */
export function diskLedger(dispatch: ChildDispatch): Ledger {
  return parsedLedger(dispatch.ledgerText, dispatch);
}

/**
 * The ledger the row and seed tools edit: the ledger on disk, or on a companion dispatch the home
 * ledger as reserved (so recording again replaces the companion's earlier draft).
 *
 * @throws InputError (`child.ledger`) when it does not parse
 */
export function editableLedger(dispatch: ChildDispatch): Ledger {
  return dispatch.home === null ? diskLedger(dispatch) : parsedLedger(dispatch.home.ledgerText, dispatch);
}

function parsedLedger(text: string, dispatch: ChildDispatch): Ledger {
  const parsed = parseLedger(text);
  if (parsed.ledger === null)
    throw new InputError(
      'child.ledger',
      `the ledger ${dispatch.task.ledger} does not parse: ${parsed.findings.map((f) => f.reason).join('; ')}`,
    );
  return parsed.ledger;
}

/** Writes an edited ledger back to disk (a companion's to its draft). */
export async function writeLedger(dispatch: ChildDispatch, ledger: Ledger): Promise<void> {
  await writeFileAtomic(dispatch.ledgerPath, serializeLedger(ledger));
}

/**
 * The text of each ledger row from the spec (the home spec on a coordinated run), numbered by
 * ledger row: a coordinated row carries its criterion's text through `## Leg mapping`
 * ({@link ledgerRowTexts}). `[]` when the spec cannot be read.
 */
export async function specRows(dispatch: ChildDispatch): Promise<readonly SpecRow[]> {
  const { task } = dispatch;
  const text = await readFileIfExists(task.leg?.homeSpec ?? join(task.worktree, task.spec));
  if (text === null) return [];
  const ledger = parseLedger(dispatch.ledgerText).ledger;
  return ledgerRowTexts(parseSpec(text).spec.rows, ledger);
}

/** Appends one action-record line to the dispatch's jobs file. */
export async function appendSpend(dispatch: ChildDispatch, line: string): Promise<void> {
  await recordActionLine(dispatch.task.jobsFile, line);
}

/** What `child check` found. */
export type ChildCheck =
  /** The loop would admit the return. */
  | { readonly kind: 'admitted'; readonly subject: string }
  /** The loop would record this validation miss (the same code and text). */
  | { readonly kind: 'miss'; readonly code: MissCode | 'miss.verification'; readonly miss: string }
  /** The loop would take the return as interrupted, or could not attribute it. */
  | { readonly kind: 'interrupted' | 'unattributed'; readonly reason: string };

/** Overrides of the commit `child check` judges (default: the one `child commit` would make). */
export interface CheckOverrides {
  readonly subject?: string;
  readonly body?: string;
}

async function savedLedger(dispatch: ChildDispatch): Promise<Ledger> {
  const { task, pending, home } = dispatch;
  // A companion's tuple names the companion's HEAD: the saved ledger is home's committed one (L11).
  const [text] =
    home === null
      ? await dispatch.git.readBlobs([{ rev: pending.head, path: task.ledger }])
      : await home.git.readBlobs([{ rev: 'HEAD', path: task.ledger }]);
  const parsed = text === null || text === undefined ? null : parseLedger(text).ledger;
  if (parsed === null)
    throw new InputError(
      'child.ledger',
      home === null
        ? `the ledger ${task.ledger} at the dispatch's HEAD ${pending.head} cannot be read`
        : `the home ledger ${task.ledger} at home's HEAD cannot be read`,
    );
  return parsed;
}

/**
 * The commit message `child commit` writes for the ledger as the child's work stands. On a
 * companion's row or seed the body carries, after the two attribution lines, the changed rows as
 * table lines and the new decision lines (docs/child-contract.md), then the action records.
 */
function dispatchCommitMessage(dispatch: ChildDispatch, ledger: Ledger): ChildCommitMessage {
  const message = childCommitMessage(dispatch.task, ledger, dispatch.spent);
  const { task, home } = dispatch;
  if (home === null || task.leg === undefined || task.kind === 'verify') return message;
  const reserved = parsedLedger(home.ledgerText, dispatch);
  const [tuple = '', iteration = '', ...records] = message.body.split('\n');
  const lines = companionReturnLines(reserved, ledger, task.leg.member, task.kind === 'seed');
  return { subject: message.subject, body: [tuple, iteration, ...lines, ...records].join('\n') };
}

/**
 * Home as a companion dispatch left it: its HEAD (compared by the validation with the HEAD it had
 * at the reservation), and its changes besides the reserved ledger (a home ledger that is not the
 * saved one with the bump and tuple counts as a change).
 */
async function homeFence(
  dispatch: ChildDispatch,
  home: NonNullable<ChildDispatch['home']>,
  saved: Ledger,
): Promise<{ head: string; dirt: string }> {
  const [head, status] = await Promise.all([home.git.revParseHead(), home.git.statusPorcelain()]);
  const reserved = serializeLedger({ ...saved, iterations: saved.iterations + 1, pending: dispatch.pending });
  return { head, dirt: unexpectedDirt(status, dispatch.task.ledger, home.ledgerText, [reserved]) };
}

function records(lines: readonly string[]): ActionRecord[] {
  return lines.map(parseActionRecord).filter((r): r is ActionRecord => r !== null);
}

function ledgerOrFindings(text: string | null) {
  if (text === null) return [{ line: 0, code: 'ledger.absent', reason: 'the ledger is missing' }] as const;
  const parsed = parseLedger(text);
  return parsed.ledger ?? parsed.findings;
}

/**
 * Runs the loop's own return validation (`validateLegReturn`, or the verification admission for a
 * verification repair) on the dispatch as it stands. Before the commit it judges the working tree
 * as if `child commit` had committed it (DONE, clean, one commit, the commit message the tool
 * would write unless overridden); after the commit it judges HEAD, the tree and the commit count as
 * they are. On a companion dispatch the commit is the companion checkout's, its rows and decisions
 * are read from its body, and home must be at the HEAD the task names (`leg.homeHead`) and show
 * nothing but the reserved ledger: a moved home HEAD is the loop's `unattributed` verdict, with the
 * loop's own text (docs/decisions/legs.md L22).
 *
 * @param dispatch the dispatch
 * @param overrides a subject or body to judge instead of the tool's own (before the commit only)
 */
export async function checkChildReturn(
  dispatch: ChildDispatch,
  overrides: CheckOverrides = {},
): Promise<ChildCheck> {
  const { task, git, pending, home } = dispatch;
  const saved = await savedLedger(dispatch);
  const head = await git.revParseHead();
  let boundary: { returned: string; porcelain: string; commitCount: number };
  let commit: { sha: string; subject: string; body: string };
  let headLedgerText: string | null;
  if (head === pending.head) {
    const onDisk = parseLedger(dispatch.ledgerText).ledger;
    let message: { subject: string; body: string };
    try {
      message =
        onDisk === null
          ? { subject: task.commitSubject, body: task.commitBody.join('\n') }
          : dispatchCommitMessage(dispatch, onDisk);
    } catch (error) {
      if (!(error instanceof ChildEditError) || overrides.subject === undefined) throw error;
      message = { subject: overrides.subject, body: task.commitBody.join('\n') };
    }
    boundary = { returned: 'DONE', porcelain: '', commitCount: 1 };
    commit = {
      sha: head,
      subject: overrides.subject ?? message.subject,
      body: overrides.body ?? message.body,
    };
    headLedgerText = home === null ? dispatch.ledgerText : home.ledgerText;
  } else {
    const status = await git.statusPorcelain();
    const count = await git.revListCount(pending.head, 'HEAD');
    const [log] = await git.logSince(`${head}~1`, head);
    commit = { sha: head, subject: log?.subject ?? '', body: log?.body ?? '' };
    boundary = {
      returned: 'DONE',
      porcelain: status.map((e) => `${e.xy} ${e.path}`).join('\n'),
      commitCount: count,
    };
    [headLedgerText] =
      home === null
        ? ((await git.readBlobs([{ rev: head, path: task.ledger }])) as [string | null])
        : [home.ledgerText];
  }
  const fence = home === null ? null : await homeFence(dispatch, home, saved);
  if (task.kind === 'verify') {
    const outcome = validateVerificationReturn({
      pending,
      saved,
      boundary,
      commit,
      headLedger: ledgerOrFindings(headLedgerText),
      ...(fence === null || home === null
        ? {}
        : { home: { headMoved: fence.head !== home.headBefore, unexpectedDirt: fence.dirt } }),
    });
    if (outcome.kind === 'admitted') return { kind: 'admitted', subject: commit.subject };
    if (outcome.kind === 'unattributed' || outcome.kind === 'home-changed')
      return { kind: 'unattributed', reason: outcome.detail };
    return { kind: 'miss', code: 'miss.verification', miss: outcome.reason };
  }
  const outcome = validateLegReturn({
    target: task.target as number | 'seed',
    iteration: task.iteration,
    pending,
    saved,
    boundary,
    commit,
    headLedger: ledgerOrFindings(headLedgerText),
    retainedActionRecords: records([...task.actionRecords, ...dispatch.spent]),
    ...(fence === null || home === null
      ? {}
      : { home: { headBefore: home.headBefore, head: fence.head, porcelain: fence.dirt } }),
  });
  if (outcome.kind === 'admitted') return { kind: 'admitted', subject: commit.subject };
  if (outcome.kind === 'miss') return { kind: 'miss', code: outcome.code, miss: outcome.miss };
  if (outcome.kind === 'interrupted') return { kind: 'interrupted', reason: outcome.reason };
  return { kind: 'unattributed', reason: outcome.detail };
}

/** A check that did not pass, as the named error the child tools exit with. */
export class ChildCheckError extends InputError {
  constructor(check: Exclude<ChildCheck, { kind: 'admitted' }>) {
    super(
      check.kind === 'miss' ? check.code : `return.${check.kind}`,
      check.kind === 'miss'
        ? `the loop would record a validation miss (${check.code}): ${check.miss}`
        : check.kind === 'interrupted'
          ? `the loop would take this return as interrupted: ${check.reason}`
          : `the loop could not attribute this commit to the dispatch: ${check.reason}`,
    );
  }
}

/**
 * Commits the dispatch's work: every changed, added or deleted path of the working tree (ignored
 * files stay out) with the subject and body the loop expects, after `child check` passed. On a
 * companion dispatch the commit is made in the companion checkout, its body carries the rows and
 * decisions (the home ledger is never written), and it may change no file (a seed changes no code).
 *
 * @returns the new commit and its subject
 * @throws InputError `child.committed` when the dispatch already has its commit, ChildCheckError
 *   when the loop would not admit the return
 */
export async function commitChild(dispatch: ChildDispatch): Promise<{ sha: string; subject: string }> {
  const head = await dispatch.git.revParseHead();
  if (head !== dispatch.pending.head)
    throw new InputError(
      'child.committed',
      `HEAD moved from ${dispatch.pending.head} to ${head}: a dispatch makes exactly one commit, and it is made`,
    );
  const check = await checkChildReturn(dispatch);
  if (check.kind !== 'admitted') throw new ChildCheckError(check);
  const ledger = parseLedger(dispatch.ledgerText).ledger as Ledger;
  const message = dispatchCommitMessage(dispatch, ledger);
  const paths = (await dispatch.git.statusPorcelain()).map((entry) => entry.path);
  const sha = await dispatch.git.commitFiles({
    paths,
    subject: message.subject,
    body: message.body,
    ...(dispatch.home !== null && paths.length === 0 ? { allowEmpty: true } : {}),
  });
  return { sha, subject: message.subject };
}

/**
 * Writes the return file. `DONE` is refused until the dispatch's commit is made and the tree is
 * clean (the loop would take it as interrupted and spend the attempt).
 *
 * @param status `DONE` or another status (`BLOCKED`, `NEEDS_INPUT`, …)
 * @param summary one line for the transcript
 */
export async function writeChildReturn(
  dispatch: ChildDispatch,
  status: string,
  summary?: string,
): Promise<void> {
  if (!/^[A-Z][A-Z0-9_]*$/.test(status))
    throw new InputError(
      'child.return',
      `the status must be DONE or another upper-case word, got "${status}"`,
    );
  if (status === 'DONE') {
    const head = await dispatch.git.revParseHead();
    const count = await dispatch.git.revListCount(dispatch.pending.head, 'HEAD');
    if (head === dispatch.pending.head || count !== 1)
      throw new InputError(
        'child.return',
        count === 0
          ? 'DONE needs the dispatch commit: run `loopchart child commit` first'
          : `the dispatch has ${count} commits; the loop admits exactly one`,
      );
    const dirty = await dispatch.git.statusPorcelain();
    if (dirty.length > 0)
      throw new InputError(
        'child.return',
        `the tree is not clean after the commit (${dirty.map((e) => e.path).join(', ')}); the loop would take DONE as interrupted`,
      );
  }
  await writeFileAtomic(
    dispatch.task.returnFile,
    `${JSON.stringify({ status, ...(summary === undefined ? {} : { summary }) })}\n`,
  );
}

/**
 * The cybernetic patcher's task, when `LOOPCHART_TASK` names one (its `protocol` is
 * `cybernetic-loop`), else `null`. The patcher uses only `child return`: the loop reads the tree.
 */
export async function patcherReturnFile(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string | null> {
  const taskFile = env[CHILD_ENV.task];
  if (taskFile === undefined || taskFile === '') return null;
  const text = await readFileIfExists(taskFile);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { protocol?: unknown; returnFile?: unknown };
    return value.protocol === 'cybernetic-loop' && typeof value.returnFile === 'string'
      ? value.returnFile
      : null;
  } catch {
    return null;
  }
}

/** Writes a patcher's return (`{"status": …, "summary": …}`). */
export async function writePatcherReturn(
  returnFile: string,
  status: string,
  summary?: string,
): Promise<void> {
  if (!/^[A-Z][A-Z0-9_]*$/.test(status))
    throw new InputError(
      'child.return',
      `the status must be DONE or another upper-case word, got "${status}"`,
    );
  await writeFileAtomic(
    returnFile,
    `${JSON.stringify({ status, ...(summary === undefined ? {} : { summary }) })}\n`,
  );
}
