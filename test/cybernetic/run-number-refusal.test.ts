import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidCheckExecutionError, type RunContract, recordRun } from '../../src/cybernetic/index.js';
import { contractOf, executions } from './helpers.js';

// docs/cybernetic-loop.md, the host's mistakes: a run number that is not a whole number >= 0 is
// refused with `cybernetic.check-execution-invalid` and a message quoting it (typed from the doc).
let contract: RunContract;
beforeEach(() => {
  contract = contractOf();
});

describe('the run number of a recorded run', () => {
  it('is refused when it is not a whole number >= 0, quoting it', () => {
    for (const run of [-1, 1.5]) {
      let error: unknown;
      try {
        recordRun(contract, run, executions(contract, {}));
      } catch (caught) {
        error = caught;
      }
      expect(error, String(run)).toBeInstanceOf(InvalidCheckExecutionError);
      expect((error as InvalidCheckExecutionError).code).toBe('cybernetic.check-execution-invalid');
      expect((error as Error).message).toBe(
        `execution of check "(run)" is malformed: run number ${run} must be a whole number >= 0`,
      );
    }
  });
});
