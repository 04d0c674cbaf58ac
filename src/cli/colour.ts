/**
 * Colour on the terminal, only where it helps: on a TTY, and never when `NO_COLOR` is set to a
 * non-empty value (https://no-color.org) or `TERM` is `dumb`. Piped output, files and tests get
 * plain text.
 */
import type { CliStream } from './command.js';

/** Whether text written to `stream` may carry ANSI colour. */
export function colourEnabled(stream: CliStream, env: Readonly<Record<string, string | undefined>>): boolean {
  if (stream.isTTY !== true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

/** Styling functions for one stream: identity when colour is off. */
export interface Palette {
  readonly bold: (text: string) => string;
  readonly red: (text: string) => string;
}

const PLAIN: Palette = { bold: (t) => t, red: (t) => t };
const ANSI: Palette = {
  bold: (t) => `\u001b[1m${t}\u001b[22m`,
  red: (t) => `\u001b[31m${t}\u001b[39m`,
};

/** The palette for `stream` under `env` (see {@link colourEnabled}). */
export function paletteFor(stream: CliStream, env: Readonly<Record<string, string | undefined>>): Palette {
  return colourEnabled(stream, env) ? ANSI : PLAIN;
}
