/**
 * The schemas module is built while it loads: its tagged unions are constructed at import time,
 * so a broken union (a wrong tag key, a member without its tag) throws before any test runs.
 * A static import would turn that into a file that fails to load, which a mutation run counts as
 * no test failing; here the module is imported inside the tests, so such a fault fails them.
 * Every expected value is written by hand from docs/ledger-format.md §7 (dispositions) and the
 * amend grant's three states (docs/decisions/formats.md).
 */
import { describe, expect, it } from 'vitest';

type SpecSchema = { safeParse(value: unknown): { success: boolean } };

async function loadSpecSchema(): Promise<SpecSchema> {
  const module = await import('../../src/gauntlet/schemas.js');
  return module.specSchema as SpecSchema;
}

/** A one-row spec whose row carries the given disposition, with no amend grant. */
function specWith(disposition: unknown, amendGrant: unknown = { kind: 'none' }): unknown {
  return {
    title: 'CSV export',
    rows: [{ row: 1, text: 'header row is written', line: 7, disposition }],
    amendGrant,
  };
}

describe('the published spec schema, loaded inside the test', () => {
  it('accepts each of the five disposition kinds with its own fields', async () => {
    const schema = await loadSpecSchema();
    const kinds = [
      { kind: 'in-scope', explicit: true },
      { kind: 'deviates', why: 'XLSX dropped by product decision', text: 'deviates: XLSX dropped' },
      { kind: 'deferred', where: 'ACME-412', text: 'deferred: ACME-412' },
      {
        kind: 'venue',
        env: 'staging',
        observation: 'upload visible',
        text: 'venue: staging - upload visible',
      },
      { kind: 'elsewhere', repo: 'api', text: 'elsewhere: api' },
    ];
    for (const disposition of kinds)
      expect(schema.safeParse(specWith(disposition)).success, disposition.kind).toBe(true);
  });

  it('refuses a disposition that lacks a field of its kind, or names no kind', async () => {
    const schema = await loadSpecSchema();
    const broken = [
      { kind: 'in-scope' },
      { kind: 'deviates', text: 'deviates: XLSX dropped' },
      { kind: 'deferred', text: 'deferred: ACME-412' },
      { kind: 'venue', env: 'staging', text: 'venue: staging - upload visible' },
      { kind: 'elsewhere', text: 'elsewhere: api' },
      { explicit: true },
      { kind: 'out-of-scope', text: 'out of scope' },
    ];
    for (const disposition of broken)
      expect(schema.safeParse(specWith(disposition)).success, JSON.stringify(disposition)).toBe(false);
  });

  it('accepts the three amend-grant states and refuses an active grant without its sentence', async () => {
    const schema = await loadSpecSchema();
    const inScope = { kind: 'in-scope', explicit: false };
    expect(schema.safeParse(specWith(inScope, { kind: 'none' })).success).toBe(true);
    expect(
      schema.safeParse(
        specWith(inScope, { kind: 'active', sentence: 'I approve auto-applied amendments for this loop.' }),
      ).success,
    ).toBe(true);
    expect(
      schema.safeParse(
        specWith(inScope, { kind: 'malformed', lines: [{ line: 3, text: '**Amend-grant:** maybe' }] }),
      ).success,
    ).toBe(true);
    expect(schema.safeParse(specWith(inScope, { kind: 'active' })).success).toBe(false);
    expect(schema.safeParse(specWith(inScope, { kind: 'malformed' })).success).toBe(false);
    expect(schema.safeParse(specWith(inScope, { sentence: 'yes' })).success).toBe(false);
  });
});
