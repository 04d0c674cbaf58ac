import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError } from '../../src/common/errors.js';
import {
  loopProtocolSchemas,
  parseTranscript,
  serializeTranscriptRecord,
  transcriptRecordSchema,
} from '../../src/loop-protocol/index.js';
import { record } from './fixtures.js';

describe('the transcript record', () => {
  it('carries every ledger field of the protocol plus machine, state, event and transition', () => {
    const keys = Object.keys(transcriptRecordSchema.shape);
    for (const field of [
      'cycle',
      'timestamp',
      'observation',
      'fingerprint',
      'action',
      'evidence',
      'progressDelta',
      'verifierResult',
      'decision',
      'terminalCheck',
      'machine',
      'state',
      'event',
      'transition',
    ])
      expect(keys).toContain(field);
  });

  it('accepts a well-formed record and refuses missing fields, unknown fields and bad values', () => {
    expect(transcriptRecordSchema.safeParse(record()).success).toBe(true);
    const { fingerprint: _f, ...missing } = record();
    expect(transcriptRecordSchema.safeParse(missing).success).toBe(false);
    expect(transcriptRecordSchema.safeParse({ ...record(), extra: true }).success).toBe(false);
    expect(transcriptRecordSchema.safeParse(record({ decision: 'retry' as never })).success).toBe(false);
    expect(transcriptRecordSchema.safeParse(record({ timestamp: 'yesterday' })).success).toBe(false);
    expect(
      transcriptRecordSchema.safeParse(
        record({ terminalCheck: { rule: null, success: true, reason: '', evidence: [] } }),
      ).success,
    ).toBe(false);
  });

  it('serializes one record per line and parses it back', () => {
    const line = serializeTranscriptRecord(record());
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const parsed = parseTranscript(line + line.replace('"cycle":1', '"cycle":2'));
    expect(parsed.findings).toEqual([]);
    expect(parsed.records).toEqual([record(), record({ cycle: 2 })]);
  });

  it('refuses to serialize an invalid record with a named error', () => {
    expect(() => serializeTranscriptRecord(record({ cycle: -1 }))).toThrow(InputError);
  });

  it('reports bad lines by number and keeps the good ones', () => {
    const good = serializeTranscriptRecord(record());
    const text = [
      good.trim(),
      '{not json',
      JSON.stringify({ ...record(), version: 2 }),
      '',
      serializeTranscriptRecord(record({ cycle: 0, timestamp: '2026-03-01T09:00:00Z' })).trim(),
    ].join('\n');
    const parsed = parseTranscript(text);
    expect(parsed.records).toHaveLength(2);
    expect(parsed.findings.map((f) => [f.line, f.code])).toEqual([
      [2, 'loop-protocol.transcript.not-json'],
      [3, 'loop-protocol.transcript.record-invalid'],
      [5, 'loop-protocol.transcript.cycle-decreased'],
      [5, 'loop-protocol.transcript.time-decreased'],
    ]);
  });

  it('is published as JSON Schema under transcript-record', () => {
    const json = z.toJSONSchema(loopProtocolSchemas['transcript-record']) as {
      required: string[];
      additionalProperties: boolean;
    };
    expect(json.required).toEqual(
      expect.arrayContaining(['cycle', 'terminalCheck', 'machine', 'transition']),
    );
    expect(json.additionalProperties).toBe(false);
  });

  it('accepts the example line of docs/loop-protocol.md', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/loop-protocol.md'), 'utf8');
    const example = /```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const line = (example ?? '').replace(/\n\s*/g, '');
    expect(parseTranscript(line)).toMatchObject({ findings: [] });
    expect(parseTranscript(line).records).toHaveLength(1);
  });
});
