/**
 * The commit journal: the host's parent commits (seed ledger, repairs, retries, escalations,
 * amendments) write files and then commit them. A crash between the two would leave the loop's
 * own half-made change in the tree, which the next run would have to treat as somebody's dirt.
 *
 * Before writing, the host records its intent (HEAD, subject, and each file's bytes before and
 * after). The next run rolls an interrupted intent back before it looks at the tree: when HEAD has
 * not moved and every file holds either its before or its intended bytes, the before bytes come
 * back and the index entries are reset, so the machine, replaying from disk and history, makes the
 * same commit again. A file holding anything else was touched by someone else and is left alone.
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { readFileIfExists, writeFileAtomic } from '../effects/files.js';
import type { GitPort } from '../effects/git.js';
import { unstagePaths } from '../effects/git-index.js';

const intentSchema = z.object({
  version: z.literal(1),
  headBefore: z.string(),
  subject: z.string(),
  // `after: null` deletes the file (the redraw commit removes the ledger).
  files: z.array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string().nullable() })),
});

/** A parent commit in the making. */
export type CommitIntent = z.infer<typeof intentSchema>;

/** What {@link recoverCommitIntent} found. */
export type IntentRecovery =
  | 'none'
  /** The commit was made; only the journal entry was left. */
  | 'committed'
  /** The half-made change was undone. */
  | 'rolled-back'
  /** Someone else changed the files or HEAD: nothing was undone (the tree shows the dirt). */
  | 'abandoned';

/**
 * Records an intent durably.
 *
 * @param journal the journal file
 * @param intent what is about to be written and committed
 */
export async function writeCommitIntent(journal: string, intent: CommitIntent): Promise<void> {
  await writeFileAtomic(journal, `${JSON.stringify(intent)}\n`);
}

/** Removes the journal entry once the commit is made. */
export async function clearCommitIntent(journal: string): Promise<void> {
  await rm(journal, { force: true });
}

/**
 * Undoes an interrupted parent commit, if the journal holds one.
 *
 * @param journal the journal file
 * @param git the worktree's git port
 * @returns what was found and done
 */
export async function recoverCommitIntent(journal: string, git: GitPort): Promise<IntentRecovery> {
  const text = await readFileIfExists(journal);
  if (text === null) return 'none';
  let intent: CommitIntent;
  try {
    intent = intentSchema.parse(JSON.parse(text));
  } catch {
    await clearCommitIntent(journal);
    return 'abandoned';
  }
  const head = await git.revParseHead();
  if (head !== intent.headBefore) {
    const commits = await git.logSince(intent.headBefore).catch(() => []);
    await clearCommitIntent(journal);
    return commits.length === 1 && commits[0]?.subject === intent.subject ? 'committed' : 'abandoned';
  }
  const current = await Promise.all(intent.files.map((f) => readFileIfExists(join(git.worktree, f.path))));
  const ours = intent.files.every((f, i) => current[i] === f.before || current[i] === f.after);
  if (!ours) {
    await clearCommitIntent(journal);
    return 'abandoned';
  }
  for (const file of intent.files) {
    const path = join(git.worktree, file.path);
    if (file.before === null) await rm(path, { force: true });
    else {
      // A deleted file's folder may be gone too (the redraw deletes the ledger).
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, file.before);
    }
  }
  await unstagePaths(
    git.worktree,
    intent.files.map((f) => f.path),
  );
  await clearCommitIntent(journal);
  return 'rolled-back';
}
