/**
 * A short text naming any value for an error message, which never throws: `String(value)` throws
 * for an object whose `toString` is not a function (`{"toString": false}` parsed from JSON) and
 * for a symbol in a template, and an error message about bad input must not itself crash.
 *
 * @param value anything a caller passed
 * @returns the value itself for strings, numbers, booleans, null and undefined; JSON for plain
 *   data; a type name otherwise
 */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined || typeof value === 'number' || typeof value === 'boolean')
    return String(value);
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return `${value.toString()}n`;
  if (typeof value === 'object') {
    try {
      return JSON.stringify(value) ?? Object.prototype.toString.call(value);
    } catch {
      return Object.prototype.toString.call(value);
    }
  }
  return typeof value;
}
