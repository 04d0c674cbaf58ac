/**
 * Every exported parser and validator of src/index.ts, fed NUM_RUNS generated inputs each: text
 * built from the formats' own vocabulary, mutated valid documents, arbitrary JSON values and raw
 * garbage. None may throw anything but a named error (a LoopchartError subclass), and those that
 * document "never throws" may not throw at all. Every valid ledger (generated from the format of
 * docs/ledger-format.md by a writer in this file) parses to the values it was written from and
 * serializes back to the same bytes.
 *
 * The verify half's readers of untrusted text (review returns, the overrides file, legacy `cap:`
 * ledgers) are not exported from the package root; they are imported from their modules below.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCoverageReport } from '../../src/entry-testing.js';
import { historicLedger, legacyAllowance } from '../../src/gauntlet/legacy-allowance.js';
import { overridesVerification } from '../../src/gauntlet/overrides.js';
import { parseReviewReturn, type ReviewRole } from '../../src/gauntlet/review.js';
import {
  checkLedger,
  checkRepairRounds,
  checkReturnBoundary,
  checkRound,
  checkWave,
  extractActionRecords,
  freezeRunContract,
  type HumanStop,
  historyFromCommits,
  type Ledger,
  LoopchartError,
  normalizeRound,
  normalizeScopePath,
  parseActionRecord,
  parseCheckCommand,
  parseChildScript,
  parseDecision,
  parseEntryContract,
  parseHumanReply,
  parseJobsFile,
  parseLedger,
  parsePending,
  parseRepairBody,
  parseSpec,
  parseSubject,
  parseTimeOrCostBudget,
  parseTranscript,
  parseWave,
  readAttribution,
  readChildReturn,
  readUnreachableMarker,
  reviveRunContract,
  serializeLedger,
  splitEvidence,
  splitUnescaped,
  validateReturn,
  validateRunInput,
  validateVerificationReturn,
} from '../../src/index.js';

/** Inputs per property per run (the issue asks for at least 10 000). */
const NUM_RUNS = 10_000;
const settings = { numRuns: NUM_RUNS };

/** Runs `f`; a throw is allowed only when it is one of loopchart's named errors. */
function namedOnly(f: () => unknown): void {
  try {
    f();
  } catch (error) {
    if (!(error instanceof LoopchartError))
      throw new Error(
        `threw an unnamed error: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
      );
  }
}

// ---------------------------------------------------------------------------------------------
// Cheap text arbitraries

/** Short raw strings: any UTF-16 code unit, lone surrogates and control bytes included. */
const raw = fc.string({ unit: 'binary', maxLength: 12 });

/** Text assembled from a format's tokens, raw fragments and line breaks. */
function soup(tokens: readonly string[], maxPieces = 30): fc.Arbitrary<string> {
  return fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...tokens) },
        { weight: 2, arbitrary: raw },
        {
          weight: 2,
          arbitrary: fc.constantFrom('\n', '\r\n', ' ', '|', '\t'),
        },
      ),
      { maxLength: maxPieces },
    )
    .map((pieces) => pieces.join(''));
}

const SHA = 'a'.repeat(40);
const LEDGER_TOKENS = [
  '# Loop ledger\n',
  '\uFEFF',
  '**Spec:** ',
  'doc/specs/x.md',
  'base: ',
  SHA,
  'verification: ',
  'npm test',
  'checks: commands',
  'iterations: ',
  'allowance: ',
  'cap: 3',
  'pending: ',
  'seed | home | ',
  'verify | home | ',
  '3 | home | ',
  '0',
  '1',
  '-1',
  '007',
  '99999999999999999999',
  '| row | status | attempts | evidence |\n',
  '|---|---|---|---|\n',
  '| 1 | open | 0 |  |\n',
  '| 2 | done | 1 | npm test; 3 passed |\n',
  '| 3 | failed | 4 | x; unreachable: prod - runbook |\n',
  '| 4 | cut | 0 | deferred: ACME-1 |\n',
  '## Decisions\n',
  '## Notes\n',
  'row 1 done | fixed | next\n',
  'row 0 done | seeded 2 rows, closed 0 on baseline | row 1\n',
  'rows +3 |\n',
  '\\|',
  '\\;',
  '\\\\',
  '```',
];
const SPEC_TOKENS = [
  '# Spec\n',
  '**Status:** approved\n',
  '**Amend-grant:** ',
  'I approve auto-applied amendments.\n',
  'none\n',
  '## Acceptance criteria\n',
  '## Other\n',
  '- [ ] ',
  '- [x] ',
  'a row\n',
  '      in-scope\n',
  '      venue: staging - visible\n',
  '      venue: prod - x\n',
  '      deviates: why\n',
  '      deferred: ACME-12\n',
  '      deferred: owner/repo#3\n',
  '      elsewhere: web\n',
  'none - nothing to do\n',
  '```\n',
  '\n',
];
const DECISION_TOKENS = [
  'row ',
  'rows +',
  '0',
  '1',
  '12',
  '01',
  ' done',
  ' failed',
  ' retry',
  ' escalated',
  ' | ',
  '|',
  'seeded 3 rows, closed 1 on baseline',
  'allowed attempts ',
  'implModel round',
  'ran capture (1 of 2)',
  'bound spent: capture 1 of 1',
  '.',
  'x'.repeat(201),
];
const SUBJECT_TOKENS = [
  'loop: ',
  'seed ledger',
  'seed evidence',
  'row ',
  'repair row ',
  'repair seed',
  'repair verification',
  'retry row ',
  'raise allowance',
  'cut row ',
  'amend',
  'escalate row ',
  'migrate allowance',
  'record home row ',
  'verification changes',
  'verification fix',
  ' done',
  ' failed',
  '1',
  '0',
  '10',
  ' ',
];
const BODY_TOKENS = [
  `pending: 1 | home | ${SHA}\n`,
  `pending: seed | home | ${SHA}\n`,
  'iteration: ',
  '1\n',
  '0\n',
  'reason: ',
  'interrupted - non-DONE\n',
  'validation miss\n',
  'ran capture (1 of 2)\n',
  'bound spent: capture (1 of 1)\n',
  '\n',
];
const ENTRY_TOKENS = [
  'Goal: ',
  'Done when: ',
  'Budget: ',
  'State location: ',
  'Stop rules: ',
  'Evaluator: ',
  'Baseline: ',
  '3 cycles',
  '30 minutes',
  '$5',
  'file: notes.md',
  'git branch',
  'plateau after 3 cycles',
  '- ',
  '  ',
  '\n',
];
const JOBS_TOKENS = ['123 ', 'boot:456 ', 'sleep 10', 'ran capture (1 of 2)', '\n', '-1 ', 'x:y '];

/** JSON values, sometimes with a string field replaced by raw text. */
const json = fc.jsonValue({ maxDepth: 3 });

/** Arbitrary JS values a careless caller might pass (cheap, no getters). */
const anything = fc.oneof(
  json,
  fc.constantFrom(undefined, null, Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 60),
  fc.array(json, { maxLength: 3 }),
);

// ---------------------------------------------------------------------------------------------
// Valid ledgers, written by hand from docs/ledger-format.md §1 (an independent writer)

interface LedgerModel {
  bom: boolean;
  spec: string;
  base: string;
  verification: string;
  checks: string;
  iterations: number;
  allowance: number;
  pending: { target: string; repo: string; head: string } | null;
  /** Blanks after each key's colon (the value is trimmed); `pending:` has exactly one spelling, one blank. */
  gaps: number[];
  extraHeaderLines: string[];
  rows: { status: string; attempts: number; evidence: string }[];
  /** Row cell padding: canonical single spaces, none, or wider. */
  pad: 0 | 1 | 2;
  separator: string;
  prose: string[];
  decisions: string[];
  blankBetweenDecisions: boolean;
  otherSection: string[] | null;
  finalNewline: boolean;
}

const hex40 = fc.stringMatching(/^[0-9a-f]{40}$/);
/** Safe cell text: no pipes except escaped ones, no control bytes, no leading/trailing blanks. */
const word = fc.stringMatching(/^[A-Za-z0-9._/()é😀:-]{1,10}$/u);
const phrase = fc
  .array(
    fc.oneof(
      { weight: 5, arbitrary: word },
      { weight: 1, arbitrary: fc.constantFrom('\\|', '\\;', '\\\\', ';') },
    ),
    {
      minLength: 1,
      maxLength: 6,
    },
  )
  .map((words) => words.join(' '))
  .filter((text) => text.trim() === text && !/^[-:]+$/.test(text));
const decisionLine = fc
  .oneof(
    fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.constantFrom('done', 'failed'), word, word)
      .map(([row, status, summary, next]) => `row ${row} ${status} | ${summary} | ${next}`),
    fc.tuple(word, word).map(([a, b]) => `${a} ${b}`),
    fc.integer({ min: 1, max: 50 }).map((n) => `rows +${n} |`),
  )
  .filter((line) => !line.startsWith('#'));

const ledgerModel: fc.Arbitrary<LedgerModel> = fc.record({
  bom: fc.boolean(),
  spec: fc.stringMatching(/^[a-z0-9_-]{1,8}(\/[a-z0-9_-]{1,8}){0,2}\.md$/),
  base: hex40,
  verification: phrase,
  checks: fc.constantFrom('commands', 'commands and review'),
  iterations: fc.nat({ max: 500 }),
  allowance: fc.nat({ max: 20 }),
  pending: fc.option(
    fc.record({
      target: fc.oneof(
        fc.constant('seed'),
        fc.constant('verify'),
        fc.integer({ min: 1, max: 9 }).map(String),
      ),
      // A single-leg ledger's tuple names home (ledger.pending.repo refuses any other repo; the
      // parsePending tests cover other repo spellings).
      repo: fc.constant('home'),
      head: hex40,
    }),
    { nil: null },
  ),
  gaps: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
  extraHeaderLines: fc.array(
    fc.oneof(
      fc.constant(''),
      // Member pairs (base <member>: / seeded <member>:) are coordinated metadata, not unknown
      // lines: test/gauntlet/legs.test.ts covers them.
      fc.constant(`parent: ${SHA}`),
      fc.constant('reviewed: yes'),
      phrase.map((p) => `note ${p}`),
    ),
    { maxLength: 2 },
  ),
  rows: fc.array(
    fc.record({
      status: fc.constantFrom('open', 'done', 'failed', 'cut'),
      attempts: fc.nat({ max: 12 }),
      evidence: fc.oneof(fc.constant(''), phrase),
    }),
    { maxLength: 6 },
  ),
  pad: fc.constantFrom(0 as const, 1 as const, 2 as const),
  separator: fc.constantFrom('|---|---|---|---|', '| --- | :--- | ---: | :-: |'),
  prose: fc.array(
    phrase.map((p) => `prose ${p}`),
    { maxLength: 1 },
  ),
  decisions: fc.array(decisionLine, { maxLength: 5 }),
  blankBetweenDecisions: fc.boolean(),
  otherSection: fc.option(fc.array(phrase, { maxLength: 2 }), { nil: null }),
  finalNewline: fc.boolean(),
});

function writeLedger(model: LedgerModel): string {
  const key = (name: string, gap: number, value: string) => `${name}:${' '.repeat(gap)}${value}`;
  const gaps = model.gaps.map((gap, index) => (index === 0 ? gap : Math.max(gap, 1)));
  const header = [
    `**Spec:** ${model.spec}`,
    key('base', gaps[1] ?? 1, model.base),
    key('verification', gaps[2] ?? 1, model.verification),
    key('checks', gaps[3] ?? 1, model.checks),
    ...model.extraHeaderLines,
    key('iterations', gaps[4] ?? 1, String(model.iterations)),
    key('allowance', gaps[5] ?? 1, String(model.allowance)),
    ...(model.pending === null
      ? []
      : [
          key(
            'pending',
            gaps[6] ?? 1,
            `${model.pending.target} | ${model.pending.repo} | ${model.pending.head}`,
          ),
        ]),
  ];
  const padding = ' '.repeat(model.pad);
  const cells = (values: readonly string[]) =>
    `|${values.map((value) => (value === '' ? padding.repeat(2) || '' : `${padding}${value}${padding}`)).join('|')}|`;
  const table = [
    cells(['row', 'status', 'attempts', 'evidence']),
    model.separator,
    ...model.rows.map((row, index) =>
      cells([String(index + 1), row.status, String(row.attempts), row.evidence]),
    ),
  ];
  const decisions = model.decisions.flatMap((line, index) =>
    model.blankBetweenDecisions && index > 0 ? ['', line] : [line],
  );
  const lines = [
    '# Loop ledger',
    '',
    ...header,
    '',
    ...table,
    '',
    ...model.prose.flatMap((p) => [p, '']),
    '## Decisions',
    ...(decisions.length > 0 ? ['', ...decisions] : []),
    ...(model.otherSection === null ? [] : ['', '## Notes', '', ...model.otherSection]),
  ];
  return `${model.bom ? '\uFEFF' : ''}${lines.join('\n')}${model.finalNewline ? '\n' : ''}`;
}

/** What the parsed ledger must hold, read from the model (not from the parser). */
function expectedValues(model: LedgerModel) {
  return {
    spec: model.spec,
    base: model.base,
    verification: model.verification,
    checks: model.checks,
    iterations: model.iterations,
    allowance: model.allowance,
    pending:
      model.pending === null
        ? null
        : {
            target: /^\d+$/.test(model.pending.target) ? Number(model.pending.target) : model.pending.target,
            repo: model.pending.repo,
            head: model.pending.head,
          },
    rows: model.rows.map((row, index) => ({ row: index + 1, ...row })),
    decisions: model.decisions,
  };
}

/** A valid ledger text with one local edit: a line dropped, doubled or swapped, or bytes spliced in. */
const mutatedLedger = fc
  .tuple(
    ledgerModel.map(writeLedger),
    fc.nat(),
    fc.nat(),
    fc.constantFrom('drop', 'double', 'swap', 'splice', 'crlf'),
    raw,
  )
  .map(([text, a, b, how, bytes]) => {
    const lines = text.split('\n');
    const i = a % lines.length;
    const j = b % lines.length;
    if (how === 'drop') lines.splice(i, 1);
    else if (how === 'double') lines.splice(i, 0, lines[i] as string);
    else if (how === 'swap') [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
    else if (how === 'crlf') return lines.join('\r\n');
    else {
      const line = lines[i] as string;
      const at = b % (line.length + 1);
      lines[i] = `${line.slice(0, at)}${bytes}${line.slice(at)}`;
    }
    return lines.join('\n');
  });

// ---------------------------------------------------------------------------------------------

describe('the ledger (parseLedger, serializeLedger, checkLedger)', () => {
  it(`every valid ledger parses to the values it was written from and round-trips byte for byte (${NUM_RUNS} ledgers)`, () => {
    fc.assert(
      fc.property(ledgerModel, (model) => {
        const text = writeLedger(model);
        const parsed = parseLedger(text);
        expect(parsed.findings).toEqual([]);
        const ledger = parsed.ledger as Ledger;
        expect(ledger).toMatchObject(expectedValues(model));
        expect(serializeLedger(ledger)).toBe(text);
      }),
      settings,
    );
  });

  it(`mutated and garbage ledger text never throws, and whatever parses round-trips byte for byte (${NUM_RUNS} each)`, () => {
    for (const arbitrary of [mutatedLedger, soup(LEDGER_TOKENS, 40)])
      fc.assert(
        fc.property(arbitrary, (text) => {
          const parsed = parseLedger(text);
          if (parsed.ledger !== null) {
            expect(parsed.findings).toEqual([]);
            expect(serializeLedger(parsed.ledger)).toBe(text);
            namedOnly(() => checkLedger(parsed.ledger as Ledger));
          } else expect(parsed.findings.length).toBeGreaterThan(0);
        }),
        settings,
      );
  });

  it(`serializeLedger and checkLedger on ledger values with arbitrary fields throw only named errors (${NUM_RUNS})`, () => {
    const base = ledgerModel.map((model) => parseLedger(writeLedger(model)).ledger as Ledger);
    const field = fc.constantFrom(
      'spec',
      'base',
      'verification',
      'checks',
      'iterations',
      'allowance',
      'pending',
      'rows',
      'decisions',
      'layout',
      'discriminant',
    );
    fc.assert(
      fc.property(base, field, anything, (ledger, name, value) => {
        const broken = { ...ledger, [name]: value } as unknown as Ledger;
        namedOnly(() => serializeLedger(broken));
        namedOnly(() => checkLedger(broken));
        // One field of one row, one decision line, one part of the pending tuple.
        const rowField = ['row', 'status', 'attempts', 'evidence'][name.length % 4] as string;
        const rows = ledger.rows.map((row, index) => (index === 0 ? { ...row, [rowField]: value } : row));
        const decisions = ledger.decisions.length > 0 ? [value, ...ledger.decisions.slice(1)] : [value];
        const pending = {
          target: 1,
          repo: 'home',
          head: SHA,
          [['target', 'repo', 'head'][name.length % 3] as string]: value,
        };
        for (const variant of [{ rows }, { decisions }, { pending }]) {
          const edited = { ...ledger, ...variant } as unknown as Ledger;
          namedOnly(() => serializeLedger(edited));
          namedOnly(() => checkLedger(edited));
        }
      }),
      settings,
    );
  });
});

describe('line and cell parsers of the loop engine', () => {
  const cases: [string, fc.Arbitrary<string>, (text: string) => unknown][] = [
    ['parseDecision', soup(DECISION_TOKENS, 12), parseDecision],
    ['parsePending', soup(['pending: ', 'seed', 'verify', '3', ' | ', 'home', SHA, '0'], 10), parsePending],
    ['parseSubject', soup(SUBJECT_TOKENS, 8), parseSubject],
    ['readAttribution', soup(BODY_TOKENS, 10), readAttribution],
    ['parseRepairBody', soup(BODY_TOKENS, 10), parseRepairBody],
    [
      'parseActionRecord',
      soup(['ran ', 'bound spent: ', 'capture', ' (', '1', ' of ', '2', ')', '0'], 10),
      parseActionRecord,
    ],
    [
      'extractActionRecords',
      soup([...DECISION_TOKENS, 'ran capture (1 of 2)', ';', '|'], 16),
      extractActionRecords,
    ],
    [
      'readUnreachableMarker',
      soup(['npm test', '; ', 'unreachable: ', 'bound spent: ', ' - ', 'prod', '\\;'], 10),
      readUnreachableMarker,
    ],
    ['splitEvidence', soup(['a', ';', '\\;', '\\', '\\\\', '|', ' '], 16), splitEvidence],
    ['splitUnescaped', soup(['a', ';', '\\;', '\\', '|', '\\|'], 16), (text) => splitUnescaped(text, '|')],
    ['parseJobsFile', soup(JOBS_TOKENS, 16), parseJobsFile],
    [
      'readChildReturn',
      fc.oneof(
        json.map((v) => JSON.stringify(v)),
        soup(['{', '}', '"status"', ':', '"DONE"', '"summary"', ','], 12),
      ),
      readChildReturn,
    ],
  ];
  for (const [name, arbitrary, parse] of cases)
    it(`${name} never throws on ${NUM_RUNS} generated inputs`, () => {
      fc.assert(
        fc.property(arbitrary, (text) => {
          parse(text);
        }),
        settings,
      );
    });
});

describe('the spec, human replies and the child script', () => {
  it(`parseSpec never throws (${NUM_RUNS})`, () => {
    fc.assert(
      fc.property(soup(SPEC_TOKENS, 30), (text) => {
        const spec = parseSpec(text);
        expect(Array.isArray(spec.findings)).toBe(true);
      }),
      settings,
    );
  });

  it(`parseHumanReply throws only named errors, for every stop kind (${NUM_RUNS})`, () => {
    const stops: HumanStop[] = [
      { kind: 'row-allowance', row: 2 },
      { kind: 'missing-model', row: 1 },
      { kind: 'seed-exhaustion', seedRepairs: 4 },
      { kind: 'bound-spent', row: 1 },
      { kind: 'unreachable-amend', row: 3, what: 'prod DNS', where: 'runbook' },
      { kind: 'recovery-incomplete', iteration: 2, what: 'checkout ownership unproven' },
      { kind: 'verification-failed', repairs: 4, problem: { kind: 'missing-model' } },
      { kind: 'reopened-during-verify', row: 2 },
      { kind: 'configuration-error', message: 'x' },
    ];
    const reply = soup(
      ['1', '2', '3', '4', '5', '6', 'retry ', 'rows +', 'amend', 'discard', 'stop', 'return', ' | ', 'hint'],
      8,
    );
    fc.assert(
      fc.property(reply, fc.constantFrom(...stops), (text, stop) => {
        namedOnly(() => parseHumanReply(text, stop));
      }),
      settings,
    );
  });

  it(`parseChildScript throws only named errors (${NUM_RUNS})`, () => {
    const scriptish = fc.oneof(
      json.map((v) => JSON.stringify(v)),
      fc
        .record({ version: fc.constantFrom(1, 2, '1'), steps: fc.array(json, { maxLength: 3 }) })
        .map((v) => JSON.stringify(v)),
      soup(['{', '}', '[', ']', '"steps"', '"version"', ':', '1', ','], 16),
    );
    fc.assert(
      fc.property(scriptish, (text) => {
        namedOnly(() => parseChildScript(text));
      }),
      settings,
    );
  });
});

describe('return validation and history', () => {
  // A fixed pool of valid ledgers keeps generation cheap; each has an open row to dispatch.
  const pool = fc
    .sample(
      ledgerModel.filter((model) => model.rows.some((row) => row.status === 'open')),
      { numRuns: 40, seed: 10 },
    )
    .map((model) => ({ model, ledger: parseLedger(writeLedger(model)).ledger as Ledger }));
  const headText = fc
    .tuple(fc.constantFrom(...pool), mutatedLedger)
    .map(([entry, mutated]) => [writeLedger(entry.model), mutated] as const);

  it('the pool holds valid ledgers', () => {
    expect(pool.every((entry) => entry.ledger !== null)).toBe(true);
  });

  it(`validateReturn and validateVerificationReturn throw only named errors (${NUM_RUNS})`, () => {
    const boundary = fc.record({
      returned: fc.option(fc.constantFrom('DONE', 'BLOCKED', 'malformed return'), { nil: null }),
      commitCount: fc.oneof(fc.constant(1), fc.nat({ max: 3 }), fc.constantFrom(-1, 1.5, Number.NaN)),
      porcelain: fc.oneof(
        fc.constant(''),
        fc.constantFrom(' M src/a.ts\n', '?? x\n'),
        soup([' M ', '?? ', 'a', '\n'], 4),
      ),
      dispatchError: fc.option(raw, { nil: undefined }),
      killedAfterSilence: fc.option(fc.boolean(), { nil: undefined }),
    });
    const junkBoundary = fc.record({ commitCount: anything, porcelain: anything, returned: anything });
    fc.assert(
      fc.property(
        fc.constantFrom(...pool),
        boundary,
        soup(SUBJECT_TOKENS, 6),
        soup(BODY_TOKENS, 8),
        fc.boolean(),
        headText,
        (entry, b, subject, rest, attributed, [clean, mutated]) => {
          const saved = entry.ledger;
          const target = saved.rows.find((row) => row.status === 'open')?.row ?? 1;
          const pending = { target, repo: 'home', head: SHA };
          const body = attributed
            ? `pending: ${target} | home | ${SHA}\niteration: ${saved.iterations + 1}\n${rest}`
            : rest;
          const head = parseLedger((attributed ? clean : mutated) ?? '');
          const facts = {
            target,
            iteration: saved.iterations,
            pending,
            saved,
            boundary: b,
            commit: { subject, body },
            headLedger: head.ledger ?? head.findings,
          };
          namedOnly(() => validateReturn(facts as never));
          namedOnly(() => validateVerificationReturn(facts as never));
          namedOnly(() => checkReturnBoundary(b as never));
        },
      ),
      settings,
    );
    fc.assert(
      fc.property(junkBoundary, (b) => {
        namedOnly(() => checkReturnBoundary(b as never));
      }),
      settings,
    );
  });

  it(`historyFromCommits throws only named errors on generated branches (${NUM_RUNS})`, () => {
    const commitFact = fc.record({
      sha: fc.constantFrom(SHA, 'b'.repeat(40), 'c'.repeat(40)),
      subject: soup(SUBJECT_TOKENS, 6),
      body: soup(BODY_TOKENS, 8),
      paths: fc.array(fc.constantFrom('docs/ledger.md', 'src/a.ts', ''), { maxLength: 2 }),
      ledger: fc.option(fc.constantFrom(...pool.map((entry) => entry.ledger)), { nil: null }),
    });
    fc.assert(
      fc.property(fc.array(commitFact, { maxLength: 5 }), fc.constantFrom(...pool), (commits, entry) => {
        namedOnly(() => historyFromCommits(commits, { ledger: entry.ledger, ledgerPath: 'docs/ledger.md' }));
      }),
      settings,
    );
  });
});

describe('RPI rounds, crank waves, the cybernetic run input, the loop protocol', () => {
  const structured: [string, (value: unknown) => unknown][] = [
    ['checkRound', checkRound],
    ['normalizeRound', normalizeRound],
    ['checkRepairRounds', checkRepairRounds],
    ['checkWave', checkWave],
    ['parseWave', parseWave],
    ['validateRunInput', validateRunInput],
    ['freezeRunContract', freezeRunContract],
    ['reviveRunContract', (value) => reviveRunContract(value as never)],
    ['parseCheckCommand', parseCheckCommand],
    ['normalizeScopePath', (value) => (typeof value === 'string' ? normalizeScopePath(value) : null)],
  ];
  for (const [name, validate] of structured)
    it(`${name} throws only named errors on ${NUM_RUNS} arbitrary values`, () => {
      fc.assert(
        fc.property(anything, (value) => {
          namedOnly(() => validate(value));
        }),
        settings,
      );
    });

  it(`the cybernetic run input: request-shaped values with arbitrary fields (${NUM_RUNS})`, () => {
    const request = fc.record({
      invariant: fc.record({
        statement: fc.oneof(fc.string(), anything),
        offHappyPath: fc.oneof(fc.string(), anything),
        check: fc.record({
          command: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), fc.string(), anything),
        }),
      }),
      budget: fc.oneof(fc.integer(), anything),
      scope: fc.oneof(
        fc.array(fc.oneof(soup(['src', '/', '.', '..', '.git', '\\', ' '], 6), anything), { maxLength: 3 }),
        anything,
      ),
      existingChecks: fc.oneof(
        fc.array(fc.record({ name: fc.string(), command: fc.string() }), { maxLength: 2 }),
        anything,
      ),
    });
    fc.assert(
      fc.property(request, (value) => {
        const frozen = freezeRunContract(value);
        if (frozen.ok) reviveRunContract(JSON.parse(JSON.stringify(frozen.contract)));
        else expect(frozen.record.findings.length).toBeGreaterThan(0);
      }),
      settings,
    );
  });

  it(`crank waves and RPI rounds: shaped objects with arbitrary fields (${NUM_RUNS})`, () => {
    const wave = fc.record({
      lanes: fc.oneof(
        fc.array(fc.record({ id: fc.string(), scope: fc.array(fc.string(), { maxLength: 2 }) }), {
          maxLength: 3,
        }),
        anything,
      ),
      tasks: fc.oneof(fc.array(json, { maxLength: 3 }), anything),
    });
    fc.assert(
      fc.property(wave, anything, (w, round) => {
        namedOnly(() => parseWave(w));
        namedOnly(() => checkWave(w));
        namedOnly(() => normalizeRound({ ...((round as object) ?? {}) }));
      }),
      settings,
    );
  });

  const texts: [string, fc.Arbitrary<string>, (text: string) => unknown][] = [
    ['parseEntryContract', soup(ENTRY_TOKENS, 30), parseEntryContract],
    [
      'parseTimeOrCostBudget',
      soup(['3', '30', ' minutes', ' hours', '$', '5', '.', ' cycles', 'USD', '-'], 6),
      parseTimeOrCostBudget,
    ],
    [
      'parseTranscript',
      fc.oneof(
        fc
          .array(
            json.map((v) => JSON.stringify(v)),
            { maxLength: 4 },
          )
          .map((lines) => lines.join('\n')),
        soup(['{', '}', '"version":1', ',', '\n'], 16),
      ),
      parseTranscript,
    ],
  ];
  for (const [name, arbitrary, parse] of texts)
    it(`${name} never throws on ${NUM_RUNS} generated texts`, () => {
      fc.assert(
        fc.property(arbitrary, (text) => {
          parse(text);
        }),
        settings,
      );
    });

  it(`parseCoverageReport throws only named errors (${NUM_RUNS})`, () => {
    fc.assert(
      fc.property(
        fc.oneof(
          json.map((v) => JSON.stringify(v)),
          raw,
        ),
        (text) => {
          namedOnly(() => parseCoverageReport(text));
        },
      ),
      settings,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The verify half: review returns (docs/review-contract.md), the overrides file's verification
// command (gauntlet-protocol §3.1: exactly one backticked command), legacy `cap:` ledgers.

describe('review returns, the overrides file and legacy ledgers', () => {
  const roles: readonly ReviewRole[] = ['whole-diff', 'conformance'];
  const oneLine = fc.string({ minLength: 1, maxLength: 12 }).filter((t) => !t.includes('\n'));
  const gapId = fc.nat({ max: 30 }).map((n) => `G${n}`);

  /** A return the contract admits, written from docs/review-contract.md, not from the schema. */
  const validReturn = fc.oneof(
    fc
      .record({
        verdict: fc.constantFrom('SHIP', 'REVISE'),
        minors: fc.array(oneLine, { maxLength: 3 }),
        fixTasks: fc.array(oneLine, { maxLength: 3 }),
      })
      .filter((r) => r.verdict === 'SHIP' || r.fixTasks.length > 0)
      .map((r) => ({ role: 'whole-diff' as const, ...r })),
    fc
      .record({
        gaps: fc.uniqueArray(fc.record({ id: gapId, text: oneLine }), {
          maxLength: 3,
          selector: (g) => g.id,
        }),
        fixTasks: fc.array(oneLine, { maxLength: 3 }),
      })
      .map((r) => ({
        role: 'conformance' as const,
        verdict: r.gaps.length === 0 ? 'CONFORMS' : 'GAPS',
        openGaps: r.gaps,
        fixTasks: r.fixTasks,
      })),
  );

  it(`parseReviewReturn admits every return the contract allows, field for field (${NUM_RUNS})`, () => {
    fc.assert(
      fc.property(validReturn, (value) => {
        const result = parseReviewReturn(value.role, JSON.stringify(value));
        expect(result).toEqual({ ok: true, review: value });
      }),
      settings,
    );
  });

  it(`parseReviewReturn never throws, and what it admits keeps the contract's verdict rules (${NUM_RUNS})`, () => {
    const shaped = fc.record(
      {
        role: fc.oneof(fc.constantFrom(...roles), anything),
        verdict: fc.oneof(fc.constantFrom('SHIP', 'REVISE', 'CONFORMS', 'GAPS'), anything),
        minors: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), anything),
        fixTasks: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), anything),
        openGaps: fc.oneof(
          fc.array(fc.record({ id: fc.oneof(gapId, fc.string()), text: fc.string() })),
          anything,
        ),
      },
      { requiredKeys: ['role', 'verdict'] },
    );
    const text = fc.oneof(
      shaped.map((v) => JSON.stringify(v)),
      json.map((v) => JSON.stringify(v)),
      soup(['{', '}', '"role"', ':', '"conformance"', '"verdict"', '"GAPS"', ',', '[', ']', 'null'], 20),
      raw,
    );
    let admitted = 0;
    fc.assert(
      fc.property(fc.constantFrom(...roles), fc.option(text, { nil: null }), (role, body) => {
        const result = parseReviewReturn(role, body);
        if (!result.ok) {
          expect(result.miss.startsWith('review miss: ')).toBe(true);
          return;
        }
        admitted++;
        const review = result.review;
        expect(review.role).toBe(role);
        if (review.role === 'whole-diff')
          expect(review.verdict === 'SHIP' || review.fixTasks.length > 0).toBe(true);
        else expect(review.verdict === 'CONFORMS').toBe(review.openGaps.length === 0);
      }),
      settings,
    );
    // The filter above must not have turned the property into "every input is a miss".
    expect(admitted).toBeGreaterThan(0);
  });

  it(`overridesVerification finds the one backticked command, and calls zero or several an error (${NUM_RUNS})`, () => {
    const command = fc.stringMatching(/^[a-z][a-z0-9 ._-]{0,14}$/).filter((c) => c.trim() !== '');
    const filler = fc.constantFrom('', 'Run this before claiming completion.', '- a note', '### detail');
    const file = fc.record({
      before: fc.array(filler, { maxLength: 2 }),
      commands: fc.array(command, { maxLength: 3 }),
      between: filler,
      after: fc.constantFrom('', '## other section\n`not this one`'),
    });
    fc.assert(
      fc.property(file, ({ before, commands, between, after }) => {
        const text = [
          '# Overrides',
          ...before,
          '## verification-before-completion',
          ...commands.flatMap((c) => [between, `Run \`${c}\`.`]),
          after,
        ].join('\n');
        const result = overridesVerification(text);
        if (commands.length === 1)
          expect(result).toMatchObject({ kind: 'command', command: commands[0]?.trim() });
        else expect(result.kind).toBe('error');
      }),
      settings,
    );
  });

  it(`overridesVerification, legacyAllowance and historicLedger never throw (${NUM_RUNS} each)`, () => {
    const overrides = soup(
      ['## verification-before-completion', '\n', '`', '```', '~~~', 'npm test', '# ', '## x', ' '],
      25,
    );
    fc.assert(
      fc.property(fc.oneof(overrides, raw), (text) => {
        const result = overridesVerification(text);
        expect(['absent', 'command', 'error']).toContain(result.kind);
      }),
      settings,
    );
    const legacy = fc.oneof(
      mutatedLedger.map((t) => t.replace(/^allowance:/m, 'cap:')),
      soup([...LEDGER_TOKENS, 'cap: 4\n', 'cap: x\n', 'cap:\n'], 40),
    );
    fc.assert(
      fc.property(legacy, (text) => {
        const result = legacyAllowance(text);
        expect(['current', 'migrate', 'invalid']).toContain(result.kind);
        if (result.kind === 'migrate') expect(parseLedger(result.text).ledger).not.toBeNull();
        historicLedger(text);
      }),
      settings,
    );
  });

  it(`a valid current ledger is never migrated (${NUM_RUNS})`, () => {
    fc.assert(
      fc.property(ledgerModel, (model) => {
        expect(legacyAllowance(writeLedger(model))).toEqual({ kind: 'current' });
      }),
      settings,
    );
  });
});
