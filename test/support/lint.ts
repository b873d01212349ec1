/** Biome, with the project's configuration, on one probe file. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const BIOME = resolve('node_modules/.bin/biome');

/**
 * Lints `source` as if it lived at `path`, with the project's own biome configuration, in a
 * scratch copy of the layout (so the test never writes into the source tree).
 */
export const lint = (path: string, source: string) => {
  const root = mkdtempSync(join(tmpdir(), 'lint-probe-'));
  try {
    const config = JSON.parse(readFileSync('biome.json', 'utf8')) as Record<string, unknown>;
    const { $schema: _schema, vcs: _vcs, ...rest } = config;
    writeFileSync(join(root, 'biome.json'), JSON.stringify(rest));
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
    const result = spawnSync(BIOME, ['lint', path], { cwd: root, encoding: 'utf8' });
    return { status: result.status, output: `${result.stdout}${result.stderr}` };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
};
