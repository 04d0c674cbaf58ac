import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { parseChildScript, scriptSchema } from '../../src/host/child-script.js';
import { DEMO_SCRIPT } from '../../src/host/demo.js';

describe('child scripts', () => {
  it('accepts the demo script', () => {
    expect(scriptSchema.parse(DEMO_SCRIPT)).toEqual(DEMO_SCRIPT);
    expect(parseChildScript(JSON.stringify(DEMO_SCRIPT))).toEqual(DEMO_SCRIPT);
  });

  it('names every problem of a bad script with its place in the script', () => {
    const bad = {
      version: 1,
      targets: {
        row1: [{ do: 'done', evidence: 'x' }],
        '2': [{ do: 'dance' }],
        '3': [{ do: 'miss', violation: 'being rude' }],
        seed: [],
      },
    };
    let error: unknown;
    try {
      parseChildScript(JSON.stringify(bad), 'script.json');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InputError);
    const message = (error as InputError).message;
    expect((error as InputError).code).toBe('script.invalid');
    expect(message).toMatch(/^script\.json is not a valid child script:/);
    expect(message).toMatch(/targets\.row1: "row1" is not a target: use seed, verify or a row number/);
    expect(message).toMatch(/targets\.2\.0\.do: /);
    expect(message).toMatch(/targets\.3\.0\.violation: /);
    expect(message).toMatch(/targets\.seed: /);
  });

  it('refuses text that is not JSON', () => {
    expect(() => parseChildScript('{', 'x.json')).toThrow(/x\.json is not JSON/);
  });
});
