// Path-suite generation for every registered machine, on this machine, against a baseline measured
// in the same run: enumerating the same machine's transitions (a walk of its definition that any
// tool over the machine does). Prints figures and ratios; asserts nothing.
//
//   npm run bench            (builds, then runs every bench)
//   node bench/path-suite.mjs  (after npm run build)
import { performance } from 'node:perf_hooks';
import { machines } from '../dist/machines.js';
import { enumerateTransitions, generatePathSuite, models } from '../dist/testing.js';

const REPEAT_BASELINE = 50;

function time(fn) {
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

export function benchPathSuites() {
  const rows = [];
  for (const [name, machine] of Object.entries(machines)) {
    const model = models[name];
    if (model === undefined) continue;
    const baseline = time(() => {
      for (let i = 0; i < REPEAT_BASELINE; i++) enumerateTransitions(machine);
    });
    const baselineMs = baseline.ms / REPEAT_BASELINE;
    const heapBefore = process.memoryUsage().heapUsed;
    const suite = time(() => generatePathSuite(machine, model));
    const heapAfter = process.memoryUsage().heapUsed;
    const { summary } = suite.value;
    rows.push({
      machine: name,
      paths: summary.paths,
      steps: summary.steps,
      transitions: `${summary.transitionsCovered}/${summary.transitionsTotal}`,
      states: `${summary.statesCovered}/${summary.statesTotal}`,
      'generate ms': Math.round(suite.ms),
      'x enumerate': Math.round(suite.ms / baselineMs),
      'heap MB': Math.round((heapAfter - heapBefore) / 1e6),
      'under 10 s': suite.ms < 10_000 ? 'yes' : 'NO',
    });
  }
  console.log("path suites (baseline: one enumeration of the same machine's transitions)");
  console.table(rows);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) benchPathSuites();
