/**
 * Legacy `cap:` ledgers (gauntlet-protocol §1.2, §3.2, scenario RS3): a ledger written before the
 * allowance header carries `cap: <n>` and no `allowance:`. At an authorized restore the loop
 * migrates it with one `loop: migrate allowance` commit, before refresh and before any dirty-tree
 * stop, instead of the precondition stop that points to a tool loopchart does not have. Pure.
 *
 * The protocol is silent on the migrated value (the gauntlet-resume text that holds it was not
 * reachable). loopchart's decision (docs/decisions/rules.md): `allowance:` takes the `cap:` value,
 * the bound the ledger's rows were already run against, written right after `iterations:`; the
 * allowance setting is never consulted (RS3); rows, attempts, iterations and decisions are
 * unchanged, so a row already at or above its effective allowance is exhausted after migration.
 */
import { parseLedger, serializeLedger } from './ledger.js';
import type { Ledger } from './types.js';

/** Subject of the migration commit. */
export const MIGRATE_ALLOWANCE_SUBJECT = 'loop: migrate allowance';

/** What a ledger text needs at restore. */
export type LegacyAllowance =
  /** Not a legacy ledger (no `cap:` line, or `allowance:` present): nothing to migrate. */
  | { readonly kind: 'current' }
  /** A legacy ledger: the migrated ledger, its text and the migration commit's body. */
  | { readonly kind: 'migrate'; readonly ledger: Ledger; readonly text: string; readonly body: string }
  /** A `cap:` ledger that cannot be migrated: a configuration error naming why. */
  | { readonly kind: 'invalid'; readonly reason: string };

const CAP = /^cap:(.*)$/;
const ALLOWANCE = /^allowance:/;
const ITERATIONS = /^iterations:/;

type Migrated =
  | { readonly kind: 'current' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'migrated'; readonly ledger: Ledger; readonly allowance: number };

function migrateText(text: string): Migrated {
  const lines = text.split(/\r?\n/);
  // The header block: from line 2 up to the first table line or heading.
  let end = lines.findIndex((l, i) => i > 0 && (l.startsWith('|') || l.startsWith('#')));
  if (end === -1) end = lines.length;
  const header = lines.slice(0, end);
  const caps = header.map((l, i) => [l, i] as const).filter(([l]) => CAP.test(l));
  if (caps.length === 0 || header.some((l) => ALLOWANCE.test(l))) return { kind: 'current' };
  if (caps.length > 1)
    return { kind: 'invalid', reason: `the legacy ledger has ${caps.length} cap: lines; keep one` };
  const [capLine, capAt] = caps[0] as readonly [string, number];
  const raw = (CAP.exec(capLine)?.[1] ?? '').trim();
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    return { kind: 'invalid', reason: `the legacy cap: value "${raw}" is not a non-negative integer` };
  const allowance = Number(raw);
  const without = lines.filter((_, i) => i !== capAt);
  const iterationsAt = without.findIndex((l, i) => i < end && ITERATIONS.test(l));
  if (iterationsAt === -1)
    return { kind: 'invalid', reason: 'the legacy ledger has no iterations: line to write allowance: after' };
  without.splice(iterationsAt + 1, 0, `allowance: ${allowance}`);
  const parsed = parseLedger(without.join('\n'));
  return parsed.ledger === null
    ? {
        kind: 'invalid',
        reason: `the legacy ledger does not parse after migration: ${parsed.findings.map((f) => `line ${f.line}: ${f.reason}`).join('; ')}`,
      }
    : { kind: 'migrated', ledger: parsed.ledger, allowance };
}

/**
 * A ledger of branch history as the replay reads it: a legacy `cap:` ledger reads as if migrated
 * (its `cap:` value as the allowance), so the history before a `loop: migrate allowance` commit
 * (the seed, earlier returns and repairs) keeps counting after the migration.
 *
 * @param text a committed ledger's text
 * @returns the ledger, or `null` when it does not parse either way
 */
export function historicLedger(text: string): Ledger | null {
  const parsed = parseLedger(text).ledger;
  if (parsed !== null) return parsed;
  const migrated = migrateText(text);
  return migrated.kind === 'migrated' ? migrated.ledger : null;
}

/**
 * Migrates a legacy `cap:` ledger text to the allowance header.
 *
 * @param text the ledger file's text
 */
export function legacyAllowance(text: string): LegacyAllowance {
  const migrated = migrateText(text);
  if (migrated.kind !== 'migrated') return migrated;
  const { ledger, allowance } = migrated;
  if (ledger.pending !== null)
    return {
      kind: 'invalid',
      reason:
        'the legacy cap: ledger carries a pending tuple; recover or remove the dispatch in flight by hand, then run again',
    };
  return {
    kind: 'migrate',
    ledger,
    text: serializeLedger(ledger),
    body: `cap: ${allowance}\nallowance: ${allowance}`,
  };
}
