/**
 * Builds the loop commands into files (esbuild, from the sources under test) so that tests can run
 * the CLI and the scripted child as real processes without depending on `npm run build`. Built
 * once per test process into a temporary folder.
 *
 * Two shapes, chosen by what a process of each costs (CPU-seconds a process, measured on the
 * test machine):
 * - The loop CLI is ESM split at dynamic imports, as the published CLI is: the `--inspect`
 *   explorer (with @viz-js, 1.7 MB of its 3.7 MB) and each command (loop-cli-entry.ts loads the
 *   one it runs) go into their own chunks, loaded only when that code runs.
 * - The scripted child and the `cyber`, `rpi`/`crank` and `loop` CLIs are one CommonJS file each,
 *   started through a small loader that compiles it with V8's code cache: the first process writes
 *   the cache beside the bundle, and every later one skips parsing the megabyte of source (zod and
 *   execa are most of it). A scripted child took about 0.26 CPU-seconds against 0.37 as ESM, a
 *   `cyber` or `rpi` start 0.30 against 0.40; test/e2e/loop-reviews.test.ts alone starts 71
 *   scripted children. The loop CLI gained little this way (every process would read the whole
 *   3.7 MB, explorer included), so it stays split.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BuildOptions, build } from 'esbuild';

/** The esbuild options every test bundle of the CLI shares (test/support/fleet.ts adds its own). */
export const TEST_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  logLevel: 'silent',
  define: { __LOOPCHART_VERSION__: '"test"' },
} as const satisfies BuildOptions;

/** The sources are ESM: bundled code that calls `require` (CommonJS dependencies) gets one. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

const built = new Map<string, Promise<string>>();

function once(entry: string, make: () => Promise<string>): Promise<string> {
  let done = built.get(entry);
  if (done === undefined) {
    done = make();
    built.set(entry, done);
  }
  return done;
}

/** An ESM bundle split at dynamic imports; resolves to the entry file. */
function splitBundle(entry: string, name: string): Promise<string> {
  return once(entry, async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'loopchart-cli-'));
    await build({
      ...TEST_BUNDLE_OPTIONS,
      entryPoints: { [name.replace(/\.mjs$/, '')]: join(import.meta.dirname, entry) },
      outdir,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      format: 'esm',
      banner: { js: ESM_REQUIRE_BANNER },
    });
    return join(outdir, name);
  });
}

/**
 * The loader of a code-cached bundle (`node <loader> <args>`): it compiles `<name>.bundle.cjs`
 * with the cache `<name>.bundle.cjs.v8-cache` when there is one, and otherwise writes that cache
 * when the process exits (to a file of its own, renamed into place, so processes started at the
 * same time never read half a cache). A cache V8 rejects is ignored, never rewritten. The bundle
 * is wrapped as node wraps a CommonJS module, on its first line, so line numbers stay the
 * bundle's; dynamic `import()` goes to node's own loader.
 */
function loaderSource(bundleName: string): string {
  return `'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { join } = require('node:path');
const { Script, constants } = require('node:vm');
const file = join(__dirname, ${JSON.stringify(bundleName)});
const cacheFile = \`\${file}.v8-cache\`;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {}
const script = new Script(
  \`(function (exports, require, module, __filename, __dirname) { \${readFileSync(file, 'utf8')}\\n})\`,
  { filename: file, cachedData, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER },
);
if (cachedData === undefined)
  process.once('exit', () => {
    try {
      const partial = \`\${cacheFile}.\${process.pid}\`;
      writeFileSync(partial, script.createCachedData());
      renameSync(partial, cacheFile);
    } catch {}
  });
const module_ = { exports: {} };
script.runInThisContext()(module_.exports, createRequire(file), module_, file, __dirname);
`;
}

/**
 * A CommonJS bundle in strict mode (as the ESM sources are) behind {@link loaderSource}; resolves
 * to the loader. `import.meta.url` is the bundle's file URL.
 */
function cachedBundle(entry: string, name: string): Promise<string> {
  return once(entry, async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'loopchart-cli-'));
    const bundleName = `${name}.bundle.cjs`;
    await build({
      ...TEST_BUNDLE_OPTIONS,
      entryPoints: [join(import.meta.dirname, entry)],
      outfile: join(outdir, bundleName),
      format: 'cjs',
      define: { ...TEST_BUNDLE_OPTIONS.define, 'import.meta.url': '__loopchart_import_meta_url' },
      banner: {
        js: "'use strict'; const __loopchart_import_meta_url = require('node:url').pathToFileURL(__filename).href;",
      },
    });
    const loader = join(outdir, `${name}.cjs`);
    writeFileSync(loader, loaderSource(bundleName));
    return loader;
  });
}

/** The absolute path of the bundled loop CLI (`node <path> run ...`). */
export function bundledLoopCli(): Promise<string> {
  return splitBundle('loop-cli-entry.ts', 'loop-cli.mjs');
}

/** The absolute path of the bundled scripted child (`node <path> <script.json>`). */
export function bundledScriptedChild(): Promise<string> {
  return cachedBundle('scripted-child-entry.ts', 'scripted-child');
}

/** The absolute path of the bundled `loopchart cyber` (`node <path> cyber ...`). */
export function bundledCyberCli(): Promise<string> {
  return cachedBundle('cyber-cli-entry.ts', 'cyber-cli');
}

/** The absolute path of the bundled `loopchart loop` (`node <path> loop ...`). */
export function bundledLoopCommandCli(): Promise<string> {
  return cachedBundle('loop-command-entry.ts', 'loop-command-cli');
}

/** The absolute path of the bundled `loopchart rpi` and `crank` (`node <path> rpi ...`). */
export function bundledRpiCli(): Promise<string> {
  return cachedBundle('rpi-cli-entry.ts', 'rpi-cli');
}
