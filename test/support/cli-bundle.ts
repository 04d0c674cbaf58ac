/**
 * Builds the loop commands into ESM files (esbuild, from the sources under test) so that tests
 * can run the CLI and the scripted child as real processes without depending on `npm run build`.
 * Built once per test process into a temporary folder. Code behind a dynamic `import()` goes into
 * its own chunk, loaded only when that code runs, as in the published CLI: the loop CLI's
 * `--inspect` explorer (with @viz-js, 1.7 MB) is not parsed by the hundreds of processes that
 * never serve it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';

const built = new Map<string, Promise<string>>();

function bundle(entry: string, name: string): Promise<string> {
  let done = built.get(entry);
  if (done !== undefined) return done;
  done = (async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'loopchart-cli-'));
    await build({
      entryPoints: { [name.replace(/\.mjs$/, '')]: join(import.meta.dirname, entry) },
      outdir,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'silent',
      define: { __LOOPCHART_VERSION__: '"test"' },
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
    });
    return join(outdir, name);
  })();
  built.set(entry, done);
  return done;
}

/** The absolute path of the bundled loop CLI (`node <path> run ...`). */
export function bundledLoopCli(): Promise<string> {
  return bundle('loop-cli-entry.ts', 'loop-cli.mjs');
}

/** The absolute path of the bundled scripted child (`node <path> <script.json>`). */
export function bundledScriptedChild(): Promise<string> {
  return bundle('scripted-child-entry.ts', 'scripted-child.mjs');
}

/** The absolute path of the bundled `loopchart cyber` (`node <path> cyber ...`). */
export function bundledCyberCli(): Promise<string> {
  return bundle('cyber-cli-entry.ts', 'cyber-cli.mjs');
}

/** The absolute path of the bundled `loopchart loop` (`node <path> loop ...`). */
export function bundledLoopCommandCli(): Promise<string> {
  return bundle('loop-command-entry.ts', 'loop-command-cli.mjs');
}

/** The absolute path of the bundled `loopchart rpi` and `crank` (`node <path> rpi ...`). */
export function bundledRpiCli(): Promise<string> {
  return bundle('rpi-cli-entry.ts', 'rpi-cli.mjs');
}
