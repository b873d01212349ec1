// Writes the committed JSON Schemas from the zod schemas (the single source): `npm run schemas`.
// The content comes from functions/core/a2a/published-schemas.ts, which the drift test
// (test/contract/schemas-drift.test.ts) also calls, so the files and the test cannot disagree.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  publishedSchemas,
  SCHEMAS_README,
  SCHEMAS_README_PATH,
  serializeSchema,
} from '../functions/core/a2a/published-schemas.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Directories whose `.json` files are all generated: a file no schema produces is stale. */
const GENERATED_DIRS = ['docs/a2a/ext/intrinsics', 'schemas'];

const files = new Map<string, string>([
  ...publishedSchemas().map(({ path, schema }) => [path, serializeSchema(schema)] as const),
  [SCHEMAS_README_PATH, SCHEMAS_README],
]);

const readOrNull = (path: string): string | null => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
};

let changed = 0;
for (const [path, text] of files) {
  const target = join(root, path);
  if (readOrNull(target) === text) continue;
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
  changed += 1;
  console.log(`wrote ${path}`);
}

for (const dir of GENERATED_DIRS) {
  for (const name of readdirSync(join(root, dir))) {
    const path = `${dir}/${name}`;
    if (!name.endsWith('.json') || files.has(path)) continue;
    rmSync(join(root, path));
    changed += 1;
    console.log(`removed stale ${relative(root, join(root, path))}`);
  }
}

console.log(changed === 0 ? 'schemas: up to date' : `schemas: ${changed} file(s) changed`);
