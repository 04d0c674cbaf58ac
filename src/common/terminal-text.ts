/**
 * Untrusted text (ledger cells, commit subjects and bodies, child returns, command output) made
 * safe to print on a person's terminal or to paste into a prompt.
 *
 * A child agent controls every byte of what it writes. Printed raw, an ESC starts an ANSI/OSC
 * sequence that can move the cursor, retitle the window or hide text; BEL and NUL do their own
 * mischief. `neutralizeText` keeps tab and newline, and replaces every other C0 control byte,
 * DEL and the C1 controls (U+0080..U+009F) with a visible escape (`\x1b`, `\x07`, ...), so the
 * person sees that the bytes were there without the terminal acting on them.
 */

/** True for a code unit that must never reach a terminal raw: C0 and DEL and C1 controls. */
function isControl(code: number): boolean {
  return code < 0x20 || (code >= 0x7f && code <= 0x9f);
}

/** Options of {@link neutralizeText}. */
export interface NeutralizeOptions {
  /**
   * Longest output kept, in UTF-16 code units, before the escaped text is cut; a cut text ends
   * with ` … [<n> more characters]`. Unlimited when absent.
   */
  readonly maxLength?: number;
  /** Also escape newlines and tabs (for one-line fields such as a subject). Default false. */
  readonly singleLine?: boolean;
}

/**
 * True when `text` holds a byte {@link neutralizeText} would escape (tab and newline allowed).
 *
 * @param text - the untrusted text
 */
export function hasControlCharacters(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (isControl(code) && code !== 0x09 && code !== 0x0a) return true;
  }
  return false;
}

/**
 * Escapes every control byte of `text` visibly (`\x1b`), keeping tab and newline unless
 * `singleLine`, and cuts the result at `maxLength` with a marker saying how much was dropped.
 *
 * @param text - untrusted text taken from a ledger, a commit, a return or a command's output
 * @param options - length limit and single-line mode
 * @returns text that contains no byte a terminal acts on, other than tab and newline
 */
export function neutralizeText(text: string, options: NeutralizeOptions = {}): string {
  let escaped = '';
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    const kept = !options.singleLine && (code === 0x09 || code === 0x0a);
    escaped += isControl(code) && !kept ? `\\x${code.toString(16).padStart(2, '0')}` : text[i];
  }
  const max = options.maxLength;
  if (max === undefined || escaped.length <= max) return escaped;
  const rest = escaped.length - max;
  return `${escaped.slice(0, max)} … [${rest} more characters]`;
}
