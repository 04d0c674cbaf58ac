/**
 * A test-only entry point of the scripted child alone (`node <bundle> <script.json>`), bundled by
 * cli-bundle.ts. It loads far less than the whole CLI, so the many child processes of the
 * end-to-end tests start quickly.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseChildScript } from '../../src/host/child-script.js';
import { runScriptedChild } from '../../src/host/scripted-child.js';

const path = resolve(process.argv[2] ?? '');
runScriptedChild(parseChildScript(readFileSync(path, 'utf8'), path)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`scripted child: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 2;
  },
);
