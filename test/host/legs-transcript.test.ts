// Transcript records of a coordinated run (issue 13, docs/decisions/legs.md L19): `data.legs` has
// one line per member (rows by status from `## Leg mapping`, seeded flag, what the loop does there
// now, verified HEAD) and `data.target` names the leg of the dispatch in flight or of the failed
// gate. Expected values are written by hand from the ledger below (gauntlet-protocol §1.7, §1.8).
import { describe, expect, it } from 'vitest';
import type { LoopContext } from '../../machines/loop-implementation/index.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { projectLoopRecord } from '../../src/host/loop-transcript.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';

const SPEC = parseSpec(
  [
    '# Feature',
    '',
    '## Acceptance criteria',
    '',
    '- [ ] The page lists items.',
    '- [ ] The API serves items.',
    '',
    '## Legs',
    '',
    '- web (home): 1',
    '- api: 2',
    '',
  ].join('\n'),
).spec;

function ledger(pending?: string): Ledger {
  return parsedLedger(
    coordinatedLedgerText({
      spec: 'docs/specs/feature.md',
      members: [
        { name: 'web', base: HOME_BASE, seeded: true },
        { name: 'api', base: API_BASE, seeded: true },
      ],
      verification: 'true',
      iterations: 5,
      ...(pending === undefined ? {} : { pending }),
      rows: ['| 1 | done | 1 | unit: list |', '| 2 | done | 2 | unit: serve |'],
      mapping: [
        [1, 1, 'web'],
        [2, 2, 'api'],
      ],
    }),
  );
}

function record(context: Partial<LoopContext>, type: string) {
  const full = {
    ledger: null,
    spec: SPEC,
    plan: null,
    gateFailure: null,
    verifiedHeads: {},
    stop: null,
    ...context,
  } as unknown as LoopContext;
  const snapshot = { context: full, status: 'active', value: { verify: 'gates' }, matches: () => false };
  return projectLoopRecord({ snapshot: snapshot as never, event: { type }, transitions: [], index: 0 });
}

describe('coordinated transcript records', () => {
  it('a failed companion gate: data.target is that leg, data.legs marks it and keeps web verified', () => {
    const fields = record(
      {
        ledger: ledger(),
        verifiedHeads: { web: 'a'.repeat(40) },
        gateFailure: {
          passed: false,
          head: 'a'.repeat(40),
          leg: 'api',
          legHead: API_BASE,
          gate: 2,
          command: 'make test',
          exitCode: 1,
          logPath: 'gate-2.log',
          tail: '',
        },
      },
      'xstate.done.actor.runGates',
    );
    expect(fields?.data).toMatchObject({
      target: { leg: 'api', what: 'gate 2 failed' },
      legs: [
        {
          leg: 'web',
          home: 'home',
          seeded: 'yes',
          rows: 'open 0, done 1, failed 0, cut 0',
          now: '',
          verified: 'a'.repeat(40),
        },
        {
          leg: 'api',
          home: '',
          seeded: 'yes',
          rows: 'open 0, done 1, failed 0, cut 0',
          now: 'gate 2 failed',
          verified: '',
        },
      ],
    });
  });

  it('a verification repair in flight in api: the tuple names the leg', () => {
    const pending = { target: 'verify' as const, repo: 'api', head: API_BASE };
    const reserved = { ...ledger(`verify | api | ${API_BASE}`) };
    const fields = record(
      {
        ledger: reserved,
        plan: { target: 'verify', iteration: 5, pending } as never,
        child: { returned: 'DONE' },
      },
      'xstate.done.actor.dispatchRepairChild',
    );
    expect(fields?.data?.target).toEqual({ leg: 'api', what: 'verification repair' });
    expect(((fields?.data?.legs ?? []) as { now: string }[]).map((leg) => leg.now)).toEqual([
      '',
      'verification repair',
    ]);
  });

  it('a single-leg ledger keeps its records as they were (no legs, no target)', () => {
    const single = parseLedger(
      [
        '# Loop ledger',
        '**Spec:** docs/specs/feature.md',
        `base: ${HOME_BASE}`,
        'verification: true',
        'checks: commands',
        'iterations: 0',
        'allowance: 4',
        '',
        '| row | status | attempts | evidence |',
        '|---|---|---|---|',
        '| 1 | open | 0 |  |',
        '',
        '## Decisions',
        '',
      ].join('\n'),
    ).ledger as Ledger;
    const fields = record({ ledger: single, spec: null }, 'xstate.done.actor.refresh');
    expect(Object.keys(fields?.data ?? {})).toEqual(['ledger']);
  });
});

describe('boundary records', () => {
  // The evidence quotes `git status --porcelain` v1 lines (`XY PATH`) whole and joined by `; `:
  // the blank index column of an unstaged change stays, blank lines and the final newline go.
  it('quote each dirt line whole, and say none for a clean tree', () => {
    const boundary = (porcelain: string) => ({
      porcelain,
      commitCount: 1,
      commit: null,
      headLedgerText: null,
    });
    const dirty = record(
      { boundary: boundary(' M src/a.ts\n\n?? notes.txt\n') } as never,
      'xstate.done.actor.readBoundary',
    );
    expect(dirty?.evidence).toEqual([
      'rev-list HEAD_BEFORE..HEAD --count: 1',
      'unexpected dirt:  M src/a.ts; ?? notes.txt',
    ]);
    const clean = record({ boundary: boundary('') } as never, 'xstate.done.actor.readRepairBoundary');
    expect(clean?.evidence).toEqual(['rev-list HEAD_BEFORE..HEAD --count: 1', 'unexpected dirt: none']);
  });
});
