/**
 * The dispatch plan (gauntlet-protocol §3.9, §1.6): the saved before-image, the reserved ledger
 * with `iterations: i + 1` and the `pending: <target> | <repo> | <HEAD sha>` tuple, the task fields
 * the plan fixes; the plan restored at resume (§3.2) and the host's in-flight reservation facts.
 * Every expected value is written by hand from the protocol and docs/child-contract.md.
 */
import { describe, expect, it } from 'vitest';
import {
  type DispatchPlan,
  parentCommitAmong,
  planDispatch,
  reservationInFlight,
  restoredPlan,
} from '../../src/gauntlet/dispatch.js';
import type { Ledger } from '../../src/gauntlet/types.js';

const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';
const OTHER_HEAD = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d';
const HOME_HEAD = 'c'.repeat(40);
const RESUME_HOME_HEAD = 'd'.repeat(40);
const PREVIOUS = 'row 3 failed | stub endpoint rejected multipart upload | human decision needed';

/** A single-leg ledger at `iterations: 6`, no tuple. */
const AT_HEAD: Ledger = {
  discriminant: '# Loop ledger',
  spec: 'doc/specs/csv-export.md',
  base: 'b'.repeat(40),
  verification: 'npm test',
  checks: 'commands',
  iterations: 6,
  allowance: 4,
  pending: null,
  rows: [
    { row: 1, status: 'done', attempts: 1, evidence: 'csv-test; passes' },
    { row: 3, status: 'failed', attempts: 2, evidence: 'csv-test; 1 failing' },
  ],
  decisions: [PREVIOUS],
};

describe('planDispatch', () => {
  it('saves the ledger, sends i, reserves i + 1 with the tuple on home, and keeps the task fields', () => {
    const plan = planDispatch({
      ledger: AT_HEAD,
      target: 3,
      head: HEAD,
      hint: 'use the local MinIO fixture',
      previousDecision: PREVIOUS,
      model: 'big-model',
      actionRecords: ['ran capture (1 of 1)'],
    });
    const tuple = { target: 3, repo: 'home', head: HEAD };
    expect(plan).toStrictEqual({
      target: 3,
      iteration: 6,
      pending: tuple,
      saved: AT_HEAD,
      reserved: { ...AT_HEAD, iterations: 7, pending: tuple },
      hint: 'use the local MinIO fixture',
      previousDecision: PREVIOUS,
      model: 'big-model',
      actionRecords: ['ran capture (1 of 1)'],
    });
  });

  it('sends previous decision none on every seed dispatch, whatever line it is given (§1.5)', () => {
    const plan = planDispatch({ ledger: AT_HEAD, target: 'seed', head: HEAD, previousDecision: PREVIOUS });
    expect(plan.previousDecision).toBe('none');
  });

  it("sends a row's given previous decision, and none when it has none (after an ordinary-miss repair)", () => {
    expect(
      planDispatch({ ledger: AT_HEAD, target: 3, head: HEAD, previousDecision: PREVIOUS }).previousDecision,
    ).toBe(PREVIOUS);
    expect(planDispatch({ ledger: AT_HEAD, target: 3, head: HEAD }).previousDecision).toBe('none');
    expect(
      planDispatch({ ledger: AT_HEAD, target: 3, head: HEAD, previousDecision: null }).previousDecision,
    ).toBe('none');
  });

  it('carries no spend history, hint or model by default', () => {
    const plan = planDispatch({ ledger: AT_HEAD, target: 1, head: HEAD });
    expect(plan.actionRecords).toStrictEqual([]);
    expect(plan.hint).toBeNull();
    expect(plan.model).toBeNull();
  });

  it("keeps a companion dispatch's home HEAD beside the companion's tuple, and none on a home dispatch", () => {
    const companion = planDispatch({
      ledger: AT_HEAD,
      target: 3,
      head: OTHER_HEAD,
      repo: 'api',
      homeHead: HOME_HEAD,
    });
    expect(companion.pending).toStrictEqual({ target: 3, repo: 'api', head: OTHER_HEAD });
    expect(companion.homeHead).toBe(HOME_HEAD);
    const home = planDispatch({ ledger: AT_HEAD, target: 3, head: HEAD, repo: 'web' });
    expect('homeHead' in home).toBe(false);
  });

  it('refuses to plan over a tuple already on disk, naming that tuple', () => {
    const inFlight: Ledger = { ...AT_HEAD, pending: { target: 2, repo: 'home', head: OTHER_HEAD } };
    expect(() => planDispatch({ ledger: inFlight, target: 3, head: HEAD })).toThrow(
      `cannot plan a dispatch over an in-flight tuple (pending: 2 | home | ${OTHER_HEAD})`,
    );
  });
});

describe('restoredPlan', () => {
  const tuple = { target: 3, repo: 'home', head: HEAD } as const;
  const reserved: Ledger = { ...AT_HEAD, iterations: 7, pending: tuple };
  /** The plan the host stored when it reserved exactly this tuple at iteration 6. */
  const stored: DispatchPlan = {
    target: 3,
    iteration: 6,
    pending: tuple,
    saved: AT_HEAD,
    reserved,
    hint: 'use the local MinIO fixture',
    previousDecision: PREVIOUS,
    model: 'big-model',
    actionRecords: ['ran capture (1 of 1)'],
  };

  it('takes the task fields of the stored plan of exactly this tuple and iteration', () => {
    const plan = restoredPlan(AT_HEAD, reserved, stored);
    expect(plan).toStrictEqual({
      target: 3,
      iteration: 6,
      pending: tuple,
      saved: AT_HEAD,
      reserved,
      hint: 'use the local MinIO fixture',
      previousDecision: PREVIOUS,
      model: 'big-model',
      actionRecords: ['ran capture (1 of 1)'],
    });
  });

  it('leaves the task fields empty when the stored plan is of another iteration or another tuple', () => {
    const empty = { hint: null, previousDecision: 'none', model: null, actionRecords: [] };
    const otherIteration = restoredPlan(AT_HEAD, reserved, { ...stored, iteration: 5 });
    const otherTuple = restoredPlan(AT_HEAD, reserved, {
      ...stored,
      pending: { ...tuple, head: OTHER_HEAD },
    });
    const none = restoredPlan(AT_HEAD, reserved, null);
    for (const plan of [otherIteration, otherTuple, none]) {
      expect({
        hint: plan.hint,
        previousDecision: plan.previousDecision,
        model: plan.model,
        actionRecords: plan.actionRecords,
      }).toStrictEqual(empty);
      expect(plan.iteration).toBe(6);
      expect(plan.pending).toStrictEqual(tuple);
      expect('homeHead' in plan).toBe(false);
    }
  });

  it('reads a stored plan without spend history as carrying none', () => {
    const { actionRecords: _dropped, ...rest } = stored;
    const plan = restoredPlan(AT_HEAD, reserved, rest as DispatchPlan);
    expect(plan.actionRecords).toStrictEqual([]);
    expect(plan.hint).toBe('use the local MinIO fixture');
  });

  it("keeps the stored plan's home HEAD, else the home HEAD given at resume, else none (L11)", () => {
    const companionTuple = { target: 3, repo: 'api', head: OTHER_HEAD } as const;
    const onDisk: Ledger = { ...AT_HEAD, iterations: 7, pending: companionTuple };
    const companionPlan: DispatchPlan = {
      ...stored,
      pending: companionTuple,
      reserved: onDisk,
      homeHead: HOME_HEAD,
    };
    expect(restoredPlan(AT_HEAD, onDisk, companionPlan, RESUME_HOME_HEAD).homeHead).toBe(HOME_HEAD);
    expect(restoredPlan(AT_HEAD, onDisk, companionPlan).homeHead).toBe(HOME_HEAD);
    const { homeHead: _none, ...withoutHomeHead } = companionPlan;
    expect(restoredPlan(AT_HEAD, onDisk, withoutHomeHead, RESUME_HOME_HEAD).homeHead).toBe(RESUME_HOME_HEAD);
    expect(restoredPlan(AT_HEAD, onDisk, null, RESUME_HOME_HEAD).homeHead).toBe(RESUME_HOME_HEAD);
    expect('homeHead' in restoredPlan(AT_HEAD, onDisk, withoutHomeHead)).toBe(false);
  });

  it('refuses a ledger on disk that carries no tuple', () => {
    expect(() => restoredPlan(AT_HEAD, AT_HEAD, stored)).toThrow(
      'the ledger on disk carries no pending tuple',
    );
  });
});

/** Subjects from the protocol's §2 table, by author. */
const PARENT_SUBJECTS = [
  'loop: seed ledger',
  'loop: repair row 3',
  'loop: repair seed',
  'loop: repair verification',
  'loop: retry row 3',
  'loop: raise allowance',
  'loop: cut row 2',
  'loop: amend',
  'loop: redraw',
  'loop: escalate row 3',
  'loop: migrate allowance',
  'loop: verification changes',
  'loop: record api row 3',
  'loop: record api row 0',
];
const CHILD_SUBJECTS = [
  'loop: seed evidence',
  'loop: row 3 done',
  'loop: row 3 failed',
  'loop: verification fix',
];
const FOREIGN_SUBJECTS = ['fix the csv quoting', 'loop: row 3 maybe', 'Loop: amend'];

describe('parentCommitAmong', () => {
  it('finds each parent subject, alone or after child and foreign commits', () => {
    for (const subject of PARENT_SUBJECTS) {
      expect(parentCommitAmong([subject]), subject).toBe(true);
      expect(parentCommitAmong([...CHILD_SUBJECTS, ...FOREIGN_SUBJECTS, subject]), subject).toBe(true);
    }
  });

  it("counts neither a child's commit nor a foreign one as a parent commit", () => {
    for (const subject of [...CHILD_SUBJECTS, ...FOREIGN_SUBJECTS])
      expect(parentCommitAmong([subject]), subject).toBe(false);
    expect(parentCommitAmong([...CHILD_SUBJECTS, ...FOREIGN_SUBJECTS])).toBe(false);
    expect(parentCommitAmong([])).toBe(false);
  });
});

describe('reservationInFlight', () => {
  const tuple = { target: 3, repo: 'home', head: HEAD } as const;
  const onDisk: Ledger = { ...AT_HEAD, iterations: 7, pending: tuple };
  const reserved: DispatchPlan = {
    target: 3,
    iteration: 6,
    pending: tuple,
    saved: AT_HEAD,
    reserved: onDisk,
    hint: null,
    previousDecision: 'none',
    model: null,
    actionRecords: [],
  };
  /** The child's commit removed the tuple and kept the bump. */
  const committed: Ledger = { ...AT_HEAD, iterations: 7 };

  it("is in flight: launched, HEAD descends from HEAD_BEFORE, the tuple gone, only the child's commit since", () => {
    const reservation = { plan: reserved, launched: true, subjects: ['loop: row 3 done'] };
    expect(reservationInFlight(committed, reservation)).toBe(true);
    expect(reservationInFlight(null, reservation)).toBe(true);
    expect(reservationInFlight(committed, { ...reservation, subjects: [] })).toBe(true);
  });

  it('is not in flight without a reservation, with the tuple still on disk, unlaunched, off HEAD_BEFORE or settled', () => {
    const reservation = { plan: reserved, launched: true, subjects: ['loop: row 3 done'] };
    expect(reservationInFlight(committed, null)).toBe(false);
    expect(reservationInFlight(committed, undefined)).toBe(false);
    expect(reservationInFlight(onDisk, reservation)).toBe(false);
    expect(reservationInFlight(onDisk, { ...reservation, subjects: [] })).toBe(false);
    expect(reservationInFlight(committed, { ...reservation, launched: false })).toBe(false);
    expect(reservationInFlight(committed, { ...reservation, subjects: null })).toBe(false);
    expect(
      reservationInFlight(committed, {
        ...reservation,
        subjects: ['loop: row 3 done', 'loop: repair row 3'],
      }),
    ).toBe(false);
  });
});
