/**
 * Every `loopchart` command, registered once. Each command lives in its own module under
 * src/cli/ and exports a {@link CliCommand}; add it to the list below.
 */
import { checkCommand } from './check.js';
import { childCommand } from './child.js';
import type { CliCommand } from './commands.js';
import { crankCommand } from './crank.js';
import { cyberCommand } from './cyber.js';
import { demoCommand } from './demo.js';
import { generateCommand } from './generate.js';
import { loopCommand } from './loop.js';
import { pathsCommand } from './paths.js';
import { promptCommand } from './prompt.js';
import { reportCommand } from './report.js';
import { rpiCommand } from './rpi.js';
import { runCommand } from './run.js';
import { scriptedChildCommand } from './scripted-child.js';
import { statusCommand } from './status.js';
import { viewCommand } from './view.js';
import { vizCommand } from './viz.js';

/** The commands in the order `loopchart help` lists them. */
export const COMMANDS: readonly CliCommand[] = [
  runCommand,
  statusCommand,
  checkCommand,
  demoCommand,
  scriptedChildCommand,
  childCommand,
  promptCommand,
  generateCommand,
  cyberCommand,
  reportCommand,
  loopCommand,
  rpiCommand,
  crankCommand,
  vizCommand,
  pathsCommand,
  viewCommand,
];
