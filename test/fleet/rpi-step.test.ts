/**
 * The worker-side pieces of fleet rpi runs and crank waves that need no Restate server
 * (src/fleet/rpi-step.ts, decisions F12-F14): the fleet's wave check (disjoint lanes only), the
 * lane branch names, and the snapshot push (a lane's work leaves the worktree, HEAD and the index
 * as they were, and pushing it again changes nothing).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFleetWave, laneBranch, pushSnapshot, remoteHead } from '../../src/fleet/rpi-step.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';

const lane = (id: string, extra: Record<string, unknown> = { regen_surfaces: [] }) => ({
  id,
  scope: `src/${id}/**`,
  brief: id,
  acceptance: 'true',
  ...extra,
});

describe('checkFleetWave', () => {
  it('takes a wave of disjoint lanes with declared regen surfaces', () => {
    const wave = checkFleetWave({ lanes: [lane('a'), lane('b')], repair_rounds: 1, acceptance: 'true' });
    expect(wave.lanes.map((l) => l.id)).toEqual(['a', 'b']);
  });

  it('refuses lanes whose regen surfaces are undeclared, naming the pair', () => {
    expect(() =>
      checkFleetWave({ lanes: [lane('a', {}), lane('b')], repair_rounds: 0, acceptance: 'true' }),
    ).toThrow(
      expect.objectContaining({
        code: 'fleet.lanes-conflict',
        message: expect.stringContaining('a and b (regen-unknown)'),
      }),
    );
  });

  it('refuses overlapping write scopes, and an unrunnable wave with its own error', () => {
    expect(() =>
      checkFleetWave({
        lanes: [lane('a'), { ...lane('b'), scope: 'src/a/sub/**' }],
        repair_rounds: 0,
        acceptance: 'true',
      }),
    ).toThrow(
      expect.objectContaining({
        code: 'fleet.lanes-conflict',
        message: expect.stringContaining('(write-scope)'),
      }),
    );
    expect(() => checkFleetWave({ lanes: [], repair_rounds: 0, acceptance: 'true' })).toThrow(
      expect.objectContaining({ code: 'wave.unrunnable' }),
    );
  });

  it('names each lane branch after the wave branch, the lane position and id', () => {
    const wave = checkFleetWave({ lanes: [lane('a'), lane('x/y')], repair_rounds: 0, acceptance: 'true' });
    expect(laneBranch('crank/w', wave, 0)).toBe('crank/w.lane-1-a');
    expect(laneBranch('crank/w', wave, 1)).toBe('crank/w.lane-2-x_y');
  });
});

describe('pushSnapshot', () => {
  let repo: TempRepo;
  let root: string;
  let remote: string;
  const saved = Object.fromEntries(Object.keys(ISOLATED_GIT_ENV).map((key) => [key, process.env[key]]));
  beforeAll(() => {
    Object.assign(process.env, ISOLATED_GIT_ENV);
    root = mkdtempSync(join(tmpdir(), 'loopchart-fleet-snapshot-'));
    repo = createTempRepo('loopchart-fleet-snapshot-repo-');
    remote = join(root, 'remote.git');
    execFileSync('git', ['clone', '-q', '--bare', repo.dir, remote]);
    repo.git('remote', 'add', 'origin', remote);
  });
  afterAll(() => {
    for (const [key, value] of Object.entries(saved))
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    repo.remove();
    rmSync(root, { recursive: true, force: true });
  });

  it('pushes HEAD itself when the worktree equals HEAD', async () => {
    const head = repo.git('rev-parse', 'HEAD').trim();
    expect(await pushSnapshot(repo.dir, 'lane-clean', 'crank: lane clean')).toBe(head);
    expect(await remoteHead(remote, 'lane-clean')).toBe(head);
  });

  it('pushes the worktree as one commit over HEAD without touching HEAD, the index or the files; again, the same commit', async () => {
    repo.write('README.md', 'changed\n');
    repo.write('src/new.txt', 'new\n');
    const head = repo.git('rev-parse', 'HEAD').trim();
    const statusBefore = repo.git('status', '--porcelain');
    const first = await pushSnapshot(repo.dir, 'lane-a', 'crank: lane a');
    expect(first).not.toBe(head);
    expect(repo.git('rev-parse', 'HEAD').trim()).toBe(head);
    expect(repo.git('status', '--porcelain')).toBe(statusBefore);
    expect(readFileSync(join(repo.dir, 'src/new.txt'), 'utf8')).toBe('new\n');
    // The commit: HEAD as its parent, the worktree as its tree, the fixed fleet identity.
    const git = (...args: string[]) => execFileSync('git', args, { cwd: remote, encoding: 'utf8' });
    expect(git('rev-parse', `${first}^`).trim()).toBe(head);
    expect(git('show', `${first}:src/new.txt`)).toBe('new\n');
    expect(git('show', `${first}:README.md`)).toBe('changed\n');
    expect(git('log', '-1', '--format=%an <%ae> %s', first).trim()).toBe(
      'loopchart fleet <fleet@loopchart.invalid> crank: lane a',
    );
    // A retried push makes the same commit, and the remote is unchanged.
    expect(await pushSnapshot(repo.dir, 'lane-a', 'crank: lane a')).toBe(first);
    expect(await remoteHead(remote, 'lane-a')).toBe(first);
  });

  it('names a missing branch', async () => {
    await expect(remoteHead(remote, 'no-such-branch')).rejects.toMatchObject({
      code: 'fleet.branch-missing',
    });
  });
});
