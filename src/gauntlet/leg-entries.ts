/**
 * Coordinated legs (gauntlet-protocol §1.7, §3.20): which members a spec declares, and the ledger
 * entries they expand to. Pure; the grammar of `## Legs` is loopchart's (docs/decisions/legs.md).
 */

import type { Disposition, LegMappingEntry, Spec, SpecLeg } from './types.js';
import { HOME } from './types.js';

/** One ledger entry of a coordinated run: acceptance criterion `ac` as implemented in `leg`. */
export interface LegEntry extends LegMappingEntry {
  /** The criterion's disposition, copied to every entry it expands to (cut stays cut). */
  readonly disposition: Disposition;
}

/**
 * True when the spec declares more than one member: the run is coordinated. One member or no
 * `## Legs` section is a single-leg run whose repo is `home` and whose ledger carries no
 * coordinated metadata.
 *
 * @param spec a parsed spec.
 */
export function isCoordinated(spec: Spec): boolean {
  return (spec.legs?.length ?? 0) > 1;
}

/**
 * The name the run uses for the checkout that holds the spec and the ledger: the `(home)` member
 * (or the first listed) of a coordinated spec, else `home`.
 *
 * @param spec a parsed spec.
 */
export function homeMember(spec: Spec): string {
  if (!isCoordinated(spec)) return HOME;
  const legs = spec.legs as readonly SpecLeg[];
  return (legs.find((leg) => leg.home) ?? (legs[0] as SpecLeg)).name;
}

/**
 * The members in membership order (the order `## Legs` lists them), or `[home]` for a single leg.
 *
 * @param spec a parsed spec.
 */
export function memberNames(spec: Spec): string[] {
  return isCoordinated(spec) ? (spec.legs as readonly SpecLeg[]).map((leg) => leg.name) : [HOME];
}

/**
 * The ledger entries of a spec (§1.7): acceptance criteria in their original order, and a shared
 * criterion once per member that lists it, in membership order (not in the order a member's own
 * list names its criteria). Entries are numbered 1..N in that order; each carries its criterion's
 * disposition. A single-leg spec gives one entry per criterion in leg `home`.
 *
 * @param spec a parsed spec (its `## Legs` already checked: every criterion has a member).
 */
export function legEntries(spec: Spec): LegEntry[] {
  const legs = isCoordinated(spec) ? (spec.legs as readonly SpecLeg[]) : null;
  const entries: LegEntry[] = [];
  for (const specRow of spec.rows) {
    const members =
      legs === null ? [HOME] : legs.filter((leg) => leg.acs.includes(specRow.row)).map((leg) => leg.name);
    for (const leg of members)
      entries.push({ row: entries.length + 1, ac: specRow.row, leg, disposition: specRow.disposition });
  }
  return entries;
}

/**
 * The `## Leg mapping` a coordinated spec requires, or `null` for a single-leg spec.
 *
 * @param spec a parsed spec.
 */
export function expectedLegMapping(spec: Spec): LegMappingEntry[] | null {
  if (!isCoordinated(spec)) return null;
  return legEntries(spec).map(({ row, ac, leg }) => ({ row, ac, leg }));
}
