import { createHash } from 'node:crypto';
import type { JsonValue } from '../common/json-value.js';

/**
 * Canonical JSON: object keys sorted by code point at every depth, no whitespace (`,` and `:`
 * separators), strings as JSON.stringify writes them (UTF-8, non-ASCII kept as is).
 *
 * @param value a JSON value (`undefined` object members are left out, like JSON.stringify)
 * @returns the canonical text
 * @throws TypeError for a non-finite number, which JSON cannot represent
 */
export function canonicalJson(value: JsonValue): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`canonical JSON cannot hold ${value}`);
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item: JsonValue) => canonicalJson(item)).join(',')}]`;
  const object = value as { readonly [key: string]: JsonValue };
  const keys = Object.keys(object)
    .filter((key) => object[key] !== undefined)
    .sort(compareCodePoints);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(object[key] as JsonValue)}`).join(',')}}`;
}

/**
 * Orders strings by Unicode code point (as Python's `sorted` does), not by UTF-16 code unit.
 *
 * @returns negative, zero or positive, for `Array.prototype.sort`
 */
export function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i += 1) {
    const difference = (left[i] as string).codePointAt(0)! - (right[i] as string).codePointAt(0)!;
    if (difference !== 0) return difference;
  }
  return left.length - right.length;
}

/**
 * Lowercase hex SHA-256 of bytes or of a string's UTF-8 encoding.
 *
 * @param data the input
 * @returns 64 lowercase hex digits
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
