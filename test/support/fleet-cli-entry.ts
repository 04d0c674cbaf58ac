/**
 * A test-only entry point of the fleet commands (`serve`, `submit`, `answer`, `runs`, `reserve`), bundled by
 * fleet.ts into one file that tests run as real processes (the Restate SDKs stay external).
 */
import { answerCommand } from '../../src/cli/answer.js';
import type { CliCommand } from '../../src/cli/command.js';
import { reserveCommand } from '../../src/cli/reserve.js';
import { runsCommand } from '../../src/cli/runs.js';
import { serveCommand } from '../../src/cli/serve.js';
import { submitCommand } from '../../src/cli/submit.js';
import { runEntryCommand } from './cli-entry-main.js';

const commands: readonly CliCommand[] = [
  serveCommand,
  submitCommand,
  answerCommand,
  runsCommand,
  reserveCommand,
];
runEntryCommand(commands);
