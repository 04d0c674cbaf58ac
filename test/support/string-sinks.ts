/** Output sinks that collect what a command writes, for asserting on it afterwards. */
export function stringSinks() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: { write: (chunk: string) => (out.stdout += chunk) },
      stderr: { write: (chunk: string) => (out.stderr += chunk) },
    },
  };
}
