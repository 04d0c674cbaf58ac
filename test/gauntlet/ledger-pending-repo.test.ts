/**
 * The repo a pending tuple names (docs/ledger-format.md §1.2: "The repo is one word without pipes:
 * `home` for a single leg"). A single-leg ledger has one checkout, `home`; a tuple naming any other
 * repo is refused on read and on write with `ledger.pending.repo`, so a hand-edited ledger fails
 * with a named finding instead of dispatching into a leg that does not exist. A coordinated ledger
 * keeps its own rule (the repo must be a member, `ledger.legs.pending-repo`). Every expected value
 * is written by hand from the format page.
 */
import { describe, expect, it } from 'vitest';
import { LedgerFormatError } from '../../src/common/errors.js';
import { checkLedger, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { BASE, HEAD, ledgerText } from './text-fixtures.js';

const ROWS = ['| 1 | done | 1 | npm test; ok |', '| 2 | open | 0 |  |'];
const DECISIONS = ['row 1 done | first row closed | row 2'];

/** A single-leg ledger (§1.5) with `pending: <tuple>` on line 8, right after `allowance:`. */
function singleLeg(tuple?: string): string {
  return ledgerText({
    iterations: 2,
    rows: ROWS,
    decisions: DECISIONS,
    ...(tuple === undefined ? {} : { pending: tuple }),
  });
}

/** The same ledger as a value, without a layout (the canonical writer). */
function singleLegValue(repo: string): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: 'doc/specs/x.md',
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: 2,
    allowance: 4,
    pending: { target: 2, repo, head: HEAD },
    rows: [
      { row: 1, status: 'done', attempts: 1, evidence: 'npm test; ok' },
      { row: 2, status: 'open', attempts: 0, evidence: '' },
    ],
    decisions: ['row 1 done | first row closed | row 2'],
  } as Ledger;
}

describe('a single-leg pending tuple names home', () => {
  it('reads a tuple naming home, for a row, the seed and verification', () => {
    for (const target of ['2', 'seed', 'verify']) {
      const result = parseLedger(singleLeg(`${target} | home | ${HEAD}`));
      expect(result.findings).toEqual([]);
      expect(result.ledger?.pending).toEqual({
        target: target === '2' ? 2 : target,
        repo: 'home',
        head: HEAD,
      });
    }
  });

  it('refuses a tuple naming another repo, at the pending line, and names both repos', () => {
    expect(parseLedger(singleLeg(`2 | web | ${HEAD}`))).toEqual({
      ledger: null,
      findings: [
        {
          code: 'ledger.pending.repo',
          line: 8,
          reason: 'the pending tuple names "web", but a single-leg ledger dispatches only into home',
        },
      ],
    });
  });

  it('is exact about the name: a prefix, a longer name or another case of home is not home', () => {
    for (const repo of ['hom', 'homes', 'Home']) {
      const result = parseLedger(singleLeg(`verify | ${repo} | ${HEAD}`));
      expect(result.ledger).toBeNull();
      expect(result.findings.map((item) => [item.code, item.line])).toEqual([['ledger.pending.repo', 8]]);
    }
  });

  it('finds the pending line wherever it sits in the header block', () => {
    const text = singleLeg().replace(
      'verification: npm test\n',
      `verification: npm test\npending: 1 | api | ${HEAD}\n`,
    );
    expect(parseLedger(text).findings).toEqual([
      {
        code: 'ledger.pending.repo',
        line: 5,
        reason: 'the pending tuple names "api", but a single-leg ledger dispatches only into home',
      },
    ]);
  });

  it('checkLedger reports it and serializeLedger refuses to write it', () => {
    const expected = [
      {
        code: 'ledger.pending.repo',
        line: 0,
        reason: 'the pending tuple names "web", but a single-leg ledger dispatches only into home',
      },
    ];
    expect(checkLedger(singleLegValue('web'))).toEqual(expected);
    let error: unknown = null;
    try {
      serializeLedger(singleLegValue('web'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(LedgerFormatError);
    expect((error as LedgerFormatError).findings).toEqual(expected);
    expect(checkLedger(singleLegValue('home'))).toEqual([]);
    expect(serializeLedger(singleLegValue('home'))).toContain(`allowance: 4\npending: 2 | home | ${HEAD}\n`);
  });

  it('a malformed repo is reported once, as malformed, not also as the wrong repo', () => {
    const findings = checkLedger(singleLegValue('two words'));
    expect(findings.map((item) => item.code)).toEqual(['ledger.pending.malformed']);
  });
});
