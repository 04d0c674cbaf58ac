/**
 * The verified HEAD of each leg (§3.20 "retain each verified HEAD and clean status"), kept in the
 * host's state folder so that `loopchart status` can show it after the run: the HEAD every gate
 * pair of a leg last passed on, for the ledger base it belongs to. Git never lists the file as a
 * change; a reseeded ledger (another base) makes the record stale, and status ignores it.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../effects/files.js';

/** What the file holds. */
export interface VerifiedHeadsRecord {
  /** The ledger's `base:` when the heads were verified. */
  readonly base: string;
  /** Member (`home` for a single leg) to the full SHA its gate pairs passed on. */
  readonly heads: Readonly<Record<string, string>>;
}

/**
 * Reads the record, or `null` when there is none or it does not read as one.
 *
 * @param path the state file
 */
export async function readVerifiedHeads(path: string): Promise<VerifiedHeadsRecord | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null) return null;
    const { base, heads } = value as { base?: unknown; heads?: unknown };
    if (typeof base !== 'string' || typeof heads !== 'object' || heads === null) return null;
    const entries = Object.entries(heads).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && /^[0-9a-f]{40}$/.test(entry[1]),
    );
    return { base, heads: Object.fromEntries(entries) };
  } catch {
    return null;
  }
}

/**
 * Writes the record (atomically): the heads verified so far in this verify session for `base`.
 *
 * @param path the state file
 * @param record the ledger base and the verified heads
 */
export async function writeVerifiedHeads(path: string, record: VerifiedHeadsRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFileAtomic(path, `${JSON.stringify(record, null, 2)}\n`);
}
