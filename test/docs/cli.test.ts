import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { tokenFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';

const run = promisify(execFile);
const ROOT = new URL('../..', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');

/** The blocks of one section of the page (`## title` to the next `## `), by language. */
const blocks = (title: string, lang: string) => {
  const start = PAGE.indexOf(`\n## ${title}\n`);
  const end = PAGE.indexOf('\n## ', start + 1);
  const section = PAGE.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)]
    .filter((match) => match[1] === lang)
    .map((match) => match[2] ?? '');
};

/**
 * Ids differ on every run: each task id (whole, or shortened on the page to its first characters
 * and an ellipsis) is named by order of appearance, so the page's example and a run compare.
 */
const named = (text: string) => {
  const ids = new Map<string, string>();
  return text.replace(/[0-9a-f]{8}(-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|…)/g, (id) => {
    const key = id.slice(0, 8);
    if (!ids.has(key)) ids.set(key, `<id-${ids.size + 1}>`);
    return ids.get(key) as string;
  });
};

/**
 * docs/cli.md's forks, as a reader runs them: the shell snippet in one shell against the local
 * stack (the built-in demo model), its output what the page shows.
 */
describe('docs/cli.md', () => {
  let stack: LocalStack;

  beforeAll(async () => {
    stack = await startStack({});
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('runs the forks snippet: the task as it was before its second turn, and a fork from there', async () => {
    const snippets = blocks('Forks and earlier points', 'sh');
    expect(snippets).toHaveLength(1);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', snippets.join('\n')], {
      cwd: ROOT,
      env: {
        ...process.env,
        TINY_HARNESS_URL: stack.url,
        TINY_HARNESS_TOKEN: tokenFor('you'),
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^History · 2 messages$/m);
    expect(stdout).toMatch(/forked from \S+ just before turn 2: its history through message/);
    expect(stdout).toContain('(demo model) I received: [you] Lisbon, then');
    const [shown] = blocks('Forks and earlier points', '');
    expect(named(shown ?? '')).toBe(named(stdout));
  }, 90_000);
});
