/**
 * The environment variables of the child contract (docs/child-contract.md).
 */

/** Names of the variables the host sets for a child. */
export const CHILD_ENV = {
  /** Absolute path of the task JSON file. */
  task: 'LOOPCHART_TASK',
  /** Absolute path where the child writes its JSON return. */
  return: 'LOOPCHART_RETURN',
  /** Absolute path of the jobs file (background jobs and action records). */
  jobs: 'LOOPCHART_JOBS',
  /** The model of an escalated round or a verification repair, when there is one. */
  model: 'LOOPCHART_MODEL',
} as const;
