/**
 * The demo repository: a small git repository with a spec of four acceptance rows and a script
 * for the scripted child that walks the loop through a seed, ordinary dispatches, a validation
 * miss, an interrupted return (a dirty tree with a background job and a recorded spend), a human
 * stop at the row allowance answered with a retry, and a verify that passes.
 *
 * Row 1 is cut by its disposition, row 2 closes on the baseline during the seed, row 3 needs two
 * attempts (the second one escalated), row 4 reaches its allowance and is retried.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ChildScript } from './child-script.js';

/** Settings the demo runs with. */
export const DEMO_SETTINGS = { allowance: 2, escalateAfter: 2, implModel: 'demo/scripted-model' } as const;

/** The reply a person gives at the demo's stop. */
export const DEMO_ANSWER = 'retry 4 | write the header row for an empty report';

/** Repo-relative paths of the demo repository. */
export const DEMO_PATHS = {
  spec: 'docs/specs/csv-export.md',
  ledger: 'docs/plans/csv-export.md',
  script: '.loopchart/demo-script.json',
} as const;

/** The verification command the demo ledger records. */
export const DEMO_VERIFICATION = 'test -f src/escape.txt && test -f src/empty-report.txt';

const SPEC = `# CSV export

**Amend-grant:** none

## Problem

Reports can only be read in the browser; people want a CSV file.

## Acceptance criteria

Ticket DEMO-1, checkbox list, rows verbatim:

- [ ] XLSX output is offered next to CSV
  deviates: XLSX dropped by product decision; CSV only
- [ ] The export writes a header row
- [ ] Commas and quotes in cells are escaped
  in-scope
- [ ] An empty report exports the header row only
`;

/** The demo's child script. */
export const DEMO_SCRIPT: ChildScript = {
  version: 1,
  targets: {
    seed: [
      {
        do: 'seed',
        evidence: {
          '2': 'csv-test header; header row already exported on baseline',
          '3': 'csv-test escaping; 1 failing: commas are not escaped',
          '4': 'csv-test empty; 1 failing: an empty report writes nothing',
        },
        closeOnBaseline: [2],
      },
    ],
    '3': [
      {
        do: 'failed',
        evidence: 'csv-test escaping; 1 failing: quotes are not escaped',
        files: { 'src/escape-draft.txt': 'commas escaped, quotes not yet\n' },
      },
      {
        do: 'done',
        evidence: 'csv-test escaping; 3 passed; commas and quotes escaped per RFC 4180',
        files: { 'src/escape.txt': 'commas and quotes escaped\n' },
      },
    ],
    '4': [
      { do: 'miss', violation: 'four-result-lines', files: { 'src/empty-draft.txt': 'first try\n' } },
      {
        do: 'done',
        evidence: 'csv-test empty; 1 passed',
        files: { 'src/empty-report.txt': 'unfinished\n' },
        commit: 'none',
        background: true,
        spend: ['ran fixture-capture (1 of 1)'],
      },
      {
        do: 'done',
        evidence: 'csv-test empty; 2 passed; an empty report writes the header row',
        files: { 'src/empty-report.txt': 'header row only\n' },
      },
    ],
  },
  // Verify steps 2-3: the whole-diff review ships with one minor; the conformance review finds a
  // gap, one fix round closes it, the re-review conforms and the closure block is printed.
  reviews: {
    'whole-diff': [{ verdict: 'SHIP', minors: ['escape.txt and empty-report.txt could share a helper'] }],
    conformance: [
      { verdict: 'GAPS', openGaps: [{ id: 'G1', text: 'row 4: the empty report has no header test' }] },
      { verdict: 'CONFORMS', happyPath: 'exported an empty report and a report with quoted commas' },
    ],
  },
  fixes: {
    conformance: [{ files: { 'src/empty-report-test.txt': 'header row asserted for an empty report\n' } }],
  },
};

/** A prepared demo repository. */
export interface DemoRepository {
  /** The worktree. */
  readonly dir: string;
  readonly specPath: string;
  readonly ledgerPath: string;
  /** Absolute path of the child script. */
  readonly scriptPath: string;
}

/**
 * Creates the demo repository in `dir` (created when missing; it must not be a repository yet):
 * the spec, the child script and a README, committed on branch `main` with a repository-local
 * identity so the demo commits on any machine.
 *
 * @param dir the folder
 * @returns its paths
 */
export function prepareDemoRepository(dir: string): DemoRepository {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'loopchart demo');
  git('config', 'user.email', 'demo@loopchart.invalid');
  git('config', 'commit.gpgsign', 'false');
  write('README.md', '# CSV export demo\n\nA sample repository for `loopchart demo`.\n');
  write('.gitignore', 'build/\n');
  write(DEMO_PATHS.spec, SPEC);
  write(DEMO_PATHS.script, `${JSON.stringify(DEMO_SCRIPT, null, 2)}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'demo: CSV export spec');
  return {
    dir,
    specPath: DEMO_PATHS.spec,
    ledgerPath: DEMO_PATHS.ledger,
    scriptPath: join(dir, DEMO_PATHS.script),
  };
}

/** Repo-relative paths of the two-leg demo's home repository (`loopchart demo --legs`). */
export const LEGS_DEMO_PATHS = {
  spec: 'docs/specs/items.md',
  ledger: 'docs/plans/items.md',
  script: '.loopchart/demo-script.json',
} as const;

/** The home (web) leg's gate: the ledger's verification command. */
export const LEGS_DEMO_VERIFICATION = 'test -f src/list.txt';

/** The companion (api) leg's gate (`--leg-gate api=...`): it fails until the verification repair. */
export const LEGS_DEMO_API_GATE = 'test -f server/route.txt && test -f server/route-test.txt';

const LEGS_SPEC = `# Items everywhere

**Amend-grant:** none

## Problem

The items page and the items API live in two repositories; the feature needs both.

## Acceptance criteria

- [ ] The web page lists the items
- [ ] The API serves the items

## Legs

- web (home): 1
- api: 2
`;

/**
 * The two-leg demo's child script: one seed per leg, web's row 1 and api's row 2 (a companion
 * row, recorded in home with \`loop: record api row 2\`), then api's gate fails for a missing test
 * and one verification repair in the api checkout fixes it; both reviews pass.
 */
export const LEGS_DEMO_SCRIPT: ChildScript = {
  version: 1,
  targets: {
    'seed web': [{ do: 'seed', evidence: { '1': 'web-test list; 1 failing: the page lists nothing' } }],
    'seed api': [{ do: 'seed', evidence: { '2': 'api-test serve; 1 failing: no /items route' } }],
    '1': [
      {
        do: 'done',
        evidence: 'web-test list; 1 passed; the page lists the items',
        files: { 'src/list.txt': 'the page lists the items\n' },
      },
    ],
    '2': [
      {
        do: 'done',
        evidence: 'api-test serve; 1 passed; GET /items serves the items',
        files: { 'server/route.txt': 'GET /items\n' },
      },
    ],
    verify: [{ do: 'verify-fix', files: { 'server/route-test.txt': 'GET /items is tested\n' } }],
  },
  reviews: {
    'whole-diff': [{ verdict: 'SHIP', minors: [] }],
    conformance: [{ verdict: 'CONFORMS', happyPath: 'listed the items on the page from the API' }],
  },
};

/** A prepared two-leg demo: the home (web) and companion (api) repositories. */
export interface LegsDemoRepositories {
  /** The home worktree (it holds the spec and the ledger). */
  readonly web: string;
  /** The companion checkout. */
  readonly api: string;
  readonly specPath: string;
  readonly ledgerPath: string;
  /** Absolute path of the child script (in the home repository). */
  readonly scriptPath: string;
}

/**
 * Creates the two-leg demo in `dir` (created when missing): `dir/web`, the home repository with
 * the spec and the child script, and `dir/api`, the companion repository, each committed on
 * branch `main` with a repository-local identity.
 *
 * @param dir the folder holding both repositories
 */
export function prepareLegsDemo(dir: string): LegsDemoRepositories {
  const web = join(dir, 'web');
  const api = join(dir, 'api');
  const create = (root: string, files: Record<string, string>, subject: string) => {
    mkdirSync(root, { recursive: true });
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'loopchart demo');
    git('config', 'user.email', 'demo@loopchart.invalid');
    git('config', 'commit.gpgsign', 'false');
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    git('add', '-A');
    git('commit', '-q', '-m', subject);
  };
  create(
    web,
    {
      'README.md': '# Items web (home leg)\n\nA sample repository for `loopchart demo --legs`.\n',
      [LEGS_DEMO_PATHS.spec]: LEGS_SPEC,
      [LEGS_DEMO_PATHS.script]: `${JSON.stringify(LEGS_DEMO_SCRIPT, null, 2)}\n`,
    },
    'demo: items spec',
  );
  create(api, { 'README.md': '# Items API (companion leg)\n' }, 'demo: items API');
  return {
    web,
    api,
    specPath: LEGS_DEMO_PATHS.spec,
    ledgerPath: LEGS_DEMO_PATHS.ledger,
    scriptPath: join(web, LEGS_DEMO_PATHS.script),
  };
}
