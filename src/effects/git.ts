import { createHash } from 'node:crypto';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';
import { type BatchAnswer, CatFileBatchParser } from './cat-file.js';
import { CommandFailedError } from './command-error.js';
import { lastLines } from './output-tail.js';

/** One line of `git status --porcelain` (v1, renames off): the two status letters and the path. */
export interface StatusEntry {
  /** The `XY` code, e.g. ` M`, `??`, `D `. */
  readonly xy: string;
  /** Repository-relative path, unquoted. */
  readonly path: string;
}

/** HEAD and the working-tree status read together by one git process ({@link GitPort.worktreeState}). */
export interface WorktreeState {
  /** Full object name of HEAD, or `null` on a branch without commits. */
  readonly head: string | null;
  /** What {@link GitPort.statusPorcelain} returns for the same tree. */
  readonly entries: readonly StatusEntry[];
}

/** One commit as read by {@link GitPort.logSince}. */
export interface CommitRecord {
  /** Full object name. */
  readonly sha: string;
  /** The subject line (`%s`). */
  readonly subject: string;
  /** The body (`%b`) without its final newline; `''` when the commit has no body. */
  readonly body: string;
  /** Paths the commit changed (against its first parent), repository-relative, renames as delete + add. */
  readonly paths: readonly string[];
  /**
   * The object name of each changed path's new content (all zeros for a deletion), by path, as
   * {@link GitPort.logRange} reads them: lets a caller recognise content it already holds
   * (see {@link blobObjectName}) instead of reading the blob again.
   */
  readonly blobs?: Readonly<Record<string, string>>;
}

/** One commit as read by {@link GitPort.logRange}: a {@link CommitRecord} plus its parents. */
export interface LoggedCommit extends CommitRecord {
  /** Full object names of the parents, first parent first. */
  readonly parents: readonly string[];
}

/**
 * One long-lived `git cat-file --batch` process: blobs are asked for one at a time and each answer
 * arrives as its own Buffer (a history reads only the few ledgers it needs, newest first).
 */
export interface BlobReader {
  /** The blob at `<rev>:<path>`, or `null` when there is none. */
  read(rev: string, path: string): Promise<Buffer | null>;
  /** The full object name of the commit `rev` names (e.g. `HEAD`), or `null` when it names none. */
  commitName(rev: string): Promise<string | null>;
  /** Ends the process (idempotent); reads after close reject. */
  close(): Promise<void>;
}

/** A blob to read: a revision and a repository-relative path (`<rev>:<path>`). */
export interface BlobRequest {
  readonly rev: string;
  readonly path: string;
}

/** What {@link GitPort.commitFiles} commits. */
export interface CommitRequest {
  /** Repository-relative paths to stage and commit: exactly these, nothing else. May be empty with `allowEmpty`. */
  readonly paths: readonly string[];
  /** One-line subject, stored exactly. */
  readonly subject: string;
  /** Body stored exactly after a blank line; `''` for none. */
  readonly body: string;
  /** Allow a commit that changes nothing (a marker commit). */
  readonly allowEmpty?: boolean;
}

/**
 * The git operations the loop drivers need, bound to one worktree. Every method runs git without a
 * shell; a failing git command rejects with a {@link CommandFailedError} (`git.failed`) that
 * carries the command, exit code and output tail; an unusable argument rejects with an
 * {@link InputError} before git runs.
 */
export interface GitPort {
  /** Absolute path of the worktree every command runs in. */
  readonly worktree: string;
  /** How many git processes this port has spawned (benchmarks report git processes per iteration). */
  readonly processCount: number;
  /** Full object name of `rev` (`git rev-parse --verify <rev>^{commit}`). */
  revParse(rev: string): Promise<string>;
  /** Full object name of HEAD. */
  revParseHead(): Promise<string>;
  /** Working-tree status, untracked files listed one by one, ignored files left out. Empty means clean. */
  statusPorcelain(): Promise<StatusEntry[]>;
  /**
   * HEAD and the working-tree status from one git process (`status --porcelain=v2 --branch`): the
   * entries are exactly what {@link statusPorcelain} returns, and `head` what {@link revParseHead}
   * returns (or `null` before the first commit).
   */
  worktreeState(): Promise<WorktreeState>;
  /** Number of commits reachable from `to` but not from `from` (`rev-list --count from..to`). */
  revListCount(from: string, to?: string): Promise<number>;
  /** Body of one commit (`%b`), without its final newline. */
  commitBody(sha: string): Promise<string>;
  /** Every commit in `base..head`, oldest first, with changed paths, read by one git process. */
  logSince(base: string, head?: string): Promise<CommitRecord[]>;
  /**
   * Every commit reachable from `head` and from none of `exclude`, oldest first, with parents and
   * changed paths, read by one git process (`git log --reverse --topo-order ^exclude… head`).
   */
  logRange(head: string, exclude: readonly string[]): Promise<LoggedCommit[]>;
  /** Blob contents as UTF-8 text, in request order, read by one `cat-file --batch` process; `null` when absent. */
  readBlobs(requests: readonly BlobRequest[]): Promise<Array<string | null>>;
  /** Opens one `cat-file --batch` process for reading blobs on demand (close it when done). */
  openBlobReader(): BlobReader;
  /** `git rev-parse --git-path <name>` as an absolute path: where git keeps `name` for this worktree. */
  gitPath(name: string): Promise<string>;
  /**
   * Stages exactly `paths` (additions, edits and deletions) and commits only them with the exact
   * subject and body. Changes staged beforehand for other paths stay staged and are not committed;
   * a marker commit (no paths) refuses to run while anything is staged, because it would sweep it in.
   * One git process when every path is tracked (`commit --only` takes the working-tree content of
   * tracked paths itself); a path git does not know yet is added first.
   * @returns the new commit's full object name
   */
  commitFiles(request: CommitRequest): Promise<string>;
  /** `git reset --hard <rev>`. */
  resetHard(rev: string): Promise<void>;
  /** `git clean -fd`: removes untracked files and directories, leaves ignored files alone. @returns removed paths */
  cleanFd(): Promise<string[]>;
  /** Whether `ancestor` is an ancestor of (or equal to) `descendant`. */
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** Tracked plus untracked non-ignored paths under `roots` in the working tree (`ls-files --cached --others`). */
  listWorktreePaths(roots: readonly string[]): Promise<string[]>;
  /** Paths of every blob (file or symlink, not submodule) under `roots` in revision `rev` (`ls-tree -r`). */
  listTreePaths(rev: string, roots: readonly string[]): Promise<string[]>;
}

/** Options of {@link createGitPort}. */
export interface GitPortOptions {
  /** Extra environment for every git process (e.g. author identity in tests). */
  readonly env?: Readonly<Record<string, string>>;
  /** Upper bound for one git process in ms (default 120 000; commits may run hooks). */
  readonly timeoutMs?: number;
  /** The git executable (default `git` on PATH). */
  readonly gitBinary?: string;
}

// Inherited variables that would point git at another repository, index or object store (they are
// set when loopchart itself runs inside a git hook).
const SCRUBBED_GIT_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
];

// Settings that change what git prints; pinned so parsing never depends on the user's config.
const OUTPUT_PINNING_CONFIG = [
  '-c',
  'core.quotepath=off',
  '-c',
  'color.ui=false',
  '-c',
  'log.showSignature=false',
  '-c',
  'diff.relative=false',
];

function gitEnvironment(extra: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !SCRUBBED_GIT_VARIABLES.includes(key)) env[key] = value;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: '0',
    GIT_EDITOR: 'true',
    GIT_PAGER: 'cat',
    LC_ALL: 'C',
    // Paths handed to git are names, never globs.
    GIT_LITERAL_PATHSPECS: '1',
    ...extra,
  };
}

function requireRevision(rev: string, what: string): void {
  if (rev.length === 0 || rev.startsWith('-') || /[\s\0]/.test(rev))
    throw new InputError('git.revision', `${what} is not a usable git revision: ${JSON.stringify(rev)}`);
}

function requireRelativePath(path: string): void {
  if (path.length === 0 || path.startsWith('/') || path.includes('\0') || path.includes('\n'))
    throw new InputError('git.path', `not a usable repository-relative path: ${JSON.stringify(path)}`);
  if (path.split('/').includes('..'))
    throw new InputError('git.path', `path leaves the repository: ${JSON.stringify(path)}`);
}

const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

interface RawResult {
  exitCode: number | null;
  signal: string | null;
  stdout: Uint8Array;
  stderr: string;
  timedOut: boolean;
  spawnError: string | null;
}

/**
 * Creates a {@link GitPort} bound to `worktree`.
 *
 * Every git process runs with `GIT_TERMINAL_PROMPT=0`, `GIT_EDITOR=true`, `LC_ALL=C`, literal
 * pathspecs, output-affecting settings pinned (`core.quotepath=off`, `color.ui=false`, …) and
 * inherited `GIT_DIR`-style variables removed, so output parses the same on every machine and
 * git never waits for a person.
 *
 * @param worktree absolute path of the worktree
 * @param options extra environment, timeout, git executable
 */
export function createGitPort(worktree: string, options: GitPortOptions = {}): GitPort {
  const env = gitEnvironment(options.env);
  const timeout = options.timeoutMs ?? 120_000;
  const gitBinary = options.gitBinary ?? 'git';
  let processCount = 0;

  async function raw(args: readonly string[], input?: string): Promise<RawResult> {
    processCount += 1;
    const result = await execa(gitBinary, [...OUTPUT_PINNING_CONFIG, ...args], {
      cwd: worktree,
      env,
      extendEnv: false,
      reject: false,
      timeout,
      encoding: 'buffer',
      stripFinalNewline: false,
      maxBuffer: 512 * 1024 * 1024,
      ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
    });
    const spawnFailed = result.exitCode === undefined && result.signal === undefined && !result.timedOut;
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      stdout: result.stdout as Uint8Array,
      stderr: Buffer.from(result.stderr as Uint8Array).toString('utf8'),
      timedOut: result.timedOut,
      spawnError: spawnFailed ? (result.message ?? 'git could not be started') : null,
    };
  }

  function failure(args: readonly string[], result: RawResult): CommandFailedError {
    const stdout = Buffer.from(result.stdout).toString('utf8');
    const output = [result.stderr, stdout, result.spawnError ?? ''].filter((s) => s.length > 0).join('\n');
    const detail = result.timedOut ? `timed out after ${timeout} ms` : undefined;
    return new CommandFailedError(
      'git.failed',
      {
        command: ['git', ...args].join(' '),
        exitCode: result.exitCode,
        signal: result.signal,
        outputTail: lastLines(output, 20),
      },
      detail,
    );
  }

  /** Runs git and returns stdout as text; rejects unless the exit code is one of `okCodes`. */
  async function run(args: readonly string[], input?: string, okCodes: readonly number[] = [0]) {
    const result = await raw(args, input);
    if (result.exitCode === null || !okCodes.includes(result.exitCode)) throw failure(args, result);
    return { exitCode: result.exitCode, text: Buffer.from(result.stdout).toString('utf8'), raw: result };
  }

  /** A `cat-file --batch` process answering requests one at a time, in order. */
  function openCatFile(): BlobReader {
    const args = ['cat-file', '--batch'];
    processCount += 1;
    const child = execa(gitBinary, [...OUTPUT_PINNING_CONFIG, ...args], {
      cwd: worktree,
      env,
      extendEnv: false,
      reject: false,
      timeout,
      buffer: { stdout: false, stderr: true },
      encoding: 'buffer',
      stdin: 'pipe',
    });
    const waiting: Array<{ resolve: (answer: BatchAnswer) => void; reject: (error: Error) => void }> = [];
    let ended: Error | null = null;
    const parser = new CatFileBatchParser((answer) => waiting.shift()?.resolve(answer));
    child.stdout?.on('data', (chunk: Buffer) => parser.push(chunk));
    const done = child.then((result) => {
      const stderr = Buffer.from((result.stderr as Uint8Array | undefined) ?? new Uint8Array()).toString(
        'utf8',
      );
      ended = failure(args, {
        exitCode: result.exitCode ?? null,
        signal: result.signal ?? null,
        stdout: new Uint8Array(),
        stderr: stderr.length > 0 ? stderr : 'git cat-file --batch ended',
        timedOut: result.timedOut,
        spawnError: result.exitCode === undefined && !result.timedOut ? (result.message ?? null) : null,
      });
      for (const request of waiting.splice(0)) request.reject(ended);
    });
    let closed = false;
    const ask = (name: string) => {
      if (closed || ended !== null) return Promise.reject(ended ?? new Error('blob reader is closed'));
      return new Promise<BatchAnswer>((resolve, reject) => {
        waiting.push({ resolve, reject });
        child.stdin?.write(`${name}\n`);
      });
    };
    return {
      read(rev, path) {
        requireRevision(rev, 'blob revision');
        requireRelativePath(path);
        return ask(`${rev}:${path}`).then((answer) => (answer?.type === 'blob' ? answer.content : null));
      },
      commitName(rev) {
        requireRevision(rev, 'revision');
        return ask(rev).then((answer) => (answer?.type === 'commit' ? answer.name : null));
      },
      async close() {
        if (!closed) {
          closed = true;
          child.stdin?.end();
        }
        await done;
      },
    };
  }

  const port: GitPort = {
    worktree,
    get processCount() {
      return processCount;
    },

    async revParse(rev) {
      requireRevision(rev, 'revision');
      const { text } = await run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`]);
      return text.trim();
    },

    revParseHead() {
      return port.revParse('HEAD');
    },

    async statusPorcelain() {
      const { text } = await run([
        'status',
        '--porcelain=v1',
        '-z',
        '--untracked-files=all',
        '--ignored=no',
        '--no-renames',
      ]);
      return text
        .split('\0')
        .filter((record) => record.length > 0)
        .map((record) => ({ xy: record.slice(0, 2), path: record.slice(3) }));
    },

    async worktreeState() {
      const { text } = await run([
        'status',
        '--porcelain=v2',
        '-z',
        '--branch',
        '--untracked-files=all',
        '--ignored=no',
        '--no-renames',
      ]);
      return parseStatusV2(text);
    },

    async revListCount(from, to = 'HEAD') {
      requireRevision(from, 'from');
      requireRevision(to, 'to');
      const { text } = await run(['rev-list', '--count', `${from}..${to}`]);
      return Number.parseInt(text.trim(), 10);
    },

    async commitBody(sha) {
      requireRevision(sha, 'commit');
      const { text } = await run(['show', '-s', '--no-show-signature', '--format=%b', sha, '--']);
      // `show` ends the format with a newline of its own, after the body's final newline.
      return withoutFinalNewline(withoutFinalNewline(text));
    },

    async logSince(base, head = 'HEAD') {
      requireRevision(base, 'base');
      requireRevision(head, 'head');
      // One process for everything. Each commit starts with \x01 and its full object name; fields
      // are NUL-separated (a commit message cannot hold NUL), then `-z --name-only` lists the paths,
      // each NUL-terminated.
      const { text } = await run([...LOG_ARGS, '--format=%x01%H%x00%s%x00%b', `${base}..${head}`, '--']);
      return parseLog(text, false).map(({ parents: _, blobs: __, ...commit }) => commit);
    },

    async logRange(head, exclude) {
      requireRevision(head, 'head');
      for (const rev of exclude) requireRevision(rev, 'excluded revision');
      const { text } = await run([
        ...LOG_ARGS,
        '--format=%x01%H%x00%P%x00%s%x00%b',
        ...exclude.map((rev) => `^${rev}`),
        head,
        '--',
      ]);
      return parseLog(text, true);
    },

    async readBlobs(requests) {
      if (requests.length === 0) return [];
      for (const { rev, path } of requests) {
        requireRevision(rev, 'blob revision');
        requireRelativePath(path);
      }
      const reader = port.openBlobReader();
      try {
        // Every request is written at once; answers come back in order, one Buffer each.
        const blobs = await Promise.all(requests.map(({ rev, path }) => reader.read(rev, path)));
        return blobs.map((blob) => blob?.toString('utf8') ?? null);
      } finally {
        await reader.close();
      }
    },

    openBlobReader() {
      return openCatFile();
    },

    async gitPath(name) {
      requireRelativePath(name);
      const { text } = await run(['rev-parse', '--path-format=absolute', '--git-path', name]);
      return withoutFinalNewline(text);
    },

    async commitFiles({ paths, subject, body, allowEmpty = false }) {
      if (subject.trim().length === 0 || subject.includes('\n'))
        throw new InputError(
          'git.subject',
          `commit subject must be one non-empty line: ${JSON.stringify(subject)}`,
        );
      if (subject.includes('\0') || body.includes('\0'))
        throw new InputError('git.message', 'commit message must not contain NUL');
      paths.forEach(requireRelativePath);
      if (paths.length === 0 && !allowEmpty)
        throw new InputError(
          'git.commit',
          'nothing to commit: give paths, or allowEmpty for a marker commit',
        );
      const message = body.length > 0 ? `${subject}\n\n${withoutFinalNewline(body)}\n` : `${subject}\n`;
      // Not quiet: the summary line names the new commit in full (core.abbrev=no), which spares a
      // `rev-parse HEAD` afterwards.
      const commitArgs = ['-c', 'core.abbrev=no', 'commit', '--cleanup=verbatim', '--file=-', '--no-edit'];
      /** The new commit's name from the summary line `[<branch> <name>] <subject>`, else HEAD's. */
      const committedName = async (result: { text: string }): Promise<string> =>
        summaryCommitName(result.text) ?? (await port.revParseHead());
      if (allowEmpty) commitArgs.push('--allow-empty');
      if (paths.length === 0) {
        // A marker commit commits the whole index: refuse rather than sweep in someone's staged work.
        const staged = await run(['diff', '--cached', '--quiet', '--no-ext-diff'], undefined, [0, 1]);
        if (staged.exitCode === 1)
          throw new InputError(
            'git.index-not-empty',
            'the index has staged changes; a marker commit would include them (commit or unstage them first)',
          );
        return committedName(await run(commitArgs, message));
      }
      // `commit --only` commits the working-tree content of tracked paths (edits and deletions)
      // without an `add`; only a path git does not know yet needs one, and git refuses the whole
      // commit before writing anything when it meets such a path.
      const only = [...commitArgs, '--only', '--', ...paths];
      const first = await run(only, message, [0, 1]);
      if (first.exitCode === 0) return committedName(first);
      if (!first.raw.stderr.includes('did not match any file(s) known to git'))
        throw failure(only, first.raw);
      await run(['add', '--all', '--', ...paths]);
      return committedName(await run(only, message));
    },

    async resetHard(rev) {
      requireRevision(rev, 'reset target');
      await run(['reset', '--quiet', '--hard', rev, '--']);
    },

    async cleanFd() {
      const { text } = await run(['clean', '-f', '-d']);
      return text
        .split('\n')
        .filter((line) => line.startsWith('Removing '))
        .map((line) => line.slice('Removing '.length));
    },

    async isAncestor(ancestor, descendant) {
      requireRevision(ancestor, 'ancestor');
      requireRevision(descendant, 'descendant');
      const { exitCode } = await run(
        ['merge-base', '--is-ancestor', ancestor, descendant],
        undefined,
        [0, 1],
      );
      return exitCode === 0;
    },

    async listWorktreePaths(roots) {
      roots.forEach(requireRootPath);
      const { text } = await run([
        'ls-files',
        '-z',
        '--cached',
        '--others',
        '--exclude-standard',
        '--full-name',
        '--',
        ...roots,
      ]);
      return [...new Set(text.split('\0').filter((p) => p.length > 0))];
    },

    async listTreePaths(rev, roots) {
      requireRevision(rev, 'tree revision');
      roots.forEach(requireRootPath);
      // Records are `<mode> <type> <object>\t<path>`; only blobs are files (gitlinks are submodules).
      const { text } = await run(['ls-tree', '-r', '-z', '--full-tree', rev, '--', ...roots]);
      return text
        .split('\0')
        .filter((record) => / blob [0-9a-f]+\t/.test(record))
        .map((record) => record.slice(record.indexOf('\t') + 1));
    },
  };
  return port;
}

/**
 * The commit a `git commit` summary names: the first line is `[<branch> <name>] <subject>` (also
 * `[<branch> (root-commit) <name>]`, `[detached HEAD <name>]`); a branch name holds no space, so the
 * first ` <name>]` is the commit. `null` when the output has no such line.
 */
function summaryCommitName(stdout: string): string | null {
  const first = stdout.split('\n', 1)[0] ?? '';
  if (!first.startsWith('[')) return null;
  const match = / ([0-9a-f]{40}(?:[0-9a-f]{24})?)\] /.exec(`${first} `);
  return match?.[1] ?? null;
}

/**
 * Parses `git status --porcelain=v2 -z --branch --no-renames` into HEAD and v1-style entries: the
 * `XY` of changed (`1`) and unmerged (`u`) entries with `.` read as a space, `??` for untracked.
 */
function parseStatusV2(text: string): WorktreeState {
  let head: string | null = null;
  const entries: StatusEntry[] = [];
  for (const record of text.split('\0')) {
    if (record.length === 0) continue;
    if (record.startsWith('# branch.oid ')) {
      const oid = record.slice('# branch.oid '.length);
      head = OBJECT_NAME.test(oid) ? oid : null;
      continue;
    }
    const kind = record[0];
    if (kind === '?') {
      entries.push({ xy: '??', path: record.slice(2) });
      continue;
    }
    // Changed: `1 XY sub mH mI mW hH hI path` (8 fields before the path); unmerged:
    // `u XY sub m1 m2 m3 mW h1 h2 h3 path` (10).
    const fields = kind === '1' ? 8 : kind === 'u' ? 10 : -1;
    if (fields < 0) continue;
    let at = 0;
    for (let i = 0; i < fields && at >= 0; i++) at = record.indexOf(' ', at + 1);
    if (at < 0) continue;
    entries.push({ xy: record.slice(2, 4).replaceAll('.', ' '), path: record.slice(at + 1) });
  }
  return { head, entries };
}

// `:<old mode> <new mode> <old object> <new object> <status letter>[<score>]` of `git log --raw`.
const RAW_RECORD = /^:[0-7]{6} [0-7]{6} [0-9a-f]{40,64} ([0-9a-f]{40}(?:[0-9a-f]{24})?) [A-Z][0-9]*$/;

/**
 * The object name git gives a blob of `content` (`git hash-object`): SHA-1 of `blob <size>\0` and
 * the bytes, or SHA-256 in a repository whose object names are 64 hex digits.
 *
 * @param content the blob's bytes (a string is taken as UTF-8)
 * @param nameLength 40 (SHA-1 repositories) or 64 (SHA-256)
 */
export function blobObjectName(content: Buffer | string, nameLength: 40 | 64 = 40): string {
  const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHash(nameLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}

function requireRootPath(root: string): void {
  if (root !== '.') requireRelativePath(root);
}

function withoutFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

// One process for everything. Each commit starts with \x01 and its full object name; fields are
// NUL-separated (a commit message cannot hold NUL), then `-z --name-only` lists the paths, each
// NUL-terminated.
const LOG_ARGS = [
  'log',
  '--reverse',
  '--topo-order',
  '--no-show-signature',
  '--no-renames',
  '--no-relative',
  '--diff-merges=first-parent',
  '-z',
  // `--raw` lists each changed path with its new blob's object name (full with --no-abbrev).
  '--raw',
  '--no-abbrev',
];

/** Parses the output of the `git log` of `logSince` / `logRange` (see LOG_ARGS and their formats). */
function parseLog(text: string, withParents: boolean): LoggedCommit[] {
  const commits: Array<{
    sha: string;
    parents: string[];
    subject: string;
    body: string;
    paths: string[];
    blobs: Record<string, string>;
  }> = [];
  const tokens = text.split('\0');
  // With --raw -z each changed path comes as `:<old mode> <new mode> <old> <new> <status>` then
  // the path; `pendingBlob` is the object name of a record whose path comes next.
  let pendingBlob: string | null = null;
  const fields = withParents ? 4 : 3;
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as string;
    const sha = token.startsWith('\x01') ? token.slice(1) : '';
    if (OBJECT_NAME.test(sha) && index + fields - 1 < tokens.length) {
      const rest = tokens.slice(index + 1, index + fields) as string[];
      const [parents, subject, body] = withParents ? rest : ['', ...rest];
      commits.push({
        sha,
        parents: (parents as string).split(' ').filter((p) => p.length > 0),
        subject: subject as string,
        body: withoutFinalNewline(body as string),
        paths: [],
        blobs: {},
      });
      pendingBlob = null;
      index += fields;
      continue;
    }
    const current = commits[commits.length - 1];
    if (token.length > 0 && current !== undefined) {
      if (pendingBlob === null) {
        // git separates the message from the raw list with one newline, which lands on the first record.
        const record = RAW_RECORD.exec(current.paths.length === 0 ? token.replace(/^\n/, '') : token);
        if (record !== null) pendingBlob = record[1] as string;
      } else {
        current.paths.push(token);
        current.blobs[token] = pendingBlob;
        pendingBlob = null;
      }
    }
    index += 1;
  }
  return commits;
}
