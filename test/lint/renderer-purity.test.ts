import { describe, expect, it } from 'vitest';
import { lint } from '../support/lint.js';

describe('the dependency rule: the renderers run in a browser and speak A2A only', () => {
  const forbidden = [
    ["import { readFileSync } from 'node:fs';", 'no Node module'],
    ["import { z } from 'zod';", 'No zod in the browser bundle'],
    ["import { x } from '../service/a2a-service.js';", 'plain A2A client'],
    ["import { x } from '../adapters/dynamodb/table.js';", 'plain A2A client'],
    ["import { A2AExpressApp } from '@a2a-js/sdk/server';", 'plain A2A client'],
  ] as const;

  for (const path of ['functions/view/probe.ts', 'web/src/probe.ts']) {
    for (const [statement, message] of forbidden) {
      it(`refuses \`${statement}\` in ${path}`, () => {
        const result = lint(path, `${statement}\nexport const probe = 1;\n`);
        expect(result.status).not.toBe(0);
        expect(result.output).toContain('noRestrictedImports');
        expect(result.output).toContain(message);
      });
    }
  }

  it('allows the A2A client, the core identifiers and type-only schema imports', () => {
    const source =
      "import { ClientFactory } from '@a2a-js/sdk/client';\nimport { TASK_METADATA_KEY } from '../core/a2a/identifiers.js';\nimport type { TaskView } from '../core/a2a/task-view.schema.js';\nexport const probe = (v: TaskView) => [ClientFactory, TASK_METADATA_KEY, v];\n";
    const result = lint('functions/view/probe.ts', source);
    expect(result.output).not.toContain('noRestrictedImports');
  });
});
