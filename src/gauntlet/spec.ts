/**
 * The parts of a spec the loop engine reads: the `## Acceptance criteria` rows with their
 * dispositions (gauntlet-protocol §1.3) and the `**Amend-grant:**` header (§3.17).
 *
 * The parser never throws: problems come back as findings (code `spec.*`) next to everything
 * it could read, so one pass names every problem.
 */

import { type Finding, finding } from '../common/finding.js';
import { escapePipes } from './evidence.js';
import type { AmendGrant, Disposition, Spec, SpecLeg, SpecRow } from './types.js';

/** Result of {@link parseSpec}. `spec` is always present; `findings` lists every problem. */
export interface ParsedSpec {
  readonly spec: Spec;
  readonly findings: Finding[];
}

/** `venue:` environments that are never allowed (§1.3: a venue is never production). */
const PRODUCTION_VENUES = new Set(['prd', 'prod', 'production']);

// `s`: text may hold U+2028/U+2029, which `.` would not match; only \n ends a line here.
const HEADING = /^(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/s;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const CHECKBOX_BULLET = /^[-*+][ \t]+\[( |x|X)\](?:[ \t]+(.*))?$/s;
const LIST_ITEM = /^(?:[-*+]|\d+[.)])(?:[ \t]|$)/;
const DISPOSITION_KEYWORD = /^(in-scope|deviates|deferred|venue|elsewhere)(?![\w-])/;
const NONE_LINE = /^none - \S/;
const AMEND_GRANT = /^\*\*Amend-grant:\*\*(.*)$/s;
const HEADER_FIELD = /^\*\*[^*]+:\*\*/;
/** A `## Legs` member item: `- <name>[ (home)]: <acceptance criteria>` (docs/decisions/legs.md). */
const LEG_ITEM = /^[-*+][ \t]+(\S+?)(?:[ \t]+\((home)\))?[ \t]*:(.*)$/s;
/** Member names go into the pending tuple, header keys and a table cell: one plain word. */
export const LEG_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/** Tracker refs (`#12`, `owner/repo#12`, `ABC-123`), spec paths and URLs (§1.3, [O]). */
const DEFERRED_DESTINATION =
  /(?:^|\s)(?:#\d+|[\w.-]+\/[\w.-]+#\d+|[A-Z][A-Z0-9]+-\d+|https?:\/\/\S+|[\w./-]+\.md(?:#\S*)?)(?=$|[\s,;.)])/;

interface Line {
  readonly text: string;
  /** 1-based line number. */
  readonly no: number;
  readonly inFence: boolean;
}

function readLines(text: string): Line[] {
  const lines: Line[] = [];
  let fence: string | null = null;
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const marker = FENCE.exec(line)?.[1];
    if (fence === null && marker !== undefined) {
      fence = marker[0] as string;
      lines.push({ text: line, no: index + 1, inFence: true });
    } else if (fence !== null) {
      if (marker !== undefined && marker[0] === fence) fence = null;
      lines.push({ text: line, no: index + 1, inFence: true });
    } else {
      lines.push({ text: line, no: index + 1, inFence: false });
    }
  });
  return lines;
}

function heading(line: Line): { level: number; text: string } | null {
  if (line.inFence) return null;
  const m = HEADING.exec(line.text);
  return m ? { level: (m[1] as string).length, text: (m[2] ?? '').trim() } : null;
}

/**
 * Parses a spec. Never throws.
 *
 * @param text the spec file's text.
 * @returns the title (first `# ` heading), the AC rows numbered 1..N in order with their
 *   dispositions (absent ⇒ `in-scope`, not explicit), the decoded amend grant, and findings:
 *   `spec.ac.missing`, `spec.ac.duplicate`, `spec.ac.empty`, `spec.ac.empty-text`,
 *   `spec.ac.bullet`, `spec.ac.unexpected-line`, `spec.ac.none-with-rows`,
 *   `spec.disposition.*` (`.orphan`: an indented disposition after a paragraph ended its
 *   criterion), `spec.amend-grant.malformed`, `spec.legs.*` (the `## Legs` section,
 *   docs/decisions/legs.md), `spec.internal`.
 */
export function parseSpec(text: string): ParsedSpec {
  try {
    return parseSpecLines(readLines(typeof text === 'string' ? text : ''));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      spec: { title: null, rows: [], amendGrant: { kind: 'none' } },
      findings: [finding('spec.internal', 0, `the spec parser failed: ${message}`)],
    };
  }
}

function parseSpecLines(lines: readonly Line[]): ParsedSpec {
  const findings: Finding[] = [];
  const h1 = lines.findIndex((line) => heading(line)?.level === 1);
  const title = h1 === -1 ? null : (heading(lines[h1] as Line) as { text: string }).text;

  const afterH1 = h1 + 1;
  let firstSection = lines.findIndex((line, index) => index >= afterH1 && heading(line)?.level === 2);
  if (firstSection === -1) firstSection = lines.length;
  const amendGrant = decodeAmendGrant(lines.slice(afterH1, firstSection), findings);

  const acHeadings = lines.flatMap((line, index) => {
    const h = heading(line);
    return h?.level === 2 && /^acceptance criteria$/i.test(h.text) ? [index] : [];
  });
  let rows: SpecRow[] = [];
  const start = acHeadings[0];
  if (start === undefined) {
    findings.push(finding('spec.ac.missing', 0, 'the spec has no "## Acceptance criteria" section'));
  } else {
    for (const again of acHeadings.slice(1))
      findings.push(
        finding(
          'spec.ac.duplicate',
          (lines[again] as Line).no,
          `a second "## Acceptance criteria" section (the first, line ${(lines[start] as Line).no}, is used)`,
        ),
      );
    let end = lines.findIndex((line, index) => index > start && (heading(line)?.level ?? 7) <= 2);
    if (end === -1) end = lines.length;
    rows = parseCriteria(lines.slice(start + 1, end), findings);
  }
  const legs = parseLegsSection(lines, rows.length, findings);
  return {
    spec: legs === undefined ? { title, rows, amendGrant } : { title, rows, amendGrant, legs },
    findings,
  };
}

/**
 * The `## Legs` section (§3.20; the grammar is loopchart's, docs/decisions/legs.md L1): one list
 * item per member, `- <name>[ (home)]: <list>`, the list being comma-separated AC numbers, ranges
 * `a-b` or `all`. Prose lines (not list items) are ignored. `undefined` without the section.
 */
function parseLegsSection(
  lines: readonly Line[],
  acCount: number,
  findings: Finding[],
): SpecLeg[] | undefined {
  const headings = lines.flatMap((line, index) => {
    const h = heading(line);
    return h?.level === 2 && /^legs$/i.test(h.text) ? [index] : [];
  });
  const start = headings[0];
  if (start === undefined) return undefined;
  for (const again of headings.slice(1))
    findings.push(
      finding(
        'spec.legs.duplicate',
        (lines[again] as Line).no,
        `a second "## Legs" section (the first, line ${(lines[start] as Line).no}, is used)`,
      ),
    );
  let end = lines.findIndex((line, index) => index > start && (heading(line)?.level ?? 7) <= 2);
  if (end === -1) end = lines.length;
  const legs: SpecLeg[] = [];
  const seen = new Map<string, number>();
  for (const line of lines.slice(start + 1, end)) {
    if (line.inFence || !LIST_ITEM.test(line.text)) continue;
    const item = LEG_ITEM.exec(line.text);
    if (!item) {
      findings.push(
        finding(
          'spec.legs.item',
          line.no,
          'a ## Legs item reads "- <member>: <acceptance criteria>" (numbers, ranges a-b or all, comma-separated), with "(home)" after the home member\'s name',
        ),
      );
      continue;
    }
    const name = item[1] as string;
    if (!LEG_NAME.test(name)) {
      findings.push(
        finding(
          'spec.legs.name',
          line.no,
          `member name "${name}" must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit`,
        ),
      );
      continue;
    }
    const earlier = seen.get(name);
    if (earlier !== undefined) {
      findings.push(
        finding(
          'spec.legs.duplicate-member',
          line.no,
          `member "${name}" is already listed on line ${earlier}`,
        ),
      );
      continue;
    }
    seen.set(name, line.no);
    const acs = parseAcList((item[3] as string).trim(), acCount, name, line.no, findings);
    legs.push({ name, home: item[2] === 'home', acs, line: line.no });
  }
  if (legs.length === 0) {
    findings.push(
      finding('spec.legs.empty', (lines[start] as Line).no, 'the ## Legs section lists no member'),
    );
    return legs;
  }
  const homes = legs.filter((leg) => leg.home);
  if (homes.length > 1)
    findings.push(
      finding(
        'spec.legs.home',
        (homes[1] as SpecLeg).line,
        `more than one member is marked (home): ${homes.map((leg) => leg.name).join(', ')}`,
      ),
    );
  const covered = new Set(legs.flatMap((leg) => leg.acs));
  const unassigned = Array.from({ length: acCount }, (_, index) => index + 1).filter(
    (ac) => !covered.has(ac),
  );
  if (unassigned.length > 0)
    findings.push(
      finding(
        'spec.legs.unassigned',
        (lines[start] as Line).no,
        `acceptance criteria ${unassigned.join(', ')} belong to no member of ## Legs`,
      ),
    );
  // No member marked: the first listed is home (L1).
  return homes.length === 0 ? legs.map((leg, index) => (index === 0 ? { ...leg, home: true } : leg)) : legs;
}

function parseAcList(text: string, acCount: number, name: string, no: number, findings: Finding[]): number[] {
  const acs = new Set<number>();
  const bad = (reason: string): void => {
    findings.push(finding('spec.legs.acs', no, `member "${name}": ${reason}`));
  };
  if (text === '') {
    bad('lists no acceptance criterion (write numbers, ranges a-b or all)');
    return [];
  }
  for (const part of text.split(',').map((piece) => piece.trim())) {
    const range = /^(\d+)(?:[ \t]*-[ \t]*(\d+))?$/.exec(part);
    let from: number;
    let to: number;
    if (part === 'all') {
      from = 1;
      to = acCount;
    } else if (range) {
      from = Number(range[1]);
      to = Number(range[2] ?? range[1]);
    } else {
      bad(`"${part}" is not an acceptance criterion number, a range a-b or all`);
      continue;
    }
    if (from > to) {
      bad(`range ${part} runs backwards`);
      continue;
    }
    if (from < 1 || to > acCount) {
      bad(`${part} names an acceptance criterion the spec does not have (it has ${acCount})`);
      continue;
    }
    for (let ac = from; ac <= to; ac++) {
      if (acs.has(ac)) bad(`acceptance criterion ${ac} is listed twice`);
      acs.add(ac);
    }
  }
  return [...acs].sort((a, b) => a - b);
}

/** §3.17: none / active (one physical line, the sentence is the value) / malformed. */
function decodeAmendGrant(header: readonly Line[], findings: Finding[]): AmendGrant {
  const grants = header.flatMap((line, index) =>
    !line.inFence && AMEND_GRANT.test(line.text) ? [index] : [],
  );
  if (grants.length === 0) return { kind: 'none' };
  const malformed = (offending: readonly Line[], reason: string): AmendGrant => {
    findings.push(finding('spec.amend-grant.malformed', (offending[0] as Line).no, reason));
    return { kind: 'malformed', lines: offending.map((line) => ({ line: line.no, text: line.text })) };
  };
  if (grants.length > 1)
    return malformed(
      grants.map((index) => header[index] as Line),
      `**Amend-grant:** appears on ${grants.length} lines; write it once`,
    );
  const at = grants[0] as number;
  const line = header[at] as Line;
  const value = (AMEND_GRANT.exec(line.text)?.[1] ?? '').trim();
  if (value === '')
    return malformed([line], '**Amend-grant:** has an empty value (write `none` or the granting sentence)');
  const next = header[at + 1];
  if (
    next !== undefined &&
    next.text.trim() !== '' &&
    !HEADER_FIELD.test(next.text) &&
    heading(next) === null
  )
    return malformed(
      [line, next],
      '**Amend-grant:** continues onto the next physical line; the granting sentence must be one line',
    );
  return value === 'none' ? { kind: 'none' } : { kind: 'active', sentence: value };
}

interface RowDraft {
  readonly text: string;
  readonly no: number;
  disposition: Disposition | null;
}

function parseCriteria(section: readonly Line[], findings: Finding[]): SpecRow[] {
  const drafts: RowDraft[] = [];
  let current: RowDraft | null = null;
  let noneLine: Line | null = null;
  for (const line of section) {
    if (line.inFence || line.text.trim() === '') continue;
    const bullet = CHECKBOX_BULLET.exec(line.text);
    if (bullet) {
      const text = (bullet[2] ?? '').trim();
      if (text === '')
        findings.push(
          finding('spec.ac.empty-text', line.no, `acceptance criterion ${drafts.length + 1} has no text`),
        );
      current = { text, no: line.no, disposition: null };
      drafts.push(current);
      continue;
    }
    const trimmed = line.text.trim();
    if (/^[ \t]/.test(line.text) && current !== null) {
      if (!DISPOSITION_KEYWORD.test(trimmed)) {
        findings.push(
          finding(
            'spec.ac.unexpected-line',
            line.no,
            `indented line under acceptance criterion ${drafts.length} is not a disposition (in-scope, deviates: <why>, deferred: <where>, venue: <env> - <observation>, elsewhere: <repo>)`,
          ),
        );
      } else if (current.disposition !== null) {
        findings.push(
          finding(
            'spec.disposition.duplicate',
            line.no,
            `acceptance criterion ${drafts.length} already has a disposition; give exactly one`,
          ),
        );
      } else {
        current.disposition = parseDisposition(trimmed, line.no, findings);
      }
      continue;
    }
    if (/^[ \t]/.test(line.text)) {
      // Indented text under no criterion: intro text before the first one, or text after a
      // paragraph ended one. A disposition there was meant for a row and would be lost.
      if (drafts.length > 0 && DISPOSITION_KEYWORD.test(trimmed))
        findings.push(
          finding(
            'spec.disposition.orphan',
            line.no,
            `disposition line stands under no acceptance criterion (a paragraph ended criterion ${drafts.length} above it); put it right under its bullet`,
          ),
        );
      continue;
    }
    if (NONE_LINE.test(trimmed)) {
      noneLine = line;
    } else if (LIST_ITEM.test(line.text)) {
      findings.push(
        finding(
          'spec.ac.bullet',
          line.no,
          'list item in the acceptance criteria is not a "- [ ] <text>" row',
        ),
      );
    } else if (DISPOSITION_KEYWORD.test(trimmed) && current !== null) {
      findings.push(
        finding(
          'spec.disposition.not-nested',
          line.no,
          `disposition line for acceptance criterion ${drafts.length} must be indented under its bullet`,
        ),
      );
    } else {
      current = null; // a paragraph ends the list item
    }
  }
  if (drafts.length === 0 && noneLine === null)
    findings.push(
      finding(
        'spec.ac.empty',
        0,
        'the acceptance criteria section has no "- [ ] <text>" rows and no "none - <reason>" line',
      ),
    );
  if (drafts.length > 0 && noneLine !== null)
    findings.push(
      finding('spec.ac.none-with-rows', noneLine.no, '"none - ..." line next to acceptance criteria rows'),
    );
  return drafts.map((draft, index) => ({
    row: index + 1,
    text: draft.text,
    line: draft.no,
    disposition: draft.disposition ?? { kind: 'in-scope', explicit: false },
  }));
}

/** Parses one trimmed disposition line; `null` (with a finding) when it is malformed. */
function parseDisposition(text: string, no: number, findings: Finding[]): Disposition | null {
  if (text === 'in-scope') return { kind: 'in-scope', explicit: true };
  const m = /^(deviates|deferred|venue|elsewhere):(.*)$/s.exec(text);
  const value = (m?.[2] ?? '').trim();
  if (!m || value === '') {
    findings.push(
      finding(
        'spec.disposition.malformed',
        no,
        `"${text}" is not a disposition: write in-scope, deviates: <why>, deferred: <where>, venue: <env> - <observation> or elsewhere: <repo>`,
      ),
    );
    return null;
  }
  switch (m[1]) {
    case 'deviates':
      return { kind: 'deviates', why: value, text };
    case 'deferred':
      if (!DEFERRED_DESTINATION.test(value))
        findings.push(
          finding(
            'spec.disposition.deferred-destination',
            no,
            `deferred destination "${value}" is not a tracker ref (#N, owner/repo#N, ABC-123), a spec path or a URL`,
          ),
        );
      return { kind: 'deferred', where: value, text };
    case 'elsewhere':
      return { kind: 'elsewhere', repo: value, text };
    default: {
      // The value is trimmed, so with a ' - ' in it neither side is blank: only a missing
      // separator is malformed.
      const split = value.indexOf(' - ');
      if (split === -1) {
        findings.push(
          finding(
            'spec.disposition.malformed',
            no,
            `venue disposition must read "venue: <env> - <observation>"`,
          ),
        );
        return null;
      }
      const env = value.slice(0, split).trim();
      const observation = value.slice(split + 3).trim();
      if (PRODUCTION_VENUES.has(env.toLowerCase()))
        findings.push(
          finding(
            'spec.disposition.venue-production',
            no,
            `venue "${env}" is production; a venue is never prd, prod or production`,
          ),
        );
      return { kind: 'venue', env, observation, text };
    }
  }
}

/**
 * True for the dispositions that seed a `cut` row: `deviates:`, `deferred:`, `elsewhere:`.
 *
 * @param disposition a parsed disposition.
 */
export function isCutDisposition(
  disposition: Disposition,
): disposition is Extract<Disposition, { kind: 'deviates' | 'deferred' | 'elsewhere' }> {
  return (
    disposition.kind === 'deviates' || disposition.kind === 'deferred' || disposition.kind === 'elsewhere'
  );
}

/**
 * The evidence cell a row's disposition seeds (§1.3): the disposition text, pipes escaped, for
 * cut dispositions; empty for `in-scope` and `venue:` rows.
 *
 * @param disposition a parsed disposition.
 * @returns the cell as written in the ledger.
 */
export function dispositionEvidence(disposition: Disposition): string {
  return isCutDisposition(disposition) ? escapePipes(disposition.text) : '';
}
