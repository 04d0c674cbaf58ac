/**
 * `loopchart submit`: submits a loop-engine run, an rpi run (`--rpi`) or a crank wave
 * (`--crank <wave.json>`) to a fleet over the Restate ingress (docs/scale-out.md).
 */
import { readFileSync } from 'node:fs';
import type { RiskDeclaration } from '../../machines/rpi/index.js';
import { InputError, UsageError } from '../common/errors.js';
import type { OperatorCredential } from '../fleet/credentials.js';
import type { FleetRpiRequest, FleetWaveRequest } from '../fleet/rpi-step.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
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
  rpi: { type: 'boolean', default: false },
  crank: { type: 'string' },
  intent: { type: 'string' },
  'intent-ref': { type: 'string' },
  'repair-rounds': { type: 'string' },
  risky: { type: 'string' },
  root: { type: 'string', multiple: true },
  'final-ci': { type: 'string', multiple: true },
} as const;

const HELP = `usage: loopchart submit --remote <git URL> --spec <path> --branch <branch>
                        [--ingress <url>] [--credential <file>] [options] [--json]
       loopchart submit --rpi --remote <git URL> --branch <branch> [--intent <file>]
                        [--intent-ref <ref>] [--repair-rounds <n>] [--risky auto|yes|no]
                        [--root <path>]… [--final-ci "<cmd>"]… [--ingress …] [--credential …] [--json]
       loopchart submit --crank <wave.json> --remote <git URL> --branch <branch>
                        [--risky auto|yes|no] [--ingress …] [--credential …] [--json]

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

  --rpi                    an rpi run instead (docs/rpi.md): a worker runs \`loopchart rpi\` with its
                           own --implementer and --validator in a clone of --branch, and pushes the
                           result there; --intent, --intent-ref, --repair-rounds, --risky, --root
                           and --final-ci as for \`loopchart rpi\` (the intent file is read here)
  --crank <wave.json>      a crank wave instead: each lane runs on any worker, on its own branch
                           <branch>.lane-<n>-<id> from --branch's head; the acceptance runs once on
                           --branch with every lane merged. Lanes must be disjoint (declare
                           regen_surfaces). The run id is the same for the same remote and branch.

short flags: -s --spec, -l --ledger, -h --help

examples:
  loopchart submit --ingress http://127.0.0.1:8080 --credential ~/.loopchart/credential \\
    --remote git@example.org:team/app.git --spec docs/specs/export.md --branch loop/export
`;

/** `loopchart submit`. */
export const submitCommand: CliCommand = {
  name: 'submit',
  summary: 'submit a loop run, an rpi run or a crank wave to a fleet of workers over the Restate ingress',
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
    if (values.rpi === true || values.crank !== undefined)
      return submitRpiOrWave(values, ingress, credential, io, need);
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

type SubmitValues = ReturnType<typeof parseCommandArgs<typeof OPTIONS>>['values'];

function riskyOf(value: string | undefined): RiskDeclaration | undefined {
  if (value === undefined) return undefined;
  if (value !== 'auto' && value !== 'yes' && value !== 'no')
    throw new UsageError(`submit: --risky takes auto, yes or no, not ${value}`);
  return value;
}

function readInput(what: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'fleet.input-unreadable',
      `submit: cannot read the ${what} ${path}: ${(error as Error).message}`,
    );
  }
}

/** `submit --rpi` and `submit --crank <wave.json>`. */
async function submitRpiOrWave(
  values: SubmitValues,
  ingress: string,
  credential: OperatorCredential,
  io: CliIo,
  need: (name: string, value: string | undefined) => string,
): Promise<number> {
  if (values.rpi === true && values.crank !== undefined)
    throw new UsageError('submit: give --rpi or --crank, not both');
  for (const loopOnly of [
    'spec',
    'ledger',
    'verification',
    'allowance',
    'escalate-after',
    'impl-model',
  ] as const)
    if (values[loopOnly] !== undefined)
      throw new UsageError(`submit: --${loopOnly} is for loop runs, not --rpi or --crank`);
  const remote = need('remote', values.remote);
  const branch = need('branch', values.branch);
  const risky = riskyOf(values.risky);
  let kind: 'rpi' | 'crank';
  let run: FleetRpiRequest | FleetWaveRequest;
  if (values.crank !== undefined) {
    for (const rpiOnly of ['intent', 'intent-ref', 'repair-rounds', 'root', 'final-ci'] as const)
      if (values[rpiOnly] !== undefined)
        throw new UsageError(
          `submit: --${rpiOnly} is for --rpi; a wave carries its own repair_rounds and acceptance`,
        );
    let wave: unknown;
    try {
      wave = JSON.parse(readInput('wave', values.crank));
    } catch (error) {
      if (error instanceof InputError) throw error;
      throw new InputError(
        'crank.wave-not-json',
        `the wave ${values.crank} is not JSON: ${(error as Error).message}`,
      );
    }
    kind = 'crank';
    run = { remote, branch, wave, ...(risky === undefined ? {} : { risky }) };
  } else {
    kind = 'rpi';
    run = {
      remote,
      branch,
      intent: values.intent === undefined ? null : readInput('intent', values.intent),
      // As `loopchart rpi`: --intent-ref, else the intent path as given.
      intentRef: values['intent-ref'] ?? values.intent ?? null,
      repairRounds: integerOption('submit', 'repair-rounds', values['repair-rounds'], 2),
      ...(risky === undefined ? {} : { risky }),
      ...(values.root === undefined ? {} : { roots: values.root }),
      ...(values['final-ci'] === undefined ? {} : { finalCi: values['final-ci'] }),
    };
  }
  const { submitRpiRun } = await import('../fleet/client.js');
  const { runId, by } = await submitRpiRun(ingress, credential, kind, run);
  if (values.json === true)
    writeJsonResult(io, { command: 'submit', status: 'finished', exitCode: 0, kind, runId, submittedBy: by });
  else io.stdout.write(`${runId}\n`);
  return 0;
}
