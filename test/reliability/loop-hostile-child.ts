/**
 * Test support for the loop's reliability tests: a real child process that runs the bundled
 * scripted child and then does one hostile thing a real agent could do (a shell snippet run in the
 * worktree after the scripted child returned, at most once per run unless `every` is set).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { LoopRepo } from '../support/loop-repo.js';

/** Options of {@link hostileChild}. */
export interface HostileChildOptions {
  /** Shell code run in the worktree after the scripted child exited 0. */
  readonly after: string;
  /** Run `after` only when the child's commit subject starts with this text (default: always). */
  readonly whenSubject?: string;
  /** Run `after` on every matching dispatch instead of only the first. */
  readonly every?: boolean;
}

/**
 * Writes the hostile child's shell script next to the repository's child script and returns the
 * `--child` command that runs it.
 */
export async function hostileChild(repo: LoopRepo, options: HostileChildOptions): Promise<string> {
  const dir = dirname(repo.scriptPath);
  const script = join(dir, 'hostile-child.sh');
  const mark = join(dir, 'hostile-child.done');
  const guard = options.every === true ? '' : `[ -e '${mark}' ] && exit 0\n: > '${mark}'\n`;
  const subjectTest =
    options.whenSubject === undefined
      ? ''
      : `case "$(git log -1 --format=%s)" in '${options.whenSubject}'*) ;; *) exit 0 ;; esac\n`;
  writeFileSync(
    script,
    `#!/bin/sh\n${await repo.childCommand()} || exit $?\n${subjectTest}${guard}${options.after}\n`,
  );
  return `sh '${script}'`;
}

/** `args` with the value after `--child` replaced. */
export function withChild(args: readonly string[], child: string): string[] {
  const copy = [...args];
  const at = copy.indexOf('--child');
  copy[at + 1] = child;
  return copy;
}
