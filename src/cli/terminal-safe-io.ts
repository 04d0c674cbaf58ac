/**
 * Output streams that never pass a raw control byte to the person's terminal (issue 10 item 5).
 *
 * A ledger cell, a commit subject or a child's return is text a child wrote, so every command that
 * prints such text writes through {@link terminalSafeIo}: human text goes through
 * `neutralizeText` (tab and newline kept, every other control byte shown as `\x1b`), and a JSON
 * document keeps its form, with DEL and the C1 controls (which `JSON.stringify` leaves raw)
 * written as `\u007f` escapes.
 */
import { neutralizeText } from '../common/terminal-text.js';
import type { CliIo } from './command.js';

/** `\u007f`..`\u009f` as JSON escapes: the only controls `JSON.stringify` leaves raw. */
function jsonSafe(chunk: string): string {
  return chunk.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function isJsonDocument(chunk: string): boolean {
  const trimmed = chunk.trim();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return false;
  try {
    JSON.parse(trimmed);
    return true;
  } catch {
    return false;
  }
}

/**
 * The text a terminal may safely receive for `chunk`.
 *
 * @param chunk - what a command was about to write
 */
export function terminalSafeChunk(chunk: string): string {
  return isJsonDocument(chunk) ? jsonSafe(chunk) : neutralizeText(chunk);
}

function safeStream<T extends { write(chunk: string): unknown }>(stream: T): T {
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write') return (chunk: string) => target.write(terminalSafeChunk(String(chunk)));
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `io` whose `stdout` and `stderr` escape control bytes before writing; every other property of
 * the streams (`isTTY`, `columns`) reads through.
 *
 * @param io - the command's streams
 */
export function terminalSafeIo(io: CliIo): CliIo {
  return { ...io, stdout: safeStream(io.stdout), stderr: safeStream(io.stderr) };
}
