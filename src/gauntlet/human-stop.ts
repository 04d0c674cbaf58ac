/**
 * Human stops of the loop engine (§3.15, §3.16, §3.18, §4): what each stop is, the exact text it
 * renders, the menu it offers and the replies it accepts.
 *
 * Every stop starts with `gauntlet: question` alone on the first line, names the stop, lists every
 * open or failed row as `row <n>: <attempts> of <effective allowance>`, says `Preserve every row's
 * attempts.`, quotes the problem, and ends with a numbered menu of exactly the offers of that stop
 * kind (A28). A reply that picks an offer the stop does not make is rejected by name: a budget
 * reply never bypasses the recovery-incomplete or verification gates.
 */
import { LoopchartError } from '../common/errors.js';
import { effectiveAllowance } from './allowance.js';
import { parseDecision } from './decisions.js';
import { isEscalationSpent } from './escalation.js';
import { isCutDispositionText } from './repair.js';
import { capBlockText, type ReviewRole, STEP6_LINE } from './review.js';
import type { Ledger } from './types.js';
import { BOUND_SPENT_RECOMMENDATION, outOfScopeEntry, unreachableDisposition } from './unreachable.js';

/** Where verify step 1 failed: a gate, or no model for the repair child. */
export type VerificationProblem =
  | {
      readonly kind: 'gate';
      /** 1-based index of the failing gate in the gate set. */
      readonly gate: number;
      readonly exitCode: number;
      readonly logPath: string;
      /** The log's tail as read with `tail -n 20`; only the last 20 lines are quoted. */
      readonly tail: string;
    }
  | { readonly kind: 'missing-model' };

/** One kind per human stop of the loop engine. */
export type HumanStop =
  /** Rule 2: an unresolved row reached its effective allowance. */
  | { readonly kind: 'row-allowance'; readonly row: number }
  /** The escalated round is due but `escalationLoop.implModel` cannot be resolved (X5). */
  | { readonly kind: 'missing-model'; readonly row: number }
  /** The seed repair count reached the allowance (SC1). `lastReason` is the last repair's body line. */
  | { readonly kind: 'seed-exhaustion'; readonly seedRepairs: number; readonly lastReason?: string }
  /** Unreachable routing: the target's first result segment is `bound spent: …`. */
  | { readonly kind: 'bound-spent'; readonly row: number }
  /**
   * Unreachable routing without amend permission: the amendment surface's human batch for
   * `unreachable: <what> - <where>`. `rowText` is the spec's row text, for the out-of-scope entry.
   */
  | {
      readonly kind: 'unreachable-amend';
      readonly row: number;
      readonly what: string;
      readonly where: string;
      readonly rowText?: string;
    }
  /**
   * `amend: <what> - <evidence>` without amend permission: the requirement-preserving amend item
   * for the human (docs/decisions/amendments.md). `entry` is the `## Amendments` entry it would
   * write; the bare Amend menu number applies it.
   */
  | {
      readonly kind: 'spec-amend';
      readonly row: number;
      readonly what: string;
      readonly evidence: string;
      readonly entry: string;
    }
  /**
   * An `amend:` item whose evidence the spec's `## Amendments` already carries: the earlier
   * amendment did not help. Stops under options 4 and 5 alike.
   */
  | {
      readonly kind: 'repeated-evidence';
      readonly row: number;
      readonly what: string;
      readonly evidence: string;
      readonly earlier: string;
    }
  /** `redraw: <why>`: a redraw item. Always stops (options 4 and 5 alike). */
  | { readonly kind: 'redraw'; readonly row: number; readonly reason: string }
  /** Interrupted recovery could not finish (§3.15): discard authorization only. */
  | {
      readonly kind: 'recovery-incomplete';
      readonly iteration: number;
      readonly what: string;
      readonly detail?: string;
    }
  /** A dirty tree or unexpected commits outside a dispatch: the discard/reset authorization ask. */
  | {
      readonly kind: 'commit-boundary';
      readonly problem: 'dirty tree' | 'commit boundary';
      readonly detail: string;
    }
  /**
   * A dirty tree at a fresh entry, before the ledger is seeded and before any dispatch. Every
   * change predates the run, so the loop owns none of it: only `stop` is offered (issue 10 item 2).
   */
  | { readonly kind: 'dirty-start'; readonly detail: string }
  /** Verify step 1 failed with `repairs >= allowance`, or without a repair model (VF3, VF5). */
  | { readonly kind: 'verification-failed'; readonly repairs: number; readonly problem: VerificationProblem }
  /** An approved amendment re-bounded a done row while verify was active (VF9). */
  | { readonly kind: 'reopened-during-verify'; readonly row: number }
  /** A configuration error (missing `allowance:`, unresolvable settings, ...); `message` is verbatim. */
  | { readonly kind: 'configuration-error'; readonly message: string }
  /** Verify step 2 or 3: the reviewer's return is missing or malformed (a named miss). */
  | { readonly kind: 'review-miss'; readonly role: ReviewRole; readonly miss: string }
  /** Verify step 2: the whole-diff review still answers REVISE with its fix rounds used. */
  | {
      readonly kind: 'review-cap';
      readonly used: number;
      readonly cap: number;
      readonly tasks: readonly string[];
    }
  /**
   * Verify step 3: GAPS at the fix-round cap without funding (conformance-check step 6); the
   * first line is `gauntlet: gate=verification-before-completion/step-6`.
   */
  | {
      readonly kind: 'conformance-step6';
      readonly used: number;
      readonly cap: number;
      /** `G<n>: <text>` of each open gap. */
      readonly openGaps: readonly string[];
    }
  /**
   * Verify step 3 without a conformance reviewer and without a waiver: the gate set (and the
   * whole-diff review, when configured) passed, but nothing audited the closure.
   */
  | { readonly kind: 'closure-not-audited' }
  /**
   * Verify completed on a carried-open deferred inventory (§3.18 step 4): the closure is
   * `status: GAPS (N open)`, and the finishing gate (a person) decides the open gaps.
   */
  | {
      readonly kind: 'closure-carried-open';
      /** `G<n>: <text>` of each open gap. */
      readonly openGaps: readonly string[];
      /** The `## Closure / conformance` block, printed with the stop. */
      readonly closure: string;
    };

/** The name of a stop kind. */
export type HumanStopKind = HumanStop['kind'];

/** What a menu line offers. */
export type MenuOfferKind = 'retry' | 'raise' | 'amend' | 'redraw' | 'stop' | 'discard' | 'return';

/** One numbered menu line: `<number> - <label>: <reply>`. */
export interface MenuOffer {
  readonly kind: MenuOfferKind;
  /** 1-based menu number; replying with it picks the offer. */
  readonly number: number;
  readonly label: string;
  /** The reply form that picks the offer with its arguments. */
  readonly reply: string;
}

/** An amendment a human can answer with (see docs/human-stops.md for the grammar). */
export type Amendment =
  /** `amend cut <n> <disposition>`: cut the row with a deviates:/deferred:/elsewhere: disposition. */
  | { readonly kind: 'cut'; readonly row: number; readonly disposition: string }
  /**
   * `amend reopen <n> [<new criterion text>]`: re-bound a done row (`reopened by amendment`). With
   * `text`, the row's acceptance criterion in the spec is rewritten to it in the same commit.
   */
  | { readonly kind: 'reopen'; readonly row: number; readonly text?: string }
  /** `amend spec <change>`: a requirement-preserving spec change; rows stay as they are. */
  | { readonly kind: 'preserve'; readonly what: string };

/** A reply a stop accepted. */
export type HumanChoice =
  | { readonly kind: 'retry'; readonly row: number; readonly hint: string }
  | { readonly kind: 'raise'; readonly amount: number; readonly words: string }
  | { readonly kind: 'amend'; readonly amendment: Amendment }
  /** `redraw <reason>`: delete the ledger in one `loop: redraw` commit; the next run reseeds. */
  | { readonly kind: 'redraw'; readonly reason: string }
  | { readonly kind: 'stop' }
  | { readonly kind: 'discard' }
  | { readonly kind: 'return'; readonly row: number };

/** Why a reply was not accepted. */
export type HumanReplyRejectionCode =
  | 'reply.empty'
  | 'reply.unknown'
  | 'reply.not-offered'
  | 'reply.malformed'
  | 'reply.row';

/** A reply the stop did not accept, with a sentence the human can act on. */
export interface HumanReplyRejection {
  readonly code: HumanReplyRejectionCode;
  readonly reason: string;
  /** The reply as given. */
  readonly reply: string;
}

/** The result of {@link parseHumanReply}. */
export type HumanReplyResult =
  | { readonly ok: true; readonly choice: HumanChoice }
  | { readonly ok: false; readonly rejection: HumanReplyRejection };

/** The first line of every human stop, alone on its line. */
export const QUESTION_LINE = 'gauntlet: question';
/** Printed at every stop, after the row lines (or alone when there are none). */
export const PRESERVE_LINE = "Preserve every row's attempts.";
/** What the person does at a dirty start: the loop never discards changes it did not make. */
export const DIRTY_START_RECOMMENDATION =
  'Recommendation: commit, stash or move these changes, then run again; the loop never discards work it did not make';
/** The header of the stop at a verify with no conformance reviewer and no waiver. */
export const CLOSURE_NOT_AUDITED_HEADER = 'Stopped: verification passed; closure not audited';
/** Its problem line. */
export const CLOSURE_NOT_AUDITED_PROBLEM =
  "Problem: no conformance reviewer was given, so verify step 3 did not audit the diff against the spec's acceptance rows";
/** Its two ways on: audit the closure, or waive the audit explicitly. */
export const CLOSURE_NOT_AUDITED_RECOMMENDATION = [
  'Recommendation: run again with --conformance-reviewer "<command>" (or --conformance-reviewer-agent <agent>) to audit the closure',
  'Or waive the audit: run again with --no-conformance-review; the run then finishes and its closure block records the waiver',
] as const;
/** What the person does with a closure that carries open gaps (the finishing gate's decision). */
export const CARRIED_OPEN_RECOMMENDATION =
  'Recommendation: decide each open gap at the finishing gate (fix it, accept or rescope it into the spec, or follow it up), then run again';
/** The problem line of a missing-model stop. */
export const MISSING_MODEL_PROBLEM = 'Problem: escalationLoop.implModel unavailable';
/** At most this many log lines are quoted at the verification stop. */
export const VERIFICATION_TAIL_LINES = 20;

const OFFERS: Readonly<Record<HumanStopKind, readonly MenuOfferKind[]>> = {
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
  'review-miss': ['stop'],
  'review-cap': ['stop'],
  'conformance-step6': ['stop'],
  'closure-not-audited': ['stop'],
  'closure-carried-open': ['stop'],
};

/** A stop that cannot be rendered as asked (a row stop without a ledger). */
export class HumanStopError extends LoopchartError {
  /**
   * @param message one sentence naming what is missing
   */
  constructor(message: string) {
    super('human-stop.ledger-missing', message);
  }
}

/**
 * The offers of a stop, numbered in the fixed order Retry with hint, rows +N, Amend, Redraw,
 * Discard, Return, Stop (subset per stop kind, §3.16 table, A28).
 *
 * @param stop the stop
 * @returns its menu, numbered from 1
 */
export function menuFor(stop: HumanStop): readonly MenuOffer[] {
  const row = stopRow(stop);
  const n = row === null ? '<n>' : String(row);
  return OFFERS[stop.kind].map((kind, index) => {
    const number = index + 1;
    switch (kind) {
      case 'retry':
        return { kind, number, label: 'Retry with hint', reply: `retry ${n} | <hint>` };
      case 'raise':
        return { kind, number, label: 'rows +N', reply: 'rows +<N> [words]' };
      case 'amend':
        return {
          kind,
          number,
          label: 'Amend',
          reply:
            stop.kind === 'unreachable-amend'
              ? `amend cut ${n} (recommended disposition), amend cut ${n} <disposition> or amend spec <change>`
              : stop.kind === 'spec-amend'
                ? `amend spec (the recommended entry), amend spec <change> or amend cut <n> <disposition>`
                : `amend cut <n> <disposition>, amend reopen <n> or amend spec <change>`,
        };
      case 'redraw':
        return {
          kind,
          number,
          label: 'Redraw the spec (delete the ledger; the next run seeds afresh)',
          reply: stop.kind === 'redraw' ? 'redraw [<reason>]' : 'redraw <reason>',
        };
      case 'discard':
        return { kind, number, label: `Discard ${discardObject(stop)}`, reply: 'discard' };
      case 'return':
        return { kind, number, label: `Return row ${n} to ledger implementation`, reply: 'return' };
      default:
        return { kind, number, label: 'Stop and keep the branch as it is', reply: 'stop' };
    }
  });
}

/**
 * Renders a stop as the exact text the human sees (§3.16, §4).
 *
 * @param stop the stop
 * @param ledger the ledger whose rows the stop lists: the ledger at HEAD, or the restored
 *   pre-dispatch ledger at a rejected-return or recovery-incomplete stop (H3, R3). `null` is
 *   accepted only for a configuration error that has no readable ledger and a dirty start (no
 *   ledger is seeded yet).
 * @returns the message, lines joined with `\n`, ending with a newline
 * @throws HumanStopError when `ledger` is `null` for any other stop kind
 */
export function renderHumanStop(stop: HumanStop, ledger: Ledger | null): string {
  if (ledger === null && stop.kind !== 'configuration-error' && stop.kind !== 'dirty-start')
    throw new HumanStopError(`a ${stop.kind} stop needs the ledger to list its rows`);
  const lines: string[] = [stop.kind === 'conformance-step6' ? STEP6_LINE : QUESTION_LINE, header(stop)];
  if (stop.kind === 'review-cap' || stop.kind === 'conformance-step6')
    lines.push(capBlockText(stop.used, stop.cap));
  if (stop.kind === 'seed-exhaustion' && ledger !== null)
    lines.push(`seed: ${stop.seedRepairs} of ${ledger.allowance}`);
  if (stop.kind === 'verification-failed' && ledger !== null)
    lines.push(`repairs: ${stop.repairs} of ${ledger.allowance}`);
  if (ledger !== null) lines.push(...rowLines(ledger));
  lines.push(PRESERVE_LINE);
  lines.push(...problemLines(stop, ledger));
  const row = stopRow(stop);
  if (row !== null && ledger !== null && isEscalationSpent(ledger, row)) lines.push('escalated round spent');
  lines.push(...recommendationLines(stop));
  for (const offer of menuFor(stop)) lines.push(`${offer.number} - ${offer.label}: ${offer.reply}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Parses a human's reply to a stop: a keyword reply (`retry <n> | <hint>`, `rows +<N> [words]`,
 * `amend …`, `stop`, `discard`, `return`) or a menu number, optionally followed by the offer's
 * arguments (`1 | <hint>` retries the stopped row). Keywords are case-insensitive.
 *
 * @param reply the reply text
 * @param stop the stop being answered; a choice it does not offer is rejected (`reply.not-offered`)
 * @param ledger when given, row arguments are checked against it (`reply.row`)
 * @returns the typed choice, or a named rejection
 */
export function parseHumanReply(reply: string, stop: HumanStop, ledger?: Ledger): HumanReplyResult {
  const text = reply.trim();
  const reject = (code: HumanReplyRejectionCode, reason: string): HumanReplyResult => ({
    ok: false,
    rejection: { code, reason, reply },
  });
  if (text === '')
    return reject('reply.empty', `the reply is empty; answer with one of: ${menuSummary(stop)}`);

  const menu = menuFor(stop);
  const numbered = /^(\d+)(?=$|[\s|+])\s*(.*)$/s.exec(text);
  let keywordReply = text;
  if (numbered !== null) {
    const offer = menu.find((o) => o.number === Number(numbered[1]));
    if (offer === undefined)
      return reject(
        'reply.not-offered',
        `this stop has no option ${numbered[1]}; answer with one of: ${menuSummary(stop)}`,
      );
    keywordReply = keywordFor(offer.kind, (numbered[2] ?? '').trim(), stop);
  }

  const parsed = parseKeywordReply(keywordReply, stop);
  if (!parsed.ok) return reject(parsed.code, parsed.reason);
  const choice = parsed.choice;
  const offered = menu.some((o) => o.kind === offerOf(choice));
  if (!offered)
    return reject(
      'reply.not-offered',
      `${describe(choice)} is not offered at this stop; answer with one of: ${menuSummary(stop)}`,
    );
  const rowProblem = ledger === undefined ? null : checkRows(choice, ledger, stop);
  if (rowProblem !== null) return reject('reply.row', rowProblem);
  return { ok: true, choice };
}

/** Characters (code points) of an unknown reply quoted in its rejection. */
const UNKNOWN_QUOTE_LENGTH = 40;

type Parsed =
  | { ok: true; choice: HumanChoice }
  | { ok: false; code: HumanReplyRejectionCode; reason: string };

function parseKeywordReply(text: string, stop: HumanStop): Parsed {
  const malformed = (reason: string): Parsed => ({ ok: false, code: 'reply.malformed', reason });
  const word = (/^\S+/.exec(text)?.[0] ?? '').toLowerCase();
  const rest = text.slice(word.length).trim();
  if (word === 'stop')
    return rest === '' ? { ok: true, choice: { kind: 'stop' } } : malformed('"stop" takes no arguments');
  if (word === 'discard')
    return rest === ''
      ? { ok: true, choice: { kind: 'discard' } }
      : malformed('"discard" takes no arguments');
  if (word === 'return') {
    const row = stopRow(stop);
    if (rest === '')
      return row === null
        ? malformed('say which row returns: return <n>')
        : { ok: true, choice: { kind: 'return', row } };
    if (!/^\d+$/.test(rest)) return malformed('the reply form is: return [<n>]');
    return { ok: true, choice: { kind: 'return', row: Number(rest) } };
  }
  if (word === 'retry') {
    const match = /^(\d+)\s*\|\s*(.*)$/s.exec(rest);
    if (match === null) return malformed('a retry needs a row and a hint: retry <n> | <hint>');
    const hint = (match[2] as string).trim();
    const problem = cellProblem(hint, 'hint', false);
    if (problem !== null) return malformed(problem);
    return { ok: true, choice: { kind: 'retry', row: Number(match[1]), hint } };
  }
  if (word.startsWith('rows')) return parseRows(text);
  if (word === 'amend') return parseAmend(rest, stop);
  if (word === 'redraw') {
    const reason = rest === '' && stop.kind === 'redraw' ? singleLine(stop.reason) : rest;
    if (reason === '') return malformed('say why the spec is redrawn: redraw <reason>');
    if (/[\r\n]/.test(reason)) return malformed('a redraw reason is one line');
    return { ok: true, choice: { kind: 'redraw', reason } };
  }
  // Quote at most UNKNOWN_QUOTE_LENGTH code points, so a character outside the BMP is never cut.
  const quoted = [...text].slice(0, UNKNOWN_QUOTE_LENGTH).join('');
  return {
    ok: false,
    code: 'reply.unknown',
    reason: `"${quoted}" is not a reply this loop understands; answer with one of: ${menuSummary(stop)}`,
  };
}

function parseRows(text: string): Parsed {
  const match = /^rows\s*\+(\d+)(?:\s*\|?\s*(.*))?$/is.exec(text);
  if (match === null)
    return { ok: false, code: 'reply.malformed', reason: 'the reply form is: rows +<N> [words]' };
  const amount = Number(match[1]);
  if (!Number.isSafeInteger(amount) || amount < 1)
    return { ok: false, code: 'reply.malformed', reason: 'rows +N needs a positive whole N' };
  const words = (match[2] ?? '').trim();
  const problem = cellProblem(words, 'words', true);
  if (problem !== null) return { ok: false, code: 'reply.malformed', reason: problem };
  return { ok: true, choice: { kind: 'raise', amount, words } };
}

function parseAmend(rest: string, stop: HumanStop): Parsed {
  const malformed = (reason: string): Parsed => ({ ok: false, code: 'reply.malformed', reason });
  const form = 'amend cut <n> <disposition>, amend reopen <n> [<new criterion text>] or amend spec <change>';
  const verb = (/^\S+/.exec(rest)?.[0] ?? '').toLowerCase();
  const args = rest.slice(verb.length).trim();
  if (verb === 'cut') {
    const match = /^(\d+)(?:\s+(.*))?$/s.exec(args);
    if (match === null) return malformed(`the reply form is: ${form}`);
    const row = Number(match[1]);
    let disposition = (match[2] ?? '').trim();
    if (disposition === '') {
      if (stop.kind !== 'unreachable-amend' || stop.row !== row)
        return malformed(
          'a cut needs a disposition: amend cut <n> deviates: <why> (or deferred:, elsewhere:)',
        );
      disposition = unreachableDisposition(singleLine(stop.what), singleLine(stop.where));
    }
    if (!isCutDispositionText(disposition))
      return malformed('a cut disposition is one line starting with deviates:, deferred: or elsewhere:');
    return { ok: true, choice: { kind: 'amend', amendment: { kind: 'cut', row, disposition } } };
  }
  if (verb === 'reopen') {
    const match = /^(\d+)(?:\s+(.*))?$/s.exec(args);
    if (match === null) return malformed('the reply form is: amend reopen <n> [<new criterion text>]');
    const text = (match[2] ?? '').trim();
    if (/[\r\n]/.test(text)) return malformed('the new criterion text is one line');
    const row = Number(match[1]);
    return {
      ok: true,
      choice: {
        kind: 'amend',
        amendment: text === '' ? { kind: 'reopen', row } : { kind: 'reopen', row, text },
      },
    };
  }
  if (verb === 'spec') {
    if (args === '' && stop.kind === 'spec-amend')
      return {
        ok: true,
        choice: { kind: 'amend', amendment: { kind: 'preserve', what: singleLine(stop.entry) } },
      };
    if (args === '') return malformed('say what the amendment changes: amend spec <change>');
    if (/[\r\n]/.test(args)) return malformed('an amendment reply is one line');
    return { ok: true, choice: { kind: 'amend', amendment: { kind: 'preserve', what: args } } };
  }
  return malformed(`the reply form is: ${form}`);
}

/** Rewrites a numbered reply into the offer's keyword form. */
function keywordFor(kind: MenuOfferKind, args: string, stop: HumanStop): string {
  const row = stopRow(stop);
  switch (kind) {
    case 'retry':
      if (args.startsWith('|') && row !== null) return `retry ${row} ${args}`;
      return `retry ${args}`;
    case 'raise':
      return args.startsWith('+') ? `rows ${args}` : `rows +${args}`;
    case 'amend':
      if (args === '' && stop.kind === 'unreachable-amend') return `amend cut ${stop.row}`;
      if (args === '' && stop.kind === 'spec-amend') return 'amend spec';
      return `amend ${args}`;
    default:
      return args === '' ? kind : `${kind} ${args}`;
  }
}

function checkRows(choice: HumanChoice, ledger: Ledger, stop: HumanStop): string | null {
  const statusOf = (row: number) => ledger.rows.find((r) => r.row === row)?.status;
  switch (choice.kind) {
    case 'retry': {
      const status = statusOf(choice.row);
      if (status === undefined) return `the ledger has no row ${choice.row}`;
      if (status !== 'open' && status !== 'failed')
        return `row ${choice.row} is ${status}; only open or failed rows can be retried`;
      return null;
    }
    case 'amend': {
      const amendment = choice.amendment;
      if (amendment.kind === 'preserve') return null;
      const status = statusOf(amendment.row);
      if (status === undefined) return `the ledger has no row ${amendment.row}`;
      if (amendment.kind === 'cut' && status === 'cut') return `row ${amendment.row} is already cut`;
      if (amendment.kind === 'reopen' && status !== 'done')
        return `row ${amendment.row} is ${status}; only a done row can be reopened`;
      return null;
    }
    case 'return':
      if (stop.kind === 'reopened-during-verify' && choice.row !== stop.row)
        return `this stop returns row ${stop.row}, not row ${choice.row}`;
      return null;
    default:
      return null;
  }
}

function cellProblem(text: string, name: string, allowEmpty: boolean): string | null {
  if (/[\r\n]/.test(text)) return `the ${name} must be one line`;
  if (text.includes('|')) return `the ${name} may not contain "|" (it separates decision cells)`;
  if (!allowEmpty && text === '') return `the ${name} is empty; the reply form is: retry <n> | <hint>`;
  return null;
}

function offerOf(choice: HumanChoice): MenuOfferKind {
  return choice.kind;
}

function describe(choice: HumanChoice): string {
  switch (choice.kind) {
    case 'retry':
      return 'retry';
    case 'raise':
      return 'rows +N';
    case 'amend':
      return 'amend';
    default:
      return choice.kind;
  }
}

function menuSummary(stop: HumanStop): string {
  return menuFor(stop)
    .map((offer) => `${offer.number} (${offer.reply})`)
    .join(', ');
}

/** The row a stop names in its header, if any. */
function stopRow(stop: HumanStop): number | null {
  switch (stop.kind) {
    case 'row-allowance':
    case 'missing-model':
    case 'bound-spent':
    case 'unreachable-amend':
    case 'spec-amend':
    case 'repeated-evidence':
    case 'redraw':
    case 'reopened-during-verify':
      return stop.row;
    default:
      return null;
  }
}

function header(stop: HumanStop): string {
  switch (stop.kind) {
    case 'row-allowance':
    case 'missing-model':
    case 'bound-spent':
    case 'unreachable-amend':
    case 'spec-amend':
    case 'repeated-evidence':
    case 'redraw':
      return `Stopped on row ${stop.row}`;
    case 'seed-exhaustion':
      return 'Stopped on seed';
    case 'recovery-incomplete':
      return `Stopped: iteration ${stop.iteration} recovery incomplete - ${singleLine(stop.what)}`;
    case 'commit-boundary':
      return `Stopped: ${stop.problem} - ${detailLine(stop.detail)}`;
    case 'dirty-start':
      return `Stopped: dirty tree - ${detailLine(stop.detail)}`;
    case 'verification-failed':
      return 'Stopped: verification failed with every row closed';
    case 'reopened-during-verify':
      return `Stopped: row ${stop.row} reopened by amendment during verify`;
    case 'configuration-error':
      return 'Stopped: configuration error';
    case 'review-miss':
      return `Stopped: the ${stop.role} review return was rejected`;
    case 'review-cap':
      return 'Stopped: whole-diff review answers REVISE at the fix-round cap';
    case 'conformance-step6':
      return 'Stopped: conformance review answers GAPS at the fix-round cap';
    case 'closure-not-audited':
      return CLOSURE_NOT_AUDITED_HEADER;
    case 'closure-carried-open':
      return `Stopped: verification complete with ${stop.openGaps.length} open gap(s) carried to the finishing gate`;
  }
}

function rowLines(ledger: Ledger): string[] {
  return ledger.rows
    .filter((row) => row.status === 'open' || row.status === 'failed')
    .sort((a, b) => a.row - b.row)
    .map((row) => `row ${row.row}: ${row.attempts} of ${effectiveAllowance(ledger, row.row)}`);
}

function problemLines(stop: HumanStop, ledger: Ledger | null): string[] {
  switch (stop.kind) {
    case 'row-allowance':
    case 'bound-spent':
    case 'unreachable-amend':
    case 'spec-amend':
    case 'repeated-evidence':
    case 'redraw':
    case 'reopened-during-verify':
      return [`Problem: ${rowProblem(ledger as Ledger, stop.row)}`];
    case 'missing-model':
      return [MISSING_MODEL_PROBLEM];
    case 'seed-exhaustion':
      return [
        `Problem: ${stop.lastReason === undefined ? 'every seed dispatch so far was repaired' : singleLine(stop.lastReason)}`,
      ];
    case 'recovery-incomplete':
      return [`Problem: ${singleLine(stop.detail ?? stop.what)}`];
    case 'commit-boundary':
      return [`Problem: ${detailLine(stop.detail)}`];
    case 'dirty-start':
      return [`Problem: uncommitted changes before the first dispatch: ${detailLine(stop.detail)}`];
    case 'configuration-error':
      return [`Problem: ${singleLine(stop.message)}`];
    case 'review-miss':
      return [`Problem: ${singleLine(stop.miss)}`];
    case 'review-cap':
      return [`Problem: ${stop.tasks.map(singleLine).join(' / ')}`];
    case 'conformance-step6':
      return [
        `Problem: ${stop.openGaps.map(singleLine).join(' / ')}`,
        'Fund more rounds explicitly: raise closureReview.maxFixRounds (--max-fix-rounds) and run again.',
      ];
    case 'closure-not-audited':
      return [CLOSURE_NOT_AUDITED_PROBLEM];
    case 'closure-carried-open':
      return [
        `Problem: ${stop.openGaps.map(singleLine).join(' / ')}`,
        ...stop.closure.replace(/\n$/, '').split('\n'),
      ];
    case 'verification-failed': {
      const problem = stop.problem;
      if (problem.kind === 'missing-model') return [MISSING_MODEL_PROBLEM];
      const tail = problem.tail.replace(/\n$/, '');
      const quoted = tail === '' ? [] : tail.split('\n').slice(-VERIFICATION_TAIL_LINES);
      return [`Problem: gate ${problem.gate} exit ${problem.exitCode} ${problem.logPath}`, ...quoted];
    }
  }
}

/** `<evidence cell> / <the row's last outcome decision line>`, both verbatim. */
function rowProblem(ledger: Ledger, row: number): string {
  const cell = ledger.rows.find((r) => r.row === row)?.evidence ?? '';
  const decision = [...ledger.decisions].reverse().find((line) => {
    const parsed = parseDecision(line);
    return parsed.kind === 'outcome' && parsed.row === row;
  });
  return `${cell === '' ? 'empty evidence' : cell} / ${decision ?? 'no decision line'}`;
}

function recommendationLines(stop: HumanStop): string[] {
  switch (stop.kind) {
    case 'bound-spent':
      return [BOUND_SPENT_RECOMMENDATION];
    case 'unreachable-amend': {
      const what = singleLine(stop.what);
      const cut = `Recommendation: amend cut ${stop.row} ${unreachableDisposition(what, singleLine(stop.where))}`;
      if (stop.rowText === undefined) return [cut];
      return [cut, `Out of scope entry: ${outOfScopeEntry(singleLine(stop.rowText), what)}`];
    }
    case 'spec-amend':
      return [`Recommendation: amend spec ${singleLine(stop.entry)}`];
    case 'repeated-evidence':
      return [
        `Recommendation: none - the spec already answers this evidence (${singleLine(stop.earlier)}); amend differently, redraw or stop`,
      ];
    case 'redraw':
      return [
        `Recommendation: redraw ${singleLine(stop.reason)} - a redraw stops under every approval option`,
      ];
    case 'seed-exhaustion':
      return [
        `Recommendation: rows +N - only a raised allowance permits more seed dispatches; a numbered retry leaves the seed count at ${stop.seedRepairs}`,
      ];
    case 'dirty-start':
      return [DIRTY_START_RECOMMENDATION];
    case 'closure-not-audited':
      return [...CLOSURE_NOT_AUDITED_RECOMMENDATION];
    case 'closure-carried-open':
      return [CARRIED_OPEN_RECOMMENDATION];
    default:
      return [];
  }
}

function discardObject(stop: HumanStop): string {
  if (stop.kind === 'recovery-incomplete')
    return `the unadmitted work of iteration ${stop.iteration} (${singleLine(stop.what)}) and reset to the pre-dispatch HEAD`;
  if (stop.kind === 'commit-boundary')
    return `the ${stop.problem} (${detailLine(stop.detail)}) and reset to the ledger HEAD`;
  return 'the unadmitted work';
}

function singleLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * One line, as {@link singleLine}, but a leading blank stays: a boundary or dirty-tree detail may
 * open with a porcelain line (`XY PATH`) whose blank index column says the change is unstaged.
 */
function detailLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trimEnd();
}
