/**
 * A test hook, not a feature: `LOOPCHART_CRASH_AFTER=<n>` makes a runner kill itself with SIGKILL
 * right after its n-th side effect (a commit, a reservation, a child launch, a child's end, a
 * reset, ...). Crash tests use it to interrupt a run between any two side effects and prove that a
 * resumed run ends where an uninterrupted one does. docs/host.md lists it with the other
 * environment variables.
 */

/** The environment variable of the crash hook. */
export const CRASH_AFTER_VARIABLE = 'LOOPCHART_CRASH_AFTER';

/**
 * The side-effect callback of the crash hook, or `undefined` when the variable is unset.
 *
 * @param env the environment to read (default: this process's)
 * @returns a callback for `HostOptions.onSideEffect`
 * @throws Error when the variable is set but is not a whole number >= 1
 */
export function crashHookFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ((name: string, count: number) => void) | undefined {
  const value = env[CRASH_AFTER_VARIABLE];
  if (value === undefined || value === '') return undefined;
  if (!/^[1-9]\d*$/.test(value))
    throw new Error(`${CRASH_AFTER_VARIABLE} must be a whole number >= 1, got "${value}"`);
  const limit = Number(value);
  return (_name, count) => {
    if (count >= limit) process.kill(process.pid, 'SIGKILL');
  };
}

/** The environment variable of the named crash hook. */
export const CRASH_AT_VARIABLE = 'LOOPCHART_CRASH_AT';

/**
 * The named variant of the crash hook: `LOOPCHART_CRASH_AT=<side effect name>[#<k>]` kills the
 * runner with SIGKILL right after the k-th side effect of that name (default the first), so a
 * crash test names the boundary it interrupts (`done createCheckpoint`, `spawned patcher#2`)
 * instead of counting side effects. `undefined` when the variable is unset.
 *
 * @param env the environment to read (default: this process's)
 * @returns a side-effect callback
 * @throws Error when `#k` is given but is not a whole number >= 1
 */
export function crashAtHookFromEnvironment(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ((name: string, count: number) => void) | undefined {
  const value = env[CRASH_AT_VARIABLE];
  if (value === undefined || value === '') return undefined;
  const match = /^(.*?)(?:#(\d+))?$/.exec(value) as RegExpExecArray;
  const name = match[1] as string;
  const nth = match[2] === undefined ? 1 : Number(match[2]);
  if (nth < 1) throw new Error(`${CRASH_AT_VARIABLE}: the occurrence after # must be >= 1, got "${value}"`);
  let seen = 0;
  return (effect) => {
    if (effect !== name) return;
    seen += 1;
    if (seen >= nth) process.kill(process.pid, 'SIGKILL');
  };
}
