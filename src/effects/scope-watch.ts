import { execa } from 'execa';
import { compareCodePoints } from './canonical-json.js';
import type { GitPort } from './git.js';
import { computeSubjectManifest, type ManifestEntry } from './manifest.js';

/** The object name of git's empty tree: the base of a repository that has no commit yet. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** The pseudo-path reported when HEAD moved (a commit, a checkout): a change to the repository outside any scope. */
export const HEAD_MOVED_PATH = '.git/HEAD';

/** What the working tree outside the scope looked like at one moment. */
export interface OutsideScopeState {
  /** HEAD's object name, or null in a repository without commits. */
  readonly head: string | null;
  /** Every tracked and untracked, non-ignored path outside the scope, with its content identity. */
  readonly entries: ReadonlyMap<string, string>;
}

/** Watches the working tree outside a scope, to catch a candidate that changes what it may not. */
export interface OutsideScopeWatch {
  /** Observes the tree outside the scope now. */
  observe(): Promise<OutsideScopeState>;
  /**
   * Repository-relative paths outside the scope that differ between two observations (added,
   * removed, other bytes, other executable bit, other symlink target), sorted; plus
   * {@link HEAD_MOVED_PATH} when HEAD moved.
   */
  changedBetween(before: OutsideScopeState, after: OutsideScopeState): string[];
}

function identity(entry: ManifestEntry): string {
  return `${entry.kind}:${entry.executable ? 'x' : '-'}:${entry.digest ?? ''}`;
}

async function headOf(git: GitPort): Promise<string | null> {
  // `rev-parse --verify HEAD` fails in a repository without commits; that is a state, not an error.
  const result = await execa('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], {
    cwd: git.worktree,
    reject: false,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
  const text = typeof result.stdout === 'string' ? result.stdout.trim() : '';
  return result.exitCode === 0 && text !== '' ? text : null;
}

/**
 * Creates a watch over everything git sees outside the scope: tracked files and untracked files
 * that are not ignored, by content (the subject manifest of src/effects/manifest.ts with the
 * scope excluded), and HEAD. Ignored files (build output, dependency folders) are not watched: a
 * candidate that writes only there is not caught (docs/decisions/cybernetic-machines.md).
 *
 * @param git a port bound to the worktree
 * @param scope the recorded scope (repository-relative)
 */
export function createOutsideScopeWatch(git: GitPort, scope: readonly string[]): OutsideScopeWatch {
  return {
    async observe() {
      const head = await headOf(git);
      const manifest = await computeSubjectManifest({ git, base: head ?? EMPTY_TREE, exclusions: scope });
      return {
        head,
        entries: new Map(manifest.entries.map((entry) => [entry.path, identity(entry)])),
      };
    },
    changedBetween(before, after) {
      const changed = new Set<string>();
      for (const [path, id] of before.entries) if (after.entries.get(path) !== id) changed.add(path);
      for (const [path, id] of after.entries) if (before.entries.get(path) !== id) changed.add(path);
      const paths = [...changed].sort(compareCodePoints);
      if (before.head !== after.head) paths.push(HEAD_MOVED_PATH);
      return paths;
    },
  };
}
