/**
 * The loop ledger file: parser, serializer, checker and the `pending:` tuple
 * (gauntlet-protocol §1, decisions in docs/decisions/formats.md, format in docs/ledger-format.md).
 *
 * Round trip: for every valid ledger text, `serializeLedger(parseLedger(text).ledger) === text`
 * byte for byte, whatever its spacing, line endings, unknown header lines or unknown sections.
 * The parser records the source bytes of every line in the ledger's private `layout`; the
 * serializer writes a line from the layout while the value it carries is unchanged, renders
 * only edited elements canonically, and writes the canonical layout when there is no layout.
 */

import { describeValue } from '../common/describe-value.js';
import { InputError, LedgerFormatError } from '../common/errors.js';
import { type Finding, finding } from '../common/finding.js';
import { decisionProblem } from './decisions.js';
import { hasUnescapedPipe, splitUnescaped, unescapeEvidence } from './evidence.js';
import { homeMember, isCoordinated, legEntries, memberNames } from './leg-entries.js';
import { dispositionEvidence, isCutDisposition, LEG_NAME } from './spec.js';
import {
  HOME,
  type Ledger,
  type LedgerLegs,
  type LedgerMember,
  type LedgerRow,
  type LegMappingEntry,
  type PendingTuple,
  ROW_STATUSES,
  type RowStatus,
  type Spec,
  type Target,
} from './types.js';

/** Line 1 of a ledger unless the host configures another discriminant (§6 A1). */
export const DEFAULT_DISCRIMINANT = '# Loop ledger';

/** The gate-set mode line's default value (§6 A3). */
export const DEFAULT_CHECKS = 'commands';

/** Canonical table header (§6 A2; the parser matches columns by position, not by this text). */
export const TABLE_HEADER = '| row | status | attempts | evidence |';

/** Canonical table separator. */
export const TABLE_SEPARATOR = '|---|---|---|---|';

/** Heading of the append-only decision list. */
export const DECISIONS_HEADING = '## Decisions';

/** Heading of a coordinated ledger's row-to-leg table (§1.7). */
export const LEG_MAPPING_HEADING = '## Leg mapping';

/** Canonical `## Leg mapping` table header and separator. */
export const LEG_MAPPING_HEADER = '| row | ac | leg |';
export const LEG_MAPPING_SEPARATOR = '|---|---|---|';

// ---------------------------------------------------------------------------------------------
// pending: tuple (§1.6)

const PENDING = /^pending: ([1-9]\d*|seed|verify) \| ([^\s|]+) \| ([0-9a-f]{40})$/;

/** A full lowercase 40-hex git object name. */
export const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * Reads a `pending:` line. The tuple has one spelling only (single spaces around the pipes, a
 * full lowercase SHA) because the child's commit body must repeat it exactly.
 *
 * @param line the whole line, e.g. `pending: 3 | home | 9a8b…`; surrounding blanks are ignored.
 * @returns the tuple, or `null` when the line is not the tuple grammar.
 */
export function parsePending(line: string): PendingTuple | null {
  const m = PENDING.exec(line.trim());
  if (!m) return null;
  const raw = m[1] as string;
  const target: Target = raw === 'seed' || raw === 'verify' ? raw : Number(raw);
  if (typeof target === 'number' && !Number.isSafeInteger(target)) return null;
  return { target, repo: m[2] as string, head: m[3] as string };
}

/**
 * Why `tuple` cannot be written, or `null` when it can.
 *
 * @param tuple a tuple built by code.
 */
export function pendingProblem(tuple: PendingTuple): string | null {
  if (typeof tuple !== 'object' || tuple === null)
    return `the pending tuple must be an object with target, repo and head, got ${describeValue(tuple)}`;
  const { target, repo, head } = tuple;
  if (typeof target === 'number') {
    if (!Number.isSafeInteger(target) || target < 1)
      return `pending target ${target} is not a row number >= 1`;
  } else if (target !== 'seed' && target !== 'verify') {
    return `pending target "${describeValue(target)}" is not a row number, seed or verify`;
  }
  if (typeof repo !== 'string' || !/^[^\s|]+$/.test(repo))
    return `pending repo "${describeValue(repo)}" must be one word without pipes`;
  if (typeof head !== 'string' || !FULL_SHA.test(head))
    return `pending head "${describeValue(head)}" is not a full lowercase 40-hex SHA`;
  return null;
}

/**
 * Writes a `pending:` line.
 *
 * @param tuple target (row number, `seed` or `verify`), repo (`home` for one leg), HEAD sha.
 * @returns `pending: <target> | <repo> | <head>`.
 * @throws {InputError} `pending.invalid` when a part cannot be written ({@link pendingProblem}).
 */
export function formatPending(tuple: PendingTuple): string {
  const problem = pendingProblem(tuple);
  if (problem !== null) throw new InputError('pending.invalid', problem);
  return `pending: ${tuple.target} | ${tuple.repo} | ${tuple.head}`;
}

/** True when two tuples (or two absences) name the same dispatch. */
export function samePending(a: PendingTuple | null, b: PendingTuple | null): boolean {
  if (a === null || b === null) return a === b;
  return a.target === b.target && a.repo === b.repo && a.head === b.head;
}

// ---------------------------------------------------------------------------------------------
// Lines and layout

interface SourceLine {
  /** The line without its terminator. */
  readonly content: string;
  /** `\n`, `\r\n`, or `` for a last line without a terminator. */
  readonly eol: string;
}

function splitLines(text: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) {
      lines.push({ content: text.slice(start), eol: '' });
      break;
    }
    const crlf = nl > start && text[nl - 1] === '\r';
    lines.push({ content: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return lines;
}

type HeaderKey = 'spec' | 'base' | 'verification' | 'checks' | 'iterations' | 'allowance' | 'pending';

/** What a source line carries; the serializer keeps the line's bytes while that value is unchanged. */
type Slot =
  | { readonly kind: 'raw' }
  | { readonly kind: 'discriminant'; readonly value: string }
  | { readonly kind: 'header'; readonly key: HeaderKey; readonly value: string | number | PendingTuple }
  | { readonly kind: 'separator' }
  | { readonly kind: 'row'; readonly index: number; readonly value: LedgerRow }
  | { readonly kind: 'decisions-heading' }
  | { readonly kind: 'decision'; readonly index: number; readonly value: string }
  | {
      readonly kind: 'member';
      readonly field: 'base' | 'seeded';
      readonly name: string;
      readonly value: string | boolean;
    }
  | { readonly kind: 'mapping-heading' }
  | { readonly kind: 'mapping-header' }
  | { readonly kind: 'mapping-separator' }
  | { readonly kind: 'mapping-row'; readonly index: number; readonly value: LegMappingEntry };

interface LayoutLine extends SourceLine {
  readonly slot: Slot;
}

const LAYOUT_FORMAT = 'loopchart.ledger-layout/1';

interface LedgerLayout {
  readonly format: typeof LAYOUT_FORMAT;
  /** Line terminator for lines the serializer adds (that of line 1). */
  readonly eol: string;
  readonly lines: readonly LayoutLine[];
}

function asLayout(value: unknown): LedgerLayout | null {
  if (typeof value !== 'object' || value === null) return null;
  const layout = value as Partial<LedgerLayout>;
  if (layout.format !== LAYOUT_FORMAT || !Array.isArray(layout.lines) || typeof layout.eol !== 'string')
    return null;
  return layout as LedgerLayout;
}

const RAW: Slot = { kind: 'raw' };

// ---------------------------------------------------------------------------------------------
// Line grammar shared by the parser and the value checks

const HEADING = /^#{1,6}(?:[ \t]|$)/;
const DECISIONS_HEADING_LINE = /^##[ \t]+Decisions[ \t]*$/;
const LEG_MAPPING_HEADING_LINE = /^##[ \t]+Leg mapping[ \t]*$/;
/** `base <member>: <sha>` / `seeded <member>: yes|no` (coordinated runs, §1.2). */
const MEMBER_LINE = /^(base|seeded)[ \t]+([^\s:]+)[ \t]*:(.*)$/s;
// `s`: values may hold U+2028/U+2029, which `.` would not match; only \n ends a line here.
const SPEC_LINE = /^\*\*Spec:\*\*(.*)$/s;
const KEY_LINE = /^(base|verification|checks|iterations|allowance|pending|cap):(.*)$/s;
const COUNTER = /^\d+$/;
const SEPARATOR_CELL = /^:?-+:?$/;

/** Headers in the order §1.2 requires (`pending:` may sit anywhere in the header block, §6 A26). */
const HEADER_ORDER: readonly Exclude<HeaderKey, 'pending'>[] = [
  'spec',
  'base',
  'verification',
  'checks',
  'iterations',
  'allowance',
];

const HEADER_LABEL: Record<HeaderKey, string> = {
  spec: '**Spec:**',
  base: 'base:',
  verification: 'verification:',
  checks: 'checks:',
  iterations: 'iterations:',
  allowance: 'allowance:',
  pending: 'pending:',
};

function isTableLine(content: string): boolean {
  return content.trimStart().startsWith('|');
}

function isBlank(content: string): boolean {
  return content.trim() === '';
}

/** Splits a table line into its cells (untrimmed); `closed` is false without a final pipe. */
function splitTableLine(content: string): { cells: string[]; closed: boolean } {
  const parts = splitUnescaped(content.trim().slice(1), '|');
  const closed = parts.length > 1 && parts[parts.length - 1] === '';
  if (closed) parts.pop();
  return { cells: parts, closed };
}

function singleLineProblem(name: string, value: unknown, allowEmpty = false): string | null {
  if (typeof value !== 'string') return `${name} must be text`;
  if (!allowEmpty && value === '') return `${name} is empty`;
  if (/[\r\n]/.test(value)) return `${name} spans more than one line`;
  if (value !== value.trim()) return `${name} has leading or trailing blanks`;
  return null;
}

/** Why a `**Spec:**` value is not a bare repo-relative path (§1.2), or `null`. */
function specPathProblem(value: unknown): string | null {
  const problem = singleLineProblem('the **Spec:** path', value);
  if (problem !== null || typeof value !== 'string') return problem;
  if (/[`§]/.test(value))
    return 'the **Spec:** header takes the bare repo-relative path, without backticks or anchors';
  if (value.startsWith('/') || /^[A-Za-z]:[\\/]/.test(value))
    return 'the **Spec:** path must be repo-relative, not absolute';
  return null;
}

function counterProblem(name: string, value: unknown): string | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
    ? null
    : `${name} must be an integer >= 0`;
}

function evidenceCellProblem(value: unknown): string | null {
  const problem = singleLineProblem('evidence', value, true);
  if (problem !== null || typeof value !== 'string') return problem;
  if (hasUnescapedPipe(value)) return 'evidence contains an unescaped pipe (write it as \\|)';
  return null;
}

function decisionLineProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'decision must be text';
  if (isBlank(value)) return 'decision line is blank';
  if (/[\r\n]/.test(value)) return 'decision spans more than one line';
  if (HEADING.test(value)) return 'decision line would read as a markdown heading';
  return null;
}

function preview(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

// ---------------------------------------------------------------------------------------------
// Parser

/** Options of {@link parseLedger}. */
export interface ParseLedgerOptions {
  /** Expected line 1 (default `# Loop ledger`). */
  readonly discriminant?: string;
}

/** Result of {@link parseLedger}: the ledger when the text has no finding, else `null`. */
export interface ParsedLedger {
  readonly ledger: Ledger | null;
  readonly findings: Finding[];
}

/**
 * Parses a ledger file (§1.2-§1.5). Never throws.
 *
 * @param text the file's bytes as a string (LF or CRLF; a final newline is optional).
 * @param options the expected line-1 discriminant.
 * @returns the ledger with its private layout and no findings, or `null` and one finding per
 *   problem (1-based line, reason, code `ledger.*`). Unknown header lines and unknown sections
 *   are kept, never findings.
 */
export function parseLedger(text: string, options: ParseLedgerOptions = {}): ParsedLedger {
  try {
    return parseLedgerLines(text, options.discriminant ?? DEFAULT_DISCRIMINANT);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ledger: null,
      findings: [finding('ledger.internal', 0, `the ledger parser failed: ${message}`)],
    };
  }
}

interface HeaderValues {
  spec?: string;
  base?: string;
  verification?: string;
  checks?: string;
  iterations?: number;
  allowance?: number;
  pending?: PendingTuple;
}

function parseLedgerLines(text: string, discriminant: string): ParsedLedger {
  const source = splitLines(typeof text === 'string' ? text : '');
  if (source.length === 0)
    return { ledger: null, findings: [finding('ledger.empty', 0, 'the ledger is empty')] };

  const findings: Finding[] = [];
  const slots: Slot[] = source.map(() => RAW);

  source.forEach((line, index) => {
    if (line.content.includes('\r'))
      findings.push(
        finding(
          'ledger.line.carriage-return',
          index + 1,
          'line contains a carriage return that is not part of a CRLF line ending',
        ),
      );
  });

  // Line 1: the discriminant.
  const first = (source[0] as SourceLine).content;
  if (first.trim() === discriminant) {
    slots[0] = { kind: 'discriminant', value: discriminant };
  } else {
    const bom = first.startsWith('\uFEFF') ? ' (the file starts with a byte-order mark)' : '';
    findings.push(
      finding('ledger.discriminant', 1, `line 1 must be "${discriminant}", found "${preview(first)}"${bom}`),
    );
  }

  // Header block: from line 2 up to the table or the first heading.
  const values: HeaderValues = {};
  const seenAt = new Map<HeaderKey, number>();
  const members = new Map<string, { base?: string; seeded?: boolean; baseAt?: number; seededAt?: number }>();
  let latest: { key: HeaderKey; order: number } | null = null;
  let i = 1;
  for (; i < source.length; i++) {
    const content = (source[i] as SourceLine).content;
    if (isTableLine(content) || HEADING.test(content)) break;
    const lineNo = i + 1;
    let key: HeaderKey | 'cap' | null = null;
    let raw = '';
    const spec = SPEC_LINE.exec(content);
    const keyed = KEY_LINE.exec(content);
    if (spec) {
      key = 'spec';
      raw = (spec[1] as string).trim();
    } else if (keyed) {
      key = keyed[1] as HeaderKey | 'cap';
      raw = (keyed[2] as string).trim();
    }
    if (key === null) {
      const member = MEMBER_LINE.exec(content);
      if (member) parseMemberLine(member, i, slots, members, findings);
      continue; // blank or unknown header line: kept verbatim
    }
    if (key === 'cap') {
      findings.push(
        finding(
          'ledger.allowance.cap',
          lineNo,
          'legacy `cap:` line: ledger has no allowance: line - resume through /skill:gauntlet-resume (loop: migrate allowance)',
        ),
      );
      continue;
    }
    const earlier = seenAt.get(key);
    if (earlier !== undefined) {
      findings.push(
        finding(
          'ledger.header.duplicate',
          lineNo,
          `${HEADER_LABEL[key]} appears again (first on line ${earlier})`,
        ),
      );
      continue;
    }
    seenAt.set(key, lineNo);
    if (key !== 'pending') {
      const order = HEADER_ORDER.indexOf(key);
      if (latest !== null && order < latest.order) {
        findings.push(
          finding(
            'ledger.header.order',
            lineNo,
            `${HEADER_LABEL[key]} must come before ${HEADER_LABEL[latest.key]} (order: ${HEADER_ORDER.map((k) => HEADER_LABEL[k]).join(', ')})`,
          ),
        );
      } else {
        latest = { key, order };
      }
    }
    const value = parseHeaderValue(key, raw, content, lineNo, findings);
    if (value !== undefined) {
      (values as Record<string, unknown>)[key] = value;
      slots[i] = { kind: 'header', key, value };
    }
  }

  for (const key of HEADER_ORDER) {
    if (seenAt.has(key)) continue;
    if (key === 'allowance')
      findings.push(
        finding(
          'ledger.allowance.missing',
          0,
          'ledger has no allowance: line - resume through /skill:gauntlet-resume',
        ),
      );
    else findings.push(finding('ledger.header.missing', 0, `the ${HEADER_LABEL[key]} header is missing`));
  }
  const iterationsAt = seenAt.get('iterations');
  const allowanceAt = seenAt.get('allowance');
  if (iterationsAt !== undefined && allowanceAt !== undefined && allowanceAt !== iterationsAt + 1)
    findings.push(
      finding(
        'ledger.allowance.position',
        allowanceAt,
        `allowance: must be the line right after iterations: (line ${iterationsAt + 1})`,
      ),
    );

  const memberList = memberFindings(members, findings);

  // Row table.
  const rows: LedgerRow[] = [];
  if (i < source.length && isTableLine((source[i] as SourceLine).content)) {
    i = parseTable(source, i, slots, rows, findings);
  } else {
    findings.push(
      finding(
        'ledger.table.missing',
        i < source.length ? i + 1 : 0,
        'the four-column row table (| row | status | attempts | evidence |) is missing after the header lines',
      ),
    );
  }

  // Sections after the table: `## Decisions` and any unknown section, kept verbatim.
  const decisions: string[] = [];
  const mapping: LegMappingEntry[] = [];
  let section: 'none' | 'decisions' | 'other' = 'none';
  let decisionsAt: number | null = null;
  let mappingAt: number | null = null;
  for (; i < source.length; i++) {
    const content = (source[i] as SourceLine).content;
    const lineNo = i + 1;
    if (LEG_MAPPING_HEADING_LINE.test(content)) {
      section = 'other';
      if (mappingAt !== null) {
        findings.push(
          finding(
            'ledger.legs.mapping-duplicate',
            lineNo,
            `a second ## Leg mapping section (first on line ${mappingAt})`,
          ),
        );
        continue;
      }
      mappingAt = lineNo;
      slots[i] = { kind: 'mapping-heading' };
      let next = i + 1;
      while (next < source.length && isBlank((source[next] as SourceLine).content)) next++;
      if (next < source.length && isTableLine((source[next] as SourceLine).content)) {
        i = parseMappingTable(source, next, slots, mapping, findings) - 1;
      } else {
        findings.push(
          finding(
            'ledger.legs.mapping-table',
            lineNo,
            'the ## Leg mapping section has no | row | ac | leg | table',
          ),
        );
      }
    } else if (DECISIONS_HEADING_LINE.test(content)) {
      if (decisionsAt === null) {
        decisionsAt = lineNo;
        slots[i] = { kind: 'decisions-heading' };
        section = 'decisions';
      } else {
        findings.push(
          finding(
            'ledger.decisions.duplicate',
            lineNo,
            `a second ## Decisions section (first on line ${decisionsAt})`,
          ),
        );
        section = 'other';
      }
    } else if (HEADING.test(content)) {
      section = 'other';
    } else if (section === 'decisions') {
      if (!isBlank(content)) {
        slots[i] = { kind: 'decision', index: decisions.length, value: content };
        decisions.push(content);
      }
    } else if (section === 'none' && isTableLine(content)) {
      findings.push(
        finding(
          'ledger.table.split',
          lineNo,
          'table line after the row table ended (remove the blank line inside the table)',
        ),
      );
    }
  }
  if (decisionsAt === null)
    findings.push(finding('ledger.decisions.missing', 0, 'the ## Decisions section is missing'));
  if (memberList.length > 0 && mappingAt === null)
    findings.push(
      finding(
        'ledger.legs.mapping-missing',
        0,
        'the ledger names its members (base <member>: / seeded <member>:) but has no ## Leg mapping section',
      ),
    );
  if (memberList.length === 0 && mappingAt !== null)
    findings.push(
      finding(
        'ledger.legs.members-missing',
        mappingAt,
        'a ## Leg mapping section without base <member>: / seeded <member>: header pairs',
      ),
    );

  if (findings.length > 0) return { ledger: null, findings };
  const legs: LedgerLegs | undefined = memberList.length > 0 ? { members: memberList, mapping } : undefined;
  if (legs !== undefined) {
    const problems = legsValueFindings(legs, rows.length, values.pending ?? null);
    if (problems.length > 0) return { ledger: null, findings: problems };
  } else if (values.pending !== undefined && values.pending.repo !== HOME) {
    const problem = singleLegPendingProblem(values.pending);
    return { ledger: null, findings: [finding('ledger.pending.repo', seenAt.get('pending') ?? 0, problem)] };
  }

  const firstEol = (source[0] as SourceLine).eol;
  const layout: LedgerLayout = {
    format: LAYOUT_FORMAT,
    eol: firstEol === '' ? '\n' : firstEol,
    lines: source.map((line, index) => ({ ...line, slot: slots[index] as Slot })),
  };
  const ledger: Ledger = {
    discriminant,
    spec: values.spec as string,
    base: values.base as string,
    verification: values.verification as string,
    checks: values.checks as string,
    iterations: values.iterations as number,
    allowance: values.allowance as number,
    pending: values.pending ?? null,
    rows,
    decisions,
    ...(legs === undefined ? {} : { legs }),
    layout,
  };
  return { ledger, findings: [] };
}

type MemberDraft = { base?: string; seeded?: boolean; baseAt?: number; seededAt?: number };

/** Reads one `base <member>:` / `seeded <member>:` header line into its draft and its slot. */
function parseMemberLine(
  match: RegExpExecArray,
  index: number,
  slots: Slot[],
  members: Map<string, MemberDraft>,
  findings: Finding[],
): void {
  const lineNo = index + 1;
  const field = match[1] as 'base' | 'seeded';
  const name = match[2] as string;
  const raw = (match[3] as string).trim();
  if (!LEG_NAME.test(name)) {
    findings.push(
      finding(
        'ledger.legs.name',
        lineNo,
        `member name "${preview(name)}" must be lowercase letters, digits, ".", "_" or "-"`,
      ),
    );
    return;
  }
  const draft = members.get(name) ?? {};
  members.set(name, draft);
  const earlier = field === 'base' ? draft.baseAt : draft.seededAt;
  if (earlier !== undefined) {
    findings.push(
      finding('ledger.legs.duplicate', lineNo, `${field} ${name}: appears again (first on line ${earlier})`),
    );
    return;
  }
  if (field === 'base') {
    draft.baseAt = lineNo;
    if (!FULL_SHA.test(raw)) {
      findings.push(
        finding(
          'ledger.legs.base',
          lineNo,
          `base ${name}: must be a full lowercase 40-hex SHA, found "${preview(raw)}"`,
        ),
      );
      return;
    }
    draft.base = raw;
    slots[index] = { kind: 'member', field, name, value: raw };
  } else {
    draft.seededAt = lineNo;
    if (raw !== 'yes' && raw !== 'no') {
      findings.push(
        finding('ledger.legs.seeded', lineNo, `seeded ${name}: must be yes or no, found "${preview(raw)}"`),
      );
      return;
    }
    draft.seeded = raw === 'yes';
    slots[index] = { kind: 'member', field, name, value: draft.seeded };
  }
}

/** The members in order of first appearance; a member needs both lines, and a run two members. */
function memberFindings(members: Map<string, MemberDraft>, findings: Finding[]): LedgerMember[] {
  const list: LedgerMember[] = [];
  for (const [name, draft] of members) {
    if (draft.baseAt === undefined || draft.seededAt === undefined) {
      findings.push(
        finding(
          'ledger.legs.pair',
          draft.baseAt ?? draft.seededAt ?? 0,
          `member ${name} needs both "base ${name}: <sha>" and "seeded ${name}: yes|no"`,
        ),
      );
      continue;
    }
    if (draft.base !== undefined && draft.seeded !== undefined)
      list.push({ name, base: draft.base, seeded: draft.seeded });
  }
  if (members.size === 1)
    findings.push(
      finding(
        'ledger.legs.single-member',
        0,
        'a single-member run carries no coordinated metadata: remove the base <member>: / seeded <member>: lines',
      ),
    );
  return list;
}

/** Parses the `| row | ac | leg |` table starting at `start`; returns the index after it. */
function parseMappingTable(
  source: readonly SourceLine[],
  start: number,
  slots: Slot[],
  mapping: LegMappingEntry[],
  findings: Finding[],
): number {
  let i = start;
  const head = splitTableLine((source[i] as SourceLine).content);
  if (head.closed && head.cells.length === 3) slots[i] = { kind: 'mapping-header' };
  else
    findings.push(
      finding(
        'ledger.legs.mapping-header',
        i + 1,
        `the leg mapping header must have three cells (row, ac, leg), found ${head.cells.length}`,
      ),
    );
  i++;
  const sep = source[i];
  const sepCells = sep !== undefined && isTableLine(sep.content) ? splitTableLine(sep.content) : null;
  if (
    sepCells?.closed &&
    sepCells.cells.length === 3 &&
    sepCells.cells.every((cell) => SEPARATOR_CELL.test(cell.trim()))
  ) {
    slots[i] = { kind: 'mapping-separator' };
    i++;
  } else {
    findings.push(
      finding(
        'ledger.legs.mapping-separator',
        Math.min(i + 1, source.length),
        'the leg mapping separator line (|---|---|---|) is missing',
      ),
    );
  }
  let position = 0;
  for (; i < source.length; i++) {
    const content = (source[i] as SourceLine).content;
    if (!isTableLine(content)) break;
    position++;
    const lineNo = i + 1;
    const { cells, closed } = splitTableLine(content);
    if (!closed || cells.length !== 3) {
      findings.push(
        finding(
          'ledger.legs.mapping-cells',
          lineNo,
          'a leg mapping line has three cells: | row | ac | leg |',
        ),
      );
      continue;
    }
    const [row, ac, leg] = cells.map((cell) => cell.trim()) as [string, string, string];
    if (!COUNTER.test(row) || Number(row) !== position) {
      findings.push(
        finding(
          'ledger.legs.mapping-row',
          lineNo,
          `expected mapping for row ${position}, found "${preview(row)}" (every row is mapped exactly once, in order)`,
        ),
      );
      continue;
    }
    if (!COUNTER.test(ac) || Number(ac) < 1) {
      findings.push(
        finding(
          'ledger.legs.mapping-ac',
          lineNo,
          `ac "${preview(ac)}" is not an acceptance criterion number`,
        ),
      );
      continue;
    }
    if (!LEG_NAME.test(leg)) {
      findings.push(finding('ledger.legs.mapping-leg', lineNo, `leg "${preview(leg)}" is not a member name`));
      continue;
    }
    const entry: LegMappingEntry = { row: position, ac: Number(ac), leg };
    slots[i] = { kind: 'mapping-row', index: mapping.length, value: entry };
    mapping.push(entry);
  }
  return i;
}

/** What makes a coordinated part unwritable or inconsistent with the row table (line 0). */
function legsValueFindings(legs: LedgerLegs, rowCount: number, pending: PendingTuple | null): Finding[] {
  const findings: Finding[] = [];
  const add = (code: string, reason: string): void => {
    findings.push(finding(code, 0, reason));
  };
  if (!Array.isArray(legs.members) || !Array.isArray(legs.mapping)) {
    add('ledger.value.shape', 'legs must hold a list of members and a list of mapping entries');
    return findings;
  }
  const names = new Set<string>();
  legs.members.forEach((member, index) => {
    if (typeof member?.name !== 'string' || !LEG_NAME.test(member.name))
      add('ledger.legs.name', `member ${index + 1} has the name ${describeValue(member?.name)}`);
    else if (names.has(member.name)) add('ledger.legs.duplicate', `member ${member.name} appears twice`);
    else names.add(member.name);
    if (typeof member?.base !== 'string' || !FULL_SHA.test(member.base))
      add(
        'ledger.legs.base',
        `member ${describeValue(member?.name)}: base must be a full lowercase 40-hex SHA`,
      );
    if (typeof member?.seeded !== 'boolean')
      add('ledger.legs.seeded', `member ${describeValue(member?.name)}: seeded must be true or false`);
  });
  if (legs.members.length < 2)
    add(
      'ledger.legs.single-member',
      'a coordinated ledger has at least two members; a single leg carries no coordinated metadata',
    );
  if (legs.mapping.length !== rowCount)
    add(
      'ledger.legs.mapping-count',
      `the leg mapping has ${legs.mapping.length} entries for ${rowCount} rows (every row exactly once)`,
    );
  if (pending !== null && typeof pending === 'object' && !names.has(pending.repo))
    add(
      'ledger.legs.pending-repo',
      `the pending tuple names ${describeValue(pending.repo)}, which is not a member (${[...names].join(', ')})`,
    );
  legs.mapping.forEach((entry, index) => {
    if (entry?.row !== index + 1)
      add('ledger.legs.mapping-row', `mapping entry ${index + 1} is for row ${describeValue(entry?.row)}`);
    if (!Number.isSafeInteger(entry?.ac) || entry.ac < 1)
      add('ledger.legs.mapping-ac', `mapping entry ${index + 1} has ac ${describeValue(entry?.ac)}`);
    if (typeof entry?.leg !== 'string' || !names.has(entry.leg))
      add(
        'ledger.legs.unknown-leg',
        `row ${index + 1} is mapped to ${describeValue(entry?.leg)}, which is not a member`,
      );
  });
  return findings;
}

/** The canonical `base <member>:` or `seeded <member>:` line. */
function memberLine(member: LedgerMember, field: 'base' | 'seeded'): string {
  return field === 'base'
    ? `base ${member.name}: ${member.base}`
    : `seeded ${member.name}: ${member.seeded ? 'yes' : 'no'}`;
}

/** The canonical text of one `## Leg mapping` line. */
export function formatLegMappingRow(entry: LegMappingEntry): string {
  return `| ${entry.row} | ${entry.ac} | ${entry.leg} |`;
}

function parseHeaderValue(
  key: HeaderKey,
  raw: string,
  content: string,
  lineNo: number,
  findings: Finding[],
): string | number | PendingTuple | undefined {
  const fail = (code: string, reason: string): undefined => {
    findings.push(finding(code, lineNo, reason));
    return undefined;
  };
  switch (key) {
    case 'spec': {
      const problem = specPathProblem(raw);
      return problem === null ? raw : fail('ledger.header.spec', problem);
    }
    case 'base':
      return FULL_SHA.test(raw)
        ? raw
        : fail('ledger.header.base', `base: must be a full lowercase 40-hex SHA, found "${preview(raw)}"`);
    case 'verification':
    case 'checks':
      return raw === '' ? fail('ledger.header.empty', `${HEADER_LABEL[key]} has no value`) : raw;
    case 'iterations':
    case 'allowance': {
      const n = Number(raw);
      return COUNTER.test(raw) && Number.isSafeInteger(n)
        ? n
        : fail(
            'ledger.header.not-integer',
            `${HEADER_LABEL[key]} must be a non-negative integer, found "${preview(raw)}"`,
          );
    }
    case 'pending': {
      const tuple = parsePending(content);
      return (
        tuple ??
        fail(
          'ledger.pending.malformed',
          `pending: must read "pending: <row|seed|verify> | <repo> | <40-hex sha>", found "${preview(content)}"`,
        )
      );
    }
  }
}

/** Parses the table starting at `start`; returns the index of the first line after it. */
function parseTable(
  source: readonly SourceLine[],
  start: number,
  slots: Slot[],
  rows: LedgerRow[],
  findings: Finding[],
): number {
  let i = start;
  const head = splitTableLine((source[i] as SourceLine).content);
  if (!head.closed || head.cells.length !== 4)
    findings.push(
      finding(
        'ledger.table.header',
        i + 1,
        `the table header must have four cells (row, status, attempts, evidence), found ${head.cells.length}${head.closed ? '' : ' and no closing pipe'}`,
      ),
    );
  i++;

  const sepLine = source[i];
  if (sepLine !== undefined && isTableLine(sepLine.content)) {
    const sep = splitTableLine(sepLine.content);
    const cells = sep.cells.map((cell) => cell.trim());
    if (sep.closed && cells.length === 4 && cells.every((cell) => SEPARATOR_CELL.test(cell))) {
      slots[i] = { kind: 'separator' };
      i++;
    } else if (cells.every((cell) => /^[-:\s]*$/.test(cell))) {
      findings.push(
        finding(
          'ledger.table.separator',
          i + 1,
          'the table separator must be four cells of dashes, e.g. |---|---|---|---|',
        ),
      );
      i++;
    } else {
      findings.push(
        finding('ledger.table.separator', i + 1, 'the table separator line (|---|---|---|---|) is missing'),
      );
    }
  } else {
    // At the end of the file there is no line i + 1: name the last line instead.
    findings.push(
      finding(
        'ledger.table.separator',
        Math.min(i + 1, source.length),
        'the table separator line (|---|---|---|---|) is missing',
      ),
    );
  }

  let position = 0;
  for (; i < source.length; i++) {
    const content = (source[i] as SourceLine).content;
    if (!isTableLine(content)) break;
    position++;
    const lineNo = i + 1;
    const { cells, closed } = splitTableLine(content);
    if (!closed) {
      findings.push(
        finding(
          'ledger.table.cells',
          lineNo,
          'table row must end with a pipe (is the last pipe escaped by a backslash?)',
        ),
      );
      continue;
    }
    if (cells.length > 4) {
      findings.push(
        finding(
          'ledger.table.unescaped-pipe',
          lineNo,
          `table row has ${cells.length} cells instead of 4: escape literal pipes in the evidence as \\|`,
        ),
      );
      continue;
    }
    if (cells.length < 4) {
      findings.push(
        finding(
          'ledger.table.cells',
          lineNo,
          `table row has ${cells.length} cells instead of 4 (row, status, attempts, evidence)`,
        ),
      );
      continue;
    }
    const [id, status, attempts, evidence] = cells.map((cell) => cell.trim()) as [
      string,
      string,
      string,
      string,
    ];
    let ok = true;
    if (!COUNTER.test(id) || Number(id) !== position) {
      findings.push(
        finding(
          'ledger.table.row-number',
          lineNo,
          `expected row ${position}, found "${preview(id)}" (rows are numbered 1..N in spec order without gaps)`,
        ),
      );
      ok = false;
    }
    if (!(ROW_STATUSES as readonly string[]).includes(status)) {
      findings.push(
        finding(
          'ledger.table.status',
          lineNo,
          `status "${preview(status)}" is not one of ${ROW_STATUSES.join(', ')}`,
        ),
      );
      ok = false;
    }
    if (!COUNTER.test(attempts) || !Number.isSafeInteger(Number(attempts))) {
      findings.push(
        finding(
          'ledger.table.attempts',
          lineNo,
          `attempts "${preview(attempts)}" is not a non-negative integer`,
        ),
      );
      ok = false;
    }
    if (ok) {
      const row: LedgerRow = {
        row: position,
        status: status as RowStatus,
        attempts: Number(attempts),
        evidence,
      };
      slots[i] = { kind: 'row', index: rows.length, value: row };
      rows.push(row);
    }
  }
  return i;
}

// ---------------------------------------------------------------------------------------------
// Serializer

/** The canonical text of one table row. */
export function formatLedgerRow(row: LedgerRow): string {
  return `| ${row.row} | ${row.status} | ${row.attempts} | ${row.evidence} |`;
}

function headerValue(ledger: Ledger, key: Exclude<HeaderKey, 'pending'>): string | number {
  return ledger[key];
}

function headerLine(ledger: Ledger, key: Exclude<HeaderKey, 'pending'>): string {
  return `${HEADER_LABEL[key]} ${headerValue(ledger, key)}`;
}

function sameRow(a: LedgerRow, b: LedgerRow): boolean {
  return a.row === b.row && a.status === b.status && a.attempts === b.attempts && a.evidence === b.evidence;
}

/**
 * Writes a ledger. With the layout from {@link parseLedger}, every line whose value is unchanged
 * keeps its source bytes and only edited elements are rendered canonically (added rows after the
 * last row, added decisions after the last decision, a new `pending:` line right after
 * `allowance:`, a removed one dropped). Without a layout it writes the canonical layout
 * (docs/ledger-format.md).
 *
 * @param ledger the ledger; values must be writable (see {@link checkLedger}).
 * @returns the file text.
 * @throws {LedgerFormatError} `ledger.malformed` when a value cannot be written (for example an
 *   evidence cell with an unescaped pipe or a line break, or rows not numbered 1..N).
 */
export function serializeLedger(ledger: Ledger): string {
  const problems = ledgerValueFindings(ledger);
  if (problems.length > 0) throw new LedgerFormatError(problems);
  const layout = asLayout(ledger.layout);
  return layout === null ? renderCanonical(ledger) : renderWithLayout(ledger, layout);
}

function renderCanonical(ledger: Ledger): string {
  const members = ledger.legs?.members ?? [];
  const headers = HEADER_ORDER.flatMap((key) =>
    key === 'base'
      ? [headerLine(ledger, key), ...members.flatMap((m) => [memberLine(m, 'base'), memberLine(m, 'seeded')])]
      : [headerLine(ledger, key)],
  );
  const lines = [
    ledger.discriminant,
    ...headers,
    ...(ledger.pending === null ? [] : [formatPending(ledger.pending)]),
    '',
    TABLE_HEADER,
    TABLE_SEPARATOR,
    ...ledger.rows.map(formatLedgerRow),
    '',
    ...(ledger.legs === undefined ? [] : mappingSection(ledger.legs)),
    DECISIONS_HEADING,
    ...(ledger.decisions.length > 0 ? ['', ...ledger.decisions] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** `## Leg mapping`, a blank line, the table and a closing blank line. */
function mappingSection(legs: LedgerLegs): string[] {
  return [
    LEG_MAPPING_HEADING,
    '',
    LEG_MAPPING_HEADER,
    LEG_MAPPING_SEPARATOR,
    ...legs.mapping.map(formatLegMappingRow),
    '',
  ];
}

function renderWithLayout(ledger: Ledger, layout: LedgerLayout): string {
  const out: { content: string; eol: string }[] = [];
  const push = (content: string, eol: string): void => {
    const last = out[out.length - 1];
    if (last !== undefined && last.eol === '') {
      // Text added after a last line without a terminator: keep "no final newline".
      last.eol = layout.eol;
      out.push({ content, eol: '' });
    } else {
      out.push({ content, eol });
    }
  };

  const lines = layout.lines;
  const indexOf = (kind: Slot['kind']): number[] =>
    lines.flatMap((line, index) => (line.slot.kind === kind ? [index] : []));
  const rowSlots = indexOf('row');
  const decisionSlots = indexOf('decision');
  const memberSlots = indexOf('member');
  const mappingSlots = indexOf('mapping-row');
  const lastMemberSlot = memberSlots[memberSlots.length - 1] ?? -1;
  const lastMappingSlot = mappingSlots[mappingSlots.length - 1] ?? -1;
  const layoutMembers = new Set(
    memberSlots.map((index) => ((lines[index] as LayoutLine).slot as { name: string }).name),
  );
  const legs = ledger.legs;
  const memberByName = new Map((legs?.members ?? []).map((member) => [member.name, member]));
  const addedMembers = (legs?.members ?? []).filter((member) => !layoutMembers.has(member.name));
  const hasMappingSection = lines.some((line) => line.slot.kind === 'mapping-heading');
  const pushMembers = (members: readonly LedgerMember[]): void => {
    for (const member of members) {
      push(memberLine(member, 'base'), layout.eol);
      push(memberLine(member, 'seeded'), layout.eol);
    }
  };
  const hasPendingLine = lines.some((line) => line.slot.kind === 'header' && line.slot.key === 'pending');
  const lastRowSlot = rowSlots[rowSlots.length - 1] ?? -1;
  const lastDecisionSlot = decisionSlots[decisionSlots.length - 1] ?? -1;

  // Where decisions added to a ledger without any go: after the heading and its blank lines.
  let decisionsAnchor = -1;
  let anchorNeedsBlank = false;
  if (decisionSlots.length === 0) {
    const heading = lines.findIndex((line) => line.slot.kind === 'decisions-heading');
    decisionsAnchor = heading;
    while (
      decisionsAnchor + 1 < lines.length &&
      (lines[decisionsAnchor + 1] as LayoutLine).slot.kind === 'raw' &&
      isBlank((lines[decisionsAnchor + 1] as LayoutLine).content)
    )
      decisionsAnchor++;
    anchorNeedsBlank = decisionsAnchor === heading;
  }

  lines.forEach((line, index) => {
    const { slot, content, eol } = line;
    switch (slot.kind) {
      case 'raw':
        push(content, eol);
        break;
      case 'decisions-heading':
        // A layout without a mapping section gains one right before ## Decisions.
        if (legs !== undefined && !hasMappingSection)
          for (const line of mappingSection(legs)) push(line, layout.eol);
        push(content, eol);
        break;
      case 'discriminant':
        push(ledger.discriminant === slot.value ? content : ledger.discriminant, eol);
        break;
      case 'header':
        if (slot.key === 'pending') {
          if (ledger.pending !== null)
            push(
              samePending(ledger.pending, slot.value as PendingTuple)
                ? content
                : formatPending(ledger.pending),
              eol,
            );
        } else {
          push(headerValue(ledger, slot.key) === slot.value ? content : headerLine(ledger, slot.key), eol);
          if (slot.key === 'allowance' && !hasPendingLine && ledger.pending !== null)
            push(formatPending(ledger.pending), layout.eol);
          // A layout without member lines gains them right after base: (the canonical place).
          if (slot.key === 'base' && lastMemberSlot === -1) pushMembers(addedMembers);
        }
        break;
      case 'member': {
        const member = memberByName.get(slot.name);
        if (member !== undefined) {
          const value = slot.field === 'base' ? member.base : member.seeded;
          push(value === slot.value ? content : memberLine(member, slot.field), eol);
        }
        if (index === lastMemberSlot) pushMembers(addedMembers);
        break;
      }
      case 'mapping-heading':
      case 'mapping-header':
        if (legs !== undefined) push(content, eol);
        break;
      case 'mapping-separator':
        if (legs !== undefined) {
          push(content, eol);
          if (mappingSlots.length === 0)
            for (const entry of legs.mapping) push(formatLegMappingRow(entry), layout.eol);
        }
        break;
      case 'mapping-row': {
        const entry = legs?.mapping[slot.index];
        if (entry !== undefined)
          push(
            entry.row === slot.value.row && entry.ac === slot.value.ac && entry.leg === slot.value.leg
              ? content
              : formatLegMappingRow(entry),
            eol,
          );
        if (index === lastMappingSlot && legs !== undefined)
          for (const added of legs.mapping.slice(mappingSlots.length))
            push(formatLegMappingRow(added), layout.eol);
        break;
      }
      case 'separator':
        push(content, eol);
        if (rowSlots.length === 0) for (const row of ledger.rows) push(formatLedgerRow(row), layout.eol);
        break;
      case 'row': {
        const row = ledger.rows[slot.index];
        if (row !== undefined) push(sameRow(row, slot.value) ? content : formatLedgerRow(row), eol);
        if (index === lastRowSlot)
          for (const added of ledger.rows.slice(rowSlots.length)) push(formatLedgerRow(added), layout.eol);
        break;
      }
      case 'decision': {
        const decision = ledger.decisions[slot.index];
        if (decision !== undefined) push(decision, eol);
        if (index === lastDecisionSlot)
          for (const added of ledger.decisions.slice(decisionSlots.length)) push(added, layout.eol);
        break;
      }
    }
    if (index === decisionsAnchor && ledger.decisions.length > 0) {
      if (anchorNeedsBlank) push('', layout.eol);
      for (const added of ledger.decisions) push(added, layout.eol);
    }
  });
  return out.map((line) => line.content + line.eol).join('');
}

// ---------------------------------------------------------------------------------------------
// Checks

/** Findings for values the serializer cannot write (line 0: a built ledger has no lines). */
/**
 * Shape problems that make every other check unreadable: a value that is not an object, rows or
 * decisions that are not lists, a row that is not an object, a decision that is not a string. A
 * ledger built in code by a caller without types gets these findings instead of a TypeError.
 */
function shapeFindings(ledger: unknown): Finding[] {
  const shape = (reason: string) => finding('ledger.value.shape', 0, reason);
  if (typeof ledger !== 'object' || ledger === null) return [shape('the ledger is not an object')];
  const { rows, decisions } = ledger as { rows?: unknown; decisions?: unknown };
  const findings: Finding[] = [];
  if (!Array.isArray(rows)) findings.push(shape('rows must be a list of rows'));
  else
    rows.forEach((row: unknown, index) => {
      if (typeof row !== 'object' || row === null) findings.push(shape(`row ${index + 1} is not an object`));
    });
  if (!Array.isArray(decisions)) findings.push(shape('decisions must be a list of lines'));
  else
    decisions.forEach((line: unknown, index) => {
      if (typeof line !== 'string') findings.push(shape(`decision ${index + 1} is not a string`));
    });
  return findings;
}

function ledgerValueFindings(ledger: Ledger): Finding[] {
  const shape = shapeFindings(ledger);
  if (shape.length > 0) return shape;
  const findings: Finding[] = [];
  const add = (code: string, reason: string | null): void => {
    if (reason !== null) findings.push(finding(code, 0, reason));
  };
  add('ledger.discriminant', singleLineProblem('the discriminant', ledger.discriminant));
  add('ledger.header.spec', specPathProblem(ledger.spec));
  add(
    'ledger.header.base',
    typeof ledger.base === 'string' && FULL_SHA.test(ledger.base)
      ? null
      : 'base must be a full lowercase 40-hex SHA',
  );
  add('ledger.header.empty', singleLineProblem('verification', ledger.verification));
  add('ledger.header.empty', singleLineProblem('checks', ledger.checks));
  add('ledger.header.not-integer', counterProblem('iterations', ledger.iterations));
  add('ledger.header.not-integer', counterProblem('allowance', ledger.allowance));
  if (ledger.pending !== null) add('ledger.pending.malformed', pendingProblem(ledger.pending));
  ledger.rows.forEach((row, index) => {
    const where = `row ${index + 1}`;
    if (row.row !== index + 1)
      add(
        'ledger.table.row-number',
        `${where} is numbered ${describeValue(row.row)}; rows are numbered 1..N in order`,
      );
    if (!ROW_STATUSES.includes(row.status))
      add('ledger.table.status', `${where} has status "${describeValue(row.status)}"`);
    add('ledger.table.attempts', counterProblem(`${where} attempts`, row.attempts));
    const evidence = evidenceCellProblem(row.evidence);
    add('ledger.table.evidence', evidence === null ? null : `${where}: ${evidence}`);
  });
  ledger.decisions.forEach((decision, index) => {
    const problem = decisionLineProblem(decision);
    add('ledger.decisions.line', problem === null ? null : `decision ${index + 1}: ${problem}`);
  });
  if (ledger.legs !== undefined)
    findings.push(...legsValueFindings(ledger.legs, ledger.rows.length, ledger.pending));
  else if (ledger.pending !== null && pendingProblem(ledger.pending) === null && ledger.pending.repo !== HOME)
    add('ledger.pending.repo', singleLegPendingProblem(ledger.pending));
  return findings;
}

/**
 * Why a single-leg ledger's pending tuple is refused: the only checkout a single leg dispatches
 * into is `home` (docs/ledger-format.md §1.2), so any other repo names a leg the ledger lacks.
 */
function singleLegPendingProblem(pending: PendingTuple): string {
  return `the pending tuple names "${pending.repo}", but a single-leg ledger dispatches only into ${HOME}`;
}

/**
 * The 1-based ledger line of each row and decision slot (0 without a layout), read from the layout
 * in one pass so that every finding's line is a lookup (a scan per row made the check quadratic).
 */
function slotLines(ledger: Ledger): (kind: 'row' | 'decision', index: number) => number {
  const layout = asLayout(ledger.layout);
  if (layout === null) return () => 0;
  const rows = new Map<number, number>();
  const decisions = new Map<number, number>();
  layout.lines.forEach((line, at) => {
    const slot = line.slot as { kind: string; index?: number };
    const lines = slot.kind === 'row' ? rows : slot.kind === 'decision' ? decisions : null;
    if (lines !== null && slot.index !== undefined && !lines.has(slot.index)) lines.set(slot.index, at + 1);
  });
  return (kind, index) => (kind === 'row' ? rows : decisions).get(index) ?? 0;
}

/**
 * The deterministic ledger checks of §1.9, beyond the syntax {@link parseLedger} enforces: every
 * value writable; `done` and `failed` rows carry evidence; every decision line that starts like a
 * known kind matches its grammar (lines of no known kind are legacy history and fine). With the
 * spec: one row per spec AC row, and `cut` rows exactly where the spec's disposition is
 * `deviates:`, `deferred:` or `elsewhere:`, with the disposition text as evidence.
 *
 * @param ledger a parsed or built ledger.
 * @param spec the parsed spec, when the caller has read it (at seed, restore and amendments).
 * @returns findings with the ledger line when the ledger has a layout, else line 0.
 */
export function checkLedger(ledger: Ledger, spec?: Spec): Finding[] {
  const findings = ledgerValueFindings(ledger);
  if (findings.some((item) => item.code === 'ledger.value.shape')) return findings;
  const slotLine = slotLines(ledger);
  ledger.rows.forEach((row, index) => {
    if ((row.status === 'done' || row.status === 'failed') && row.evidence === '')
      findings.push(
        finding(
          'ledger.check.evidence-empty',
          slotLine('row', index),
          `row ${describeValue(row.row)} is ${row.status} but its evidence cell is empty`,
        ),
      );
  });
  ledger.decisions.forEach((line, index) => {
    const problem = decisionProblem(line);
    if (problem !== null)
      findings.push(
        finding(
          'ledger.check.decision-malformed',
          slotLine('decision', index),
          `"${preview(line)}": ${problem}`,
        ),
      );
  });
  if (spec !== undefined) findings.push(...specFindings(ledger, spec, slotLine));
  return findings;
}

/** The ledger against the spec: one row per entry (§1.3, §1.7), cut exactly where disposed, legs. */
function specFindings(
  ledger: Ledger,
  spec: Spec,
  slotLine: (kind: 'row' | 'decision', index: number) => number,
): Finding[] {
  const findings: Finding[] = [];
  const coordinated = isCoordinated(spec);
  const entries = legEntries(spec);
  if (ledger.rows.length !== entries.length)
    findings.push(
      finding(
        'ledger.check.row-count',
        0,
        coordinated
          ? `the ledger has ${ledger.rows.length} rows but the spec's ${spec.rows.length} acceptance criteria expand to ${entries.length} entries over its legs`
          : `the ledger has ${ledger.rows.length} rows but the spec has ${spec.rows.length} acceptance criteria`,
      ),
    );
  const shared = Math.min(ledger.rows.length, entries.length);
  for (let index = 0; index < shared; index++) {
    const row = ledger.rows[index] as LedgerRow;
    const { disposition } = entries[index] as (typeof entries)[number];
    const line = slotLine('row', index);
    const cut = isCutDisposition(disposition);
    if (cut && row.status !== 'cut') {
      findings.push(
        finding(
          'ledger.check.cut-mismatch',
          line,
          `row ${row.row} is ${row.status} but the spec disposes it as "${preview(disposition.text)}" (a cut row)`,
        ),
      );
    } else if (!cut && row.status === 'cut') {
      findings.push(
        finding(
          'ledger.check.cut-mismatch',
          line,
          `row ${row.row} is cut but the spec keeps it ${disposition.kind === 'venue' ? 'in scope (venue:)' : 'in scope'}`,
        ),
      );
    } else if (cut && unescapeEvidence(row.evidence) !== unescapeEvidence(dispositionEvidence(disposition))) {
      findings.push(
        finding(
          'ledger.check.cut-evidence',
          line,
          `cut row ${row.row} must carry its disposition text "${preview(disposition.text)}" as evidence`,
        ),
      );
    }
  }
  if (coordinated && ledger.legs === undefined)
    findings.push(
      finding(
        'ledger.check.legs-missing',
        0,
        `the spec declares ${memberNames(spec).length} legs but the ledger has no base <member>: / seeded <member>: pairs and no ## Leg mapping`,
      ),
    );
  if (!coordinated && ledger.legs !== undefined)
    findings.push(
      finding(
        'ledger.check.legs-unexpected',
        0,
        'the ledger carries coordinated metadata but the spec declares one leg or none',
      ),
    );
  if (coordinated && ledger.legs !== undefined) {
    const expected = memberNames(spec);
    const actual = ledger.legs.members.map((member) => member.name);
    if (expected.join(' ') !== actual.join(' '))
      findings.push(
        finding(
          'ledger.check.members',
          0,
          `the ledger's members are ${actual.join(', ')} but the spec's ## Legs lists ${expected.join(', ')} (in that order)`,
        ),
      );
    // The ledger names home only by its base: exactly the spec's home member has base: as its base.
    const home = homeMember(spec);
    const atHomeBase = ledger.legs.members.filter((member) => member.base === ledger.base).map((m) => m.name);
    if (atHomeBase.join(' ') !== home)
      findings.push(
        finding(
          'ledger.check.home-base',
          0,
          `the spec's home member ${home} must be the only member whose base is the ledger's base: (${ledger.base}); members at that base: ${atHomeBase.join(', ') || 'none'}`,
        ),
      );
    ledger.legs.mapping.slice(0, entries.length).forEach((entry, index) => {
      const want = entries[index] as (typeof entries)[number];
      if (entry.ac !== want.ac || entry.leg !== want.leg)
        findings.push(
          finding(
            'ledger.check.leg-mapping',
            0,
            `row ${entry.row} is mapped to ac ${entry.ac} in ${entry.leg}, but the spec expands it to ac ${want.ac} in ${want.leg}`,
          ),
        );
    });
  }
  return findings;
}
