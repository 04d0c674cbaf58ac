// Runs every benchmark of the project (npm run bench builds first). Benchmarks print figures as
// ratios against baselines measured in the same run; they never assert on time.
import { readdir } from 'node:fs/promises';
import { loadNote } from './lib/measure.mjs';

const here = new URL('.', import.meta.url);
for (const file of (await readdir(here)).sort()) {
  if (!file.endsWith('.mjs') || file === 'run.mjs') continue;
  console.log(`\n== bench/${file} (${loadNote()})`);
  const module = await import(new URL(file, here).href);
  for (const [name, fn] of Object.entries(module))
    if (name.startsWith('bench') && typeof fn === 'function') await fn();
}
