import { type Finding, finding } from '../common/finding.js';
import type { Lane, Wave } from './wave.js';
import { type WaveFindingCode, WaveUnrunnableError } from './wave-unrunnable-error.js';

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return Object.prototype.toString.call(value) === '[object Object]';
}

function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function absent(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0)
  );
}

// A command set or a scope: one non-blank string, or a non-empty list of them.
function asStringList(value: unknown): string[] | null {
  if (isNonBlankString(value)) return [value];
  if (Array.isArray(value) && value.length > 0 && value.every(isNonBlankString)) return value;
  return null;
}

/**
 * Why a write-scope or regen-surface entry cannot be compared safely, or null when it can. Entries
 * must be repository-relative and stay inside the repository.
 *
 * @param entry a scope entry as given
 * @returns a reason, or null
 */
export function scopeEntryProblem(entry: string): string | null {
  if (entry.startsWith('/') || /^[A-Za-z]:[\\/]/.test(entry)) return 'is an absolute path';
  if (entry.split(/[\\/]/).includes('..')) return 'leaves the repository (contains "..")';
  return null;
}

interface Checked {
  readonly findings: Finding[];
  readonly wave: Wave | null;
}

function inspectWave(input: unknown): Checked {
  const findings: Finding[] = [];
  const report = (code: WaveFindingCode, reason: string) => findings.push(finding(code, 0, reason));

  if (!isJsonObject(input)) {
    report('wave.not-an-object', 'a wave must be an object with lanes, repair_rounds and acceptance');
    return { findings, wave: null };
  }

  const repairRounds = input.repair_rounds;
  if (repairRounds === undefined || repairRounds === null) {
    report(
      'wave.repair-rounds-missing',
      'the wave must declare repair_rounds; crank never chooses the bound',
    );
  } else if (typeof repairRounds !== 'number' || !Number.isSafeInteger(repairRounds) || repairRounds < 0) {
    report('wave.repair-rounds-invalid', 'repair_rounds must be a non-negative integer');
  }

  const acceptance = asStringList(input.acceptance);
  if (absent(input.acceptance)) {
    report(
      'wave.acceptance-missing',
      'the wave must carry its acceptance: the command set that judges the whole wave',
    );
  } else if (acceptance === null) {
    report(
      'wave.acceptance-invalid',
      'the wave acceptance must be a command or a list of non-blank commands',
    );
  }

  const lanes: Lane[] = [];
  if (!Array.isArray(input.lanes)) {
    report('wave.lanes-not-a-list', 'the wave must carry its lanes as a list');
  } else if (input.lanes.length === 0) {
    report('wave.no-lanes', 'the wave has no lanes; there is nothing to run');
  } else {
    const ids = new Map<string, number>();
    input.lanes.forEach((raw: unknown, index) => {
      const { id, lane } = inspectLane(raw, index, report);
      // Ids are checked even on lanes with other problems, so one pass names every problem.
      if (id !== null) {
        const earlier = ids.get(id);
        if (earlier !== undefined) {
          report(
            'wave.duplicate-lane-id',
            `lane ${index + 1}: id "${id}" is already used by lane ${earlier + 1}`,
          );
          return;
        }
        ids.set(id, index);
      }
      if (lane !== null) lanes.push(lane);
    });
  }

  if (findings.length > 0) return { findings, wave: null };
  return {
    findings,
    wave: { lanes, repairRounds: repairRounds as number, acceptance: acceptance as string[] },
  };
}

function inspectLane(
  raw: unknown,
  index: number,
  report: (code: WaveFindingCode, reason: string) => void,
): { id: string | null; lane: Lane | null } {
  const at = `lane ${index + 1}`;
  if (!isJsonObject(raw)) {
    report('wave.lane-not-an-object', `${at}: a lane must be an object with scope, brief and acceptance`);
    return { id: null, lane: null };
  }
  let problems = 0;
  const fail = (code: WaveFindingCode, reason: string) => {
    problems += 1;
    report(code, `${at}: ${reason}`);
  };

  let id: string | null = `lane-${index + 1}`;
  if (raw.id !== undefined && raw.id !== null) {
    if (isNonBlankString(raw.id)) id = raw.id;
    else {
      id = null;
      fail('wave.lane-id-invalid', 'id must be a non-blank string when given');
    }
  }

  const scope = asStringList(raw.scope);
  if (absent(raw.scope)) fail('wave.lane-scope-missing', 'the lane has no write scope');
  else if (scope === null) fail('wave.lane-scope-invalid', 'scope must be a path or glob, or a list of them');
  else
    for (const entry of scope) {
      const problem = scopeEntryProblem(entry);
      if (problem !== null) fail('wave.lane-scope-invalid', `scope entry "${entry}" ${problem}`);
    }

  if (!isNonBlankString(raw.brief)) fail('wave.lane-brief-missing', 'the lane has no brief');

  const acceptance = asStringList(raw.acceptance);
  if (absent(raw.acceptance)) fail('wave.lane-acceptance-missing', 'the lane has no executable acceptance');
  else if (acceptance === null)
    fail('wave.lane-acceptance-invalid', 'acceptance must be a command or a list of non-blank commands');

  let regenSurfaces: string[] | null = null;
  if (raw.regen_surfaces !== undefined && raw.regen_surfaces !== null) {
    const given = raw.regen_surfaces;
    if (!Array.isArray(given) || !given.every(isNonBlankString)) {
      fail(
        'wave.lane-regen-surfaces-invalid',
        'regen_surfaces must be a list of paths or globs (empty for none)',
      );
    } else {
      regenSurfaces = given;
      for (const entry of given) {
        const problem = scopeEntryProblem(entry);
        if (problem !== null) fail('wave.lane-regen-surfaces-invalid', `regen surface "${entry}" ${problem}`);
      }
    }
  }

  if (problems > 0 || id === null) return { id, lane: null };
  const lane: Lane = {
    id,
    scope: scope as string[],
    brief: raw.brief as string,
    acceptance: acceptance as string[],
    regenSurfaces,
  };
  return { id, lane };
}

/**
 * Lists every reason a wave is unrunnable, without throwing.
 *
 * @param input untrusted wave: `{ lanes: [{ id?, scope, brief, acceptance, regen_surfaces? }],
 *   repair_rounds, acceptance }`
 * @returns one finding per problem (codes from `WAVE_FINDING_CODES`); empty when the wave runs
 */
export function checkWave(input: unknown): Finding[] {
  return inspectWave(input).findings;
}

/**
 * Checks a wave and returns it in loopchart's record shape. Lanes keep the caller's order; a
 * single string `scope` or `acceptance` becomes a one-element list.
 *
 * @param input untrusted wave (see {@link checkWave})
 * @returns the wave
 * @throws WaveUnrunnableError naming every problem when the wave cannot run
 */
export function parseWave(input: unknown): Wave {
  const { findings, wave } = inspectWave(input);
  if (wave === null) throw new WaveUnrunnableError(findings);
  return wave;
}
