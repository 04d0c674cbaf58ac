// The values of two entry-contract fields as docs/loop-protocol.md ("Text form") states them:
// the state location's two forms and the iteration or poll budget's number, unit words and
// bounds, with the findings' codes and reasons. Expected values are typed from that text.
import { describe, expect, it } from 'vitest';
import { parseEntryContract, parseTimeOrCostBudget } from '../../src/loop-protocol/index.js';

const stateLocation = (value: string) => parseEntryContract(`Outcome: x\nState location: ${value}\n`);
const budget = (value: string) => parseEntryContract(`Iteration or poll budget: ${value}\n`);

describe('the state location', () => {
  it('reads approved_path with an optional ":" or "=" and at least one space before the path', () => {
    for (const value of [
      'approved_path /srv/loop/ledger.jsonl',
      'approved_path: /srv/loop/ledger.jsonl',
      'approved_path = /srv/loop/ledger.jsonl',
      'approved_path :  /srv/loop/ledger.jsonl',
    ]) {
      const parsed = stateLocation(value);
      expect(parsed.findings, value).toEqual([]);
      expect(parsed.contract.stateLocation, value).toEqual({
        kind: 'approved_path',
        path: '/srv/loop/ledger.jsonl',
      });
    }
    expect(stateLocation('task_only').contract.stateLocation).toEqual({ kind: 'task_only' });
  });

  it('refuses anything else, quoting the value', () => {
    for (const value of ['approved_path=/srv/x', 'the approved_path /srv/x', 'approved_paths /srv/x']) {
      expect(stateLocation(value).findings, value).toEqual([
        {
          code: 'loop-protocol.entry.state-location-invalid',
          line: 2,
          reason: `State location "${value}" must be "task_only" or "approved_path <path the user approved>"`,
        },
      ]);
    }
  });
});

describe('the iteration or poll budget', () => {
  it('reads a number with an optional unit word, singular or plural', () => {
    const cases: [string, number][] = [
      ['6', 6],
      ['1 iteration', 1],
      ['6 iterations', 6],
      ['1 poll', 1],
      ['12 polls', 12],
      ['1 cycle', 1],
      ['3 cycles', 3],
      ['1 attempt', 1],
      ['4 attempts', 4],
      ['5   Iterations', 5],
      ['1000000', 1_000_000],
    ];
    for (const [value, limit] of cases) {
      const parsed = budget(value);
      expect(parsed.findings, value).toEqual([]);
      expect(parsed.contract.iterationBudget, value).toBe(limit);
    }
  });

  it('refuses 0, more than 1000000 and other text, quoting the value', () => {
    for (const value of ['0', '1000001', 'about 6', '6 iterations left', '6 rounds', '6iterations']) {
      expect(budget(value).findings, value).toEqual([
        {
          code: 'loop-protocol.entry.iteration-budget-invalid',
          line: 1,
          reason: `Iteration or poll budget "${value}" must be a whole number from 1 to 1000000, e.g. "6" or "6 iterations"`,
        },
      ]);
    }
  });
});

describe('none as a time or cost budget', () => {
  it('is none only alone: text before or after it is refused as an item', () => {
    expect(parseTimeOrCostBudget('NONE')).toEqual({ ok: true, budget: {} });
    for (const value of ['none yet', 'almost none']) {
      expect(parseTimeOrCostBudget(value), value).toEqual({
        ok: false,
        reason: `"${value}" is not a duration (30m), a token limit (200k tokens) or a cost ($5, 5 EUR)`,
      });
    }
  });
});

describe('the findings of the text form', () => {
  it('names each bad line with its code and reason, listed by line', () => {
    const parsed = parseEntryContract(
      [
        '  an indented line first',
        'Iteration budget: 0',
        'Colour: blue',
        '',
        'just some words',
        'Outcome: the count reaches 0',
        'outcome: again',
      ].join('\n'),
    );
    expect(parsed.findings).toEqual([
      {
        code: 'loop-protocol.entry.line-unrecognized',
        line: 1,
        reason: 'an indented line continues no field; start with "Field: value"',
      },
      {
        code: 'loop-protocol.entry.iteration-budget-invalid',
        line: 2,
        reason:
          'Iteration or poll budget "0" must be a whole number from 1 to 1000000, e.g. "6" or "6 iterations"',
      },
      {
        code: 'loop-protocol.entry.field-unknown',
        line: 3,
        reason: '"Colour" is not a field of the entry contract',
      },
      {
        code: 'loop-protocol.entry.line-unrecognized',
        line: 5,
        reason: '"just some words" is not a "Field: value" line',
      },
      {
        code: 'loop-protocol.entry.field-duplicate',
        line: 7,
        reason: 'Outcome is given again (first on line 6); give each field once',
      },
    ]);
    expect(parsed.contract.outcome).toBe('the count reaches 0');
  });

  it('takes a value that starts on the indented line below its label', () => {
    const parsed = parseEntryContract('Outcome:\n  the count\n  reaches 0\n');
    expect(parsed.findings).toEqual([]);
    expect(parsed.contract.outcome).toBe('the count\nreaches 0');
  });
});

describe('the shorter labels', () => {
  it('each fills the field whose label it shortens', () => {
    const cases: [string, string, string, unknown][] = [
      ['Non goals', 'nonGoals', 'no refactors', 'no refactors'],
      ['Environment', 'environment', 'main', 'main'],
      ['Checkout', 'environment', 'main', 'main'],
      ['Actor', 'actor', 'this loop', 'this loop'],
      ['Sole writer', 'actor', 'this loop', 'this loop'],
      ['Evaluator', 'evaluator', 'npm test', 'npm test'],
      ['Guard', 'evaluator', 'npm test', 'npm test'],
      ['Checkpoint', 'checkpoint', 'git stash', 'git stash'],
      ['Rollback boundary', 'checkpoint', 'git stash', 'git stash'],
      ['Iteration budget', 'iterationBudget', '6', 6],
      ['Poll budget', 'iterationBudget', '6', 6],
      ['Time budget', 'timeOrCostBudget', 'none', {}],
      ['Cost budget', 'timeOrCostBudget', 'none', {}],
      ['Plateau', 'plateauRule', 'stop after 3 non-improving cycles', 'stop after 3 non-improving cycles'],
      [
        'No-progress rule',
        'plateauRule',
        'stop after 3 non-improving cycles',
        'stop after 3 non-improving cycles',
      ],
      [
        'Plateau rule',
        'plateauRule',
        'stop after 3 non-improving cycles',
        'stop after 3 non-improving cycles',
      ],
      ['Wakeup', 'wakeup', 'none', 'none'],
    ];
    for (const [label, field, text, value] of cases) {
      const parsed = parseEntryContract(`${label}: ${text}\n`);
      expect(parsed.findings, label).toEqual([]);
      expect((parsed.contract as Record<string, unknown>)[field], label).toEqual(value);
    }
  });
});
