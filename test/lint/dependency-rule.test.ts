import { describe, expect, it } from 'vitest';
import { lint } from '../support/lint.js';

/** Whether biome refuses `statement` in a file at `path`, with `message` in its diagnostic. */
const refused = (path: string, statement: string, message: string) => {
  const result = lint(path, `${statement}\nexport const probe = 1;\n`);
  return result.status !== 0 && result.output.includes('noRestrictedImports')
    ? result.output.includes(message)
    : false;
};

describe('the dependency rule: dependencies point inward', () => {
  const cases = [
    // Adapters implement core ports and import nothing outward.
    ['functions/adapters/x/probe.ts', "import type { ServiceDeps } from '../../service/deps.js';"],
    [
      'functions/adapters/x/probe.ts',
      "import { buildRuntime } from '../../composition/runtime.js';",
    ],
    ['functions/adapters/x/probe.ts', "import { handler } from '../../handlers/push.js';"],
    // The service declares its own dependencies; no composition root, handler or local runtime.
    ['functions/service/probe.ts', "import type { Runtime } from '../composition/runtime.js';"],
    [
      'functions/service/probe.ts',
      "import { configuredSecrets } from '../composition/runtime-config.js';",
    ],
    ['functions/service/probe.ts', "import { createA2aHandler } from '../handlers/a2a.js';"],
    ['functions/service/probe.ts', "import { startLocalStack } from '../local/local-stack.js';"],
  ] as const;

  it.each(cases)('refuses, in %s, `%s`', (path, statement) => {
    expect(refused(path, statement, 'dependencies point inward')).toBe(true);
  });

  it('lets only the handlers import the Lambda functions\u2019 composition roots', () => {
    const root = "import { lambdaLoopRuntime } from '../composition/lambda/loop.js';";
    expect(refused('functions/local/probe.ts', root, 'only their entry points')).toBe(true);
    expect(
      refused(
        'functions/composition/probe.ts',
        "import { x } from './lambda/a2a.js';",
        'only their entry points'
      )
    ).toBe(true);
    expect(
      lint('functions/handlers/probe.ts', `${root}\nexport const probe = lambdaLoopRuntime;\n`)
        .status
    ).toBe(0);
  });

  it('lets the service use the core and its ports (the logger among them), and the handlers everything', () => {
    expect(
      lint(
        'functions/service/probe.ts',
        "import type { Logger } from '../core/ports/logger.js';\nimport type { LoopDeps } from '../core/loop/deps.js';\nexport type Probe = [Logger, LoopDeps];\n"
      ).status
    ).toBe(0);
    expect(
      lint(
        'functions/handlers/probe.ts',
        "import type { Runtime } from '../composition/runtime.js';\nimport type { ServiceDeps } from '../service/deps.js';\nexport type Probe = [Runtime, ServiceDeps];\n"
      ).status
    ).toBe(0);
  });

  it('refuses zod\u2019s `z` by name anywhere: only its namespace import is tree-shaken', () => {
    for (const path of ['functions/core/loop/probe.ts', 'functions/handlers/probe.ts']) {
      expect(refused(path, "import { z } from 'zod';", 'import * as z from')).toBe(true);
      expect(
        lint(path, "import * as z from 'zod';\nexport const probe = z.string();\n").status
      ).toBe(0);
    }
  });
});
