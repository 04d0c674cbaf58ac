import { readdirSync, readFileSync } from 'node:fs';

// Linux only: everything here reads /proc. Each reader answers `null` (or `'unavailable'`) when the
// process is gone or the data cannot be read, so a caller can tell "not proven" from "proven" and
// never mistakes an unreadable process for an exited one.

/** What /proc/<pid>/stat says about a process, the fields loopchart needs. */
export interface ProcessStat {
  readonly pid: number;
  /** Single-letter state; `Z` is a zombie (exited, not yet reaped). */
  readonly state: string;
  readonly parentPid: number;
  readonly processGroupId: number;
  /** Field 22: start time in clock ticks after boot. */
  readonly startTicks: string;
}

/**
 * Parses the text of /proc/<pid>/stat. The command name (field 2) is in parentheses and may itself
 * contain spaces and parentheses, so fields are counted from the last `)`.
 *
 * @param text the file's content
 * @returns the parsed fields, or `null` when the text is not a stat line
 */
export function parseProcStat(text: string): ProcessStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number.parseInt(text.slice(0, open).trim(), 10);
  // After ") " come fields 3, 4, 5, …: field n is at index n - 3.
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const parentPid = Number(fields[1]);
  const processGroupId = Number(fields[2]);
  const startTicks = fields[19];
  if (!Number.isInteger(pid) || state === undefined || startTicks === undefined || !/^\d+$/.test(startTicks))
    return null;
  if (!Number.isInteger(parentPid) || !Number.isInteger(processGroupId)) return null;
  return { pid, state, parentPid, processGroupId, startTicks };
}

/**
 * Reads /proc/<pid>/stat.
 *
 * @param pid process id
 * @returns the stat fields, or `null` when the process does not exist or cannot be read
 */
export function readProcessStat(pid: number): ProcessStat | null {
  if (!isPlausiblePid(pid)) return null;
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

let cachedBootId: string | null | undefined;

/**
 * The kernel's boot id (/proc/sys/kernel/random/boot_id), which changes on every boot.
 *
 * @returns the id, or `null` when it cannot be read
 */
export function readBootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      cachedBootId = null;
    }
  }
  return cachedBootId;
}

/**
 * Formats a start identity: `<boot id>:<start ticks>`. One token (no spaces), so it fits the jobs
 * file's `<pid> <start identity> <command>` line. A shell can compute the same value with
 * `echo "$(cat /proc/sys/kernel/random/boot_id):$(sed 's/.*) //' /proc/$pid/stat | cut -d' ' -f20)"`.
 *
 * @param bootId the boot id
 * @param startTicks field 22 of /proc/<pid>/stat
 */
export function formatStartIdentity(bootId: string, startTicks: string): string {
  return `${bootId}:${startTicks}`;
}

/**
 * The start identity of a live process: boot id plus start time, so a pid reused after the
 * process exits (or after a reboot) never matches.
 *
 * @param pid process id
 * @returns the identity, or `null` when the process is gone or /proc cannot be read
 */
export function readStartIdentity(pid: number): string | null {
  const stat = readProcessStat(pid);
  const bootId = readBootId();
  if (stat === null || bootId === null) return null;
  return formatStartIdentity(bootId, stat.startTicks);
}

/**
 * The command line of a process as its arguments (/proc/<pid>/cmdline).
 *
 * @param pid process id
 * @returns the arguments, or `null` when the process is gone, unreadable or a zombie (empty cmdline)
 */
export function readCommandLine(pid: number): string[] | null {
  if (!isPlausiblePid(pid)) return null;
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (text.length === 0) return null;
    const args = text.split('\0');
    if (args[args.length - 1] === '') args.pop();
    return args;
  } catch {
    return null;
  }
}

/**
 * The one-line text form of a command line used in the jobs file: arguments joined by single
 * spaces, each newline or carriage return turned into a space, trailing whitespace dropped. A shell
 * gets the same text with `tr '\0\n\r' '   ' < /proc/<pid>/cmdline` (trailing spaces are ignored).
 *
 * @param args the arguments
 */
export function commandLineText(args: readonly string[]): string {
  return args
    .join(' ')
    .replace(/[\r\n]/g, ' ')
    .replace(/\s+$/, '');
}

/**
 * The process group of a process (what `ps -o pgid= -p <pid>` prints).
 *
 * @param pid process id
 * @returns the group id, or `null` when the process is gone or unreadable
 */
export function readProcessGroupId(pid: number): number | null {
  return readProcessStat(pid)?.processGroupId ?? null;
}

/** Answer of {@link isProcessAlive}. */
export type Liveness = 'alive' | 'gone' | 'zombie' | 'unavailable';

/**
 * Whether a process exists, with `kill -0` semantics (`process.kill(pid, 0)`): `gone` only on
 * ESRCH, which is affirmative evidence of exit. A process that exists but belongs to another user
 * (EPERM) is `alive`. A zombie has exited but not been reaped: `zombie`.
 *
 * @param pid process id
 */
export function isProcessAlive(pid: number): Liveness {
  if (!isPlausiblePid(pid)) return 'unavailable';
  try {
    process.kill(pid, 0);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return 'gone';
    if (code !== 'EPERM') return 'unavailable';
  }
  return readProcessStat(pid)?.state === 'Z' ? 'zombie' : 'alive';
}

/**
 * Everything loopchart checks before it signals a process: identity, command, group.
 * Fields are `null` when they cannot be read.
 */
export interface ProcessIdentity {
  readonly pid: number;
  readonly startIdentity: string | null;
  /** {@link commandLineText} of the arguments, or `null`. */
  readonly command: string | null;
  readonly processGroupId: number | null;
  readonly liveness: Liveness;
}

/**
 * Reads a process's identity, command and group in one go.
 *
 * @param pid process id
 * @returns the identity; `liveness: 'gone'` with null fields when the process no longer exists
 */
export function readProcessIdentity(pid: number): ProcessIdentity {
  const liveness = isProcessAlive(pid);
  const stat = liveness === 'gone' ? null : readProcessStat(pid);
  const bootId = readBootId();
  const args = liveness === 'alive' ? readCommandLine(pid) : null;
  return {
    pid,
    startIdentity: stat !== null && bootId !== null ? formatStartIdentity(bootId, stat.startTicks) : null,
    command: args === null ? null : commandLineText(args),
    processGroupId: stat?.processGroupId ?? null,
    liveness,
  };
}

/**
 * Pids of the processes in a process group that have not exited (zombies are left out: they have
 * exited and only wait to be reaped).
 *
 * @param processGroupId the group
 * @returns member pids in ascending order, or `null` when /proc cannot be listed
 */
export function listLiveGroupMembers(processGroupId: number): number[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcessStat(Number(name));
    if (stat !== null && stat.processGroupId === processGroupId && stat.state !== 'Z') members.push(stat.pid);
  }
  return members.sort((a, b) => a - b);
}

function isPlausiblePid(pid: number): boolean {
  return Number.isSafeInteger(pid) && pid > 0;
}
