import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/** Process groups started by a test, so that afterEach can make sure none survives. */
const startedGroups = new Set<number>();

/** Starts `sh -c <script>` as the leader of a new process group (detached) and returns its pid. */
export function startGroup(script: string, cwd?: string): number {
  const child = spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore', cwd });
  child.unref();
  if (child.pid === undefined) throw new Error('could not start test process group');
  startedGroups.add(child.pid);
  return child.pid;
}

/** Remembers a group to kill after the test (for groups started by the code under test). */
export function trackGroup(pgid: number): void {
  startedGroups.add(pgid);
}

/** KILLs every group a test started; call from afterEach. */
export function killStartedGroups(): void {
  for (const pgid of startedGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  startedGroups.clear();
}

/** Waits (polling, no time limit of its own: the test timeout bounds it) until `predicate` holds. */
export async function eventually(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Waits until a file exists and holds a full line, then returns its first line. */
export async function readLineWhenWritten(path: string): Promise<string> {
  await eventually(() => existsSync(path) && readFileSync(path, 'utf8').includes('\n'));
  return readFileSync(path, 'utf8').split('\n')[0] as string;
}
