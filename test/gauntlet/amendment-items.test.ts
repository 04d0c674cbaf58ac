/**
 * Amendment items beyond the unreachable cut (docs/decisions/amendments.md): the `amend:` and
 * `redraw:` markers, option-5 auto-apply versus the option-4 stop, the repeated-evidence stop, the
 * redraw reply and commit, and `amend reopen <n> <new criterion text>`. Every expected value is
 * written by hand from the protocol text (§3.13, §3.17, amendment-surface) and the decisions.
 */
import { describe, expect, it } from 'vitest';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import {
  amendmentEntries,
  readAmendmentMarker,
  routeAmendmentMarker,
} from '../../src/gauntlet/amendment-items.js';
import { parseSubject } from '../../src/gauntlet/commits.js';
import type { LoopHistory } from '../../src/gauntlet/history.js';
import { parseHumanReply, renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { amendItemEdit, redrawEdit, reopenRowEdit } from '../../src/gauntlet/repair.js';
import { evaluateRules, type RulesInput, type RulesOutcome } from '../../src/gauntlet/rules.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { seededRun } from './rules-fixtures.js';

const SPEC = [
  '# CSV export',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [x] Upload appears in the staging bucket',
  '',
  '## Out of scope',
  '',
  '- XLSX',
  '',
].join('\n');

function specFor(ledger: Ledger): Spec {
  return {
    title: 'CSV export',
    amendGrant: { kind: 'none' },
    rows: ledger.rows.map((cells) => ({
      row: cells.row,
      text: `Acceptance criterion number ${cells.row}`,
      line: 10 + cells.row,
      disposition: { kind: 'in-scope', explicit: false },
    })),
  } as Spec;
}

function evaluate(ledger: Ledger, history: LoopHistory, extra: Partial<RulesInput> = {}): RulesOutcome {
  return evaluateRules({ ledger, history, escalateAfter: 2, ...extra });
}

describe('readAmendmentMarker (first result segment only)', () => {
  it('reads amend: <what> - <evidence>, split at the first " - "', () => {
    expect(readAmendmentMarker('npm test; amend: the header is Title - header.csv line 1 - col A')).toEqual({
      kind: 'amend',
      segment: 'amend: the header is Title - header.csv line 1 - col A',
      what: 'the header is Title',
      evidence: 'header.csv line 1 - col A',
    });
  });

  it('reads redraw: <why>', () => {
    expect(readAmendmentMarker('e2e; redraw: uploads move to the ingest service')).toMatchObject({
      kind: 'redraw',
      why: 'uploads move to the ingest service',
    });
  });

  it('a marker in a later segment never counts; a broken marker is malformed', () => {
    expect(readAmendmentMarker('npm test; 1 failing; amend: x - y')).toMatchObject({
      kind: 'none',
      malformed: false,
    });
    expect(readAmendmentMarker('npm test; amend: no separator')).toMatchObject({
      kind: 'none',
      malformed: true,
    });
    expect(readAmendmentMarker('npm test; redraw:')).toMatchObject({ kind: 'none', malformed: true });
    expect(readAmendmentMarker('npm test')).toEqual({ kind: 'none', segment: null, malformed: false });
  });
});

describe('routeAmendmentMarker: option 4 stops, option 5 applies, redraw and repeated evidence always stop', () => {
  const evidence = 'e2e; amend: the bucket is reports-staging - aws s3 ls lists reports-staging';

  it('option 5 (amend permission) applies the item with its ## Amendments entry and progress line', () => {
    expect(routeAmendmentMarker({ row: 2, evidence, amendments: [], amendPermission: true })).toEqual({
      kind: 'spec-amend',
      row: 2,
      what: 'the bucket is reports-staging',
      evidence: 'aws s3 ls lists reports-staging',
      entry: 'row 2: the bucket is reports-staging; evidence: aws s3 ls lists reports-staging',
      autoApply: true,
      amendedLine: 'amended the spec: row 2 - the bucket is reports-staging',
    });
  });

  it('option 4 (no permission) takes the same item to the human', () => {
    expect(routeAmendmentMarker({ row: 2, evidence, amendments: [], amendPermission: false })).toMatchObject({
      kind: 'spec-amend',
      autoApply: false,
    });
  });

  it('evidence an earlier amendment already answered is the repeated-evidence stop, under a grant too', () => {
    const earlier = 'row 2: the bucket is named reports; evidence: aws s3 ls lists reports-staging';
    for (const amendPermission of [true, false])
      expect(
        routeAmendmentMarker({ row: 2, evidence, amendments: ['unrelated note', earlier], amendPermission }),
      ).toEqual({
        kind: 'repeated-evidence',
        row: 2,
        what: 'the bucket is reports-staging',
        evidence: 'aws s3 ls lists reports-staging',
        earlier,
      });
  });

  it('a redraw stops under options 4 and 5 alike', () => {
    for (const amendPermission of [true, false])
      expect(
        routeAmendmentMarker({
          row: 1,
          evidence: 'e2e; redraw: uploads move to the ingest service',
          amendments: [],
          amendPermission,
        }),
      ).toEqual({ kind: 'redraw', row: 1, why: 'uploads move to the ingest service' });
  });

  it('amendmentEntries reads the bullets of ## Amendments only', () => {
    const spec = `${SPEC}\n## Amendments\n\n- row 1: a; evidence: b\n- second\n\n## Notes\n\n- not an amendment\n`;
    expect(amendmentEntries(spec)).toEqual(['row 1: a; evidence: b', 'second']);
    expect(amendmentEntries(SPEC)).toEqual([]);
  });
});

describe('evaluateRules routes the markers of the admitted failed target before the table', () => {
  it('an admitted amend item under a grant, then the table continues after loop: amend answered it', () => {
    const run = seededRun(3).child(2, 'failed', {
      evidence: 'e2e; amend: the bucket is reports-staging - aws s3 ls lists reports-staging',
    });
    const routing = { spec: specFor(run.ledger), amendPermission: true, amendments: [] };
    expect(evaluate(run.ledger, run.history(), { routing })).toMatchObject({
      kind: 'spec-amend',
      row: 2,
      autoApply: true,
    });
    run.amend();
    // Answered: the ordered table continues with a dispatch in the same run (no stop).
    expect(evaluate(run.ledger, run.history(), { routing }).kind).toBe('dispatch-row');
  });

  it('the same evidence reported again after the amendment is the repeated-evidence stop', () => {
    const run = seededRun(2).child(2, 'failed', {
      evidence: 'e2e; amend: the bucket is reports-staging - aws s3 ls lists reports-staging',
    });
    run.amend();
    run.child(2, 'failed', {
      evidence: 'e2e; amend: the bucket is reports-staging - aws s3 ls lists reports-staging',
    });
    const routing = {
      spec: specFor(run.ledger),
      amendPermission: true,
      amendments: ['row 2: the bucket is reports-staging; evidence: aws s3 ls lists reports-staging'],
    };
    expect(evaluate(run.ledger, run.history(), { routing })).toMatchObject({
      kind: 'repeated-evidence-stop',
      row: 2,
    });
  });

  it('a redraw item under a grant is the redraw stop, before rule 2', () => {
    const run = seededRun(2, 1).child(1, 'failed', { evidence: 'e2e; redraw: uploads move to a service' });
    const routing = { spec: specFor(run.ledger), amendPermission: true };
    expect(evaluate(run.ledger, run.history(), { routing })).toMatchObject({
      kind: 'redraw-stop',
      row: 1,
      reason: 'uploads move to a service',
    });
  });
});

describe('the amend item commit preserves rows, attempts, iterations and allowance (§3.17)', () => {
  it('loop: amend, rows unchanged, body names the item, the evidence and the grant', () => {
    const run = seededRun(2).child(2, 'failed', { evidence: 'e2e; amend: x - y' });
    const edit = amendItemEdit(
      run.ledger,
      2,
      'the bucket is reports-staging',
      'aws s3 ls',
      'Auto-apply amends.',
    );
    expect(edit.subject).toBe('loop: amend');
    expect(edit.ledger).toEqual(run.ledger);
    expect(edit.body).toBe(
      [
        'amended the spec: row 2 - the bucket is reports-staging',
        'evidence: aws s3 ls',
        'granted',
        '"Auto-apply amends."',
      ].join('\n'),
    );
  });

  it('the spec gets one ## Amendments entry and keeps every other byte', () => {
    const after = amendSpecText(SPEC, { kind: 'preserve', what: 'row 1: Title; evidence: header.csv' });
    expect(after).toBe(`${SPEC}\n## Amendments\n\n- row 1: Title; evidence: header.csv\n`);
  });
});

describe('redraw', () => {
  it('is offered at amendment stops; the bare menu number at a redraw stop takes its reason', () => {
    const stop = { kind: 'redraw', row: 1, reason: 'uploads move to a service' } as const;
    expect(parseHumanReply('4', stop)).toEqual({
      ok: true,
      choice: { kind: 'redraw', reason: 'uploads move to a service' },
    });
    expect(parseHumanReply('redraw the problem changed', stop)).toEqual({
      ok: true,
      choice: { kind: 'redraw', reason: 'the problem changed' },
    });
    const unreachable = { kind: 'unreachable-amend', row: 1, what: 'DNS', where: 'runbook' } as const;
    expect(parseHumanReply('redraw', unreachable)).toMatchObject({
      ok: false,
      rejection: { code: 'reply.malformed' },
    });
    expect(parseHumanReply('redraw scope changed', unreachable)).toMatchObject({ ok: true });
  });

  it('is not offered at a row stop or the verification stop', () => {
    expect(parseHumanReply('redraw new problem', { kind: 'row-allowance', row: 1 })).toMatchObject({
      ok: false,
      rejection: { code: 'reply.not-offered' },
    });
  });

  it('the commit is loop: redraw with the reason; the subject parses back', () => {
    const run = seededRun(1);
    expect(redrawEdit(run.ledger, 'uploads move to a service')).toEqual({
      ledger: run.ledger,
      subject: 'loop: redraw',
      body: 'redraw: uploads move to a service',
    });
    expect(parseSubject('loop: redraw')).toEqual({ kind: 'redraw' });
  });

  it('the redraw stop says it stops under every option and lists Redraw before Stop', () => {
    const run = seededRun(1).child(1, 'failed', { evidence: 'e2e; redraw: new problem' });
    const text = renderHumanStop({ kind: 'redraw', row: 1, reason: 'new problem' }, run.ledger);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('gauntlet: question');
    expect(lines[1]).toBe('Stopped on row 1');
    expect(lines).toContain(
      'Recommendation: redraw new problem - a redraw stops under every approval option',
    );
    expect(lines.slice(-2)).toEqual([
      '4 - Redraw the spec (delete the ledger; the next run seeds afresh): redraw [<reason>]',
      '5 - Stop and keep the branch as it is: stop',
    ]);
  });
});

describe('spec-amend stop: the bare Amend number applies the recommended entry', () => {
  it('3 and "amend spec" alone apply the entry; amend spec <change> applies the person’s words', () => {
    const stop = {
      kind: 'spec-amend',
      row: 2,
      what: 'w',
      evidence: 'e',
      entry: 'row 2: w; evidence: e',
    } as const;
    const entry = {
      ok: true,
      choice: { kind: 'amend', amendment: { kind: 'preserve', what: 'row 2: w; evidence: e' } },
    };
    expect(parseHumanReply('3', stop)).toEqual(entry);
    expect(parseHumanReply('amend spec', stop)).toEqual(entry);
    expect(parseHumanReply('amend spec the bucket is named x', stop)).toMatchObject({
      ok: true,
      choice: { amendment: { kind: 'preserve', what: 'the bucket is named x' } },
    });
  });
});

describe('amend reopen <n> <new criterion text> (the docs/proof.md finding)', () => {
  it('with text: the reply carries it and the spec row is rewritten (checkbox kept, nothing else changes)', () => {
    const parsed = parseHumanReply('amend reopen 2 Upload appears in the ingest bucket', {
      kind: 'verification-failed',
      repairs: 4,
      problem: { kind: 'missing-model' },
    });
    expect(parsed).toEqual({
      ok: true,
      choice: {
        kind: 'amend',
        amendment: { kind: 'reopen', row: 2, text: 'Upload appears in the ingest bucket' },
      },
    });
    const after = amendSpecText(SPEC, {
      kind: 'reopen',
      row: 2,
      text: 'Upload appears in the ingest bucket',
    });
    expect(after).toBe(
      SPEC.replace('- [x] Upload appears in the staging bucket', '- [x] Upload appears in the ingest bucket'),
    );
    expect(parseSpec(after).spec.rows.map((r) => r.text)).toEqual([
      'Export writes a header row',
      'Upload appears in the ingest bucket',
    ]);
  });

  it('without text: the spec is unchanged and the row is reopened with attempts kept', () => {
    expect(amendSpecText(SPEC, { kind: 'reopen', row: 2 })).toBe(SPEC);
    const run = seededRun(2).child(2, 'done', { evidence: 'npm test; uploaded' });
    const edit = reopenRowEdit(run.ledger, 2);
    expect(edit.ledger.rows[1]).toMatchObject({
      status: 'open',
      attempts: 1,
      evidence: 'reopened by amendment',
    });
    expect(edit.ledger.allowance).toBe(run.ledger.allowance);
    expect(edit.ledger.iterations).toBe(run.ledger.iterations);
  });
});
