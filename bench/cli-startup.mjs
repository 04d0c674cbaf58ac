// Benchmark: `loopchart --help` cold start against `node -e 0` (the floor of any Node CLI), both
// as fresh processes in the same run. Target (issue 11): <= 2x. Measures whatever dist/cli.js is.
import { fileURLToPath } from 'node:url';
import { processMs, report } from './lib/measure.mjs';

export async function benchCliStartup() {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const node = await processMs(process.execPath, ['-e', '0'], {}, 9);
  const help = await processMs(process.execPath, [cli, '--help'], {}, 9);
  report('loopchart --help', help, 'node -e 0', node, 'ms', '<= 2x');
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCliStartup();
