/**
 * `loopchart runs`: the fleet's runs and their recorded status, over the Restate ingress.
 */
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { ingressOption } from './fleet-options.js';
import { writeJsonResult } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const OPTIONS = {
  ingress: { type: 'string' },
} as const;

const HELP = `usage: loopchart runs [--ingress <url>] [--json]

Lists the fleet's runs. Loop runs: id, branch, phase (queued, running, stopped, finished, failed,
invalid), steps, the last step's state and branch head, who answered which stop, and a standing
stop's text. Rpi runs and crank waves: id, kind, branch, phase, and once ended the terminal, the
exit code \`loopchart rpi\` / \`crank\` would give and the pushed head; a wave's lanes with their
branches and report status. With --json, every entry has "kind" (loop, rpi, crank) and an ended
rpi run or wave its "result": the facts \`loopchart rpi --json\` / \`crank --json\` print.
Reads only.

  --ingress <url>   the Restate ingress (default $LOOPCHART_INGRESS)

short flags: -h --help

examples:
  loopchart runs --ingress http://127.0.0.1:8080
  loopchart runs --json
`;

/** `loopchart runs`. */
export const runsCommand: CliCommand = {
  name: 'runs',
  summary: "list a fleet's runs and their status over the Restate ingress",
  async run(args, raw) {
    // A stop text quotes the ledger and the child's words: neutralized for the terminal.
    const io = terminalSafeIo(raw);
    const { values } = parseCommandArgs('runs', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const ingress = ingressOption('runs', values.ingress);
    const { listRuns } = await import('../fleet/client.js');
    const runs = await listRuns(ingress);
    if (values.json === true) {
      writeJsonResult(io, { command: 'runs', status: 'finished', exitCode: 0, runs });
      return 0;
    }
    const lines: string[] = [];
    for (const run of runs) {
      if (run.kind === 'rpi') {
        const result =
          run.result === null
            ? ''
            : `, ${run.result.terminal} (exit ${run.result.exitCode}) at ${run.result.head.slice(0, 12)}`;
        lines.push(`${run.runId}  rpi ${run.run?.branch ?? '?'}  ${run.phase}${result}`);
        if (run.error !== undefined) lines.push(`  ${run.error}`);
        continue;
      }
      if (run.kind === 'crank') {
        const result =
          run.result === null
            ? ''
            : `, ${run.result.terminal} (exit ${run.result.exitCode}) at ${run.result.head.slice(0, 12)}`;
        lines.push(`${run.runId}  crank ${run.run?.branch ?? '?'}  ${run.phase}${result}`);
        if (run.error !== undefined) lines.push(`  ${run.error}`);
        for (const lane of run.lanes)
          lines.push(
            `  lane ${lane.id} on ${lane.branch}: ${lane.status ?? (lane.head === null ? 'not returned' : 'no report')}`,
          );
        continue;
      }
      const last = run.last === null ? '' : `, ${run.last.state} at ${run.last.head.slice(0, 12)}`;
      lines.push(`${run.runId}  ${run.run?.branch ?? '?'}  ${run.phase}, ${run.steps} steps${last}`);
      for (const answer of run.answers)
        lines.push(`  ${answer.stopId} answered by ${answer.by}: ${answer.reply}`);
      if (run.stopText !== null)
        lines.push(
          ...run.stopText
            .trimEnd()
            .split('\n')
            .map((line) => `  | ${line}`),
        );
    }
    io.stdout.write(lines.length === 0 ? 'no runs\n' : `${lines.join('\n')}\n`);
    return 0;
  },
};
