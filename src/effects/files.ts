import { randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { InputError, LoopchartError } from '../common/errors.js';

/** A file operation failed for a reason other than the file being absent. `code` is `effects.file`. */
export class FileAccessError extends LoopchartError {
  /** The path the operation was about. */
  readonly path: string;
  constructor(path: string, operation: string, cause: unknown) {
    super(
      'effects.file',
      `cannot ${operation} ${path}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.path = path;
  }
}

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of the result; default: the mode of the file being replaced, or 0o666 minus umask. */
  readonly mode?: number;
}

/**
 * Writes a file so that a reader sees either the old or the new content, never a mix: the bytes
 * go to a temporary file in the same directory, are flushed to disk, and the temporary file is
 * renamed over the target. A failed write leaves the target untouched and removes the temporary file.
 *
 * @param path target path
 * @param data content
 * @param options mode of the result
 * @throws FileAccessError when the directory is missing or not writable
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  let mode = options.mode;
  if (mode === undefined) {
    try {
      mode = (await stat(path)).mode & 0o7777;
    } catch {
      // new file: default mode
    }
  }
  try {
    const handle = await open(temporary, 'wx', mode ?? 0o666);
    try {
      await handle.writeFile(data);
      if (mode !== undefined) await handle.chmod(mode); // open() applies the umask; an explicit mode must not
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new FileAccessError(path, 'write', error);
  }
}

/**
 * Reads a UTF-8 file, or `null` when it does not exist.
 *
 * @param path the file
 * @returns the content, or `null` for ENOENT
 * @throws FileAccessError for any other failure (a directory, no permission, …)
 */
export async function readFileIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new FileAccessError(path, 'read', error);
  }
}

/** Options of {@link makeTempDir} and {@link makeTempFile}. */
export interface TempPathOptions {
  /** A directory the new path must not be inside (the repository); checked after resolving symlinks. */
  readonly outside?: string;
  /** Parent directory; default the system temporary directory (`TMPDIR`). */
  readonly parent?: string;
}

/**
 * Creates a fresh, uniquely named directory, like `mktemp -d`.
 *
 * @param prefix start of the directory name, e.g. `loopchart-verify-`
 * @param options a directory the result must stay out of; the parent directory
 * @returns the absolute path
 * @throws InputError (`effects.temp-inside-repository`) when the result would be inside `outside`
 *   (it is removed again); FileAccessError when it cannot be created
 */
export async function makeTempDir(prefix: string, options: TempPathOptions = {}): Promise<string> {
  let path: string;
  try {
    path = await mkdtemp(join(resolve(options.parent ?? tmpdir()), prefix));
  } catch (error) {
    throw new FileAccessError(join(options.parent ?? tmpdir(), prefix), 'create a directory like', error);
  }
  await refuseInside(path, options.outside, () => rm(path, { recursive: true, force: true }));
  return path;
}

/**
 * Creates a fresh, uniquely named empty file, like `mktemp`: the name is reserved by creating the
 * file exclusively, so no other process can be handed the same path.
 *
 * @param prefix start of the file name
 * @param suffix end of the file name, e.g. `.json`
 * @param options a directory the result must stay out of; the parent directory
 * @returns the absolute path
 * @throws InputError (`effects.temp-inside-repository`) when the result would be inside `outside`;
 *   FileAccessError when it cannot be created
 */
export async function makeTempFile(
  prefix: string,
  suffix = '',
  options: TempPathOptions = {},
): Promise<string> {
  const parent = resolve(options.parent ?? tmpdir());
  for (let attempt = 0; ; attempt += 1) {
    const path = join(parent, `${prefix}${randomBytes(8).toString('hex')}${suffix}`);
    try {
      await (await open(path, 'wx', 0o600)).close();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST' && attempt < 10) continue;
      throw new FileAccessError(path, 'create', error);
    }
    await refuseInside(path, options.outside, () => rm(path, { force: true }));
    return path;
  }
}

/**
 * Whether `path` is `directory` or inside it, after resolving symlinks of both (paths that do not
 * exist are compared as given, resolved against the current directory).
 *
 * @param path the path to test
 * @param directory the directory
 */
export async function isInsideDirectory(path: string, directory: string): Promise<boolean> {
  const [real, realDirectory] = await Promise.all([realpathOrResolved(path), realpathOrResolved(directory)]);
  const rel = relative(realDirectory, real);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

async function realpathOrResolved(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}

async function refuseInside(
  path: string,
  outside: string | undefined,
  undo: () => Promise<void>,
): Promise<void> {
  if (outside === undefined || !(await isInsideDirectory(path, outside))) return;
  await undo();
  throw new InputError(
    'effects.temp-inside-repository',
    `temporary path ${path} would be inside ${outside}; set TMPDIR to a directory outside the repository`,
  );
}
