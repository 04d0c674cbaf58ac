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
