import { describe, expect, it } from 'vitest';
import { lint } from '../support/lint.js';

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
      "import * as z from 'zod';\nimport type { Task } from '@a2a-js/sdk';\nexport const probe = (t: Task) => z.string().parse(t.id);\n";
    expect(lint('functions/core/loop/probe.ts', source).status).toBe(0);
  });
});
