// The transcript reader's findings and the record schema's bounds, from docs/loop-protocol.md
// ("The transcript record": the field table, the findings table, the serializer's error). Each
// expected finding (code, 1-based line, reason) is typed out by hand; schema messages quoted in a
// reason are zod's own wording for that issue.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  parseTranscript,
  serializeTranscriptRecord,
  transcriptRecordSchema,
} from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

const line = (overrides: Parameters<typeof record>[0] = {}) => JSON.stringify(record(overrides));
const code = (name: string) => `loop-protocol.transcript.${name}`;

describe('the transcript reader', () => {
  it('skips empty and blank-only lines without a finding, whatever the line ending', () => {
    const text = [line({ cycle: 1 }), '   ', '\t', '', line({ cycle: 2 })].join('\r\n');
    const parsed = parseTranscript(text);
    expect(parsed.findings).toEqual([]);
    expect(parsed.records.map((r) => r.cycle)).toEqual([1, 2]);
  });

  it('names a line that is not JSON with its code, its 1-based line and the reason', () => {
    expect(parseTranscript(`${line()}\n\n{"version": 1,`).findings).toEqual([
      { code: code('not-json'), line: 3, reason: 'the line is not a JSON object' },
    ]);
  });

  it('quotes the schema issue of an invalid record: the dotted path, or record for the whole line', () => {
    const parsed = parseTranscript(
      ['[1]', line({ action: { kind: 'plan' as never, summary: 'x', disposition: null } })].join('\n'),
    );
    expect(parsed.records).toEqual([]);
    expect(parsed.findings).toEqual([
      {
        code: code('record-invalid'),
        line: 1,
        reason: 'not a transcript record (record: Invalid input: expected object, received array)',
      },
      {
        code: code('record-invalid'),
        line: 2,
        reason:
          'not a transcript record (action.kind: Invalid option: expected one of "action"|"hypothesis")',
      },
    ]);
  });

  it('quotes at most the first three issues, joined by semicolons', () => {
    const bad = JSON.stringify({ ...record(), machine: '', cycle: -1, timestamp: 'yesterday', event: '' });
    expect(parseTranscript(bad).findings).toEqual([
      {
        code: code('record-invalid'),
        line: 1,
        reason:
          'not a transcript record (machine: Too small: expected string to have >=1 characters; ' +
          'cycle: Too small: expected number to be >=0; timestamp: Invalid ISO datetime)',
      },
    ]);
  });

  it('allows a repeated cycle and an equal timestamp, and reports a cycle or a time that goes back', () => {
    const same = parseTranscript(
      [
        line({ cycle: 2, timestamp: '2026-03-01T10:00:00Z' }),
        line({ cycle: 2, timestamp: '2026-03-01T10:00:00Z' }),
      ].join('\n'),
    );
    expect(same.findings).toEqual([]);
    expect(same.records).toHaveLength(2);
    const back = parseTranscript(
      [
        line({ cycle: 2, timestamp: '2026-03-01T10:00:00Z' }),
        line({ cycle: 0, timestamp: '2026-03-01T09:59:59Z' }),
      ].join('\n'),
    );
    expect(back.findings).toEqual([
      { code: code('cycle-decreased'), line: 2, reason: 'cycle 0 follows cycle 2' },
      { code: code('time-decreased'), line: 2, reason: 'the timestamp is earlier than the previous record' },
    ]);
    expect(back.records).toHaveLength(2);
  });

  it('compares timestamps as instants, across offsets', () => {
    const parsed = parseTranscript(
      [line({ timestamp: '2026-03-01T10:00:00Z' }), line({ timestamp: '2026-03-01T11:30:00+02:00' })].join(
        '\n',
      ),
    );
    expect(parsed.records).toHaveLength(2);
    expect(parsed.findings).toEqual([
      { code: code('time-decreased'), line: 2, reason: 'the timestamp is earlier than the previous record' },
    ]);
  });

  it('refuses to serialize an invalid record with the documented error, one finding per issue', () => {
    let error: unknown;
    try {
      serializeTranscriptRecord({
        ...record(),
        cycle: -1,
        observation: { summary: 'x', metric: 'one' as never },
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    const { code: errorCode, message, findings } = error as InputError;
    expect(errorCode).toBe(code('record-invalid'));
    expect(findings).toEqual([
      { code: code('record-invalid'), line: 0, reason: 'cycle: Too small: expected number to be >=0' },
      {
        code: code('record-invalid'),
        line: 0,
        reason: 'observation.metric: Invalid input: expected number, received string',
      },
    ]);
    expect(message).toBe(
      [
        'the transcript record does not satisfy the schema',
        `cycle: Too small: expected number to be >=0 (${code('record-invalid')})`,
        `observation.metric: Invalid input: expected number, received string (${code('record-invalid')})`,
      ].join('\n'),
    );
  });

  it('names the whole record when the value to serialize is not an object', () => {
    expect(() => serializeTranscriptRecord(null as never)).toThrow(
      `the transcript record does not satisfy the schema\nrecord: Invalid input: expected object, received null (${code('record-invalid')})`,
    );
  });
});

describe('the transcript record schema', () => {
  const accepts = (value: unknown) => transcriptRecordSchema.safeParse(value).success;

  it('accepts a timestamp with Z or with an offset, and refuses one without either', () => {
    expect(accepts(record({ timestamp: '2026-03-01T10:00:00Z' }))).toBe(true);
    expect(accepts(record({ timestamp: '2026-03-01T12:00:00+02:00' }))).toBe(true);
    expect(accepts(record({ timestamp: '2026-03-01T05:30:00.250-04:30' }))).toBe(true);
    expect(accepts(record({ timestamp: '2026-03-01T10:00:00' }))).toBe(false);
  });

  it('accepts every documented value of the enumerations and refuses others', () => {
    for (const disposition of ['kept', 'discarded', 'skipped', null] as const)
      expect(accepts(record({ action: { kind: 'hypothesis', summary: 'h', disposition } }))).toBe(true);
    for (const verdict of ['pass', 'fail', 'unavailable'] as const)
      expect(accepts(record({ verifierResult: { evaluator: 'npm test', verdict, detail: null } }))).toBe(
        true,
      );
    for (const decision of ['continue', 'pivot', 'stop', null] as const)
      expect(accepts(record({ decision }))).toBe(true);
    expect(
      accepts(record({ action: { kind: 'action', summary: 'a', disposition: 'reverted' as never } })),
    ).toBe(false);
    expect(
      accepts(record({ verifierResult: { evaluator: 'e', verdict: 'error' as never, detail: null } })),
    ).toBe(false);
    expect(accepts(record({ decision: '' as never }))).toBe(false);
    expect(accepts(record({ action: { kind: 'action', summary: 'a', disposition: '' as never } }))).toBe(
      false,
    );
    expect(accepts(record({ verifierResult: { evaluator: 'e', verdict: '' as never, detail: null } }))).toBe(
      false,
    );
  });

  it('refuses a success without the rule that confirmed it, and says so', () => {
    const text = line({
      terminalCheck: { rule: null, success: true, reason: 'looks fine', evidence: ['e'] },
    });
    expect(parseTranscript(text).findings).toEqual([
      {
        code: code('record-invalid'),
        line: 1,
        reason: 'not a transcript record (terminalCheck: success needs the rule that confirmed it)',
      },
    ]);
    expect(
      accepts(record({ terminalCheck: { rule: null, success: false, reason: 'none fired', evidence: [] } })),
    ).toBe(true);
  });

  it('accepts the closing part with its four fields, absent or null, and refuses an unknown or a missing field', () => {
    const closing = {
      unresolvedRisk: 'the fix relies on test ordering',
      nextHypothesis: null,
      retainedState: ['two kept edits in src/'],
      cleanup: [],
    };
    expect(accepts(record({ closing }))).toBe(true);
    expect(accepts(record({ closing: null }))).toBe(true);
    expect(accepts(record())).toBe(true);
    expect(
      parseTranscript(JSON.stringify({ ...record(), closing: { ...closing, extra: 1 } })).findings,
    ).toEqual([
      {
        code: code('record-invalid'),
        line: 1,
        reason: 'not a transcript record (closing: Unrecognized key: "extra")',
      },
    ]);
    const { cleanup: _cleanup, ...withoutCleanup } = closing;
    expect(accepts(record({ closing: withoutCleanup as never }))).toBe(false);
  });
});
