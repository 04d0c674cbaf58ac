import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { InputError } from '../common/errors.js';
import type { JsonValue } from '../common/json-value.js';
import { canonicalJson, compareCodePoints, sha256Hex } from './canonical-json.js';
import type { GitPort } from './git.js';

/** One path of a subject manifest. */
export interface ManifestEntry {
  /** Repository-relative path. */
  readonly path: string;
  /** `deletion`: the path existed at the base and is gone from the working tree. */
  readonly kind: 'file' | 'symlink' | 'deletion';
  /** The owner-execute bit of a file (what git records); `false` for symlinks and deletions. */
  readonly executable: boolean;
  /** SHA-256 of the file's bytes or of the symlink's target; absent for a deletion. */
  readonly digest?: string;
}

/** A `subject-manifest.v1`: the content identity of the working tree under the declared roots. */
export interface SubjectManifest {
  readonly schema_version: 'subject-manifest.v1';
  readonly declared_roots: readonly string[];
  readonly exclusions: readonly string[];
  /** Sorted by path (code point order). */
  readonly entries: readonly ManifestEntry[];
  /** SHA-256 of the canonical JSON of every other field; lowercase 64-hex. */
  readonly canonical_manifest_digest: string;
}

/** Options of {@link computeSubjectManifest}. */
export interface SubjectManifestOptions {
  /** Port bound to the worktree. */
  readonly git: GitPort;
  /** Revision deletions are measured against (the run's base commit). */
  readonly base: string;
  /** Repository-relative roots; default `['.']` (the whole tree). */
  readonly roots?: readonly string[];
  /** Repository-relative files or directories left out (a directory excludes everything below it). */
  readonly exclusions?: readonly string[];
}

/**
 * Computes the subject manifest of the working tree and its `canonical_manifest_digest`.
 *
 * Entries cover every tracked and every untracked non-ignored path under the roots as it is on
 * disk now (staged or not), plus a `deletion` for each file present at `base` and absent now.
 * Only bytes, executable bits, symlink targets and the path set count: committing, staging,
 * branch names or HEAD never change the digest. Ignored files, directories and submodules are
 * not entries.
 *
 * @param options port, base, roots, exclusions
 * @returns the manifest
 * @throws InputError (`manifest.roots`) for roots or exclusions that are empty, absolute, contain
 *   `..` or repeat; CommandFailedError when git fails (e.g. an unknown base)
 */
export async function computeSubjectManifest(options: SubjectManifestOptions): Promise<SubjectManifest> {
  const roots = normalizePaths(options.roots ?? ['.'], 'declared root');
  if (roots.length === 0)
    throw new InputError('manifest.roots', 'a subject manifest needs at least one declared root');
  const exclusions = normalizePaths(options.exclusions ?? [], 'exclusion');
  const { git } = options;
  const [present, atBase] = await Promise.all([
    git.listWorktreePaths(roots),
    git.listTreePaths(options.base, roots),
  ]);
  const baseSet = new Set(atBase);
  const excluded = (path: string) =>
    exclusions.some(
      (exclusion) => exclusion === '.' || path === exclusion || path.startsWith(`${exclusion}/`),
    );

  const entries: ManifestEntry[] = [];
  for (const path of new Set([...present, ...atBase])) {
    if (path.endsWith('/') || excluded(path)) continue; // `dir/`: an embedded repository
    const entry = await entryFor(git.worktree, path, baseSet.has(path));
    if (entry !== null) entries.push(entry);
  }
  entries.sort((a, b) => compareCodePoints(a.path, b.path));
  const body = { schema_version: 'subject-manifest.v1' as const, declared_roots: roots, exclusions, entries };
  return { ...body, canonical_manifest_digest: manifestDigest(body) };
}

/**
 * The digest of a manifest: SHA-256 of the canonical JSON of the manifest without
 * `canonical_manifest_digest` and `git_metadata`.
 *
 * @param manifest a manifest, with or without those two fields
 * @returns 64 lowercase hex digits
 */
export function manifestDigest(manifest: object): string {
  const {
    canonical_manifest_digest: _digest,
    git_metadata: _git,
    ...rest
  } = manifest as Record<string, unknown>;
  return sha256Hex(canonicalJson(rest as JsonValue));
}

async function entryFor(
  worktree: string,
  path: string,
  existedAtBase: boolean,
): Promise<ManifestEntry | null> {
  const absolute = join(worktree, path);
  const deletion: ManifestEntry | null = existedAtBase ? { path, kind: 'deletion', executable: false } : null;
  try {
    const stats = await lstat(absolute);
    if (stats.isSymbolicLink())
      return {
        path,
        kind: 'symlink',
        executable: false,
        digest: sha256Hex(await readlink(absolute, 'buffer')),
      };
    if (stats.isFile())
      return {
        path,
        kind: 'file',
        executable: (stats.mode & 0o100) !== 0,
        digest: await fileDigest(absolute),
      };
    // A directory where the base had a file: the file is gone (its replacement's files are listed on their own).
    return deletion;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return deletion;
    throw error;
  }
}

async function fileDigest(path: string): Promise<string> {
  // Streamed, so a large file is never held in memory whole.
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function normalizePaths(paths: readonly string[], what: string): string[] {
  const normalized = paths.map((raw) => {
    const path = raw.replace(/\/+$/, '').replace(/^\.\//, '') || '.';
    if (
      path.startsWith('/') ||
      path.split('/').some((part) => part === '..' || part === '') ||
      path.includes('\0')
    )
      throw new InputError(
        'manifest.roots',
        `${what} must be a relative path inside the repository: ${JSON.stringify(raw)}`,
      );
    return path;
  });
  if (new Set(normalized).size !== normalized.length)
    throw new InputError('manifest.roots', `${what}s must be unique: ${normalized.join(', ')}`);
  return normalized;
}
