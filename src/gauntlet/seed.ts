/**
 * Entry step 4 of the loop engine: the ledger skeleton seeded from the spec
 * (gauntlet-protocol §1.2, §1.3, §3.1).
 */

import { type Finding, finding } from '../common/finding.js';
import { checkLedger, DEFAULT_CHECKS, DEFAULT_DISCRIMINANT } from './ledger.js';
import { homeMember, isCoordinated, type LegEntry, legEntries, memberNames } from './leg-entries.js';
import { dispositionEvidence, isCutDisposition } from './spec.js';
import type { Ledger, LedgerLegs, LedgerRow, Spec } from './types.js';

/** The allowance a fresh ledger gets when the host's setting is unset (§1.2). */
export const DEFAULT_ALLOWANCE = 4;

/** What the seed needs besides the spec. */
export interface SeedOptions {
  /** Repo-relative path of the spec, written alone in the `**Spec:**` header. */
  readonly specPath: string;
  /** Full SHA of the worktree HEAD at seeding (`git rev-parse HEAD`). */
  readonly base: string;
  /** The resolved verification (CI) command. */
  readonly verification: string;
  /** The allowance setting; default 4. Never scaled by row count. */
  readonly allowance?: number;
  /** The gate-set mode line; default `commands`. */
  readonly checks?: string;
  /** Line 1; default `# Loop ledger`. */
  readonly discriminant?: string;
  /**
   * Coordinated specs only: each member's base, read from that member's own checkout (§3.20:
   * "resolve bases with each member's `git -C`, not home HEAD"), keyed by member name, home
   * included (equal to `base`). Ignored for a single-leg spec.
   */
  readonly memberBases?: Readonly<Record<string, string>>;
}

/** Result of {@link seedLedger}: the skeleton, or `null` with the findings that prevent it. */
export interface SeededLedger {
  readonly ledger: Ledger | null;
  readonly findings: Finding[];
}

/**
 * Builds the fresh ledger skeleton: headers in protocol order with `iterations: 0` and the
 * allowance right after it, one row per spec AC in order, `in-scope` and `venue:` rows `open`
 * with empty evidence, `deviates:`/`deferred:`/`elsewhere:` rows `cut` with the disposition text
 * as evidence, all attempts 0, no decisions, no `pending:`. The allowance is the setting as is:
 * never scaled by row count, and kept when every row is cut.
 *
 * The spec's own findings are the caller's to act on; this function only reads its rows.
 *
 * @param spec the parsed spec.
 * @param options spec path, base SHA, verification command, allowance, checks, discriminant.
 * @returns the ledger (no layout: it serializes canonically) or `null` with findings:
 *   `seed.allowance` for an allowance that is not an integer >= 1 (§6 A20), and the `ledger.*`
 *   findings of {@link checkLedger} for values that cannot be written (bad SHA, blank command,
 *   absolute or decorated spec path).
 */
export function seedLedger(spec: Spec, options: SeedOptions): SeededLedger {
  const allowance = options.allowance ?? DEFAULT_ALLOWANCE;
  const findings: Finding[] = [];
  const allowanceOk = Number.isSafeInteger(allowance) && allowance >= 1;
  if (!allowanceOk)
    findings.push(
      finding(
        'seed.allowance',
        0,
        `the allowance setting must be an integer >= 1 to seed a ledger, got ${String(allowance)}`,
      ),
    );
  // One row per entry: a criterion per leg that implements it, its disposition copied (§1.7).
  const entries = legEntries(spec);
  const rows: LedgerRow[] = entries.map((entry) => {
    const cut = isCutDisposition(entry.disposition);
    return {
      row: entry.row,
      status: cut ? 'cut' : 'open',
      attempts: 0,
      evidence: dispositionEvidence(entry.disposition),
    };
  });
  const legs = isCoordinated(spec) ? coordinatedLegs(spec, entries, options, findings) : undefined;
  const ledger: Ledger = {
    discriminant: options.discriminant ?? DEFAULT_DISCRIMINANT,
    spec: options.specPath,
    base: options.base,
    verification: options.verification,
    checks: options.checks ?? DEFAULT_CHECKS,
    iterations: 0,
    allowance,
    pending: null,
    rows,
    decisions: [],
    ...(legs === undefined ? {} : { legs }),
  };
  // A bad allowance is reported once, as seed.allowance; check everything else as written.
  // A member's base already refused above is not reported again as the ledger's ambiguous home.
  const baseRefused = findings.some((f) => f.code.startsWith('seed.') && f.code.includes('base'));
  findings.push(
    ...checkLedger(allowanceOk ? ledger : { ...ledger, allowance: DEFAULT_ALLOWANCE }, spec).filter(
      (f) => !(baseRefused && f.code === 'ledger.check.home-base'),
    ),
  );
  return findings.length > 0 ? { ledger: null, findings } : { ledger, findings: [] };
}

/** The member pairs (every leg `seeded: no`) and the mapping of a coordinated seed. */
function coordinatedLegs(
  spec: Spec,
  entries: readonly LegEntry[],
  options: SeedOptions,
  findings: Finding[],
): LedgerLegs {
  const bases = options.memberBases ?? {};
  const home = homeMember(spec);
  const members = memberNames(spec).map((name) => {
    const base = Object.hasOwn(bases, name) ? (bases[name] as string) : undefined;
    if (base === undefined)
      findings.push(
        finding(
          'seed.member-base',
          0,
          `no base for member ${name}: read it with git -C <${name} checkout> rev-parse HEAD`,
        ),
      );
    else if (name === home && base !== options.base)
      findings.push(
        finding(
          'seed.home-base',
          0,
          `member ${name} is home: its base ${base} must equal the ledger's base: ${options.base}`,
        ),
      );
    else if (name !== home && base === options.base)
      // The ledger names home only by its base (base <home>: equals base:): a companion at the same
      // commit (another worktree of the home repository) would make home ambiguous.
      findings.push(
        finding(
          'seed.member-base-shared',
          0,
          `member ${name} starts at the home base ${base}: a companion must be another repository, or a checkout at another commit`,
        ),
      );
    return { name, base: base ?? options.base, seeded: false };
  });
  return { members, mapping: entries.map(({ row, ac, leg }) => ({ row, ac, leg })) };
}
