import { describe, expect, it } from 'vitest';
import type { ChildRunResult } from '../../src/effects/child-process.js';
import { reportOfRun, returnedStatus } from '../../src/host/child-report.js';

const run = (fields: Partial<ChildRunResult>): ChildRunResult => ({
  outcome: 'exited',
  exitCode: 0,
  signal: null,
  outputTail: '',
  logPath: '/log',
  pid: 1234,
  startIdentity: null,
  lingeringGroupMembers: [],
  ...fields,
});

describe('the child report', () => {
  it('reads the return file: absent or blank is no return, a malformed file is non-DONE', () => {
    expect(returnedStatus(null)).toBeNull();
    expect(returnedStatus('  \n')).toBeNull();
    expect(returnedStatus('{"status":"DONE"}')).toBe('DONE');
    expect(returnedStatus('{"status":"BLOCKED"}')).toBe('BLOCKED');
    expect(returnedStatus('not json')).toBe('malformed return');
  });

  it('turns how the child ended into the interrupted reasons of the protocol', () => {
    const done = '{"status":"DONE"}';
    expect(reportOfRun(run({}), done, 1000)).toEqual({ returned: 'DONE' });
    expect(
      reportOfRun(run({ outcome: 'killed-after-silence', exitCode: null, signal: 'SIGTERM' }), null, 1000),
    ).toEqual({
      returned: null,
      killedAfterSilence: true,
    });
    expect(reportOfRun(run({ exitCode: 3 }), done, 1000).dispatchError).toBe('child exited with code 3');
    expect(reportOfRun(run({ exitCode: null, signal: 'SIGSEGV' }), null, 1000).dispatchError).toBe(
      'child ended by signal SIGSEGV',
    );
    expect(reportOfRun(run({ outcome: 'timed-out', exitCode: null }), null, 90_000).dispatchError).toBe(
      'child killed after the overall timeout of 90 s',
    );
    expect(reportOfRun(run({ outcome: 'spawn-error', error: 'no such shell' }), null, 1000)).toEqual({
      returned: null,
      dispatchError: 'no such shell',
    });
  });
});
