/**
 * `loopchart submit`: submits a loop-engine run to a fleet over the Restate ingress (docs/scale-out.md).
 */
import { UsageError } from '../common/errors.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { credentialOption, ingressOption } from './fleet-options.js';
import { writeJsonResult } from './json-result.js';

const OPTIONS = {
  ingress: { type: 'string' },
  credential: { type: 'string' },
  remote: { type: 'string' },
  spec: { type: 'string' },
  branch: { type: 'string' },
  ledger: { type: 'string' },
  verification: { type: 'string' },
  allowance: { type: 'string' },
  'escalate-after': { type: 'string' },
  'impl-model': { type: 'string' },
  'no-conformance-review': { type: 'boolean', default: false },
} as const;

const HELP = `usage: loopchart submit --remote <git URL> --spec <path> --branch <branch>
                        [--ingress <url>] [--credential <file>] [options] [--json]

Submits a loop-engine run to the fleet: a worker fetches the branch, runs the loop to its next
stop or end, and pushes the branch back, step after step. The run id (printed) is the same for
the same remote, spec and branch, so submitting again starts nothing new. The branch must exist
on the remote.

  --ingress <url>          the Restate ingress (default $LOOPCHART_INGRESS)
  --credential <file>      the operator credential, one "<name> <secret>" line (default: the
                           file $LOOPCHART_CREDENTIAL names); the secret is never sent
  --remote <url>           the repository remote the workers fetch and push
  --spec <path>            the spec, relative to the repository
  --branch <branch>        the loop's branch
  --ledger <path>          the ledger (default: derived from the spec)
  --verification "<cmd>"   a fresh ledger's verification command
  --allowance <n>          a fresh ledger's allowance (default 4)
  --escalate-after <n>     escalateAfter (default 2)
  --impl-model <model>     the escalation model
  --no-conformance-review  waive verify's conformance audit, as run does

short flags: -s --spec, -l --ledger, -h --help

examples:
  loopchart submit --ingress http://127.0.0.1:8080 --credential ~/.loopchart/credential \\
    --remote git@example.org:team/app.git --spec docs/specs/export.md --branch loop/export
`;

/** `loopchart submit`. */
export const submitCommand: CliCommand = {
  name: 'submit',
  summary: 'submit a loop run to a fleet of workers over the Restate ingress',
  async run(args, io) {
    const { values } = parseCommandArgs('submit', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const need = (name: string, value: string | undefined): string => {
      if (value === undefined || value === '') throw new UsageError(`submit: --${name} is required`);
      return value;
    };
    const ingress = ingressOption('submit', values.ingress);
    const credential = credentialOption('submit', values.credential);
    const run = {
      remote: need('remote', values.remote),
      spec: need('spec', values.spec),
      branch: need('branch', values.branch),
      ...(values.ledger === undefined ? {} : { ledger: values.ledger }),
      ...(values.verification === undefined ? {} : { verification: values.verification }),
      ...(values.allowance === undefined
        ? {}
        : { allowance: integerOption('submit', 'allowance', values.allowance, 4, 1) }),
      ...(values['escalate-after'] === undefined
        ? {}
        : { escalateAfter: integerOption('submit', 'escalate-after', values['escalate-after'], 2, 0) }),
      ...(values['impl-model'] === undefined ? {} : { implModel: values['impl-model'] }),
      ...(values['no-conformance-review'] === true ? { waiveConformanceReview: true } : {}),
    };
    const { submitRun } = await import('../fleet/client.js');
    const { runId, by } = await submitRun(ingress, credential, run);
    if (values.json === true)
      writeJsonResult(io, { command: 'submit', status: 'finished', exitCode: 0, runId, submittedBy: by });
    else io.stdout.write(`${runId}\n`);
    return 0;
  },
};
