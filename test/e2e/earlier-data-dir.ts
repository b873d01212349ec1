import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@a2a-js/sdk/client';
import { clientAt, startDemoStack } from '../faults/stack-client.js';
import { freePort, type StackProcess } from '../faults/stack-process.js';

/** The bearer token of the caller the fixtures' runs had, `you`. */
export const FIXTURE_TOKEN = 'earlier-data-dir-token';

export interface StackOnFixture {
  stack: StackProcess;
  you: Client;
  stop: () => Promise<void>;
}

/**
 * `npm start` on the demo model over a copy of a data directory an earlier build wrote (a
 * `fixtures/*.tar.gz`), with the caller its run had.
 */
export const stackOnFixture = async (
  fixture: string,
  env: Record<string, string> = {}
): Promise<StackOnFixture> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tiny-harness-earlier-'));
  execFileSync('tar', ['xzf', fixture, '-C', dataDir]);
  const stack = await startDemoStack({
    dataDir,
    port: await freePort(),
    token: FIXTURE_TOKEN,
    env: { TINY_HARNESS_BEARER_TOKENS: `${FIXTURE_TOKEN}=you`, ...env },
  });
  return {
    stack,
    you: await clientAt(stack.url, FIXTURE_TOKEN),
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};
