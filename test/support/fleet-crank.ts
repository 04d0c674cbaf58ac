/**
 * Test support for rpi runs and crank waves on a fleet (test/e2e/fleet-crank.test.ts): the lane
 * scripts (an implementer that says when it runs, waits for a gate, then makes its one paid
 * action; a validator that fails lane b), and the parts of `loopchart crank --json` /
 * `loopchart rpi --json` that a fleet run must equal (everything but the paths of a run's own
 * files: transcripts and logs).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The implementer: appends `implement <lane> <round>` to $FLEET_TEST_LOG when it starts, creates
 * `$FLEET_TEST_GATES/running-<lane>`, waits for `$FLEET_TEST_GATES/go`, writes its lane's file,
 * then appends `paid <lane>` (its one irreversible action). Outside a lane the lane is `solo`.
 */
const IMPLEMENTER = `lane="\${LOOPCHART_LANE:-solo}"
echo "implement $lane $LOOPCHART_ROUND" >> "$FLEET_TEST_LOG"
: > "$FLEET_TEST_GATES/running-$lane"
while [ ! -e "$FLEET_TEST_GATES/go" ]; do sleep 0.2; done
mkdir -p "src/$lane" && echo "done by $lane" > "src/$lane/out.txt"
echo "paid $lane" >> "$FLEET_TEST_LOG"
`;

/**
 * The implementer that pays before it waits (test/e2e/fleet.test.ts): it writes its lane's file,
 * reserves its paid action with `<cli> reserve` and appends `paid <lane>` only when the
 * reservation was granted, then creates `running-<lane>` and waits for the gate. A lane killed at
 * the gate has paid; retried on another worker it is refused the reservation and does not pay.
 */
function payingImplementer(reserve: string): string {
  return `lane="\${LOOPCHART_LANE:-solo}"
echo "implement $lane $LOOPCHART_ROUND" >> "$FLEET_TEST_LOG"
mkdir -p "src/$lane" && echo "done by $lane" > "src/$lane/out.txt"
if ${reserve} reserve "pay for $lane round $LOOPCHART_ROUND" >/dev/null; then echo "paid $lane" >> "$FLEET_TEST_LOG"; fi
: > "$FLEET_TEST_GATES/running-$lane"
while [ ! -e "$FLEET_TEST_GATES/go" ]; do sleep 0.2; done
`;
}

/** The validator: lane b FAILs with finding f1, every other subject PASSes. */
const VALIDATOR = `lane="\${LOOPCHART_LANE:-solo}"
echo "validate $lane $LOOPCHART_ROUND" >> "$FLEET_TEST_LOG"
if [ "$lane" = b ]; then
  printf '{"status":"FAIL","findings":[{"id":"f1","summary":"b is not done"}],"subject_digest":"%s","evidence_refs":[]}\\n' "$LOOPCHART_SUBJECT_DIGEST"
  exit 1
fi
printf '{"status":"PASS","findings":[],"subject_digest":"%s","evidence_refs":[],"validator_family":"test"}\\n' "$LOOPCHART_SUBJECT_DIGEST"
`;

/**
 * The agent commands, written under `dir`; the same strings for the fleet and the local run. With
 * `reserve` (the command that runs `loopchart`), the implementer pays before its gate, through
 * `loopchart reserve`.
 */
export function writeLaneScripts(dir: string, reserve?: string): { implementer: string; validator: string } {
  writeFileSync(join(dir, 'implement.sh'), reserve === undefined ? IMPLEMENTER : payingImplementer(reserve));
  writeFileSync(join(dir, 'validate.sh'), VALIDATOR);
  return {
    implementer: `sh ${JSON.stringify(join(dir, 'implement.sh'))}`,
    validator: `sh ${JSON.stringify(join(dir, 'validate.sh'))}`,
  };
}

/** A wave of disjoint lanes (regen surfaces declared empty), whose acceptance needs every lane's file. */
export function disjointWave(ids: readonly string[]): unknown {
  return {
    lanes: ids.map((id) => ({
      id,
      scope: `src/${id}/**`,
      brief: `write src/${id}/out.txt`,
      acceptance: `test -f src/${id}/out.txt`,
      regen_surfaces: [],
    })),
    repair_rounds: 0,
    acceptance: [
      ids.map((id) => `test -f src/${id}/out.txt`).join(' && '),
      'echo acceptance >> "$FLEET_TEST_LOG"',
    ],
  };
}

interface WaveFacts {
  readonly exitCode: number;
  readonly terminal: string;
  readonly lanes: ReadonlyArray<Record<string, unknown>>;
  readonly acceptance: { readonly failure: Record<string, unknown> | null } | null;
  readonly failure: unknown;
  readonly conflicts: unknown;
  readonly startOrder: unknown;
}

/** What a wave's report must keep across hosts: its facts without the paths of its own files. */
export function waveReport(facts: WaveFacts) {
  return {
    exitCode: facts.exitCode,
    terminal: facts.terminal,
    lanes: facts.lanes.map(({ transcript: _transcript, ...rest }) => rest),
    acceptance:
      facts.acceptance === null
        ? null
        : {
            ...facts.acceptance,
            failure:
              facts.acceptance.failure === null ? null : { ...facts.acceptance.failure, logPath: null },
          },
    failure: facts.failure,
    conflicts: facts.conflicts,
    startOrder: facts.startOrder,
  };
}

/** What an rpi run's report must keep across hosts (`loopchart rpi --json` without its paths). */
export function rpiReport(facts: Record<string, unknown>) {
  const keys = [
    'exitCode',
    'terminal',
    'stopReason',
    'converged',
    'roundsUsed',
    'openFindings',
    'stageNote',
    'finalCi',
    'report',
  ];
  return Object.fromEntries(keys.map((key) => [key, facts[key]]));
}

/** The lines of a call log, sorted (lanes run in parallel, so their order is not a fact). */
export function sortedLines(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}
