/**
 * The `Time or cost budget` field: any of a wall-clock limit, a token limit and a cost limit.
 * An empty value (`none`) means no limit beyond the iteration or poll budget.
 *
 * Text grammar (items separated by `,`, `;` or `and`):
 * - duration: `<n><unit>` with unit `ms`, `s`/`sec`/`seconds`, `m`/`min`/`minutes`, `h`/`hr`/`hours`, `d`/`days`
 * - tokens: `<n>[k|M] tokens`, e.g. `200k tokens`
 * - cost: `$<n>` (USD) or `<n> <ISO currency>`, e.g. `5 EUR`
 */
export interface TimeOrCostBudget {
  /** Wall-clock limit in milliseconds. */
  readonly timeMs?: number;
  /** Model token limit. */
  readonly tokens?: number;
  /** Spending limit. */
  readonly cost?: { readonly amount: number; readonly currency: string };
}

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
};

const DURATION = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i;
const TOKENS = /^(\d+(?:\.\d+)?)\s*([kKmM])?\s*tokens?$/;
const DOLLARS = /^\$\s*(\d+(?:\.\d+)?)$/;
const CURRENCY = /^(\d+(?:\.\d+)?)\s*([A-Z]{3})$/;

/**
 * Parses the text of a `Time or cost budget` field.
 *
 * @param text the field value, e.g. `2h, 500k tokens, $20` or `none`
 * @returns the budget, or the reason the text does not parse (unknown item, a limit given
 *   twice, a zero or fractional limit)
 */
export function parseTimeOrCostBudget(
  text: string,
): { ok: true; budget: TimeOrCostBudget } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (/^none$/i.test(trimmed)) return { ok: true, budget: {} };
  const budget: { timeMs?: number; tokens?: number; cost?: { amount: number; currency: string } } = {};
  for (const item of trimmed.split(/\s*(?:,|;|\band\b)\s*/).filter((part) => part !== '')) {
    const tokens = TOKENS.exec(item);
    const dollars = DOLLARS.exec(item);
    const currency = CURRENCY.exec(item);
    const duration = DURATION.exec(item);
    if (tokens) {
      if (budget.tokens !== undefined) return { ok: false, reason: 'the token limit is given twice' };
      const factor = tokens[2] ? (tokens[2].toLowerCase() === 'k' ? 1000 : 1_000_000) : 1;
      const value = Math.round(Number(tokens[1]) * factor * 1000) / 1000;
      if (!Number.isSafeInteger(value) || value <= 0)
        return { ok: false, reason: `token limit "${item}" must be a positive whole number of tokens` };
      budget.tokens = value;
    } else if (dollars || currency) {
      if (budget.cost !== undefined) return { ok: false, reason: 'the cost limit is given twice' };
      const amount = Number((dollars ?? currency)?.[1]);
      if (!(amount > 0)) return { ok: false, reason: `cost limit "${item}" must be positive` };
      budget.cost = { amount, currency: dollars ? 'USD' : (currency?.[2] as string) };
    } else if (duration && UNIT_MS[(duration[2] as string).toLowerCase()] !== undefined) {
      if (budget.timeMs !== undefined) return { ok: false, reason: 'the time limit is given twice' };
      const ms =
        Math.round(Number(duration[1]) * (UNIT_MS[(duration[2] as string).toLowerCase()] as number) * 1000) /
        1000;
      if (!Number.isSafeInteger(ms) || ms <= 0)
        return { ok: false, reason: `time limit "${item}" must be a positive whole number of milliseconds` };
      budget.timeMs = ms;
    } else
      return {
        ok: false,
        reason: `"${item}" is not a duration (30m), a token limit (200k tokens) or a cost ($5, 5 EUR)`,
      };
  }
  if (budget.timeMs === undefined && budget.tokens === undefined && budget.cost === undefined)
    return { ok: false, reason: 'the budget is empty; write "none" for no time or cost limit' };
  return { ok: true, budget };
}

const RENDER_UNITS: [string, number][] = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
];

/**
 * Renders a budget in canonical form: time in the largest unit that divides it exactly, tokens
 * as a whole number, cost as `<amount> <currency>`; `none` when empty.
 *
 * @param budget a budget
 * @returns text that {@link parseTimeOrCostBudget} reads back to an equal budget
 */
export function renderTimeOrCostBudget(budget: TimeOrCostBudget): string {
  const items: string[] = [];
  if (budget.timeMs !== undefined) {
    const [unit, size] = RENDER_UNITS.find(([, ms]) => (budget.timeMs as number) % ms === 0) ?? ['ms', 1];
    items.push(`${budget.timeMs / size}${unit}`);
  }
  if (budget.tokens !== undefined) items.push(`${budget.tokens} tokens`);
  if (budget.cost !== undefined) items.push(`${budget.cost.amount} ${budget.cost.currency}`);
  return items.length > 0 ? items.join(', ') : 'none';
}
