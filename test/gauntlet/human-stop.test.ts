import { describe, expect, it } from 'vitest';
import {
  type HumanStop,
  HumanStopError,
  type HumanStopKind,
  menuFor,
  parseHumanReply,
  renderHumanStop,
} from '../../src/gauntlet/human-stop.js';
import { ordinaryMissRepair } from '../../src/gauntlet/repair.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { validateReturn } from '../../src/gauntlet/validate.js';
import {
  conformingOrdinary,
  ledger,
  midLoop,
  row,
  tuple,
  unseeded,
  withRows,
} from './validation-fixtures.js';

function lines(text: string): string[] {
  return text.split('\n');
}

/** The menu lines of a rendered stop: `<k> - <label>: <reply>`. */
function menuLines(text: string): string[] {
  return lines(text).filter((line) => /^\d+ - /.test(line));
}

/** A rule-2 situation: row 2 failed 4 of 4, row 5 open with two retries (effective 6). */
function exhausted(): Ledger {
  return ledger({
    iterations: 9,
    rows: [
      row(1, 'done', 1, 'npm test -- export.test.ts; 12 passed'),
      row(2, 'failed', 4, 'npm test -- export.test.ts; 1 failing: expected "a,b" got "a\\|b"'),
      row(3, 'cut', 0, 'deferred: TRACK-7'),
      row(5, 'open', 0, ''),
    ],
    decisions: [
      'row 0 done | seeded 2 rows, closed 0 on baseline | row 2',
      'row 2 failed | escaping drops commas | try the RFC quoting',
      'row 5 retry | start from the fixture | allowed attempts 5',
      'row 2 failed | quoting still joins with pipes | human decision needed',
      'row 5 retry | smaller fixture | allowed attempts 99',
    ],
  });
}

const ALL_KINDS: HumanStop[] = [
  { kind: 'row-allowance', row: 2 },
  { kind: 'missing-model', row: 2 },
  { kind: 'seed-exhaustion', seedRepairs: 4, lastReason: 'seed miss: the seed marked row 2 failed' },
  { kind: 'bound-spent', row: 2 },
  { kind: 'unreachable-amend', row: 2, what: 'staging bucket', where: 'docs/ops.md' },
  { kind: 'recovery-incomplete', iteration: 6, what: 'checkout ownership unproven' },
  { kind: 'commit-boundary', problem: 'dirty tree', detail: '2 paths changed outside a dispatch' },
  { kind: 'dirty-start', detail: '?? notes.txt' },
  {
    kind: 'verification-failed',
    repairs: 4,
    problem: { kind: 'gate', gate: 2, exitCode: 1, logPath: '/tmp/logs/gate-2.log', tail: 'FAIL\n' },
  },
  { kind: 'reopened-during-verify', row: 1 },
  {
    kind: 'configuration-error',
    message: 'ledger has no allowance: line - resume through /skill:gauntlet-resume',
  },
  { kind: 'closure-not-audited' },
  {
    kind: 'closure-carried-open',
    openGaps: ['G1: no XLSX export'],
    closure: '## Closure / conformance\nstatus: GAPS (1 open)\n',
  },
];

describe('renderHumanStop', () => {
  it('H1: a rule-2 stop lists every open or failed row with its effective allowance, then the problem', () => {
    const l = exhausted();
    const out = lines(renderHumanStop({ kind: 'row-allowance', row: 2 }, l));
    expect(out.slice(0, 5)).toEqual([
      'gauntlet: question',
      'Stopped on row 2',
      'row 2: 4 of 4',
      'row 5: 0 of 6',
      "Preserve every row's attempts.",
    ]);
    // Problem quotes the evidence cell and the row's last decision line verbatim.
    const cell = l.rows[1]?.evidence as string;
    expect(out[5]).toBe(
      `Problem: ${cell} / row 2 failed | quoting still joins with pipes | human decision needed`,
    );
  });

  it('starts with the question line alone, no preamble or fence, and ends with a newline', () => {
    for (const stop of ALL_KINDS) {
      const text = renderHumanStop(stop, exhausted());
      expect(text.startsWith('gauntlet: question\n')).toBe(true);
      expect(text.endsWith('\n')).toBe(true);
      expect(text).not.toContain('```');
      expect(lines(text)).toContain("Preserve every row's attempts.");
    }
  });

  it('H3: a rejected-return stop shows the restored pre-dispatch cells, not the child values', () => {
    const { facts, saved } = conformingOrdinary();
    const atThree = withRows(saved, row(2, 'failed', 3, saved.rows[1]?.evidence as string));
    const broken = {
      ...facts,
      saved: atThree,
      headLedger: withRows(
        facts.headLedger as Ledger,
        row(2, 'failed', 4, 'npm test; x'),
        row(4, 'open', 0, 'npm test; y'),
      ),
    };
    const outcome = validateReturn(broken);
    expect(outcome.kind).toBe('miss');
    if (outcome.kind !== 'miss') return;
    const repaired = ordinaryMissRepair({ saved: atThree, pending: tuple(2), miss: outcome.miss }).ledger;
    const out = lines(renderHumanStop({ kind: 'row-allowance', row: 2 }, repaired));
    // The child closed row 3 and touched cut row 4; neither survives the repair.
    expect(out.slice(2, 5)).toEqual(['row 2: 4 of 4', 'row 3: 0 of 4', 'row 5: 0 of 4']);
    expect(out[6]).toBe(`Problem: iteration 3: ${outcome.miss} / ${saved.decisions[1]}`);
  });

  it('X5: the missing-model stop names the unavailable model and offers retry, rows +N, Amend, Stop', () => {
    const text = renderHumanStop({ kind: 'missing-model', row: 2 }, exhausted());
    expect(lines(text)).toContain('Problem: escalationLoop.implModel unavailable');
    expect(lines(text)[1]).toBe('Stopped on row 2');
    expect(menuLines(text).map((line) => line.split(':')[0])).toEqual([
      '1 - Retry with hint',
      '2 - rows +N',
      '3 - Amend',
      '4 - Stop and keep the branch as it is',
    ]);
  });

  it('SC1: the seed stop shows seed: 4 of 4, rows at 0 and the budget menu', () => {
    const l = { ...unseeded(), iterations: 4 };
    const text = renderHumanStop(
      { kind: 'seed-exhaustion', seedRepairs: 4, lastReason: 'seed miss: the seed gave no row evidence' },
      l,
    );
    expect(lines(text).slice(0, 8)).toEqual([
      'gauntlet: question',
      'Stopped on seed',
      'seed: 4 of 4',
      'row 1: 0 of 4',
      'row 2: 0 of 4',
      'row 3: 0 of 4',
      'row 5: 0 of 4',
      "Preserve every row's attempts.",
    ]);
    expect(lines(text)[8]).toBe('Problem: seed miss: the seed gave no row evidence');
    expect(menuLines(text).map((line) => line.split(':')[0])).toEqual([
      '1 - Retry with hint',
      '2 - rows +N',
      '3 - Amend',
      '4 - Stop and keep the branch as it is',
    ]);
    // A16: a numbered retry does not unblock the seed; the stop says so.
    expect(text).toContain('only a raised allowance permits more seed dispatches');
  });

  it('VF3: the verification stop quotes the gate and at most the last 20 log lines, amend or stop only', () => {
    const closed = ledger({
      iterations: 14,
      rows: [row(1, 'done', 1, 'npm test; ok'), row(2, 'cut', 0, 'elsewhere: api')],
    });
    const log = Array.from({ length: 30 }, (_, i) => `log line ${i + 1}`).join('\n');
    const text = renderHumanStop(
      {
        kind: 'verification-failed',
        repairs: 4,
        problem: {
          kind: 'gate',
          gate: 2,
          exitCode: 1,
          logPath: '/tmp/loop-logs/gate-2.log',
          tail: `${log}\n`,
        },
      },
      closed,
    );
    const out = lines(text);
    expect(out.slice(0, 5)).toEqual([
      'gauntlet: question',
      'Stopped: verification failed with every row closed',
      'repairs: 4 of 4',
      "Preserve every row's attempts.",
      'Problem: gate 2 exit 1 /tmp/loop-logs/gate-2.log',
    ]);
    expect(out.slice(5, 25)).toEqual(Array.from({ length: 20 }, (_, i) => `log line ${i + 11}`));
    expect(text).not.toContain('log line 10\n');
    expect(menuLines(text).map((line) => line.split(':')[0])).toEqual([
      '1 - Amend',
      '2 - Stop and keep the branch as it is',
    ]);
    expect(text).not.toMatch(/Retry with hint|rows \+N/);
  });

  it('VF5: a verification stop without a repair model names it', () => {
    const text = renderHumanStop(
      { kind: 'verification-failed', repairs: 1, problem: { kind: 'missing-model' } },
      ledger(),
    );
    expect(lines(text)).toContain('Problem: escalationLoop.implModel unavailable');
    expect(lines(text)).toContain('repairs: 1 of 4');
  });

  it('R3: recovery incomplete names the failure, lists the saved rows and asks only for discard authorization', () => {
    const saved = midLoop();
    const text = renderHumanStop(
      { kind: 'recovery-incomplete', iteration: 6, what: 'checkout ownership unproven' },
      saved,
    );
    const out = lines(text);
    expect(out.slice(0, 5)).toEqual([
      'gauntlet: question',
      'Stopped: iteration 6 recovery incomplete - checkout ownership unproven',
      'row 2: 1 of 4',
      'row 3: 0 of 4',
      'row 5: 0 of 4',
    ]);
    const menu = menuLines(text);
    expect(menu).toHaveLength(2);
    expect(menu[0]).toMatch(
      /^1 - Discard the unadmitted work of iteration 6 \(checkout ownership unproven\)/,
    );
    expect(menu[1]).toMatch(/^2 - Stop/);
    expect(text).not.toMatch(/rows \+N|Retry/);
  });

  it('the bound-spent stop carries its fixed recommendation and the ordinary row menu', () => {
    const text = renderHumanStop({ kind: 'bound-spent', row: 2 }, exhausted());
    expect(lines(text)).toContain('Recommendation: none - named action bound spent');
    expect(menuLines(text)).toHaveLength(4);
  });

  it('the unreachable batch recommends the deviates disposition and the out-of-scope entry', () => {
    const rowText =
      'Exported reports upload to the shared bucket and are visible to every tenant admin at once';
    const text = renderHumanStop(
      { kind: 'unreachable-amend', row: 2, what: 'prod DNS', where: 'runbook section 4', rowText },
      exhausted(),
    );
    expect(lines(text)).toContain(
      'Recommendation: amend cut 2 deviates: unreachable in this checkout - prod DNS; proof at runbook section 4',
    );
    expect(lines(text)).toContain(
      `Out of scope entry: ${rowText.slice(0, 60).trimEnd()} - unreachable in this checkout - prod DNS`,
    );
  });

  it('names a spent escalated round, omits it otherwise', () => {
    const l = exhausted();
    expect(renderHumanStop({ kind: 'row-allowance', row: 2 }, l)).not.toContain('escalated round spent');
    const escalated = {
      ...l,
      decisions: [...l.decisions, 'row 2 escalated | implModel round | allowed attempts 4'],
    };
    expect(lines(renderHumanStop({ kind: 'row-allowance', row: 2 }, escalated))).toContain(
      'escalated round spent',
    );
  });

  it('keeps the preservation sentence with no open or failed rows, and quotes a configuration error verbatim', () => {
    const message =
      'cannot resolve escalation threshold: settings tool unavailable (loopEngine.escalateAfter)';
    const out = lines(renderHumanStop({ kind: 'configuration-error', message }, null));
    expect(out.slice(0, 4)).toEqual([
      'gauntlet: question',
      'Stopped: configuration error',
      "Preserve every row's attempts.",
      `Problem: ${message}`,
    ]);
  });

  it('refuses to render a row stop without its ledger', () => {
    expect(() => renderHumanStop({ kind: 'row-allowance', row: 2 }, null)).toThrow(HumanStopError);
  });

  it('renders the reopened-during-verify header and its return offer', () => {
    const l = withRows(exhausted(), row(1, 'open', 1, 'reopened by amendment'));
    const text = renderHumanStop({ kind: 'reopened-during-verify', row: 1 }, l);
    expect(lines(text)[1]).toBe('Stopped: row 1 reopened by amendment during verify');
    expect(lines(text)).toContain('row 1: 1 of 4');
    expect(menuLines(text)).toEqual([
      '1 - Return row 1 to ledger implementation: return',
      '2 - Stop and keep the branch as it is: stop',
    ]);
  });
});

describe('menuFor', () => {
  it('offers exactly the protocol table per stop kind (A28 order)', () => {
    const expected: Record<HumanStopKind, string[]> = {
      'row-allowance': ['retry', 'raise', 'amend', 'stop'],
      'missing-model': ['retry', 'raise', 'amend', 'stop'],
      'seed-exhaustion': ['retry', 'raise', 'amend', 'stop'],
      'bound-spent': ['retry', 'raise', 'amend', 'stop'],
      'unreachable-amend': ['retry', 'raise', 'amend', 'redraw', 'stop'],
      'spec-amend': ['retry', 'raise', 'amend', 'redraw', 'stop'],
      'repeated-evidence': ['retry', 'raise', 'amend', 'redraw', 'stop'],
      redraw: ['retry', 'raise', 'amend', 'redraw', 'stop'],
      'recovery-incomplete': ['discard', 'stop'],
      'commit-boundary': ['discard', 'stop'],
      'dirty-start': ['stop'],
      'verification-failed': ['amend', 'stop'],
      'reopened-during-verify': ['return', 'stop'],
      'configuration-error': ['stop'],
      // Verify steps 2-3 (test/gauntlet/review-stops.test.ts): the step-6 ask and the review stops.
      'review-miss': ['stop'],
      'review-cap': ['stop'],
      'conformance-step6': ['stop'],
      // No conformance reviewer and no waiver: the way on is a new run with either flag.
      'closure-not-audited': ['stop'],
      // Verify completed with gaps carried open: the finishing gate (a person) decides them.
      'closure-carried-open': ['stop'],
    };
    for (const stop of ALL_KINDS) {
      const menu = menuFor(stop);
      expect(menu.map((offer) => offer.kind)).toEqual(expected[stop.kind]);
      expect(menu.map((offer) => offer.number)).toEqual(menu.map((_, index) => index + 1));
    }
  });
});

describe('parseHumanReply', () => {
  const rowStop: HumanStop = { kind: 'row-allowance', row: 2 };

  it('A9: reads retry <n> | <hint>', () => {
    expect(parseHumanReply('retry 3 | use the MinIO fixture', { kind: 'row-allowance', row: 3 })).toEqual({
      ok: true,
      choice: { kind: 'retry', row: 3, hint: 'use the MinIO fixture' },
    });
  });

  it('reads rows +N with and without words; the bare form keeps empty words', () => {
    expect(parseHumanReply('rows +50', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'raise', amount: 50, words: '' },
    });
    expect(parseHumanReply('rows +2 one more round', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'raise', amount: 2, words: 'one more round' },
    });
    expect(parseHumanReply('ROWS +2 | budget', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'raise', amount: 2, words: 'budget' },
    });
  });

  it('reads the amendment grammar', () => {
    expect(parseHumanReply('amend cut 5 deferred: TRACK-9', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'amend', amendment: { kind: 'cut', row: 5, disposition: 'deferred: TRACK-9' } },
    });
    expect(parseHumanReply('amend reopen 1', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'amend', amendment: { kind: 'reopen', row: 1 } },
    });
    expect(parseHumanReply('amend spec dates are ISO 8601', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'amend', amendment: { kind: 'preserve', what: 'dates are ISO 8601' } },
    });
  });

  it('accepts the menu number, alone or with the offer arguments', () => {
    expect(parseHumanReply('4', rowStop)).toEqual({ ok: true, choice: { kind: 'stop' } });
    expect(parseHumanReply('1 | try the stub', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'retry', row: 2, hint: 'try the stub' },
    });
    expect(parseHumanReply('2 +3 small budget', rowStop)).toEqual({
      ok: true,
      choice: { kind: 'raise', amount: 3, words: 'small budget' },
    });
    expect(
      parseHumanReply('1', { kind: 'recovery-incomplete', iteration: 6, what: 'job 41 still running' }),
    ).toEqual({
      ok: true,
      choice: { kind: 'discard' },
    });
    const unreachable: HumanStop = { kind: 'unreachable-amend', row: 3, what: 'prod DNS', where: 'runbook' };
    expect(parseHumanReply('3', unreachable)).toEqual({
      ok: true,
      choice: {
        kind: 'amend',
        amendment: {
          kind: 'cut',
          row: 3,
          disposition: 'deviates: unreachable in this checkout - prod DNS; proof at runbook',
        },
      },
    });
  });

  it('rejects budget replies at recovery incomplete and at the verification stop', () => {
    const recovery: HumanStop = {
      kind: 'recovery-incomplete',
      iteration: 6,
      what: 'checkout ownership unproven',
    };
    const verify: HumanStop = { kind: 'verification-failed', repairs: 4, problem: { kind: 'missing-model' } };
    for (const stop of [recovery, verify]) {
      for (const reply of ['rows +2', 'retry 2 | try again']) {
        const result = parseHumanReply(reply, stop);
        expect(result.ok).toBe(false);
        if (!result.ok) expect(result.rejection.code).toBe('reply.not-offered');
      }
    }
    const amend = parseHumanReply('amend spec x', recovery);
    expect(amend.ok ? null : amend.rejection.code).toBe('reply.not-offered');
    const discard = parseHumanReply('discard', rowStop);
    expect(discard.ok ? null : discard.rejection.code).toBe('reply.not-offered');
  });

  it('rejects malformed, unknown, empty and out-of-range replies by name', () => {
    const code = (reply: string, stop: HumanStop = rowStop) => {
      const result = parseHumanReply(reply, stop);
      return result.ok ? 'accepted' : result.rejection.code;
    };
    expect(code('')).toBe('reply.empty');
    expect(code('please continue')).toBe('reply.unknown');
    expect(code('retry 2')).toBe('reply.malformed');
    expect(code('retry 2 |   ')).toBe('reply.malformed');
    expect(code('retry 2 | a | b')).toBe('reply.malformed');
    expect(code('rows +0')).toBe('reply.malformed');
    expect(code('rows 2')).toBe('reply.malformed');
    expect(code('amend cut 5 venue: staging - visible')).toBe('reply.malformed');
    expect(code('amend cut 5')).toBe('reply.malformed');
    expect(code('stop now')).toBe('reply.malformed');
    expect(code('1')).toBe('reply.malformed');
    expect(code('7')).toBe('reply.not-offered');
    const result = parseHumanReply('rows +2', {
      kind: 'verification-failed',
      repairs: 4,
      problem: { kind: 'missing-model' },
    });
    if (!result.ok) {
      expect(result.rejection.reply).toBe('rows +2');
      expect(result.rejection.reason).toContain('1 (amend');
    }
  });

  it('checks row arguments against the ledger when given', () => {
    const l = exhausted();
    const code = (reply: string, stop: HumanStop = rowStop) => {
      const result = parseHumanReply(reply, stop, l);
      return result.ok ? 'accepted' : result.rejection.code;
    };
    expect(code('retry 5 | smaller fixture')).toBe('accepted');
    expect(code('retry 1 | again')).toBe('reply.row');
    expect(code('retry 9 | again')).toBe('reply.row');
    expect(code('amend cut 3 deviates: no')).toBe('reply.row');
    expect(code('amend reopen 2')).toBe('reply.row');
    expect(code('amend reopen 1')).toBe('accepted');
    expect(code('return 5', { kind: 'reopened-during-verify', row: 1 })).toBe('reply.row');
    expect(code('return', { kind: 'reopened-during-verify', row: 1 })).toBe('accepted');
  });
});
