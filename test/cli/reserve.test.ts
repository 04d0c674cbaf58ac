/**
 * `loopchart reserve` (decision F16): an agent of an rpi run or a crank lane reserves a paid action
 * before launching it. In a fleet worker's clone (configured by the worker) the reservation is a
 * ref created on the run's remote, so a second attempt, in the same clone or in another worker's
 * clone of the same remote, is refused; outside a fleet clone there is nothing to reserve.
 * Real repositories: a bare remote and two clones of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { configureReservations } from '../../src/host/spend-reservations.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

let seed: TempRepo;
let root: string;
let remote: string;
const clones: string[] = [];

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...ISOLATED_GIT_ENV }, encoding: 'utf8' });
}

async function reserve(cwd: string, ...args: string[]) {
  const { io, out } = stringSinks();
  const code = await runCli(['reserve', ...args, '--cwd', cwd], io);
  return { code, ...out };
}

beforeAll(() => {
  seed = createTempRepo('loopchart-reserve-');
  root = mkdtempSync(join(tmpdir(), 'loopchart-reserve-remote-'));
  remote = join(root, 'remote.git');
  git(root, 'clone', '-q', '--bare', seed.dir, remote);
  for (const name of ['worker-1', 'worker-2']) {
    git(root, 'clone', '-q', remote, name);
    clones.push(join(root, name));
  }
});

afterAll(() => {
  seed.remove();
  rmSync(root, { recursive: true, force: true });
});

const refsOnRemote = () =>
  git(remote, 'for-each-ref', '--format=%(refname)', 'refs/loopchart-spend/')
    .split('\n')
    .filter((line) => line !== '');

describe('loopchart reserve', () => {
  it('outside a fleet clone reserves nothing and lets the action launch', async () => {
    const result = await reserve(seed.dir, 'deploy staging');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('reserved deploy staging (not a fleet clone: nothing to reserve)\n');
    expect(refsOnRemote()).toEqual([]);
  });

  it('in a fleet clone creates the reservation on the remote once: a second attempt, on this worker or another, is refused', async () => {
    const [first, second] = clones as [string, string];
    await configureReservations(first, 'refs/loopchart-spend/wave-1.2');
    await configureReservations(second, 'refs/loopchart-spend/wave-1.2');

    const granted = await reserve(first, 'pay for b round 0', '--json');
    expect(granted.code).toBe(0);
    expect(parseCliResult(granted.stdout)).toMatchObject({ command: 'reserve', exitCode: 0, durable: true });
    expect(refsOnRemote()).toHaveLength(1);
    expect(refsOnRemote()[0]).toMatch(/^refs\/loopchart-spend\/wave-1\.2\/[0-9a-f]{32}$/);

    for (const clone of [second, first]) {
      const refused = await reserve(clone, 'pay for b round 0', '--json');
      expect(refused.code).toBe(2);
      expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'reserve.already' });
      expect(refused.stderr).toContain('do not launch it again');
    }
    // Another action, or the same action of another lane (another prefix), is its own reservation.
    expect((await reserve(second, 'pay for b round 1')).code).toBe(0);
    await configureReservations(second, 'refs/loopchart-spend/wave-1.3');
    expect((await reserve(second, 'pay for b round 0')).code).toBe(0);
    expect(refsOnRemote()).toHaveLength(3);
  });

  it('refuses when the remote cannot be reached, so the action does not launch', async () => {
    const lost = join(root, 'worker-lost');
    git(root, 'clone', '-q', remote, 'worker-lost');
    await configureReservations(lost, 'refs/loopchart-spend/wave-9.1');
    git(lost, 'remote', 'set-url', 'origin', join(root, 'no-such-remote.git'));
    const result = await reserve(lost, 'deploy');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('do not launch the action');
  });

  it('refuses a missing, empty or multi-line action with a usage error', async () => {
    for (const args of [[], [''], ['a\nb'], ['x'.repeat(201)], ['a', 'b']]) {
      const result = await reserve(seed.dir, ...args);
      expect(result.code, JSON.stringify(args)).toBe(2);
      expect(result.stderr).toContain('reserve:');
    }
  });
});
