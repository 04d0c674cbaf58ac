import { open } from 'node:fs/promises';

/**
 * The last `maxLines` lines of `text`, without a trailing empty line.
 *
 * @param text any output
 * @param maxLines how many lines to keep (at least 0)
 * @returns the tail, lines joined with `\n`
 */
export function lastLines(text: string, maxLines: number): string {
  if (maxLines <= 0) return '';
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-maxLines).join('\n');
}

// Reading the end of the file only keeps a multi-megabyte log from being loaded to print 20 lines.
const TAIL_WINDOW_BYTES = 64 * 1024;

/**
 * The last `maxLines` lines of a log file, like `tail -n <maxLines>`, reading at most the last 64 KiB.
 *
 * @param path the log file
 * @param maxLines how many lines to keep (default 20)
 * @returns the tail, or `''` when the file is missing or unreadable (a tail is a courtesy, never a failure)
 */
export async function tailOfFile(path: string, maxLines = 20): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(path, 'r');
    const { size } = await handle.stat();
    const length = Math.min(size, TAIL_WINDOW_BYTES);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    let text = buffer.toString('utf8');
    // A window that starts mid-line would show a partial first line: drop it.
    if (length < size) text = text.slice(text.indexOf('\n') + 1);
    return lastLines(text, maxLines);
  } catch {
    return '';
  } finally {
    await handle?.close();
  }
}
