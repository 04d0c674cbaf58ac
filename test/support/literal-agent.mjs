// A "literal agent" for the end-to-end tests: it knows nothing of the child contract. It takes
// the prompt as its last argument (as an agent CLI does) and runs, in order, every line of the
// prompt that starts with "$ ", with /bin/sh -c. Where the prompt leaves a choice in angle
// brackets it takes the words literally: <a|b> becomes a, <what happened> becomes "what happened".
// It stops at the first command that fails and exits with its code. Its own log goes to stderr:
// stdout carries only what the commands print (a validator's verdict must be the last line).
import { spawnSync } from 'node:child_process';

const prompt = process.argv[process.argv.length - 1] ?? '';
let ran = 0;
for (const line of prompt.split('\n')) {
  const match = /^\s*\$ (.+)$/.exec(line);
  if (match === null) continue;
  const command = match[1].replace(/<([^<>]+)>/g, (_, inner) => inner.split('|')[0]);
  process.stderr.write(`literal agent: $ ${command}\n`);
  const result = spawnSync('/bin/sh', ['-c', command], { stdio: 'inherit' });
  ran += 1;
  if (result.status !== 0) {
    process.stderr.write(`literal agent: the command failed with ${result.status ?? result.signal}\n`);
    process.exit(result.status ?? 1);
  }
}
process.stderr.write(`literal agent: ran ${ran} commands\n`);
if (ran === 0) process.exit(1);
