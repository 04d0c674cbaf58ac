import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeError } from '../../src/common/describe-value.js';
import { openStepJournal } from '../../src/host/step-journal.js';

// The rule (decisions/rpi.md 6 and 39, cybernetic-machines.md M32): the value's own string
// `message`, else the value as text: a string as itself, null as written, plain data as JSON,
// never "[object Object]" and never a throw.
describe('describeError: the one text of a thrown or rejected value', () => {
  it('takes an Error by its message', () => {
    expect(describeError(new TypeError('bad input'))).toBe('bad input');
  });

  it('takes error-like plain data by its own text message', () => {
    expect(describeError({ message: 'disk full', code: 'ENOSPC' })).toBe('disk full');
  });

  it('describes a value whose message is not text by its data, not by its toString', () => {
    expect(describeError({ message: 42, toString: () => 'quota exceeded' })).toBe('{"message":42}');
  });

  it('describes strings, null, undefined and numbers as written', () => {
    expect(describeError('plan command not found')).toBe('plan command not found');
    expect(describeError(null)).toBe('null');
    expect(describeError(undefined)).toBe('undefined');
    expect(describeError(7)).toBe('7');
  });

  it('describes plain data as JSON, never as [object Object]', () => {
    expect(describeError({ reason: 'rate limited', retryAfter: 30 })).toBe(
      '{"reason":"rate limited","retryAfter":30}',
    );
  });

  it('does not throw on values String() cannot print, nor on a message getter that throws', () => {
    expect(describeError({ toString: false })).toBe('{"toString":false}');
    const noPrototype = Object.create(null) as Record<string, unknown>;
    noPrototype.reason = 'gone';
    expect(describeError(noPrototype)).toBe('{"reason":"gone"}');
    const trap = {
      get message(): string {
        throw new Error('trap');
      },
    };
    expect(() => describeError(trap)).not.toThrow();
    expect(describeError(trap)).not.toBe('trap');
  });
});

describe('the step journal records a rejected value by that rule, so a resumed run replays its text', () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  const open = async (runDir: string) =>
    openStepJournal({
      runDir,
      kind: 'rpi',
      fingerprint: { intent: 'same' },
      facts: async () => ({ head: null, digest: null }),
    });

  const rejectionOf = async (promise: Promise<unknown>): Promise<unknown> => {
    try {
      await promise;
    } catch (error) {
      return error;
    }
    throw new Error('expected a rejection');
  };

  const cases: ReadonlyArray<readonly [string, unknown, string]> = [
    ['plain data', { reason: 'rate limited' }, '{"reason":"rate limited"}'],
    ['a value String() cannot print', { toString: false }, '{"toString":false}'],
    ['error-like data', { message: 'disk full' }, 'disk full'],
  ];
  for (const [name, value, text] of cases) {
    it(`rejects live with the value itself and replays ${name} as "${text}"`, async () => {
      const runDir = await mkdtemp(join(tmpdir(), 'loopchart-journal-'));
      dirs.push(runDir);
      const live = await open(runDir);
      const thrown = await rejectionOf(
        live.effect(
          'measure-0',
          async () => {
            throw value;
          },
          async () => ({ head: null, digest: null }),
        ),
      );
      expect(thrown).toBe(value);

      const resumed = await open(runDir);
      let ranAgain = false;
      const replayed = await rejectionOf(
        resumed.effect(
          'measure-0',
          async () => {
            ranAgain = true;
            return 'fresh';
          },
          async () => ({ head: null, digest: null }),
        ),
      );
      expect(ranAgain).toBe(false);
      expect(replayed).toBeInstanceOf(Error);
      expect((replayed as Error).message).toBe(text);
    });
  }
});
