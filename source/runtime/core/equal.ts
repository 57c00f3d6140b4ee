// Structural equality for data read from JSON, YAML and TOML, with one set of rules:
// - values that are === are equal (so NaN is unequal to itself, as no such file can hold it);
// - two Dates are equal when they name the same instant;
// - two arrays are equal when they have the same length and equal items in order;
// - two plain objects are equal when they have the same own keys with equal values, in any
//   order; with `{ orderedKeys: true }` the keys must also come in the same order (frontmatter:
//   a map whose keys moved is a changed file, so its original text cannot be kept);
// - anything else (a list against a map, class instances, functions) is equal only to itself.

export interface EqualOptions {
  /** Plain objects must list their keys in the same order too. */
  orderedKeys?: boolean;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function deepEqual(a: unknown, b: unknown, options: EqualOptions = {}): boolean {
  if (a === b) return true;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => deepEqual(item, b[index], options));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    const other = Object.keys(b);
    if (keys.length !== other.length) return false;
    return keys.every((key, index) => (options.orderedKeys ? other[index] === key : Object.hasOwn(b, key)) && deepEqual(a[key], b[key], options));
  }
  return false;
}
