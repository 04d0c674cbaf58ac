// Benchmark: `checkLedger` with the spec on a ledger of 10,000 rows (and 1,000 / 30,000 for the
// growth). Baseline, same run: parse + serialize of the same ledger text.
// Target (issue 11): <= 100 ms at 10,000 rows, linear.
import { library, medianMs, report } from './lib/measure.mjs';

function texts(lib, rows) {
  const spec = `# Bench\n\n## Acceptance criteria\n\nTicket B-1, checkbox list, rows verbatim:\n\n${Array.from({ length: rows }, (_, i) => `- [ ] requirement ${i + 1}`).join('\n')}\n`;
  const ledger = lib.serializeLedger({
    discriminant: '# Loop ledger',
    spec: 'docs/specs/bench.md',
    base: 'b'.repeat(40),
    verification: 'true',
    checks: 'commands',
    iterations: rows,
    allowance: 4,
    pending: null,
    rows: Array.from({ length: rows }, (_, i) => ({
      row: i + 1,
      status: i % 3 === 0 ? 'done' : 'open',
      attempts: i % 3 === 0 ? 1 : 0,
      evidence: i % 3 === 0 ? 'npm test; passes' : '',
    })),
    decisions: Array.from({ length: rows / 10 }, (_, i) => `row ${i * 3 + 1} done | attempt 1 | next row`),
  });
  return { spec, ledger };
}

export async function benchCheckLedger() {
  const lib = await library();
  for (const rows of [1000, 10000, 30000]) {
    const { spec, ledger } = texts(lib, rows);
    const parsedSpec = lib.parseSpec(spec).spec;
    const parsed = lib.parseLedger(ledger).ledger;
    const check = await medianMs(() => lib.checkLedger(parsed, parsedSpec), 5);
    const baseline = await medianMs(() => lib.serializeLedger(lib.parseLedger(ledger).ledger), 5);
    report(
      `checkLedger with the spec, ${rows} rows`,
      check,
      'parse + serialize',
      baseline,
      'ms',
      rows === 10000 ? '<= 100 ms' : '',
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCheckLedger();
