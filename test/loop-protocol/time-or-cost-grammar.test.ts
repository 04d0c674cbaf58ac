import { describe, expect, it } from 'vitest';
import { parseTimeOrCostBudget, renderTimeOrCostBudget } from '../../src/loop-protocol/index.js';

// docs/loop-protocol.md, "Time or cost budget grammar": durations (ms, s, m, h, d and their
// spelled-out forms), token limits with k or M, costs as $n or n <ISO currency>; items separated
// by `,`, `;` or `and`; `none` for no limit. Milliseconds below are computed by hand.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('the time or cost budget grammar', () => {
  const units: [string, number][] = [
    ['250ms', 250],
    ['7s', 7 * SECOND],
    ['7sec', 7 * SECOND],
    ['7 secs', 7 * SECOND],
    ['1 second', SECOND],
    ['7 seconds', 7 * SECOND],
    ['3m', 3 * MINUTE],
    ['3min', 3 * MINUTE],
    ['3 mins', 3 * MINUTE],
    ['1 minute', MINUTE],
    ['3 minutes', 3 * MINUTE],
    ['2h', 2 * HOUR],
    ['2hr', 2 * HOUR],
    ['2 hrs', 2 * HOUR],
    ['1 hour', HOUR],
    ['2 hours', 2 * HOUR],
    ['2d', 2 * DAY],
    ['1 day', DAY],
    ['2 days', 2 * DAY],
    ['2H', 2 * HOUR],
    ['0.5s', 500],
  ];
  for (const [text, timeMs] of units)
    it(`reads the duration "${text}" as ${timeMs} ms`, () => {
      expect(parseTimeOrCostBudget(text)).toEqual({ ok: true, budget: { timeMs } });
    });

  it('reads token limits in units, thousands and millions', () => {
    expect(parseTimeOrCostBudget('1 token')).toEqual({ ok: true, budget: { tokens: 1 } });
    expect(parseTimeOrCostBudget('300 tokens')).toEqual({ ok: true, budget: { tokens: 300 } });
    expect(parseTimeOrCostBudget('2K tokens')).toEqual({ ok: true, budget: { tokens: 2000 } });
    expect(parseTimeOrCostBudget('1.5M tokens')).toEqual({ ok: true, budget: { tokens: 1_500_000 } });
  });

  it('reads costs in dollars and in other ISO currencies', () => {
    expect(parseTimeOrCostBudget('$ 2.5')).toEqual({
      ok: true,
      budget: { cost: { amount: 2.5, currency: 'USD' } },
    });
    expect(parseTimeOrCostBudget('12.5 EUR')).toEqual({
      ok: true,
      budget: { cost: { amount: 12.5, currency: 'EUR' } },
    });
  });

  it('accepts `none` in any case and with blanks around it', () => {
    expect(parseTimeOrCostBudget('  NONE ')).toEqual({ ok: true, budget: {} });
  });

  it('says why a budget does not parse', () => {
    const reason = (text: string) => {
      const result = parseTimeOrCostBudget(text);
      return result.ok ? null : result.reason;
    };
    expect(reason('1h, 2h')).toBe('the time limit is given twice');
    expect(reason('5 tokens and 6 tokens')).toBe('the token limit is given twice');
    expect(reason('$5; 6 USD')).toBe('the cost limit is given twice');
    expect(reason('0 tokens')).toMatch(/token limit "0 tokens" must be a positive whole number of tokens/);
    expect(reason('0.5 tokens')).toMatch(/token limit "0\.5 tokens" must be a positive whole number/);
    expect(reason('$0')).toMatch(/cost limit "\$0" must be positive/);
    expect(reason('0 EUR')).toMatch(/cost limit "0 EUR" must be positive/);
    expect(reason('0m')).toMatch(/time limit "0m" must be a positive whole number of milliseconds/);
    expect(reason('0.5ms')).toMatch(/time limit "0\.5ms" must be a positive whole number/);
    expect(reason('soon')).toMatch(
      /"soon" is not a duration \(30m\), a token limit \(200k tokens\) or a cost/,
    );
    expect(reason('3 fortnights')).toMatch(/"3 fortnights" is not a duration/);
    expect(reason('')).toMatch(/the budget is empty; write "none"/);
    expect(reason(' , ; ')).toMatch(/the budget is empty/);
  });

  it('renders in the largest exact unit, tokens in full and cost as amount and currency', () => {
    expect(renderTimeOrCostBudget({ timeMs: 2 * DAY })).toBe('2d');
    expect(renderTimeOrCostBudget({ timeMs: 3 * MINUTE })).toBe('3m');
    expect(renderTimeOrCostBudget({ timeMs: 25 * HOUR })).toBe('25h');
    expect(renderTimeOrCostBudget({ timeMs: 61 * SECOND })).toBe('61s');
    expect(renderTimeOrCostBudget({ tokens: 1_500_000 })).toBe('1500000 tokens');
    expect(renderTimeOrCostBudget({ timeMs: HOUR, tokens: 5, cost: { amount: 2.5, currency: 'USD' } })).toBe(
      '1h, 5 tokens, 2.5 USD',
    );
    for (const budget of [{ timeMs: 2 * DAY }, { tokens: 7 }, { cost: { amount: 3, currency: 'EUR' } }])
      expect(parseTimeOrCostBudget(renderTimeOrCostBudget(budget))).toEqual({ ok: true, budget });
  });
});
