import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every TypeScript source file under a folder. */
const sources = (folder: string): string[] =>
  readdirSync(join(ROOT, folder)).flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return path.endsWith('.ts') ? [path] : [];
  });

describe('the docs are true to the code', () => {
  it('every cdk.json context key has a row in docs/deploy.md', () => {
    const deploy = read('docs/deploy.md');
    const keys = Object.keys(JSON.parse(read('cdk.json')).context as Record<string, unknown>);
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(deploy, key).toMatch(new RegExp(`^\\| \`${key}\` \\|`, 'm'));
  });

  it('every TINY_HARNESS_* variable the code reads is in docs/configuration.md', () => {
    const configuration = read('docs/configuration.md');
    const code = ['functions', 'cdk', 'scripts'].flatMap(sources).map(read).join('\n');
    const variables = [...new Set(code.match(/TINY_HARNESS_[A-Z_]*[A-Z]/g) ?? [])].sort();
    expect(variables).toContain('TINY_HARNESS_STREAMS_PER_CALLER');
    const missing = variables.filter((variable) => !configuration.includes(`\`${variable}\``));
    expect(missing).toEqual([]);
  });

  it('no doc cites a design document outside the repository', () => {
    const markdown = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'), { recursive: true })
        .map(String)
        .filter((path) => path.endsWith('.md'))
        .map((path) => join('docs', path)),
    ];
    expect(markdown).toContain(join('docs', 'deploy.md'));
    for (const path of markdown) expect(read(path), path).not.toMatch(/DESIGN(\.md| §)/);
  });

  it('no comment in the code cites a design document outside the repository', () => {
    const sources = ['functions', 'cdk', 'scripts', 'web/src'].flatMap((dir) =>
      readdirSync(join(ROOT, dir), { recursive: true })
        .map(String)
        .filter((path) => /\.(ts|tsx|mjs)$/.test(path))
        .map((path) => join(dir, path))
    );
    expect(sources).toContain(join('functions', 'core', 'errors.ts'));
    const citing = sources.filter((path) => /DESIGN(\.md| §)/.test(read(path)));
    expect(citing).toEqual([]);
  });
});
