// Timing helpers shared by the benchmarks: medians of repeated runs, printed as a figure, its
// baseline measured in the same run, and their ratio. Benchmarks never assert on time.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';

/** The machine's load average (1, 5, 15 minutes), printed with the figures it shaped. */
export function loadNote() {
  return `load average ${loadavg()
    .map((n) => n.toFixed(2))
    .join(', ')}`;
}

/** Median wall time in ms of `runs` calls of `fn` (after one warm-up call unless `warmup` is 0). */
export async function medianMs(fn, runs = 5, warmup = 1) {
  for (let i = 0; i < warmup; i++) await fn();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/** Median wall time in ms of a process run to completion (output discarded). */
export function processMs(command, args, options = {}, runs = 5) {
  return medianMs(
    () =>
      execFileSync(command, args, { stdio: ['ignore', 'ignore', 'ignore'], maxBuffer: 1 << 30, ...options }),
    runs,
  );
}

/** Prints one figure against its baseline, with the ratio and the target when there is one. */
export function report(figure, value, baselineName, baseline, unit = 'ms', target = '') {
  const ratio = value / baseline;
  const fmt = (n) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2));
  console.log(
    `${figure}: ${fmt(value)} ${unit} | ${baselineName}: ${fmt(baseline)} ${unit} | ratio ${ratio.toFixed(2)}x${target === '' ? '' : ` | target ${target}`}`,
  );
  return ratio;
}

/** The built library (dist/), or exit with a hint when it is missing. */
export async function library() {
  return import('../../dist/index.js').catch((error) => {
    console.error(`cannot import dist/index.js (${error.message}); run \`npm run build\` first`);
    process.exit(1);
  });
}
