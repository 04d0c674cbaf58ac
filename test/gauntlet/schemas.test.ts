/**
 * The published zod schemas of the loop engine's boundary structures (src/gauntlet/schemas.ts):
 * what they accept and refuse, checked against the ledger and spec grammar of
 * docs/ledger-format.md (gauntlet-protocol §1.2-§1.6), and the descriptions a user reads in the
 * generated schemas/ledger.json and schemas/spec.json. Every expected value is written by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import {
  findingSchema,
  ledgerRowSchema,
  ledgerSchema,
  loopEngineSchemas,
  pendingTupleSchema,
  specSchema,
} from '../../src/gauntlet/schemas.js';
import { parseSpec } from '../../src/gauntlet/spec.js';

const BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';
const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';

/** The in-flight single-leg ledger of docs/ledger-format.md §1.1. */
const LEDGER_TEXT = [
  '# Loop ledger',
  '',
  '**Spec:** doc/specs/2026-11-02-csv-export.md',
  `base: ${BASE}`,
  'verification: npm test',
  'checks: commands',
  'iterations: 7',
  'allowance: 4',
  `pending: 3 | home | ${HEAD}`,
  '',
  '| row | status | attempts | evidence |',
  '| --- | ------ | -------- | -------- |',
  '| 1   | done   | 0        | npm test -- csv.test.ts; header row already exported on baseline |',
  '| 2   | done   | 1        | npm test -- csv.test.ts; 14 passed; commas and quotes escaped |',
  '| 3   | failed | 4        | staging-smoke; unreachable: staging bucket upload - docs/ops/staging.md |',
  '| 4   | cut    | 0        | deferred: ACME-412 |',
  '| 5   | open   | 0        |  |',
  '',
  '## Decisions',
  '',
  'row 0 done | seeded 4 rows, closed 1 on baseline | row 2',
  'row 2 done | CSV writer escapes commas and quotes | take row 3 next',
  'row 3 escalated | implModel round | allowed attempts 4',
  'row 3 retry | use the local MinIO fixture | allowed attempts 5',
  '',
].join('\n');

/** The same ledger as plain data, written by hand from the text above. */
const LEDGER = {
  discriminant: '# Loop ledger',
  spec: 'doc/specs/2026-11-02-csv-export.md',
  base: BASE,
  verification: 'npm test',
  checks: 'commands',
  iterations: 7,
  allowance: 4,
  pending: { target: 3, repo: 'home', head: HEAD },
  rows: [
    {
      row: 1,
      status: 'done',
      attempts: 0,
      evidence: 'npm test -- csv.test.ts; header row already exported on baseline',
    },
    {
      row: 2,
      status: 'done',
      attempts: 1,
      evidence: 'npm test -- csv.test.ts; 14 passed; commas and quotes escaped',
    },
    {
      row: 3,
      status: 'failed',
      attempts: 4,
      evidence: 'staging-smoke; unreachable: staging bucket upload - docs/ops/staging.md',
    },
    { row: 4, status: 'cut', attempts: 0, evidence: 'deferred: ACME-412' },
    { row: 5, status: 'open', attempts: 0, evidence: '' },
  ],
  decisions: [
    'row 0 done | seeded 4 rows, closed 1 on baseline | row 2',
    'row 2 done | CSV writer escapes commas and quotes | take row 3 next',
    'row 3 escalated | implModel round | allowed attempts 4',
    'row 3 retry | use the local MinIO fixture | allowed attempts 5',
  ],
};

/** A spec with every disposition kind (§1.3) and an active amend grant. */
const SPEC_TEXT = [
  '# CSV export',
  '**Amend-grant:** I approve auto-applied amendments for this loop.',
  '',
  '## Acceptance criteria',
  '',
  'Ticket ACME-1, checkbox list, rows verbatim:',
  '',
  '- [ ] header row is written',
  '  in-scope',
  '- [ ] commas and quotes are escaped',
  '- [ ] upload to the staging bucket',
  '  venue: staging - upload visible in the bucket',
  '- [ ] scheduled export',
  '  deferred: ACME-412',
  '- [ ] XLSX output',
  '  deviates: dropped by product decision',
  '- [ ] mobile export',
  '  elsewhere: acme/mobile',
  '',
].join('\n');

const SPEC = {
  title: 'CSV export',
  rows: [
    { row: 1, text: 'header row is written', line: 8, disposition: { kind: 'in-scope', explicit: true } },
    {
      row: 2,
      text: 'commas and quotes are escaped',
      line: 10,
      disposition: { kind: 'in-scope', explicit: false },
    },
    {
      row: 3,
      text: 'upload to the staging bucket',
      line: 11,
      disposition: {
        kind: 'venue',
        env: 'staging',
        observation: 'upload visible in the bucket',
        text: 'venue: staging - upload visible in the bucket',
      },
    },
    {
      row: 4,
      text: 'scheduled export',
      line: 13,
      disposition: { kind: 'deferred', where: 'ACME-412', text: 'deferred: ACME-412' },
    },
    {
      row: 5,
      text: 'XLSX output',
      line: 15,
      disposition: {
        kind: 'deviates',
        why: 'dropped by product decision',
        text: 'deviates: dropped by product decision',
      },
    },
    {
      row: 6,
      text: 'mobile export',
      line: 17,
      disposition: { kind: 'elsewhere', repo: 'acme/mobile', text: 'elsewhere: acme/mobile' },
    },
  ],
  amendGrant: { kind: 'active', sentence: 'I approve auto-applied amendments for this loop.' },
};

function accepts(schema: { safeParse(v: unknown): { success: boolean } }, value: unknown): boolean {
  return schema.safeParse(value).success;
}

function publishedSchema(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'schemas', `${name}.json`), 'utf8'));
}

describe('ledgerSchema (§1.2-§1.6)', () => {
  it('validates the ledger parsed from the documented example and keeps every field', () => {
    const parsed = parseLedger(LEDGER_TEXT);
    expect(parsed.findings).toEqual([]);
    expect(ledgerSchema.parse(parsed.ledger)).toEqual(LEDGER);
  });

  it('validates a freshly seeded ledger: no pending tuple, no decisions', () => {
    const seeded = { ...LEDGER, iterations: 0, pending: null, rows: [], decisions: [] };
    expect(ledgerSchema.parse(seeded)).toEqual(seeded);
  });

  it('refuses a base that is not a full lowercase 40-hex SHA', () => {
    for (const base of [
      BASE.slice(1), // 39 characters
      BASE.toUpperCase(),
      `${BASE}0`, // 41 characters
      `g${BASE}`, // a 40-hex tail behind a stray prefix
      `${BASE}g`, // a 40-hex head before a stray suffix
      '',
    ])
      expect(accepts(ledgerSchema, { ...LEDGER, base }), base).toBe(false);
    expect(accepts(ledgerSchema, { ...LEDGER, base: '0'.repeat(40) })).toBe(true);
  });

  it('refuses negative or fractional counters and missing sections', () => {
    expect(accepts(ledgerSchema, { ...LEDGER, iterations: -1 })).toBe(false);
    expect(accepts(ledgerSchema, { ...LEDGER, allowance: 1.5 })).toBe(false);
    expect(accepts(ledgerSchema, { ...LEDGER, allowance: 0 })).toBe(true);
    const { decisions: _decisions, ...withoutDecisions } = LEDGER;
    expect(accepts(ledgerSchema, withoutDecisions)).toBe(false);
    expect(accepts(ledgerSchema, { ...LEDGER, spec: 7 })).toBe(false);
  });

  it('refuses a ledger whose pending tuple or row breaks its own grammar', () => {
    expect(accepts(ledgerSchema, { ...LEDGER, pending: { target: 3, repo: 'home', head: 'HEAD' } })).toBe(
      false,
    );
    expect(
      accepts(ledgerSchema, { ...LEDGER, rows: [{ row: 1, status: 'closed', attempts: 0, evidence: '' }] }),
    ).toBe(false);
  });

  it('is described as the parsed loop ledger, as schemas/ledger.json publishes it', () => {
    expect(ledgerSchema.description).toBe('loopchart loop ledger (parsed)');
    expect(publishedSchema('ledger').description).toBe('loopchart loop ledger (parsed)');
  });
});

describe('pendingTupleSchema (§1.6: pending: <target> | <repo> | <HEAD sha>)', () => {
  it('accepts a row number >= 1, seed and verify as the target', () => {
    for (const target of [1, 3, 250, 'seed', 'verify'] as const)
      expect(pendingTupleSchema.parse({ target, repo: 'home', head: HEAD })).toEqual({
        target,
        repo: 'home',
        head: HEAD,
      });
  });

  it('refuses any other target', () => {
    for (const target of [0, -2, 1.5, '3', 'row', 'Seed', '', null])
      expect(accepts(pendingTupleSchema, { target, repo: 'home', head: HEAD }), String(target)).toBe(false);
  });

  it('accepts a member name as the repo and refuses an empty one', () => {
    expect(accepts(pendingTupleSchema, { target: 2, repo: 'web', head: HEAD })).toBe(true);
    expect(accepts(pendingTupleSchema, { target: 2, repo: '', head: HEAD })).toBe(false);
  });

  it('refuses a HEAD that is short, uppercase or missing', () => {
    expect(accepts(pendingTupleSchema, { target: 2, repo: 'home', head: HEAD.slice(0, 39) })).toBe(false);
    expect(accepts(pendingTupleSchema, { target: 2, repo: 'home', head: HEAD.toUpperCase() })).toBe(false);
    expect(accepts(pendingTupleSchema, { target: 2, repo: 'home' })).toBe(false);
  });

  it('is described by the tuple grammar, as schemas/ledger.json publishes it', () => {
    expect(pendingTupleSchema.description).toBe('pending: <target> | <repo> | <HEAD sha>');
    const pending = (
      publishedSchema('ledger').properties as Record<string, { anyOf: { description?: string }[] }>
    ).pending;
    expect(pending?.anyOf[0]?.description).toBe('pending: <target> | <repo> | <HEAD sha>');
  });
});

describe('ledgerRowSchema (§1.3)', () => {
  it('accepts the four statuses open, done, failed and cut', () => {
    for (const status of ['open', 'done', 'failed', 'cut'])
      expect(ledgerRowSchema.parse({ row: 1, status, attempts: 0, evidence: '' })).toEqual({
        row: 1,
        status,
        attempts: 0,
        evidence: '',
      });
  });

  it('refuses any other status, a row 0, negative attempts and a missing evidence cell', () => {
    for (const status of ['pending', 'complete', 'skipped', 'Open', ''])
      expect(accepts(ledgerRowSchema, { row: 1, status, attempts: 0, evidence: '' }), status).toBe(false);
    expect(accepts(ledgerRowSchema, { row: 0, status: 'open', attempts: 0, evidence: '' })).toBe(false);
    expect(accepts(ledgerRowSchema, { row: 1, status: 'open', attempts: -1, evidence: '' })).toBe(false);
    expect(accepts(ledgerRowSchema, { row: 1, status: 'open', attempts: 0 })).toBe(false);
  });

  it('describes the evidence cell as §1.4 serializes it, as schemas/ledger.json publishes it', () => {
    const text = 'the evidence cell as written: `;`-separated, pipes escaped';
    expect(ledgerRowSchema.shape.evidence.description).toBe(text);
    const rows = (
      publishedSchema('ledger').properties as Record<
        string,
        { items: { properties: Record<string, { description?: string }> } }
      >
    ).rows;
    expect(rows?.items.properties.evidence?.description).toBe(text);
  });
});

describe('specSchema (§1.3 dispositions, amend grant)', () => {
  it('validates the spec parsed from a hand-written text with every disposition kind', () => {
    const parsed = parseSpec(SPEC_TEXT);
    expect(parsed.findings).toEqual([]);
    expect(specSchema.parse(parsed.spec)).toEqual(SPEC);
  });

  it('accepts each disposition kind and keeps its fields', () => {
    const dispositions = [
      { kind: 'in-scope', explicit: false },
      { kind: 'deviates', why: 'w', text: 'deviates: w' },
      { kind: 'deferred', where: '#4', text: 'deferred: #4' },
      { kind: 'venue', env: 'staging', observation: 'o', text: 'venue: staging - o' },
      { kind: 'elsewhere', repo: 'acme/x', text: 'elsewhere: acme/x' },
    ];
    for (const disposition of dispositions) {
      const spec = {
        title: null,
        rows: [{ row: 1, text: 'a', line: 3, disposition }],
        amendGrant: { kind: 'none' },
      };
      expect(specSchema.parse(spec), disposition.kind).toEqual(spec);
    }
  });

  it('refuses a disposition that is missing a field of its kind or has an unknown kind', () => {
    for (const disposition of [
      { kind: 'in-scope' },
      { kind: 'deviates', text: 'deviates: w' },
      { kind: 'deferred', text: 'deferred: #4' },
      { kind: 'venue', env: 'staging', text: 'venue: staging - o' },
      { kind: 'elsewhere', text: 'elsewhere: acme/x' },
      { kind: 'out-of-scope', text: 'x' },
      {},
    ]) {
      const spec = {
        title: null,
        rows: [{ row: 1, text: 'a', line: 3, disposition }],
        amendGrant: { kind: 'none' },
      };
      expect(accepts(specSchema, spec), JSON.stringify(disposition)).toBe(false);
    }
  });

  it('refuses a row numbered 0, a line 0 and a row without text', () => {
    const disposition = { kind: 'in-scope', explicit: true };
    const spec = (row: unknown) => ({ title: 'x', rows: [row], amendGrant: { kind: 'none' } });
    expect(accepts(specSchema, spec({ row: 0, text: 'a', line: 3, disposition }))).toBe(false);
    expect(accepts(specSchema, spec({ row: 1, text: 'a', line: 0, disposition }))).toBe(false);
    expect(accepts(specSchema, spec({ row: 1, line: 3, disposition }))).toBe(false);
  });

  it('accepts the three amend-grant states and refuses others', () => {
    const spec = (amendGrant: unknown) => ({ title: 'x', rows: [], amendGrant });
    const malformed = { kind: 'malformed', lines: [{ line: 2, text: '**Amend-grant:** yes' }] };
    for (const grant of [{ kind: 'none' }, { kind: 'active', sentence: 'I approve.' }, malformed])
      expect(specSchema.parse(spec(grant)), grant.kind).toEqual(spec(grant));
    expect(accepts(specSchema, spec({ kind: 'active' }))).toBe(false);
    expect(accepts(specSchema, spec({ kind: 'malformed', lines: [{ line: 2 }] }))).toBe(false);
    expect(accepts(specSchema, spec({ kind: 'malformed', lines: [{ line: 'two', text: 'x' }] }))).toBe(false);
    expect(accepts(specSchema, spec({ kind: 'granted' }))).toBe(false);
  });

  it('is described as the parsed spec, as schemas/spec.json publishes it', () => {
    expect(specSchema.description).toBe('loopchart spec (parsed)');
    expect(publishedSchema('spec').description).toBe('loopchart spec (parsed)');
  });
});

describe('findingSchema', () => {
  it('accepts a finding with a code, a line (0 for the whole file) and a reason', () => {
    const finding = { code: 'ledger.absent', line: 0, reason: 'no ledger' };
    expect(findingSchema.parse(finding)).toEqual(finding);
  });

  it('refuses a negative line and a finding without a reason', () => {
    expect(accepts(findingSchema, { code: 'x', line: -1, reason: 'r' })).toBe(false);
    expect(accepts(findingSchema, { code: 'x', line: 1 })).toBe(false);
  });
});

describe('loopEngineSchemas', () => {
  it('names the five files published under schemas/ for the loop engine', () => {
    expect(Object.keys(loopEngineSchemas).sort()).toEqual([
      'child-return',
      'child-task',
      'finding',
      'ledger',
      'spec',
    ]);
    expect(loopEngineSchemas.ledger).toBe(ledgerSchema);
    expect(loopEngineSchemas.spec).toBe(specSchema);
    expect(loopEngineSchemas.finding).toBe(findingSchema);
    for (const name of Object.keys(loopEngineSchemas))
      expect(publishedSchema(name).$id).toContain(`/schemas/${name}.json`);
  });
});
