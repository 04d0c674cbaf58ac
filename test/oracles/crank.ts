/**
 * A reference of crank's wave schedule written in test code from the crank contract (agentops §2),
 * NOT from src/crank: two lanes run in parallel only when their write scopes and their regen
 * surfaces are disjoint (unknown overlap counts as overlap); a lane held back starts, in caller
 * order, once every earlier lane it overlaps with has returned or failed; the wave acceptance runs
 * once, after every lane returned.
 */
import type { PathStep } from '../../src/graph/path-suite-schema.js';

/** A lane as the reference reads it. */
export interface RefLane {
  readonly id: string;
  readonly scope: readonly string[];
  readonly regenSurfaces?: readonly string[] | null;
}

/** The literal prefix of a glob: the components before the first one with `*`, `?` or `[`. */
function prefixOf(glob: string): string {
  const parts: string[] = [];
  for (const part of glob.split('/')) {
    if (/[*?[]/.test(part)) break;
    parts.push(part);
  }
  return parts.length === 0 ? '.' : parts.join('/');
}

function globsOverlap(a: string, b: string): boolean {
  const pa = prefixOf(a);
  const pb = prefixOf(b);
  return pa === '.' || pb === '.' || pa === pb || pa.startsWith(`${pb}/`) || pb.startsWith(`${pa}/`);
}

/** Whether two lanes must not run at once. */
export function lanesOverlap(a: RefLane, b: RefLane): boolean {
  if (a.regenSurfaces == null || b.regenSurfaces == null) return true;
  const scopes = a.scope.some((x) => b.scope.some((y) => globsOverlap(x, y)));
  const surfaces = a.regenSurfaces.some((x) => (b.regenSurfaces ?? []).some((y) => globsOverlap(x, y)));
  return scopes || surfaces;
}

/** After each step: the lanes started (caller order) and the state the wave is in. */
export function crankReference(
  lanes: readonly RefLane[],
  steps: readonly PathStep[],
): { started: string[]; state: string }[] {
  const started: string[] = [];
  const returned = new Set<string>();
  const startReady = () => {
    for (const [i, lane] of lanes.entries()) {
      if (started.includes(lane.id)) continue;
      const blocked = lanes
        .slice(0, i)
        .some((earlier) => lanesOverlap(earlier, lane) && !returned.has(earlier.id));
      if (!blocked) started.push(lane.id);
    }
  };
  startReady();
  return steps.map((step) => {
    const { type } = step.event;
    let state = 'lanes';
    const lane = /^xstate\.(done|error)\.actor\.lane\.(.+)$/.exec(type);
    if (lane !== null) {
      returned.add(lane[2] ?? '');
      startReady();
      state = returned.size === lanes.length ? 'acceptance' : 'lanes';
    } else if (type === 'xstate.done.actor.runAcceptance') state = 'evidenced';
    else if (type === 'xstate.error.actor.runAcceptance') state = 'acceptance_failed';
    else state = `no expectation for ${type}`;
    return { started: [...started], state };
  });
}
