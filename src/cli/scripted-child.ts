/**
 * `loopchart scripted-child <script.json>`: the scripted child (src/host/scripted-child.ts) as a
 * child command. The loop runs it with LOOPCHART_TASK, LOOPCHART_RETURN and LOOPCHART_JOBS set.
 */
import { resolve } from 'node:path';
import { UsageError } from '../common/errors.js';
import { readFileIfExists } from '../effects/files.js';
import { parseChildScript } from '../host/child-script.js';
import { runScriptedChild } from '../host/scripted-child.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';

const HELP = `usage: loopchart scripted-child <script.json>

Replays a script of per-target behaviours as a loop child (see docs/child-contract.md).
Run it as the child command: loopchart run --child "loopchart scripted-child script.json".

examples:
  loopchart scripted-child script.json
  loopchart run --spec docs/specs/feature.md --child "loopchart scripted-child script.json"
`;

/** `loopchart scripted-child`. */
export const scriptedChildCommand: CliCommand = {
  name: 'scripted-child',
  summary: 'a child that replays a JSON script of per-target behaviours (for demos and tests)',
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('scripted-child', args, {}, true);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const [path, ...rest] = positionals;
    if (path === undefined || rest.length > 0)
      throw new UsageError('scripted-child: give exactly one script file');
    const absolute = resolve(path);
    const text = await readFileIfExists(absolute);
    if (text === null) throw new UsageError(`scripted-child: the script ${absolute} does not exist`);
    const script = parseChildScript(text, absolute);
    return runScriptedChild(script, process.env, (line) => io.stdout.write(`${line}\n`));
  },
};
