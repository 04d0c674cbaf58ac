// Coordinated legs in the pure core (issue 13): the spec's `## Legs`, the entries it expands to,
// the ledger's member pairs and `## Leg mapping`. Expected values are written by hand from
// gauntlet-protocol §1.2, §1.7, §1.8 (the coordinated variant: members web = home and api, AC 2
// shared) and §3.20, and from docs/decisions/legs.md where the protocol is silent.
import { describe, expect, it } from 'vitest';
import { checkLedger, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { homeMember, isCoordinated, legEntries, memberNames } from '../../src/gauntlet/leg-entries.js';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';
import { ledgerText } from './text-fixtures.js';

const CRITERIA = ['- [ ] export button', '- [ ] CSV endpoint', '- [ ] rate limit'];

function specText(legs: string[], criteria: string[] = CRITERIA): string {
  return ['# CSV export', '', '## Acceptance criteria', '', ...criteria, '', '## Legs', '', ...legs, ''].join(
    '\n',
  );
}

function spec(legs: string[], criteria: string[] = CRITERIA): Spec {
  const parsed = parseSpec(specText(legs, criteria));
  expect(parsed.findings).toEqual([]);
  return parsed.spec;
}

function codes(text: string): string[] {
  return parseSpec(text).findings.map((f) => f.code);
}

// §1.8's coordinated variant, completed with the single-leg example's other headers.
const COORDINATED_LEDGER = coordinatedLedgerText({
  rows: [
    '| 1 | done | 0 | seed: button renders |',
    '| 2 | open | 0 |  |',
    '| 3 | open | 0 |  |',
    '| 4 | open | 0 |  |',
  ],
  decisions: ['seed: web closed row 1 on baseline'],
});

const parsed = parsedLedger;

describe('## Legs in the spec', () => {
  it('expands §1.8: AC 2 shared by web (home) and api gives rows web 1, web 2, api 2, api 3', () => {
    const s = spec(['- web (home): 1, 2', '- api: 2, 3']);
    expect(isCoordinated(s)).toBe(true);
    expect(homeMember(s)).toBe('web');
    expect(memberNames(s)).toEqual(['web', 'api']);
    expect(legEntries(s).map(({ row, ac, leg }) => [row, ac, leg])).toEqual([
      [1, 1, 'web'],
      [2, 2, 'web'],
      [3, 2, 'api'],
      [4, 3, 'api'],
    ]);
  });

  it('numbers shared criteria in membership order, whatever order a member lists its criteria in', () => {
    const listedBackwards = spec(['- web (home): 2, 1', '- api: 3, 2']);
    const asRanges = spec(['- web (home): 1-2', '- api: 2-3']);
    expect(legEntries(listedBackwards)).toEqual(legEntries(asRanges));
    // api listed first: the shared AC 2 goes to api before web; home stays web.
    const apiFirst = spec(['- api: 2-3', '- web (home): 1-2']);
    expect(homeMember(apiFirst)).toBe('web');
    expect(legEntries(apiFirst).map(({ ac, leg }) => `${ac}:${leg}`)).toEqual([
      '1:web',
      '2:api',
      '2:web',
      '3:api',
    ]);
  });

  it('takes the first listed member as home when none is marked, and `all` for every criterion', () => {
    const s = spec(['- app: all', '- docs: 3']);
    expect(homeMember(s)).toBe('app');
    expect(legEntries(s).map(({ ac, leg }) => `${ac}:${leg}`)).toEqual(['1:app', '2:app', '3:app', '3:docs']);
  });

  it('one member or no section is a single-leg run in home', () => {
    for (const s of [spec(['- app: all']), parseSpec(specText([]).replace('## Legs\n', '')).spec]) {
      expect(isCoordinated(s)).toBe(false);
      expect(homeMember(s)).toBe('home');
      expect(memberNames(s)).toEqual(['home']);
      expect(legEntries(s).map(({ row, ac, leg }) => [row, ac, leg])).toEqual([
        [1, 1, 'home'],
        [2, 2, 'home'],
        [3, 3, 'home'],
      ]);
    }
    expect('legs' in parseSpec(['# t', '## Acceptance criteria', '- [ ] a', ''].join('\n')).spec).toBe(false);
  });

  it('names every problem of the section', () => {
    expect(codes(specText(['- web (home): 1, 2']))).toEqual(['spec.legs.unassigned']);
    expect(codes(specText(['- web: 1-3', '- api: 4']))).toEqual(['spec.legs.acs']);
    expect(codes(specText(['- web: 1-3', '- api: 3-2']))).toEqual(['spec.legs.acs']);
    expect(codes(specText(['- web: 1-3', '- api: one']))).toEqual(['spec.legs.acs']);
    expect(codes(specText(['- web: 1-3', '- api:']))).toEqual(['spec.legs.acs']);
    expect(codes(specText(['- web: 1-3', '- api: 2, 2']))).toEqual(['spec.legs.acs']);
    expect(codes(specText(['- web (home): 1-3', '- api (home): 2']))).toEqual(['spec.legs.home']);
    expect(codes(specText(['- web: 1-3', '- web: 2']))).toEqual(['spec.legs.duplicate-member']);
    expect(codes(specText(['- Web: 1-3']))).toEqual(['spec.legs.name', 'spec.legs.empty']);
    expect(codes(specText(['- web 1-3']))).toEqual(['spec.legs.item', 'spec.legs.empty']);
    expect(codes(specText(['Legs are listed below.']))).toEqual(['spec.legs.empty']);
    expect(codes(`${specText(['- web: all'])}\n## Legs\n\n- api: 1\n`)).toEqual(['spec.legs.duplicate']);
  });
});

describe('coordinated seed (§1.2, §1.7)', () => {
  const s = spec(
    ['- web (home): 1, 2', '- api: 2, 3'],
    ['- [ ] export button', '- [ ] CSV endpoint', '- [ ] rate limit', '  deferred: ACME-412'],
  );

  it('writes one base/seeded pair per member (home included), a row per entry, the mapping; cut copied', () => {
    const result = seedLedger(s, {
      specPath: 'doc/specs/csv-export.md',
      base: HOME_BASE,
      verification: 'npm test',
      memberBases: { web: HOME_BASE, api: API_BASE },
    });
    expect(result.findings).toEqual([]);
    const text = serializeLedger(result.ledger as Ledger);
    expect(text).toBe(
      coordinatedLedgerText({
        spec: 'doc/specs/csv-export.md',
        base: HOME_BASE,
        members: [
          { name: 'web', base: HOME_BASE, seeded: false },
          { name: 'api', base: API_BASE, seeded: false },
        ],
        iterations: 0,
        rows: [
          '| 1 | open | 0 |  |',
          '| 2 | open | 0 |  |',
          '| 3 | open | 0 |  |',
          '| 4 | cut | 0 | deferred: ACME-412 |',
        ],
        mapping: [
          [1, 1, 'web'],
          [2, 2, 'web'],
          [3, 2, 'api'],
          [4, 3, 'api'],
        ],
      }),
    );
    expect(checkLedger(parsed(text), s)).toEqual([]);
  });

  it('copies a shared criterion’s cut disposition to every expanded entry', () => {
    const shared = spec(['- web (home): 1, 2', '- api: 2'], ['- [ ] a', '- [ ] b', '  deviates: not needed']);
    const ledger = seedLedger(shared, {
      specPath: 's.md',
      base: HOME_BASE,
      verification: 'npm test',
      memberBases: { web: HOME_BASE, api: API_BASE },
    }).ledger as Ledger;
    expect(ledger.rows.map((r) => `${r.row} ${r.status} ${r.evidence}`)).toEqual([
      '1 open ',
      '2 cut deviates: not needed',
      '3 cut deviates: not needed',
    ]);
  });

  it('refuses a member without a base, and a home base that is not the ledger’s base', () => {
    const options = { specPath: 's.md', base: HOME_BASE, verification: 'npm test' };
    expect(
      seedLedger(s, { ...options, memberBases: { web: HOME_BASE } }).findings.map((f) => f.code),
    ).toEqual(['seed.member-base']);
    expect(
      seedLedger(s, { ...options, memberBases: { web: API_BASE, api: API_BASE } }).findings.map(
        (f) => f.code,
      ),
    ).toEqual(['seed.home-base']);
    // A companion at the home commit (another worktree of the home repository): the ledger could
    // not tell which member is home, so the seed refuses it.
    expect(
      seedLedger(s, { ...options, memberBases: { web: HOME_BASE, api: HOME_BASE } }).findings.map(
        (f) => f.code,
      ),
    ).toEqual(['seed.member-base-shared']);
  });

  it('a single-leg seed carries no coordinated metadata even when bases are given', () => {
    const single = spec(['- app: all']);
    const ledger = seedLedger(single, {
      specPath: 's.md',
      base: HOME_BASE,
      verification: 'npm test',
      memberBases: { app: HOME_BASE },
    }).ledger as Ledger;
    const text = serializeLedger(ledger);
    expect(text).not.toMatch(/seeded|Leg mapping|base app/);
    expect('legs' in ledger).toBe(false);
  });
});

describe('coordinated ledger (§1.7, §1.8)', () => {
  it('reads §1.8’s members and mapping and writes the text back byte for byte', () => {
    const ledger = parsed(COORDINATED_LEDGER);
    expect(ledger.base).toBe(HOME_BASE);
    expect(ledger.legs).toEqual({
      members: [
        { name: 'web', base: HOME_BASE, seeded: true },
        { name: 'api', base: API_BASE, seeded: false },
      ],
      mapping: [
        { row: 1, ac: 1, leg: 'web' },
        { row: 2, ac: 2, leg: 'web' },
        { row: 3, ac: 2, leg: 'api' },
        { row: 4, ac: 3, leg: 'api' },
      ],
    });
    expect(serializeLedger(ledger)).toBe(COORDINATED_LEDGER);
    const crlf = COORDINATED_LEDGER.replaceAll('\n', '\r\n');
    expect(serializeLedger(parsed(crlf))).toBe(crlf);
  });

  it('flipping one leg’s seeded flag rewrites that line only', () => {
    const ledger = parsed(COORDINATED_LEDGER);
    const legs = ledger.legs as NonNullable<Ledger['legs']>;
    const flipped: Ledger = {
      ...ledger,
      legs: { ...legs, members: legs.members.map((m) => (m.name === 'api' ? { ...m, seeded: true } : m)) },
    };
    expect(serializeLedger(flipped)).toBe(COORDINATED_LEDGER.replace('seeded api: no', 'seeded api: yes'));
  });

  it('is checked against the spec: the mapping, the members’ order, coordinated vs single leg', () => {
    const s = spec(['- web (home): 1, 2', '- api: 2, 3']);
    expect(checkLedger(parsed(COORDINATED_LEDGER), s)).toEqual([]);
    const swapped = spec(['- web (home): 1, 3', '- api: 2']);
    expect(checkLedger(parsed(COORDINATED_LEDGER), swapped).map((f) => f.code)).toEqual([
      'ledger.check.row-count',
      'ledger.check.leg-mapping',
      'ledger.check.leg-mapping',
    ]);
    const reordered = spec(['- api: 2, 3', '- web (home): 1, 2']);
    expect(checkLedger(parsed(COORDINATED_LEDGER), reordered).map((f) => f.code)).toEqual([
      'ledger.check.members',
      'ledger.check.leg-mapping',
      'ledger.check.leg-mapping',
    ]);
    const single = spec(['- web: all']);
    expect(checkLedger(parsed(COORDINATED_LEDGER), single).map((f) => f.code)).toContain(
      'ledger.check.legs-unexpected',
    );
    const plain = COORDINATED_LEDGER.replace(
      /base web.*\nseeded web.*\nbase api.*\nseeded api.*\n/,
      '',
    ).replace(/## Leg mapping\n[\s\S]*?\| 4 \| 3 \| api \|\n\n/, '');
    expect(checkLedger(parsed(plain), s).map((f) => f.code)).toEqual(['ledger.check.legs-missing']);
  });

  it("is checked for one home: only the spec's home member has the ledger's base: as its base", () => {
    const s = spec(['- web (home): 1, 2', '- api: 2, 3']);
    const sharedBase = COORDINATED_LEDGER.replace(`base api: ${API_BASE}`, `base api: ${HOME_BASE}`);
    expect(checkLedger(parsed(sharedBase), s).map((f) => f.code)).toEqual(['ledger.check.home-base']);
    const companionAtHome = COORDINATED_LEDGER.replace(
      `base web: ${HOME_BASE}`,
      `base web: ${API_BASE}`,
    ).replace(`base api: ${API_BASE}`, `base api: ${HOME_BASE}`);
    const finding = checkLedger(parsed(companionAtHome), s).find((f) => f.code === 'ledger.check.home-base');
    expect(finding?.reason).toContain('home member web');
    expect(finding?.reason).toContain('members at that base: api');
  });

  const broken: [string, string, string][] = [
    ['a single member pair', 'ledger.legs.single-member', drop(['base api', 'seeded api'])],
    ['a member without its seeded line', 'ledger.legs.pair', drop(['seeded api'])],
    [
      'a seeded value other than yes/no',
      'ledger.legs.seeded',
      COORDINATED_LEDGER.replace('seeded api: no', 'seeded api: maybe'),
    ],
    [
      'a short base',
      'ledger.legs.base',
      COORDINATED_LEDGER.replace(`base api: ${API_BASE}`, 'base api: 0c1d2e3'),
    ],
    [
      'a member line twice',
      'ledger.legs.duplicate',
      COORDINATED_LEDGER.replace('seeded web: yes', 'seeded web: yes\nseeded web: no'),
    ],
    [
      'members without a mapping',
      'ledger.legs.mapping-missing',
      COORDINATED_LEDGER.replace('## Leg mapping', '## Notes'),
    ],
    [
      'a mapping without members',
      'ledger.legs.members-missing',
      drop(['base web', 'seeded web', 'base api', 'seeded api']),
    ],
    [
      'a row mapped twice',
      'ledger.legs.mapping-row',
      COORDINATED_LEDGER.replace('| 3 | 2 | api |', '| 2 | 2 | api |'),
    ],
    ['a missing mapping', 'ledger.legs.mapping-count', COORDINATED_LEDGER.replace('| 4 | 3 | api |\n', '')],
    [
      'a mapping to a non-member',
      'ledger.legs.unknown-leg',
      COORDINATED_LEDGER.replace('| 4 | 3 | api |', '| 4 | 3 | cli |'),
    ],
    [
      'a mapping line with two cells',
      'ledger.legs.mapping-cells',
      COORDINATED_LEDGER.replace('| 4 | 3 | api |', '| 4 | 3 |'),
    ],
    [
      'a pending tuple naming a non-member',
      'ledger.legs.pending-repo',
      COORDINATED_LEDGER.replace('allowance: 4\n', `allowance: 4\npending: 2 | home | ${HOME_BASE}\n`),
    ],
    [
      'a second mapping section',
      'ledger.legs.mapping-duplicate',
      COORDINATED_LEDGER.replace('## Decisions', '## Leg mapping\n\n## Decisions'),
    ],
  ];
  function drop(prefixes: string[]): string {
    return COORDINATED_LEDGER.split('\n')
      .filter((line) => !prefixes.some((prefix) => line.startsWith(`${prefix}:`)))
      .join('\n');
  }
  for (const [what, code, text] of broken)
    it(`refuses ${what} (${code})`, () => {
      const result = parseLedger(text);
      expect(result.ledger).toBeNull();
      expect(result.findings.map((f) => f.code)).toContain(code);
    });

  it('a single-leg ledger parses without a legs field and its bytes are unchanged', () => {
    const single = ledgerText({ spec: 's.md', base: HOME_BASE, rows: ['| 1 | open | 0 |  |'] });
    const ledger = parsed(single);
    expect('legs' in ledger).toBe(false);
    expect(serializeLedger(ledger)).toBe(single);
  });
});
