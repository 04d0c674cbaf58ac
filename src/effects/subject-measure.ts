/**
 * Measures RPI's subject: the subject-manifest digest of the working tree under the subject's roots
 * (src/effects/manifest.ts) and the paths changed since the run's base, which the risky-surface
 * classification reads.
 */
import type { GitPort } from './git.js';
import { computeSubjectManifest } from './manifest.js';

/** Options of {@link measureSubject}. */
export interface SubjectMeasureOptions {
  /** Port bound to the worktree. */
  readonly git: GitPort;
  /** The run's base commit: deletions and changed paths are measured against it. */
  readonly base: string;
  /** Repository-relative roots of the subject; default the whole tree. */
  readonly roots?: readonly string[];
  /** Repository-relative paths left out (the run's own files when they sit in the worktree). */
  readonly exclusions?: readonly string[];
}

/** The subject as measured now. */
export interface MeasuredSubject {
  /** `canonical_manifest_digest` of the subject manifest (64 lowercase hex). */
  readonly digest: string;
  /** Paths under the roots changed since the base (committed, staged, unstaged or untracked), sorted. */
  readonly changedPaths: readonly string[];
}

/**
 * Measures the subject. The digest covers every tracked and untracked non-ignored path under the
 * roots (content, kind, executable bit), so it moves exactly when the subject's bytes move. Changed
 * paths are the union of the paths of commits since the base and the working tree's status; a path
 * changed and changed back still counts, which errs toward calling a change risky.
 *
 * @param options port, base, roots, exclusions
 * @returns the digest and the changed paths
 * @throws InputError (`manifest.roots`) for unusable roots; CommandFailedError when git fails
 */
export async function measureSubject(options: SubjectMeasureOptions): Promise<MeasuredSubject> {
  const roots = options.roots ?? ['.'];
  const exclusions = options.exclusions ?? [];
  const [manifest, commits, status] = await Promise.all([
    computeSubjectManifest({ git: options.git, base: options.base, roots, exclusions }),
    options.git.logSince(options.base),
    options.git.statusPorcelain(),
  ]);
  const under = (path: string, prefix: string) =>
    prefix === '.' || path === prefix || path.startsWith(`${prefix.replace(/\/+$/, '')}/`);
  const inSubject = (path: string) =>
    roots.some((root) => under(path, root.replace(/^\.\//, '') || '.')) &&
    !exclusions.some((exclusion) => under(path, exclusion));
  const changed = new Set<string>();
  for (const commit of commits) for (const path of commit.paths) if (inSubject(path)) changed.add(path);
  for (const entry of status) if (inSubject(entry.path)) changed.add(entry.path);
  return { digest: manifest.canonical_manifest_digest, changedPaths: [...changed].sort() };
}
