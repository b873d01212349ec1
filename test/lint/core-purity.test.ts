import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIOME = resolve('node_modules/.bin/biome');

/**
 * Lints `source` as if it lived at `path`, with the project's own biome configuration, in a
 * scratch copy of the layout (so the test never writes into the source tree).
 */
const lint = (path: string, source: string) => {
  const root = mkdtempSync(join(tmpdir(), 'core-purity-'));
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

describe('the dependency rule: functions/core is pure', () => {
  const forbidden = [
    ["import { readFileSync } from 'node:fs';", 'no Node I/O'],
    ["import { DynamoDBClient } from '@aws-sdk/client-dynamodb';", 'is pure'],
    ["import middy from '@middy/core';", 'is pure'],
    ["import type { Handler } from 'aws-lambda';", 'is pure'],
    ["import { App } from 'aws-cdk-lib';", 'is pure'],
    ["import { x } from '../../adapters/dynamodb/table.js';", 'depends on nothing outside'],
  ] as const;

  for (const [statement, message] of forbidden) {
    it(`refuses \`${statement}\` in functions/core`, () => {
      const result = lint(
        'functions/core/loop/probe.ts',
        `${statement}\nexport const probe = 1;\n`
      );
      expect(result.status).not.toBe(0);
      expect(result.output).toContain('noRestrictedImports');
      expect(result.output).toContain(message);
    });
  }

  it('allows the same imports outside the core', () => {
    const source = `${forbidden.map(([statement]) => statement).join('\n')}\nexport const probe = 1;\n`;
    const result = lint('functions/adapters/probe.ts', source);
    expect(result.output).not.toContain('noRestrictedImports');
  });

  it('allows zod and the A2A SDK types in the core', () => {
    const source =
      "import { z } from 'zod';\nimport type { Task } from '@a2a-js/sdk';\nexport const probe = (t: Task) => z.string().parse(t.id);\n";
    expect(lint('functions/core/loop/probe.ts', source).status).toBe(0);
  });
});
