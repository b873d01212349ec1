import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../functions/local/local-stack.js';
import { bearerTokensFor, tokenFor } from '../support/identity.js';
import { startStack } from '../support/local-stack.js';

const run = promisify(execFile);

/**
 * docs/a2a/clients.md, run as a reader would: every TypeScript snippet written to the file its
 * first line names and run with tsx, every shell snippet run with bash, against the local stack
 * (the built-in demo model). What each one prints is checked, so the page cannot rot.
 */

const ROOT = new URL('../..', import.meta.url).pathname;
const PAGE = readFileSync(join(ROOT, 'docs/a2a/clients.md'), 'utf8');

interface Snippet {
  lang: string;
  code: string;
  /** A TypeScript snippet's file name (its first line: `// name.ts`). */
  file?: string;
}

const snippets: Snippet[] = [...PAGE.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => {
  const [, lang = '', code = ''] = match;
  const file = /^\/\/ ([\w-]+\.ts)\n/.exec(code)?.[1];
  return file === undefined ? { lang, code } : { lang, code, file };
});

/** What each snippet must print, by its file (TypeScript) or its place among the shell ones. */
const EXPECTED: Record<string, RegExp[]> = {
  'auth-handler.ts': [/tiny-harness \[ 'tasks-and-plans' \]/],
  'send.ts': [
    /TASK_STATE_INPUT_REQUIRED/,
    /ROLE_USER: Plan a team offsite for May\./,
    /ROLE_AGENT: \(demo model\)/,
  ],
  'follow-up.ts': [/^true 4$/m],
  'stream.ts': [/^task TASK_STATE_WORKING$/m, /^status TASK_STATE_INPUT_REQUIRED$/m],
  'complete.ts': [/^TASK_STATE_COMPLETED$/m],
  'sub-task.ts': [/task_id: '/, /state: 'TASK_STATE_/],
  'push.ts': [/my-hook -> https:\/\/hooks\.example\.com\/a2a/],
  'sh-1': [/"state": "TASK_STATE_INPUT_REQUIRED"/, /"Hello!"/],
  'sh-2': [/"TASK_STATE_INPUT_REQUIRED"/, /"TASK_STATE_CANCELED"/, /"TASK_NOT_CANCELABLE"/],
  'sh-3': [/^data: /m, /TASK_STATE_INPUT_REQUIRED/],
  'sh-4': [/"code": -32602/, /message\.parts/],
  'sh-5': [
    /"forked_from": \{\s*"task_id": "[^"]+",\s*"message_id": "[^"]+:history:\d+"/,
    /"history": \[\s*"Plan a picnic\.",\s*"\(demo model\) I made a plan/,
    /^\[\s*"Plan a picnic\."\s*\]$/m,
  ],
};

describe('docs/a2a/clients.md', () => {
  let stack: LocalStack;
  const dir = join(ROOT, '.local', `doc-snippets-${process.pid}`);
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startStack({
      env: {
        TINY_HARNESS_BEARER_TOKENS: bearerTokensFor(['you']),
        TINY_HARNESS_THROTTLE_BURST: '1000',
      },
    });
    env = { ...process.env, A2A_URL: stack.url, A2A_TOKEN: tokenFor('you') };
    mkdirSync(dir, { recursive: true });
    for (const snippet of snippets) {
      if (snippet.file !== undefined) writeFileSync(join(dir, snippet.file), snippet.code);
    }
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await stack?.close();
  });

  it('has a check for every snippet a reader would run, and a snippet for every check', () => {
    const runnable = snippets.filter((snippet) => snippet.lang === 'ts' || snippet.lang === 'sh');
    const names = runnable
      .filter((snippet) => snippet.file !== 'client.ts')
      .map(
        (snippet, index, all) =>
          snippet.file ?? `sh-${all.slice(0, index + 1).filter((s) => s.lang === 'sh').length}`
      );
    expect(runnable.every((snippet) => snippet.lang === 'sh' || snippet.file)).toBe(true);
    expect(names.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  const typescript = snippets.filter((snippet) => snippet.file && snippet.file !== 'client.ts');
  it.each(typescript.map((snippet) => snippet.file as string))(
    '%s runs and prints what the page says',
    async (file) => {
      const { stdout } = await run(join(ROOT, 'node_modules/.bin/tsx'), [join(dir, file)], {
        cwd: dir,
        env,
        timeout: 60_000,
      });
      for (const expected of EXPECTED[file] ?? []) expect(stdout).toMatch(expected);
    }
  );

  const shell = snippets.filter((snippet) => snippet.lang === 'sh');
  it.each(shell.map((snippet, index) => [`sh-${index + 1}`, snippet.code] as const))(
    'the curl snippet %s runs and prints what the page says',
    async (name, code) => {
      const { stdout } = await run('bash', ['-c', `set -euo pipefail\n${code}`], {
        env,
        timeout: 60_000,
      });
      for (const expected of EXPECTED[name] ?? []) expect(stdout).toMatch(expected);
    }
  );
});
