import { describe, expect, it } from 'vitest';
import {
  type Check,
  InvalidCheckExecutionError,
  isShellCheckCommand,
  judgeCheck,
  SHELL_CHECK_PREFIX,
  SHELL_NOT_EXECUTED_EXIT_CODES,
  shellCheckCommand,
} from '../../src/cybernetic/index.js';

// docs/decisions.md (Project): a user's command string runs with `/bin/sh -c`, because the user
// wrote it as a shell command. POSIX shells exit 127 for a command not found and 126 for one
// found but not executable: the check could not be executed.
describe('shell checks', () => {
  it('wrap the text as written in /bin/sh -c', () => {
    expect(SHELL_CHECK_PREFIX).toEqual(['/bin/sh', '-c']);
    expect(shellCheckCommand('npm test -- --grep "index"')).toEqual([
      '/bin/sh',
      '-c',
      'npm test -- --grep "index"',
    ]);
    expect(shellCheckCommand('  ls  ')).toEqual(['/bin/sh', '-c', '  ls  ']);
  });

  it('refuse an empty or blank text', () => {
    expect(shellCheckCommand('')).toBeNull();
    expect(shellCheckCommand(' \t\n')).toBeNull();
  });

  it('recognize exactly the vectors they make', () => {
    expect(isShellCheckCommand(['/bin/sh', '-c', 'make check'])).toBe(true);
    expect(isShellCheckCommand(['/bin/sh', '-c'])).toBe(false);
    expect(isShellCheckCommand(['/bin/sh', '-c', 'a', 'b'])).toBe(false);
    expect(isShellCheckCommand(['/bin/bash', '-c', 'make check'])).toBe(false);
    expect(isShellCheckCommand(['/bin/sh', '-e', 'make check'])).toBe(false);
    expect(isShellCheckCommand(['make', 'check', 'x'])).toBe(false);
  });

  it("count the shell's not-found and not-executable codes as not executed", () => {
    expect([...SHELL_NOT_EXECUTED_EXIT_CODES].sort()).toEqual([126, 127]);
  });
});

describe('judging one execution', () => {
  const check: Check = {
    name: 'unit',
    role: 'existing',
    command: ['npm', 'test'],
    pass: { kind: 'exit-code', exitCode: 0 },
  };

  it('a pass keeps no failure signature; a failure keeps the host signature, or null', () => {
    expect(judgeCheck(check, { kind: 'exited', exitCode: 0, signature: 'ignored' })).toEqual({
      name: 'unit',
      outcome: 'passed',
      exitCode: 0,
      detail: null,
      signature: null,
    });
    expect(judgeCheck(check, { kind: 'exited', exitCode: 2, signature: 'TypeError at a.ts:3' })).toEqual({
      name: 'unit',
      outcome: 'failed',
      exitCode: 2,
      detail: null,
      signature: 'TypeError at a.ts:3',
    });
    expect(judgeCheck(check, { kind: 'exited', exitCode: 2 }).signature).toBeNull();
  });

  it('a check ended by a signal failed, with the signal as detail', () => {
    expect(judgeCheck(check, { kind: 'terminated', signal: 'SIGTERM', signature: 'timeout' })).toEqual({
      name: 'unit',
      outcome: 'failed',
      exitCode: null,
      detail: 'SIGTERM',
      signature: 'timeout',
    });
    expect(judgeCheck(check, { kind: 'terminated', signal: 'SIGKILL' }).signature).toBeNull();
  });

  it('a check that could not run is unavailable, with the reason and no signature', () => {
    expect(judgeCheck(check, { kind: 'not-executed', reason: 'spawn npm ENOENT' })).toEqual({
      name: 'unit',
      outcome: 'unavailable',
      exitCode: null,
      detail: 'spawn npm ENOENT',
      signature: null,
    });
  });

  it('malformed executions are refused with the check named and the reason given', () => {
    const refusal = (execution: Parameters<typeof judgeCheck>[1]): string => {
      try {
        judgeCheck(check, execution);
      } catch (error) {
        expect(error).toBeInstanceOf(InvalidCheckExecutionError);
        expect((error as InvalidCheckExecutionError).code).toBe('cybernetic.check-execution-invalid');
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal({ kind: 'exited', exitCode: 0.5 })).toMatch(/"unit".*0\.5/);
    expect(refusal({ kind: 'terminated', signal: ' ' })).toMatch(/"unit".*signal/);
    expect(refusal({ kind: 'not-executed', reason: '' })).toMatch(/"unit".*why/);
  });
});
