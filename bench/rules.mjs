// Benchmark: the ordered rule table (`evaluateRules`) on a ledger of 20 rows x 100 decisions, and
// beyond (linear growth). Each call gets a ledger it has not seen (a fresh decisions list), so the
// once-per-ledger index is rebuilt every call; the cached figure reuses one ledger.
// Baseline, same run: parsing every decision line of that ledger once (the floor of any rule
// that reads the decisions). Target (issue 11): <= 50 us per call at 20 x 100, linear beyond.
import { performance } from 'node:perf_hooks';
import { library, report } from './lib/measure.mjs';

function ledgerOf(rows, decisions) {
  const base = 'b'.repeat(40);
  return {
    discriminant: '# Loop ledger',
    spec: 'docs/specs/bench.md',
    base,
    verification: 'true',
    checks: 'commands',
    iterations: decisions,
    allowance: 1000,
    pending: null,
    rows: Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      status: 'failed',
      attempts: 1,
      evidence: 'npm test; 1 failing',
    })),
    decisions: Array.from({ length: decisions }, (_, i) => {
      const row = (i % rows) + 1;
      if (i % 10 === 3) return `row ${row} retry | try the other parser | allowed attempts ${i}`;
      if (i % 25 === 7) return `row ${row} escalated | implModel round | allowed attempts 4`;
      return `row ${row} failed | attempt ${i} broke the export of ${'x'.repeat(40)} | next: look at the header row`;
    }),
  };
}

function perCallUs(fn, inputs) {
  const start = performance.now();
  for (const input of inputs) fn(input);
  return ((performance.now() - start) * 1000) / inputs.length;
}

export async function benchRules() {
  const lib = await library();
  for (const [rows, decisions] of [
    [20, 100],
    [20, 1000],
    [200, 1000],
    [200, 10000],
  ]) {
    const template = ledgerOf(rows, decisions);
    const calls = Math.max(20, Math.floor(200_000 / (rows + decisions)));
    const fresh = () =>
      Array.from({ length: calls }, () => ({ ...template, decisions: [...template.decisions] }));
    const input = (ledger) => ({ ledger, history: lib.emptyLoopHistory(ledger), escalateAfter: 2 });
    const evaluate = (ledger) => lib.evaluateRules(input(ledger));
    const parseAll = (ledger) => {
      for (const line of ledger.decisions) lib.parseDecision(line);
    };
    const same = Array.from({ length: calls }, () => template);
    // Figure and baseline alternate, each after a full warm-up batch (the JIT would otherwise
    // charge its optimisation to whichever runs first); the median of five rounds is reported.
    perCallUs(evaluate, fresh());
    perCallUs(parseAll, fresh());
    const rounds = { first: [], cached: [], floor: [] };
    for (let round = 0; round < 5; round++) {
      rounds.first.push(perCallUs(evaluate, fresh()));
      rounds.cached.push(perCallUs(evaluate, same));
      rounds.floor.push(perCallUs(parseAll, fresh()));
    }
    const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
    const first = median(rounds.first);
    const cached = median(rounds.cached);
    const floor = median(rounds.floor);
    console.log(`-- ${rows} rows x ${decisions} decisions`);
    report(
      'evaluateRules, new ledger',
      first,
      'parse every decision once',
      floor,
      'us',
      rows === 20 && decisions === 100 ? '<= 50 us' : '',
    );
    report('evaluateRules, same ledger again', cached, 'parse every decision once', floor, 'us');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRules();
