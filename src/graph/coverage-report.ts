import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError } from '../common/errors.js';
import type { TransitionCoverage } from './coverage.js';
import type { GuardCoverage } from './guard-coverage.js';

/** The format tag at the top of `visualizations/coverage.json`. */
export const COVERAGE_REPORT_FORMAT = 'loopchart-coverage/1';

/**
 * The content of `visualizations/coverage.json`: per machine (sorted by id) the transitions and
 * states covered and total, with the missing items in document order. Pretty-printed with a fixed
 * key order and a final newline, so regenerating it gives a small, readable diff.
 *
 * @param entries one coverage per machine
 * @param guards guard-outcome coverage per machine, written as each entry's `guards` when given
 * @throws InputError when two entries have the same machine id
 */
export function coverageReportJson(
  entries: readonly TransitionCoverage[],
  guards: readonly GuardCoverage[] = [],
): string {
  const sorted = [...entries].sort((a, b) => (a.machine < b.machine ? -1 : a.machine > b.machine ? 1 : 0));
  const machines: Record<string, unknown> = {};
  for (const entry of sorted) {
    if (entry.machine in machines) {
      throw new InputError(
        'graph.coverage.duplicate-machine',
        `coverage of machine "${entry.machine}" given twice`,
      );
    }
    machines[entry.machine] = {
      transitions: {
        covered: entry.transitions.covered,
        total: entry.transitions.total,
        missing: entry.transitions.missing.map((t) => ({
          key: t.key,
          source: t.source,
          event: t.event,
          index: t.index,
          ...(t.guard === undefined ? {} : { guard: t.guard }),
          ...(t.rule === undefined ? {} : { rule: t.rule }),
          targets: [...t.targets],
        })),
      },
      states: {
        covered: entry.states.covered,
        total: entry.states.total,
        missing: [...entry.states.missing],
      },
      ...guardsOf(guards.find((g) => g.machine === entry.machine)),
    };
  }
  return `${JSON.stringify({ format: COVERAGE_REPORT_FORMAT, machines }, null, 2)}\n`;
}

function guardsOf(coverage: GuardCoverage | undefined) {
  if (coverage === undefined) return {};
  return {
    guards: {
      covered: coverage.covered,
      total: coverage.total,
      missing: coverage.missing.map((m) => ({ key: m.key, guard: m.guard, outcome: m.outcome })),
    },
  };
}

/**
 * Writes {@link coverageReportJson} to `file`, creating its folder.
 *
 * @returns the content written
 * @throws InputError when two entries have the same machine id; file system errors as thrown by node
 */
export async function writeCoverageReport(
  entries: readonly TransitionCoverage[],
  file: string,
): Promise<string> {
  const content = coverageReportJson(entries);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, content, 'utf8');
  return content;
}
