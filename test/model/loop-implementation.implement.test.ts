/**
 * The dispatch loop on the statechart, driven through the real machine by the scripted in-memory
 * host: the escalated round's model (gauntlet-protocol §3.7, §3.21), interrupted recovery's jobs
 * step and ledger repair (§3.14, scenario R1; docs/decisions/validation.md A9), and a companion
 * dispatch planned on the HEAD its checkout has now (§3.20, the coordinated-legs reference's
 * "capture home and selected leg heads"; docs/decisions/legs.md L10, L11). Every expected value is
 * written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, legSpecText } from '../support/legs-fixtures.js';
import { SINGLE_LEG_SPEC, sha, startVerifyRun, type VerifyScript } from '../support/verify-host.js';

const BASE = sha('e');
const HEAD = sha('1');
/** The seed decision of the validated `loop: seed evidence` commit that survives on the branch. */
const SEED_DECISION = 'row 0 done | seeded 2 rows, closed 0 on baseline | row 1';

/** A single-leg ledger (§1.8 layout): row 1 done, row 2 as given, `iterations:` as given. */
function singleLeg(row2: string, iterations: number, decisions: readonly string[]): string {
  return [
    '# Loop ledger',
    '**Spec:** docs/specs/csv-export.md',
    `base: ${BASE}`,
    'verification: npm test',
    'checks: commands',
    `iterations: ${iterations}`,
    'allowance: 4',
    '',
    '| row | status | attempts | evidence |',
    '|---|---|---|---|',
    '| 1 | done | 1 | npm test; header row written |',
    row2,
    '',
    '## Decisions',
    '',
    SEED_DECISION,
    'row 1 done | header row written | take row 2',
    ...decisions,
    '',
  ].join('\n');
}

function singleLegRun(ledgerText: string, script: Partial<VerifyScript>) {
  return startVerifyRun({
    ledgerText,
    specText: SINGLE_LEG_SPEC,
    head: HEAD,
    history: { seedSurvival: { sha: sha('5'), decision: SEED_DECISION } },
    ...script,
  });
}

describe('the escalated round (§3.7)', () => {
  // Row 2 failed twice: with escalateAfter 2 and allowance 4 the threshold is min(2, 4 - 1) = 2,
  // so this dispatch of row 2 is its escalated round.
  const ledger = singleLeg('| 2 | failed | 2 | npm test; commas still split |', 3, [
    'row 2 failed | quotes not escaped | retry row 2',
    'row 2 failed | commas still split | retry row 2',
  ]);

  it('records the round with the resolved model and dispatches row 2 with that model', async () => {
    const model = 'anthropic/claude-opus:high';
    const run = singleLegRun(ledger, {
      commitHeads: [sha('2')],
      actors: { resolveImplModel: () => ({ model }) },
    });
    await run.until((s) => s.matches({ implement: 'running' }));
    run.actor.stop();

    expect(run.inputsOf('resolveImplModel')).toEqual([{ row: 2 }]);
    const [escalation] = run.inputsOf('commitLedger');
    expect(escalation.subject).toBe('loop: escalate row 2');
    expect(escalation.ledger.decisions.at(-1)).toBe('row 2 escalated | implModel round | allowed attempts 4');
    expect(escalation.body.split('\n')).toContain(`implModel: ${model}`);
    // "Dispatch carries `model: <implModel>` only on this round"; the tuple names the HEAD the
    // escalation commit left.
    const [reserve] = run.inputsOf('reserveDispatch');
    expect(reserve.plan.model).toBe(model);
    expect(reserve.plan.pending).toEqual({ target: 2, repo: 'home', head: sha('2') });
    expect(run.inputsOf('dispatchChild')[0].plan.model).toBe(model);
  });

  // "Use the returned non-empty implModel string"; a blank one is no model (§3.21: undefined ⇒
  // the missing-model stop), and nothing is bumped or written (docs/human-stops.md).
  it.each([
    ['empty', ''],
    ['blank', '   '],
  ])('an %s model is unavailable: the missing-model stop on row 2, nothing written', async (_, model) => {
    const run = singleLegRun(ledger, { actors: { resolveImplModel: () => ({ model }) } });
    const stopped = await run.settled();
    expect(stopped.value).toEqual({ humanStop: 'missingModel' });
    expect(stopped.context.stop).toEqual({ kind: 'missing-model', row: 2 });
    expect(run.inputsOf('commitLedger')).toEqual([]);
    expect(run.inputsOf('reserveDispatch')).toEqual([]);
    const text = renderHumanStop(stopped.context.stop as never, stopped.context.stopLedger as never);
    expect(text.split('\n').slice(0, 5)).toEqual([
      'gauntlet: question',
      'Stopped on row 2',
      'row 2: 2 of 4',
      "Preserve every row's attempts.",
      'Problem: escalationLoop.implModel unavailable',
    ]);
  });
});

describe('interrupted recovery of a silence kill (§3.14, scenario R1)', () => {
  // Row 2 is open with no attempt: the ordered table dispatches it (i = 2, consumed count 3).
  const ledger = singleLeg('| 2 | open | 0 |  |', 2, []);
  const silenceKill: Partial<VerifyScript> = {
    children: [{ returned: null, killedAfterSilence: true }],
    boundaries: [{ porcelain: ' M src/export.ts', commitCount: 0, commit: null, headLedgerText: null }],
    commitHeads: [sha('2')],
  };
  const recovery = (terminated: number) => ({
    checkProvenance: () => ({ owned: true }),
    cleanupJobs: () => ({ terminated, problem: null }),
    collectActionRecords: () => ({ actionRecords: [] }),
    resetCheckout: () => ({ clean: true }),
  });
  // Stop once the repaired row is dispatched again (the table's next answer).
  const redispatched = (run: ReturnType<typeof singleLegRun>) =>
    run.until((s) => s.matches({ implement: 'running' }) && run.inputsOf('reserveDispatch').length === 2);

  it('prints `terminated 1 child jobs`, resets to HEAD_BEFORE and commits `loop: repair row 2`', async () => {
    const run = singleLegRun(ledger, { ...silenceKill, actors: recovery(1) });
    await redispatched(run);
    run.actor.stop();

    expect(run.notices).toEqual(['terminated 1 child jobs']);
    // Provenance, jobs, action accounting (before any reset), reset, then the ledger repair.
    const steps = run.calls
      .map((c) => c.actor)
      .filter((a) =>
        ['checkProvenance', 'cleanupJobs', 'collectActionRecords', 'resetCheckout', 'commitLedger'].includes(
          a,
        ),
      );
    expect(steps).toEqual([
      'checkProvenance',
      'cleanupJobs',
      'collectActionRecords',
      'resetCheckout',
      'commitLedger',
    ]);
    expect(run.inputsOf('resetCheckout')).toEqual([{ head: HEAD }]);

    const [repair] = run.inputsOf('commitLedger');
    expect(repair.subject).toBe('loop: repair row 2');
    expect(repair.body).toBe(
      [`pending: 2 | home | ${HEAD}`, 'iteration: 3', 'interrupted: killed after silence'].join('\n'),
    );
    // The saved ledger with iterations = saved + 1, no tuple, only row 2 failed with attempts + 1.
    expect(repair.ledger.iterations).toBe(3);
    expect(repair.ledger.pending).toBeNull();
    expect(repair.ledger.rows).toEqual([
      { row: 1, status: 'done', attempts: 1, evidence: 'npm test; header row written' },
      { row: 2, status: 'failed', attempts: 1, evidence: 'iteration 2: interrupted - killed after silence' },
    ]);
    expect(repair.ledger.decisions).toEqual([SEED_DECISION, 'row 1 done | header row written | take row 2']);
  });

  it('prints nothing about jobs when none was terminated; the repair is the same', async () => {
    const run = singleLegRun(ledger, { ...silenceKill, actors: recovery(0) });
    await redispatched(run);
    run.actor.stop();

    expect(run.notices).toEqual([]);
    const [repair] = run.inputsOf('commitLedger');
    expect(repair.subject).toBe('loop: repair row 2');
    expect(repair.ledger.rows[1]).toEqual({
      row: 2,
      status: 'failed',
      attempts: 1,
      evidence: 'iteration 2: interrupted - killed after silence',
    });
  });
});

describe('a companion dispatch after a refresh (§3.20)', () => {
  // §1.8's coordinated mapping: web = home (rows 1-2, done), api (rows 3-4, open, seeded).
  const ledger = coordinatedLedgerText({
    members: [
      { name: 'web', base: HOME_BASE, seeded: true },
      { name: 'api', base: API_BASE, seeded: true },
    ],
    rows: [
      '| 1 | done | 1 | npm test; header row written |',
      '| 2 | done | 1 | npm test; commas and quotes escaped |',
      '| 3 | open | 0 |  |',
      '| 4 | open | 0 |  |',
    ],
    decisions: [
      'row 1 done | header row written | take row 2',
      'row 2 done | web escapes quotes | take row 3',
    ],
  });
  const spec = legSpecText({
    criteria: ['Export writes a header row', 'Commas and quotes are escaped', 'The API serves the CSV'],
    legs: ['- web (home): 1, 2', '- api: 2, 3'],
  });
  const checkouts = { web: '/checkouts/web', api: '/checkouts/api' };
  const API_HEAD = sha('a');
  const API_COMMIT = sha('c');

  it('the refresh is given the checkouts, and row 4 is planned on the api HEAD row 3 left (L10, L11)', async () => {
    const run = startVerifyRun({
      ledgerText: ledger,
      specText: spec,
      head: HEAD,
      legCheckouts: checkouts,
      legHeads: { web: HEAD, api: API_HEAD },
      // After the record commit (home HEAD 2) the api checkout is at the companion's commit.
      refreshLegHeads: [
        { web: HEAD, api: API_HEAD },
        { web: sha('2'), api: API_COMMIT },
      ],
      children: [{ returned: 'DONE' }],
      boundaries: [
        {
          porcelain: '',
          commitCount: 1,
          commit: {
            sha: API_COMMIT,
            subject: 'loop: row 3 done',
            body: [
              `pending: 3 | api | ${API_HEAD}`,
              'iteration: 3',
              '| 3 | done | 1 | npm test; api escapes quotes |',
              'row 3 done | api escapes quotes | take row 4',
            ].join('\n'),
          },
          headLedgerText: null,
          home: { head: HEAD, porcelain: '' },
        },
      ],
      commitHeads: [sha('2')],
    });
    await run.until(
      (s) => s.matches({ implement: 'running' }) && run.inputsOf('reserveDispatch').length === 2,
    );
    run.actor.stop();

    expect(run.inputsOf('refresh')).toEqual([
      { ledgerPath: 'docs/plans/csv-export.md', base: HOME_BASE, legCheckouts: checkouts },
      { ledgerPath: 'docs/plans/csv-export.md', base: HOME_BASE, legCheckouts: checkouts },
    ]);
    const [first, second] = run.inputsOf('reserveDispatch');
    // Row 3 goes to api on api's HEAD, fenced by home HEAD.
    expect(first.plan.pending).toEqual({ target: 3, repo: 'api', head: API_HEAD });
    expect(first.plan.homeHead).toBe(HEAD);
    // The admitted return is recorded in one home commit.
    expect(run.inputsOf('commitLedger').map((c) => c.subject)).toEqual(['loop: record api row 3']);
    // Row 4's tuple names the api HEAD read now, the companion's commit, and home's new HEAD.
    expect(second.plan.pending).toEqual({ target: 4, repo: 'api', head: API_COMMIT });
    expect(second.plan.homeHead).toBe(sha('2'));
  });
});
