import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { retryCount } from '../../src/gauntlet/allowance.js';
import { decisionIndex, parseDecision } from '../../src/gauntlet/decisions.js';
import { isEscalationSpent } from '../../src/gauntlet/escalation.js';
import { ledgerOf } from './rules-fixtures.js';

// The grammars of gauntlet-protocol §1.5, tried one after another on every line (the order of
// the protocol's table), as a reference for the prefiltered parser.
const GRAMMARS: ReadonlyArray<[string, RegExp]> = [
  ['seed', /^row 0 done \| seeded (0|[1-9]\d*) rows, closed (0|[1-9]\d*) on baseline \| (.{1,200})$/u],
  ['outcome', /^row ([1-9]\d*) (done|failed) \| (.{1,200}) \| (.{1,200})$/u],
  ['retry', /^row ([1-9]\d*) retry \| (.*) \| allowed attempts (0|[1-9]\d*)$/u],
  ['escalated', /^row ([1-9]\d*) escalated \|/u],
  ['raise', /^rows \+([1-9]\d*) \|(?: (.*))?$/u],
];

function referenceKind(line: string): string {
  for (const [kind, grammar] of GRAMMARS) if (grammar.test(line)) return kind;
  return 'other';
}

const fragment = fc.constantFrom(
  'row ',
  'rows +',
  '0',
  '1',
  '12',
  ' ',
  'done',
  'failed',
  'retry',
  'escalated',
  ' | ',
  '|',
  'seeded 2 rows, closed 0 on baseline',
  'allowed attempts 5',
  'implModel round',
  'x',
  '\t',
);
const line = fc.array(fragment, { maxLength: 10 }).map((parts) => parts.join(''));

describe('parseDecision prefilter', () => {
  it('recognises exactly the lines the grammars match, in the protocol order', () => {
    fc.assert(
      fc.property(line, (text) => {
        expect(parseDecision(text).kind).toBe(referenceKind(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('decisionIndex', () => {
  const decisions = [
    'row 2 retry | try again | allowed attempts 5',
    'row 2 failed | attempt | next',
    'row 3 escalated | implModel round | allowed attempts 4',
    'row 2 retry | once more | allowed attempts 99',
    'row 1 retry | hint | allowed attempts 3',
    'a hand note about row 2 retry',
  ];

  it('counts retries per row and spent escalations once per decision list', () => {
    const index = decisionIndex(decisions);
    expect([...index.retries].sort()).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect([...index.escalated]).toEqual([3]);
    expect(decisionIndex(decisions)).toBe(index);
  });

  it('reads a list again when it grew, so allowance and escalation follow the ledger', () => {
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['failed', 1],
        ['open', 0],
      ],
      decisions,
    });
    expect(retryCount(ledger, 2)).toBe(2);
    expect(isEscalationSpent(ledger, 2)).toBe(false);
    const grown = [...decisions];
    decisionIndex(grown);
    grown.push('row 2 escalated | implModel round | allowed attempts 6');
    grown.push('row 2 retry | third | allowed attempts 7');
    const later = { ...ledger, decisions: grown };
    expect(retryCount(later, 2)).toBe(3);
    expect(isEscalationSpent(later, 2)).toBe(true);
  });
});
