import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  cleanupJobs,
  deleteJobsFile,
  formatJobLine,
  JobRecordError,
  jobsFilePath,
  parseJobsFile,
  readJobsFile,
  recordActionLine,
  recordJob,
  worktreeIdentity,
} from '../../src/effects/jobs.js';
import {
  isProcessAlive,
  listLiveGroupMembers,
  readBootId,
  readCommandLine,
  readProcessIdentity,
} from '../../src/effects/process-identity.js';
import { eventually, killStartedGroups, readLineWhenWritten, startGroup } from './processes.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopchart-jobs-'));
  file = join(dir, 'loop.jobs');
});
afterEach(() => {
  killStartedGroups();
  rmSync(dir, { recursive: true, force: true });
});

const SHA = 'a'.repeat(40);

/** Starts a group of a shell and two sleeps; resolves once all three run. */
async function startSleepingGroup(script = 'sleep 30 & sleep 31 & wait'): Promise<number> {
  const pid = startGroup(script);
  await eventually(() => (listLiveGroupMembers(pid)?.length ?? 0) === 3);
  return pid;
}

const stillRunning = (pid: number) => isProcessAlive(pid) === 'alive';

describe('jobs file location and format', () => {
  it('names the file after the base, the pre-bump iteration and the worktree, under TMPDIR or /tmp', () => {
    const id = '0123456789abcdef';
    const saved = process.env.TMPDIR;
    try {
      process.env.TMPDIR = '/var/tmp/x';
      expect(jobsFilePath({ baseSha: SHA, iteration: 4, worktreeId: id })).toBe(
        `/var/tmp/x/loop-${SHA}-4-${id}.jobs`,
      );
      process.env.TMPDIR = '';
      expect(jobsFilePath({ baseSha: SHA, iteration: 0, worktreeId: id })).toBe(
        `/tmp/loop-${SHA}-0-${id}.jobs`,
      );
      expect(jobsFilePath({ baseSha: SHA, iteration: 2, worktreeId: id, tmpDir: dir })).toBe(
        join(dir, `loop-${SHA}-2-${id}.jobs`),
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(() => jobsFilePath({ baseSha: 'abc123', iteration: 1, worktreeId: id })).toThrow(InputError);
    expect(() => jobsFilePath({ baseSha: SHA, iteration: -1, worktreeId: id })).toThrow(InputError);
    expect(() => jobsFilePath({ baseSha: SHA, iteration: 1.5, worktreeId: id })).toThrow(InputError);
    expect(() => jobsFilePath({ baseSha: SHA, iteration: 1, worktreeId: 'ABC' })).toThrow(InputError);
    expect(() => jobsFilePath({ baseSha: SHA, iteration: 1, worktreeId: '../x' })).toThrow(InputError);
  });

  it('names a worktree by its git directory: one real path, one identity; two directories, two', () => {
    const a = join(dir, 'a', '.git');
    const b = join(dir, 'b', '.git');
    mkdirSync(a, { recursive: true });
    mkdirSync(b, { recursive: true });
    symlinkSync(join(dir, 'a'), join(dir, 'link'));
    const reference = (path: string) =>
      createHash('sha256').update(realpathSync(path)).digest('hex').slice(0, 16);
    expect(worktreeIdentity(a)).toBe(reference(a));
    expect(worktreeIdentity(a)).toMatch(/^[0-9a-f]{16}$/);
    expect(worktreeIdentity(join(dir, 'link', '.git'))).toBe(worktreeIdentity(a));
    expect(worktreeIdentity(b)).not.toBe(worktreeIdentity(a));
  });

  it('separates process lines, action records and unreadable lines', () => {
    const content = parseJobsFile(
      [
        '123 boot:99 sleep 30 --flag',
        'ran capture (1 of 1)',
        '',
        'bound spent: capture (1 of 1)',
        'something else',
        '0 boot:1 pid zero is not a process',
        '456 boot:7 node server.js  ',
      ].join('\n'),
    );
    expect(content.jobs).toEqual([
      { line: 1, pid: 123, startIdentity: 'boot:99', command: 'sleep 30 --flag' },
      { line: 7, pid: 456, startIdentity: 'boot:7', command: 'node server.js' },
    ]);
    expect(content.actionRecordLines).toEqual(['ran capture (1 of 1)', 'bound spent: capture (1 of 1)']);
    expect(content.unreadableLines).toEqual([
      { line: 5, text: 'something else' },
      { line: 6, text: '0 boot:1 pid zero is not a process' },
    ]);
  });
});

describe('recording jobs', () => {
  it('records the OS-observed identity and command of a group leader', async () => {
    const pid = await startSleepingGroup();
    const job = await recordJob(file, pid);
    const observed = readProcessIdentity(pid);
    expect(job.startIdentity).toBe(observed.startIdentity);
    expect(job.command).toBe('/bin/sh -c sleep 30 & sleep 31 & wait');
    expect(readFileSync(file, 'utf8')).toBe(`${formatJobLine(job)}\n`);
    await recordActionLine(file, 'ran capture (1 of 1)');
    expect(parseJobsFile(readFileSync(file, 'utf8'))).toMatchObject({
      jobs: [{ pid, startIdentity: job.startIdentity }],
      actionRecordLines: ['ran capture (1 of 1)'],
    });
  });

  it('refuses a process that does not lead its own group, a gone process, and a non-record line', async () => {
    const leader = await startSleepingGroup();
    const member = (listLiveGroupMembers(leader) ?? []).find((pid) => pid !== leader) as number;
    await expect(recordJob(file, member)).rejects.toBeInstanceOf(JobRecordError);
    const gone = startGroup('exit 0');
    await eventually(() => isProcessAlive(gone) === 'gone');
    await expect(recordJob(file, gone)).rejects.toBeInstanceOf(JobRecordError);
    await expect(recordActionLine(file, 'rm -rf /')).rejects.toBeInstanceOf(InputError);
    expect(existsSync(file)).toBe(false);
  });
});

describe('cleanupJobs', () => {
  it('terminates an owned group with TERM and confirms every member gone', async () => {
    const pid = await startSleepingGroup();
    const members = listLiveGroupMembers(pid) ?? [];
    await recordJob(file, pid);
    await recordActionLine(file, 'ran deploy (1 of 2)');

    const outcome = await cleanupJobs(file, { graceMs: 5_000 });

    expect(outcome.problems).toEqual([]);
    expect(outcome.terminated).toBe(1);
    expect(outcome.killedAfterGrace).toEqual([]);
    expect(outcome.actionRecordLines).toEqual(['ran deploy (1 of 2)']);
    for (const member of members) expect(stillRunning(member)).toBe(false);
    expect(existsSync(file)).toBe(true); // deleting is a separate step
    await deleteJobsFile(file);
    expect(existsSync(file)).toBe(false);
    await deleteJobsFile(file); // absent is fine
  });

  it('KILLs an owned group that ignores TERM', async () => {
    const pid = await startSleepingGroup("trap '' TERM; sleep 30 & sleep 31 & wait; wait");
    const members = listLiveGroupMembers(pid) ?? [];
    await recordJob(file, pid);

    const outcome = await cleanupJobs(file, { graceMs: 300 });

    expect(outcome.problems).toEqual([]);
    expect(outcome.terminated).toBe(1);
    expect(outcome.killedAfterGrace).toEqual([pid]);
    for (const member of members) expect(stillRunning(member)).toBe(false);
  });

  it('never signals a pid whose start identity does not match', async () => {
    const pid = await startSleepingGroup();
    const job = await recordJob(file, pid);
    writeFileSync(file, `${formatJobLine({ ...job, startIdentity: `${readBootId()}:1` })}\n`);

    const outcome = await cleanupJobs(file, { graceMs: 300 });

    expect(outcome.problems).toEqual([`job ${pid} not owned`]);
    expect(outcome.terminated).toBe(0);
    expect(listLiveGroupMembers(pid)).toHaveLength(3);
  });

  it('never signals a pid whose command does not match, or that does not lead its group', async () => {
    const first = await startSleepingGroup();
    const job = await recordJob(file, first);
    const second = await startSleepingGroup();
    const member = (listLiveGroupMembers(second) ?? []).find((pid) => pid !== second) as number;
    const memberIdentity = readProcessIdentity(member);
    writeFileSync(
      file,
      [
        formatJobLine({ ...job, command: 'sleep 30' }),
        formatJobLine({
          pid: member,
          startIdentity: memberIdentity.startIdentity as string,
          command: memberIdentity.command as string,
        }),
        '',
      ].join('\n'),
    );

    const outcome = await cleanupJobs(file, { graceMs: 300 });

    expect([...outcome.problems].sort()).toEqual(
      [`job ${first} not owned`, `job ${member} not owned`].sort(),
    );
    expect(listLiveGroupMembers(first)).toHaveLength(3);
    expect(listLiveGroupMembers(second)).toHaveLength(3);
  });

  it('never signals its own process', async () => {
    const self = readProcessIdentity(process.pid);
    writeFileSync(
      file,
      `${formatJobLine({ pid: process.pid, startIdentity: self.startIdentity as string, command: self.command as string })}\n`,
    );
    const outcome = await cleanupJobs(file, { graceMs: 300 });
    expect(outcome.problems).toEqual([`job ${process.pid} not owned`]);
  });

  it('counts a job that already exited, with its whole group, as already exited', async () => {
    const pid = await startSleepingGroup();
    await recordJob(file, pid);
    process.kill(-pid, 'SIGKILL');
    await eventually(() => listLiveGroupMembers(pid)?.length === 0);

    const outcome = await cleanupJobs(file);

    expect(outcome).toMatchObject({ terminated: 0, alreadyExited: [pid], problems: [] });
  });

  it('reports, without signalling, a group that outlived its recorded leader', async () => {
    // The job records itself with the shell formula documented in process-identity.ts, then exits
    // and leaves a background sleep in its group.
    const script = [
      `printf '%s %s:%s %s\\n' $$ "$(cat /proc/sys/kernel/random/boot_id)"`,
      ` "$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)" "$(tr '\\0\\n\\r' '   ' < /proc/$$/cmdline)" >> ${file};`,
      ` sleep 30 & echo $! > ${join(dir, 'bg.pid')}; exit 0`,
    ].join('');
    const pid = startGroup(script);
    const background = Number(await readLineWhenWritten(join(dir, 'bg.pid')));
    await eventually(() => isProcessAlive(pid) !== 'alive');

    const outcome = await cleanupJobs(file, { graceMs: 300 });

    expect(outcome.problems).toEqual([`job ${pid} still running`]);
    expect(stillRunning(background)).toBe(true);
  });

  it('accepts a job recorded by a shell with the documented formula as owned', async () => {
    const script = [
      `printf '%s %s:%s %s\\n' $$ "$(cat /proc/sys/kernel/random/boot_id)"`,
      ` "$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)" "$(tr '\\0\\n\\r' '   ' < /proc/$$/cmdline)" >> ${file};`,
      ' sleep 30 & wait',
    ].join('');
    const pid = startGroup(script);
    await eventually(() => existsSync(file) && readFileSync(file, 'utf8').endsWith('\n'));
    await eventually(() => readCommandLine(pid) !== null && (listLiveGroupMembers(pid)?.length ?? 0) === 2);

    const outcome = await cleanupJobs(file, { graceMs: 5_000 });

    expect(outcome.problems).toEqual([]);
    expect(outcome.terminated).toBe(1);
    expect(listLiveGroupMembers(pid)).toEqual([]);
  });

  it('treats a missing file or one without process lines as no jobs only when the child declared none', async () => {
    expect((await cleanupJobs(file)).problems).toEqual(['background launch history unavailable']);
    expect(await cleanupJobs(file, { childDeclaredNoBackgroundWork: true })).toEqual({
      terminated: 0,
      killedAfterGrace: [],
      alreadyExited: [],
      problems: [],
      actionRecordLines: [],
      jobs: [],
    });
    writeFileSync(file, 'bound spent: capture (1 of 1)\n');
    const onlyRecords = await cleanupJobs(file);
    expect(onlyRecords.problems).toEqual(['background launch history unavailable']);
    expect(onlyRecords.actionRecordLines).toEqual(['bound spent: capture (1 of 1)']);
    expect((await cleanupJobs(file, { childDeclaredNoBackgroundWork: true })).problems).toEqual([]);
  });

  it('reports an unreadable line as a problem', async () => {
    writeFileSync(file, 'launched something\n');
    const outcome = await cleanupJobs(file, { childDeclaredNoBackgroundWork: true });
    expect(outcome.problems).toEqual(['jobs file line 1 unreadable']);
  });

  it("reads and signals only its own worktree's file: another worktree's jobs are never touched", async () => {
    const mine = '1111111111111111';
    const theirs = '2222222222222222';
    const ours = jobsFilePath({ baseSha: SHA, iteration: 0, worktreeId: mine, tmpDir: dir });
    const foreign = jobsFilePath({ baseSha: SHA, iteration: 0, worktreeId: theirs, tmpDir: dir });
    const pid = await startSleepingGroup();
    await recordJob(foreign, pid);
    // Asked for the other worktree's file by name, or for an unnamed file, cleanup refuses it.
    for (const other of [foreign, file]) {
      const outcome = await cleanupJobs(other, { graceMs: 300, worktreeId: mine });
      expect(outcome.problems).toEqual([`jobs file ${basename(other)} is not this worktree's`]);
      expect(outcome.terminated).toBe(0);
      expect(outcome.jobs).toEqual([]);
      expect(listLiveGroupMembers(pid)).toHaveLength(3);
    }
    expect(await readJobsFile(foreign, mine)).toEqual({
      text: null,
      problem: `jobs file ${basename(foreign)} is not this worktree's`,
    });
    // A symlink carrying our name is not our file either.
    symlinkSync(foreign, ours);
    expect((await cleanupJobs(ours, { graceMs: 300, worktreeId: mine })).problems).toEqual([
      `jobs file ${basename(ours)} is not this worktree's`,
    ]);
    expect(listLiveGroupMembers(pid)).toHaveLength(3);
    // The owner cleans its own file.
    const owner = await cleanupJobs(foreign, { graceMs: 5_000, worktreeId: theirs });
    expect(owner.problems).toEqual([]);
    expect(owner.terminated).toBe(1);
    expect(listLiveGroupMembers(pid)).toEqual([]);
  });
});
