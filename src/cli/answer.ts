/**
 * `loopchart answer <run> "<reply>"`: answers a fleet run's standing human stop over the Restate
 * ingress, signed with the operator's credential (docs/scale-out.md).
 */
import { UsageError } from '../common/errors.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { credentialOption, ingressOption } from './fleet-options.js';
import { writeJsonResult } from './json-result.js';

const OPTIONS = {
  ingress: { type: 'string' },
  credential: { type: 'string' },
} as const;

const HELP = `usage: loopchart answer <run id> "<reply>" [--ingress <url>] [--credential <file>] [--json]

Answers the standing human stop of a fleet run (see loopchart runs for its text and menu). The
reply is checked against the stop before anything is applied; the run records who answered, and
continues on whichever worker picks it up.

  --ingress <url>       the Restate ingress (default $LOOPCHART_INGRESS)
  --credential <file>   the operator credential (default: the file $LOOPCHART_CREDENTIAL names)

short flags: -h --help

examples:
  loopchart answer 3f2a9c0e1b7d4a6c8e21 "retry 4 | write the header row for an empty report"
`;

/** `loopchart answer`. */
export const answerCommand: CliCommand = {
  name: 'answer',
  summary: "answer a fleet run's human stop over the Restate ingress",
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('answer', args, OPTIONS, true);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 2)
      throw new UsageError('answer: give the run id and the reply: loopchart answer <run id> "<reply>"');
    const [runId, reply] = positionals as [string, string];
    const ingress = ingressOption('answer', values.ingress);
    const credential = credentialOption('answer', values.credential);
    const { answerRun } = await import('../fleet/client.js');
    const { by, stopId } = await answerRun(ingress, credential, runId, reply);
    if (values.json === true)
      writeJsonResult(io, {
        command: 'answer',
        status: 'finished',
        exitCode: 0,
        runId,
        stopId,
        answeredBy: by,
      });
    else io.stdout.write(`answered ${stopId} as ${by}\n`);
    return 0;
  },
};
