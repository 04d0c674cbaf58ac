/**
 * The escalated model (§3.7, §3.21 [O]): `escalationLoop.implModel` when it is a non-empty string,
 * else the main loop's model; neither is the missing-model stop. Expected values by hand.
 */
import { describe, expect, it } from 'vitest';
import { effectiveImplModel } from '../../src/gauntlet/model-fallback.js';

describe('effectiveImplModel', () => {
  it('uses the configured implModel, trimmed', () => {
    expect(effectiveImplModel('anthropic/opus:high', 'openai/gpt')).toBe('anthropic/opus:high');
    expect(effectiveImplModel('  anthropic/opus  ', 'openai/gpt')).toBe('anthropic/opus');
  });

  it('falls back to the main-loop model when implModel is unset or blank', () => {
    expect(effectiveImplModel(null, 'openai/gpt')).toBe('openai/gpt');
    expect(effectiveImplModel(undefined, ' openai/gpt ')).toBe('openai/gpt');
    expect(effectiveImplModel('   ', 'openai/gpt')).toBe('openai/gpt');
  });

  it('is null when neither model is set: the missing-model stop', () => {
    expect(effectiveImplModel(null, null)).toBeNull();
    expect(effectiveImplModel('', ' ')).toBeNull();
    expect(effectiveImplModel(undefined, undefined)).toBeNull();
  });
});
