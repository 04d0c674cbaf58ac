/**
 * A test-only entry point for `loopchart loop`, bundled by cli-bundle.ts into one file that tests
 * run as a real process (to kill it with SIGKILL mid-cycle). Reports a failure as `runCli` does.
 */

import { loopCommand } from '../../src/cli/loop.js';
import { runEntryCommand } from './cli-entry-main.js';

runEntryCommand([loopCommand]);
