/**
 * Reading and writing a value at a path such as `message.parts[0].text` in plain JSON, for the
 * fuzzer's mutations.
 */

export type PathKey = string | number;

export const parsePath = (path: string): PathKey[] =>
  path
    .split(/\.|(?=\[)/)
    .filter((segment) => segment !== '')
    .map((segment) => {
      const index = /^\[(\d+)\]$/.exec(segment);
      return index === null ? segment : Number(index[1]);
    });

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container =>
  typeof value === 'object' && value !== null;

/** A copy of `root` with `value` at `path`, making the objects on the way that are missing. */
export const withValueAt = (root: unknown, path: string, value: unknown): unknown => {
  const keys = parsePath(path);
  const copy = structuredClone(root) as unknown;
  const top: Container = isContainer(copy) ? copy : {};
  let at: Container = top;
  keys.forEach((key, index) => {
    const container = at as Record<PathKey, unknown>;
    if (index === keys.length - 1) {
      container[key] = value;
      return;
    }
    if (!isContainer(container[key]))
      container[key] = typeof keys[index + 1] === 'number' ? [] : {};
    at = container[key] as Container;
  });
  return top;
};

/** The value at `path`, or undefined when the path does not lead anywhere. */
export const valueAt = (root: unknown, path: string): unknown =>
  parsePath(path).reduce<unknown>(
    (at, key) => (isContainer(at) ? (at as Record<PathKey, unknown>)[key] : undefined),
    root
  );

/** A copy of `root` without the field at `path`. */
export const withoutValueAt = (root: unknown, path: string): unknown => {
  const keys = parsePath(path);
  const copy = structuredClone(root) as unknown;
  const parent = valueAt(copy, keys.slice(0, -1).map(String).join('.'));
  const last = keys.at(-1);
  if (isContainer(parent) && last !== undefined && !Array.isArray(parent)) {
    delete (parent as Record<PathKey, unknown>)[last];
  }
  return copy;
};
