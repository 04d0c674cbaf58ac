/**
 * An append-only run journal: one JSON object per line, each appended and flushed to disk before
 * the runner goes on, so that a runner killed at any point (SIGKILL included) leaves a journal that
 * says exactly which steps finished and which one was in flight. A resumed runner reads it back
 * and continues from there instead of starting over.
 *
 * The journal knows nothing about a protocol: entries are plain JSON objects with a `kind`. The
 * runner that writes one decides what an entry means (docs/decisions/cybernetic.md, "Resume").
 */
import { closeSync, fsyncSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '../common/errors.js';

/** One journal line. */
export interface JournalEntry {
  readonly kind: string;
  readonly [field: string]: unknown;
}

/** The journal is not one this runner wrote: a line in the middle does not parse. */
export class JournalMalformedError extends InputError {
  constructor(path: string, line: number, why: string) {
    super('host.journal-malformed', `the run journal ${path} is damaged at line ${line}: ${why}`);
  }
}

/**
 * Reads a journal. A missing file is an empty journal. A kill while the last line was being
 * appended leaves that line cut (no newline at its end): it is dropped from the file and from the
 * result, and only it; any other line that does not parse is an error.
 *
 * @param path the journal file
 * @returns the entries, in order
 * @throws JournalMalformedError when a complete line is not a JSON object with a `kind`
 */
export async function readJournal(path: string): Promise<JournalEntry[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const complete = text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.length !== text.length) await truncate(path, Buffer.byteLength(complete));
  const entries: JournalEntry[] = [];
  complete
    .split('\n')
    .slice(0, -1)
    .forEach((line, index) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (error) {
        throw new JournalMalformedError(path, index + 1, (error as Error).message);
      }
      if (typeof value !== 'object' || value === null || typeof (value as JournalEntry).kind !== 'string')
        throw new JournalMalformedError(path, index + 1, 'not an object with a kind');
      entries.push(value as JournalEntry);
    });
  return entries;
}

/**
 * Appends one entry and flushes it to disk (fsync) before returning.
 *
 * @param path the journal file (created with its directory when missing)
 * @param entry the entry
 */
export function appendJournal(path: string, entry: JournalEntry): void {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  try {
    writeSync(fd, `${JSON.stringify(entry)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
