import { readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { defineConfig, type Options } from 'tsup';
import ts from 'typescript';

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

/** Where {@link emitDeclarations} writes (ignored by git, never shipped). */
const TYPES_DIR = 'build/types';

/**
 * Emits the declarations of every entry and what it imports with one TypeScript program
 * (tsconfig.dts.json) into {@link TYPES_DIR}, before tsup reads its entries. tsup then bundles
 * these files instead of compiling the sources again: one program prints every inferred type once,
 * in program order, so two builds give byte-identical declarations (docs/decisions/package.md
 * P13); compiling per bundle ordered union members by module load order, which changed from build
 * to build. Type errors are `npm run typecheck`'s business; an error that stops a declaration from
 * being printed fails the build here.
 */
function emitDeclarations(): void {
  rmSync(TYPES_DIR, { recursive: true, force: true });
  const config = ts.getParsedCommandLineOfConfigFile('tsconfig.dts.json', undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (config === undefined || config.errors.length > 0) throw new Error('tsconfig.dts.json does not parse');
  const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
  const { diagnostics } = program.emit();
  if (diagnostics.length > 0)
    throw new Error(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: ts.sys.getCurrentDirectory,
        getNewLine: () => '\n',
      }),
    );
}

emitDeclarations();

/** The emitted declarations of each entry, bundled by tsup (`dts.entry`). */
const DTS_ENTRIES = Object.fromEntries(
  Object.entries(ENTRIES).map(([name, path]) => [name, `${TYPES_DIR}/${path.replace(/\.ts$/, '.d.ts')}`]),
);

/** The identifier a call chain starts from: `z` for `z.string().min(1)`, `text` for `text.describe(…)`. */
function chainRoot(node: ts.Expression): string | null {
  let current: ts.Expression = node;
  for (;;) {
    if (ts.isIdentifier(current)) return current.text;
    if (ts.isCallExpression(current) || ts.isPropertyAccessExpression(current)) current = current.expression;
    else return null;
  }
}

/**
 * Where the schema-building calls of a TypeScript source start: calls outside any function whose
 * chain starts from `z` (zod's builder API) or from a module-level schema built that way
 * (`text.describe(…)`). Read from the syntax tree, so comments and strings are never touched.
 */
function schemaCallStarts(path: string, source: string): number[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const schemas = new Set(['z']);
  const declarations = file.statements
    .filter(ts.isVariableStatement)
    .flatMap((statement) => [...statement.declarationList.declarations]);
  // Module-level constants whose value is a call chain from a schema are schemas too (to a fixpoint).
  for (let grew = true; grew; ) {
    grew = false;
    for (const d of declarations) {
      if (!ts.isIdentifier(d.name) || schemas.has(d.name.text) || d.initializer === undefined) continue;
      const root = ts.isCallExpression(d.initializer) ? chainRoot(d.initializer) : null;
      if (root !== null && schemas.has(root)) {
        schemas.add(d.name.text);
        grew = true;
      }
    }
  }
  const starts = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return;
    if (ts.isCallExpression(node)) {
      const root = chainRoot(node);
      if (root !== null && schemas.has(root)) starts.add(node.getStart(file));
    }
    ts.forEachChild(node, visit);
  };
  for (const d of declarations) if (d.initializer !== undefined) visit(d.initializer);
  return [...starts].sort((a, b) => b - a);
}

/**
 * Marks the schema-building calls of the project's own sources `/* @__PURE__ *\/` (docs/decisions/
 * package.md P9). Schemas are module-level constants; without the mark a bundler must keep every
 * one of them (and all of zod with its locales) in a shared chunk even when the importer uses none,
 * so `parseLedger` from `loopchart/core` could not bundle small for a browser. The mark changes
 * nothing for code that uses the schema.
 */
const pureZodCalls: NonNullable<Options['esbuildPlugins']>[number] = {
  name: 'pure-zod-calls',
  setup(build) {
    build.onLoad({ filter: /[\\/](src|machines)[\\/].*\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes("from 'zod'")) return undefined;
      let contents = source;
      for (const start of schemaCallStarts(args.path, source))
        contents = `${contents.slice(0, start)}/* @__PURE__ */ ${contents.slice(start)}`;
      return { contents, loader: 'ts' };
    });
  },
};

// One build for the library (ESM + CJS + types, chunks shared between entries so a class has one
// identity whichever entry loaded it) and one for the executables (ESM only, no types): the CLI,
// whose command modules are separate chunks loaded on demand. No source maps: the package ships
// readable, unminified JavaScript.
export default defineConfig([
  {
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    dts: { entry: DTS_ENTRIES },
    splitting: true,
    sourcemap: false,
    clean: true,
    target: 'node20',
    platform: 'node',
    esbuildPlugins: [pureZodCalls],
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
