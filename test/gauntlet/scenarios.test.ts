/**
 * Scenarios of gauntlet-protocol §5 that concern pure rules and are not named elsewhere: E5, M1
 * and RS3 (decided differently: see docs/decisions.md).
 */
import { describe, expect, it } from 'vitest';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import { formatChildBody, formatSubject } from '../../src/gauntlet/commits.js';
import { formatOutcomeDecision, formatSeedDecision } from '../../src/gauntlet/decisions.js';
import { historyFromCommits, rowHistoryOf } from '../../src/gauntlet/history.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { preservingAmendEdit } from '../../src/gauntlet/repair.js';
import { evaluateRules, NO_ALLOWANCE_LINE } from '../../src/gauntlet/rules.js';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { CommitFact, Ledger } from '../../src/gauntlet/types.js';

const SPEC = ['# Export', '', '## Acceptance criteria', '', '- [ ] Header row', '- [ ] Escaping', ''].join(
  '\n',
);
const BASE = 'a'.repeat(40);
const spec = parseSpec(SPEC).spec;

function seeded(allowance = 4): Ledger {
  const { ledger } = seedLedger(spec, {
    specPath: 'doc/specs/x.md',
    base: BASE,
    verification: 'npm test',
    allowance,
  });
  if (ledger === null) throw new Error('seed failed');
  return ledger;
}

describe('§5 scenarios on pure rules', () => {
  it('E5: a skeleton that does not check stops as a configuration error and yields nothing to commit', () => {
    const result = seedLedger(spec, {
      specPath: 'doc/specs/x.md',
      base: 'not-a-sha',
      verification: 'npm test',
    });
    expect(result.ledger).toBeNull();
    expect(result.findings.length).toBeGreaterThan(0);
    const zero = seedLedger(spec, {
      specPath: 'doc/specs/x.md',
      base: BASE,
      verification: 'npm test',
      allowance: 0,
    });
    expect(zero.ledger).toBeNull();
    expect(zero.findings.map((f) => f.code)).toContain('seed.allowance');
  });

  it('M1: a requirement-preserving amendment leaves rows, tuple and counters alone and restarts every window', () => {
    const pending = { target: 1 as const, repo: 'home', head: 'b'.repeat(40) };
    const ledger: Ledger = { ...seeded(), iterations: 3, pending };
    const edit = preservingAmendEdit(ledger, 'clarified the header wording');
    expect(edit.subject).toBe('loop: amend');
    expect(edit.ledger.rows).toEqual(ledger.rows);
    expect(edit.ledger.pending).toEqual(pending);
    expect(edit.ledger.iterations).toBe(3);
    expect(edit.ledger.allowance).toBe(ledger.allowance);
    // The spec side keeps every criterion and records the amendment.
    const amended = amendSpecText(SPEC, { kind: 'preserve', what: 'clarified the header wording' });
    expect(parseSpec(amended).spec.rows.map((r) => r.text)).toEqual(spec.rows.map((r) => r.text));
    expect(amended).toContain('## Amendments');

    // Two empty child commits on row 1 set its stagnation window; the amend commit restarts it.
    const withSeed: Ledger = { ...seeded(), iterations: 1, decisions: [formatSeedDecision(1, 0, 'row 1')] };
    const failedOnce: Ledger = {
      ...withSeed,
      iterations: 2,
      rows: withSeed.rows.map((r) =>
        r.row === 1 ? { ...r, status: 'failed', attempts: 1, evidence: 'x; y' } : r,
      ),
      decisions: [...withSeed.decisions, formatOutcomeDecision(1, 'failed', 'no change', 'again')],
    };
    const failedTwice: Ledger = {
      ...failedOnce,
      iterations: 3,
      rows: failedOnce.rows.map((r) => (r.row === 1 ? { ...r, attempts: 2 } : r)),
      decisions: [...failedOnce.decisions, formatOutcomeDecision(1, 'failed', 'still no change', 'again')],
    };
    const failedThrice: Ledger = {
      ...failedTwice,
      iterations: 4,
      rows: failedTwice.rows.map((r) => (r.row === 1 ? { ...r, attempts: 3 } : r)),
      decisions: [
        ...failedTwice.decisions,
        formatOutcomeDecision(1, 'failed', 'nothing changed again', 'again'),
      ],
    };
    const child = (digit: string, led: Ledger, i: number): CommitFact => ({
      sha: digit.repeat(40),
      subject: formatSubject({ kind: 'row', row: 1, status: 'failed' }),
      body: formatChildBody({ target: 1, repo: 'home', head: BASE }, i),
      paths: ['doc/plans/x.md'],
      ledger: led,
    });
    const commits: CommitFact[] = [
      {
        sha: '1'.repeat(40),
        subject: 'loop: seed ledger',
        body: '',
        paths: ['doc/plans/x.md'],
        ledger: seeded(),
      },
      {
        sha: '2'.repeat(40),
        subject: 'loop: seed evidence',
        body: formatChildBody({ target: 'seed', repo: 'home', head: BASE }, 1),
        paths: ['doc/plans/x.md'],
        ledger: withSeed,
      },
      child('3', failedOnce, 2),
      // The first failure changed row 1's status (open to failed): progress. The next two did not.
      child('4', failedTwice, 3),
      child('6', failedThrice, 4),
    ];
    const options = { ledger: failedThrice, ledgerPath: 'doc/plans/x.md' };
    expect(rowHistoryOf(historyFromCommits(commits, options), 1).emptyChildStreak).toBe(2);
    const amend: CommitFact = {
      sha: '5'.repeat(40),
      subject: edit.subject,
      body: edit.body,
      paths: ['doc/specs/x.md', 'doc/plans/x.md'],
      ledger: failedThrice,
    };
    expect(rowHistoryOf(historyFromCommits([...commits, amend], options), 1).emptyChildStreak).toBe(0);
  });

  it('RS3 (decided differently): a legacy cap: ledger stops before the table with the no-allowance line; no migration', () => {
    const legacy = serializeLedger(seeded()).replace(/^allowance: 4$/m, 'cap: 4');
    const parsed = parseLedger(legacy);
    expect(parsed.ledger).toBeNull();
    const outcome = evaluateRules({
      ledger: parsed.ledger,
      ledgerFindings: parsed.findings,
      history: historyFromCommits([], { ledger: seeded(), ledgerPath: 'doc/plans/x.md' }),
      escalateAfter: 2,
    });
    expect(outcome).toMatchObject({ kind: 'configuration-stop', message: NO_ALLOWANCE_LINE });
  });
});
