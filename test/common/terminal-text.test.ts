import { describe, expect, it } from 'vitest';
import { hasControlCharacters, neutralizeText } from '../../src/common/terminal-text.js';

describe('neutralizeText', () => {
  it('escapes ESC, BEL, NUL and DEL visibly and keeps tab and newline', () => {
    const hostile = 'ok\u001b]0;pwned\u0007 line\ttab\nnext\u0000end\u007f';
    expect(neutralizeText(hostile)).toBe('ok\\x1b]0;pwned\\x07 line\ttab\nnext\\x00end\\x7f');
  });

  it('escapes C1 controls (U+009B is a one-byte CSI on some terminals)', () => {
    expect(neutralizeText('a\u009b31mb')).toBe('a\\x9b31mb');
  });

  it('escapes tab and newline in single-line mode', () => {
    expect(neutralizeText('a\tb\nc', { singleLine: true })).toBe('a\\x09b\\x0ac');
  });

  it('leaves printable text, including non-ASCII, unchanged', () => {
    expect(neutralizeText('café — ✓ 日本')).toBe('café — ✓ 日本');
  });

  it('cuts at maxLength and says how much was dropped', () => {
    expect(neutralizeText('abcdefghij', { maxLength: 4 })).toBe('abcd … [6 more characters]');
    expect(neutralizeText('abcd', { maxLength: 4 })).toBe('abcd');
  });

  it('hasControlCharacters agrees with what neutralizeText escapes', () => {
    expect(hasControlCharacters('plain\ttext\n')).toBe(false);
    expect(hasControlCharacters('bell\u0007')).toBe(true);
    expect(hasControlCharacters('\u0085')).toBe(true);
    // the shared regex is stateful with /g: two calls in a row must agree
    expect(hasControlCharacters('x\u001b')).toBe(true);
    expect(hasControlCharacters('x\u001b')).toBe(true);
  });
});
