import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Environment that isolates test git processes from the developer's global and system config. */
export const ISOLATED_GIT_ENV: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'loopchart test',
  GIT_AUTHOR_EMAIL: 'test@loopchart.invalid',
  GIT_COMMITTER_NAME: 'loopchart test',
  GIT_COMMITTER_EMAIL: 'test@loopchart.invalid',
};

/** A real temporary git repository for one test. */
export interface TempRepo {
  readonly dir: string;
  /** Runs git in the repository and returns stdout. */
  git(...args: string[]): string;
  /** Writes a file (creating directories) relative to the repository. */
  write(path: string, content: string): void;
  /** Writes and commits files, returns the new HEAD. */
  commit(subject: string, files?: Record<string, string>): string;
  remove(): void;
}

/** Creates a repository on branch main with one commit holding README.md. */
export function createTempRepo(prefix = 'loopchart-effects-'): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
      cwd: dir,
      env: { ...process.env, ...ISOLATED_GIT_ENV },
      encoding: 'utf8',
    });
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'commit.gpgsign', 'false');
  const commit = (subject: string, files: Record<string, string> = {}) => {
    for (const [path, content] of Object.entries(files)) write(path, content);
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', subject);
    return git('rev-parse', 'HEAD').trim();
  };
  commit('initial', { 'README.md': 'hello\n' });
  return { dir, git, write, commit, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
