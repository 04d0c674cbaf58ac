// Bundle size of `parseLedger` for a browser from `loopchart/core`, against the same import from
// the package root (measured in the same run). Target (issue 14): <= 150 KB minified. The root
// pulls in the host's node built-ins, so its bundle is built for Node. Run `npm run build` first.
import { build } from 'esbuild';

const dist = new URL('../dist/', import.meta.url).pathname;

async function minifiedBytes(entry, platform) {
  const result = await build({
    stdin: {
      contents: `export { parseLedger } from ${JSON.stringify(`${dist}${entry}`)};`,
      resolveDir: dist,
    },
    bundle: true,
    platform,
    format: 'esm',
    minify: true,
    write: false,
    logLevel: 'silent',
    external: platform === 'node' ? [] : undefined,
  });
  return result.outputFiles[0].contents.byteLength;
}

export async function benchCoreBundle() {
  const core = await minifiedBytes('core.js', 'browser');
  const root = await minifiedBytes('index.js', 'node');
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `parseLedger from loopchart/core (browser, minified): ${kb(core)} (target <= 150 KB: ${core <= 150 * 1024 ? 'met' : 'NOT met'})`,
  );
  console.log(`parseLedger from loopchart (root, node, minified):   ${kb(root)}`);
  console.log(`ratio core/root: ${(core / root).toFixed(3)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchCoreBundle();
