/**
 * A test-only entry point for the loop commands (`run`, `status`, `check`, `demo`,
 * `scripted-child`, `child`, `prompt`), bundled by cli-bundle.ts into one file that tests run as a real process. It
 * reports a command's failure as `runCli` does, without pulling in the other commands.
 */

import { checkCommand } from '../../src/cli/check.js';
import { childCommand } from '../../src/cli/child.js';
import type { CliCommand } from '../../src/cli/command.js';
import { demoCommand } from '../../src/cli/demo.js';
import { promptCommand } from '../../src/cli/prompt.js';
import { runCommand } from '../../src/cli/run.js';
import { scriptedChildCommand } from '../../src/cli/scripted-child.js';
import { statusCommand } from '../../src/cli/status.js';
import { runEntryCommand } from './cli-entry-main.js';

const commands: readonly CliCommand[] = [
  runCommand,
  statusCommand,
  checkCommand,
  demoCommand,
  scriptedChildCommand,
  childCommand,
  promptCommand,
];
runEntryCommand(commands);
