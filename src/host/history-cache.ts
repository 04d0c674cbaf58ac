/**
 * The incremental history cache: the commits of `<ledger base>..<sha>` as the history reads them
 * (subject, repair bodies, whether the ledger and other paths changed) and the facts the replay
 * derived from their ledgers (the latest admission's decision line and cells, repair kinds, empty
 * returns), kept under the worktree's git directory (`git rev-parse --git-path
 * loopchart/history/…`, never in the worktree) so that a resume or the next iteration asks git only
 * for the commits since `<sha>` and reads no ledger version whose facts it already holds.
 *
 * The cache is an optimisation and never an authority: a file that does not parse, was written by
 * another format version, names another ledger base or ledger path, or whose `<sha>` is not the
 * parent of the first new commit (rewritten or reset history) is ignored and rebuilt from git.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseSubject } from '../gauntlet/commits.js';
import type { CommitLedgerFacts, HistoryCommit, RepairKind } from '../gauntlet/history.js';

/**
 * Bumped whenever what a cached commit keeps, or how a fact is derived, changes; other versions are
 * ignored. 2: the facts derived from commit ledgers. 3: a companion seed's record (`loop: record
 * <member> row 0`) is a loop subject and keeps its subject (earlier versions blanked it).
 */
export const HISTORY_CACHE_VERSION = 3;

/** What one cache file holds. */
export interface HistoryCacheEntry {
  readonly version: typeof HISTORY_CACHE_VERSION;
  /** The ledger's `base:` SHA the commits are counted from. */
  readonly base: string;
  /** The repo-relative ledger path the commits were read for. */
  readonly ledgerPath: string;
  /** The newest commit covered (the end of `base..head`). */
  readonly head: string;
  /** The commits of `base..head`, oldest first, compacted by {@link compactCommit}. */
  readonly commits: readonly HistoryCommit[];
  /** Facts the replay derived from ledgers, by commit SHA; only for commits of `commits`. */
  readonly facts: ReadonlyMap<string, CommitLedgerFacts>;
}

const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * The file of the cache for one ledger base and path, inside `root` (the `--git-path` of
 * `loopchart/history`).
 *
 * @param root absolute folder of the history caches
 * @param base the ledger base
 * @param ledgerPath the repo-relative ledger path
 */
export function historyCacheFile(root: string, base: string, ledgerPath: string): string {
  const key = createHash('sha256').update(`${base}\0${ledgerPath}`).digest('hex').slice(0, 24);
  return join(root, `${key}.json`);
}

/**
 * A commit reduced to what the history reads: the subject of loop commits (others become `''`), the
 * body of `loop: repair …` commits only, and of its paths the ledger (when changed) and one other
 * changed path (when any), which is all that "touched the ledger" and "changed only the ledger" need.
 *
 * @param commit a commit from `git log`
 * @param ledgerPath the repo-relative ledger path
 */
export function compactCommit(commit: HistoryCommit, ledgerPath: string): HistoryCommit {
  const subject = parseSubject(commit.subject);
  const repair =
    subject.kind === 'repair-row' || subject.kind === 'repair-seed' || subject.kind === 'repair-verification';
  const other = commit.paths.find((path) => path !== ledgerPath);
  const paths = commit.paths.includes(ledgerPath) ? [ledgerPath] : [];
  if (other !== undefined) paths.push(other);
  return {
    sha: commit.sha,
    subject: subject.kind === 'other' ? '' : commit.subject,
    body: repair ? commit.body : '',
    paths,
  };
}

function isCommit(value: unknown): value is HistoryCommit {
  if (!Array.isArray(value) || value.length !== 4) return false;
  const [sha, subject, body, paths] = value as unknown[];
  return (
    typeof sha === 'string' &&
    OBJECT_NAME.test(sha) &&
    typeof subject === 'string' &&
    typeof body === 'string' &&
    Array.isArray(paths) &&
    paths.every((path) => typeof path === 'string')
  );
}

function isRepairKind(value: unknown): value is RepairKind {
  if (typeof value !== 'object' || value === null) return false;
  const { kind, miss } = value as { kind?: unknown; miss?: unknown };
  if (kind === 'miss') return typeof miss === 'string' && Object.keys(value).length === 2;
  return (kind === 'interrupted' || kind === 'unknown') && Object.keys(value).length === 1;
}

function isStringOrNull(value: unknown): value is string | null {
  return value === null || typeof value === 'string';
}

/** The facts of one cached commit, checked field by field; `null` when anything is off. */
function factsOf(value: unknown): CommitLedgerFacts | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const facts: { -readonly [K in keyof CommitLedgerFacts]: CommitLedgerFacts[K] } = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'target' && isStringOrNull(field)) facts.target = field;
    else if (key === 'empty' && typeof field === 'boolean') facts.empty = field;
    else if (key === 'repair' && isRepairKind(field)) facts.repair = { ...field };
    else if (
      key === 'seeds' &&
      (field === null || (Array.isArray(field) && field.every((l) => typeof l === 'string')))
    )
      facts.seeds = field === null ? null : [...field];
    else if (
      key === 'cells' &&
      (field === null ||
        (typeof field === 'object' &&
          typeof (field as { status?: unknown }).status === 'string' &&
          typeof (field as { evidence?: unknown }).evidence === 'string' &&
          Object.keys(field).length === 2))
    )
      facts.cells = field === null ? null : { status: field.status, evidence: field.evidence };
    else return null;
  }
  return facts;
}

/**
 * Reads a cache file for `base` and `ledgerPath`; `null` when it is absent, unreadable, of another
 * version or for another ledger, or holds facts it does not hold commits for. The caller still
 * checks that its head is on the branch.
 *
 * @param file the cache file
 * @param base the ledger base expected
 * @param ledgerPath the ledger path expected
 */
export async function loadHistoryCache(
  file: string,
  base: string,
  ledgerPath: string,
): Promise<HistoryCacheEntry | null> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return null;
  }
  if (typeof data !== 'object' || data === null) return null;
  const entry = data as Record<string, unknown>;
  if (
    entry.version !== HISTORY_CACHE_VERSION ||
    entry.base !== base ||
    entry.ledgerPath !== ledgerPath ||
    typeof entry.head !== 'string' ||
    !OBJECT_NAME.test(entry.head) ||
    !Array.isArray(entry.commits) ||
    !Array.isArray(entry.facts)
  )
    return null;
  const commits: HistoryCommit[] = [];
  for (const item of entry.commits) {
    if (!isCommit(item)) return null;
    const [sha, subject, body, paths] = item as unknown as [string, string, string, string[]];
    commits.push({ sha, subject, body, paths });
  }
  if (commits.length > 0 && commits.at(-1)?.sha !== entry.head) return null;
  const shas = new Set(commits.map((commit) => commit.sha));
  const facts = new Map<string, CommitLedgerFacts>();
  for (const item of entry.facts) {
    if (!Array.isArray(item) || item.length !== 2) return null;
    const [sha, value] = item as unknown[];
    const checked = factsOf(value);
    if (typeof sha !== 'string' || !shas.has(sha) || facts.has(sha) || checked === null) return null;
    facts.set(sha, checked);
  }
  return { version: HISTORY_CACHE_VERSION, base, ledgerPath, head: entry.head, commits, facts };
}

/**
 * Writes a cache file (temporary file, then rename, so a reader never sees half a file). A failure
 * to write is not an error of the run: the next read rebuilds from git.
 *
 * @param file the cache file
 * @param entry what to store; `commits` already compacted
 */
export async function saveHistoryCache(file: string, entry: HistoryCacheEntry): Promise<void> {
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const data = JSON.stringify({
    version: entry.version,
    base: entry.base,
    ledgerPath: entry.ledgerPath,
    head: entry.head,
    commits: entry.commits.map((c) => [c.sha, c.subject, c.body, c.paths]),
    facts: [...entry.facts],
  });
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(temporary, data);
    await rename(temporary, file);
  } catch {
    await rm(temporary, { force: true }).catch(() => {});
  }
}
