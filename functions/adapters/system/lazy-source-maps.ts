import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a mapped frame points: the source's path from the project root (`functions/…`,
 * `node_modules/…`), without the `../` steps from wherever the bundle was built.
 */
const sourcePath = (source: string): string => {
  const path = source.replace(/^(?:\.\.\/)+/, '');
  const from = path.search(/(?:^|\/)(?:functions|node_modules)\//);
  return from <= 0 ? path : path.slice(from + 1);
};

/**
 * Stack traces that point at the TypeScript sources, in a Lambda bundle. Node's
 * `--enable-source-maps` reads and parses the whole map when the bundle is imported, on every
 * cold start; here the map (`index.mjs.map`, a separate file beside the bundle) is read when the
 * first stack trace is formatted, so only the first error pays for it (docs/deploy.md has the
 * figures). A frame outside the bundle, or one the map does not cover, is formatted as Node
 * formats it; so is every frame when the map cannot be read.
 *
 * Installed only for a bundle (an `.mjs` module, the one file esbuild writes) while Node's own
 * source maps are off: under tsx and in the tests, nothing changes. Returns whether it installed.
 */
export const mapStackTracesLazily = (bundleUrl: string): boolean => {
  if (!bundleUrl.endsWith('.mjs') || process.sourceMapsEnabled) return false;
  let map: SourceMap | null | undefined;
  const sourceMap = (): SourceMap | null => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(bundleUrl)}.map`, 'utf8')));
      } catch {
        map = null;
      }
    }
    return map;
  };
  const frameText = (frame: NodeJS.CallSite): string => {
    const text = String(frame);
    const line = frame.getLineNumber();
    const column = frame.getColumnNumber();
    if (frame.getFileName() !== bundleUrl || line === null || column === null) return text;
    const entry = sourceMap()?.findEntry(line - 1, column - 1);
    if (entry === undefined || !('originalSource' in entry)) return text;
    const origin = `${sourcePath(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    return text.replace(`${bundleUrl}:${line}:${column}`, origin);
  };
  Error.prepareStackTrace = (error: unknown, frames: NodeJS.CallSite[]) =>
    [
      Error.prototype.toString.call(error),
      ...frames.map((frame) => `    at ${frameText(frame)}`),
    ].join('\n');
  return true;
};
