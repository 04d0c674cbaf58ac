/**
 * A test-only entry point for the loop commands (`run`, `status`, `check`, `demo`,
 * `scripted-child`, `child`, `prompt`), bundled by cli-bundle.ts into one file that tests run as a
 * real process. It reports a command's failure as `runCli` does, without pulling in the other
 * commands. Each command is loaded when it runs (the bundle is split at these imports), as the
 * published CLI's registry does: a `child show` or `prompt` process, of which the literal agent's
 * tests start dozens, took about 0.37 CPU-seconds against 0.42 with every command loaded.
 */
import { runLazyEntryCommand } from './cli-entry-main.js';

runLazyEntryCommand({
  run: async () => (await import('../../src/cli/run.js')).runCommand,
  status: async () => (await import('../../src/cli/status.js')).statusCommand,
  check: async () => (await import('../../src/cli/check.js')).checkCommand,
  demo: async () => (await import('../../src/cli/demo.js')).demoCommand,
  'scripted-child': async () => (await import('../../src/cli/scripted-child.js')).scriptedChildCommand,
  child: async () => (await import('../../src/cli/child.js')).childCommand,
  prompt: async () => (await import('../../src/cli/prompt.js')).promptCommand,
});
