/**
 * The overrides file's verification command (§3.1 step 1): "Use its exactly one backticked command;
 * zero or several is a configuration error." Expected values are written by hand.
 */
import { describe, expect, it } from 'vitest';
import { overridesVerification } from '../../src/gauntlet/overrides.js';

describe('overridesVerification', () => {
  it('is absent without the section, even when other sections hold commands', () => {
    expect(overridesVerification('# Overrides\n\n## Happy path\n\nRun `npm run demo`.\n')).toEqual({
      kind: 'absent',
    });
  });

  it('uses the one inline backticked command of the section', () => {
    const text =
      '# Overrides\n\n## verification-before-completion\n\nRun `npm run ci` before done.\n\n## Happy path\n\n`npm run demo`\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'npm run ci', line: 5 });
  });

  it('uses the one line of a fenced block', () => {
    const text = '## verification-before-completion\n\n```sh\nmake check\n```\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'make check', line: 4 });
  });

  it('zero commands is a configuration error naming the section', () => {
    const found = overridesVerification('## verification-before-completion\n\nRun the tests.\n');
    expect(found.kind).toBe('error');
    if (found.kind === 'error') {
      expect(found.line).toBe(1);
      expect(found.reason).toContain('no backticked command');
    }
  });

  it('several commands is a configuration error naming each one and its line', () => {
    const found = overridesVerification(
      '## verification-before-completion\n\n`npm test`\nthen `npm run lint`\n',
    );
    expect(found).toEqual({
      kind: 'error',
      line: 4,
      reason:
        'the ## verification-before-completion section has 2 backticked commands (`npm test` on line 3, `npm run lint` on line 4); give exactly one',
    });
  });

  it('a third-level heading stays inside the section, a second-level one ends it', () => {
    const inside = '## verification-before-completion\n\n### Notes\n\n`npm run ci`\n';
    expect(overridesVerification(inside)).toMatchObject({ kind: 'command', command: 'npm run ci' });
    const after = '## verification-before-completion\n\n## Other\n\n`npm run ci`\n';
    expect(overridesVerification(after).kind).toBe('error');
  });
});

describe('overridesVerification: what counts as a backticked command (docs/decisions/rules.md)', () => {
  it('finds the heading with trailing blanks', () => {
    expect(overridesVerification('## verification-before-completion   \n\n`npm run ci`\n')).toEqual({
      kind: 'command',
      command: 'npm run ci',
      line: 3,
    });
  });

  it('an indented fence is a fence, and its command line is trimmed', () => {
    const text = '## verification-before-completion\n\n  ```\n    make check  \n  ```\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'make check', line: 4 });
  });

  it('three backticks or tildes inside a prose line do not open a fence', () => {
    const text =
      '## verification-before-completion\n\nRun `npm test`; a ~~~ line is decoration.\n\n## Next\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'npm test', line: 3 });
  });

  it('every non-blank line of a fence is a command, even one that looks like a heading', () => {
    const text = '## verification-before-completion\n\n```sh\n# run the checks\nmake check\n```\n';
    expect(overridesVerification(text)).toEqual({
      kind: 'error',
      line: 5,
      reason:
        'the ## verification-before-completion section has 2 backticked commands (`# run the checks` on line 4, `make check` on line 5); give exactly one',
    });
  });

  it('blank and whitespace-only lines of a fence are not commands', () => {
    const text = '## verification-before-completion\n\n```\n\n   \nmake check\n\n```\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'make check', line: 6 });
  });

  it('a fence closes only with its own marker: a ~~~ line inside a ``` block is skipped', () => {
    const text = '## verification-before-completion\n\n```\n~~~\nmake check\n```\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'make check', line: 5 });
  });

  it('after the fence closes, the next second-level heading ends the section', () => {
    const text =
      '## verification-before-completion\n\n```\nmake check\n```\n\n## Happy path\n\n`npm run demo`\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'make check', line: 4 });
  });

  it('an inline span is trimmed, and a blank span is no command', () => {
    const text = '## verification-before-completion\n\nNot `   `, but ` npm run ci `.\n';
    expect(overridesVerification(text)).toEqual({ kind: 'command', command: 'npm run ci', line: 3 });
  });
});
