/**
 * Builders for validation legs as a validator would emit them (snake_case JSON), so tests read
 * as the protocol's scenarios: `fail(A, ['f1', 'f2'])` is a FAIL leg over subject A naming f1, f2.
 */

/** Three distinct subject digests (sha256-shaped: 64 lowercase hex). */
export const A = 'a'.repeat(64);
export const B = 'b'.repeat(64);
export const C = 'c'.repeat(64);

export interface LegExtras {
  evidence?: unknown[];
  family?: string;
  checked?: string[];
  not_checked?: string[];
}

export type Leg = Record<string, unknown>;

/** A leg with the given verdict, digest and finding ids (summaries derived from the ids). */
export function leg(status: string, digest: string, ids: string[], extras: LegExtras = {}): Leg {
  const out: Leg = {
    status,
    findings: ids.map((id) => ({ id, summary: `defect ${id}` })),
    subject_digest: digest,
    evidence_refs: extras.evidence ?? [],
  };
  if (extras.family !== undefined) out.validator_family = extras.family;
  if (extras.checked !== undefined) out.checked = extras.checked;
  if (extras.not_checked !== undefined) out.not_checked = extras.not_checked;
  return out;
}

export const pass = (digest: string, extras?: LegExtras) => leg('PASS', digest, [], extras);
export const fail = (digest: string, ids: string[], extras?: LegExtras) => leg('FAIL', digest, ids, extras);
export const notProven = (digest: string, ids: string[], extras?: LegExtras) =>
  leg('NOT_PROVEN', digest, ids, extras);

/** Evidence bound to a digest and naming the ids it resolves. */
export function binding(ref: string, digest: string, resolves: string[]) {
  return { ref, subject_digest: digest, resolves };
}
