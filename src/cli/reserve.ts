/**
 * `loopchart reserve <action>`: reserves one paid or external action of an rpi run or a crank lane
 * before an agent launches it, so that a run retried on another fleet worker does not launch it
 * again (docs/scale-out.md, decision F16 in docs/decisions/scale-out.md). Loop-engine children use
 * `loopchart child spend reserve`, which also keeps the dispatch's bound.
 */
import { InputError, UsageError } from '../common/errors.js';
import { hasControlCharacters } from '../common/terminal-text.js';
import { configuredReservationPrefix, reserveDurably } from '../host/spend-reservations.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { writeJsonResult } from './json-result.js';

const OPTIONS = {
  cwd: { type: 'string' },
} as const;

const HELP = `usage: loopchart reserve <action> [--cwd <dir>] [--json]

Reserves one paid or external action (a deploy, a paid API call) before you launch it. In a fleet
worker's clone of an rpi run or a crank lane, the reservation is created on the run's remote
first: exit 0 means launch it; exit 2 with reserve.already means an earlier attempt of the run (a
worker that died) reserved it and may have run it, so do not launch it again. Outside a fleet
clone nothing needs reserving (a local run resumes from its own journal) and it exits 0.

An action names one launch: a second launch of the same kind needs its own name (for example
with the round: "deploy staging round $LOOPCHART_ROUND").

  --cwd <dir>   the checkout the agent works in (default: the current directory)

short flags: -h --help

examples:
  loopchart reserve "deploy staging" && ./deploy.sh staging
`;

/** `loopchart reserve`. */
export const reserveCommand: CliCommand = {
  name: 'reserve',
  summary:
    'reserve a paid or external action of an rpi run or crank lane once, fleet-wide, before launching it',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('reserve', args, OPTIONS, true);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UsageError('reserve: give one action: loopchart reserve "<action>"');
    const action = (positionals[0] ?? '').trim();
    if (action === '' || action.length > 200 || action.includes('\n') || hasControlCharacters(action))
      throw new UsageError('reserve: the action is one line of 1 to 200 characters');
    const cwd = values.cwd ?? process.cwd();
    const prefix = await configuredReservationPrefix(cwd);
    const outcome = prefix === null ? 'local' : await reserveDurably(cwd, prefix, `reserve ${action}`);
    if (outcome === 'already')
      throw new InputError(
        'reserve.already',
        `"${action}" was reserved by an earlier attempt of this run (a worker that died): it may have run, so do not launch it again`,
      );
    if (values.json === true)
      writeJsonResult(io, {
        command: 'reserve',
        status: 'finished',
        exitCode: 0,
        action,
        durable: outcome === 'reserved',
      });
    else
      io.stdout.write(
        outcome === 'reserved'
          ? `reserved ${action}\n`
          : `reserved ${action} (not a fleet clone: nothing to reserve)\n`,
      );
    return 0;
  },
};
