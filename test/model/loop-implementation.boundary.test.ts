/**
 * The commit boundary after a child's return (gauntlet-protocol §3.9-§3.11 and the action-spend
 * contract of §3.19), driven through the real machine by the scripted in-memory host: a commit
 * that deletes the ledger file is a validation miss named as such, and the action records the
 * child wrote in its jobs file are carried into the repair. Every expected value is written here
 * from those texts.
 */
import { describe, expect, it } from 'vitest';
import type { BoundaryFacts } from '../../machines/loop-implementation/index.js';
import { SINGLE_LEG_SPEC, sha, startVerifyRun } from '../support/verify-host.js';

const BASE = sha('e');
const HEAD = sha('1');
const SEED_DECISION = 'row 0 done | seeded 2 rows, closed 0 on baseline | row 1';

/** Row 1 done, row 2 open with no attempt at `iterations: 2`: the table dispatches row 2 as iteration 2. */
const LEDGER = [
  '# Loop ledger',
  '**Spec:** docs/specs/csv-export.md',
  `base: ${BASE}`,
  'verification: npm test',
  'checks: commands',
  'iterations: 2',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | done | 1 | npm test; header row written |',
  '| 2 | open | 0 |  |',
  '',
  '## Decisions',
  '',
  SEED_DECISION,
  'row 1 done | header row written | take row 2',
  '',
].join('\n');

/** The child's one commit for row 2, whose ledger at HEAD is as the test says. */
function returned(headLedgerText: string | null, extra: Partial<BoundaryFacts> = {}): BoundaryFacts {
  return {
    porcelain: '',
    commitCount: 1,
    commit: {
      sha: sha('3'),
      subject: 'loop: row 2 done',
      body: [
        `pending: 2 | home | ${HEAD}`,
        'iteration: 3',
        '| 2 | done | 1 | npm test; commas and quotes escaped |',
      ].join('\n'),
    },
    headLedgerText,
    ...extra,
  };
}

function run(boundary: BoundaryFacts) {
  return startVerifyRun({
    ledgerText: LEDGER,
    specText: SINGLE_LEG_SPEC,
    head: HEAD,
    history: { seedSurvival: { sha: sha('5'), decision: SEED_DECISION } },
    children: [{ returned: 'DONE' }],
    boundaries: [boundary],
    commitHeads: [sha('4')],
  });
}

/** Runs until the repaired row is dispatched again (the table's next answer). */
async function repairOf(boundary: BoundaryFacts) {
  const r = run(boundary);
  await r.until((s) => s.matches({ implement: 'running' }) && r.inputsOf('reserveDispatch').length === 2);
  r.actor.stop();
  return r.inputsOf('commitLedger');
}

describe('a return whose commit deletes the ledger file (§3.10: the ledger at HEAD must be readable)', () => {
  it('is a validation miss: `loop: repair row 2` naming the deletion in the body and in row 2', async () => {
    const commits = await repairOf(returned(null));
    expect(commits.map((c) => c.subject)).toEqual(['loop: repair row 2']);
    const [repair] = commits;
    expect(repair.body).toBe(
      [`pending: 2 | home | ${HEAD}`, 'iteration: 3', 'miss: the commit deletes the ledger file'].join('\n'),
    );
    // §3.11 ordinary miss: iterations = saved + 1, target failed with attempts + 1 and
    // `iteration <i>: <concrete miss>`, the tuple cleared, the other row and decisions restored.
    expect(repair.ledger.iterations).toBe(3);
    expect(repair.ledger.pending).toBeNull();
    expect(repair.ledger.rows).toEqual([
      { row: 1, status: 'done', attempts: 1, evidence: 'npm test; header row written' },
      { row: 2, status: 'failed', attempts: 1, evidence: 'iteration 2: the commit deletes the ledger file' },
    ]);
    expect(repair.ledger.decisions).toEqual([SEED_DECISION, 'row 1 done | header row written | take row 2']);
  });

  it("carries the jobs file's action records into the evidence (after the miss) and the body", async () => {
    const record = {
      kind: 'ran' as const,
      action: 'fixture capture',
      k: 1,
      bound: 3,
      text: 'ran fixture capture (1 of 3)',
    };
    const [repair] = await repairOf(returned(null, { actionRecords: [record] }));
    expect(repair.ledger.rows[1].evidence).toBe(
      'iteration 2: the commit deletes the ledger file; ran fixture capture (1 of 3)',
    );
    expect(repair.body.split('\n')).toEqual([
      `pending: 2 | home | ${HEAD}`,
      'iteration: 3',
      'miss: the commit deletes the ledger file',
      'ran fixture capture (1 of 3)',
    ]);
  });
});

describe('a return whose commit names another tuple (§3.10 attribution, decision A12)', () => {
  it('stops at recovery-incomplete with the body line it found and the one expected, committing nothing', async () => {
    const r = run(
      returned(null, {
        commit: {
          sha: sha('3'),
          subject: 'loop: row 2 done',
          body: [`pending: 1 | home | ${HEAD}`, 'iteration: 3'].join('\n'),
        },
      }),
    );
    const stopped = await r.settled();
    expect(stopped.value).toEqual({ humanStop: 'recoveryIncomplete' });
    expect(stopped.context.stop).toEqual({
      kind: 'recovery-incomplete',
      iteration: 2,
      what: 'ambiguous attribution',
      detail: `commit body line 1 is "pending: 1 | home | ${HEAD}", expected "pending: 2 | home | ${HEAD}"`,
    });
    expect(r.inputsOf('commitLedger')).toEqual([]);
  });
});
describe('a return whose ledger at HEAD does not parse (§3.10)', () => {
  it('is an ordinary miss quoting the first parse finding', async () => {
    const [repair] = await repairOf(returned('# Loop ledger\nnot a ledger\n'));
    expect(repair.subject).toBe('loop: repair row 2');
    expect(repair.ledger.rows[1]).toEqual({
      row: 2,
      status: 'failed',
      attempts: 1,
      evidence: 'iteration 2: the ledger at HEAD does not parse: the **Spec:** header is missing',
    });
  });
});
describe('the dispatch of a failed row (§1.5, §3.6)', () => {
  it("carries the target's decision line of the latest admitted return as its previous decision", async () => {
    const previous = 'row 2 failed | quotes not escaped | retry row 2';
    const ledger = LEDGER.replace(
      '| 2 | open | 0 |  |',
      '| 2 | failed | 1 | npm test; quotes not escaped |',
    ).replace('take row 2\n', `take row 2\n${previous}\n`);
    const r = startVerifyRun({
      ledgerText: ledger,
      specText: SINGLE_LEG_SPEC,
      head: HEAD,
      history: { seedSurvival: { sha: sha('5'), decision: SEED_DECISION }, previousDecision: previous },
    });
    await r.until((s) => s.matches({ implement: 'running' }));
    r.actor.stop();
    const [reserve] = r.inputsOf('reserveDispatch');
    expect(reserve.plan.pending).toEqual({ target: 2, repo: 'home', head: HEAD });
    expect(reserve.plan.previousDecision).toBe(previous);
  });
});
