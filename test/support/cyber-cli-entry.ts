/**
 * A test-only entry point for `loopchart cyber`, bundled by cli-bundle.ts into one file that tests
 * run as a real process (to send it real signals). Reports a failure as `runCli` does.
 */

import { cyberCommand } from '../../src/cli/cyber.js';
import { runEntryCommand } from './cli-entry-main.js';

runEntryCommand([cyberCommand]);
