// Edges of the entry contract's text form and the time or cost grammar, as docs/loop-protocol.md
// ("Text form", "Time or cost budget grammar") states them. Expected values are typed from that
// text.
import { describe, expect, it } from 'vitest';
import {
  parseEntryContract,
  parseTimeOrCostBudget,
  renderTimeOrCostBudget,
} from '../../src/loop-protocol/index.js';

const unrecognized = (line: number, text: string) => ({
  code: 'loop-protocol.entry.line-unrecognized',
  line,
  reason: `"${text}" is not a "Field: value" line`,
});

describe('the text form', () => {
  it('reads a line starting with anything but a letter or a blank as no "Label: value" line', () => {
    const parsed = parseEntryContract('- Outcome: ship\n1. Baseline: run once\n');
    expect(parsed.contract).toEqual({});
    expect(parsed.findings).toEqual([
      unrecognized(1, '- Outcome: ship'),
      unrecognized(2, '1. Baseline: run once'),
    ]);
  });

  it('reads a line holding a lone CR or U+2028 as no "Label: value" line', () => {
    const parsed = parseEntryContract('Outcome: ship\rnow\nBaseline: run\u2028once\n');
    expect(parsed.contract).toEqual({});
    expect(parsed.findings).toEqual([
      unrecognized(1, 'Outcome: ship\rnow'),
      unrecognized(2, 'Baseline: run\u2028once'),
    ]);
  });

  it('quotes an unrecognized line without its trailing blanks', () => {
    expect(parseEntryContract('just words   \t\n').findings).toEqual([unrecognized(1, 'just words')]);
  });

  it('skips a line of blanks like an empty one', () => {
    const parsed = parseEntryContract('   \t\nOutcome: ship\n  the parser\n    \n  today\n');
    expect(parsed.findings).toEqual([]);
    expect(parsed.contract).toEqual({ outcome: 'ship\nthe parser\ntoday' });
  });

  it('refuses an approved path continued on a second line', () => {
    const parsed = parseEntryContract('State location: approved_path .loop\n  /ledger.md\n');
    expect(parsed.contract).toEqual({});
    expect(parsed.findings).toEqual([
      {
        code: 'loop-protocol.entry.state-location-invalid',
        line: 1,
        reason:
          'State location "approved_path .loop\n/ledger.md" must be "task_only" or "approved_path <path the user approved>"',
      },
    ]);
  });

  it('gives the reason of a bad time or cost budget and of a plateau rule without threshold', () => {
    const parsed = parseEntryContract('Time or cost budget: 2 fortnights\nPlateau: stop when stuck\n');
    expect(parsed.findings).toEqual([
      {
        code: 'loop-protocol.entry.time-or-cost-budget-invalid',
        line: 1,
        reason:
          'Time or cost budget: "2 fortnights" is not a duration (30m), a token limit (200k tokens) or a cost ($5, 5 EUR)',
      },
      {
        code: 'loop-protocol.entry.plateau-threshold-missing',
        line: 2,
        reason:
          'Plateau or no-progress rule "stop when stuck" states no threshold; say how many non-improving cycles stop the loop',
      },
    ]);
  });
});

const unknownItem = (item: string) => ({
  ok: false,
  reason: `"${item}" is not a duration (30m), a token limit (200k tokens) or a cost ($5, 5 EUR)`,
});

describe('the time or cost grammar', () => {
  it('reads numbers with several decimal digits', () => {
    expect(parseTimeOrCostBudget('1.25h')).toEqual({ ok: true, budget: { timeMs: 4_500_000 } });
    expect(parseTimeOrCostBudget('1.25k tokens')).toEqual({ ok: true, budget: { tokens: 1250 } });
    expect(parseTimeOrCostBudget('$1.25')).toEqual({
      ok: true,
      budget: { cost: { amount: 1.25, currency: 'USD' } },
    });
    expect(parseTimeOrCostBudget('12.75 EUR')).toEqual({
      ok: true,
      budget: { cost: { amount: 12.75, currency: 'EUR' } },
    });
  });

  it('takes the spaces inside a token limit or a currency amount as optional', () => {
    expect(parseTimeOrCostBudget('200ktokens')).toEqual({ ok: true, budget: { tokens: 200_000 } });
    expect(parseTimeOrCostBudget('200 k tokens')).toEqual({ ok: true, budget: { tokens: 200_000 } });
    expect(parseTimeOrCostBudget('12.5EUR')).toEqual({
      ok: true,
      budget: { cost: { amount: 12.5, currency: 'EUR' } },
    });
  });

  it('refuses text before or after an item', () => {
    for (const item of ['~90s', '90s.', '~200k tokens', '200k tokens!', 'US$5', '$5!', '~5 EUR', '5 EURO'])
      expect(parseTimeOrCostBudget(item), item).toEqual(unknownItem(item));
  });

  it('renders a time that is not a whole number of milliseconds in ms', () => {
    expect(renderTimeOrCostBudget({ timeMs: 1.5 })).toBe('1.5ms');
  });
});
