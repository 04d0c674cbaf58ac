import { readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

/** The package's entry points (package.json `exports`), one ESM and one CJS build each. */
const ENTRIES = {
  index: 'src/index.ts',
  core: 'src/entry-core.ts',
  machines: 'src/entry-machines.ts',
  host: 'src/entry-host.ts',
  testing: 'src/entry-testing.ts',
  viz: 'src/entry-viz.ts',
};

// One build for the library (ESM + CJS + types, chunks shared between entries so a class has one
// identity whichever entry loaded it) and one for the executables (ESM only, no types): the CLI,
// whose command modules are separate chunks loaded on demand. No source maps: the package ships
// readable, unminified JavaScript.
export default defineConfig([
  {
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    dts: true,
    splitting: true,
    sourcemap: false,
    clean: true,
    target: 'node20',
    platform: 'node',
  },
  {
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    dts: false,
    splitting: true,
    sourcemap: false,
    clean: false,
    target: 'node20',
    platform: 'node',
    define: { __LOOPCHART_VERSION__: JSON.stringify(version) },
  },
]);
