import type { JsonValue } from '../common/json-value.js';

/**
 * Whether `value` is plain JSON: no `undefined`, functions, class instances (Error, Date, Map),
 * non-finite numbers or cycles.
 */
export function isJsonValue(value: unknown, seen: Set<object> = new Set()): value is JsonValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object') return false;
  if (seen.has(value)) return false;
  seen.add(value);
  const ok = Array.isArray(value)
    ? value.every((item) => isJsonValue(item, seen))
    : Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null
      ? Object.values(value).every((item) => isJsonValue(item, seen))
      : false;
  seen.delete(value);
  return ok;
}
