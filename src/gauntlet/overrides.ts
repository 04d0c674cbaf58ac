/**
 * The overrides file's verification command (gauntlet-protocol §3.1 step 1): when the overrides
 * file has a `## verification-before-completion` section, the verification command is its exactly
 * one backticked command; zero or several is a configuration error. Pure.
 *
 * A backticked command is an inline code span (`` `npm test` ``) or one non-blank line of a fenced
 * code block inside the section. The section runs from its heading to the next heading of level
 * one or two (docs/decisions/rules.md).
 */

/** The heading of the section that supplies the verification command. */
export const VERIFICATION_SECTION = '## verification-before-completion';

/** What the overrides file says about the verification command. */
export type OverridesVerification =
  /** The file has no `## verification-before-completion` section: resolution goes on. */
  | { readonly kind: 'absent' }
  | { readonly kind: 'command'; readonly command: string; readonly line: number }
  /** Zero or several backticked commands: a configuration error naming what was found. */
  | { readonly kind: 'error'; readonly reason: string; readonly line: number };

const FENCE = /^\s*(```|~~~)/;
const SPAN = /`([^`\n]+)`/g;

/**
 * Reads the verification command of an overrides file.
 *
 * @param text the overrides file's text
 * @returns absent, the one command (with its 1-based line), or a configuration error
 */
export function overridesVerification(text: string): OverridesVerification {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trimEnd() === VERIFICATION_SECTION);
  if (start === -1) return { kind: 'absent' };
  const found: { command: string; line: number }[] = [];
  let fence: string | null = null;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    const opener = FENCE.exec(line);
    if (fence === null && /^#{1,2}\s/.test(line)) break;
    if (opener !== null) {
      if (fence === null) fence = opener[1] as string;
      else if (opener[1] === fence) fence = null;
      continue;
    }
    if (fence !== null) {
      if (line.trim() !== '') found.push({ command: line.trim(), line: i + 1 });
      continue;
    }
    for (const m of line.matchAll(SPAN)) {
      const command = (m[1] as string).trim();
      if (command !== '') found.push({ command, line: i + 1 });
    }
  }
  const heading = start + 1;
  if (found.length === 0)
    return {
      kind: 'error',
      line: heading,
      reason: `the ${VERIFICATION_SECTION} section has no backticked command; give exactly one`,
    };
  if (found.length > 1)
    return {
      kind: 'error',
      line: (found[1] as { line: number }).line,
      reason: `the ${VERIFICATION_SECTION} section has ${found.length} backticked commands (${found
        .map((f) => `\`${f.command}\` on line ${f.line}`)
        .join(', ')}); give exactly one`,
    };
  const one = found[0] as { command: string; line: number };
  return { kind: 'command', command: one.command, line: one.line };
}
