/** The shapes of parsed JSON the stored formats look into (the record's task and loop). */

/** A JSON object: not null, not an array. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An object's keys that JSON text would hold: those whose value is not undefined. */
const statedKeys = (value: Record<string, unknown>): string[] =>
  Object.keys(value).filter((key) => value[key] !== undefined);

/**
 * Whether two JSON values are the same, as their JSON texts would be whatever the order of their
 * objects' keys (a key whose value is undefined is not there). Without writing either out: a
 * large value passed on untouched but rebuilt is compared a field at a time, and a branch that is
 * the same object is not looked into.
 */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, index) => sameJson(item, b[index]))
    );
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = statedKeys(a);
    return (
      keys.length === statedKeys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    );
  }
  return false;
};
