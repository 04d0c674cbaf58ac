/**
 * A test-only entry point for `loopchart rpi` and `loopchart crank`, bundled by cli-bundle.ts into
 * one file that crash tests run as a real process (and kill with SIGKILL). It reports a command's
 * failure as `runCli` does.
 */
import type { CliCommand } from '../../src/cli/command.js';
import { crankCommand } from '../../src/cli/crank.js';
import { rpiCommand } from '../../src/cli/rpi.js';
import { runEntryCommand } from './cli-entry-main.js';

const commands: readonly CliCommand[] = [rpiCommand, crankCommand];
runEntryCommand(commands);
