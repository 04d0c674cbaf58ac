/**
 * The durable dispatch record: the host's provenance for one child dispatch (gauntlet-protocol
 * §3.9 "Retain dispatch/write provenance and background-launch records", §3.14 step 1).
 *
 * It is written under the git directory before the pending tuple reaches the ledger, and updated
 * at every step that a resumed run must know about: launch intent, launch (pid and OS start
 * identity, recorded right after spawn), the child's end, the boundary first observed, the
 * retained action records and the reset. A resumed run reads it to tell a child that never started
 * from one that did, to wait for a child still running, and to prove that the checkout changes it
 * would discard belong to this dispatch alone.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { FileAccessError, makeTempDir, readFileIfExists, writeFileAtomic } from '../effects/files.js';
import { jobsFilePath, worktreeIdentity } from '../effects/jobs.js';
import {
  type ChildTaskLeg,
  childTask,
  type DispatchPlan,
  type VerificationFailure,
} from '../gauntlet/dispatch.js';
import { formatPending, serializeLedger } from '../gauntlet/ledger.js';
import { dispatchFolder, type StateFiles } from './state-files.js';

const childReportSchema = z.object({
  returned: z.string().nullable(),
  dispatchError: z.string().optional(),
  killedAfterSilence: z.boolean().optional(),
});

const boundarySchema = z.object({
  porcelain: z.string(),
  commitCount: z.number().int().nonnegative(),
  commit: z.object({ sha: z.string(), subject: z.string(), body: z.string() }).nullable(),
  headLedgerText: z.string().nullable(),
});

/** Schema of `record.json` in a dispatch folder. */
export const dispatchRecordSchema = z.object({
  version: z.literal(1),
  /** The exact tuple line, `pending: <target> | <repo> | <HEAD_BEFORE>`. */
  tuple: z.string(),
  /** The pre-bump iteration `i`. */
  iteration: z.number().int().nonnegative(),
  /** `HEAD_BEFORE`. */
  headBefore: z.string(),
  /** Repo-relative ledger path. */
  ledgerPath: z.string(),
  /** The reserved ledger's exact bytes (bump and tuple), as written on disk. */
  reservedLedger: z.string(),
  /** The ledger before the bump and tuple (the before-image). */
  savedLedger: z.string(),
  /**
   * The plan the machine reserved, as given (task fields included): reported back to the machine
   * as the workspace's reservation. Absent in records written before it was kept.
   */
  plan: z
    .custom<DispatchPlan>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        'pending' in value &&
        'saved' in value &&
        'reserved' in value &&
        'iteration' in value,
    )
    .optional(),
  taskFile: z.string(),
  returnFile: z.string(),
  /** The temporary folder holding the return file (removed with the record). */
  returnDir: z.string(),
  jobsFile: z.string(),
  logFile: z.string(),
  /** Token of the worktree lock the reserving run held. */
  lock: z.string(),
  /** `git status --porcelain` lines before the reservation: changes this dispatch cannot own. */
  dirtBefore: z.array(z.string()),
  /** Set just before spawn: from here on the child may have started. */
  launching: z.boolean(),
  /** Set right after spawn, with the pid and the OS-observed start identity. */
  launched: z.boolean(),
  pid: z.number().int().nullable(),
  startIdentity: z.string().nullable(),
  launchedAt: z.string().nullable(),
  /** Set when the child ended and the host saw its whole process group exit. */
  finished: z.boolean(),
  /** The child report the host derived from the child's end. */
  result: childReportSchema.nullable(),
  /** True once the child's own process group was seen to exit. */
  groupExited: z.boolean(),
  /** True when the launch could not be proven either way (a crash between intent and record). */
  launchUncertain: z.boolean(),
  /**
   * Write provenance: the worktree's changes (HEAD, changed paths, content digests) as the host saw
   * them when the child ended. Anything different later was not written by the child.
   */
  childWrites: z
    .object({
      head: z.string(),
      changes: z.array(z.object({ xy: z.string(), path: z.string(), digest: z.string() })),
    })
    .nullable(),
  /** The boundary the host first observed after the return. */
  boundary: boundarySchema.nullable(),
  /** Action records retained for the repair body (jobs file, child bodies, child ledger edits). */
  retainedRecords: z.array(z.string()),
  /**
   * Set just before `reset --hard HEAD_BEFORE` and `clean -fd`: from here on the recorded boundary,
   * not the checkout, says how the dispatch ended.
   */
  resetBegun: z.boolean(),
});

/** One dispatch record. */
export type DispatchRecord = z.infer<typeof dispatchRecordSchema>;

/** What a reservation knows when it writes a dispatch's first record ({@link freshDispatchRecord}). */
export interface FreshDispatchInput {
  /** The plan the machine reserved, stored as given (its tuple, iteration and HEAD_BEFORE). */
  readonly plan: DispatchPlan;
  /** Repo-relative ledger path. */
  readonly ledgerPath: string;
  /** The ledger before the bump and tuple (the before-image), serialized. */
  readonly savedLedger: string;
  /** The reserved ledger (bump and tuple), serialized. */
  readonly reservedLedger: string;
  /** The dispatch folder (the child's log goes there). */
  readonly folder: string;
  readonly taskFile: string;
  readonly returnFile: string;
  readonly returnDir: string;
  readonly jobsFile: string;
  /** Token of the worktree lock the reserving run holds. */
  readonly lock: string;
  /** `git status --porcelain` lines of the dispatch's checkout before the reservation. */
  readonly dirtBefore: readonly string[];
}

/**
 * The record of a dispatch just reserved: nothing launched, nothing finished, no boundary seen, no
 * action records retained, no reset begun. Home and companion dispatches start from the same state.
 *
 * @param input the plan, the ledger texts, the dispatch's files, the lock and the dirt before it
 */
export function freshDispatchRecord(input: FreshDispatchInput): DispatchRecord {
  const { plan } = input;
  return {
    version: 1,
    tuple: formatPending(plan.pending),
    iteration: plan.iteration,
    headBefore: plan.pending.head,
    ledgerPath: input.ledgerPath,
    reservedLedger: input.reservedLedger,
    savedLedger: input.savedLedger,
    plan,
    taskFile: input.taskFile,
    returnFile: input.returnFile,
    returnDir: input.returnDir,
    jobsFile: input.jobsFile,
    logFile: join(input.folder, 'child.log'),
    lock: input.lock,
    dirtBefore: [...input.dirtBefore],
    launching: false,
    launched: false,
    pid: null,
    startIdentity: null,
    launchedAt: null,
    finished: false,
    result: null,
    groupExited: false,
    launchUncertain: false,
    childWrites: null,
    boundary: null,
    retainedRecords: [],
    resetBegun: false,
  };
}

/** What {@link writeFreshDispatch} lays out for one reserved dispatch. */
export interface FreshDispatchLayout {
  readonly files: StateFiles;
  /** The plan as the record stores it (a companion's with its home HEAD). */
  readonly plan: DispatchPlan;
  /** Repo-relative ledger and spec paths (both in home). */
  readonly ledgerPath: string;
  readonly specPath: string;
  /** The ledger before the bump and tuple, serialized. */
  readonly savedLedger: string;
  /** The home worktree: the reserved ledger is written there. */
  readonly home: string;
  /** The checkout the child works in: home, or a companion's. */
  readonly checkout: string;
  /** That checkout's git directory (the jobs file is keyed by its identity). */
  readonly checkoutGitDir: string;
  /** The base the jobs file is keyed by: the ledger's, or the companion member's. */
  readonly jobsBase: string;
  /** Token of the worktree lock the reserving run holds. */
  readonly lock: string;
  /** `git status --porcelain` lines of the child's checkout before the reservation. */
  readonly dirtBefore: readonly string[];
  /** The failing gate of a verification repair, else `null`. */
  readonly verification: VerificationFailure | null;
  /** The task's `leg` on a coordinated run. */
  readonly leg?: ChildTaskLeg;
  /** Runs right before the reserved ledger is written (the caller forgets home's cached status). */
  readonly beforeLedgerWrite?: () => void;
}

/**
 * Lays out a reserved dispatch, in the order a resumed run relies on (§3.9): stale settled
 * records removed and a fresh dispatch folder made, a return folder outside the child's checkout,
 * the jobs file path keyed by the checkout and base, then the durable record, the task file, and
 * last the reserved ledger (bump and tuple) in home, uncommitted. The record comes first, so a
 * reserved tuple always has a record. Home and companion reservations share it.
 *
 * @param layout the plan, paths, checkout and task extras
 * @returns the record written
 */
export async function writeFreshDispatch(layout: FreshDispatchLayout): Promise<DispatchRecord> {
  const { files, plan } = layout;
  const folder = dispatchFolder(files, plan.iteration);
  // The machine reserves only when no dispatch is in flight (it resumes and settles one first),
  // so every readable record left is settled, or a reservation that never completed: nothing
  // runs under it any more. An unreadable record is left for a person to see.
  for (const stale of await listDispatchRecords(files))
    if (stale.ok || stale.folder === folder)
      await removeDispatchFolder(stale.folder, stale.ok ? stale.record.returnDir : undefined);
  await removeDispatchFolder(folder);
  await mkdir(folder, { recursive: true });
  const returnDir = await makeTempDir('loopchart-return-', { outside: layout.checkout });
  const returnFile = join(returnDir, 'return.json');
  const jobsFile = jobsFilePath({
    baseSha: layout.jobsBase,
    iteration: plan.iteration,
    worktreeId: worktreeIdentity(layout.checkoutGitDir),
  });
  const taskFile = join(folder, 'task.json');
  const reservedLedger = serializeLedger(plan.reserved);
  const record = freshDispatchRecord({
    plan,
    ledgerPath: layout.ledgerPath,
    savedLedger: layout.savedLedger,
    reservedLedger,
    folder,
    taskFile,
    returnFile,
    returnDir,
    jobsFile,
    lock: layout.lock,
    dirtBefore: layout.dirtBefore,
  });
  await writeDispatchRecord(files, record);
  // The task is the plan's (hint, previous decision, model, carried spend); the host adds paths.
  const task = childTask(
    plan,
    { worktree: layout.checkout, ledger: layout.ledgerPath, spec: layout.specPath, returnFile, jobsFile },
    { verification: layout.verification, ...(layout.leg === undefined ? {} : { leg: layout.leg }) },
  );
  await writeFileAtomic(taskFile, `${JSON.stringify(task, null, 2)}\n`);
  layout.beforeLedgerWrite?.();
  await writeFileAtomic(join(layout.home, layout.ledgerPath), reservedLedger);
  return record;
}

/** A record read from disk: the record, or why it could not be read. */
export type StoredRecord =
  | { readonly ok: true; readonly folder: string; readonly record: DispatchRecord }
  | { readonly ok: false; readonly folder: string; readonly problem: string };

/** The record file of a dispatch folder. */
export function recordFileOf(folder: string): string {
  return join(folder, 'record.json');
}

/**
 * Reads the record of iteration `i`, or `null` when there is none.
 *
 * @param files the host's state files
 * @param iteration the pre-bump iteration
 */
export async function readDispatchRecord(files: StateFiles, iteration: number): Promise<StoredRecord | null> {
  return readRecordIn(dispatchFolder(files, iteration));
}

async function readRecordIn(folder: string): Promise<StoredRecord | null> {
  let text: string | null;
  try {
    text = await readFileIfExists(recordFileOf(folder));
  } catch (error) {
    return { ok: false, folder, problem: (error as Error).message };
  }
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, folder, problem: `dispatch record is not JSON: ${(error as Error).message}` };
  }
  const parsed = dispatchRecordSchema.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      folder,
      problem: `dispatch record is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  return { ok: true, folder, record: parsed.data };
}

/**
 * Every dispatch record on disk, in ascending iteration order.
 *
 * @param files the host's state files
 */
export async function listDispatchRecords(files: StateFiles): Promise<StoredRecord[]> {
  let names: string[];
  try {
    names = await readdir(files.dispatches);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new FileAccessError(files.dispatches, 'list', error);
  }
  const folders = names
    .map((name) => ({ name, i: /^iteration-(\d+)$/.exec(name)?.[1] }))
    .filter((entry): entry is { name: string; i: string } => entry.i !== undefined)
    .sort((a, b) => Number(a.i) - Number(b.i));
  const records: StoredRecord[] = [];
  for (const { name } of folders) {
    const stored = await readRecordIn(join(files.dispatches, name));
    if (stored !== null) records.push(stored);
  }
  return records;
}

/**
 * Writes a record atomically (a reader sees the old or the new record, never a mix), creating
 * its folder.
 *
 * @param files the host's state files
 * @param record the record
 */
export async function writeDispatchRecord(files: StateFiles, record: DispatchRecord): Promise<void> {
  const folder = dispatchFolder(files, record.iteration);
  await mkdir(folder, { recursive: true });
  await writeFileAtomic(recordFileOf(folder), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * Updates a record: reads it, applies `change`, writes it back.
 *
 * @returns the updated record
 * @throws Error when the record is missing or unreadable
 */
export async function updateDispatchRecord(
  files: StateFiles,
  iteration: number,
  change: (record: DispatchRecord) => DispatchRecord,
): Promise<DispatchRecord> {
  const stored = await readDispatchRecord(files, iteration);
  if (stored === null) throw new Error(`no dispatch record for iteration ${iteration}`);
  if (!stored.ok) throw new Error(stored.problem);
  const next = change(stored.record);
  await writeDispatchRecord(files, next);
  return next;
}

/**
 * Removes a dispatch's folder and its temporary return folder. Call only once the dispatch is
 * settled (its admission or repair commit is durable).
 *
 * @param folder the dispatch folder
 * @param returnDir the record's return folder, when known
 */
export async function removeDispatchFolder(folder: string, returnDir?: string): Promise<void> {
  if (returnDir !== undefined) await rm(returnDir, { recursive: true, force: true });
  await rm(folder, { recursive: true, force: true });
}
