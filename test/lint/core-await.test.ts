import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = 'functions/core';

/**
 * The files of the core that may await: the unit of work (which reads, performs effects and
 * commits) and what it runs. Everything else decides without I/O. The rest of this list is what
 * is still to move (each entry says why it is here); it only shrinks.
 */
const MAY_AWAIT = new Set([
  'unit-of-work/interpreter.ts',
  'unit-of-work/perform.ts',
  // The hook runner: executors are plugins, so running them is an effect.
  'hooks/hooks.ts',
  // Runs operations in turn on other tasks (a cancel's cascade to children).
  'unit-of-work/cascade.ts',
]);

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });

/** The source without its comments, so a comment that says "await" is not code that does. */
const code = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');

describe('the core decides without awaiting', () => {
  const awaiting = sources(CORE)
    .filter((path) => /\bawait\b/.test(code(readFileSync(path, 'utf8'))))
    .map((path) => relative(CORE, path));

  it('awaits only in the unit of work and the files still listed to move', () => {
    expect(awaiting.filter((path) => !MAY_AWAIT.has(path))).toEqual([]);
  });

  it('lists no file that no longer awaits (the list only shrinks)', () => {
    expect([...MAY_AWAIT].filter((path) => !awaiting.includes(path))).toEqual([]);
  });
});
