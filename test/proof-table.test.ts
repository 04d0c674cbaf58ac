import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/proof.md opens with a hand-kept table of each machine's transitions, covered and asserted.
// The model suites fail unless both are complete (`transitions asserted N/N` is checked there), so
// here the table is held to the committed coverage report (visualizations/coverage.json, whose
// staleness test/generated.test.ts checks): a machine that gains a transition makes this fail
// until the table says so. The report's totals come from the machine definitions, not from the
// table, so neither side is computed from the other.
const root = join(import.meta.dirname, '..');

interface Coverage {
  readonly machines: Record<
    string,
    { readonly transitions: { readonly covered: number; readonly total: number } }
  >;
}

/** The `| machine | covered | asserted | oracle |` rows at the top of docs/proof.md. */
function proofRows(markdown: string): Map<string, { covered: string; asserted: string }> {
  const rows = new Map<string, { covered: string; asserted: string }>();
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\|\s*machine\s*\|\s*transitions covered\s*\|/.test(line));
  if (header < 0) return rows;
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').map((cell) => cell.trim());
    rows.set(cells[1] as string, { covered: cells[2] as string, asserted: cells[3] as string });
  }
  return rows;
}

describe('docs/proof.md, transitions covered and asserted', () => {
  it('names every machine of the coverage report with its total, covered and asserted in full', () => {
    const coverage = JSON.parse(
      readFileSync(join(root, 'visualizations', 'coverage.json'), 'utf8'),
    ) as Coverage;
    const rows = proofRows(readFileSync(join(root, 'docs', 'proof.md'), 'utf8'));
    const machines = Object.keys(coverage.machines).sort();
    expect(machines.length).toBeGreaterThan(0);
    expect([...rows.keys()].sort()).toEqual(machines);
    for (const machine of machines) {
      const { total } = (coverage.machines[machine] as Coverage['machines'][string]).transitions;
      expect({ machine, ...rows.get(machine) }).toEqual({
        machine,
        covered: `${total}/${total}`,
        asserted: `${total}/${total}`,
      });
    }
  });
});
