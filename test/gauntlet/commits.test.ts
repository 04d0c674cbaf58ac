import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { parseActionRecord } from '../../src/gauntlet/action-records.js';
import {
  attributionMatches,
  type CommitSubject,
  formatAttribution,
  formatChildBody,
  formatRepairBody,
  formatRepairReason,
  formatSubject,
  isChildSubject,
  parseRepairBody,
  parseSubject,
  readAttribution,
} from '../../src/gauntlet/commits.js';
import { parentCommitAmong } from '../../src/gauntlet/dispatch.js';
import type { ActionRecord, PendingTuple } from '../../src/gauntlet/types.js';

const HEAD = 'abcdef0123456789abcdef0123456789abcdef01';
const CHILD = '0123456789abcdef0123456789abcdef01234567';

describe('parseSubject (§2)', () => {
  it('reads every subject of the §1.8 history', () => {
    expect(
      [
        'loop: seed ledger',
        'loop: seed evidence',
        'loop: row 2 done',
        'loop: row 3 failed',
        'loop: escalate row 3',
        'loop: retry row 3',
      ].map(parseSubject),
    ).toEqual([
      { kind: 'seed-ledger' },
      { kind: 'seed-evidence' },
      { kind: 'row', row: 2, status: 'done' },
      { kind: 'row', row: 3, status: 'failed' },
      { kind: 'escalate-row', row: 3 },
      { kind: 'retry-row', row: 3 },
    ]);
  });

  it('reads the parent repair, amendment and allowance subjects', () => {
    expect(parseSubject('loop: repair row 4')).toEqual({ kind: 'repair-row', row: 4 });
    expect(parseSubject('loop: repair seed')).toEqual({ kind: 'repair-seed' });
    expect(parseSubject('loop: repair verification')).toEqual({ kind: 'repair-verification' });
    expect(parseSubject('loop: raise allowance')).toEqual({ kind: 'raise-allowance' });
    expect(parseSubject('loop: cut row 5')).toEqual({ kind: 'cut-row', row: 5 });
    expect(parseSubject('loop: amend')).toEqual({ kind: 'amend' });
    expect(parseSubject('loop: migrate allowance')).toEqual({ kind: 'migrate-allowance' });
    expect(parseSubject('loop: record api row 3')).toEqual({ kind: 'record-row', repo: 'api', row: 3 });
  });

  it('reads and writes the record of a companion seed, row 0 (legs L10)', () => {
    expect(parseSubject('loop: record api row 0')).toEqual({ kind: 'record-row', repo: 'api', row: 0 });
    expect(formatSubject({ kind: 'record-row', repo: 'api', row: 0 })).toBe('loop: record api row 0');
    expect(parseSubject('loop: record api row 00')).toEqual({
      kind: 'other',
      subject: 'loop: record api row 00',
    });
    expect(() => formatSubject({ kind: 'record-row', repo: 'api', row: -1 })).toThrow(InputError);
  });

  it('the record of a companion seed is a parent commit: the dispatch it records is settled', () => {
    expect(parentCommitAmong(['loop: record api row 0'])).toBe(true);
    expect(isChildSubject(parseSubject('loop: record api row 0'))).toBe(false);
  });

  it('reads the subjects decided here for the gaps (A5, A30, verification child)', () => {
    expect(parseSubject('loop: escalate row 7')).toEqual({ kind: 'escalate-row', row: 7 });
    expect(parseSubject('loop: verification changes')).toEqual({ kind: 'verification-changes' });
    expect(parseSubject('loop: verification fix')).toEqual({ kind: 'verification-repair' });
  });

  it('matches exactly: near misses are other subjects, so they are never counted', () => {
    for (const subject of [
      'loop: row 3 cut',
      'loop: Row 3 done',
      'loop: row 03 done',
      'loop: row 0 done',
      'loop: repair row 0',
      'loop: repair row 3 ',
      'loop: seed evidence (retry)',
      'loop:seed ledger',
      'fix: csv writer',
      'loop: repair row 3 done',
      'loop: constructor',
      'loop: toString',
    ])
      expect(parseSubject(subject)).toEqual({ kind: 'other', subject });
  });
});

describe('formatSubject', () => {
  const rowNumber = fc.integer({ min: 1, max: 100_000 });
  const subject: fc.Arbitrary<CommitSubject> = fc.oneof(
    fc.constantFrom<CommitSubject>(
      { kind: 'seed-ledger' },
      { kind: 'seed-evidence' },
      { kind: 'repair-seed' },
      { kind: 'repair-verification' },
      { kind: 'raise-allowance' },
      { kind: 'amend' },
      { kind: 'migrate-allowance' },
      { kind: 'verification-changes' },
      { kind: 'verification-repair' },
    ),
    fc.record({
      kind: fc.constant('row' as const),
      row: rowNumber,
      status: fc.constantFrom('done' as const, 'failed' as const),
    }),
    fc.record({
      kind: fc.constantFrom(
        'repair-row' as const,
        'retry-row' as const,
        'cut-row' as const,
        'escalate-row' as const,
      ),
      row: rowNumber,
    }),
    fc.record({
      kind: fc.constant('record-row' as const),
      repo: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/),
      row: rowNumber,
    }),
  );

  it('every subject it writes reads back as itself', () => {
    fc.assert(
      fc.property(subject, (s) => {
        expect(parseSubject(formatSubject(s))).toEqual(s);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a row that is not a positive integer', () => {
    expect(() => formatSubject({ kind: 'cut-row', row: 0 })).toThrow(InputError);
    expect(() => formatSubject({ kind: 'row', row: 1.5, status: 'done' })).toThrow(InputError);
  });

  it('knows which subjects a child writes', () => {
    expect(isChildSubject(parseSubject('loop: row 3 failed'))).toBe(true);
    expect(isChildSubject(parseSubject('loop: seed evidence'))).toBe(true);
    expect(isChildSubject(parseSubject('loop: verification fix'))).toBe(true);
    for (const parent of [
      'loop: repair row 3',
      'loop: retry row 3',
      'loop: raise allowance',
      'loop: record api row 3',
    ])
      expect(isChildSubject(parseSubject(parent))).toBe(false);
  });
});

describe('attribution lines (§1.6)', () => {
  const tuple: PendingTuple = { target: 3, repo: 'home', head: HEAD };

  it('T7: a dispatch at iterations 7 is attributed by the tuple and iteration: 8', () => {
    expect(formatAttribution(tuple, 8)).toBe(`pending: 3 | home | ${HEAD}\niteration: 8`);
    const body = `${formatAttribution(tuple, 8)}\nran capture (1 of 1)\n`;
    expect(readAttribution(body)).toEqual({
      pendingLine: `pending: 3 | home | ${HEAD}`,
      iterationLine: 'iteration: 8',
      pending: tuple,
      iteration: 8,
    });
    expect(attributionMatches(body, tuple, 8)).toBe(true);
  });

  it('the lines must be exact: another iteration, another tuple or extra blanks do not match', () => {
    const body = formatAttribution(tuple, 8);
    expect(attributionMatches(body, tuple, 7)).toBe(false);
    expect(attributionMatches(body, { ...tuple, target: 2 }, 8)).toBe(false);
    expect(attributionMatches(` ${body}`, tuple, 8)).toBe(false);
    expect(attributionMatches(`\n${body}`, tuple, 8)).toBe(false);
    expect(readAttribution(`pending: 3 | home | ${HEAD} \niteration: 8`).pending).toBeNull();
  });

  it('returns whatever the two lines are when they do not parse', () => {
    expect(readAttribution('')).toEqual({
      pendingLine: null,
      iterationLine: null,
      pending: null,
      iteration: null,
    });
    expect(readAttribution('fixed the writer\r\niteration: eight')).toEqual({
      pendingLine: 'fixed the writer',
      iterationLine: 'iteration: eight',
      pending: null,
      iteration: null,
    });
  });

  it('the child body carries its records after the two lines', () => {
    const record = parseActionRecord('bound spent: capture 1 of 1') as ActionRecord;
    expect(formatChildBody({ target: 'seed', repo: 'home', head: HEAD }, 1, [record])).toBe(
      `pending: seed | home | ${HEAD}\niteration: 1\nbound spent: capture (1 of 1)`,
    );
    expect(() => formatAttribution(tuple, 0)).toThrow(InputError);
  });
});

describe('repair bodies', () => {
  const seedTuple: PendingTuple = { target: 'seed', repo: 'home', head: HEAD };
  const capture = parseActionRecord('ran capture (1 of 1)') as ActionRecord;

  it('AS1/R5: an interrupted seed repair keeps the reason and the capture record', () => {
    const body = formatRepairBody({
      pending: seedTuple,
      iteration: 3,
      reason: { kind: 'seed-interrupted', text: 'killed after silence' },
      records: [capture],
    });
    expect(body.split('\n')).toEqual([
      `pending: seed | home | ${HEAD}`,
      'iteration: 3',
      'seed interrupted: killed after silence',
      'ran capture (1 of 1)',
    ]);
    expect(parseRepairBody(body)).toEqual({
      pending: seedTuple,
      iteration: 3,
      reason: { kind: 'seed-interrupted', text: 'killed after silence' },
      records: [capture],
    });
  });

  it('reads the reason of a hand-written seed miss body', () => {
    expect(parseRepairBody('seed miss: decision counts 3 rows but 2 got evidence\n')).toEqual({
      pending: null,
      iteration: null,
      reason: { kind: 'seed-miss', text: 'decision counts 3 rows but 2 got evidence' },
      records: [],
    });
  });

  it('VF1: the verification marker names the admitted child commit', () => {
    const body = formatRepairBody({
      pending: { target: 'verify', repo: 'home', head: HEAD },
      iteration: 9,
      reason: { kind: 'admitted', child: CHILD },
    });
    expect(parseRepairBody(body).reason).toEqual({ kind: 'admitted', child: CHILD });
    expect(parseRepairBody(body).pending?.target).toBe('verify');
  });

  it('folds a multi-line reason onto one line and refuses a blank one', () => {
    expect(formatRepairReason({ kind: 'miss', text: 'decision missing\n  for row 3' })).toBe(
      'miss: decision missing for row 3',
    );
    expect(() => formatRepairReason({ kind: 'interrupted', text: ' \n ' })).toThrow(InputError);
    expect(() => formatRepairReason({ kind: 'admitted', child: 'abc' })).toThrow(InputError);
  });

  it('every written repair body reads back', () => {
    const text = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      .map((s) => s.replace(/\s+/g, ' ').trim())
      .filter((s) => s !== '');
    const reason = fc.oneof(
      fc.record({
        kind: fc.constantFrom(
          'seed-miss' as const,
          'seed-interrupted' as const,
          'miss' as const,
          'interrupted' as const,
        ),
        text,
      }),
      fc.record({ kind: fc.constant('admitted' as const), child: fc.stringMatching(/^[0-9a-f]{40}$/) }),
    );
    const record = fc
      .record({
        kind: fc.constantFrom('ran' as const, 'bound-spent' as const),
        action: fc.stringMatching(/^[a-z][a-z -]{0,10}[a-z]$/),
        k: fc.nat({ max: 9 }),
        bound: fc.nat({ max: 9 }),
      })
      .map((r) => ({
        ...r,
        text: `${r.kind === 'ran' ? 'ran' : 'bound spent:'} ${r.action} (${r.k} of ${r.bound})`,
      }));
    const tuple = fc.record({
      target: fc.oneof(fc.integer({ min: 1, max: 99 }), fc.constantFrom('seed' as const, 'verify' as const)),
      repo: fc.constant('home'),
      head: fc.stringMatching(/^[0-9a-f]{40}$/),
    });
    fc.assert(
      fc.property(
        tuple,
        fc.integer({ min: 1, max: 10_000 }),
        reason,
        fc.array(record, { maxLength: 4 }),
        (pending, iteration, why, records) => {
          expect(parseRepairBody(formatRepairBody({ pending, iteration, reason: why, records }))).toEqual({
            pending,
            iteration,
            reason: why,
            records,
          });
        },
      ),
      { numRuns: 1000 },
    );
  });
});
