import { A2aError } from '../../service/a2a-errors.js';

/**
 * How deep a request's JSON may nest (objects and arrays), counted from the JSON-RPC `params` or
 * the HTTP+JSON body, so both bindings draw the line at the same place. A task envelope needs
 * about ten levels; what is deeper is refused before anything walks it: the secret redaction,
 * the envelope's schema and the SDK's converters are recursive, and a 1 MiB body can nest half a
 * million levels, far past the stack.
 */
export const MAX_JSON_DEPTH = 64;

/** How many leading path segments a refusal names: enough to find the field, not the whole chain. */
const NAMED_SEGMENTS = 4;

const pathText = (path: readonly (string | number)[]): string => {
  const shown = path.slice(0, NAMED_SEGMENTS).reduce<string>((joined, key) => {
    if (typeof key === 'number') return `${joined}[${key}]`;
    return joined === '' ? key : `${joined}.${key}`;
  }, '');
  return path.length > NAMED_SEGMENTS ? `${shown}…` : shown;
};

interface Pending {
  value: object;
  depth: number;
  key: string | number | undefined;
  parent: Pending | undefined;
}

const pathOf = (node: Pending): (string | number)[] => {
  const path: (string | number)[] = [];
  for (let at: Pending | undefined = node; at?.key !== undefined; at = at.parent) {
    path.unshift(at.key);
  }
  return path;
};

/**
 * The path to the first container nested deeper than `limit`, or undefined when none is. Walks
 * with its own stack (the value may be far deeper than the call stack allows), never past the
 * limit, and keeps each container's parent rather than its path, so a wide value costs one step
 * per container.
 */
export const tooDeepAt = (
  value: unknown,
  limit = MAX_JSON_DEPTH
): (string | number)[] | undefined => {
  if (typeof value !== 'object' || value === null) return undefined;
  const pending: Pending[] = [{ value, depth: 1, key: undefined, parent: undefined }];
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (node.depth > limit) return pathOf(node);
    const entries: Array<[string | number, unknown]> = Array.isArray(node.value)
      ? node.value.map((item, index) => [index, item])
      : Object.entries(node.value);
    for (const [key, item] of entries) {
      if (typeof item === 'object' && item !== null) {
        pending.push({ value: item, depth: node.depth + 1, key, parent: node });
      }
    }
  }
  return undefined;
};

/**
 * Refuses JSON nested deeper than MAX_JSON_DEPTH with InvalidParams naming where (`root` when it
 * is the whole: `params`, `body`).
 */
export const checkJsonDepth = (value: unknown, root: string): void => {
  const at = tooDeepAt(value);
  if (at === undefined) return;
  const field = at.length === 0 ? root : pathText(at);
  const description = `is nested more than ${MAX_JSON_DEPTH} levels deep`;
  throw new A2aError('InvalidParams', `invalid params: ${field} ${description}`, {
    violations: [{ field, description }],
  });
};
