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

/**
 * The text of a thrown or rejected value, one rule for every machine, runner and journal: the
 * value's own `message` when that is a string (every `Error`, and error-like plain data such as
 * `{ message: 'disk full' }`), else the value as {@link describeValue} names it. A journal that
 * records this text and replays it as an `Error` therefore gives a resumed run the text the live
 * run recorded.
 *
 * @param error what was thrown or rejected
 * @returns its message, or the value described; never throws (a `message` getter that throws
 *   counts as no message)
 */
export function describeError(error: unknown): string {
  let message: unknown;
  try {
    message =
      typeof error === 'object' && error !== null ? (error as { message?: unknown }).message : undefined;
  } catch {
    message = undefined;
  }
  return typeof message === 'string' ? message : describeValue(error);
}
