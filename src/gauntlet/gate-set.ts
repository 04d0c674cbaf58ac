/**
 * Verify step 1's gate set on coordinated runs (gauntlet-protocol §3.18, §3.20, §6 A3): the
 * ordered gate pairs grouped by `## Leg mapping`, which pairs a rerun executes after a
 * verification repair, and when every leg has passed. Pure.
 *
 * A gate pair is one command run in one leg's checkout. A single-leg ledger has the gate set it
 * always had, every pair in leg `home`: gate 1 is the `verification:` header (the CI command),
 * then each extra gate in order. A coordinated ledger groups the pairs by leg, in membership
 * order, for every member the mapping names (docs/decisions/legs.md L8): the home member runs the
 * `verification:` header and the extra gates, a companion runs the commands configured for it or,
 * when none is configured, the `verification:` header in its own checkout. Gate numbers run
 * 1..N across the whole set, so `gate <i> exit <code> <log path>` names one pair.
 */
import { HOME, type Ledger } from './types.js';

/** One gate pair: a command and the leg whose checkout runs it. */
export interface GatePair {
  /** Position shown to people (`gate <index>`), 1-based and unique across every leg. */
  readonly index: number;
  /** The member whose checkout runs the command (`home` for a single leg). */
  readonly leg: string;
  /** A short name for logs and reports. */
  readonly name: string;
  /** The shell command. */
  readonly command: string;
}

/** How each leg's gate commands are configured. */
export interface GateSetConfig {
  /** The home member's name (`home` for a single leg). */
  readonly home: string;
  /** Extra gate commands of the home leg, run after `verification:` (`--gate`). */
  readonly extra?: readonly string[];
  /**
   * Gate commands of companion legs (`--leg-gate <member>=<command>`, repeatable, in order). A
   * companion without an entry (or with an empty list) runs the `verification:` header.
   */
  readonly legGates?: Readonly<Record<string, readonly string[]>>;
}

/** A gate set configuration refused before any gate runs. */
export class GateSetConfigError extends Error {
  override readonly name = 'GateSetConfigError';
}

/**
 * The members that own gate pairs, in membership order: every member the `## Leg mapping` names
 * (a member without mapped rows has nothing to verify). `[home]` for a single leg.
 *
 * @param ledger the ledger
 */
export function gateLegs(ledger: Ledger): string[] {
  const legs = ledger.legs;
  if (legs === undefined) return [HOME];
  const mapped = new Set(legs.mapping.map((entry) => entry.leg));
  return legs.members.map((member) => member.name).filter((name) => mapped.has(name));
}

/**
 * The gate set of a ledger: ordered pairs grouped by leg (§3.20 "the gate set grouped by
 * `## Leg mapping`").
 *
 * @param ledger the ledger (its `verification:` header is the home leg's CI command)
 * @param config the home member, the extra home gates and the companions' commands
 * @throws GateSetConfigError when `legGates` names a member that is not a companion of the ledger,
 *   or the home member is not a member of a coordinated ledger
 */
export function gateSet(ledger: Ledger, config: GateSetConfig): GatePair[] {
  const legs = gateLegs(ledger);
  const extra = config.extra ?? [];
  const legGates = config.legGates ?? {};
  const members = ledger.legs?.members.map((member) => member.name) ?? [HOME];
  if (ledger.legs !== undefined && !members.includes(config.home))
    throw new GateSetConfigError(
      `the home member ${config.home} is not a member of the ledger (${members.join(', ')})`,
    );
  for (const name of Object.keys(legGates)) {
    if (name === config.home || !members.includes(name))
      throw new GateSetConfigError(
        `gate commands are given for ${name}, which is not a companion leg of this ledger` +
          (ledger.legs === undefined
            ? ' (a single-leg run: use --gate)'
            : ` (companions: ${companions(members, config.home)})`),
      );
  }
  const pairs: GatePair[] = [];
  const add = (leg: string, name: string, command: string) =>
    pairs.push({ index: pairs.length + 1, leg, name, command });
  const home = ledger.legs === undefined ? HOME : config.home;
  for (const leg of legs) {
    if (leg === home) {
      add(leg, 'verification', ledger.verification);
      for (const command of extra) add(leg, `gate ${pairs.length + 1}`, command);
      continue;
    }
    const commands = legGates[leg] ?? [];
    if (commands.length === 0) add(leg, `${leg} verification`, ledger.verification);
    else for (const command of commands) add(leg, `${leg} gate ${pairs.length + 1}`, command);
  }
  return pairs;
}

function companions(members: readonly string[], home: string): string {
  const names = members.filter((name) => name !== home);
  return names.length === 0 ? 'none' : names.join(', ');
}

/** The pairs of one gate set grouped by leg, in the set's order. */
export function pairsByLeg(
  pairs: readonly GatePair[],
): { readonly leg: string; readonly pairs: GatePair[] }[] {
  const groups: { leg: string; pairs: GatePair[] }[] = [];
  for (const pair of pairs) {
    const last = groups.at(-1);
    if (last?.leg === pair.leg) last.pairs.push(pair);
    else groups.push({ leg: pair.leg, pairs: [pair] });
  }
  return groups;
}

/**
 * The pairs the next gate run executes (§3.18 rerun scope). A verify session starts with no leg
 * verified and runs the complete set. After an admitted or recovered repair in `failing`, that
 * leg's pairs run first, then every other leg's pairs not yet passed, in ledger order: the legs
 * that passed before the failure keep their result (their checkouts did not move), the legs the
 * fail-fast run never reached run now.
 *
 * @param pairs the gate set
 * @param verified the legs whose pairs all passed in this verify session
 * @param failing the leg whose failure was just repaired, if any
 */
export function gateScope(
  pairs: readonly GatePair[],
  verified: Readonly<Record<string, string>>,
  failing: string | null = null,
): GatePair[] {
  const first = failing === null ? [] : pairs.filter((pair) => pair.leg === failing);
  const rest = pairs.filter((pair) => pair.leg !== failing && !Object.hasOwn(verified, pair.leg));
  return [...first, ...rest];
}

/**
 * True once every leg of the gate set has passed in this verify session (§3.20 "success only
 * after every leg passes").
 *
 * @param pairs the gate set
 * @param verified the verified HEAD of each leg that passed
 */
export function everyLegVerified(
  pairs: readonly GatePair[],
  verified: Readonly<Record<string, string>>,
): boolean {
  return pairs.every((pair) => Object.hasOwn(verified, pair.leg));
}
