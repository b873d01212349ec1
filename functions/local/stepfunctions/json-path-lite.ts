/**
 * Reads a Step Functions *reference path* (`$`, `$.a.b`, `$.items[0]`, `$['key']`): the only
 * form `ItemsPath`, `TimeoutSecondsPath` and `HeartbeatSecondsPath` accept. Used where we must
 * evaluate what the interpreter does not (heartbeat paths, a Map's item count for the history).
 * Returns undefined for anything else, and callers then go without.
 */
const SEGMENT = /^(?:\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\])/;

export function readReferencePath(value: unknown, path: string): unknown {
  if (!path.startsWith('$') || path.startsWith('$$')) return undefined;
  let rest = path.slice(1);
  let current = value;
  while (rest.length > 0) {
    const match = SEGMENT.exec(rest);
    if (!match) return undefined;
    rest = rest.slice(match[0].length);
    const key = match[1] ?? match[3] ?? match[4];
    if (key !== undefined) {
      if (typeof current !== 'object' || current === null || Array.isArray(current))
        return undefined;
      current = (current as Record<string, unknown>)[key];
    } else {
      if (!Array.isArray(current)) return undefined;
      current = current[Number(match[2])];
    }
  }
  return current;
}
