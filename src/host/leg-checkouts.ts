/**
 * The checkouts of a coordinated run (issue 13, docs/decisions/legs.md L6): which folder each
 * member of the spec's `## Legs` is implemented in. The home member's checkout is the worktree the
 * run is given; every other member's checkout comes from the caller (`loopchart run --leg
 * <member>=<path>`, the runner's `legs` option) and is checked here before anything runs.
 */
import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../common/errors.js';
import { resolveWorktreeRoot } from '../effects/git-dir.js';
import { homeMember, isCoordinated, memberNames } from '../gauntlet/leg-entries.js';
import type { Spec } from '../gauntlet/types.js';

/**
 * The checkout of every member (home included, mapped to `worktree`), or `undefined` for a
 * single-leg spec given no `legs`.
 *
 * @param worktree the home worktree root (absolute, symlinks resolved)
 * @param spec the run's parsed spec
 * @param legs member -> checkout path of the non-home members; relative paths resolve from the
 *   current directory; a folder inside a checkout names that checkout (its top level)
 * @throws InputError, exit 2 at the CLI: `run.leg-unknown` (a member the spec does not declare,
 *   or the home member), `run.leg-missing` (a companion member without a checkout),
 *   `run.leg-not-worktree` (a path that is not inside a git work tree), `run.leg-home` (a
 *   companion checkout that is the home worktree), `run.leg-shared` (one checkout for two members)
 */
export async function resolveLegCheckouts(
  worktree: string,
  spec: Spec,
  legs: Readonly<Record<string, string>> | undefined,
): Promise<Readonly<Record<string, string>> | undefined> {
  const given = Object.entries(legs ?? {});
  if (!isCoordinated(spec)) {
    const first = given[0];
    if (first !== undefined)
      throw new InputError(
        'run.leg-unknown',
        `--leg ${first[0]}: the spec declares no coordinated legs (## Legs lists fewer than two members)`,
      );
    return undefined;
  }
  const members = memberNames(spec);
  const home = homeMember(spec);
  for (const [member] of given) {
    if (member === home)
      throw new InputError(
        'run.leg-unknown',
        `--leg ${member}: ${member} is the home member; its checkout is the worktree (--worktree)`,
      );
    if (!members.includes(member))
      throw new InputError(
        'run.leg-unknown',
        `--leg ${member}: the spec's ## Legs declares no member "${member}" (members: ${members.join(', ')})`,
      );
  }
  const checkouts: Record<string, string> = { [home]: worktree };
  const owner = new Map<string, string>([[worktree, home]]);
  for (const member of members) {
    if (member === home) continue;
    const path = legs?.[member];
    if (path === undefined)
      throw new InputError(
        'run.leg-missing',
        `the spec's leg ${member} has no checkout: give it with --leg ${member}=<path>`,
      );
    const absolute = resolve(path);
    if (!existsSync(absolute))
      throw new InputError('run.leg-not-worktree', `--leg ${member}=${path}: ${absolute} does not exist`);
    let root: string;
    try {
      root = realpathSync(await resolveWorktreeRoot(absolute));
    } catch (error) {
      if (error instanceof InputError)
        throw new InputError(
          'run.leg-not-worktree',
          `--leg ${member}=${path}: ${absolute} is not inside a git work tree`,
        );
      throw error;
    }
    const taken = owner.get(root);
    if (taken === home)
      throw new InputError(
        'run.leg-home',
        `--leg ${member}=${path}: that is the home worktree (${home}); a companion needs its own checkout`,
      );
    if (taken !== undefined)
      throw new InputError(
        'run.leg-shared',
        `--leg ${member}=${path}: ${root} is already the checkout of ${taken}; each member needs its own checkout`,
      );
    owner.set(root, member);
    checkouts[member] = root;
  }
  return checkouts;
}
