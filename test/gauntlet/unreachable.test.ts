import { describe, expect, it } from 'vitest';
import type { AdmittedReturn } from '../../src/gauntlet/history.js';
import type { Disposition, SpecRow } from '../../src/gauntlet/types.js';
import {
  outOfScopeEntry,
  readUnreachableMarker,
  routeUnreachableReturn,
  type UnreachableRouting,
} from '../../src/gauntlet/unreachable.js';
import { seededRun } from './rules-fixtures.js';

const ROW_TEXT = 'Exporting a report uploads the CSV to the staging bucket and shows a download link';

function specRow(disposition: Disposition = { kind: 'in-scope', explicit: false }): SpecRow {
  return { row: 3, text: ROW_TEXT, line: 12, disposition };
}

function admission(evidence: string, overrides: Partial<AdmittedReturn> = {}): AdmittedReturn {
  return {
    row: 3,
    sha: 'b'.repeat(40),
    status: 'failed',
    evidence,
    decision: 'row 3 failed | cannot reach | needs a human',
    answeredBy: null,
    ...overrides,
  };
}

function route(
  evidence: string,
  options: { amend?: boolean; disposition?: Disposition } = {},
): UnreachableRouting {
  return routeUnreachableReturn({
    admission: admission(evidence),
    specRow: specRow(options.disposition),
    amendPermission: options.amend ?? false,
  });
}

describe('unreachable routing (§3.13)', () => {
  it('U1: under amend permission an unreachable in-scope row becomes one auto-applied amend item', () => {
    expect(route('e2e; unreachable: prod DNS - runbook §4', { amend: true })).toEqual({
      kind: 'amend',
      row: 3,
      what: 'prod DNS',
      where: 'runbook §4',
      disposition: 'deviates: unreachable in this checkout - prod DNS; proof at runbook §4',
      // The first 60 characters of ROW_TEXT end exactly after “bucket and”.
      outOfScope:
        'Exporting a report uploads the CSV to the staging bucket and - unreachable in this checkout - prod DNS',
      autoApply: true,
      amendedLine: 'amended the spec: row 3 - unreachable in this checkout - prod DNS',
    });
  });

  it('U1: without amend permission the same item goes to the human batch', () => {
    const routed = route('e2e; unreachable: prod DNS - runbook §4');
    expect(routed.kind).toBe('amend');
    expect(routed.kind === 'amend' && routed.autoApply).toBe(false);
  });

  it('U3: a venue: row stays on the ordinary failed path', () => {
    const venue: Disposition = {
      kind: 'venue',
      env: 'staging',
      observation: 'upload visible',
      text: 'venue: staging - upload visible',
    };
    expect(
      route('staging-smoke; unreachable: staging bucket upload - docs/ops/staging.md', {
        disposition: venue,
      }),
    ).toMatchObject({
      kind: 'continue',
      why: 'venue-row',
    });
  });

  it('U5: a marker in a later result segment or in the check name is ignored', () => {
    expect(route('e2e; 2 failing; unreachable: prod DNS - runbook', { amend: true })).toMatchObject({
      kind: 'continue',
      why: 'no-marker',
    });
    expect(route('unreachable: prod DNS - runbook; 1 failing')).toMatchObject({
      kind: 'continue',
      why: 'no-marker',
    });
  });

  it('U5: another row’s marker and a rejected return are never routed', () => {
    const run = seededRun(3)
      .child(2, 'failed', { evidence: 'e2e; unreachable: prod DNS - runbook' })
      .miss(3, 'bad');
    const latest = run.history().latestAdmission;
    expect(latest?.row).toBe(2);
    expect(latest?.evidence).toBe('e2e; unreachable: prod DNS - runbook');
    const other = seededRun(3).child(1, 'failed', { evidence: 'e2e; unreachable: prod DNS - runbook' });
    other.child(3, 'failed', { evidence: 'e2e; 1 failing' });
    const admitted = other.history().latestAdmission as AdmittedReturn;
    expect(
      routeUnreachableReturn({ admission: admitted, specRow: specRow(), amendPermission: true }),
    ).toMatchObject({
      kind: 'continue',
      why: 'no-marker',
    });
  });

  it('bound spent stops on the row with the fixed recommendation, venue rows included', () => {
    const venue: Disposition = {
      kind: 'venue',
      env: 'staging',
      observation: 'x',
      text: 'venue: staging - x',
    };
    for (const disposition of [undefined, venue])
      expect(
        route('capture; bound spent: capture (1 of 1); 1 failing', { disposition, amend: true }),
      ).toEqual({
        kind: 'bound-spent',
        row: 3,
        marker: 'bound spent: capture (1 of 1)',
        recommendation: 'Recommendation: none - named action bound spent',
      });
  });

  it('U7: an answered return never re-fires, even with unchanged evidence', () => {
    const run = seededRun(3)
      .child(3, 'failed', { evidence: 'capture; bound spent: capture (1 of 1)' })
      .raise(2);
    const admitted = run.history().latestAdmission as AdmittedReturn;
    expect(admitted.evidence).toBe(run.ledger.rows[2]?.evidence);
    expect(
      routeUnreachableReturn({ admission: admitted, specRow: specRow(), amendPermission: false }),
    ).toMatchObject({
      kind: 'continue',
      why: 'answered',
    });
  });

  it('U7: a newly admitted failed return with identical evidence is routed again', () => {
    const evidence = 'capture; bound spent: capture (1 of 1)';
    const run = seededRun(3)
      .child(3, 'failed', { evidence })
      .retry(3, 'try without capture')
      .child(3, 'failed', { evidence });
    const admitted = run.history().latestAdmission as AdmittedReturn;
    expect(
      routeUnreachableReturn({ admission: admitted, specRow: specRow(), amendPermission: false }).kind,
    ).toBe('bound-spent');
  });

  it('U9: retry and rows +N leave the action spend unchanged', () => {
    const run = seededRun(3).child(3, 'failed', { evidence: 'capture; bound spent: capture (1 of 1)' });
    const before = run.history().actionSpend;
    run.retry(3, 'again').raise(5);
    expect(run.history().actionSpend).toEqual(before);
  });

  it('A27: the marker splits at the first " - "', () => {
    expect(readUnreachableMarker('e2e; unreachable: prod - DNS - runbook - §4')).toMatchObject({
      kind: 'unreachable',
      what: 'prod',
      where: 'DNS - runbook - §4',
    });
  });

  it('malformed markers stay on the ordinary path', () => {
    for (const evidence of [
      'e2e; unreachable: prod DNS',
      'e2e; unreachable:  - runbook',
      'e2e; bound spent:',
      'e2e; Unreachable: a - b',
    ])
      expect(route(evidence, { amend: true })).toMatchObject({ kind: 'continue', why: 'no-marker' });
    expect(readUnreachableMarker('e2e; unreachable: prod DNS')).toMatchObject({
      kind: 'none',
      malformed: true,
    });
  });

  it('reads escaped pipes and semicolons inside the first result segment', () => {
    expect(readUnreachableMarker('e2e; unreachable: host a\\|b\\; c - notes\\; p. 4; other')).toMatchObject({
      kind: 'unreachable',
      what: 'host a|b; c',
      where: 'notes; p. 4',
    });
  });

  it('a done admission or one without readable evidence goes back to the ordered table', () => {
    const done = routeUnreachableReturn({
      admission: admission('e2e; unreachable: a - b', { status: 'done' }),
      specRow: specRow(),
      amendPermission: true,
    });
    expect(done).toMatchObject({ kind: 'continue', why: 'not-failed' });
    const unreadable = routeUnreachableReturn({
      admission: admission('', { evidence: null }),
      specRow: specRow(),
      amendPermission: true,
    });
    expect(unreadable).toMatchObject({ kind: 'continue', why: 'evidence-unreadable' });
  });

  it('the Out-of-scope entry keeps the first 60 characters of the row text', () => {
    const text = `${'x'.repeat(59)} y and more words`;
    expect(outOfScopeEntry(text, 'prod DNS')).toBe(
      `${'x'.repeat(59)} - unreachable in this checkout - prod DNS`,
    );
    expect(outOfScopeEntry('short row', 'a')).toBe('short row - unreachable in this checkout - a');
    const emoji = '😀'.repeat(70);
    expect(outOfScopeEntry(emoji, 'a')).toBe(`${'😀'.repeat(60)} - unreachable in this checkout - a`);
  });

  it('a cell without a result line carries no marker and is not malformed', () => {
    expect(readUnreachableMarker('e2e')).toEqual({ kind: 'none', segment: null, malformed: false });
  });

  it('only a segment that starts with the marker counts (^bound spent: .+$)', () => {
    expect(readUnreachableMarker('capture; not bound spent: capture (1 of 1)')).toEqual({
      kind: 'none',
      segment: 'not bound spent: capture (1 of 1)',
      malformed: false,
    });
    expect(readUnreachableMarker('capture; bound spent: capture (1 of 1)')).toEqual({
      kind: 'bound-spent',
      segment: 'bound spent: capture (1 of 1)',
    });
  });

  it('an ordinary result is not malformed; a bound spent: without its space is', () => {
    expect(readUnreachableMarker('e2e; 1 failing')).toEqual({
      kind: 'none',
      segment: '1 failing',
      malformed: false,
    });
    expect(readUnreachableMarker('capture; bound spent:capture (1 of 1)')).toEqual({
      kind: 'none',
      segment: 'bound spent:capture (1 of 1)',
      malformed: true,
    });
  });

  it('A27: <what> and <where> are trimmed around the separator', () => {
    expect(readUnreachableMarker('e2e; unreachable: prod DNS  -   runbook §4')).toEqual({
      kind: 'unreachable',
      segment: 'unreachable: prod DNS  -   runbook §4',
      what: 'prod DNS',
      where: 'runbook §4',
    });
  });

  it('A27: a blank <what> before the separator is malformed and never routed', () => {
    // `unreachable: ` then two blanks, the separator and a location: <what> trims to nothing.
    const evidence = 'e2e; unreachable:   - runbook §4';
    expect(readUnreachableMarker(evidence)).toMatchObject({ kind: 'none', malformed: true });
    expect(route(evidence, { amend: true })).toMatchObject({ kind: 'continue', why: 'no-marker' });
  });

  it('the Out-of-scope entry starts with the row text itself, without its leading blanks', () => {
    expect(outOfScopeEntry('   Exporting a report uploads the CSV', 'prod DNS')).toBe(
      'Exporting a report uploads the CSV - unreachable in this checkout - prod DNS',
    );
  });
});
