/**
 * Coordinated verify on the statechart (gauntlet-protocol §3.18 step 1, §3.20; docs/decisions/
 * legs.md L15, L17, L18), driven through the real machine by a scripted in-memory host: which leg
 * a verification repair is planned in and whether it fences home (the plan `reserveDispatch` gets),
 * which legs a gate run is told are already verified (`runGates`' input), which verified HEADs a
 * stop keeps and which the closure lists. Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import type { GateRun, ReviewReport } from '../../machines/loop-implementation/index.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, legSpecText } from '../support/legs-fixtures.js';
import {
  SINGLE_LEG_LEDGER,
  SINGLE_LEG_SPEC,
  sha,
  startVerifyRun,
  type VerifyScript,
} from '../support/verify-host.js';

/** §1.8's coordinated mapping (web = home: rows 1-2, api: rows 3-4), every row closed. */
const LEGS_LEDGER = coordinatedLedgerText({
  members: [
    { name: 'web', base: HOME_BASE, seeded: true },
    { name: 'api', base: API_BASE, seeded: true },
  ],
  rows: [
    '| 1 | done | 1 | npm test; header row written |',
    '| 2 | done | 1 | npm test; commas and quotes escaped |',
    '| 3 | done | 1 | npm test; api escapes quotes too |',
    '| 4 | done | 1 | npm test; api serves the CSV |',
  ],
  decisions: [
    'row 1 done | header row written | take row 2',
    'row 2 done | web escapes commas and quotes | take row 3',
    'row 3 done | api escapes quotes | take row 4',
    'row 4 done | api serves the CSV | verify',
  ],
});
const LEGS_SPEC = legSpecText({
  criteria: ['Export writes a header row', 'Commas and quotes are escaped', 'The API serves the CSV'],
  legs: ['- web (home): 1, 2', '- api: 2, 3'],
});

/** Home HEAD at start and the api checkout's HEAD. */
const HOME_HEAD = sha('1');
const API_HEAD = sha('a');

function legsRun(script: Partial<VerifyScript>) {
  return startVerifyRun({
    ledgerText: LEGS_LEDGER,
    specText: LEGS_SPEC,
    head: HOME_HEAD,
    legCheckouts: { web: '/checkouts/web', api: '/checkouts/api' },
    legHeads: { web: HOME_HEAD, api: API_HEAD },
    ...script,
  });
}

/** A failing gate run: `gate` of the leg `leg` failed, on the leg's checkout HEAD `legHead`. */
function failedIn(
  leg: string,
  fields: { head: string; legHead: string; verified: Record<string, string>; gate: number },
): GateRun {
  return {
    passed: false,
    head: fields.head,
    verified: fields.verified,
    leg,
    legHead: fields.legHead,
    gate: fields.gate,
    command: 'npm test',
    exitCode: 1,
    logPath: `/tmp/loopchart-logs/gate-${fields.gate}.log`,
    tail: 'FAIL test/export.test.ts',
  };
}

const NO_WHOLE_DIFF_REVIEWER: ReviewReport = { ran: false, role: 'whole-diff' };

function conforms(head: string): ReviewReport {
  return {
    ran: true,
    role: 'conformance',
    returned: {
      ok: true,
      review: { role: 'conformance', verdict: 'CONFORMS', openGaps: [], fixTasks: [] },
    },
    counts: { used: 0, granted: 0 },
    settings: { maxFixRounds: 5, enforce: true },
    head,
    fixCommits: [],
  };
}

describe('coordinated verify: a repair in the companion api', () => {
  // Gate run 1: web's pairs pass on home HEAD 2 (gate-produced changes committed), then api's
  // gate 3 fails on api HEAD b. The repair child commits c in api; the home marker is HEAD 3.
  const script: Partial<VerifyScript> = {
    gates: [
      failedIn('api', { head: sha('2'), legHead: sha('b'), verified: { web: sha('2') }, gate: 3 }),
      { passed: true, head: sha('3'), verified: { api: sha('c') } },
    ],
    children: [{ returned: 'DONE' }],
    boundaries: [
      {
        porcelain: '',
        commitCount: 1,
        commit: {
          sha: sha('c'),
          subject: 'fix: api quotes',
          body: `pending: verify | api | ${sha('b')}\niteration: 3`,
        },
        headLedgerText: null,
        home: { head: sha('2'), porcelain: '' },
      },
    ],
    commitHeads: [sha('3')],
    reviews: [NO_WHOLE_DIFF_REVIEWER, conforms(sha('3'))],
  };

  it('plans the repair in api on its HEAD, fenced by the home HEAD the gates left (§1.6, L17)', async () => {
    const run = legsRun(script);
    await run.settled();
    const [reserve] = run.inputsOf('reserveDispatch');
    expect(reserve.plan.pending).toEqual({ target: 'verify', repo: 'api', head: sha('b') });
    expect(reserve.plan.homeHead).toBe(sha('2'));
    expect(reserve.plan.reserved.iterations).toBe(3);
    // The marker goes to home over the bumped ledger, without the tuple.
    const [marker] = run.inputsOf('commitLedger');
    expect(marker.subject).toBe('loop: repair verification');
    expect(marker.ledger.pending).toBeNull();
    expect(marker.ledger.iterations).toBe(3);
  });

  it('the rerun starts with api and keeps web verified; the closure lists both verified HEADs (L15, L18)', async () => {
    const run = legsRun(script);
    const end = await run.settled();
    const gateInputs = run.inputsOf('runGates');
    expect(gateInputs).toHaveLength(2);
    // A verify session starts with no leg verified and nothing being repaired.
    expect(gateInputs[0].verified).toEqual({});
    expect(gateInputs[0].failing).toBeNull();
    expect(gateInputs[0].home).toBe('web');
    // After the admitted api repair: api's pairs first, web keeps the HEAD it passed on.
    expect(gateInputs[1].verified).toEqual({ web: sha('2') });
    expect(gateInputs[1].failing).toBe('api');

    // Home's verified HEAD is the marker's parent (2), api's the repair commit (c), in gate-set
    // (membership) order after `audited-base:`.
    const closure = [
      '## Closure / conformance',
      'status: CONFORMS (0 open)',
      `audited-base: ${sha('3')}`,
      `verified-head web: ${sha('2')}`,
      `verified-head api: ${sha('c')}`,
      'fix commits: none',
      'whole-diff minors: none',
      '',
    ].join('\n');
    expect(end.output).toEqual({ status: 'finished', closure });
    expect(run.inputsOf('finishBranch')).toEqual([{ closure, head: sha('3') }]);
  });
});

describe('coordinated verify: a repair in the home leg web', () => {
  it('plans the repair in web on the HEAD the gates left, with no home fence (§1.6)', async () => {
    const run = legsRun({
      gates: [failedIn('web', { head: sha('2'), legHead: sha('2'), verified: {}, gate: 1 })],
    });
    await run.until((s) => s.matches({ verify: { repair: 'running' } }));
    run.actor.stop();
    const [reserve] = run.inputsOf('reserveDispatch');
    expect(reserve.plan.pending).toEqual({ target: 'verify', repo: 'web', head: sha('2') });
    expect('homeHead' in reserve.plan).toBe(false);
  });
});

describe('coordinated verify: the repairs are spent (4 of 4)', () => {
  it('the stop keeps the legs that passed; after an amendment a new session verifies every leg again (L15)', async () => {
    const run = legsRun({
      verificationRepairs: 4,
      gates: [
        failedIn('api', { head: sha('2'), legHead: sha('b'), verified: { web: sha('2') }, gate: 3 }),
        // The new session fails at once in web, so no leg has passed in it.
        failedIn('web', { head: sha('4'), legHead: sha('4'), verified: {}, gate: 1 }),
      ],
      commitHeads: [sha('4')],
    });
    const stopped = await run.settled();
    expect(stopped.value).toEqual({ humanStop: 'verificationFailed' });
    expect(stopped.context.stop).toMatchObject({ kind: 'verification-failed', repairs: 4 });
    // §3.20 "retain each verified HEAD": web passed before api's gate failed.
    expect(stopped.context.verifiedHeads).toEqual({ web: sha('2') });

    // Amend or stop are offered; a requirement-preserving amendment returns to implement, whose
    // table (every row closed) enters a new verify session.
    run.actor.send({ type: 'human.amend', amendment: { kind: 'preserve', what: 'CSV uses CRLF line ends' } });
    const again = await run.until((s) => run.inputsOf('runGates').length === 2 && s.matches('humanStop'));
    expect(run.inputsOf('commitLedger').map((c) => c.subject)).toEqual(['loop: amend']);
    const second = run.inputsOf('runGates')[1];
    expect(second.verified).toEqual({});
    expect(second.failing).toBeNull();
    expect(again.value).toEqual({ humanStop: 'verificationFailed' });
    expect(again.context.verifiedHeads).toEqual({});
  });
});

describe('single-leg verify', () => {
  const single = (script: Partial<VerifyScript>) =>
    startVerifyRun({ ledgerText: SINGLE_LEG_LEDGER, specText: SINGLE_LEG_SPEC, head: HOME_HEAD, ...script });

  it('plans a repair in home on the HEAD the gates left, with no home fence (§1.6 "single-leg home")', async () => {
    const run = single({
      gates: [
        {
          passed: false,
          head: sha('2'),
          gate: 1,
          command: 'npm test',
          exitCode: 1,
          logPath: '/tmp/loopchart-logs/gate-1.log',
          tail: 'FAIL test/export.test.ts',
        },
      ],
    });
    await run.until((s) => s.matches({ verify: { repair: 'running' } }));
    run.actor.stop();
    const [reserve] = run.inputsOf('reserveDispatch');
    expect(reserve.plan.pending).toEqual({ target: 'verify', repo: 'home', head: sha('2') });
    expect('homeHead' in reserve.plan).toBe(false);
  });

  it('keeps its closure fields: no verified-head line, even when the gate run names home (L18)', async () => {
    const run = single({
      gates: [{ passed: true, head: sha('2'), verified: { home: sha('2') } }],
      reviews: [NO_WHOLE_DIFF_REVIEWER, conforms(sha('2'))],
    });
    const end = await run.settled();
    expect(end.output).toEqual({
      status: 'finished',
      closure: [
        '## Closure / conformance',
        'status: CONFORMS (0 open)',
        `audited-base: ${sha('2')}`,
        'fix commits: none',
        'whole-diff minors: none',
        '',
      ].join('\n'),
    });
  });
});
